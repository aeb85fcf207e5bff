//! Standings from game results: who played whom, how they scored, and a
//! rating for each player under one of three schemes: FIDE's Elo rules
//! ([`elo`]), the club points scheme ([`club`]) or maximum likelihood over
//! all games at once ([`ml`]).
//!
//! The command reads each game's tags ([`GameTags::read`]) and hands them to
//! a [`Ledger`], which keeps the rated games (players interned, aliases
//! merged) and counts the others. A scheme then turns the ledger into a
//! [`Table`]: one [`Standing`] per player and, for the schemes that rate
//! game by game, one [`Step`] per game.

pub mod club;
pub mod elo;
pub mod ml;

use std::{collections::HashMap, fmt, sync::Arc};

pub use crate::aliases::Aliases;
use crate::game::Tags;

/// A game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `1-0`.
    WhiteWins,
    /// `1/2-1/2`.
    Draw,
    /// `0-1`.
    BlackWins,
}

impl Outcome {
    /// A Result tag's value; `None` for `*` and anything else.
    pub fn parse(result: &str) -> Option<Outcome> {
        match result.trim() {
            "1-0" => Some(Outcome::WhiteWins),
            "1/2-1/2" => Some(Outcome::Draw),
            "0-1" => Some(Outcome::BlackWins),
            _ => None,
        }
    }

    /// White's score: 1, 0.5 or 0.
    pub fn white_score(self) -> f64 {
        match self {
            Outcome::WhiteWins => 1.0,
            Outcome::Draw => 0.5,
            Outcome::BlackWins => 0.0,
        }
    }

    /// As written in a Result tag.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::Draw => "1/2-1/2",
            Outcome::BlackWins => "0-1",
        }
    }
}

/// A Date tag as a sort key: `year * 10000 + month * 100 + day`, unknown
/// parts (`??`) and unreadable dates counting as 0, so an undated game
/// sorts before every dated one and `2024.05.??` before `2024.05.01`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateKey(u32);

impl DateKey {
    /// Reads `2024.05.17` (also with `-` or `/`), with `?` for unknown parts.
    pub fn parse(date: Option<&str>) -> DateKey {
        let Some(date) = date else { return DateKey(0) };
        let mut parts = date.trim().split(['.', '-', '/']);
        let mut part =
            |max: u32| -> u32 { parts.next().and_then(|p| p.parse::<u32>().ok()).filter(|&n| n <= max).unwrap_or(0) };
        let (year, month, day) = (part(9999), part(12), part(31));
        // A day without its month, or a month without its year, says nothing.
        let month = if year == 0 { 0 } else { month };
        let day = if month == 0 { 0 } else { day };
        DateKey(year * 10000 + month * 100 + day)
    }

    /// The rating period the date falls in (`None`: every game is its own).
    pub fn period(self, period: Period) -> Option<u32> {
        match period {
            Period::Game => None,
            Period::Day => Some(self.0),
            Period::Month => Some(self.0 / 100),
        }
    }
}

impl fmt::Display for DateKey {
    /// As a PGN date: `2024.05.17`, `2024.05.??`, `????.??.??`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = (self.0 / 10000, self.0 / 100 % 100, self.0 % 100);
        let part = |n: u32, width: usize| if n == 0 { "?".repeat(width) } else { format!("{n:0width$}") };
        write!(f, "{}.{}.{}", part(year, 4), part(month, 2), part(day, 2))
    }
}

/// How games are grouped before ratings change ([`elo`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Period {
    /// Ratings change after every game.
    #[default]
    Game,
    /// Games of one day are rated together, from the ratings of its start.
    Day,
    /// Games of one month are rated together.
    Month,
}

