//! The keys of `--by`, one type for `stats --by` and `split --by`, and one
//! table of them ([`KEYS`]: name, what the value is read from) that the
//! help and the docs list: what a game's value of each key is, from its
//! tags, or from the game replayed for the keys that need its moves.

use shakmaty::{Color, Position};

use crate::{game::Game, game::Tags, openings::Opening, report::Termination};

/// What games are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupKey {
    /// The White tag.
    White,
    /// The Black tag.
    Black,
    /// Each player, whichever colour: a game counts for both, each from its
    /// own side (`split` writes it to both players' files).
    Player,
    /// The Event tag.
    Event,
    /// The Site tag.
    Site,
    /// The year of the Date tag.
    Year,
    /// The year and month of the Date tag (`1858-11`).
    Month,
    /// The ECO tag.
    Eco,
    /// The Opening tag.
    Opening,
    /// The game's result (`1-0`, `0-1`, `1/2-1/2`, `*`): the Result tag when
    /// it is one of these, else the movetext's marker, else `*`.
    Result,
    /// How the final position ends the game, or `none`.
    Termination,
    /// Lichess's speed from the TimeControl tag: ultrabullet, bullet,
    /// blitz, rapid, classical, correspondence or unknown.
    TimeControl,
    /// The mean rating of the two players, by 200 (`1800-1999`).
    EloBand,
    /// The first move in SAN.
    FirstMove,
    /// The variant's name ([`crate::tag_values::Variant::name`]).
    Variant,
    /// Any tag.
    Tag(String),
}

/// Where a key's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// These tags only.
    Tags(&'static [&'static str]),
    /// The game replayed (how it ended, its first move).
    Moves,
    /// The openings table, from the game replayed, or this tag with
    /// `--openings tags`.
    Openings(&'static [&'static str]),
}

/// A key of `--by` other than `tag:NAME`.
#[derive(Debug)]
pub struct KeyRow {
    /// The key.
    pub key: GroupKey,
    /// Its name, as given to `--by` and as a column header.
    pub name: &'static str,
    /// What its value is read from.
    pub reads: Reads,
}

const fn row(key: GroupKey, name: &'static str, reads: Reads) -> KeyRow {
    KeyRow { key, name, reads }
}

/// The keys of `--by` but `tag:NAME`, in the order the help and the docs
/// list them: the names read, the help of `stats --by` and `split --by`
/// and the tags kept for a key all come from here, and tests check the
/// docs' lists against it.
pub const KEYS: &[KeyRow] = &[
    row(GroupKey::White, "white", Reads::Tags(&["White"])),
    row(GroupKey::Black, "black", Reads::Tags(&["Black"])),
    row(GroupKey::Player, "player", Reads::Tags(&["White", "Black"])),
    row(GroupKey::Event, "event", Reads::Tags(&["Event"])),
    row(GroupKey::Site, "site", Reads::Tags(&["Site"])),
    row(GroupKey::Year, "year", Reads::Tags(&["Date"])),
    row(GroupKey::Month, "month", Reads::Tags(&["Date"])),
    row(GroupKey::Eco, "eco", Reads::Openings(&["ECO"])),
    row(GroupKey::Opening, "opening", Reads::Openings(&["Opening"])),
    row(GroupKey::Result, "result", Reads::Tags(&["Result"])),
    row(GroupKey::Termination, "termination", Reads::Moves),
    row(GroupKey::TimeControl, "time-control", Reads::Tags(&["TimeControl"])),
    row(GroupKey::EloBand, "elo-band", Reads::Tags(&["WhiteElo", "BlackElo"])),
    row(GroupKey::FirstMove, "first-move", Reads::Moves),
    row(GroupKey::Variant, "variant", Reads::Tags(&["Variant"])),
];

/// The name of `tag:NAME` in lists of the keys.
pub const TAG_KEY: &str = "tag:NAME";

/// The keys' names, `, ` between them, `tag:NAME` last: what an unknown
/// key's message lists.
pub fn key_names() -> String {
    described(&[]) + ", " + TAG_KEY
}

