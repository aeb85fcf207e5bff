//! Statistics over many games that merge exactly: every count and the
//! exact game-length histogram are kept, and means, percentiles and rates
//! are derived from them, so the partials of shards add up to the run over
//! the whole.

mod count;
pub mod groups;
pub mod svg;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use shakmaty::{Color, Move, Role};

use self::{
    count::{add, too_many},
    groups::{GroupKey, GroupRow, Groups, Selection},
};
use crate::{
    aliases::Aliases,
    check::KeptTags,
    game::Game,
    openings::Openings,
    report::{Code, DrawReason, TERMINATIONS, Termination},
    tag_values::elo,
};

/// The layout of the JSON partial that [`Stats::to_json`] writes and
/// [`Stats::from_json`] reads: a partial of another version is refused, not
/// misread.
pub const VERSION: u64 = 2;

/// The versions [`Stats::from_json`] reads. Version 1 wrote White's score
/// as `white_score`, a fraction; its counts, all that a merge reads, are
/// version 2's, so partials of an older pgnkit still merge.
pub const VERSIONS_READ: [u64; 2] = [1, 2];

/// The four results, in output order.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// What one game adds to the statistics: small, so the worker threads hand
/// it to the adding thread cheaply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFacts {
    plies: u32,
    valid: bool,
    /// Not replayed and without an error (an unsupported variant).
    unchecked: bool,
    /// Index into [`RESULTS`].
    result: usize,
    termination: Option<Termination>,
    draw_reason: Option<DrawReason>,
    /// Per side: castled short, castled long.
    castled: [(bool, bool); 2],
    /// Promotions to queen, rook, bishop, knight.
    promotions: [u32; 4],
    en_passant: u32,
    checks: u32,
    white_elo: Option<u32>,
    black_elo: Option<u32>,
    /// The codes of the game's findings.
    codes: Vec<Code>,
    /// The game as its groups see it (`--by`).
    groups: Vec<GroupRow>,
}

impl GameFacts {
    /// The tags [`GameFacts::of`] reads, grouping by `by` (all of them for
    /// a `tag:NAME` key).
    pub fn tags_needed(by: &[GroupKey]) -> KeptTags {
        let mut tags = vec!["WhiteElo", "BlackElo"];
        for key in by {
            let Some(names) = key.tags() else { return KeptTags::All };
            for name in names {
                if !tags.contains(name) {
                    tags.push(name);
                }
            }
        }
        KeptTags::named(&tags)
    }

    /// The facts of a game read with its tags (for the Elo ratings and the
    /// groups), and its rows in the groups of `by` (openings named from
    /// `openings` when given, players' names read through `aliases`).
    pub fn of(game: &Game, by: &[GroupKey], openings: Option<&Openings>, aliases: Option<&Aliases>) -> GameFacts {
        let report = &game.report;
        let mut facts = GameFacts {
            plies: game.mainline.nodes.len() as u32,
            valid: report.valid,
            unchecked: report.unchecked(),
            result: RESULTS.iter().position(|&r| r == game.result).unwrap_or(3),
            termination: report.termination,
            draw_reason: report.draw_reason,
            checks: game.checks.unwrap_or(0),
            white_elo: elo(game.tags.get("WhiteElo")),
            black_elo: elo(game.tags.get("BlackElo")),
            codes: report.diagnostics.iter().map(|d| d.code).collect(),
            groups: if by.is_empty() { Vec::new() } else { crate::stats::groups::rows(game, by, openings, aliases) },
            ..GameFacts::default()
        };
        if let Some(start) = &game.start {
            let mut turn = shakmaty::Position::turn(start);
            for node in &game.mainline.nodes {
                let side = usize::from(turn == Color::Black);
                match node.step {
                    Some(Move::Castle { king, rook }) => {
                        if rook < king {
                            facts.castled[side].1 = true;
                        } else {
                            facts.castled[side].0 = true;
                        }
                    }
                    Some(Move::EnPassant { .. }) => facts.en_passant += 1,
                    Some(Move::Normal { promotion: Some(role), .. }) => {
                        let index = match role {
                            Role::Queen => 0,
                            Role::Rook => 1,
                            Role::Bishop => 2,
                            _ => 3,
                        };
                        facts.promotions[index] += 1;
                    }
                    _ => {}
                }
                turn = !turn;
            }
        }
        facts
    }
}

/// Sums that make means (of Elo ratings and their differences).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sum {
    count: u64,
    total: i64,
}

