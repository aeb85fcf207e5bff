//! `pgnkit completions SHELL` and `pgnkit man [COMMAND]`: shell completions
//! and manual pages, made from the command line's own definition.

use std::io::Write as _;

use clap::CommandFactory;
use pgnkit::{fen_check::FenCode, report::Code};
use roff::{Roff, bold, roman};

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
/// `fen check` or `fen-check`) to stdout.
pub fn page(command: &[String]) -> anyhow::Result<ExitStatus> {
    let text = render(command)?;
    let mut out = crate::stdout::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// The page of `command` (empty: pgnkit itself): clap_mangen's sections,
/// then FINDINGS, EXIT STATUS and ENVIRONMENT before the examples.
fn render(command: &[String]) -> anyhow::Result<String> {
    // `fen-check` is `fen check`, as the page's name has it: an install
    // loop (`for c in ...; do pgnkit man $c > pgnkit-$c.1`) then needs no
    // word splitting, which zsh does not do.
    let path: Vec<&str> = command.iter().flat_map(|word| word.split('-')).collect();
    let mut page = Cli::command();
    let mut name = String::from("pgnkit");
    for &word in &path {
        page.build();
        let Some(sub) = page.find_subcommand(word).cloned() else {
            anyhow::bail!("{name} has no command {word:?}");
        };
        name = format!("{name}-{word}");
        page = sub;
    }
    page.build();
    let mut text = Vec::new();
    clap_mangen::Man::new(page.clone()).title(name).render(&mut text)?;
    let text = String::from_utf8(text)?;

    let mut ours = Roff::new();
    findings_section(&mut ours, &path);
    exit_status_section(&mut ours, &path);
    environment_section(&mut ours, &page, &path);
    // Every Roff renders roff's preamble first; clap_mangen's page already
    // has it, and it must come once, at the top.
    let preamble = Roff::new().render();
    let rendered = ours.render();
    let sections = rendered.strip_prefix(&preamble).unwrap_or(&rendered);

    // Man pages put these sections before the examples (clap_mangen's
    // EXTRA, from after_help) and the version.
    let at = ["\n.SH EXTRA\n", "\n.SH VERSION\n"]
        .iter()
        .find_map(|heading| text.find(heading))
        .map_or(text.len(), |at| at + 1);
    Ok(format!("{}{sections}{}", &text[..at], &text[at..]))
}

/// The commands whose pages list validate's finding codes, with how the
/// command shows them.
const GAME_FINDINGS: &[(&str, &str)] = &[
    (
        "validate",
        "Each finding is a line PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE, or a JSON Lines or CSV record with --format.",
    ),
    ("stats", "Every game is replayed as by pgnkit validate; the statistics count its findings by code."),
    (
        "convert",
        "Every game is replayed as by pgnkit validate; its findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
    (
        "fix",
        "Every game is replayed as by pgnkit validate; its repairs go to stderr as PATH:LINE:COLUMN: fixed[CODE]: MESSAGE, and the findings it cannot repair as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
    (
        "filter",
        "A game is replayed (as by pgnkit validate) only when a criterion or --normalize needs its moves; then its findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
    (
        "dedup",
        "Every game is replayed as by pgnkit validate; its findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
    (
        "book",
        "Every game is replayed as by pgnkit validate; its findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE, and a game left out (a set-up start) is a note there.",
    ),
    (
        "split",
        "Games are replayed (as by pgnkit validate) only with --normalize; findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
    (
        "ratings",
        "With --valid-only, games are replayed as by pgnkit validate and their findings go to stderr as PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE.",
    ),
];

/// FINDINGS: every code of validate (or of `fen check`) with its severity
/// and meaning, from the codes' own list.
fn findings_section(roff: &mut Roff, path: &[&str]) {
    let codes: Vec<(&str, (&str, &str))> = match path {
        ["fen", "check"] => {
            roff.control("SH", ["FINDINGS"]);
            roff.text([roman(
                "Each finding is a line SOURCE:LINE:COLUMN: SEVERITY[CODE]: MESSAGE, or a JSON Lines or CSV record with --format. A record with an error is invalid; warnings leave it valid.",
            )]);
            FenCode::ALL.iter().map(|code| (code.as_str(), code.manual())).collect()
        }
        [command] => {
            let Some((_, intro)) = GAME_FINDINGS.iter().find(|(name, _)| name == command) else { return };
            roff.control("SH", ["FINDINGS"]);
            roff.text([roman(format!(
                "{intro} A game with an error is invalid; warnings and info findings leave it valid."
            ))]);
            Code::ALL.iter().map(|code| (code.as_str(), code.manual())).collect()
        }
        _ => return,
    };
    for (code, (severity, meaning)) in codes {
        roff.control("TP", []);
        roff.text([bold(code), roman(format!(" ({severity})"))]);
        roff.text([roman(meaning)]);
    }
}

/// docs/exit-codes.md: its tables are what every page says, so the page
/// and the documentation cannot disagree.
const EXIT_CODES: &str = include_str!("../../docs/exit-codes.md");

/// The rows (cells, trimmed) of the first table after the line `heading`.
fn table(heading: &str) -> Vec<Vec<&'static str>> {
    EXIT_CODES
        .lines()
        .skip_while(|line| *line != heading)
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| line.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect()
}

/// The commands a row of the per-command table is about: `perft FEN
/// DEPTH` and `perft --suite` are both about `perft`.
fn row_commands(cell: &str) -> Vec<Vec<&str>> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.split_whitespace().filter(|w| w.bytes().all(|b| b.is_ascii_lowercase())).collect())
        .collect()
}

/// The per-command rows about `path`: its own, or for a group (`fen`)
/// those of its commands.
fn command_rows(path: &[&str]) -> Vec<Vec<&'static str>> {
    let rows = table("## Per command");
    let about = |exact: bool| -> Vec<Vec<&str>> {
        rows.iter()
            .filter(|row| {
                row_commands(row[0]).iter().any(|words| words.starts_with(path) && (words.len() == path.len()) == exact)
            })
            .cloned()
            .collect()
    };
    let own = about(true);
    if own.is_empty() && !path.is_empty() { about(false) } else { own }
}

/// Markdown cell text as man text: `as validate` spelled out, no backticks.
fn cell_text(cell: &str, column: usize) -> String {
    let validate = command_rows(&["validate"]);
    let text = match (cell.strip_prefix("as `validate`"), validate.first()) {
        (Some(rest), Some(row)) => format!("{}{rest}", row[column]),
        _ => cell.to_owned(),
    };
    text.replace('`', "")
}

/// EXIT STATUS from docs/exit-codes.md: the general meaning of 0, the
/// command's own 1 and 2, then panics and signals.
fn exit_status_section(roff: &mut Roff, path: &[&str]) {
    let general = table("# Exit codes");
    let rows = if path.is_empty() { Vec::new() } else { command_rows(path) };
    roff.control("SH", ["EXIT STATUS"]);
    for row in &general {
        roff.control("TP", []);
        roff.text([bold(row[0])]);
        let column = match row[0] {
            "1" => 1,
            "2" => 2,
            _ => 0,
        };
        if column == 0 || rows.is_empty() {
            roff.text([roman(without_pointers(row[1]).replace('`', ""))]);
            continue;
        }
        if column == 2 {
            roff.text([roman("a usage error (an unknown option, a missing or malformed argument), or:")]);
            if rows.len() > 1 {
                roff.control("br", []);
            }
        }
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                roff.control("br", []);
            }
            let text = cell_text(row[column], column);
            if rows.len() > 1 {
                roff.text([bold(row[0].replace('`', "")), roman(format!(": {text}"))]);
            } else {
                roff.text([roman(text)]);
            }
        }
    }
    roff.control("PP", []);
    roff.text([roman("When several apply, the highest wins.")]);
}

