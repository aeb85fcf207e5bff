//! The opening tree of `book --format csv|jsonl`: per (position, move),
//! the games and results, the ratings of the side to move, the years; its
//! rows, and the JSON Lines partials `book merge` adds up.

use std::io;

use serde_json::{Map, Value, json};
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Square, fen::Fen, san::SanPlus};

use super::{
    counts::{self, MoveStat, PositionStat},
    stat::TreeStat,
};

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
    if counts::key(&pos) != key {
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
            on_disk: 0,
        },
    ))
}
