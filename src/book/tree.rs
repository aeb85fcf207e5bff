//! The opening tree of `book --format csv|jsonl`: per (position, move),
//! the games and results, the ratings of the side to move, the years; its
//! rows, and the JSON Lines partials `book merge` adds up.

use std::io::{self, Read, Write};

use serde_json::{Map, Value, json};
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Square, fen::Fen, san::SanPlus};

use super::{GamePairs, Keep, MoveStat, PositionStat};

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

    fn avg_elo(&self) -> Option<u64> {
        (self.elo_games > 0).then(|| (self.elo_sum + self.elo_games / 2) / self.elo_games)
    }

    /// The opponents' average Elo plus 400 times wins less losses a game.
    fn performance(&self) -> Option<i64> {
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

/// Whether the tree keeps a pair: played at least `--min-games` times,
/// scoring at least `--min-score` percent for the side to move over its
/// decided games (a pair without one only when no score is asked), of the
/// side `--only-white`/`--only-black` names.
pub fn keeps(keep: &Keep, stat: &MoveStat, turn: Color) -> bool {
    let Some(tree) = &stat.tree else { return false };
    let scores = match tree.score(turn) {
        Some(score) => score * 100.0 >= keep.min_score,
        None => keep.min_score <= 0.0,
    };
    tree.games >= u64::from(keep.min_games) && scores && keep.only.is_none_or(|only| only == turn)
}

/// The columns of the tree, in order.
pub const COLUMNS: [&str; 12] = [
    "fen",
    "san",
    "uci",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "score",
    "avg_elo",
    "performance",
    "first_year",
    "last_year",
];

/// The legal move a Polyglot move number stands for in `pos`.
pub fn move_of(pos: &Chess, mv: u16) -> Option<Move> {
    let to = Square::new(u32::from(mv & 63));
    let from = Square::new(u32::from((mv >> 6) & 63));
    let promotion = match (mv >> 12) & 7 {
        1 => Some(shakmaty::Role::Knight),
        2 => Some(shakmaty::Role::Bishop),
        3 => Some(shakmaty::Role::Rook),
        4 => Some(shakmaty::Role::Queen),
        _ => None,
    };
    pos.legal_moves().into_iter().find(|m| {
        let (f, t) = match *m {
            Move::Castle { king, rook } => (king, rook),
            _ => (m.from().unwrap_or(m.to()), m.to()),
        };
        f == from && t == to && m.promotion() == promotion
    })
}

/// One row's cells, as text (empty for a value not known) and as JSON.
#[derive(Debug)]
pub struct Row {
    /// The CSV cells, in [`COLUMNS`] order.
    pub cells: Vec<String>,
    /// The JSON Lines object.
    pub json: Map<String, Value>,
}

/// The row of a kept pair of `position` (whose key is `key`); with
/// `partial`, the sums `book merge` adds up too.
pub fn row(key: u64, position: &PositionStat, stat: &MoveStat, partial: bool) -> io::Result<Row> {
    let fen = position.fen.as_deref().unwrap_or_default();
    let bad = || io::Error::new(io::ErrorKind::InvalidData, format!("a position of the tree is not one: {fen}"));
    let pos: Chess =
        fen.parse::<Fen>().ok().and_then(|f| f.into_position(CastlingMode::Standard).ok()).ok_or_else(bad)?;
    let m = move_of(&pos, stat.mv).ok_or_else(bad)?;
    let san = SanPlus::from_move(pos.clone(), m).to_string();
    let uci = m.to_uci(CastlingMode::Standard).to_string();
    let tree = stat.tree.as_deref().cloned().unwrap_or_default();
    let turn = pos.turn();
    let score = tree.score(turn).map(|s| (s * 1000.0).round() / 1000.0);
    let year = |y: u16| (y != 0).then_some(y);
    let mut json = Map::new();
    json.insert("fen".into(), json!(fen));
    json.insert("san".into(), json!(san));
    json.insert("uci".into(), json!(uci));
    json.insert("games".into(), json!(tree.games));
    json.insert("white_wins".into(), json!(tree.white_wins));
    json.insert("draws".into(), json!(tree.draws));
    json.insert("black_wins".into(), json!(tree.black_wins));
    json.insert("score".into(), json!(score));
    json.insert("avg_elo".into(), json!(tree.avg_elo()));
    json.insert("performance".into(), json!(tree.performance()));
    json.insert("first_year".into(), json!(year(tree.first_year)));
    json.insert("last_year".into(), json!(year(tree.last_year)));
    let cells = COLUMNS
        .iter()
        .map(|c| match &json[*c] {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    if partial {
        json.insert("key".into(), json!(format!("{key:016x}")));
        json.insert("move".into(), json!(stat.mv));
        json.insert("first".into(), json!(stat.first));
        json.insert("n".into(), json!(stat.n));
        json.insert("sum".into(), json!(stat.sum));
        json.insert("halved".into(), json!(position.halved));
        json.insert("inexact".into(), json!(position.inexact));
        json.insert("elo_sum".into(), json!(tree.elo_sum));
        json.insert("elo_games".into(), json!(tree.elo_games));
        json.insert("opp_elo_sum".into(), json!(tree.opp_elo_sum));
        json.insert("opp_games".into(), json!(tree.opp_games));
        json.insert("opp_net".into(), json!(tree.opp_net));
    }
    Ok(Row { cells, json })
}

/// A partial's row read back: its position's key, and the position with
/// this one move.
pub fn from_partial(row: &Value) -> Result<(u64, PositionStat), String> {
    let text = |name: &str| row.get(name).and_then(Value::as_str).ok_or_else(|| format!("no \"{name}\""));
    let number = |name: &str| row.get(name).and_then(Value::as_u64).ok_or_else(|| format!("no \"{name}\" count"));
    let optional = |name: &str| row.get(name).and_then(Value::as_u64).unwrap_or(0);
    let key = u64::from_str_radix(text("key")?, 16).map_err(|_| "\"key\" is not 16 hex digits".to_owned())?;
    let fen = text("fen")?;
    let pos: Chess = fen
        .parse::<Fen>()
        .ok()
        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        .ok_or_else(|| format!("\"fen\" is not a legal position: {fen}"))?;
    if super::key(&pos) != key {
        return Err(format!("\"key\" {key:016x} is not the key of its \"fen\""));
    }
    let mv = u16::try_from(number("move")?).map_err(|_| "\"move\" is not a move".to_owned())?;
    if move_of(&pos, mv).is_none() {
        return Err(format!("\"move\" {mv} is not legal in its \"fen\""));
    }
    let year = |name: &str| row.get(name).and_then(Value::as_u64).and_then(|y| u16::try_from(y).ok()).unwrap_or(0);
    let tree = TreeStat {
        games: number("games")?,
        white_wins: number("white_wins")?,
        draws: number("draws")?,
        black_wins: number("black_wins")?,
        elo_sum: optional("elo_sum"),
        elo_games: optional("elo_games"),
        opp_elo_sum: optional("opp_elo_sum"),
        opp_games: optional("opp_games"),
        opp_net: row.get("opp_net").and_then(Value::as_i64).unwrap_or(0),
        first_year: year("first_year"),
        last_year: year("last_year"),
    };
    let n = u32::try_from(number("n")?).map_err(|_| "\"n\" is too large".to_owned())?;
    let sum = u32::try_from(number("sum")?).map_err(|_| "\"sum\" is too large".to_owned())?;
    if sum > 2 * n {
        return Err("\"sum\" is more than twice \"n\"".to_owned());
    }
    let stat = MoveStat { mv, n, sum, first: number("first")?, tree: Some(Box::new(tree)) };
    Ok((
        key,
        PositionStat {
            white: pos.turn() == Color::White,
            halved: row.get("halved").and_then(Value::as_bool).unwrap_or(false),
            inexact: row.get("inexact").and_then(Value::as_bool).unwrap_or(false),
            fen: Some(fen.into()),
            moves: vec![stat],
        },
    ))
}
