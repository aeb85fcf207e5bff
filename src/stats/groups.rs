//! Statistics by group (`stats --by KEY`): per player, event, year, opening,
//! time control and so on, nested when several keys are given, merging
//! exactly like the summary.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use shakmaty::Color;

pub use crate::keys::GroupKey;
use crate::{
    aliases::Aliases,
    game::Game,
    openings::{Opening, Openings},
    report::{TERMINATIONS, Termination},
    stats::count::{add, too_many},
};

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
    /// The aliases read as a name in its key: the key's place, the alias.
    merged: Vec<(usize, String)>,
}

/// The rows a game adds: one, or one per player when grouped by player.
/// With an openings table, `eco` and `opening` come from it, else from the
/// game's tags; with aliases, the keys of players are their names.
pub fn rows(game: &Game, by: &[GroupKey], openings: Option<&Openings>, aliases: Option<&Aliases>) -> Vec<GroupRow> {
    let sides: &[Color] = if by.contains(&GroupKey::Player) { &[Color::White, Color::Black] } else { &[Color::White] };
    let named = by.iter().any(GroupKey::names_openings);
    let opening = openings.map(|table| if named { table.of_game(game) } else { None });
    sides.iter().map(|&side| row(game, by, side, opening, aliases)).collect()
}

/// `opening`: `None` without a table, `Some(None)` when the table names
/// none of the game's positions.
fn row(
    game: &Game,
    by: &[GroupKey],
    side: Color,
    opening: Option<Option<&Opening>>,
    aliases: Option<&Aliases>,
) -> GroupRow {
    let opponent = match side {
        Color::White => "BlackElo",
        Color::Black => "WhiteElo",
    };
    let mut merged = Vec::new();
    let key = by
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let value = key.value(game, side, opening);
            match (value, aliases) {
                (Some(value), Some(aliases)) if key.names_player() => match aliases.name_of(&value) {
                    Some(name) => {
                        let name = name.to_owned();
                        merged.push((i, value));
                        name
                    }
                    None => value,
                },
                (value, _) => value.unwrap_or_else(|| "?".to_owned()),
            }
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
        opponent_elo: crate::tag_values::elo(game.tags.get(opponent)),
        merged,
    }
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

    fn merge(&mut self, other: &GroupStats) -> Result<(), String> {
        self.games = add(self.games, other.games)?;
        self.wins = add(self.wins, other.wins)?;
        self.draws = add(self.draws, other.draws)?;
        self.losses = add(self.losses, other.losses)?;
        self.plies = add(self.plies, other.plies)?;
        for (a, b) in self.terminations.iter_mut().zip(other.terminations) {
            *a = add(*a, b)?;
        }
        self.rated_games = add(self.rated_games, other.rated_games)?;
        self.opponent_elo_sum = add(self.opponent_elo_sum, other.opponent_elo_sum)?;
        self.rated_balance = self.rated_balance.checked_add(other.rated_balance).ok_or_else(too_many)?;
        Ok(())
    }

    /// Whether the counts of a group read from a partial agree as a real
    /// group's do.
    fn check(&self) -> Result<(), String> {
        let scored = add(add(self.wins, self.draws)?, self.losses)?;
        let terminations = self.terminations.iter().try_fold(0, |sum, &n| add(sum, n))?;
        let (min_elo, max_elo) = (self.rated_games, u128::from(self.rated_games) * u128::from(u32::MAX));
        if scored > self.games {
            Err(format!("wins + draws + losses {scored} is more than games {}", self.games))
        } else if terminations != self.games {
            Err(format!("the terminations add up to {terminations}, not to games {}", self.games))
        } else if self.rated_games > scored {
            Err(format!("rated_games {} is more than its finished games {scored}", self.rated_games))
        } else if self.rated_balance.unsigned_abs() > self.rated_games {
            Err(format!("rated_balance {} is beyond rated_games {}", self.rated_balance, self.rated_games))
        } else if self.opponent_elo_sum < min_elo || u128::from(self.opponent_elo_sum) > max_elo {
            Err(format!("opponent_elo_sum {} cannot be the sum of {} ratings", self.opponent_elo_sum, self.rated_games))
        } else {
            Ok(())
        }
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
    /// Whether names were read through aliases: the tables then list, per
    /// key of players, the aliases merged into each group.
    aliased: bool,
    /// Per group that merged an alias: the key's place and the alias. Apart
    /// from the groups, and only for them, so that a run without aliases
    /// (or 100,000 players with few) holds no more than before.
    merged: BTreeMap<Vec<String>, BTreeSet<(usize, String)>>,
}

