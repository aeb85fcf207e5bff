//! Statistics by group (`stats --by KEY`): per player, event, year, opening,
//! time control and so on, nested when several keys are given, merging
//! exactly like the summary.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use shakmaty::{Color, Position};

use crate::{
    game::Game,
    keys::Variant,
    openings::{Opening, Openings},
    report::{TERMINATIONS, Termination},
};

/// What games are grouped by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupKey {
    /// The White tag.
    White,
    /// The Black tag.
    Black,
    /// Each player, whichever colour: a game counts for both, each from its
    /// own side.
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
    /// The result (`1-0`, `0-1`, `1/2-1/2`, `*`).
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
    /// The Variant tag (`standard` when absent).
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

    /// The key's name, as a column header.
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
}

/// The outcome of a game for one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Score {
    Win,
    Draw,
    Loss,
    Unfinished,
}

/// One game as seen by one group: its key and what it adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRow {
    key: Vec<String>,
    score: Score,
    plies: u32,
    termination: usize,
    opponent_elo: Option<u32>,
}

/// The rows a game adds: one, or one per player when grouped by player.
/// With an openings table, `eco` and `opening` come from it, else from the
/// game's tags.
pub fn rows(game: &Game, by: &[GroupKey], openings: Option<&Openings>) -> Vec<GroupRow> {
    let sides: &[Color] = if by.contains(&GroupKey::Player) { &[Color::White, Color::Black] } else { &[Color::White] };
    let named = by.iter().any(|k| matches!(k, GroupKey::Eco | GroupKey::Opening));
    let opening = openings.map(|table| if named { table.of_game(game) } else { None });
    sides.iter().map(|&side| row(game, by, side, opening)).collect()
}

/// `opening`: `None` without a table, `Some(None)` when the table names
/// none of the game's positions.
fn row(game: &Game, by: &[GroupKey], side: Color, opening: Option<Option<&Opening>>) -> GroupRow {
    let tag = |name: &str| game.tags.get(name).map(str::trim).filter(|v| !v.is_empty());
    let elo = |name: &str| crate::keys::elo(tag(name));
    let (player, opponent) = match side {
        Color::White => ("White", "Black"),
        Color::Black => ("Black", "White"),
    };
    let key = by
        .iter()
        .map(|key| {
            let value = match key {
                GroupKey::White => tag("White").map(str::to_owned),
                GroupKey::Black => tag("Black").map(str::to_owned),
                GroupKey::Player => tag(player).map(str::to_owned),
                GroupKey::Event => tag("Event").map(str::to_owned),
                GroupKey::Site => tag("Site").map(str::to_owned),
                GroupKey::Year => tag("Date").and_then(|d| known(d.get(..4)?)).map(str::to_owned),
                GroupKey::Month => {
                    tag("Date").and_then(|d| Some(format!("{}-{}", known(d.get(..4)?)?, known(d.get(5..7)?)?)))
                }
                GroupKey::Eco => match opening {
                    Some(found) => found.map(|o| o.eco.clone()),
                    None => tag("ECO").map(str::to_owned),
                },
                GroupKey::Opening => match opening {
                    Some(found) => found.map(|o| o.name.clone()),
                    None => tag("Opening").map(str::to_owned),
                },
                GroupKey::Result => Some(game.result.to_owned()),
                GroupKey::Termination => Some(game.report.termination.map_or("none", Termination::as_str).to_owned()),
                GroupKey::TimeControl => Some(speed(tag("TimeControl")).to_owned()),
                GroupKey::EloBand => match (elo("WhiteElo"), elo("BlackElo")) {
                    (Some(w), Some(b)) => Some(band((w + b) / 2)),
                    (Some(e), None) | (None, Some(e)) => Some(band(e)),
                    (None, None) => None,
                },
                GroupKey::FirstMove => Some(first_move(game)),
                GroupKey::Variant => Some(Variant::from_tag(tag("Variant")).name().to_owned()),
                GroupKey::Tag(name) => tag(name).map(str::to_owned),
            };
            value.unwrap_or_else(|| "?".to_owned())
        })
        .collect();
    let score = match (game.result, side) {
        ("1-0", Color::White) | ("0-1", Color::Black) => Score::Win,
        ("1-0", Color::Black) | ("0-1", Color::White) => Score::Loss,
        ("1/2-1/2", _) => Score::Draw,
        _ => Score::Unfinished,
    };
    GroupRow {
        key,
        score,
        plies: game.mainline.nodes.len() as u32,
        termination: TERMINATIONS
            .iter()
            .position(|&t| Some(t) == game.report.termination.map(Termination::as_str))
            .unwrap_or(TERMINATIONS.len() - 1),
        opponent_elo: elo(&format!("{opponent}Elo")),
    }
}