/// The keys' names but `tag:NAME`, each followed by its note in `notes`
/// (`(name, note)`) in parentheses, `, ` between them: a command's help
/// says what a key means to it and ends the list as it likes.
pub fn described(notes: &[(&str, &str)]) -> String {
    debug_assert!(notes.iter().all(|(name, _)| KEYS.iter().any(|k| k.name == *name)), "notes name keys");
    let mut out = String::new();
    for key in KEYS {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(key.name);
        if let Some((_, note)) = notes.iter().find(|(name, _)| *name == key.name) {
            out.push_str(&format!(" ({note})"));
        }
    }
    out
}

impl GroupKey {
    /// Reads a key name.
    ///
    /// # Errors
    ///
    /// An unknown name, with the known ones.
    pub fn parse(name: &str) -> Result<GroupKey, String> {
        let lower = name.trim().to_ascii_lowercase();
        if let Some(row) = KEYS.iter().find(|row| row.name == lower) {
            return Ok(row.key.clone());
        }
        match name.trim().split_once(':') {
            Some((tag, tag_name)) if tag.eq_ignore_ascii_case("tag") && !tag_name.is_empty() => {
                Ok(GroupKey::Tag(tag_name.to_owned()))
            }
            _ => Err(format!("unknown key `{name}`: keys are {}", key_names())),
        }
    }

    /// The key's row of [`KEYS`] (`None` for `tag:NAME`).
    pub fn row(&self) -> Option<&'static KeyRow> {
        KEYS.iter().find(|row| row.key == *self)
    }

    /// The key's name, as given to `--by` and as a column header.
    pub fn name(&self) -> String {
        match self {
            GroupKey::Tag(name) => format!("tag:{name}"),
            // Keys are made by `parse`, from the table.
            key => key.row().expect("every key but tag:NAME has a row").name.to_owned(),
        }
    }

    /// The tags the key's value is read from (`None`: every tag may be,
    /// for `tag:NAME`, which names any).
    pub fn tags(&self) -> Option<&'static [&'static str]> {
        Some(match self.row()?.reads {
            Reads::Tags(tags) | Reads::Openings(tags) => tags,
            Reads::Moves => &[],
        })
    }

    /// Whether the value needs the game replayed (how it ended, its first
    /// move); the other keys read tags.
    pub fn needs_game(&self) -> bool {
        self.row().is_some_and(|row| row.reads == Reads::Moves)
    }

    /// Whether the value is a player's name (`white`, `black`, `player`),
    /// which `--aliases` reads through its file.
    pub fn names_player(&self) -> bool {
        matches!(self, GroupKey::White | GroupKey::Black | GroupKey::Player)
    }

    /// Whether the value is an opening's, which the openings table names
    /// (`eco`, `opening`).
    pub fn names_openings(&self) -> bool {
        self.row().is_some_and(|row| matches!(row.reads, Reads::Openings(_)))
    }

    /// The game's value of the key from `side`'s view (which matters only
    /// for `player`), or `None` when it has none. `opening` is the openings
    /// table's answer for the game when a table is used (`Some(None)`: the
    /// table names none of its positions).
    pub fn value(&self, game: &Game, side: Color, opening: Option<Option<&Opening>>) -> Option<String> {
        match (self, opening) {
            (GroupKey::Termination, _) => Some(game.report.termination.map_or("none", Termination::as_str).to_owned()),
            (GroupKey::FirstMove, _) => Some(first_move(game)),
            (GroupKey::Eco, Some(found)) => found.map(|o| o.eco.clone()),
            (GroupKey::Opening, Some(found)) => found.map(|o| o.name.clone()),
            _ => self.tag_value(&game.tags, side, game.result),
        }
    }

    /// The value of a key that does not need the game replayed
    /// ([`GroupKey::needs_game`]), from the game's tags and its `result` as
    /// [`GroupKey::Result`] defines it; `None` when it has none (no tag, an
    /// empty or `?` value, a date whose year is not written).
    // Inlined into its callers, split's per-game key and stats' rows: a call
    // of this many arms cost split --by a few percent of its instructions.
    #[inline(always)]
    pub fn tag_value(&self, tags: &Tags, side: Color, result: &str) -> Option<String> {
        let tag = |name: &str| tags.get(name).map(str::trim).filter(|v| !v.bytes().all(|b| b == b'?'));
        let player = match side {
            Color::White => "White",
            Color::Black => "Black",
        };
        let value = match self {
            GroupKey::White => tag("White"),
            GroupKey::Black => tag("Black"),
            GroupKey::Player => tag(player),
            GroupKey::Event => tag("Event"),
            GroupKey::Site => tag("Site"),
            GroupKey::Year => tag("Date").and_then(|d| known(d.get(..4)?)),
            GroupKey::Month => {
                return tag("Date").and_then(|d| Some(format!("{}-{}", known(d.get(..4)?)?, known(d.get(5..7)?)?)));
            }
            GroupKey::Eco => tag("ECO"),
            GroupKey::Opening => tag("Opening"),
            GroupKey::Result => Some(result),
            GroupKey::TimeControl => Some(speed(tag("TimeControl"))),
            GroupKey::EloBand => {
                let elo = |name: &str| crate::tag_values::elo(tag(name));
                return match (elo("WhiteElo"), elo("BlackElo")) {
                    (Some(w), Some(b)) => Some(band((w + b) / 2)),
                    (Some(e), None) | (None, Some(e)) => Some(band(e)),
                    (None, None) => None,
                };
            }
            GroupKey::Variant => return Some(crate::tag_values::Variant::from_tag(tag("Variant")).name().to_owned()),
            GroupKey::Tag(name) => tag(name),
            GroupKey::Termination | GroupKey::FirstMove => None,
        };
        value.map(str::to_owned)
    }
}