/// What rating needs of a game, read from its tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameTags {
    /// The White tag, trimmed; `None` when missing, empty or `?`.
    pub white: Option<String>,
    /// The Black tag, likewise.
    pub black: Option<String>,
    /// The game's result ([`crate::check::game_result`]); `None` for `*`.
    pub outcome: Option<Outcome>,
    /// The Date tag.
    pub date: DateKey,
    /// The WhiteElo tag when it is a positive whole number.
    pub white_elo: Option<u32>,
    /// The BlackElo tag, likewise.
    pub black_elo: Option<u32>,
}

impl GameTags {
    /// The tags rating reads: White, Black, Date, WhiteElo, BlackElo, and
    /// the game's result (the Result tag, else the marker in `game`, its
    /// bytes).
    pub fn read(game: &[u8], tags: &Tags) -> GameTags {
        let name = |tag: &str| tags.get(tag).map(str::trim).filter(|n| !n.is_empty() && *n != "?").map(str::to_owned);
        GameTags {
            white: name("White"),
            black: name("Black"),
            outcome: Outcome::parse(crate::check::result_of(game, tags)),
            date: DateKey::parse(tags.get("Date")),
            white_elo: crate::tag_values::elo(tags.get("WhiteElo")),
            black_elo: crate::tag_values::elo(tags.get("BlackElo")),
        }
    }
}

/// Where a game was read: its input and its 1-based number there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Index into [`Ledger::files`].
    pub file: u32,
    /// 1-based number of the game within its input.
    pub game: u64,
}

/// A game that counts for the ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedGame {
    /// Index into [`Ledger::players`].
    pub white: u32,
    /// Index into [`Ledger::players`].
    pub black: u32,
    /// The result.
    pub outcome: Outcome,
    /// The Date tag.
    pub date: DateKey,
    /// The WhiteElo tag.
    pub white_elo: Option<u32>,
    /// The BlackElo tag.
    pub black_elo: Option<u32>,
    /// Where it was read.
    pub origin: Origin,
}

/// Why a game is not rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unrated {
    /// Its Result is `*`, missing or not a result.
    Unfinished,
    /// White or Black is missing, empty or `?`.
    Unnamed,
    /// The same player (after aliases) on both sides.
    SelfPlay,
    /// It has an error, and only valid games are rated.
    Invalid,
}

/// Games read, and why some were not rated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games read.
    pub games: u64,
    /// Games rated.
    pub rated: u64,
    /// Not rated: result `*`, missing or unreadable.
    pub unfinished: u64,
    /// Not rated: a player's name is missing, empty or `?`.
    pub unnamed: u64,
    /// Not rated: one player on both sides.
    pub self_play: u64,
    /// Not rated: invalid (only counted when only valid games are rated).
    pub invalid: u64,
}

/// The rated games of a run, in input order, and their players.
#[derive(Debug, Default)]
pub struct Ledger {
    aliases: Aliases,
    players: Vec<String>,
    ids: HashMap<String, u32>,
    files: Vec<Arc<str>>,
    games: Vec<RatedGame>,
    counts: Counts,
}

impl Ledger {
    /// An empty ledger that merges the spellings of `aliases`.
    pub fn new(aliases: Aliases) -> Ledger {
        Ledger { aliases, ..Ledger::default() }
    }

    /// Adds the next game in input order: `valid` is `Some(false)` for a
    /// game that must not be rated because it is invalid. Returns why the
    /// game is not rated, if it is not.
    pub fn add(&mut self, file: &Arc<str>, game: u64, tags: &GameTags, valid: Option<bool>) -> Option<Unrated> {
        self.counts.games += 1;
        let why = self.admit(file, game, tags, valid);
        match why {
            None => self.counts.rated += 1,
            Some(Unrated::Invalid) => self.counts.invalid += 1,
            Some(Unrated::Unfinished) => self.counts.unfinished += 1,
            Some(Unrated::Unnamed) => self.counts.unnamed += 1,
            Some(Unrated::SelfPlay) => self.counts.self_play += 1,
        }
        why
    }