/// A date part unless it is unknown (`????`, `??`).
fn known(part: &str) -> Option<&str> {
    (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())).then_some(part)
}

fn band(elo: u32) -> String {
    let low = elo / 200 * 200;
    format!("{low}-{}", low + 199)
}

/// Lichess's speed: the estimated duration, initial time plus 40 times the
/// increment, against its limits (29 s, 179 s, 479 s, 1499 s).
fn speed(time_control: Option<&str>) -> &'static str {
    let Some(tc) = time_control else { return "unknown" };
    if tc == "-" {
        return "correspondence";
    }
    let (initial, increment) = tc.split_once('+').unwrap_or((tc, "0"));
    let (Ok(initial), Ok(increment)) = (initial.parse::<u64>(), increment.parse::<u64>()) else {
        return "unknown";
    };
    match initial + 40 * increment {
        0..=29 => "ultrabullet",
        30..=179 => "bullet",
        180..=479 => "blitz",
        480..=1499 => "rapid",
        _ => "classical",
    }
}

fn first_move(game: &Game) -> String {
    let (Some(start), Some(node)) = (&game.start, game.mainline.nodes.first()) else { return "none".to_owned() };
    let mut san = String::new();
    crate::output::games::write_step(&mut start.clone(), node.step, crate::notation::Notation::San, &mut san);
    if start.turn() == Color::Black {
        san.insert_str(0, "...");
    }
    san
}

/// What a group adds up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct GroupStats {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    plies: u64,
    terminations: [u64; 8],
    /// Games with a rated opponent: their ratings' sum, and the wins minus
    /// losses among them (for the performance rating).
    rated_games: u64,
    opponent_elo_sum: u64,
    rated_balance: i64,
}

impl GroupStats {
    fn add(&mut self, row: &GroupRow) {
        self.games += 1;
        match row.score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
            Score::Unfinished => {}
        }
        self.plies += u64::from(row.plies);
        self.terminations[row.termination] += 1;
        if let Some(elo) = row.opponent_elo
            && row.score != Score::Unfinished
        {
            self.rated_games += 1;
            self.opponent_elo_sum += u64::from(elo);
            self.rated_balance += match row.score {
                Score::Win => 1,
                Score::Loss => -1,
                _ => 0,
            };
        }
    }

    fn merge(&mut self, other: &GroupStats) {
        self.games += other.games;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.plies += other.plies;
        for (a, b) in self.terminations.iter_mut().zip(other.terminations) {
            *a += b;
        }
        self.rated_games += other.rated_games;
        self.opponent_elo_sum += other.opponent_elo_sum;
        self.rated_balance += other.rated_balance;
    }

    fn scored(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Score in percent of the finished games.
    fn score_pct(&self) -> Option<f64> {
        let scored = self.scored();
        (scored > 0).then(|| round2(100.0 * (self.wins as f64 + self.draws as f64 / 2.0) / scored as f64))
    }

    fn mean_plies(&self) -> Option<f64> {
        (self.games > 0).then(|| round2(self.plies as f64 / self.games as f64))
    }

    fn opponent_elo(&self) -> Option<f64> {
        (self.rated_games > 0).then(|| round2(self.opponent_elo_sum as f64 / self.rated_games as f64))
    }

    /// The opponents' mean rating plus 400 times (wins - losses) / games
    /// (the linear "rule of 400"), over games against rated opponents.
    fn performance(&self) -> Option<f64> {
        let mean = self.opponent_elo()?;
        Some(round2(mean + 400.0 * self.rated_balance as f64 / self.rated_games as f64))
    }
}

