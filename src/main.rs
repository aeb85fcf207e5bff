//! The `pgnkit` binary: parse the command line, run it, turn the outcome
//! into an exit code.

#![forbid(unsafe_code)]

/// A line on stderr, as `eprintln!` writes it, but lost rather than a panic
/// when stderr cannot be written (`pgnkit ... 2>&1 | head` once head has
/// left): the run goes on, and its exit status still says how it went.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod ci;
mod cli;
mod cmd;
mod color;
mod exit;
mod pick;
mod pipeline;
mod progress;
mod run;
mod signals;
mod sink;
mod stdout;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // clap prints help and usage errors itself: it must know --color first.
    let when = color::when_from_args(&args);
    let cli = cli::single::parse(args, color::ColorEnv::from_env().clap_choice(when));
    if let Some(note) = cli.global.threads_note().filter(|_| !cli.global.quiet()) {
        say!("{note}");
    }
    pgnkit::output::file::watch_before_writing(signals::watch);
    let outcome = cmd::run(&cli);
    signals::leave_to_a_signal();
    let stale = pgnkit::output::file::stale_removed();
    if stale > 0 && !cli.global.quiet() {
        say!(
            "pgnkit: removed {} left by a run that was killed (.NAME.PID-N.pgnkit-tmp)",
            run::plural(stale as u64, "temporary file", "temporary files")
        );
    }
    match outcome {
        Ok(status) => status.with_exit_zero(cli.global.exit_zero).into(),
        // Exit quietly on EPIPE: "pgnkit validate big.pgn | head" is not an error.
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let label = if cli.global.stderr_color() { "\x1b[1;31merror\x1b[0m" } else { "error" };
            say!("pgnkit: {label}: {err:#}");
            exit::ExitStatus::Error.into()
        }
    }
}
