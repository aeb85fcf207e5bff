//! The `pgnkit` binary: parse the command line, run it, turn the outcome
//! into an exit code.

#![allow(clippy::print_stderr)]

mod cli;
mod cmd;
mod exit;
mod pipeline;
mod progress;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(&cli) {
        Ok(status) => status.into(),
        // Exit quietly on EPIPE: "pgnkit validate big.pgn | head" is not an error.
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("pgnkit: error: {err:#}");
            exit::ExitStatus::Error.into()
        }
    }
}
