//! The club points scheme (积分制, docs/chess-semantics.md): every player starts at 0
//! points, each game moves points from one player to the other by the
//! difference `d` of their current points, and levels run from unranked
//! (under 100) through level 30 (100 to 199) to level 1 (3000 and above).
//!
//! The rules as written, with `d` the difference of the two players'
//! current points:
//!
//! | outcome | d < 10 | 10 ≤ d ≤ 99 | 100 ≤ d ≤ 199 | d ≥ 200 |
//! | --- | --- | --- | --- | --- |
//! | draw: the lower player gains | 0 | (10 + d/10) / 2 | d/4 | d/4 |
//! | the lower player wins | 10 | 10 + d/10 | d/2 | d/2 |
//! | the higher player wins | 10 | 10 − d/12.5 | 2 | 0 |
//!
//! Reading them where the text is silent:
//! * Every game moves points: what one player gains the other gives up,
//!   draws included (the higher player gives up what the lower gains).
//! * Points are kept in hundredths, and each amount is rounded to the
//!   nearest hundredth (half away from zero). Differences are then not
//!   always whole, so the bands are read as `d < 10`, `10 ≤ d < 100`,
//!   `100 ≤ d < 200` and `d ≥ 200`: the written bands for whole
//!   differences, each reaching up to where the next begins.
//! * With equal points (`d = 0 < 10`) who is "lower" does not matter: a win
//!   is worth 10 and a draw nothing either way.

use super::{Ledger, Outcome, Record, Standing, Step, Table};

/// 10, 100 and 200 points, in hundredths: where the bands of `d` begin.
const TEN: i64 = 1_000;
const HUNDRED: i64 = 10_000;
const TWO_HUNDRED: i64 = 20_000;

/// A player's level: `None` for unranked (under 100 points), else 30 for
/// 100–199 down to 1 for 3000 and above. `points` are in hundredths.
pub fn level(points: i64) -> Option<u8> {
    if points < HUNDRED {
        return None;
    }
    Some((31 - (points / HUNDRED).min(30)) as u8)
}

/// `numerator / denominator` rounded to the nearest whole number, half
/// away from zero; both are not negative.
fn rounded(numerator: i64, denominator: i64) -> i64 {
    (2 * numerator + denominator) / (2 * denominator)
}

/// The points (in hundredths) White gains from the game; Black gains the
/// opposite. `white` and `black` are their points before it, in hundredths.
pub fn transfer(outcome: Outcome, white: i64, black: i64) -> i64 {
    let d = (white - black).abs();
    // With equal points either may be called lower: under 10 apart the
    // amounts do not depend on it.
    let white_is_lower = white < black;
    let to_lower = match outcome {
        Outcome::Draw => draw(d),
        Outcome::WhiteWins | Outcome::BlackWins => {
            if (outcome == Outcome::WhiteWins) == white_is_lower {
                lower_wins(d)
            } else {
                -higher_wins(d)
            }
        }
    };
    if white_is_lower { to_lower } else { -to_lower }
}

/// What the lower player gains from a draw, in hundredths (`d` too).
pub fn draw(d: i64) -> i64 {
    if d < TEN {
        0
    } else if d < HUNDRED {
        // (10 + d/10) / 2 points = (10000 + d) / 20 hundredths.
        rounded(HUNDRED + d, 20)
    } else {
        rounded(d, 4)
    }
}

/// What the lower player gains by winning, in hundredths (`d` too).
pub fn lower_wins(d: i64) -> i64 {
    if d < TEN {
        TEN
    } else if d < HUNDRED {
        // 10 + d/10 points = (10000 + d) / 10 hundredths.
        rounded(HUNDRED + d, 10)
    } else {
        rounded(d, 2)
    }
}

/// What the higher player gains by winning, in hundredths (`d` too).
pub fn higher_wins(d: i64) -> i64 {
    if d < TEN {
        TEN
    } else if d < HUNDRED {
        // 10 − d/12.5 points = (25000 − 2d) / 25 hundredths.
        rounded(25 * TEN - 2 * d, 25)
    } else if d < TWO_HUNDRED {
        200
    } else {
        0
    }
}

