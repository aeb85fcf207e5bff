//! The keys of `--by`, one type for `stats --by` and `split --by`: what a
//! game's value of each key is, from its tags, or from the game replayed for
//! the keys that need its moves.

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
    /// The variant's name ([`crate::keys::Variant::name`]).
    Variant,
    /// Any tag.
    Tag(String),
}

/// The key names `--by` takes.
pub const KEY_NAMES: &str = "white, black, player, event, site, year, month, eco, opening, result, termination, \
                             time-control, elo-band, first-move, variant, tag:NAME";

impl GroupKey {
    /// Reads a key name.
    ///
    /// # Errors
    ///
    /// An unknown name, with the known ones.
    pub fn parse(name: &str) -> Result<GroupKey, String> {
        let lower = name.trim().to_ascii_lowercase();
        Ok(match lower.as_str() {
            "white" => GroupKey::White,
            "black" => GroupKey::Black,
            "player" => GroupKey::Player,
            "event" => GroupKey::Event,
            "site" => GroupKey::Site,
            "year" => GroupKey::Year,
            "month" => GroupKey::Month,
            "eco" => GroupKey::Eco,
            "opening" => GroupKey::Opening,
            "result" => GroupKey::Result,
            "termination" => GroupKey::Termination,
            "time-control" => GroupKey::TimeControl,
            "elo-band" => GroupKey::EloBand,
            "first-move" => GroupKey::FirstMove,
            "variant" => GroupKey::Variant,
            _ => match name.trim().split_once(':') {
                Some((tag, tag_name)) if tag.eq_ignore_ascii_case("tag") && !tag_name.is_empty() => {
                    GroupKey::Tag(tag_name.to_owned())
                }
                _ => return Err(format!("unknown key `{name}`: keys are {KEY_NAMES}")),
            },
        })
    }

    /// The key's name, as given to `--by` and as a column header.
    pub fn name(&self) -> String {
        match self {
            GroupKey::White => "white",
            GroupKey::Black => "black",
            GroupKey::Player => "player",
            GroupKey::Event => "event",
            GroupKey::Site => "site",
            GroupKey::Year => "year",
            GroupKey::Month => "month",
            GroupKey::Eco => "eco",
            GroupKey::Opening => "opening",
            GroupKey::Result => "result",
            GroupKey::Termination => "termination",
            GroupKey::TimeControl => "time-control",
            GroupKey::EloBand => "elo-band",
            GroupKey::FirstMove => "first-move",
            GroupKey::Variant => "variant",
            GroupKey::Tag(name) => return format!("tag:{name}"),
        }
        .to_owned()
    }

    /// The tags the key's value is read from (`None`: every tag may be,
    /// for `tag:NAME`, which names any).
    pub fn tags(&self) -> Option<&'static [&'static str]> {
        Some(match self {
            GroupKey::White => &["White"],
            GroupKey::Black => &["Black"],
            GroupKey::Player => &["White", "Black"],
            GroupKey::Event => &["Event"],
            GroupKey::Site => &["Site"],
            GroupKey::Year | GroupKey::Month => &["Date"],
            GroupKey::Eco => &["ECO"],
            GroupKey::Opening => &["Opening"],
            GroupKey::Result => &["Result"],
            GroupKey::TimeControl => &["TimeControl"],
            GroupKey::EloBand => &["WhiteElo", "BlackElo"],
            GroupKey::Variant => &["Variant"],
            GroupKey::Termination | GroupKey::FirstMove => &[],
            GroupKey::Tag(_) => return None,
        })
    }

    /// Whether the value needs the game replayed (how it ended, its first
    /// move); the other keys read tags.
    pub fn needs_game(&self) -> bool {
        matches!(self, GroupKey::Termination | GroupKey::FirstMove)
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
                let elo = |name: &str| crate::keys::elo(tag(name));
                return match (elo("WhiteElo"), elo("BlackElo")) {
                    (Some(w), Some(b)) => Some(band((w + b) / 2)),
                    (Some(e), None) | (None, Some(e)) => Some(band(e)),
                    (None, None) => None,
                };
            }
            GroupKey::Variant => return Some(crate::keys::Variant::from_tag(tag("Variant")).name().to_owned()),
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
    let number = |s: &str| -> Option<u64> {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) { s.parse().ok() } else { None }
    };
    // SECONDS or SECONDS+INCREMENT: the estimated duration.
    let clock = |s: &str| -> Option<u64> {
        let (initial, increment) = s.split_once('+').unwrap_or((s, "0"));
        Some(number(initial)?.saturating_add(number(increment)?.saturating_mul(40)))
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

    use super::GroupKey;
    use crate::game::Tags;

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
    fn every_key_name_reads_back_as_its_key() {
        for name in super::KEY_NAMES.split(", ") {
            let name = if name == "tag:NAME" { "tag:Annotator" } else { name };
            assert_eq!(GroupKey::parse(name).unwrap().name(), name);
        }
        assert!(GroupKey::parse("colour").unwrap_err().contains("keys are white, black"));
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
