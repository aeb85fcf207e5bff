//! Elo ratings by FIDE's rules (Rating Regulations, section 8.3): games in
//! date order, expected scores from the 400-point logistic curve with
//! differences capped at 400, K factors 40, 20 and 10, and each rating
//! period's change rounded to a whole number.
//!
//! The expected score is the logistic `1 / (1 + 10^(-D/400))`, as the issue
//! asks, not FIDE's printed table (8.1.2), whose values come from a normal
//! curve: the two agree to the hundredth for differences up to about 300
//! points; beyond, the logistic lies below the table by up to 0.015 (at
//! the 400 cap it gives 0.909, the table 0.92). The tests check both.

use super::{EloStep, Ledger, Period, RatedGame, Record, Standing, Step, Table};

/// FIDE 8.3.1: a larger difference counts as 400 points.
pub const MAX_DIFFERENCE: f64 = 400.0;

/// FIDE 8.3.3: no player's K × games in one period exceeds this.
pub const MAX_K_TIMES_GAMES: u32 = 700;

/// How ratings are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EloOptions {
    /// The rating of a player whose first game has no rating tag for them.
    pub initial: u32,
    /// Games rated together, from the ratings at the start of the period.
    pub period: Period,
}

impl Default for EloOptions {
    fn default() -> Self {
        EloOptions { initial: 1500, period: Period::Game }
    }
}

/// The expected score of a player rated `difference` points above the
/// opponent, the difference capped at ±400.
pub fn expected(difference: f64) -> f64 {
    let d = difference.clamp(-MAX_DIFFERENCE, MAX_DIFFERENCE);
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

/// A player as the rating run sees them.
#[derive(Debug, Clone, Copy, Default)]
struct Player {
    rating: i64,
    /// Whether the player's first game gave them a rating: a rated player
    /// is not new to the list, so K = 40 is for those who start at the
    /// default rating.
    rated_on_entry: bool,
    /// Rated games before the current period.
    games: u32,
    /// FIDE 8.3.3: K stays 10 once the rating has reached 2400.
    reached_2400: bool,
    /// The period's expected-score deficit: Σ (score − expected).
    delta: f64,
    /// Games in the current period.
    period_games: u32,
    /// K for the current period.
    k: u32,
}

impl Player {
    /// FIDE 8.3.3: 40 while new to the list and under 30 games, else 10 once
    /// the rating has reached 2400, else 20; then lowered so that K × the
    /// period's games stays within 700.
    fn k(&self) -> u32 {
        let k = if !self.rated_on_entry && self.games < 30 {
            40
        } else if self.reached_2400 {
            10
        } else {
            20
        };
        if self.period_games > 0 && k * self.period_games > MAX_K_TIMES_GAMES {
            MAX_K_TIMES_GAMES / self.period_games
        } else {
            k
        }
    }
}

/// Rates the ledger's games in date order (then input order).
pub fn rate(ledger: &Ledger, options: EloOptions) -> Table {
    let games = ledger.games();
    let order = ledger.in_date_order();
    let mut run = Run::new(games, ledger.players().len(), order.len());
    let mut start = 0;
    while start < order.len() {
        let end = period_end(games, &order, start, options.period);
        run.rate_period(&order[start..end], options.initial);
        start = end;
    }
    run.standings.sort_by_key(|s| s.player);
    Table { standings: run.standings, history: run.history }
}

/// Where the rating period of the game `order[start]` ends in `order`.
fn period_end(games: &[RatedGame], order: &[usize], start: usize, period: Period) -> usize {
    match games[order[start]].date.period(period) {
        None => start + 1,
        Some(key) => start + order[start..].iter().take_while(|&&i| games[i].date.period(period) == Some(key)).count(),
    }
}

/// The players, their standings and the games' steps, as the periods are rated one by one.
struct Run<'a> {
    games: &'a [RatedGame],
    /// By player id, from the period of their first game on.
    players: Vec<Option<Player>>,
    /// In the order the players were met.
    standings: Vec<Standing>,
    /// Each player's index in `standings`, by player id.
    slot: Vec<Option<usize>>,
    history: Vec<Step>,
}