/// A date part unless it is unknown (`????`, `??`).
fn known(part: &str) -> Option<&str> {
    (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())).then_some(part)
}

/// The band of 200 a rating is in: `1800-1999`.
fn band(elo: u32) -> String {
    let low = elo / 200 * 200;
    format!("{low}-{}", low + 199)
}

/// Lichess's speed: the estimated duration, initial time plus 40 times the
/// increment, against its limits (29 s, 179 s, 479 s, 1499 s). Of the
/// standard's other forms, a first period of `MOVES/SECONDS` counts its
/// seconds (FIDE's `40/7200:3600` is classical), unless it gives a day or
/// more a move: chess.com writes its daily games so (`1/259200`, three days
/// a move), which are correspondence, as `-` (no clock) is.
fn speed(time_control: Option<&str>) -> &'static str {
    const DAY: u64 = 24 * 60 * 60;
    let number = crate::tag_values::digits;
    // SECONDS or SECONDS+INCREMENT: the estimated duration.
    let clock = |s: &str| -> Option<u64> {
        crate::tag_values::clock(s).map(|(initial, increment)| initial.saturating_add(increment.saturating_mul(40)))
    };
    let Some(tc) = time_control else { return "unknown" };
    if tc == "-" {
        return "correspondence";
    }
    let first = tc.split(':').next().unwrap_or(tc);
    let estimate = match first.split_once('/') {
        Some((moves, period)) => {
            let seconds = period.split_once('+').map_or(period, |(seconds, _)| seconds);
            let (Some(moves), Some(seconds), Some(estimate)) = (number(moves), number(seconds), clock(period)) else {
                return "unknown";
            };
            if moves == 0 {
                return "unknown";
            }
            if seconds >= DAY.saturating_mul(moves) {
                return "correspondence";
            }
            estimate
        }
        None => match clock(tc) {
            Some(estimate) => estimate,
            None => return "unknown",
        },
    };
    match estimate {
        0..=29 => "ultrabullet",
        30..=179 => "bullet",
        180..=479 => "blitz",
        480..=1499 => "rapid",
        _ => "classical",
    }
}