impl Sum {
    fn add(&mut self, value: i64) {
        self.count += 1;
        self.total += value;
    }

    fn merge(&mut self, other: Sum) -> Result<(), String> {
        self.count = add(self.count, other.count)?;
        self.total = self.total.checked_add(other.total).ok_or_else(too_many)?;
        Ok(())
    }

    /// How many values were added (games with the rating).
    pub fn count(self) -> u64 {
        self.count
    }

    /// The values added up.
    pub fn total(self) -> i64 {
        self.total
    }

    /// The mean to two decimals, as every output states it; `None` without values.
    pub fn mean(self) -> Option<f64> {
        (self.count > 0).then(|| round2(self.total as f64 / self.count as f64))
    }

    fn to_json(self) -> Value {
        json!({"games": self.count(), "sum": self.total(), "mean": self.mean()})
    }

    /// `positive`: every value added is a rating (at least 1), not a
    /// difference of two.
    fn from_json(value: &Value, name: &str, positive: bool) -> Result<Sum, String> {
        let sum = Sum {
            count: count(value, "games").map_err(|err| format!("`{name}`: {err}"))?,
            total: value["sum"].as_i64().ok_or_else(|| format!("`{name}.sum` is missing or not a whole number"))?,
        };
        // Each value is a rating tag that fits in 32 bits.
        let max = i128::from(sum.count) * i128::from(u32::MAX);
        let min = if positive { i128::from(sum.count) } else { -max };
        if !(min..=max).contains(&i128::from(sum.total)) {
            return Err(format!("`{name}.sum` {} cannot be the sum of {} ratings", sum.total, sum.count));
        }
        Ok(sum)
    }
}

/// The games of each result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Results {
    /// `1-0`.
    pub white_wins: u64,
    /// `0-1`.
    pub black_wins: u64,
    /// `1/2-1/2`.
    pub draws: u64,
    /// `*`, and any Result tag that is none of the others.
    pub unfinished: u64,
}

impl Results {
    /// Each result as the Result tag writes it, with its games, in output order.
    pub fn by_tag(self) -> [(&'static str, u64); 4] {
        let counts = [self.white_wins, self.black_wins, self.draws, self.unfinished];
        std::array::from_fn(|i| (RESULTS[i], counts[i]))
    }

    /// Games won by either side or drawn.
    pub fn finished(self) -> u64 {
        self.white_wins + self.black_wins + self.draws
    }

    /// White's score over the finished games (wins plus half the draws), a
    /// fraction to four decimals (`white_score_pct` is it in percent); `None`
    /// when none finished.
    pub fn white_score(self) -> Option<f64> {
        let finished = self.finished();
        (finished > 0).then(|| round4((self.white_wins as f64 + self.draws as f64 / 2.0) / finished as f64))
    }

    /// The share of the finished games that were won, to four decimals;
    /// `None` when none finished.
    pub fn decisive_rate(self) -> Option<f64> {
        let finished = self.finished();
        (finished > 0).then(|| round4((self.white_wins + self.black_wins) as f64 / finished as f64))
    }
}

/// What the game lengths come to, in plies.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LengthSummary {
    /// The mean to two decimals, as every output states it.
    pub mean: Option<f64>,
    /// The median (nearest rank, as the percentiles).
    pub median: Option<u32>,
    /// The 10th percentile.
    pub p10: Option<u32>,
    /// The 25th percentile.
    pub p25: Option<u32>,
    /// The 75th percentile.
    pub p75: Option<u32>,
    /// The 90th percentile.
    pub p90: Option<u32>,
    /// The longest game.
    pub longest: Option<u32>,
}

/// Statistics over any number of games.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    games: u64,
    plies: u64,
    valid_games: u64,
    unchecked_games: u64,
    results: [u64; 4],
    terminations: BTreeMap<&'static str, u64>,
    draw_reasons: BTreeMap<&'static str, u64>,
    /// Games by length in plies (exact, so percentiles merge exactly).
    lengths: BTreeMap<u32, u64>,
    /// Per side: games castled short, castled long, not castled.
    castling: [[u64; 3]; 2],
    promotions: [u64; 4],
    en_passant: u64,
    checks: u64,
    white_elo: Sum,
    black_elo: Sum,
    elo_difference: Sum,
    diagnostics: BTreeMap<String, u64>,
    groups: Groups,
}

/// Keys of the draw reasons object.
const DRAW_REASONS: [&str; 7] = [
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
    "fifty_moves",
    "threefold_repetition",
    "perpetual_check",
];