    fn admit(&mut self, file: &Arc<str>, game: u64, tags: &GameTags, valid: Option<bool>) -> Option<Unrated> {
        if valid == Some(false) {
            return Some(Unrated::Invalid);
        }
        let Some(outcome) = tags.outcome else { return Some(Unrated::Unfinished) };
        let (Some(white), Some(black)) = (&tags.white, &tags.black) else { return Some(Unrated::Unnamed) };
        let (white, black) = (self.aliases.resolve(white).to_owned(), self.aliases.resolve(black).to_owned());
        if white == black {
            return Some(Unrated::SelfPlay);
        }
        let (white, black) = (self.intern(white), self.intern(black));
        if self.files.last().is_none_or(|last| !Arc::ptr_eq(last, file) && **last != **file) {
            self.files.push(Arc::clone(file));
        }
        let origin = Origin { file: self.files.len() as u32 - 1, game };
        self.games.push(RatedGame {
            white,
            black,
            outcome,
            date: tags.date,
            white_elo: tags.white_elo,
            black_elo: tags.black_elo,
            origin,
        });
        None
    }

    fn intern(&mut self, name: String) -> u32 {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.players.len() as u32;
        self.players.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// Player names, by id.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// Input names, by index.
    pub fn files(&self) -> &[Arc<str>] {
        &self.files
    }

    /// The rated games, in input order.
    pub fn games(&self) -> &[RatedGame] {
        &self.games
    }

    /// What was read and why games were not rated.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Indices of the rated games in the order they are applied: by date,
    /// then input order.
    pub fn in_date_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.games.len()).collect();
        // Stable: games of one date keep their input order.
        order.sort_by_key(|&i| self.games[i].date);
        order
    }
}

/// A player's games, as a scheme counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Record {
    /// Rated games.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// The opponents' ratings (points) summed, each as the game was rated.
    pub opponent_sum: f64,
}

impl Record {
    /// Adds a game scored `score` (1, 0.5, 0) against an opponent rated
    /// `opponent` for this game.
    pub fn add(&mut self, score: f64, opponent: f64) {
        self.games += 1;
        if score > 0.75 {
            self.wins += 1;
        } else if score > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
        self.opponent_sum += opponent;
    }

    /// Points scored: a win 1, a draw 1/2.
    pub fn score(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The score in percent of the games.
    pub fn score_pct(&self) -> Option<f64> {
        (self.games > 0).then(|| 100.0 * self.score() / f64::from(self.games))
    }

    /// The opponents' mean rating.
    pub fn avg_opponent(&self) -> Option<f64> {
        (self.games > 0).then(|| self.opponent_sum / f64::from(self.games))
    }

    /// The opponents' mean plus 400 × (wins − losses) / games: the linear
    /// "rule of 400" that `stats --by player` uses too.
    pub fn performance(&self) -> Option<f64> {
        let mean = self.avg_opponent()?;
        Some(mean + 400.0 * (f64::from(self.wins) - f64::from(self.losses)) / f64::from(self.games))
    }
}

/// One player's line of the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Index into [`Ledger::players`].
    pub player: u32,
    /// The player's games.
    pub record: Record,
    /// The rating (points) before the player's first game.
    pub before: f64,
    /// The rating (points) after the last game: what players are ranked by.
    pub after: f64,
}

/// Both players' ratings around one game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Index into [`Ledger::games`].
    pub game: usize,
    /// White's rating the game was rated at.
    pub white_before: f64,
    /// Black's rating the game was rated at.
    pub black_before: f64,
    /// White's rating after the game (after its rating period, for
    /// [`elo`] with periods longer than a game).
    pub white_after: f64,
    /// Black's rating after the game.
    pub black_after: f64,
    /// The Elo figures of the game.
    pub elo: Option<EloStep>,
}

/// What [`elo`] computed for one game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloStep {
    /// White's expected score.
    pub white_expected: f64,
    /// White's K factor.
    pub white_k: u32,
    /// Black's K factor.
    pub black_k: u32,
}

