//! The progress bar: the only place that knows indicatif.

use std::io::{IsTerminal, Read, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle, TermLike};

use crate::color::When;

/// How the command line wants the bar: `--progress`, `--quiet`, and
/// whether stderr is coloured (`--color`).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub when: When,
    pub quiet: bool,
    pub color: bool,
}

/// The progress bar of a run, or a hidden one; clones draw the same bar.
#[derive(Debug, Clone)]
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar that never draws (for tests, and runs that show none).
    #[cfg(test)]
    pub fn hidden() -> Bar {
        Bar(ProgressBar::hidden())
    }

    /// A bar over the raw input bytes (`total` of them, if known). Not
    /// drawn by default over input typed at the terminal (`typed`), where
    /// it would cover what the user types.
    pub fn new(total: Option<u64>, typed: bool, settings: Settings) -> Bar {
        if typed && settings.when == When::Auto {
            return Bar(ProgressBar::hidden());
        }
        Bar(bar(total, settings))
    }

    pub fn is_hidden(&self) -> bool {
        self.0.is_hidden()
    }

    /// Runs `f` with the bar off the screen (to write output or a message).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.0.suspend(f)
    }

    /// The text after the bar: games or positions so far.
    pub fn set_message(&self, message: String) {
        self.0.set_message(message);
    }

    /// Takes the bar off the screen for good.
    pub fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }

    /// Counts the raw bytes read from `raw` for the bar.
    pub fn wrap(&self, raw: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
        if self.0.is_hidden() { raw } else { Box::new(self.0.wrap_read(raw)) }
    }

    /// As [`Bar::wrap`], for an input opened by [`pgnkit::input::open`]
    /// (an archive is read by seeking, where a wrapped reader cannot).
    pub fn progress(&self) -> Option<pgnkit::input::Progress> {
        if self.0.is_hidden() {
            return None;
        }
        let bar = self.0.clone();
        Some(std::sync::Arc::new(move |n| bar.inc(n)))
    }
}

/// A bar over the raw input bytes: shown with `--progress always`, or by
/// default when stderr is a terminal; never with `--quiet`. Coloured as
/// `--color` decides.
fn bar(total: Option<u64>, settings: Settings) -> ProgressBar {
    let terminal = std::io::stderr().is_terminal();
    let target = match settings.when {
        _ if settings.quiet => return ProgressBar::hidden(),
        When::Never => return ProgressBar::hidden(),
        When::Auto if !terminal => return ProgressBar::hidden(),
        When::Auto => ProgressDrawTarget::stderr(),
        // indicatif draws only on a terminal; a log gets a line a second.
        When::Always if terminal => ProgressDrawTarget::stderr(),
        When::Always => ProgressDrawTarget::term_like_with_hz(Box::new(Stderr::default()), 1),
    };
    let (bar, spinner) =
        if settings.color { ("{bar:30.cyan/blue}", "{spinner:.cyan}") } else { ("{bar:30}", "{spinner}") };
    let bar = match total {
        Some(total) => ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(&format!(
                "{bar} {{bytes}}/{{total_bytes}} {{binary_bytes_per_sec}} {{msg}} eta {{eta}}"
            ))
            .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, target).with_style(
            ProgressStyle::with_template(&format!("{spinner} {{bytes}} {{binary_bytes_per_sec}} {{msg}}"))
                .expect("valid template"),
        ),
    };
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    // A run that ends in an error still takes its bar off the screen.
    bar.with_finish(ProgressFinish::AndClear)
}

/// Stderr that is not a terminal, for `--progress always`: at most one
/// line a second, so a log (a CI job's) shows how the run went. indicatif
/// draws a bar as text, a filler of spaces and a flush.
#[derive(Debug, Default)]
struct Stderr {
    /// The line being drawn, and when the last line was written.
    state: std::sync::Mutex<(String, Option<std::time::Instant>)>,
}

impl TermLike for Stderr {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        self.write_str(line)?;
        self.flush()
    }
    fn write_str(&self, text: &str) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.0.push_str(text.trim_end_matches([' ', '\r']));
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let line = std::mem::take(&mut state.0);
        let due = state.1.is_none_or(|last| last.elapsed() >= std::time::Duration::from_secs(1));
        if line.is_empty() || !due {
            return Ok(());
        }
        state.1 = Some(std::time::Instant::now());
        writeln!(std::io::stderr(), "{line}")
    }
}