const PROMOTIONS: [&str; 4] = ["queen", "rook", "bishop", "knight"];
const SIDES: [&str; 2] = ["white", "black"];
const CASTLING: [&str; 3] = ["short", "long", "none"];

impl Stats {
    /// No games yet; grouped by `by` (nothing when empty).
    pub fn new(by: &[GroupKey]) -> Stats {
        Stats { groups: Groups::new(by), ..Stats::default() }
    }

    /// The same, for players' names read through aliases: the tables of
    /// groups list the aliases merged into each.
    #[must_use]
    pub fn aliased(self) -> Stats {
        Stats { groups: self.groups.aliased(), ..self }
    }

    /// No games yet, grouped as `self` is: a partial to [`Stats::merge`]
    /// into it.
    pub fn empty_like(&self) -> Stats {
        Stats { groups: self.groups.empty_like(), ..Stats::default() }
    }

    /// Adds one game.
    pub fn add(&mut self, facts: &GameFacts) {
        self.games += 1;
        self.plies += u64::from(facts.plies);
        self.valid_games += u64::from(facts.valid);
        self.unchecked_games += u64::from(facts.unchecked);
        self.results[facts.result] += 1;
        let termination = facts.termination.map_or("none", Termination::as_str);
        *self.terminations.entry(termination).or_default() += 1;
        if let Some(reason) = facts.draw_reason {
            *self.draw_reasons.entry(reason.as_str()).or_default() += 1;
        }
        *self.lengths.entry(facts.plies).or_default() += 1;
        for (side, &(short, long)) in facts.castled.iter().enumerate() {
            let index = if short {
                0
            } else if long {
                1
            } else {
                2
            };
            self.castling[side][index] += 1;
        }
        for (total, &n) in self.promotions.iter_mut().zip(&facts.promotions) {
            *total += u64::from(n);
        }
        self.en_passant += u64::from(facts.en_passant);
        self.checks += u64::from(facts.checks);
        if let Some(elo) = facts.white_elo {
            self.white_elo.add(i64::from(elo));
        }
        if let Some(elo) = facts.black_elo {
            self.black_elo.add(i64::from(elo));
        }
        if let (Some(white), Some(black)) = (facts.white_elo, facts.black_elo) {
            self.elo_difference.add(i64::from(white) - i64::from(black));
        }
        for code in &facts.codes {
            *self.diagnostics.entry(code.as_str().to_owned()).or_default() += 1;
        }
        for row in &facts.groups {
            self.groups.add(row);
        }
    }

    /// Adds the games of `other`, as if they had been read here.
    ///
    /// # Errors
    ///
    /// The two are grouped by different keys, or a count would not fit in
    /// 64 bits; `self` is then partly merged, to be dropped (copying it
    /// first would cost each batch of a run the whole table of groups).
    pub fn merge(&mut self, other: &Stats) -> Result<(), String> {
        self.groups.merge(&other.groups)?;
        self.games = add(self.games, other.games)?;
        self.plies = add(self.plies, other.plies)?;
        self.valid_games = add(self.valid_games, other.valid_games)?;
        self.unchecked_games = add(self.unchecked_games, other.unchecked_games)?;
        add_each(&mut self.results, &other.results)?;
        add_map(&mut self.terminations, &other.terminations)?;
        add_map(&mut self.draw_reasons, &other.draw_reasons)?;
        add_map(&mut self.lengths, &other.lengths)?;
        for (a, b) in self.castling.iter_mut().zip(&other.castling) {
            add_each(a, b)?;
        }
        add_each(&mut self.promotions, &other.promotions)?;
        self.en_passant = add(self.en_passant, other.en_passant)?;
        self.checks = add(self.checks, other.checks)?;
        self.white_elo.merge(other.white_elo)?;
        self.black_elo.merge(other.black_elo)?;
        self.elo_difference.merge(other.elo_difference)?;
        add_map(&mut self.diagnostics, &other.diagnostics)?;
        Ok(())
    }

    /// The groups (`--by`).
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// The games read.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The plies of all the games' main lines.
    pub fn plies(&self) -> u64 {
        self.plies
    }

    /// The games replayed without errors.
    pub fn valid_games(&self) -> u64 {
        self.valid_games
    }

    /// The games with errors.
    pub fn invalid_games(&self) -> u64 {
        self.games - self.valid_games - self.unchecked_games
    }

    /// The games neither valid nor invalid: not replayed, without an error
    /// (an unsupported variant).
    pub fn unchecked_games(&self) -> u64 {
        self.unchecked_games
    }

