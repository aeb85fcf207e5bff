//! The `stats` summary as a small self-contained SVG report: results, the
//! game-length histogram and the termination mix.
//!
//! It is drawn from the typed [`Stats`], by the same methods
//! [`Stats::to_json`] writes its numbers with (White's score, the mean
//! length, the percentiles, at the precision the JSON states them), so the
//! report and `--format json` never disagree. A partial merged by `stats
//! merge` is read into [`Stats`] first, so it draws as a fresh run does.
//!
//! Like [`diagram`](crate::diagram) it is written by hand, with no external
//! fonts, scripts, styles or images: text uses the system font stack, and
//! every colour and size is a presentation attribute, so viewers without
//! CSS support draw it too. Text positions assume no font metrics; the
//! columns leave room for the widest value each can hold.

use std::{collections::BTreeMap, fmt::Write as _};

use crate::stats::{LengthSummary, Results, Stats};

const WIDTH: f64 = 720.0;
const MARGIN: f64 = 24.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

const INK: &str = "#1f2328";
const MUTED: &str = "#59636e";
const BACKGROUND: &str = "#fcfbf8";
const TRACK: &str = "#ecebe5";
const GRID: &str = "#dcdad3";
const MEAN: &str = "#1d5fbf";
const MEDIAN: &str = "#c2410c";

/// Where the parts of a bar row start: label, bar, and the right edges of
/// the count and percentage columns.
const LABEL_X: f64 = MARGIN;
const DETAIL_X: f64 = MARGIN + 64.0;
const BAR_X: f64 = 236.0;
const BAR_WIDTH: f64 = 316.0;
const COUNT_RIGHT: f64 = 640.0;
const PERCENT_RIGHT: f64 = WIDTH - MARGIN;
const ROW: f64 = 22.0;
const BAR_HEIGHT: f64 = 14.0;
/// The narrowest bar drawn for a count above zero: its outline and some
/// fill between, however small its share (one game in a billion).
const MIN_BAR_WIDTH: f64 = 4.0;

/// The histogram's plot area, left of which go the count ticks.
const PLOT_LEFT: f64 = 80.0;
const PLOT_RIGHT: f64 = WIDTH - MARGIN;
const PLOT_HEIGHT: f64 = 128.0;
/// More 10-ply buckets than this and the longest games share the last bar,
/// which keeps bars and their labels readable whatever the longest game.
const MAX_BARS: usize = 40;

/// The termination keys of [`Stats::terminations`], with readable names.
const TERMINATIONS: [(&str, &str); 8] = [
    ("checkmate", "checkmate"),
    ("stalemate", "stalemate"),
    ("insufficient_material", "insufficient material"),
    ("seventyfive_moves", "75-move rule"),
    ("fivefold_repetition", "fivefold repetition"),
    ("fifty_moves", "50-move rule"),
    ("threefold_repetition", "threefold repetition"),
    ("none", "none of these"),
];