/// Points as a number (hundredths to units).
fn units(points: i64) -> f64 {
    points as f64 / 100.0
}

/// Applies the ledger's games in date order (then input order).
pub fn rate(ledger: &Ledger) -> Table {
    let games = ledger.games();
    let order = ledger.in_date_order();
    let mut points: Vec<i64> = vec![0; ledger.players().len()];
    let mut slot: Vec<Option<usize>> = vec![None; points.len()];
    let mut standings: Vec<Standing> = Vec::with_capacity(points.len());
    let mut history = Vec::with_capacity(order.len());
    for i in order {
        let game = games[i];
        let (white, black) = (points[game.white as usize], points[game.black as usize]);
        let gain = transfer(game.outcome, white, black);
        let white_score = game.outcome.white_score();
        for (id, score, opponent, after) in
            [(game.white, white_score, black, white + gain), (game.black, 1.0 - white_score, white, black - gain)]
        {
            let index = *slot[id as usize].get_or_insert_with(|| {
                standings.push(Standing { player: id, record: Record::default(), before: 0.0, after: 0.0 });
                standings.len() - 1
            });
            standings[index].record.add(score, units(opponent));
            standings[index].after = units(after);
            points[id as usize] = after;
        }
        history.push(Step {
            game: i,
            white_before: units(white),
            black_before: units(black),
            white_after: units(white + gain),
            black_after: units(black - gain),
            elo: None,
        });
    }
    standings.sort_by_key(|s| s.player);
    Table { standings, history }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points to hundredths.
    fn h(points: f64) -> i64 {
        (points * 100.0).round() as i64
    }

    #[test]
    fn levels_run_from_unranked_under_100_to_level_1_from_3000() {
        assert_eq!(level(h(-50.0)), None);
        assert_eq!(level(0), None);
        assert_eq!(level(h(99.99)), None);
        assert_eq!(level(h(100.0)), Some(30));
        assert_eq!(level(h(199.99)), Some(30));
        assert_eq!(level(h(200.0)), Some(29));
        assert_eq!(level(h(2999.99)), Some(2));
        assert_eq!(level(h(3000.0)), Some(1));
        assert_eq!(level(h(12345.0)), Some(1));
    }

    // Draws: the lower player gains, the higher gives up the same.

    #[test]
    fn draw_with_d_under_10_moves_nothing() {
        assert_eq!(transfer(Outcome::Draw, h(0.0), h(0.0)), 0);
        assert_eq!(transfer(Outcome::Draw, h(100.0), h(109.99)), 0);
        assert_eq!(transfer(Outcome::Draw, h(109.99), h(100.0)), 0);
    }

    #[test]
    fn draw_with_d_from_10_to_99_gives_the_lower_player_half_of_10_plus_d_over_10() {
        // d = 10: (10 + 1) / 2 = 5.5; d = 50: (10 + 5) / 2 = 7.5; d = 99: 9.95.
        assert_eq!(transfer(Outcome::Draw, h(0.0), h(10.0)), h(5.5));
        assert_eq!(transfer(Outcome::Draw, h(60.0), h(10.0)), -h(7.5));
        assert_eq!(transfer(Outcome::Draw, h(1.0), h(100.0)), h(9.95));
        // d = 12.34: (10 + 1.234) / 2 = 5.617 → 5.62.
        assert_eq!(draw(h(12.34)), h(5.62));
    }

    #[test]
    fn draw_with_d_from_100_gives_the_lower_player_a_quarter_of_d() {
        assert_eq!(transfer(Outcome::Draw, h(0.0), h(100.0)), h(25.0));
        assert_eq!(transfer(Outcome::Draw, h(350.0), h(0.0)), -h(87.5));
        // d = 100.02 / 4 = 25.005 → 25.01 (half away from zero).
        assert_eq!(draw(h(100.02)), h(25.01));
    }

    // The lower player wins.

    #[test]
    fn lower_player_win_with_d_under_10_is_worth_10() {
        assert_eq!(transfer(Outcome::WhiteWins, h(0.0), h(9.99)), h(10.0));
        assert_eq!(transfer(Outcome::BlackWins, h(5.0), h(0.0)), -h(10.0));
    }

    #[test]
    fn lower_player_win_with_d_from_10_to_99_is_worth_10_plus_d_over_10() {
        assert_eq!(transfer(Outcome::WhiteWins, h(0.0), h(10.0)), h(11.0));
        assert_eq!(transfer(Outcome::BlackWins, h(120.0), h(30.0)), -h(19.0));
        assert_eq!(transfer(Outcome::WhiteWins, h(0.0), h(99.0)), h(19.9));
        assert_eq!(lower_wins(h(99.99)), h(20.0));
    }

    #[test]
    fn lower_player_win_with_d_from_100_is_worth_half_of_d() {
        assert_eq!(transfer(Outcome::WhiteWins, h(0.0), h(100.0)), h(50.0));
        assert_eq!(transfer(Outcome::BlackWins, h(300.0), h(0.0)), -h(150.0));
        assert_eq!(lower_wins(h(250.01)), h(125.01));
    }

    // The higher player wins.

    #[test]
    fn higher_player_win_with_d_under_10_is_worth_10() {
        assert_eq!(transfer(Outcome::WhiteWins, h(9.0), h(0.0)), h(10.0));
        assert_eq!(transfer(Outcome::BlackWins, h(0.0), h(9.99)), -h(10.0));
    }

    #[test]
    fn higher_player_win_with_d_from_10_to_99_is_worth_10_minus_d_over_12_5() {
        assert_eq!(transfer(Outcome::WhiteWins, h(10.0), h(0.0)), h(9.2));
        assert_eq!(transfer(Outcome::BlackWins, h(0.0), h(50.0)), -h(6.0));
        assert_eq!(transfer(Outcome::WhiteWins, h(99.0), h(0.0)), h(2.08));
        // d = 12.34: 10 − 0.9872 = 9.0128 → 9.01.
        assert_eq!(higher_wins(h(12.34)), h(9.01));
    }

    #[test]
    fn higher_player_win_with_d_from_100_to_199_is_worth_2() {
        assert_eq!(transfer(Outcome::WhiteWins, h(100.0), h(0.0)), h(2.0));
        assert_eq!(transfer(Outcome::BlackWins, h(0.0), h(199.0)), -h(2.0));
        assert_eq!(higher_wins(h(199.99)), h(2.0));
    }

    #[test]
    fn higher_player_win_with_d_from_200_is_worth_nothing() {
        assert_eq!(transfer(Outcome::WhiteWins, h(200.0), h(0.0)), 0);
        assert_eq!(transfer(Outcome::BlackWins, h(0.0), h(1000.0)), 0);
    }

    #[test]
    fn every_amount_is_whole_hundredths_and_the_loser_gives_up_what_the_winner_gains() {
        // Over a grid of differences, the bands meet where the rules say.
        for d in (0..30_000).step_by(7) {
            for outcome in [Outcome::WhiteWins, Outcome::Draw, Outcome::BlackWins] {
                let to_white = transfer(outcome, d, 0);
                let mirrored = transfer(outcome_mirrored(outcome), 0, d);
                assert_eq!(to_white, -mirrored, "d {d} {outcome:?}");
            }
        }
        assert_eq!(lower_wins(h(99.99)), h(20.0));
        assert_eq!(lower_wins(h(100.0)), h(50.0));
        assert_eq!(higher_wins(h(9.99)), h(10.0));
        assert_eq!(higher_wins(h(10.0)), h(9.2));
    }

    fn outcome_mirrored(outcome: Outcome) -> Outcome {
        match outcome {
            Outcome::WhiteWins => Outcome::BlackWins,
            Outcome::Draw => Outcome::Draw,
            Outcome::BlackWins => Outcome::WhiteWins,
        }
    }
}