/// What a game-by-game scheme made of a ledger.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// One per player who has a rated game, by player id.
    pub standings: Vec<Standing>,
    /// One per rated game, in the order the games were applied.
    pub history: Vec<Step>,
}

/// The standings to show: players with at least `min_games` games, highest
/// `after` first, each with a competition rank ("1224": equal ratings share
/// a rank). Ties are listed by name (byte order), so the order never depends
/// on the order of the input.
pub fn ranked<'a>(standings: &'a [Standing], names: &[String], min_games: u32) -> Vec<(u32, &'a Standing)> {
    let mut shown: Vec<&Standing> = standings.iter().filter(|s| s.record.games >= min_games.max(1)).collect();
    shown.sort_by(|a, b| {
        b.after.total_cmp(&a.after).then_with(|| names[a.player as usize].cmp(&names[b.player as usize]))
    });
    let mut out: Vec<(u32, &Standing)> = Vec::with_capacity(shown.len());
    for (index, standing) in shown.into_iter().enumerate() {
        let rank = match out.last() {
            Some(&(rank, last)) if last.after == standing.after => rank,
            _ => index as u32 + 1,
        };
        out.push((rank, standing));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn tags(white: &str, black: &str, result: &str, date: &str) -> GameTags {
        let pgn = format!("[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Date \"{date}\"]\n\n*\n");
        GameTags::read(pgn.as_bytes(), &Tags::scan(pgn.as_bytes()))
    }

    #[test]
    fn results_other_than_the_three_outcomes_are_not_rated() {
        assert_eq!(Outcome::parse(" 1-0 "), Some(Outcome::WhiteWins));
        assert_eq!(Outcome::parse("1/2-1/2"), Some(Outcome::Draw));
        assert_eq!(Outcome::parse("0-1"), Some(Outcome::BlackWins));
        for other in ["*", "", "?", "1/2", "½-½", "0-0"] {
            assert_eq!(Outcome::parse(other), None, "{other}");
        }
    }

    #[test]
    fn a_game_is_rated_by_its_result_the_result_tag_else_the_marker() {
        let read = |pgn: &str| GameTags::read(pgn.as_bytes(), &Tags::scan(pgn.as_bytes())).outcome;
        assert_eq!(read("[Result \"0-0\"]\n\n1. e4 0-1\n"), Some(Outcome::BlackWins));
        assert_eq!(read("[Result \"1-0\"]\n[Result \"1/2-1/2\"]\n\n1. e4 *\n"), Some(Outcome::Draw), "its last value");
        assert_eq!(read("[Result \" 1-0\"]\n\n1. e4 *\n"), None, "a tag that is not exactly a result");
        assert_eq!(read("1. e4 1-0\n"), Some(Outcome::WhiteWins));
    }

    #[test]
    fn dates_sort_with_unknown_parts_first_and_print_back() {
        let keys = ["", "????.??.??", "2024.??.??", "2024.05.??", "2024.05.01", "2024-05-17", "2025.01.01"]
            .map(|d| DateKey::parse(Some(d)));
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
        assert_eq!(keys[0], DateKey::parse(None));
        assert_eq!(keys[5].to_string(), "2024.05.17");
        assert_eq!(keys[3].to_string(), "2024.05.??");
        assert_eq!(keys[1].to_string(), "????.??.??");
        // A day without a month is unknown too.
        assert_eq!(DateKey::parse(Some("2024.??.17")), keys[2]);
        assert_eq!(DateKey::parse(Some("2024.13.01")), keys[2]);
        assert_eq!(keys[5].period(Period::Month), keys[4].period(Period::Month));
        assert_ne!(keys[5].period(Period::Day), keys[4].period(Period::Day));
        assert_eq!(keys[5].period(Period::Game), None);
    }

    #[test]
    fn names_are_trimmed_and_a_missing_empty_or_question_mark_name_is_none() {
        let t = tags("  Alder, Ann ", "?", "1-0", "2024.01.01");
        assert_eq!(t.white.as_deref(), Some("Alder, Ann"));
        assert_eq!(t.black, None);
        assert_eq!(tags("", "B", "1-0", "").white, None);
        let game = b"[Black \"B\"]\n\n1-0\n";
        assert_eq!(GameTags::read(game, &Tags::scan(game)).white, None);
    }

    #[test]
    fn the_ledger_rates_finished_named_games_and_counts_the_others() {
        let file: Arc<str> = Arc::from("a.pgn");
        let mut ledger = Ledger::new(Aliases::parse("alias,name\nAlder A.,Alder\n").unwrap());
        assert_eq!(ledger.add(&file, 1, &tags("Alder", "Baker", "1-0", "2024.01.02"), None), None);
        assert_eq!(ledger.add(&file, 2, &tags("Alder A.", "Baker", "*", ""), None), Some(Unrated::Unfinished));
        assert_eq!(ledger.add(&file, 3, &tags("?", "Baker", "1-0", ""), None), Some(Unrated::Unnamed));
        assert_eq!(ledger.add(&file, 4, &tags("Alder A.", "Alder", "0-1", ""), None), Some(Unrated::SelfPlay));
        assert_eq!(ledger.add(&file, 5, &tags("Baker", "Alder", "0-1", ""), Some(false)), Some(Unrated::Invalid));
        assert_eq!(ledger.add(&file, 6, &tags("Baker", "Alder A.", "1/2-1/2", "2024.01.01"), Some(true)), None);
        let counts = ledger.counts();
        assert_eq!(counts, Counts { games: 6, rated: 2, unfinished: 1, unnamed: 1, self_play: 1, invalid: 1 });
        assert_eq!(ledger.players(), ["Alder", "Baker"]);
        assert_eq!(ledger.games()[1].black, 0);
        assert_eq!(ledger.games()[1].origin, Origin { file: 0, game: 6 });
        assert_eq!(ledger.in_date_order(), [1, 0]);
    }

    #[test]
    fn the_record_counts_scores_and_the_rule_of_400_performance() {
        let mut record = Record::default();
        for (score, opponent) in [(1.0, 1600.0), (0.5, 1500.0), (0.0, 1700.0), (1.0, 1400.0)] {
            record.add(score, opponent);
        }
        assert_eq!((record.wins, record.draws, record.losses), (2, 1, 1));
        assert_eq!(record.score(), 2.5);
        assert_eq!(record.score_pct(), Some(62.5));
        assert_eq!(record.avg_opponent(), Some(1550.0));
        assert_eq!(record.performance(), Some(1550.0 + 100.0));
        assert_eq!(Record::default().performance(), None);
    }

    #[test]
    fn equal_ratings_share_a_rank_and_are_listed_by_name_whatever_their_order() {
        let names: Vec<String> = ["Dunn", "Alder", "Carter", "Baker"].map(String::from).into();
        let standing = |player: u32, after: f64, games: u32| Standing {
            player,
            record: Record { games, ..Record::default() },
            before: 0.0,
            after,
        };
        let standings = [standing(0, 10.0, 2), standing(1, 20.0, 2), standing(2, 10.0, 2), standing(3, 10.0, 1)];
        let show = |standings: &[Standing], min| {
            ranked(standings, &names, min)
                .iter()
                .map(|(r, s)| (*r, names[s.player as usize].as_str()))
                .collect::<Vec<_>>()
        };
        let expected = [(1, "Alder"), (2, "Baker"), (2, "Carter"), (2, "Dunn")];
        assert_eq!(show(&standings, 0), expected);
        let mut reversed = standings.clone();
        reversed.reverse();
        assert_eq!(show(&reversed, 0), expected);
        assert_eq!(show(&standings, 2), [(1, "Alder"), (2, "Carter"), (2, "Dunn")]);
    }
}