impl<'a> Run<'a> {
    /// A run over `games` between `players` players, with room for `steps` steps.
    fn new(games: &'a [RatedGame], players: usize, steps: usize) -> Self {
        Run {
            games,
            players: vec![None; players],
            standings: Vec::with_capacity(players),
            slot: vec![None; players],
            history: Vec::with_capacity(steps),
        }
    }

    /// Rates the games of one period (indices into the games) from the ratings at its start.
    fn rate_period(&mut self, period: &[usize], initial: u32) {
        let touched = self.enter(period, initial);
        self.start_period(&touched);
        let first_step = self.history.len();
        for &i in period {
            self.play(i);
        }
        self.end_period(&touched);
        self.fill_after(first_step);
    }

    /// Counts each player's games in the period; the players met, in the order met.
    fn enter(&mut self, period: &[usize], initial: u32) -> Vec<u32> {
        // Newcomers take the rating of their first game's tag.
        let mut touched: Vec<u32> = Vec::new();
        for &i in period {
            let game = self.games[i];
            for (id, tag) in [(game.white, game.white_elo), (game.black, game.black_elo)] {
                let player = self.players[id as usize].get_or_insert_with(|| {
                    let rating = tag.unwrap_or(initial);
                    Player {
                        rating: i64::from(rating),
                        rated_on_entry: tag.is_some(),
                        reached_2400: rating >= 2400,
                        ..Player::default()
                    }
                });
                if player.period_games == 0 {
                    touched.push(id);
                }
                player.period_games += 1;
            }
        }
        touched
    }

    /// Fixes the period's K of the players met in it, and lists those new to the standings.
    fn start_period(&mut self, touched: &[u32]) {
        for &id in touched {
            let player = self.players[id as usize].as_mut().expect("met in this period");
            player.k = player.k();
            if self.slot[id as usize].is_none() {
                self.slot[id as usize] = Some(self.standings.len());
                let rating = player.rating as f64;
                self.standings.push(Standing { player: id, record: Record::default(), before: rating, after: rating });
            }
        }
    }

    /// Rates game `i` at the ratings of the period's start: both deficits and records, and its step.
    fn play(&mut self, i: usize) {
        let game = self.games[i];
        let (white, black) =
            (self.players[game.white as usize].expect("met"), self.players[game.black as usize].expect("met"));
        let white_expected = expected((white.rating - black.rating) as f64);
        let white_score = game.outcome.white_score();
        for (id, score, expected, opponent) in [
            (game.white, white_score, white_expected, black.rating),
            (game.black, 1.0 - white_score, 1.0 - white_expected, white.rating),
        ] {
            self.players[id as usize].as_mut().expect("met").delta += score - expected;
            let standing = self.slot[id as usize].expect("listed");
            self.standings[standing].record.add(score, opponent as f64);
        }
        self.history.push(Step {
            game: i,
            white_before: white.rating as f64,
            black_before: black.rating as f64,
            white_after: 0.0,
            black_after: 0.0,
            elo: Some(EloStep { white_expected, white_k: white.k, black_k: black.k }),
        });
    }

    /// Applies the period's change to the players met in it.
    fn end_period(&mut self, touched: &[u32]) {
        for &id in touched {
            let player = self.players[id as usize].as_mut().expect("met in this period");
            // FIDE 8.3.4: the period's change, rounded half away from zero.
            player.rating += (f64::from(player.k) * player.delta).round() as i64;
            player.games += player.period_games;
            player.reached_2400 |= player.rating >= 2400;
            player.delta = 0.0;
            player.period_games = 0;
            self.standings[self.slot[id as usize].expect("listed")].after = player.rating as f64;
        }
    }

