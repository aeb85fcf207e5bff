//! SIGINT, SIGTERM and SIGHUP: the temporary files of the outputs are
//! removed before the process ends, so that no file is left cut short.
//! Watched from just before the first such file is created
//! (`output::file::watch_before_writing`): until then the signals' default
//! action ends the process as this would, and no thread is started.

use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::{
    consts::{SIGHUP, SIGINT, SIGTERM},
    iterator::Signals,
};

/// Set by the signal handler itself, the moment a signal comes; from then
/// on the process is the signal thread's to end.
static ARRIVED: AtomicBool = AtomicBool::new(false);

/// Starts the thread that waits for the signals. The process then ends by
/// the signal itself, as it would have without us: the shell sees 130 for
/// SIGINT, 143 for SIGTERM, 129 for SIGHUP.
///
/// # Errors
///
/// The handlers cannot be installed.
pub fn watch() -> std::io::Result<()> {
    // A signal ignored when we start stays ignored: `nohup` ignores SIGHUP,
    // and a shell script's `cmd &` SIGINT, for runs meant to outlive them.
    let ignored = ignored();
    let wanted: Vec<i32> = [SIGINT, SIGTERM, SIGHUP].into_iter().filter(|&s| ignored & (1 << (s - 1)) == 0).collect();
    if wanted.is_empty() {
        return Ok(());
    }
    for &signal in &wanted {
        signal_hook::flag::register(signal, &ARRIVED)?;
    }
    let mut signals = Signals::new(wanted)?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            pgnkit::output::file::remove_temporaries();
            end_by(signal);
        }
    })?;
    Ok(())
}

/// For the main thread, before it ends the process: once a signal has
/// come, waits for the signal thread to end it (after removing the
/// temporary files), so that the status is the signal's every time. The
/// run may have failed because of the signal (a temporary file already
/// removed, a rename refused): its error, and exit 2, would otherwise race
/// the signal thread to the end of the process.
pub fn leave_to_a_signal() {
    if ARRIVED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// Ends the process by `signal`'s default action, or, should that fail,
/// with the status a shell gives a process it ended.
#[allow(clippy::exit)]
fn end_by(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    std::process::exit(128 + signal)
}

/// The signals ignored by this process, as a mask (bit n - 1 for signal
/// n), from the kernel's `SigIgn` line: std has no safe way to ask
/// `sigaction`. None where there is no `/proc` (as if none were).
fn ignored() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ignored_mask_is_read_and_sigpipe_is_in_it() {
        // Rust's runtime ignores SIGPIPE (13) before main.
        assert_ne!(super::ignored() & (1 << (13 - 1)), 0);
    }
}
