//! `pgnkit completions SHELL` and `pgnkit man [COMMAND]`: shell completions
//! and manual pages, made from the command line's own definition.

use std::io::Write as _;

use clap::CommandFactory;

use crate::{cli::Cli, exit::ExitStatus};

/// Writes the completion script for `shell` to stdout.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitStatus> {
    let mut command = Cli::command();
    // clap_complete panics when its writer fails: it writes to memory, and
    // a full disk or a closed pipe is an error (or a quiet end) here.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "pgnkit", &mut script);
    let mut out = crate::stdout::stdout();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// Writes the manual page of `pgnkit` or of one of its commands (`stats`,
/// `fen check`) to stdout.
pub fn page(command: &[String]) -> anyhow::Result<ExitStatus> {
    let mut page = Cli::command();
    let mut name = String::from("pgnkit");
    for word in command {
        page.build();
        let Some(sub) = page.find_subcommand(word).cloned() else {
            anyhow::bail!("{name} has no command {word:?}");
        };
        name = format!("{name}-{word}");
        page = sub;
    }
    let mut text = Vec::new();
    clap_mangen::Man::new(page).title(name).render(&mut text)?;
    let mut out = crate::stdout::stdout();
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitStatus::Success)
}
