//! What one game hands the counts of a book ([`GamePairs`]), and the
//! opening tree's counts of a (position, move) pair ([`TreeStat`]).

use std::io::{self, Read, Write};

use shakmaty::Color;

/// One game's pairs, as the work on a game hands them to the sink.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct GamePairs {
    /// The Result tag as polyglot reads it: 1 (1-0), -1 (0-1) or 0 (any
    /// other, a draw to polyglot).
    pub result: i8,
    /// Whether the result is decided (1-0, 0-1 or 1/2-1/2), for the tree.
    pub decided: bool,
    /// The Elo of White and Black, for the tree.
    pub elo: [Option<u16>; 2],
    /// The year of the Date tag, for the tree.
    pub year: Option<u16>,
    /// Each counted ply: its number from 0, the position's key, the move
    /// (Polyglot's numbering), and whether White is to move.
    pub pairs: Vec<(u32, u64, u16, bool)>,
    /// The FEN of each counted ply's position, for the tree (empty for a
    /// book).
    pub fens: Vec<String>,
}

/// A pair's tree counts, added up over its games.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeStat {
    /// Every game through the pair (a position repeated counts each time).
    pub games: u64,
    /// Games won by White, drawn, won by Black (the others have no result).
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games won by Black.
    pub black_wins: u64,
    /// The side to move's Elo, over the games where it is known.
    pub elo_sum: u64,
    /// Games where the side to move's Elo is known.
    pub elo_games: u64,
    /// The opponent's Elo, over the decided games where it is known, and
    /// the side to move's wins less losses in them: the performance.
    pub opp_elo_sum: u64,
    /// Decided games where the opponent's Elo is known.
    pub opp_games: u64,
    /// The side to move's wins less its losses in those games.
    pub opp_net: i64,
    /// Years of the Date tags, 0 when none is known.
    pub first_year: u16,
    /// The last year, 0 when none is known.
    pub last_year: u16,
}

/// What the tree counts of one game at one ply, from the side to move's
/// side.
#[derive(Debug, Clone, Copy)]
pub struct Game {
    /// 1 win, 0 draw, -1 loss for White; `None` when not decided.
    white_result: Option<i8>,
    white: bool,
    elo: Option<u16>,
    opp_elo: Option<u16>,
    year: Option<u16>,
}

impl Game {
    /// The game of `pairs` at a ply where White (`white`) or Black is to move.
    pub fn of(pairs: &GamePairs, white: bool) -> Game {
        let (me, them) = if white { (0, 1) } else { (1, 0) };
        Game {
            white_result: pairs.decided.then_some(pairs.result),
            white,
            elo: pairs.elo[me],
            opp_elo: pairs.elo[them],
            year: pairs.year,
        }
    }
}

impl TreeStat {
    /// Counts one more game.
    pub fn add_game(&mut self, game: Game) {
        self.games += 1;
        match game.white_result {
            Some(1) => self.white_wins += 1,
            Some(-1) => self.black_wins += 1,
            Some(_) => self.draws += 1,
            None => {}
        }
        if let Some(elo) = game.elo {
            self.elo_sum += u64::from(elo);
            self.elo_games += 1;
        }
        if let (Some(opp), Some(result)) = (game.opp_elo, game.white_result) {
            self.opp_elo_sum += u64::from(opp);
            self.opp_games += 1;
            self.opp_net += i64::from(if game.white { result } else { -result });
        }
        if let Some(year) = game.year {
            self.add_years(year, year);
        }
    }

    fn add_years(&mut self, first: u16, last: u16) {
        if first == 0 {
            return;
        }
        self.first_year = if self.first_year == 0 { first } else { self.first_year.min(first) };
        self.last_year = self.last_year.max(last);
    }

    /// Adds `other`'s games.
    pub fn absorb(&mut self, other: &TreeStat) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.elo_sum += other.elo_sum;
        self.elo_games += other.elo_games;
        self.opp_elo_sum += other.opp_elo_sum;
        self.opp_games += other.opp_games;
        self.opp_net += other.opp_net;
        self.add_years(other.first_year, other.last_year);
    }

    /// The side to move's score over the decided games, 0 to 1.
    pub fn score(&self, turn: Color) -> Option<f64> {
        let decided = self.white_wins + self.draws + self.black_wins;
        let wins = if turn == Color::White { self.white_wins } else { self.black_wins };
        (decided > 0).then(|| (wins as f64 + self.draws as f64 / 2.0) / decided as f64)
    }

    pub(super) fn avg_elo(&self) -> Option<u64> {
        (self.elo_games > 0).then(|| (self.elo_sum + self.elo_games / 2) / self.elo_games)
    }

    /// The opponents' average Elo plus 400 times wins less losses a game.
    pub(super) fn performance(&self) -> Option<i64> {
        (self.opp_games > 0).then(|| {
            let games = self.opp_games as f64;
            ((self.opp_elo_sum as f64 + 400.0 * self.opp_net as f64) / games).round() as i64
        })
    }

    const FIELDS: usize = 9;

    pub(super) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let numbers = [
            self.games,
            self.white_wins,
            self.draws,
            self.black_wins,
            self.elo_sum,
            self.elo_games,
            self.opp_elo_sum,
            self.opp_games,
            self.opp_net as u64,
        ];
        for n in numbers {
            out.write_all(&n.to_le_bytes())?;
        }
        out.write_all(&self.first_year.to_le_bytes())?;
        out.write_all(&self.last_year.to_le_bytes())
    }

    pub(super) fn read_from(input: &mut impl Read) -> io::Result<TreeStat> {
        let mut numbers = [0u64; Self::FIELDS];
        for n in &mut numbers {
            let mut bytes = [0; 8];
            input.read_exact(&mut bytes)?;
            *n = u64::from_le_bytes(bytes);
        }
        let mut years = [0; 4];
        input.read_exact(&mut years)?;
        let [games, white_wins, draws, black_wins, elo_sum, elo_games, opp_elo_sum, opp_games, opp_net] = numbers;
        Ok(TreeStat {
            games,
            white_wins,
            draws,
            black_wins,
            elo_sum,
            elo_games,
            opp_elo_sum,
            opp_games,
            opp_net: opp_net as i64,
            first_year: u16::from_le_bytes([years[0], years[1]]),
            last_year: u16::from_le_bytes([years[2], years[3]]),
        })
    }
}
