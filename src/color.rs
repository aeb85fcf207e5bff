//! When to colour: one decision from `--color`, NO_COLOR, CLICOLOR and
//! CLICOLOR_FORCE, applied to clap's messages, findings and the progress bar.

use std::io::IsTerminal;

use clap::ValueEnum;

/// `--color` and `--progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum When {
    /// When the stream is a terminal (and, for colour, the environment
    /// allows it).
    #[default]
    Auto,
    Always,
    Never,
}

/// The environment variables that steer colour, read once.
#[derive(Debug, Clone, Default)]
pub struct ColorEnv {
    no_color: bool,
    clicolor_off: bool,
    clicolor_force: bool,
    dumb_terminal: bool,
}

impl ColorEnv {
    /// NO_COLOR (non-empty: no colour), CLICOLOR (`0`: no colour),
    /// CLICOLOR_FORCE (non-empty and not `0`: colour even in pipes), TERM
    /// (`dumb`: no colour).
    pub fn from_env() -> ColorEnv {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        ColorEnv {
            no_color: var("NO_COLOR").is_some(),
            clicolor_off: var("CLICOLOR").is_some_and(|v| v == "0"),
            clicolor_force: var("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
            dumb_terminal: var("TERM").is_some_and(|v| v == "dumb"),
        }
    }

    /// Whether to colour a stream that is (or is not) a terminal. As in
    /// anstream (clap's colour), CLICOLOR_FORCE wins over NO_COLOR.
    pub fn colors(&self, when: When, terminal: bool) -> bool {
        match when {
            When::Always => true,
            When::Never => false,
            When::Auto if self.clicolor_force => true,
            When::Auto => !self.no_color && !self.clicolor_off && !self.dumb_terminal && terminal,
        }
    }

    /// The same decision for clap, which writes help to stdout and errors to
    /// stderr.
    pub fn clap_choice(&self, when: When) -> clap::ColorChoice {
        let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        if self.colors(when, terminal) { clap::ColorChoice::Always } else { clap::ColorChoice::Never }
    }
}

/// `--color` as given on the command line, read before clap parses it (so
/// that clap's own help and errors follow it); the last one wins.
pub fn when_from_args(args: &[std::ffi::OsString]) -> When {
    let mut when = When::Auto;
    let mut args = args.iter().skip(1).map(|a| a.to_str().unwrap_or(""));
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let value = match arg.strip_prefix("--color") {
            Some("") => args.next().unwrap_or(""),
            Some(rest) => match rest.strip_prefix('=') {
                Some(value) => value,
                None => continue,
            },
            None => continue,
        };
        if let Ok(parsed) = When::from_str(value, true) {
            when = parsed;
        }
    }
    when
}

#[cfg(test)]
mod tests {
    use super::{ColorEnv, When, when_from_args};

    #[test]
    fn environment_rules_in_order_of_precedence() {
        let plain = ColorEnv::default();
        assert!(plain.colors(When::Auto, true));
        assert!(!plain.colors(When::Auto, false));
        assert!(plain.colors(When::Always, false));
        assert!(!plain.colors(When::Never, true));
        let no_color = ColorEnv { no_color: true, ..ColorEnv::default() };
        assert!(!no_color.colors(When::Auto, true));
        assert!(no_color.colors(When::Always, true), "--color always wins over NO_COLOR");
        let off = ColorEnv { clicolor_off: true, ..ColorEnv::default() };
        assert!(!off.colors(When::Auto, true));
        let forced = ColorEnv { clicolor_force: true, no_color: true, ..ColorEnv::default() };
        assert!(forced.colors(When::Auto, false));
        assert!(!forced.colors(When::Never, true));
        let dumb = ColorEnv { dumb_terminal: true, ..ColorEnv::default() };
        assert!(!dumb.colors(When::Auto, true));
    }

    #[test]
    fn color_flag_is_found_before_parsing() {
        let args = |list: &[&str]| list.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(when_from_args(&args(&["pgnkit", "validate", "--color", "always", "x"])), When::Always);
        assert_eq!(when_from_args(&args(&["pgnkit", "--color=never", "validate"])), When::Never);
        assert_eq!(when_from_args(&args(&["pgnkit", "validate", "--", "--color=never"])), When::Auto);
        assert_eq!(when_from_args(&args(&["pgnkit", "validate", "--colorful"])), When::Auto);
    }
}