impl Groups {
    /// No groups yet, for these keys.
    pub fn new(by: &[GroupKey]) -> Groups {
        Groups { by: by.iter().map(GroupKey::name).collect(), ..Groups::default() }
    }

    /// The same, for names read through aliases.
    #[must_use]
    pub fn aliased(self) -> Groups {
        Groups { aliased: true, ..self }
    }

    /// No groups yet, for the keys of `self`.
    pub fn empty_like(&self) -> Groups {
        Groups { by: self.by.clone(), aliased: self.aliased, ..Groups::default() }
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
        if !row.merged.is_empty() {
            self.merged.entry(row.key.clone()).or_default().extend(row.merged.iter().cloned());
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
            self.groups.entry(key.clone()).or_default().merge(group)?;
        }
        self.aliased |= other.aliased;
        for (key, merged) in &other.merged {
            self.merged.entry(key.clone()).or_default().extend(merged.iter().cloned());
        }
        Ok(())
    }

    /// The places of the keys of players, whose aliases the tables list
    /// (none unless names were read through aliases).
    fn aliased_keys(&self) -> Vec<usize> {
        let players = [GroupKey::White, GroupKey::Black, GroupKey::Player].map(|key| key.name());
        if !self.aliased {
            return Vec::new();
        }
        self.by.iter().enumerate().filter(|(_, name)| players.contains(name)).map(|(i, _)| i).collect()
    }

    /// The aliases merged into the group of `key` under its `i`-th key, in
    /// order.
    fn merged_at<'a>(&'a self, key: &[String], i: usize) -> impl Iterator<Item = &'a str> + 'a {
        self.merged.get(key).into_iter().flatten().filter(move |(at, _)| *at == i).map(|(_, alias)| alias.as_str())
    }

    /// The games of all the groups (a game grouped by player counts once
    /// per side); `None` when not grouped.
    ///
    /// # Errors
    ///
    /// The sum does not fit in 64 bits.
    pub fn games(&self) -> Result<Option<u64>, String> {
        if self.is_empty() {
            return Ok(None);
        }
        self.groups.values().try_fold(0, |sum, g| add(sum, g.games)).map(Some)
    }

    /// Whether a game is in two groups, one per player.
    pub fn by_player(&self) -> bool {
        self.by.iter().any(|key| *key == GroupKey::Player.name())
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
                let mut row = json!({
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
                });
                if self.aliased {
                    let merged: Vec<Vec<&str>> = (0..key.len()).map(|i| self.merged_at(key, i).collect()).collect();
                    row["aliases"] = json!(merged);
                }
                row
            })
            .collect();
        let mut json = json!({"by": self.by, "filtered": selection.filters(), "rows": rows});
        if self.aliased {
            json["aliased"] = json!(true);
        }
        json
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
        let aliased = value["aliased"].as_bool() == Some(true);
        let mut groups = Groups { by, aliased, ..Groups::default() };
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
            g.check().map_err(|err| format!("group {key:?}: {err}"))?;
            if aliased {
                let merged: Vec<Vec<String>> = serde_json::from_value(row["aliases"].clone())
                    .ok()
                    .filter(|merged: &Vec<Vec<String>>| merged.len() == key.len())
                    .ok_or_else(|| format!("group {key:?} has no `aliases` for each of its keys"))?;
                let merged: BTreeSet<(usize, String)> = merged
                    .into_iter()
                    .enumerate()
                    .flat_map(|(i, list)| list.into_iter().map(move |a| (i, a)))
                    .collect();
                if !merged.is_empty() {
                    groups.merged.insert(key.clone(), merged);
                }
            }
            if groups.groups.insert(key.clone(), g).is_some() {
                return Err(format!("group {key:?} is there twice"));
            }
        }
        Ok(groups)
    }

    /// The groups `selection` picks as a table for CSV or text, each row
    /// formatted when it is asked for: a table of 100,000 players held
    /// whole, cells as strings, took hundreds of megabytes.
    pub fn table(&self, selection: Selection) -> Table<'_> {
        Table { groups: self, aliased: self.aliased_keys(), rows: self.selected(selection) }
    }
}

