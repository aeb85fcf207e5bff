//! The progress bar: the only place that knows indicatif.

use std::io::{IsTerminal, Read};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over the raw input bytes, hidden unless stderr is a terminal and
/// `--quiet` is off.
pub fn bar(total: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(total) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} eta {eta}")
                .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{spinner} {bytes} {binary_bytes_per_sec} {msg}").expect("valid template"),
        ),
    };
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Counts raw bytes read for the bar.
pub fn wrap(bar: &ProgressBar, raw: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    if bar.is_hidden() { raw } else { Box::new(bar.wrap_read(raw)) }
}
