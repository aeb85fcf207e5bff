//! The values of the command line's options read from their text (clap's
//! value parsers) and the types some of them make.

use pgnkit::openings::Naming;
use shakmaty::Square;

/// `--openings`: `builtin`, `tags` or a path, which need not be UTF-8.
pub(super) fn naming_parser() -> impl clap::builder::TypedValueParser<Value = Naming> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(Naming::from)
}

pub(super) fn parse_group_key(text: &str) -> Result<pgnkit::keys::GroupKey, String> {
    pgnkit::keys::GroupKey::parse(text)
}

pub(super) fn parse_column(text: &str) -> Result<pgnkit::output::games::Column, String> {
    pgnkit::output::games::Column::parse(text)
}

pub(super) fn parse_square(text: &str) -> Result<Square, String> {
    text.parse().map_err(|_| format!("`{text}` is not a square (a1 to h8)"))
}

pub(super) fn parse_arrow(text: &str) -> Result<(Square, Square), String> {
    let squares = text.get(..2).zip(text.get(2..)).and_then(|(from, to)| Some((from.parse().ok()?, to.parse().ok()?)));
    squares.ok_or_else(|| format!("`{text}` is not a pair of squares such as e2e4"))
}

/// `--max-game-size MIB`: at least 1, as 0 would cut every game after its
/// first byte, and at most [`MAX_GAME_MIB`].
pub(super) fn parse_game_size(text: &str) -> Result<usize, String> {
    match parse_count(text)? {
        mib if mib > MAX_GAME_MIB => Err(format!(
            "must be at most {MAX_GAME_MIB} (MiB): a game is held whole, up to three times over on each thread"
        )),
        mib => Ok(usize::try_from(mib).expect("at most MAX_GAME_MIB")),
    }
}

/// The largest `--max-game-size`: each thread holds up to three times a
/// game (3 GiB at this cap), and the framer keeps offsets in a game as
/// 32 bits below 2 GiB.
const MAX_GAME_MIB: u64 = 1024;

/// A number of games, shards or files: 1 or more.
pub(super) fn parse_count(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

/// One value of a name criterion (`--player`, ...): a name, or the names
/// of `@FILE`.
#[derive(Debug, Clone)]
pub struct NameArg(pub Vec<String>);

/// `NAME`; `@FILE`: the names in FILE (one a line; blank lines and `#`
/// lines skipped); `@@NAME`: a name that starts with `@`.
pub(super) fn parse_names(text: &str) -> Result<NameArg, String> {
    let Some(path) = text.strip_prefix('@') else { return Ok(NameArg(vec![text.to_owned()])) };
    if path.starts_with('@') {
        return Ok(NameArg(vec![path.to_owned()]));
    }
    let bytes = std::fs::read(path).map_err(|err| format!("cannot read the names in {path}: {err}"))?;
    let names = pgnkit::filter::name_list(&bytes);
    if names.is_empty() {
        // Matching no one is never what a names file was written for.
        return Err(format!("{path} has no names (one a line; blank lines and `#` lines are skipped)"));
    }
    Ok(NameArg(names))
}

/// `--termination`: a rule, or none.
#[derive(Debug, Clone, Copy)]
pub struct TerminationArg(pub Option<pgnkit::report::Termination>);

pub(super) fn parse_termination(text: &str) -> Result<TerminationArg, String> {
    pgnkit::report::Termination::parse(text).map(TerminationArg)
}

pub(super) fn parse_date(text: &str) -> Result<pgnkit::filter::PgnDate, String> {
    pgnkit::filter::PgnDate::parse(text)
        .ok_or_else(|| format!("{text:?} is not a date like 2024.05.17, 2024.05 or 2024"))
}

pub(super) fn parse_tag_criterion(text: &str) -> Result<pgnkit::filter::Criterion, String> {
    use pgnkit::filter::Criterion;
    let at = text.find(['=', '~']).ok_or_else(|| format!("{text:?}: write NAME=VALUE or NAME~REGEX"))?;
    let (name, value) = (text[..at].trim().to_owned(), text[at + 1..].to_owned());
    if name.is_empty() {
        return Err(format!("{text:?}: the tag name is missing"));
    }
    if text.as_bytes()[at] == b'=' {
        return Ok(Criterion::TagEquals(name, value));
    }
    let regex = regex::Regex::new(&value).map_err(|err| format!("{value:?} is not a regular expression: {err}"))?;
    Ok(Criterion::TagMatches(name, regex))
}

pub(super) fn parse_target(text: &str) -> Result<pgnkit::filter::Target, String> {
    pgnkit::fen_check::argument(text).map(|pos| pgnkit::filter::Target::new(&pos))
}

pub(super) fn parse_placement(text: &str) -> Result<shakmaty::Board, String> {
    // A whole FEN is fine too: its board part is the placement.
    let board = text.split_whitespace().next().unwrap_or("");
    shakmaty::Board::from_ascii_board_fen(board.as_bytes())
        .map_err(|err| format!("{text:?} is not a piece placement: {err}"))
}

pub(super) fn parse_ml_param(text: &str) -> Result<pgnkit::ratings::ml::Param, String> {
    use pgnkit::ratings::ml::Param;
    if text == "auto" {
        return Ok(Param::Estimated);
    }
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Param::Fixed(value)),
        _ => Err(format!("`{text}` is neither a number nor `auto`")),
    }
}

pub(super) fn parse_draw_rate(text: &str) -> Result<pgnkit::ratings::ml::Param, String> {
    match parse_ml_param(text)? {
        pgnkit::ratings::ml::Param::Fixed(rate) if !(0.0..=1.0).contains(&rate) => {
            Err(format!("the draw rate {rate} is not between 0 and 1"))
        }
        param => Ok(param),
    }
}