/// How groups are chosen for output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Most games first.
    #[default]
    Games,
    /// Highest score first.
    Score,
    /// By key, in order.
    Key,
    /// Longest games first.
    Plies,
}

/// Which groups are shown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Selection {
    /// Order.
    pub sort: SortBy,
    /// At most this many.
    pub top: Option<usize>,
    /// Only groups with at least this many games.
    pub min_games: u64,
}

impl Selection {
    fn filters(&self) -> bool {
        self.top.is_some() || self.min_games > 1
    }
}

/// Every group's statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Groups {
    by: Vec<String>,
    groups: BTreeMap<Vec<String>, GroupStats>,
}

impl Groups {
    /// No groups yet, for these keys.
    pub fn new(by: &[GroupKey]) -> Groups {
        Groups { by: by.iter().map(GroupKey::name).collect(), groups: BTreeMap::new() }
    }

    /// No groups yet, for the keys of `self`.
    pub fn empty_like(&self) -> Groups {
        Groups { by: self.by.clone(), groups: BTreeMap::new() }
    }

    /// Whether grouping was asked for.
    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }

    /// Adds one game's row.
    pub fn add(&mut self, row: &GroupRow) {
        match self.groups.get_mut(&row.key) {
            Some(group) => group.add(row),
            None => self.groups.entry(row.key.clone()).or_default().add(row),
        }
    }

    /// Adds another set of groups made with the same keys.
    ///
    /// # Errors
    ///
    /// The keys differ.
    pub fn merge(&mut self, other: &Groups) -> Result<(), String> {
        if other.by.is_empty() {
            return Ok(());
        }
        if self.by.is_empty() && self.groups.is_empty() {
            self.by.clone_from(&other.by);
        }
        if self.by != other.by {
            return Err(format!("grouped by {:?} and by {:?}", self.by, other.by));
        }
        for (key, group) in &other.groups {
            self.groups.entry(key.clone()).or_default().merge(group);
        }
        Ok(())
    }

    /// The groups `selection` picks, in its order.
    fn selected(&self, selection: Selection) -> Vec<(&Vec<String>, &GroupStats)> {
        let mut rows: Vec<_> = self.groups.iter().filter(|(_, g)| g.games >= selection.min_games).collect();
        let desc = |x: Option<f64>| std::cmp::Reverse(x.map(|x| (x * 100.0) as i64));
        match selection.sort {
            SortBy::Games => rows.sort_by_key(|(_, g)| std::cmp::Reverse(g.games)),
            SortBy::Score => rows.sort_by_key(|(_, g)| desc(g.score_pct())),
            SortBy::Plies => rows.sort_by_key(|(_, g)| desc(g.mean_plies())),
            SortBy::Key => {}
        }
        rows.truncate(selection.top.unwrap_or(usize::MAX));
        rows
    }

    /// The groups as JSON: the keys, and an array of groups. A selection
    /// that leaves groups out is marked, as such a partial cannot merge.
    pub fn to_json(&self, selection: Selection) -> Value {
        let rows: Vec<Value> = self
            .selected(selection)
            .into_iter()
            .map(|(key, g)| {
                let terminations: Map<String, Value> =
                    TERMINATIONS.iter().zip(g.terminations).map(|(k, n)| ((*k).to_owned(), json!(n))).collect();
                json!({
                    "key": key,
                    "games": g.games,
                    "wins": g.wins,
                    "draws": g.draws,
                    "losses": g.losses,
                    "score_pct": g.score_pct(),
                    "plies": g.plies,
                    "mean_plies": g.mean_plies(),
                    "terminations": terminations,
                    "rated_games": g.rated_games,
                    "opponent_elo_sum": g.opponent_elo_sum,
                    "rated_balance": g.rated_balance,
                    "avg_opponent_elo": g.opponent_elo(),
                    "performance": g.performance(),
                })
            })
            .collect();
        json!({"by": self.by, "filtered": selection.filters(), "rows": rows})
    }

    /// Reads groups written by [`Groups::to_json`].
    ///
    /// # Errors
    ///
    /// A field missing, or a filtered partial.
    pub fn from_json(value: &Value) -> Result<Groups, String> {
        if value["filtered"].as_bool() == Some(true) {
            return Err("its groups were filtered (--top or --min-games) and cannot be merged".to_owned());
        }
        let by: Vec<String> = serde_json::from_value(value["by"].clone()).map_err(|_| "`groups.by` is missing")?;
        let mut groups = Groups { by, groups: BTreeMap::new() };
        for row in value["rows"].as_array().ok_or("`groups.rows` is missing")? {
            let key: Vec<String> = serde_json::from_value(row["key"].clone()).map_err(|_| "a group has no key")?;
            let n = |field: &str| row[field].as_u64().ok_or_else(|| format!("a group has no `{field}`"));
            let mut g = GroupStats {
                games: n("games")?,
                wins: n("wins")?,
                draws: n("draws")?,
                losses: n("losses")?,
                plies: n("plies")?,
                rated_games: n("rated_games")?,
                opponent_elo_sum: n("opponent_elo_sum")?,
                rated_balance: row["rated_balance"].as_i64().ok_or("a group has no `rated_balance`")?,
                ..GroupStats::default()
            };
            for (i, name) in TERMINATIONS.iter().enumerate() {
                g.terminations[i] = row["terminations"][name].as_u64().ok_or("a group has no terminations")?;
            }
            groups.groups.insert(key, g);
        }
        Ok(groups)
    }

    /// A header and one row per group, for CSV or a text table.
    pub fn table(&self, selection: Selection) -> Vec<Vec<String>> {
        let mut header = self.by.clone();
        header.extend(
            ["games", "wins", "draws", "losses", "score_pct", "mean_plies", "avg_opponent_elo", "performance"]
                .map(str::to_owned),
        );
        header.extend(TERMINATIONS.map(str::to_owned));
        let number = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
        let mut table = vec![header];
        for (key, g) in self.selected(selection) {
            let mut row = key.clone();
            row.extend([g.games, g.wins, g.draws, g.losses].map(|n| n.to_string()));
            row.extend([g.score_pct(), g.mean_plies(), g.opponent_elo(), g.performance()].map(number));
            row.extend(g.terminations.map(|n| n.to_string()));
            table.push(row);
        }
        table
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::{GroupKey, speed};

    #[test]
    fn key_names_read_back_and_unknown_ones_list_the_known() {
        for name in ["white", "player", "time-control", "elo-band", "first-move", "tag:Annotator"] {
            assert_eq!(GroupKey::parse(name).unwrap().name(), name);
        }
        assert!(GroupKey::parse("colour").unwrap_err().contains("time-control"));
    }

    #[test]
    fn time_controls_fall_in_lichess_speeds() {
        assert_eq!(speed(Some("15+0")), "ultrabullet");
        assert_eq!(speed(Some("60+0")), "bullet");
        assert_eq!(speed(Some("120+1")), "bullet");
        assert_eq!(speed(Some("180+2")), "blitz");
        assert_eq!(speed(Some("600+0")), "rapid");
        assert_eq!(speed(Some("1800+20")), "classical");
        assert_eq!(speed(Some("-")), "correspondence");
        assert_eq!(speed(Some("40/7200:3600")), "unknown");
        assert_eq!(speed(None), "unknown");
    }
}
