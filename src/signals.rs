//! SIGINT, SIGTERM and SIGHUP: the temporary files of the outputs are
//! removed before the process ends, so that no file is left cut short.

use signal_hook::{
    consts::{SIGHUP, SIGINT, SIGTERM},
    iterator::Signals,
};

/// Starts the thread that waits for the signals. The process then ends by
/// the signal itself, as it would have without us: the shell sees 130 for
/// SIGINT, 143 for SIGTERM, 129 for SIGHUP.
///
/// # Errors
///
/// The handlers cannot be installed.
pub fn watch() -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            pgnkit::output::file::remove_temporaries();
            end_by(signal);
        }
    })?;
    Ok(())
}

/// Ends the process by `signal`'s default action, or, should that fail,
/// with the status a shell gives a process it ended.
#[allow(clippy::exit)]
fn end_by(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    std::process::exit(128 + signal)
}