/// The numbers of each row after its key, in order; then one count per
/// termination.
const TABLE_COLUMNS: [&str; 8] =
    ["games", "wins", "draws", "losses", "score_pct", "mean_plies", "avg_opponent_elo", "performance"];

/// A header and one row per group picked, for CSV or a text table
/// ([`Groups::table`]).
#[derive(Debug)]
pub struct Table<'a> {
    groups: &'a Groups,
    /// The places of the keys whose aliases have a column (`KEY_aliases`).
    aliased: Vec<usize>,
    rows: Vec<(&'a Vec<String>, &'a GroupStats)>,
}

impl Table<'_> {
    /// The column names: the keys, the aliases merged under the keys of
    /// players (with aliases only), the numbers, the terminations.
    pub fn header(&self) -> Vec<String> {
        let mut header = self.groups.by.to_vec();
        header.extend(self.aliased.iter().map(|&i| format!("{}_aliases", self.groups.by[i])));
        header.extend(TABLE_COLUMNS.map(str::to_owned));
        header.extend(TERMINATIONS.map(str::to_owned));
        header
    }

    /// How many cells a row starts with that are text from the games (its
    /// group's key, the aliases merged); the cells after them are numbers.
    pub fn key_cells(&self) -> usize {
        self.groups.by.len() + self.aliased.len()
    }

    /// The groups picked.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no group is picked.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The cells of group `i` (in the selection's order), written over
    /// `cells`: its strings are reused, so writing a table allocates
    /// nothing per row.
    ///
    /// # Panics
    ///
    /// `i` is not below [`Table::len`].
    pub fn row(&self, i: usize, cells: &mut Vec<String>) {
        use std::fmt::Write;
        let (key, g) = self.rows[i];
        cells.resize(self.key_cells() + TABLE_COLUMNS.len() + TERMINATIONS.len(), String::new());
        let (keys, numbers) = cells.split_at_mut(self.key_cells());
        let (keys, aliases) = keys.split_at_mut(key.len());
        for (cell, part) in keys.iter_mut().zip(key) {
            cell.clone_from(part);
        }
        for (cell, &at) in aliases.iter_mut().zip(&self.aliased) {
            cell.clear();
            for (n, alias) in self.groups.merged_at(key, at).enumerate() {
                if n > 0 {
                    cell.push('|');
                }
                cell.push_str(alias);
            }
        }
        let counts = [g.games, g.wins, g.draws, g.losses];
        let decimals = [g.score_pct(), g.mean_plies(), g.opponent_elo(), g.performance()];
        let (counts_cells, rest) = numbers.split_at_mut(counts.len());
        let (decimal_cells, termination_cells) = rest.split_at_mut(decimals.len());
        for (cell, n) in counts_cells.iter_mut().zip(counts).chain(termination_cells.iter_mut().zip(g.terminations)) {
            cell.clear();
            let _ = write!(cell, "{n}");
        }
        for (cell, x) in decimal_cells.iter_mut().zip(decimals) {
            cell.clear();
            if let Some(x) = x {
                let _ = write!(cell, "{x}");
            }
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