/// The first main-line move in SAN, `...` before it when Black starts.
fn first_move(game: &Game) -> String {
    let (Some(start), Some(node)) = (&game.start, game.mainline.nodes.first()) else { return "none".to_owned() };
    let mut san = String::new();
    crate::output::games::write_step(&mut start.clone(), node.step, crate::notation::Notation::San, &mut san);
    if start.turn() == Color::Black {
        san.insert_str(0, "...");
    }
    san
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::{GroupKey, KEYS, described, key_names};
    use crate::game::Tags;

    fn tags(text: &str) -> Tags {
        Tags::scan(text.as_bytes())
    }

    fn value(key: &str, tags: &str, side: Color, result: &str) -> Option<String> {
        GroupKey::parse(key).unwrap().tag_value(&Tags::scan(tags.as_bytes()), side, result)
    }

    #[test]
    fn tag_keys_read_trimmed_values_and_take_question_marks_for_no_value() {
        let tags = "[White \" Morphy \"]\n[Black \"?\"]\n[Event \"??\"]\n[Date \"1858.??.??\"]\n";
        assert_eq!(value("white", tags, Color::White, "*").as_deref(), Some("Morphy"));
        assert_eq!(value("black", tags, Color::White, "*"), None);
        assert_eq!(value("event", tags, Color::White, "*"), None);
        assert_eq!(value("player", tags, Color::Black, "*"), None);
        assert_eq!(value("player", tags, Color::White, "*").as_deref(), Some("Morphy"));
        assert_eq!(value("year", tags, Color::White, "*").as_deref(), Some("1858"));
        assert_eq!(value("month", tags, Color::White, "*"), None);
        assert_eq!(value("site", tags, Color::White, "*"), None);
    }

    #[test]
    fn derived_keys_read_their_tags_as_stats_and_split_both_do() {
        let tags = "[WhiteElo \"2400\"]\n[BlackElo \"+2500\"]\n[TimeControl \"180+2\"]\n[Variant \"From Position\"]\n";
        assert_eq!(value("elo-band", tags, Color::White, "*").as_deref(), Some("2400-2599"), "one rating");
        assert_eq!(value("time-control", tags, Color::White, "*").as_deref(), Some("blitz"));
        assert_eq!(value("variant", tags, Color::White, "*").as_deref(), Some("standard"));
        assert_eq!(value("result", tags, Color::White, "0-1").as_deref(), Some("0-1"));
        assert_eq!(value("time-control", "", Color::White, "*").as_deref(), Some("unknown"));
    }

    #[test]
    fn every_key_of_the_table_reads_back_by_its_name_in_any_case_and_unknown_ones_list_the_known() {
        for (i, row) in KEYS.iter().enumerate() {
            assert_eq!(GroupKey::parse(row.name).as_ref(), Ok(&row.key));
            assert_eq!(GroupKey::parse(&row.name.to_ascii_uppercase()).as_ref(), Ok(&row.key));
            assert_eq!(row.key.name(), row.name);
            assert!(KEYS[..i].iter().all(|other| other.name != row.name && other.key != row.key), "{}", row.name);
        }
        assert_eq!(GroupKey::parse("tag:Site").unwrap().name(), "tag:Site");
        assert_eq!(GroupKey::parse(" Tag:TimeControl "), Ok(GroupKey::Tag("TimeControl".into())));
        assert!(GroupKey::parse("tag:").is_err());
        let err = GroupKey::parse("colour").unwrap_err();
        assert!(err.ends_with(&format!("keys are {}", key_names())), "{err}");
        assert!(key_names().starts_with("white, black, player") && key_names().ends_with(", variant, tag:NAME"));
    }

    #[test]
    fn what_a_key_reads_is_its_rows() {
        assert_eq!(GroupKey::Player.tags(), Some(&["White", "Black"][..]));
        assert_eq!(GroupKey::Eco.tags(), Some(&["ECO"][..]), "with --openings tags");
        assert_eq!(GroupKey::Termination.tags(), Some(&[][..]));
        assert_eq!(GroupKey::Tag("Round".into()).tags(), None, "any tag");
        let replayed: Vec<&str> = KEYS.iter().filter(|row| row.key.needs_game()).map(|row| row.name).collect();
        assert_eq!(replayed, ["termination", "first-move"]);
        let named: Vec<&str> = KEYS.iter().filter(|row| row.key.names_openings()).map(|row| row.name).collect();
        assert_eq!(named, ["eco", "opening"]);
        assert!(!GroupKey::Tag("ECO".into()).names_openings() && !GroupKey::Tag("ECO".into()).needs_game());
    }

    #[test]
    fn a_help_lists_the_keys_in_the_tables_order_with_its_notes() {
        let list = described(&[("player", "both sides"), ("variant", "its name")]);
        assert!(list.starts_with("white, black, player (both sides), event, site, year,"), "{list}");
        assert!(list.ends_with(", first-move, variant (its name)"), "{list}");
    }

    #[test]
    fn key_values_come_from_the_tags_and_unknown_ones_are_none() {
        let game = "[Event \"?\"]\n[Date \"1858.??.??\"]\n[White \" Morphy \"]\n[Black \"\"]\n[ECO \"C41\"]\n\
                    [Result \"1-0\"]\n[Round \"3\"]\n\n1. e4 1-0\n";
        let t = tags(game);
        let value =
            |key: GroupKey, t: &Tags| key.tag_value(t, Color::White, crate::check::result_of(game.as_bytes(), t));
        assert_eq!(value(GroupKey::Event, &t), None);
        assert_eq!(value(GroupKey::Year, &t).as_deref(), Some("1858"));
        assert_eq!(value(GroupKey::White, &t).as_deref(), Some("Morphy"));
        assert_eq!(value(GroupKey::Black, &t), None);
        assert_eq!(value(GroupKey::Eco, &t).as_deref(), Some("C41"));
        assert_eq!(value(GroupKey::Result, &t).as_deref(), Some("1-0"));
        assert_eq!(value(GroupKey::Tag("Round".into()), &t).as_deref(), Some("3"));
        assert_eq!(value(GroupKey::Tag("Site".into()), &t), None);
        assert_eq!(value(GroupKey::Year, &tags("[Date \"????.??.??\"]\n\n*\n")), None);
        assert_eq!(value(GroupKey::Year, &tags("[Date \"92.01.01\"]\n\n*\n")), None);
    }

    #[test]
    fn the_result_key_is_the_games_result_tag_else_its_marker() {
        let result = |game: &str| crate::check::result_of(game.as_bytes(), &tags(game));
        assert_eq!(result("[Result \"0-1\"]\n\n1. e4 1-0\n"), "0-1", "the tag first");
        assert_eq!(result("[Result \"?\"]\n\n1. e4 { 1-0 } 1/2-1/2\n"), "1/2-1/2", "else the marker");
        assert_eq!(result("[Result \"1-0 ff\"]\n\n1. e4 0-1\n"), "0-1");
        assert_eq!(result("[Result \"1-0\"]\n[Result \"0-1\"]\n\n1. e4 *\n"), "0-1", "the last tag");
        assert_eq!(result("1. e4\n"), "*", "neither");
    }

    #[test]
    fn time_controls_fall_in_lichess_speeds() {
        assert_eq!(super::speed(Some("15+0")), "ultrabullet");
        assert_eq!(super::speed(Some("60+0")), "bullet");
        assert_eq!(super::speed(Some("120+1")), "bullet");
        assert_eq!(super::speed(Some("180+2")), "blitz");
        assert_eq!(super::speed(Some("600+0")), "rapid");
        assert_eq!(super::speed(Some("1800+20")), "classical");
        assert_eq!(super::speed(Some("-")), "correspondence");
        assert_eq!(super::speed(Some("40/7200:3600")), "classical");
        assert_eq!(super::speed(Some("40/5400+30:1800+30")), "classical");
        assert_eq!(super::speed(Some("1/259200")), "correspondence");
        assert_eq!(super::speed(Some("1/86400")), "correspondence");
        assert_eq!(super::speed(Some("0/100")), "unknown");
        assert_eq!(super::speed(Some("?")), "unknown");
        assert_eq!(super::speed(None), "unknown");
    }
}