/// The text without its pointers to other parts of the markdown page
/// (`(see "Signals" below)`), which a manual page does not have.
fn without_pointers(text: &str) -> String {
    let mut text = text.to_owned();
    while let Some(start) = text.find(" (see ") {
        let Some(len) = text[start..].find(')') else { break };
        text.replace_range(start..start + len + 1, "");
    }
    text
}

/// The environment variables pgnkit reads: (name, what it does, the
/// option of the commands it is for, if not all).
const ENVIRONMENT: &[(&str, &str, Option<&str>)] = &[
    ("NO_COLOR", "set and not empty: no colour with --color auto (the default).", None),
    ("CLICOLOR", "0: no colour with --color auto.", None),
    (
        "CLICOLOR_FORCE",
        "set, not empty and not 0: colour with --color auto even when the output is not a terminal; it wins over NO_COLOR, CLICOLOR and TERM.",
        None,
    ),
    ("TERM", "dumb: no colour with --color auto.", None),
    (
        "PGNKIT_OPENINGS",
        "builtin (the table built in, the default), tags (the games' ECO and Opening tags) or a lichess chess-openings TSV file or folder: where games' openings are named from (never the tags that convert --to pgn and --normalize write) when --openings is not given.",
        Some("openings"),
    ),
];

/// ENVIRONMENT: the variables that apply to the page's command (all of
/// them on pgnkit's own page, with the commands each is for).
fn environment_section(roff: &mut Roff, page: &clap::Command, path: &[&str]) {
    roff.control("SH", ["ENVIRONMENT"]);
    for &(name, meaning, option) in ENVIRONMENT {
        let has = |command: &clap::Command| command.get_arguments().any(|arg| Some(arg.get_id().as_str()) == option);
        let meaning = match option {
            None => meaning.to_owned(),
            Some(_) if path.is_empty() => {
                let users: Vec<&str> = page.get_subcommands().filter(|c| has(c)).map(|c| c.get_name()).collect();
                format!("{} ({})", meaning.trim_end_matches('.'), users.join(", "))
            }
            Some(_) if has(page) => meaning.to_owned(),
            Some(_) => continue,
        };
        roff.control("TP", []);
        roff.text([bold(name)]);
        roff.text([roman(meaning)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command path of the command line, groups included.
    fn paths() -> Vec<Vec<String>> {
        let mut cli = Cli::command();
        cli.build();
        let mut out = Vec::new();
        for sub in cli.get_subcommands().filter(|c| c.get_name() != "help") {
            out.push(vec![sub.get_name().to_owned()]);
            for nested in sub.get_subcommands().filter(|c| c.get_name() != "help") {
                out.push(vec![sub.get_name().to_owned(), nested.get_name().to_owned()]);
            }
        }
        out
    }

    #[test]
    fn every_command_has_a_row_in_the_exit_code_table() {
        for path in paths() {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            let rows = command_rows(&path);
            assert!(!rows.is_empty(), "docs/exit-codes.md has no row for {path:?}");
            assert!(rows.iter().all(|row| row.len() == 3), "{path:?}: {rows:?}");
        }
    }

    #[test]
    fn the_general_table_gives_success_findings_failure_and_signals() {
        let codes: Vec<&str> = table("# Exit codes").iter().map(|row| row[0]).collect();
        assert_eq!(codes, ["0", "1", "2", "101", "129, 130, 143"]);
    }

    #[test]
    fn pointers_into_the_markdown_page_are_left_out() {
        assert_eq!(without_pointers("a panic (see the end of this page), or (Ctrl-C)"), "a panic, or (Ctrl-C)");
    }

    #[test]
    fn as_validate_is_spelled_out() {
        let text = cell_text("as `validate` (every game is replayed)", 1);
        assert!(text.starts_with("a game has an error") && text.ends_with("(every game is replayed)"), "{text}");
    }

    #[test]
    fn the_findings_lists_are_for_commands_that_exist() {
        let paths = paths();
        for (name, _) in GAME_FINDINGS {
            assert!(paths.iter().any(|p| p == &[name.to_string()]), "{name}");
        }
    }
}