/// The summary of the statistics as an SVG document, about 720 px wide.
/// Zero games give a short report that says so.
pub fn summary_svg(stats: &Stats) -> String {
    let games = stats.games();
    let mut body = String::new();
    let mut y = header(&mut body, stats);
    if games == 0 {
        y = no_games(&mut body, y);
    } else {
        y = results(&mut body, stats.results(), games, y);
        y = lengths(&mut body, stats, y);
        y = terminations(&mut body, stats, y);
    }
    let height = (y + MARGIN).ceil();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" font-family="{FONT}" font-size="13">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&format!("pgnkit stats: {}", totals(stats))));
    let _ = writeln!(out, r#"<rect width="{WIDTH}" height="{height}" fill="{BACKGROUND}"/>"#);
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// `8 games, 357 plies`, compact when exact numbers would not fit the
/// title line.
fn totals(stats: &Stats) -> String {
    let (games, plies) = (stats.games(), stats.plies());
    let exact = format!("{}, {}", plural(games, "game", "games"), plural(plies, "ply", "plies"));
    if exact.len() <= 48 {
        return exact;
    }
    format!("{} games, {} plies", compact(games, 1_000_000), compact(plies, 1_000_000))
}

/// The title line and the valid/invalid split (and the games not checked,
/// if any); returns the y below them.
fn header(out: &mut String, stats: &Stats) -> f64 {
    text(out, LABEL_X, 40.0, &format!(r#"font-size="20" font-weight="600" fill="{INK}""#), &totals(stats));
    let (games, valid, invalid) = (stats.games(), stats.valid_games(), stats.invalid_games());
    let split = if games == 0 {
        format!("{} valid, {} invalid", thousands(valid), thousands(invalid))
    } else {
        format!(
            "{} valid ({}), {} invalid ({})",
            thousands(valid),
            percent(valid, games),
            thousands(invalid),
            percent(invalid, games)
        )
    };
    let mut split = split;
    let unchecked = stats.unchecked_games();
    if unchecked > 0 {
        split.push_str(&format!(", {} not checked", thousands(unchecked)));
    }
    text(out, LABEL_X, 62.0, &format!(r#"fill="{MUTED}""#), &split);
    62.0
}

/// The whole report when there is nothing to count.
fn no_games(out: &mut String, y: f64) -> f64 {
    let top = y + 20.0;
    let _ = writeln!(
        out,
        r#"<rect class="no-games" x="{LABEL_X}" y="{top}" width="{}" height="64" rx="6" fill="{TRACK}"/>"#,
        WIDTH - 2.0 * MARGIN
    );
    text(
        out,
        WIDTH / 2.0,
        top + 30.0,
        &format!(r#"text-anchor="middle" font-size="16" font-weight="600" fill="{INK}""#),
        "No games",
    );
    text(
        out,
        WIDTH / 2.0,
        top + 50.0,
        &format!(r#"text-anchor="middle" fill="{MUTED}""#),
        "The input held no games, so there are no results, lengths or terminations to show.",
    );
    top + 64.0
}

/// A section's title, with a quieter note after it; returns the y below.
fn heading(out: &mut String, y: f64, title: &str, note: &str) -> f64 {
    let y = y + 32.0;
    let _ = writeln!(
        out,
        r#"<text x="{LABEL_X}" y="{y}" font-size="15" font-weight="600" fill="{INK}">{}<tspan dx="8" font-size="12" font-weight="400" fill="{MUTED}">{}</tspan></text>"#,
        escape(title),
        escape(note)
    );
    y + 12.0
}

/// One labelled bar of a share of `total`.
struct BarRow<'a> {
    class: &'a str,
    /// Drawn in bold when a detail follows it (a result's symbol).
    label: &'a str,
    detail: &'a str,
    n: u64,
    fill: &'a str,
}

/// Rows of bars on a common scale (the whole track is `total`); returns
/// the y below them.
fn bar_rows(out: &mut String, y: f64, rows: &[BarRow], total: u64) -> f64 {
    // Up to 999,999,999 every count fits its column exactly; past that the
    // whole column turns compact, so its numbers read alike.
    let exact_below = if total < 1_000_000_000 { u128::MAX } else { 1_000_000 };
    for (i, row) in rows.iter().enumerate() {
        let top = y + i as f64 * ROW;
        let baseline = top + 11.0;
        if row.detail.is_empty() {
            text(out, LABEL_X, baseline, &format!(r#"fill="{INK}""#), row.label);
        } else {
            text(out, LABEL_X, baseline, &format!(r#"font-weight="600" fill="{INK}""#), row.label);
            text(out, DETAIL_X, baseline, &format!(r#"fill="{MUTED}""#), row.detail);
        }
        let _ = writeln!(
            out,
            r#"<rect x="{BAR_X}" y="{top}" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" rx="2" fill="{TRACK}"/>"#
        );
        if row.n > 0 {
            // A sliver stays visible however rare the case, and a light
            // fill (White's wins) by its outline against the track.
            let width = (BAR_WIDTH * share(row.n, total)).max(MIN_BAR_WIDTH);
            let _ = writeln!(
                out,
                r#"<rect class="{}" x="{BAR_X}" y="{top}" width="{}" height="{BAR_HEIGHT}" rx="2" fill="{}" stroke="{MUTED}" stroke-width="1"><title>{}</title></rect>"#,
                row.class,
                num(width),
                row.fill,
                escape(&format!(
                    "{}: {} of {} ({})",
                    row.label,
                    thousands(row.n),
                    thousands(total),
                    percent(row.n, total)
                ))
            );
        }
        text(out, COUNT_RIGHT, baseline, &format!(r#"text-anchor="end" fill="{INK}""#), &compact(row.n, exact_below));
        text(out, PERCENT_RIGHT, baseline, &format!(r#"text-anchor="end" fill="{MUTED}""#), &percent(row.n, total));
    }
    y + rows.len() as f64 * ROW - (ROW - BAR_HEIGHT)
}

/// The four results and White's score; returns the y below them.
fn results(out: &mut String, results: Results, games: u64, y: f64) -> f64 {
    let y = heading(out, y, "Results", "share of all games");
    // White's result first, then the draw between the two sides' colours.
    let drawn = [
        ("1-0", "White won", results.white_wins, "#ffffff"),
        ("1/2-1/2", "drawn", results.draws, "#a8a8a8"),
        ("0-1", "Black won", results.black_wins, "#2d2d2d"),
        ("*", "unfinished", results.unfinished, "#d4b676"),
    ];
    let rows: Vec<BarRow> =
        drawn.iter().map(|&(label, detail, n, fill)| BarRow { class: "result", label, detail, n, fill }).collect();
    let y = bar_rows(out, y, &rows, games) + 10.0;
    // White's score: a gauge from 0 to 100% with the even score marked.
    let top = y;
    let baseline = top + 11.0;
    text(out, LABEL_X, baseline, &format!(r#"font-weight="600" fill="{INK}""#), "White's score");
    let _ = writeln!(
        out,
        r#"<rect x="{BAR_X}" y="{top}" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" rx="2" fill="{TRACK}"/>"#
    );
    match results.white_score() {
        Some(score) => {
            let shown = format!("{:.1}%", score * 100.0);
            let _ = writeln!(
                out,
                r#"<rect class="white-score" x="{BAR_X}" y="{top}" width="{}" height="{BAR_HEIGHT}" rx="2" fill="{MEAN}" fill-opacity="0.75"><title>{}</title></rect>"#,
                // A score above 0 is seen, as a share is.
                num(if score > 0.0 { (BAR_WIDTH * score).max(MIN_BAR_WIDTH) } else { 0.0 }),
                escape(&format!("White's score: {shown} (wins plus half the draws, over finished games)"))
            );
            text(out, PERCENT_RIGHT, baseline, &format!(r#"text-anchor="end" fill="{INK}""#), &shown);
        }
        None => {
            text(out, PERCENT_RIGHT, baseline, &format!(r#"text-anchor="end" fill="{MUTED}""#), "no finished game");
        }
    }
    let middle = BAR_X + BAR_WIDTH / 2.0;
    let _ = writeln!(
        out,
        r#"<line x1="{middle}" y1="{}" x2="{middle}" y2="{}" stroke="{INK}" stroke-width="1"/>"#,
        top - 3.0,
        top + BAR_HEIGHT + 3.0
    );
    // The even score, named under its tick.
    let below = top + BAR_HEIGHT + 13.0;
    text(
        out,
        middle,
        below,
        &format!(r#"class="even-score" text-anchor="middle" font-size="11" fill="{MUTED}""#),
        "50%",
    );
    text(out, DETAIL_X + 46.0, baseline, &format!(r#"font-size="11" fill="{MUTED}""#), "wins + ½ draws");
    below
}

/// The termination mix, one bar per kind; returns the y below it.
fn terminations(out: &mut String, stats: &Stats, y: f64) -> f64 {
    let y = heading(out, y, "Termination", "what the final position is, by the rules");
    let rows: Vec<BarRow> = stats
        .terminations()
        .into_iter()
        .map(|(key, n)| BarRow {
            class: "termination",
            label: TERMINATIONS.iter().find(|&&(k, _)| k == key).map_or(key, |&(_, label)| label),
            detail: "",
            n,
            fill: if key == "none" { "#b8c2cc" } else { "#5b7fa6" },
        })
        .collect();
    bar_rows(out, y, &rows, stats.games())
}

/// The 10-ply buckets as bars, index = start / 10. When there are more than
/// [`MAX_BARS`], the bars stop after the bucket that brings in 99.5% of the
/// games and one last bar holds every longer game. Also where that last
/// bar starts, in buckets, if there is one.
fn buckets(histogram: &BTreeMap<u32, u64>) -> (Vec<u64>, Option<usize>) {
    // A partial read back may hold a length with no games.
    let pairs: Vec<(u64, u64)> =
        histogram.iter().map(|(&start, &n)| (u64::from(start / 10), n)).filter(|&(_, n)| n > 0).collect();
    let Some(last) = pairs.iter().map(|&(i, _)| i).max() else { return (Vec::new(), None) };
    if last < MAX_BARS as u64 {
        let mut bars = vec![0u64; last as usize + 1];
        for (i, n) in pairs {
            bars[i as usize] = bars[i as usize].saturating_add(n);
        }
        return (bars, None);
    }
    let mut sorted = pairs;
    sorted.sort_unstable();
    let total: u128 = sorted.iter().map(|&(_, n)| u128::from(n)).sum();
    let mut seen: u128 = 0;
    let mut bulk = 0;
    for &(i, n) in &sorted {
        seen += u128::from(n);
        bulk = i;
        if seen * 1000 >= total * 995 {
            break;
        }
    }
    let tail = usize::try_from(bulk + 1).unwrap_or(usize::MAX).min(MAX_BARS - 1);
    let mut bars = vec![0u64; tail + 1];
    for (i, n) in sorted {
        let i = usize::try_from(i).unwrap_or(usize::MAX).min(tail);
        bars[i] = bars[i].saturating_add(n);
    }
    (bars, Some(tail))
}

/// A step of 1, 2 or 5 times a power of ten that splits `max` into at
/// most four intervals.
fn tick_step(max: u64) -> u64 {
    let mut power: u64 = 1;
    loop {
        for m in [1, 2, 5] {
            let step = power.saturating_mul(m);
            if max.div_ceil(step) <= 4 {
                return step;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// A line across the histogram (mean or median) and its label above it.
#[derive(Debug, Clone)]
struct Mark {
    colour: &'static str,
    x: f64,
    label: String,
    /// `start` or `end`, and where the label is anchored.
    anchor: &'static str,
    text_x: f64,
    row: usize,
}

impl Mark {
    /// Puts the label beside its line, on the preferred side when it fits
    /// there, else on the other, else against the edge of the report.
    fn new(colour: &'static str, x: f64, label: String, prefer_left: bool) -> Mark {
        let width = text_width(&label, 12.0);
        let left_fits = x - 5.0 - width >= MARGIN;
        let right_fits = x + 5.0 + width <= WIDTH - MARGIN;
        let (anchor, text_x) = if left_fits && (prefer_left || !right_fits) {
            ("end", x - 5.0)
        } else if right_fits {
            ("start", x + 5.0)
        } else if x < WIDTH / 2.0 {
            ("start", MARGIN)
        } else {
            ("end", WIDTH - MARGIN)
        };
        Mark { colour, x, label, anchor, text_x, row: 0 }
    }

    /// The label's left and right edges.
    fn span(&self) -> (f64, f64) {
        let width = text_width(&self.label, 12.0);
        if self.anchor == "end" { (self.text_x - width, self.text_x) } else { (self.text_x, self.text_x + width) }
    }

    fn covers(&self, x: f64) -> bool {
        let (left, right) = self.span();
        (left - 3.0..=right + 3.0).contains(&x)
    }
}

/// Puts two labels on one row when they do not touch, else on two rows,
/// ordered so that the upper label's line (which runs down through the
/// lower row) misses the lower label when it can. Returns the rows used.
fn arrange(marks: &mut [Mark]) -> usize {
    let [a, b] = marks else { return marks.len().min(1) };
    let ((_, a_right), (b_left, _)) = (a.span(), b.span());
    let (a_left, b_right) = (a.span().0, b.span().1);
    if a_right + 8.0 <= b_left || b_right + 8.0 <= a_left {
        return 1;
    }
    if b.covers(a.x) && !a.covers(b.x) {
        b.row = 0;
        a.row = 1;
    } else {
        a.row = 0;
        b.row = 1;
    }
    2
}

/// The game-length histogram with the mean and median marked, and the
/// percentiles below it; returns the y below.
fn lengths(out: &mut String, stats: &Stats, y: f64) -> f64 {
    let y = heading(out, y, "Game length", "games per 10 plies");
    let Some(histogram) = Histogram::of(stats) else {
        text(out, LABEL_X, y + 16.0, &format!(r#"fill="{MUTED}""#), "The input has no length histogram.");
        return y + 16.0;
    };
    let length = stats.length();
    let mut marks = histogram.marks(&length);
    let rows = arrange(&mut marks);
    let plot_top = y + 16.0 * rows as f64 + 14.0;
    let plot_bottom = plot_top + PLOT_HEIGHT;
    let top_value = histogram.count_axis(out, plot_bottom);
    histogram.bars(out, plot_bottom, top_value);
    histogram.length_axis(out, plot_bottom);
    mark_lines(out, &marks, y, plot_top, plot_bottom);
    percentiles(out, &length, plot_bottom)
}

/// The 10-ply bars of the game-length histogram, as wide as the plot
/// allows.
struct Histogram {
    /// Games per bar, as [`buckets`] gives them.
    bars: Vec<u64>,
    /// Where the last bar starts when it holds a long tail, in buckets.
    tail: Option<usize>,
    bar_width: f64,
}

impl Histogram {
    /// The bars of the games' lengths; `None` when no game has a length.
    fn of(stats: &Stats) -> Option<Histogram> {
        let (bars, tail) = buckets(&stats.length_histogram());
        if bars.is_empty() {
            return None;
        }
        let bar_width = (PLOT_RIGHT - PLOT_LEFT) / bars.len() as f64;
        Some(Histogram { bars, tail, bar_width })
    }

    /// Where a length in plies falls on the axis; the last bar of a long
    /// tail takes every length past its start.
    fn x_of(&self, plies: f64) -> f64 {
        match self.tail {
            Some(tail) if plies / 10.0 >= tail as f64 => PLOT_LEFT + (tail as f64 + 0.5) * self.bar_width,
            _ => (PLOT_LEFT + plies / 10.0 * self.bar_width).clamp(PLOT_LEFT, PLOT_RIGHT),
        }
    }

    /// The median and the mean as marks, not yet arranged in rows.
    fn marks(&self, length: &LengthSummary) -> Vec<Mark> {
        let mut values: Vec<(&'static str, f64, String)> = Vec::new();
        if let Some(median) = length.median {
            values.push((MEDIAN, f64::from(median), format!("median {}", compact(median, 1_000_000))));
        }
        if let Some(mean) = length.mean {
            let shown = if mean < 1e6 { format!("{mean:.1}") } else { compact(mean as u128, 0) };
            values.push((MEAN, mean, format!("mean {shown}")));
        }
        values.sort_by(|a, b| a.1.total_cmp(&b.1));
        // The lower value's label goes left of its line, the higher's right,
        // so that the two part.
        let pair = values.len() == 2;
        values
            .into_iter()
            .enumerate()
            .map(|(i, (colour, value, label))| Mark::new(colour, self.x_of(value), label, pair && i == 0))
            .collect()
    }

    /// The count ticks left of the plot and their lines across it; returns
    /// the count at the top of the plot.
    fn count_axis(&self, out: &mut String, plot_bottom: f64) -> f64 {
        let max = self.bars.iter().copied().max().unwrap_or(0).max(1);
        let step = tick_step(max);
        let ticks = max.div_ceil(step);
        // Ticks read alike: all exact, or all compact once the top needs it.
        let exact_below = if u128::from(ticks) * u128::from(step) < 10_000 { u128::MAX } else { 1000 };
        let _ = writeln!(out, r#"<g font-size="11" fill="{MUTED}" text-anchor="end">"#);
        for t in 0..=ticks {
            let value = u128::from(t) * u128::from(step);
            let ty = plot_bottom - PLOT_HEIGHT * (t as f64 / ticks as f64);
            let _ = writeln!(
                out,
                r#"<line x1="{PLOT_LEFT}" y1="{0}" x2="{PLOT_RIGHT}" y2="{0}" stroke="{1}" stroke-width="1"/>"#,
                num(ty),
                if t == 0 { MUTED } else { GRID }
            );
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}">{}</text>"#,
                PLOT_LEFT - 6.0,
                num(ty + 4.0),
                compact(value, exact_below)
            );
        }
        out.push_str("</g>\n");
        ticks as f64 * step as f64
    }

    /// A bar for every bucket with games, scaled so that `top_value` fills
    /// the plot, each with its range and games on hover.
    fn bars(&self, out: &mut String, plot_bottom: f64, top_value: f64) {
        let gap = if self.bar_width > 6.0 { 1.5 } else { 0.0 };
        for (i, &n) in self.bars.iter().enumerate() {
            if n == 0 {
                continue;
            }
            // A single game among millions still shows as a line.
            let h = (PLOT_HEIGHT * (n as f64 / top_value)).max(1.0);
            let start = i as u64 * 10;
            let range = if self.tail == Some(i) {
                format!("{start} plies or more")
            } else {
                format!("{start}–{} plies", start + 9)
            };
            let _ = writeln!(
                out,
                r##"<rect class="length" x="{}" y="{}" width="{}" height="{}" fill="#7d93ab"><title>{}</title></rect>"##,
                num(PLOT_LEFT + i as f64 * self.bar_width + gap),
                num(plot_bottom - h),
                num(self.bar_width - 2.0 * gap),
                num(h),
                escape(&format!("{range}: {}", plural(n, "game", "games")))
            );
        }
    }

    /// The bucket boundaries under the plot, in plies.
    fn length_axis(&self, out: &mut String, plot_bottom: f64) {
        // Labelled often enough to read and sparsely enough not to collide;
        // the last bar of a long tail is labelled under its middle instead.
        let every = [1usize, 2, 5, 10].into_iter().find(|&k| k as f64 * self.bar_width >= 30.0).unwrap_or(10);
        let _ = writeln!(out, r#"<g font-size="11" fill="{MUTED}" text-anchor="middle">"#);
        let label_y = plot_bottom + 15.0;
        let tail_x = PLOT_LEFT + (self.bars.len() as f64 - 0.5) * self.bar_width;
        for i in (0..=self.bars.len()).step_by(every) {
            let x = PLOT_LEFT + i as f64 * self.bar_width;
            if self.tail.is_some() && x > tail_x - 30.0 {
                break;
            }
            let _ = writeln!(
                out,
                r#"<line x1="{0}" y1="{plot_bottom}" x2="{0}" y2="{1}" stroke="{MUTED}" stroke-width="1"/>"#,
                num(x),
                plot_bottom + 4.0
            );
            let _ = writeln!(out, r#"<text x="{}" y="{label_y}">{}</text>"#, num(x), thousands(i as u64 * 10));
        }
        if let Some(tail) = self.tail {
            let _ = writeln!(out, r#"<text x="{}" y="{label_y}">{}+</text>"#, num(tail_x), thousands(tail as u64 * 10));
        }
        out.push_str("</g>\n");
    }
}

/// The arranged marks' lines down through the plot, and their labels in
/// rows from `labels_y` down.
fn mark_lines(out: &mut String, marks: &[Mark], labels_y: f64, plot_top: f64, plot_bottom: f64) {
    for (i, mark) in marks.iter().enumerate() {
        let baseline = labels_y + 16.0 + 16.0 * mark.row as f64;
        // A line runs up to its label unless it would cross the other label.
        let crosses = marks.iter().enumerate().any(|(j, other)| j != i && other.row > mark.row && other.covers(mark.x));
        let line_top = if crosses { plot_top - 4.0 } else { baseline + 4.0 };
        let _ = writeln!(
            out,
            r#"<line class="marker" x1="{0}" y1="{1}" x2="{0}" y2="{plot_bottom}" stroke="{2}" stroke-width="1.5" stroke-dasharray="4 3"/>"#,
            num(mark.x),
            num(line_top),
            mark.colour
        );
        text(
            out,
            mark.text_x,
            baseline,
            &format!(r#"font-size="12" font-weight="600" text-anchor="{}" fill="{}""#, mark.anchor, mark.colour),
            &mark.label,
        );
    }
}

/// The percentiles and the longest game, on a line under the plot;
/// returns its y.
fn percentiles(out: &mut String, length: &LengthSummary, plot_bottom: f64) -> f64 {
    let percentiles = [(length.p10, "10th"), (length.p25, "25th"), (length.p75, "75th"), (length.p90, "90th")]
        .into_iter()
        .filter_map(|(plies, name)| Some(format!("{name} {}", compact(plies?, 1_000_000))))
        .chain(length.longest.map(|longest| format!("longest {}", compact(longest, 1_000_000))))
        .collect::<Vec<_>>()
        .join(" · ");
    let summary_y = plot_bottom + 34.0;
    if !percentiles.is_empty() {
        text(
            out,
            PLOT_LEFT,
            summary_y,
            &format!(r#"font-size="12" fill="{MUTED}""#),
            &format!("percentiles in plies: {percentiles}"),
        );
    }
    summary_y
}

/// A `<text>` element with escaped content.
fn text(out: &mut String, x: f64, y: f64, attributes: &str, content: &str) {
    let _ = writeln!(out, r#"<text x="{}" y="{}" {attributes}>{}</text>"#, num(x), num(y), escape(content));
}

/// A rough width of text in the system sans-serif: no font metrics are at
/// hand, so this overestimates (digits and most letters are narrower).
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

fn share(n: u64, total: u64) -> f64 {
    if total == 0 { 0.0 } else { (n as f64 / total as f64).min(1.0) }
}

/// A share in percent with one decimal, never rounded to 0% or 100% unless
/// it is exactly that.
fn percent(n: u64, total: u64) -> String {
    let p = share(n, total) * 100.0;
    if n == 0 || total == 0 {
        "0%".to_owned()
    } else if n >= total {
        "100%".to_owned()
    } else if p < 0.05 {
        "<0.1%".to_owned()
    } else if p >= 99.95 {
        ">99.9%".to_owned()
    } else {
        format!("{p:.1}%")
    }
}

/// `1,234,567`.
fn thousands(n: impl Into<u128>) -> String {
    let n: u128 = n.into();
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Exact with separators below `exact_below`, else `1.2M`, `45.6B`, `7T`
/// (three significant digits at most, no trailing zeros).
fn compact(n: impl Into<u128>, exact_below: u128) -> String {
    let n: u128 = n.into();
    if n < exact_below || n < 1000 {
        return thousands(n);
    }
    let units = [("E", 1e18), ("P", 1e15), ("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)];
    let mut i = units.iter().position(|&(_, scale)| n as f64 >= scale).unwrap_or(units.len() - 1);
    let mut value = n as f64 / units[i].1;
    // 999.95k rounds to 1000k: say 1M.
    if value >= 999.5 && i > 0 {
        i -= 1;
        value = n as f64 / units[i].1;
    }
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    let shown = format!("{value:.digits$}");
    let shown = if shown.contains('.') { shown.trim_end_matches('0').trim_end_matches('.') } else { &shown };
    format!("{shown}{}", units[i].0)
}

/// `1 game`, `2 games`, with separators.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// A coordinate with at most one decimal and no trailing `.0`.
fn num(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// Text made safe inside an XML element; control characters, which XML
/// 1.0 does not allow, are dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::{
        BAR_WIDTH, BAR_X, MIN_BAR_WIDTH, Mark, TRACK, arrange, buckets, compact, escape, num, percent, summary_svg,
        thousands, tick_step,
    };
    use crate::{
        stats::groups::Selection,
        stats::{GameFacts, Stats},
    };

    fn stats(pgn: &str) -> Stats {
        let mut stats = Stats::default();
        for game in crate::check::read_all(pgn) {
            stats.add(&GameFacts::of(&game, &[], None, None));
        }
        stats
    }

    /// A partial of zero games with `counts` written over it, read back: a
    /// way to state huge or odd counts without reading as many games.
    fn partial(counts: &Value) -> Stats {
        fn overwrite(into: &mut Value, from: &Value) {
            match (into, from) {
                (Value::Object(into), Value::Object(from)) => {
                    for (key, value) in from {
                        overwrite(into.entry(key.clone()).or_insert(Value::Null), value);
                    }
                }
                (into, from) => *into = from.clone(),
            }
        }
        let mut json = Stats::default().to_json(Selection::default());
        overwrite(&mut json, counts);
        Stats::from_json_unchecked(&json).expect("a stats partial")
    }

    /// Scholar's mate (7 plies), a drawn game that castles (12 plies), and
    /// an illegal second move (1 ply replayed) with an unknown result.
    const GAMES: &str = "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                         [Result \"1/2-1/2\"]\n\n1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 e6 5. Be2 Be7 6. O-O O-O 1/2-1/2\n\n\
                         [Result \"*\"]\n\n1. e4 Ke3 *\n";

    /// Checks what an XML parser would: tags nest and close in order,
    /// attribute values are quoted, and text holds no raw `<`, `>` or a
    /// bare `&`. Returns the text content of every `<text>` element (with
    /// its `<tspan>`s) and of every `<title>`.
    fn well_formed(svg: &str) -> (Vec<String>, Vec<String>) {
        let mut stack: Vec<&str> = Vec::new();
        let (mut texts, mut titles) = (Vec::new(), Vec::new());
        let mut rest = svg;
        let mut content = String::new();
        let mut root_closed = false;
        while let Some(open) = rest.find('<') {
            let between = &rest[..open];
            assert!(!between.contains('>'), "a raw > in text: {between:?}");
            for (i, _) in between.match_indices('&') {
                let entity = &between[i..];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;"].iter().any(|e| entity.starts_with(e)),
                    "a bare & in text: {between:?}"
                );
            }
            assert!(!stack.is_empty() || between.trim().is_empty(), "text outside the root: {between:?}");
            content.push_str(between);
            let close = rest[open..].find('>').expect("a tag ends") + open;
            let tag = &rest[open + 1..close];
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in <{tag}>");
            assert!(!root_closed, "content after the root element: <{tag}>");
            if let Some(name) = tag.strip_prefix('/') {
                let opened = stack.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
                assert_eq!(opened, name, "<{opened}> closed by </{name}>");
                let unescaped =
                    || content.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
                match name {
                    "text" => texts.push(unescaped()),
                    "title" => titles.push(unescaped()),
                    _ => {}
                }
                root_closed = stack.is_empty();
            } else {
                let name = tag.split_whitespace().next().expect("a tag name").trim_end_matches('/');
                if !tag.ends_with('/') {
                    stack.push(name);
                    if name == "text" || name == "title" {
                        content.clear();
                    }
                }
                if stack.is_empty() {
                    root_closed = true;
                }
            }
            rest = &rest[close + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert!(root_closed && rest.trim().is_empty(), "one root element, nothing after it");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        (texts, titles)
    }

    fn has(texts: &[String], want: &str) -> bool {
        texts.iter().any(|t| t == want)
    }

    #[test]
    fn the_report_is_well_formed_and_self_contained() {
        let svg = summary_svg(&stats(GAMES));
        well_formed(&svg);
        for external in ["href", "<script", "<image", "<style", "@import", "url("] {
            assert!(!svg.contains(external), "{external} in the SVG");
        }
        assert!(svg.contains(r#"viewBox="0 0 720 "#));
    }

    #[test]
    fn each_section_shows_the_numbers_of_the_json() {
        let stats = stats(GAMES);
        let json = stats.to_json(Selection::default());
        assert_eq!((json["games"].as_u64(), json["plies"].as_u64()), (Some(3), Some(20)));
        let (texts, titles) = well_formed(&summary_svg(&stats));
        assert!(has(&texts, "3 games, 20 plies"), "{texts:?}");
        assert!(has(&texts, "2 valid (66.7%), 1 invalid (33.3%)"));
        for heading in ["Results", "Game length", "Termination"] {
            assert!(texts.iter().any(|t| t.starts_with(heading)), "{heading} is missing");
        }
        // Results: one bar per result drawn, with its count and share.
        assert!(titles.contains(&"1-0: 1 of 3 (33.3%)".to_owned()), "{titles:?}");
        assert!(titles.contains(&"1/2-1/2: 1 of 3 (33.3%)".to_owned()));
        assert!(titles.contains(&"*: 1 of 3 (33.3%)".to_owned()));
        assert!(!titles.iter().any(|t| t.starts_with("0-1")), "no bar for a result that never happened");
        // White's score over the two finished games: (1 + 0.5) / 2.
        assert_eq!(json["white_score_pct"], 75.0);
        assert!(has(&texts, "75.0%"));
        // Lengths 1 and 7 fall in 0-9, 12 in 10-19; the median is 7.
        assert!(titles.contains(&"0–9 plies: 2 games".to_owned()));
        assert!(titles.contains(&"10–19 plies: 1 game".to_owned()));
        assert!(has(&texts, "median 7") && has(&texts, "mean 6.7"), "{texts:?}");
        assert!(has(&texts, "percentiles in plies: 10th 1 · 25th 1 · 75th 12 · 90th 12 · longest 12"));
        // Terminations: one checkmate, two ending by no rule.
        assert!(titles.contains(&"checkmate: 1 of 3 (33.3%)".to_owned()));
        assert!(titles.contains(&"none of these: 2 of 3 (66.7%)".to_owned()));
        assert!(has(&texts, "none of these") && has(&texts, "75-move rule"));
        assert_eq!(texts.iter().filter(|t| *t == "0%").count(), 1 + 6, "0-1 and six terminations");
    }

    #[test]
    fn zero_games_give_a_short_report_that_says_so() {
        let svg = summary_svg(&Stats::default());
        let (texts, _) = well_formed(&svg);
        assert!(has(&texts, "0 games, 0 plies"));
        assert!(has(&texts, "No games"));
        assert!(!texts.iter().any(|t| t.starts_with("Results") || t.starts_with("Game length")));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "no division by zero");
    }

    #[test]
    fn huge_counts_get_separators_in_the_title_and_compact_columns() {
        let stats = partial(&json!({
            "games": 12_345_678_901u64, "plies": 987_654_321_000u64,
            "valid_games": 12_345_678_900u64,
            "results": {"1-0": 5_000_000_000u64, "0-1": 4_000_000_000u64, "1/2-1/2": 3_345_678_901u64, "*": 0},
            "terminations": {"checkmate": 999_999, "none": 12_344_678_902u64},
            "length": {"by_plies": {"75": 6_000_000_000u64, "80": 6_345_678_901u64}},
        }));
        let (texts, titles) = well_formed(&summary_svg(&stats));
        assert!(has(&texts, "12,345,678,901 games, 987,654,321,000 plies"), "{texts:?}");
        assert!(has(&texts, "12,345,678,900 valid (>99.9%), 1 invalid (<0.1%)"));
        // White's score is 0.5405, as the JSON states it (54.05 percent).
        assert_eq!(stats.results().white_score(), Some(0.5405));
        for shown in ["5B", "4B", "3.35B", "54.0%", "999,999", "12.3B"] {
            assert!(has(&texts, shown), "{shown} in {texts:?}");
        }
        // Hover titles keep the exact counts.
        assert!(titles.contains(&"0-1: 4,000,000,000 of 12,345,678,901 (32.4%)".to_owned()), "{titles:?}");
        // The count axis is compact too: ticks of 2B up to 8B.
        assert!(has(&texts, "8B") && has(&texts, "2B"));
    }

    /// The value of `name="..."` in a tag.
    fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[start..].split('"').next()
    }

    #[test]
    fn every_bar_is_seen_at_any_share_and_the_even_score_is_named() {
        // One White win in 20,000 games (0.016 px of the track), and a
        // score of 0.005%.
        let stats = partial(&json!({
            "games": 20_000, "plies": 1_600_000, "valid_games": 20_000,
            "results": {"1-0": 1, "0-1": 19_999, "1/2-1/2": 0, "*": 0},
            "terminations": {"checkmate": 1, "none": 19_999},
            "length": {"by_plies": {"80": 20_000}},
        }));
        assert!(stats.results().white_score().is_some_and(|score| score > 0.0));
        let svg = summary_svg(&stats);
        well_formed(&svg);
        let bars: Vec<&str> = svg.lines().filter(|l| l.contains(r#"class="result""#)).collect();
        assert_eq!(bars.len(), 2, "1-0 and 0-1: {bars:?}");
        for bar in svg.lines().filter(|l| l.contains(r#"class="result""#) || l.contains(r#"class="termination""#)) {
            let width: f64 = attribute(bar, "width").unwrap().parse().unwrap();
            assert!(width >= MIN_BAR_WIDTH, "{bar}");
            // An outline of a full pixel in a colour apart from the track.
            assert_eq!(attribute(bar, "stroke-width"), Some("1"), "{bar}");
            assert_ne!(attribute(bar, "stroke"), Some(TRACK), "{bar}");
            assert_ne!(attribute(bar, "fill"), Some(TRACK), "{bar}");
        }
        let score = svg.lines().find(|l| l.contains(r#"class="white-score""#)).unwrap();
        let width: f64 = attribute(score, "width").unwrap().parse().unwrap();
        assert!(width >= MIN_BAR_WIDTH, "a score of 0.005% is seen: {score}");
        // The even score's tick, and its label under it, at the middle of the gauge.
        let middle = num(BAR_X + BAR_WIDTH / 2.0);
        let tick = svg.lines().find(|l| l.starts_with(&format!(r#"<line x1="{middle}""#))).unwrap();
        let label = svg.lines().find(|l| l.contains(r#"class="even-score""#)).unwrap();
        assert!(label.ends_with(">50%</text>") && attribute(label, "x") == Some(&middle), "{label}");
        let tick_bottom: f64 = attribute(tick, "y2").unwrap().parse().unwrap();
        let label_baseline: f64 = attribute(label, "y").unwrap().parse().unwrap();
        assert!(label_baseline > tick_bottom, "{tick} {label}");
    }

    #[test]
    fn a_long_tail_shares_the_last_bar_and_says_so() {
        let mut by_plies: serde_json::Map<String, Value> =
            (0..10).map(|i| ((i * 10).to_string(), json!(1000))).collect();
        by_plies.insert("4990".into(), json!(3));
        let stats = partial(&json!({"games": 10_003, "plies": 500_000, "length": {"by_plies": by_plies}}));
        let (texts, titles) = well_formed(&summary_svg(&stats));
        assert!(titles.contains(&"100 plies or more: 3 games".to_owned()), "{titles:?}");
        assert!(has(&texts, "100+"));
        assert_eq!(
            titles.iter().filter(|t| t.contains(" plies") && t.ends_with(" games")).count(),
            11,
            "ten buckets and the tail"
        );
        // Without a long tail nothing is merged, and empty buckets stay in place.
        let (bars, tail) = buckets(&BTreeMap::from([(30, 2), (100, 1), (20, 5)]));
        assert_eq!((bars, tail), (vec![0, 0, 5, 2, 0, 0, 0, 0, 0, 0, 1], None));
    }

    #[test]
    fn a_merged_partial_draws_the_same_as_the_whole() {
        let whole = stats(GAMES);
        let split = GAMES.find("[Result \"1/2-1/2\"]").unwrap();
        let mut merged = stats(&GAMES[..split]);
        merged.merge(&stats(&GAMES[split..])).unwrap();
        let read_back = Stats::from_json(&merged.to_json(Selection::default())).unwrap();
        assert_eq!(summary_svg(&read_back), summary_svg(&whole));
    }

    #[test]
    fn counts_that_do_not_add_up_draw_without_breaking() {
        // Missing or mistyped fields never reach the drawing: reading the
        // partial refuses them, as it refuses counts that disagree; the
        // drawing holds up to those all the same.
        let mistyped = json!({"games": 4, "results": {"1-0": "four"}, "white_score_pct": 7, "length": []});
        assert!(Stats::from_json(&mistyped).is_err());
        // Four games with no result, length or termination counted.
        let (texts, titles) = well_formed(&summary_svg(&partial(&json!({"games": 4}))));
        assert!(has(&texts, "4 games, 0 plies"));
        assert!(has(&texts, "no finished game"), "no score without a finished game");
        assert!(has(&texts, "The input has no length histogram."));
        assert!(titles.len() == 1, "only the document title: {titles:?}");
    }

    #[test]
    fn mean_and_median_labels_never_overlap_nor_cross_a_line() {
        // Both near the right edge, a few pixels apart: two rows, and the
        // upper line (running through the lower row) misses the lower label.
        let mut marks = vec![
            Mark::new("mean", 660.0, "mean 84.9".into(), true),
            Mark::new("median", 689.0, "median 89".into(), false),
        ];
        assert_eq!(arrange(&mut marks), 2);
        let (upper, lower) = if marks[0].row == 0 { (&marks[0], &marks[1]) } else { (&marks[1], &marks[0]) };
        assert!(!lower.covers(upper.x), "{marks:?}");
        assert!(marks.iter().all(|m| m.span().0 >= 24.0 && m.span().1 <= 696.0), "{marks:?}");
        // Far apart: one row, the lower value's label left of its line.
        let mut marks = vec![
            Mark::new("median", 300.0, "median 78".into(), true),
            Mark::new("mean", 340.0, "mean 84.0".into(), false),
        ];
        assert_eq!(arrange(&mut marks), 1);
        assert!(marks[0].span().1 < 300.0 && marks[1].span().0 > 340.0);
    }

    #[test]
    fn numbers_are_grouped_compacted_and_shared_without_rounding_to_the_ends() {
        assert_eq!(thousands(0u64), "0");
        assert_eq!(thousands(999u64), "999");
        assert_eq!(thousands(1_000u64), "1,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(compact(999_999_999u64, u128::MAX), "999,999,999");
        assert_eq!(compact(1_234_567_890u64, 1_000_000), "1.23B");
        assert_eq!(compact(999_950u64, 1000), "1M");
        assert_eq!(compact(20_000u64, 1000), "20k");
        assert_eq!(compact(u64::MAX, 0), "18.4E");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(1, 3000), "<0.1%");
        assert_eq!(percent(2999, 3000), ">99.9%");
        assert_eq!((percent(0, 0), percent(5, 5)), ("0%".to_owned(), "100%".to_owned()));
        assert_eq!((tick_step(1), tick_step(2), tick_step(229), tick_step(9)), (1, 1, 100, 5));
        assert!(u64::MAX.div_ceil(tick_step(u64::MAX)) <= 4);
    }

    #[test]
    fn the_well_formedness_check_rejects_broken_markup() {
        let broken = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>a < b</text></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>R&D</text></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect x=\"1/></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg><svg></svg>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\">",
        ];
        for svg in broken {
            assert!(std::panic::catch_unwind(|| well_formed(svg)).is_err(), "accepted {svg}");
        }
        well_formed("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>R&amp;D</text><rect/></svg>\n");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\">\u{7}"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