    /// The games of each result.
    pub fn results(&self) -> Results {
        let [white_wins, black_wins, draws, unfinished] = self.results;
        Results { white_wins, black_wins, draws, unfinished }
    }

    /// The games whose final position each rule holds in, named as
    /// [`Termination::as_str`] names them, then `none`: every one, in output
    /// order.
    pub fn terminations(&self) -> [(&'static str, u64); 8] {
        TERMINATIONS.map(|key| (key, self.terminations.get(key).copied().unwrap_or(0)))
    }

    /// The drawn games by why the board says they were drawn, named as
    /// [`DrawReason::as_str`] names them: every reason, in output order.
    pub fn draw_reasons(&self) -> [(&'static str, u64); 7] {
        DRAW_REASONS.map(|key| (key, self.draw_reasons.get(key).copied().unwrap_or(0)))
    }

    /// The games by length in plies.
    pub fn lengths(&self) -> &BTreeMap<u32, u64> {
        &self.lengths
    }

    /// The games per 10 plies, keyed by the shortest length of each bucket.
    pub fn length_histogram(&self) -> BTreeMap<u32, u64> {
        let mut buckets: BTreeMap<u32, u64> = BTreeMap::new();
        for (&plies, &n) in &self.lengths {
            *buckets.entry(plies / 10 * 10).or_default() += n;
        }
        buckets
    }

    /// The length of the game at `fraction` of the way through the games
    /// sorted by length (nearest rank); `None` without games.
    pub fn length_percentile(&self, fraction: f64) -> Option<u32> {
        if self.games == 0 {
            return None;
        }
        let rank = ((fraction * self.games as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (&plies, &n) in &self.lengths {
            seen += n;
            if seen >= rank {
                return Some(plies);
            }
        }
        None
    }

    /// The mean, median, percentiles and longest of the game lengths.
    pub fn length(&self) -> LengthSummary {
        LengthSummary {
            mean: (self.games > 0).then(|| round2(self.plies as f64 / self.games as f64)),
            median: self.length_percentile(0.5),
            p10: self.length_percentile(0.1),
            p25: self.length_percentile(0.25),
            p75: self.length_percentile(0.75),
            p90: self.length_percentile(0.9),
            longest: self.lengths.keys().next_back().copied(),
        }
    }

    /// Per side (white, black): the games it castled short, castled long,
    /// and did not castle in.
    pub fn castling(&self) -> [[u64; 3]; 2] {
        self.castling
    }

    /// Promotions to queen, rook, bishop and knight.
    pub fn promotions(&self) -> [u64; 4] {
        self.promotions
    }

    /// Promotions to anything but a queen.
    pub fn underpromotions(&self) -> u64 {
        self.promotions[1..].iter().sum()
    }

    /// En passant captures.
    pub fn en_passant(&self) -> u64 {
        self.en_passant
    }

    /// Moves that gave check.
    pub fn checks(&self) -> u64 {
        self.checks
    }

    /// White's ratings, over the games with a WhiteElo.
    pub fn white_elo(&self) -> Sum {
        self.white_elo
    }

    /// Black's ratings, over the games with a BlackElo.
    pub fn black_elo(&self) -> Sum {
        self.black_elo
    }

    /// White's rating less Black's, over the games with both.
    pub fn elo_difference(&self) -> Sum {
        self.elo_difference
    }

    /// The games with each finding, by its code.
    pub fn diagnostics(&self) -> &BTreeMap<String, u64> {
        &self.diagnostics
    }

    /// The statistics as JSON: every count needed to merge, then what is
    /// derived from them; the groups `selection` picks.
    pub fn to_json(&self, selection: Selection) -> Value {
        let results = self.results();
        let elo = json!({
            "white": self.white_elo().to_json(),
            "black": self.black_elo().to_json(),
            "difference": self.elo_difference().to_json(),
        });
        let mut json = json!({
            "games": self.games(),
            "plies": self.plies(),
            "valid_games": self.valid_games(),
            "invalid_games": self.invalid_games(),
            "unchecked_games": self.unchecked_games(),
            "results": counts_json(results.by_tag()),
            "white_score_pct": results.white_score().map(|score| round2(100.0 * score)),
            "decisive_rate": results.decisive_rate(),
            "terminations": counts_json(self.terminations()),
            "draw_reasons": counts_json(self.draw_reasons()),
            "length": self.length_json(),
            "castling": self.castling_json(),
            "promotions": self.promotions_json(),
            "en_passant": self.en_passant(),
            "checks": self.checks(),
            "elo": elo,
            "diagnostics": self.diagnostics(),
        });
        if !self.groups.is_empty() {
            json["groups"] = self.groups.to_json(selection);
        }
        json["version"] = json!(VERSION);
        json
    }

    /// The `length` object of [`Stats::to_json`].
    fn length_json(&self) -> Value {
        let length = self.length();
        json!({
            "mean": length.mean,
            "median": length.median,
            "p10": length.p10,
            "p25": length.p25,
            "p75": length.p75,
            "p90": length.p90,
            "max": length.longest,
            "histogram": by_plies_json(&self.length_histogram()),
            "by_plies": by_plies_json(self.lengths()),
        })
    }

    /// The `castling` object of [`Stats::to_json`].
    fn castling_json(&self) -> Value {
        let sides = SIDES.iter().zip(self.castling()).map(|(side, counts)| {
            let counts = counts_json(CASTLING.iter().copied().zip(counts));
            ((*side).to_owned(), Value::Object(counts))
        });
        Value::Object(sides.collect())
    }

    /// The `promotions` object of [`Stats::to_json`].
    fn promotions_json(&self) -> Value {
        let mut promotions = counts_json(PROMOTIONS.iter().copied().zip(self.promotions()));
        promotions.insert("underpromotions".to_owned(), json!(self.underpromotions()));
        Value::Object(promotions)
    }

    /// Reads statistics written by [`Stats::to_json`] (a partial to merge).
    ///
    /// # Errors
    ///
    /// A version not in [`VERSIONS_READ`], a field missing or of the wrong
    /// type, or counts that do not add up (see `Stats::check`), named.
    pub fn from_json(value: &Value) -> Result<Stats, String> {
        let stats = Stats::from_json_unchecked(value)?;
        let invalid = count(value, "invalid_games")?;
        stats.check()?;
        if invalid != stats.invalid_games() {
            return Err(format!(
                "valid_games {} + invalid_games {invalid} + unchecked_games {} is not games {}",
                stats.valid_games, stats.unchecked_games, stats.games
            ));
        }
        Ok(stats)
    }

    /// [`Stats::from_json`] without the checks that the counts agree: for
    /// tests that draw odd counts.
    pub(crate) fn from_json_unchecked(value: &Value) -> Result<Stats, String> {
        match value.get("version") {
            None => return Err("it has no `version` (pgnkit's partials have one)".to_owned()),
            Some(version) if !version.as_u64().is_some_and(|v| VERSIONS_READ.contains(&v)) => {
                let read = VERSIONS_READ.map(|v| v.to_string()).join(", ");
                return Err(format!("its version {version} is not one this pgnkit reads ({read})"));
            }
            Some(_) => {}
        }
        let mut stats = Stats {
            games: count(value, "games")?,
            plies: count(value, "plies")?,
            valid_games: count(value, "valid_games")?,
            unchecked_games: count(value, "unchecked_games")?,
            en_passant: count(value, "en_passant")?,
            checks: count(value, "checks")?,
            ..Stats::default()
        };
        for (i, key) in RESULTS.iter().enumerate() {
            stats.results[i] = count(&value["results"], key)?;
        }
        for key in TERMINATIONS {
            insert_count(&mut stats.terminations, key, count(&value["terminations"], key)?);
        }
        for key in DRAW_REASONS {
            insert_count(&mut stats.draw_reasons, key, count(&value["draw_reasons"], key)?);
        }
        let lengths = value["length"]["by_plies"].as_object().ok_or("`length.by_plies` is missing")?;
        for (plies, n) in lengths {
            let plies: u32 = plies.parse().map_err(|_| format!("`length.by_plies` has a key `{plies}`"))?;
            stats.lengths.insert(plies, n.as_u64().ok_or("`length.by_plies` holds a non-count")?);
        }
        for (side, name) in SIDES.iter().enumerate() {
            for (i, key) in CASTLING.iter().enumerate() {
                stats.castling[side][i] = count(&value["castling"][name], key)?;
            }
        }
        for (i, key) in PROMOTIONS.iter().enumerate() {
            stats.promotions[i] = count(&value["promotions"], key)?;
        }
        stats.white_elo = Sum::from_json(&value["elo"]["white"], "elo.white", true)?;
        stats.black_elo = Sum::from_json(&value["elo"]["black"], "elo.black", true)?;
        stats.elo_difference = Sum::from_json(&value["elo"]["difference"], "elo.difference", false)?;
        let diagnostics = value["diagnostics"].as_object().ok_or("`diagnostics` is missing")?;
        for (code, n) in diagnostics {
            stats.diagnostics.insert(code.clone(), n.as_u64().ok_or("`diagnostics` holds a non-count")?);
        }
        if let Some(groups) = value.get("groups") {
            stats.groups = Groups::from_json(groups)?;
        }
        Ok(stats)
    }

    /// Whether the counts agree with each other as the counts of real games
    /// do: a partial edited by hand, cut, or from another program is
    /// refused rather than merged into nonsense.
    ///
    /// # Errors
    ///
    /// The first count that disagrees, and with what.
    fn check(&self) -> Result<(), String> {
        let games = self.games;
        let same = |what: &str, n: u64| {
            if n == games { Ok(()) } else { Err(format!("{what} add up to {n}, not to games {games}")) }
        };
        let at_most = |what: &str, n: u64, max: u64, of: &str| {
            if n <= max { Ok(()) } else { Err(format!("{what} {n} is more than {of} {max}")) }
        };
        at_most("valid_games + unchecked_games", add(self.valid_games, self.unchecked_games)?, games, "games")?;
        same("the results", total(self.results)?)?;
        same("the terminations", total(self.terminations.values().copied())?)?;
        at_most("the draw reasons", total(self.draw_reasons.values().copied())?, games, "games")?;
        same("the games of `length.by_plies`", total(self.lengths.values().copied())?)?;
        if self.lengths.values().any(|&n| n == 0) {
            return Err("`length.by_plies` holds a length of no games".to_owned());
        }
        let plies = self.lengths.iter().try_fold(0u64, |sum, (&plies, &n)| {
            u64::from(plies).checked_mul(n).ok_or_else(too_many).and_then(|p| add(sum, p))
        })?;
        if plies != self.plies {
            return Err(format!(
                "the lengths of `length.by_plies` add up to {plies} plies, not to plies {}",
                self.plies
            ));
        }
        for (side, counts) in SIDES.iter().zip(self.castling) {
            same(&format!("the castling counts of {side}"), total(counts)?)?;
        }
        // At most one of each per ply of the main line.
        at_most("checks", self.checks, self.plies, "plies")?;
        at_most("en_passant", self.en_passant, self.plies, "plies")?;
        at_most("the promotions", total(self.promotions)?, self.plies, "plies")?;
        at_most("elo.white.games", self.white_elo.count, games, "games")?;
        at_most("elo.black.games", self.black_elo.count, games, "games")?;
        let rated = self.white_elo.count.min(self.black_elo.count);
        at_most("elo.difference.games", self.elo_difference.count, rated, "the games rated on both sides, at most")?;
        if let Some(rows) = self.groups.games()? {
            // Grouped by player, each game is in two rows, one per side.
            let sides = if self.groups.by_player() { 2 } else { 1 };
            let want = games.checked_mul(sides).ok_or_else(too_many)?;
            if rows != want {
                return Err(format!("the groups hold {rows} games, not {want}"));
            }
        }
        Ok(())
    }
}

/// Counts by name as a JSON object, in the order given.
fn counts_json<'a>(counts: impl IntoIterator<Item = (&'a str, u64)>) -> Map<String, Value> {
    counts.into_iter().map(|(key, n)| (key.to_owned(), json!(n))).collect()
}

/// Counts by length in plies as a JSON object (whose keys are strings).
fn by_plies_json(counts: &BTreeMap<u32, u64>) -> Map<String, Value> {
    counts.iter().map(|(plies, n)| (plies.to_string(), json!(n))).collect()
}

fn insert_count(map: &mut BTreeMap<&'static str, u64>, key: &'static str, n: u64) {
    if n > 0 {
        map.insert(key, n);
    }
}

/// Adds `b` into `a`, count by count.
fn add_each(a: &mut [u64], b: &[u64]) -> Result<(), String> {
    for (a, b) in a.iter_mut().zip(b) {
        *a = add(*a, *b)?;
    }
    Ok(())
}

/// Adds the counts of `b` into `a`, key by key.
fn add_map<K: Ord + Clone>(a: &mut BTreeMap<K, u64>, b: &BTreeMap<K, u64>) -> Result<(), String> {
    for (key, n) in b {
        let total = a.entry(key.clone()).or_default();
        *total = add(*total, *n)?;
    }
    Ok(())
}

/// The sum of `counts`, or an error when it does not fit.
fn total(counts: impl IntoIterator<Item = u64>) -> Result<u64, String> {
    counts.into_iter().try_fold(0, add)
}

fn count(value: &Value, key: &str) -> Result<u64, String> {
    value.get(key).and_then(Value::as_u64).ok_or_else(|| format!("`{key}` is missing or not a count"))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::{GameFacts, Stats};
    use crate::stats::groups::{GroupKey, Selection};

    fn stats(pgn: &str) -> Stats {
        grouped(pgn, &[])
    }

    fn grouped(pgn: &str, by: &[&str]) -> Stats {
        let by: Vec<GroupKey> = by.iter().map(|k| GroupKey::parse(k).unwrap()).collect();
        let mut stats = Stats::new(&by);
        for game in crate::check::read_all(pgn) {
            stats.add(&GameFacts::of(&game, &by, None, None));
        }
        stats
    }

    const GAMES: &str = "[WhiteElo \"2000\"]\n[BlackElo \"1800\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                         [Result \"1/2-1/2\"]\n\n1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 e6 5. Be2 Be7 6. O-O O-O 1/2-1/2\n\n\
                         [Result \"*\"]\n\n1. e4 Ke3 *\n";

    #[test]
    fn counts_results_terminations_castling_en_passant_checks_and_elo() {
        let json = stats(GAMES).to_json(Selection::default());
        assert_eq!(json["games"], 3);
        assert_eq!(json["valid_games"], 2);
        assert_eq!(json["results"]["1-0"], 1);
        assert_eq!(json["results"]["1/2-1/2"], 1);
        assert_eq!(json["white_score_pct"], 75.0);
        assert_eq!(json["terminations"]["checkmate"], 1);
        assert_eq!(json["terminations"]["none"], 2);
        assert_eq!(json["castling"]["white"]["short"], 1);
        assert_eq!(json["castling"]["white"]["none"], 2);
        assert_eq!(json["en_passant"], 1);
        assert_eq!(json["checks"], 1);
        assert_eq!(json["elo"]["difference"]["mean"], 200.0);
        assert_eq!(json["diagnostics"]["illegal-move"], 1);
        assert_eq!(json["length"]["median"], 7);
        assert_eq!(json["length"]["histogram"]["10"], 1);
    }

    #[test]
    fn merged_halves_equal_the_whole_and_json_reads_back() {
        let whole = stats(GAMES);
        let split = GAMES.find("[Result \"1/2-1/2\"]").unwrap();
        let mut merged = stats(&GAMES[..split]);
        merged.merge(&stats(&GAMES[split..])).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(Stats::from_json(&whole.to_json(Selection::default())).unwrap(), whole);
    }

    #[test]
    fn a_merge_past_64_bits_is_an_error_and_never_wraps_around() {
        let mut big = Stats { games: u64::MAX, ..Stats::default() };
        assert!(big.merge(&Stats { games: 1, ..Stats::default() }).unwrap_err().contains("too big"));
        let mut elo = Stats { white_elo: super::Sum { count: 1, total: i64::MAX }, ..Stats::default() };
        let more = Stats { white_elo: super::Sum { count: 1, total: 1 }, ..Stats::default() };
        assert!(elo.merge(&more).is_err());
        let mut lengths = Stats { lengths: [(3, u64::MAX)].into(), ..Stats::default() };
        assert!(lengths.merge(&Stats { lengths: [(3, 1)].into(), ..Stats::default() }).is_err());
    }

    #[test]
    fn a_partial_whose_counts_do_not_agree_is_refused_and_names_what_disagrees() {
        let json = stats(GAMES).to_json(Selection::default());
        let refused = |edit: fn(&mut serde_json::Value)| {
            let mut json = json.clone();
            edit(&mut json);
            Stats::from_json(&json).unwrap_err()
        };
        assert!(refused(|j| j["games"] = u64::MAX.into()).contains("the results add up to 3, not to games"));
        assert!(refused(|j| j["valid_games"] = 4.into()).contains("valid_games + unchecked_games 4"));
        assert!(refused(|j| j["terminations"]["none"] = 5.into()).contains("the terminations add up to 6"));
        assert!(refused(|j| j["length"]["by_plies"]["7"] = 0.into()).contains("by_plies"));
        assert!(refused(|j| j["castling"]["black"]["long"] = 1.into()).contains("castling counts of black"));
        assert!(refused(|j| j["elo"]["difference"]["games"] = 2.into()).contains("elo.difference.games 2"));
        assert!(refused(|j| j["elo"]["white"]["sum"] = (-5).into()).contains("`elo.white.sum` -5"));
        assert!(refused(|j| j["version"] = "1".into()).contains("version \"1\""));
        assert!(refused(|j| j["version"] = 3.into()).contains("version 3 is not one this pgnkit reads (1, 2)"));
    }

    #[test]
    fn a_version_1_partial_with_white_score_as_a_fraction_reads_as_the_same_counts() {
        let stats = stats(GAMES);
        let mut old = stats.to_json(Selection::default());
        let object = old.as_object_mut().unwrap();
        object.remove("white_score_pct");
        object.insert("white_score".to_owned(), 0.75.into());
        object.insert("version".to_owned(), 1.into());
        let read = Stats::from_json(&old).unwrap();
        assert_eq!(read, stats);
        assert_eq!(read.to_json(Selection::default())["version"], 2);
    }

    #[test]
    fn a_group_whose_counts_do_not_agree_is_refused() {
        let json = grouped(GAMES, &["player"]).to_json(Selection::default());
        assert!(Stats::from_json(&json).is_ok());
        let refused = |edit: fn(&mut serde_json::Value)| {
            let mut json = json.clone();
            edit(&mut json);
            Stats::from_json(&json).unwrap_err()
        };
        assert!(refused(|j| j["groups"]["rows"][0]["wins"] = 9.into()).contains("wins + draws + losses"));
        assert!(refused(|j| j["groups"]["rows"][0]["rated_balance"] = (-9).into()).contains("rated_balance -9"));
        assert!(refused(|j| drop(j["groups"]["rows"].as_array_mut().unwrap().pop())).contains("the groups hold"));
    }

    #[test]
    fn groups_by_player_count_each_game_for_both_sides_and_merge_exactly() {
        let pgn = "[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2000\"]\n[BlackElo \"1800\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
                   [White \"B\"]\n[Black \"A\"]\n[WhiteElo \"1800\"]\n[BlackElo \"2000\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n\
                   [White \"C\"]\n[Black \"A\"]\n[Result \"0-1\"]\n\n1. c4 0-1\n";
        let whole = grouped(pgn, &["player"]);
        let json = whole.to_json(Selection::default());
        let rows = json["groups"]["rows"].as_array().unwrap();
        let a = rows.iter().find(|r| r["key"][0] == "A").unwrap();
        assert_eq!((a["games"].as_u64(), a["wins"].as_u64(), a["draws"].as_u64()), (Some(3), Some(2), Some(1)));
        assert_eq!(a["avg_opponent_elo"], 1800.0);
        // 1800 + 400 * (1 win - 0 losses) / 2 rated games.
        assert_eq!(a["performance"], 2000.0);
        let split = pgn.find("[White \"C\"]").unwrap();
        let mut merged = grouped(&pgn[..split], &["player"]);
        merged.merge(&grouped(&pgn[split..], &["player"])).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(Stats::from_json(&json).unwrap(), whole);
        let top = whole.to_json(Selection { top: Some(1), ..Selection::default() });
        assert!(Stats::from_json(&top).unwrap_err().contains("filtered"));
    }

    #[test]
    fn each_row_of_the_table_holds_the_numbers_of_its_group_in_the_json() {
        let pgn = "[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2000\"]\n[BlackElo \"1800\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
                   [White \"B\"]\n[Black \"A\"]\n[BlackElo \"2013\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n\
                   [White \"C\"]\n[Black \"A\"]\n[Result \"*\"]\n\n1. c4 *\n";
        let stats = grouped(pgn, &["player", "result"]);
        let selection = Selection { sort: crate::stats::groups::SortBy::Score, ..Selection::default() };
        let json = stats.to_json(selection);
        let rows = json["groups"]["rows"].as_array().unwrap();
        let table = stats.groups().table(selection);
        assert_eq!(table.len(), rows.len());
        let header = table.header();
        assert_eq!(header[..2], ["player", "result"]);
        let mut cells = vec!["left over".to_owned(); 40];
        for (i, row) in rows.iter().enumerate() {
            table.row(i, &mut cells);
            assert_eq!(cells.len(), header.len());
            assert_eq!(cells[..2], row["key"].as_array().unwrap()[..]);
            for (name, cell) in header.iter().zip(&cells).skip(2) {
                let value = row.get(name).or_else(|| row["terminations"].get(name)).unwrap();
                // A whole number as a number (`75`, where JSON writes `75.0`), none as an empty cell.
                assert_eq!(cell.parse::<f64>().ok(), value.as_f64(), "{name} of {:?}", row["key"]);
            }
        }
    }
}