    /// Gives the steps from `first_step` on the ratings after their period.
    fn fill_after(&mut self, first_step: usize) {
        for step in &mut self.history[first_step..] {
            let game = self.games[step.game];
            step.white_after = self.players[game.white as usize].expect("met").rating as f64;
            step.black_after = self.players[game.black as usize].expect("met").rating as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ratings::{Aliases, DateKey, GameTags, Outcome};

    /// Published rows of FIDE's table 8.1.2 (rating difference band →
    /// the higher-rated player's expected score).
    const FIDE_ROWS: [(u32, u32, f64); 8] = [
        (0, 3, 0.50),
        (4, 10, 0.51),
        (92, 98, 0.63),
        (99, 106, 0.64),
        (198, 206, 0.76),
        (345, 357, 0.89),
        (358, 374, 0.90),
        (392, 400, 0.92),
    ];

    #[test]
    fn the_logistic_matches_fides_table_to_the_hundredth_up_to_about_300_points() {
        for (low, high, table) in FIDE_ROWS.into_iter().filter(|&(_, high, _)| high <= 300) {
            for d in low..=high {
                // Inside a band the logistic may round to its neighbour at the
                // edges; its middle rounds to the table's value.
                let e = expected(f64::from(d));
                assert!((e - table).abs() <= 0.0101, "{d}: {e} against {table}");
                assert!(e > 0.5 - 1e-12);
            }
            let middle = expected(f64::from(low + high) / 2.0);
            assert_eq!((middle * 100.0).round() / 100.0, table, "{low}-{high}");
        }
    }

    #[test]
    fn the_logistic_lies_below_fides_table_beyond_300_points_by_at_most_0_015() {
        for (low, high, table) in FIDE_ROWS.into_iter().filter(|&(low, _, _)| low > 300) {
            for d in low..=high {
                let e = expected(f64::from(d));
                assert!(e < table && table - e <= 0.015, "{d}: {e} against {table}");
            }
        }
        assert!((expected(400.0) - 0.909_090_909).abs() < 1e-9);
    }

    #[test]
    fn differences_beyond_400_count_as_400_and_the_two_sides_add_up_to_one() {
        assert_eq!(expected(950.0), expected(400.0));
        assert_eq!(expected(-950.0), expected(-400.0));
        assert_eq!(expected(0.0), 0.5);
        for d in [-1000.0, -400.0, -123.0, 0.0, 57.0, 400.0, 600.0] {
            assert!((expected(d) + expected(-d) - 1.0).abs() < 1e-12);
        }
        assert!((expected(100.0) - 0.640_065).abs() < 1e-6);
        assert!((expected(200.0) - 0.759_747).abs() < 1e-6);
    }

    /// White, WhiteElo, Black, BlackElo, result, date.
    type Game<'a> = (&'a str, Option<u32>, &'a str, Option<u32>, Outcome, &'a str);

    fn ledger(games: &[Game<'_>]) -> Ledger {
        let file: Arc<str> = Arc::from("t.pgn");
        let mut ledger = Ledger::new(Aliases::default());
        for (i, &(white, white_elo, black, black_elo, outcome, date)) in games.iter().enumerate() {
            let tags = GameTags {
                white: Some(white.to_owned()),
                black: Some(black.to_owned()),
                outcome: Some(outcome),
                date: DateKey::parse(Some(date)),
                white_elo,
                black_elo,
            };
            ledger.add(&file, i as u64 + 1, &tags, None);
        }
        ledger
    }

    fn ratings(table: &Table) -> Vec<(f64, f64)> {
        table.standings.iter().map(|s| (s.before, s.after)).collect()
    }

    #[test]
    fn a_newcomer_has_k_40_for_30_games_then_20() {
        // A newcomer beats an established 1500 player again and again: each
        // game changes the newcomer's rating by K × (1 − expected).
        let games: Vec<_> = (0..31).map(|_| ("New", None, "Old", Some(1500), Outcome::Draw, "2024.01.01")).collect();
        let table = rate(&ledger(&games), EloOptions::default());
        let ks: Vec<u32> = table.history.iter().map(|s| s.elo.unwrap().white_k).collect();
        assert_eq!(ks[..30], [40; 30]);
        assert_eq!(ks[30], 20);
        // Draws between equal ratings change nothing.
        assert_eq!(ratings(&table), [(1500.0, 1500.0), (1500.0, 1500.0)]);
        assert!(table.history.iter().all(|s| s.elo.unwrap().black_k == 20));
    }

    #[test]
    fn k_is_10_from_2400_and_stays_10_after_falling_below() {
        let games = [
            ("Top", Some(2400), "Low", Some(2350), Outcome::BlackWins, "2024.01.01"),
            ("Top", None, "Low", None, Outcome::BlackWins, "2024.01.02"),
            ("Mid", Some(2392), "Low", None, Outcome::WhiteWins, "2024.01.03"),
            ("Mid", None, "Low", None, Outcome::WhiteWins, "2024.01.04"),
        ];
        let table = rate(&ledger(&games), EloOptions::default());
        let steps: Vec<(u32, u32, f64, f64)> = table
            .history
            .iter()
            .map(|s| (s.elo.unwrap().white_k, s.elo.unwrap().black_k, s.white_after, s.black_after))
            .collect();
        // 2400 − 2350 = 50: Top expected 0.5715; loses: 10 × −0.5715 = −5.7 → −6.
        assert_eq!(steps[0], (10, 20, 2394.0, 2361.0));
        // Top is below 2400 now, and keeps K = 10.
        assert_eq!(steps[1].0, 10);
        // Mid starts under 2400 with K = 20 and reaches it (2392 v 2372,
        // E = 0.5288: +9.42 → 2401): K = 10 after.
        assert_eq!(steps[2].0, 20);
        assert_eq!(steps[2].2, 2401.0);
        assert_eq!(steps[3].0, 10);
    }

    #[test]
    fn a_rating_period_rates_its_games_from_the_ratings_at_its_start() {
        let games = [
            ("A", Some(1600), "B", Some(1500), Outcome::WhiteWins, "2024.01.01"),
            ("A", None, "B", None, Outcome::WhiteWins, "2024.01.20"),
            ("A", None, "B", None, Outcome::BlackWins, "2024.02.01"),
        ];
        let by_game = rate(&ledger(&games), EloOptions::default());
        let by_month = rate(&ledger(&games), EloOptions { period: Period::Month, ..EloOptions::default() });
        // By game: 1600 v 1500, E = 0.6401: +7.20 → +7; then 1607 v 1493,
        // E = 0.6584: +6.83 → +7; then 1614 v 1486, E = 0.6763, a loss:
        // −13.53 → −14.
        assert_eq!(ratings(&by_game), [(1600.0, 1600.0), (1500.0, 1500.0)]);
        let afters: Vec<f64> = by_game.history.iter().map(|s| s.white_after).collect();
        assert_eq!(afters, [1607.0, 1614.0, 1600.0]);
        // By month: January's two games both at 1600 v 1500: 20 × 2 × 0.36
        // = 14.4 → +14; both rows show the rating after January.
        let january: Vec<(f64, f64)> = by_month.history[..2].iter().map(|s| (s.white_before, s.white_after)).collect();
        assert_eq!(january, [(1600.0, 1614.0), (1600.0, 1614.0)]);
        assert_eq!(by_month.history[2].white_before, 1614.0);
    }

    #[test]
    fn k_times_games_in_a_period_stays_within_700() {
        let games: Vec<_> = (0..20).map(|_| ("A", None, "B", None, Outcome::Draw, "2024.01.01")).collect();
        let table = rate(&ledger(&games), EloOptions { period: Period::Day, ..EloOptions::default() });
        // Newcomers (K 40) with 20 games in the day: 40 × 20 > 700, K = 35.
        assert!(table.history.iter().all(|s| s.elo.unwrap().white_k == 35));
    }

    #[test]
    fn the_first_games_tag_gives_the_initial_rating_else_the_default() {
        let games = [
            ("A", Some(2000), "B", None, Outcome::Draw, "2024.01.02"),
            ("C", None, "A", Some(1000), Outcome::Draw, "2024.01.01"),
        ];
        let table = rate(&ledger(&games), EloOptions { initial: 1200, ..EloOptions::default() });
        // In date order C–A comes first: A enters at 1000 (its tag there), C at 1200.
        let before: Vec<f64> = table.standings.iter().map(|s| s.before).collect();
        assert_eq!(before, [1000.0, 1200.0, 1200.0]);
    }
}
