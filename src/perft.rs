//! Move-generation counts (perft) and the perft suites that check them.
//!
//! Perft counts the leaves of the legal-move tree to a fixed depth; engine
//! authors compare it with published counts to test a move generator. This
//! module counts (sequentially, or over the root moves on the current rayon
//! pool) and reads suites in the layouts found in the wild. It is not a
//! search: no hashing of transpositions, every node is generated.

use rayon::prelude::*;
use shakmaty::{Chess, Position};

use crate::notation::{self, FenError};

/// The number of leaves of the legal-move tree `depth` plies deep.
///
/// The last ply is not played: the number of legal moves one ply above the
/// leaves is the number of leaves under that node (bulk counting).
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// [`perft`] with the subtrees of the root moves counted in parallel on the
/// current rayon pool (call it inside `ThreadPool::install` to choose the
/// number of threads).
pub fn perft_parallel(pos: &Chess, depth: u32) -> u64 {
    if depth < 3 {
        // Below three plies a subtree costs less than handing it to a thread.
        return perft(pos, depth);
    }
    let moves = pos.legal_moves();
    moves
        .par_iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// The leaf count under each root move, as `(UCI move, count)` sorted by the
/// move, counted in parallel on the current rayon pool.
///
/// Castling is written king-to-rook (`e1h1`) in Chess960 positions and
/// king-two-squares (`e1g1`) otherwise, as UCI engines print it.
pub fn divide(pos: &Chess, depth: u32) -> Vec<(String, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mode = pos.castles().mode();
    let moves = pos.legal_moves();
    let mut counts: Vec<(String, u64)> = moves
        .par_iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m.to_uci(mode).to_string(), perft(&child, depth - 1))
        })
        .collect();
    counts.sort_unstable();
    counts
}

/// The position of a FEN or an EPD's first four fields (`startpos` is the
/// standard start position).
///
/// Castling rights are read in the mode they are written in: Shredder-FEN
/// files (`HAha`) and X-FEN letters for a king or rook off its standard
/// square make a Chess960 position. Positions with more material than
/// promotions allow, or with a check no last move could give, are accepted:
/// moves are still generated correctly there, and published suites use them
/// (with too many queens, to exercise long move lists).
pub fn position_from_fen(text: &str) -> Result<Chess, FenError> {
    notation::playable_position(text)
}

/// A published count: `nodes` leaves at `depth`, written on line `line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// 1-based line of the count.
    pub line: usize,
    /// Plies.
    pub depth: u32,
    /// Leaves of the legal-move tree.
    pub nodes: u64,
}

/// A line of a suite that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line.
    pub line: usize,
    /// What is wrong, in a sentence fragment.
    pub message: String,
}

/// One position of a suite with its published counts.
#[derive(Debug)]
pub struct Entry {
    /// 1-based line of the FEN.
    pub line: usize,
    /// The `id` given to the position, if any.
    pub id: Option<String>,
    /// The FEN as written (trimmed).
    pub fen: String,
    /// The position, or why there is none.
    pub position: Result<Chess, FenError>,
    /// The counts, in file order.
    pub expected: Vec<Expected>,
    /// Lines of this position's block that could not be read.
    pub bad_lines: Vec<BadLine>,
}

/// What a suite is made of, in file order.
#[derive(Debug)]
pub enum Item {
    /// A position and its counts.
    Entry(Box<Entry>),
    /// A line outside any position that could not be read.
    BadLine(BadLine),
}

/// Reads a perft suite in any of the layouts below, which may be mixed.
///
/// * One position per line, EPD style: a FEN (four or six fields) and
///   `;`-separated operations, of which `D<depth> <nodes>` are counts and
///   `id "<name>"` names the position; others are ignored:
///   `<fen> ;D1 20 ;D2 400`, `<fen>; D4 23441`, `<4 fields> D1 20; D2 400;`.
/// * Blocks, as in shakmaty's suites: `id <name>`, then `epd <fen>`, then
///   `perft <depth> <nodes>` lines.
///
/// Blank lines and lines starting with `#` are skipped. Malformed lines are
/// reported, never fatal.
pub fn parse_suite(text: &str) -> Vec<Item> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut items = Vec::new();
    // The block being read (layout 2) and an `id` waiting for its `epd`.
    let mut block: Option<Entry> = None;
    let mut pending_id: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (keyword, rest) = trimmed.split_once(char::is_whitespace).unwrap_or((trimmed, ""));
        let rest = rest.trim();
        match keyword {
            "id" => {
                items.extend(block.take().map(|entry| Item::Entry(Box::new(entry))));
                pending_id = Some(rest.to_owned());
            }
            "epd" => {
                items.extend(block.take().map(|entry| Item::Entry(Box::new(entry))));
                block = Some(Entry {
                    line,
                    id: pending_id.take(),
                    fen: rest.to_owned(),
                    position: position_from_fen(rest),
                    expected: Vec::new(),
                    bad_lines: Vec::new(),
                });
            }
            "perft" => {
                let parsed = parse_count(rest, line);
                match (&mut block, parsed) {
                    (Some(entry), Ok(expected)) => entry.expected.push(expected),
                    (Some(entry), Err(message)) => entry.bad_lines.push(BadLine { line, message }),
                    (None, _) => items.push(Item::BadLine(BadLine {
                        line,
                        message: "a `perft` line before any `epd` line".to_owned(),
                    })),
                }
            }
            _ => {
                items.extend(block.take().map(|entry| Item::Entry(Box::new(entry))));
                items.push(Item::Entry(Box::new(parse_epd_line(trimmed, line, pending_id.take()))));
            }
        }
    }
    items.extend(block.take().map(|entry| Item::Entry(Box::new(entry))));
    items
}

/// `<depth> <nodes>`, the operands of a `perft` line or a `D` operation.
fn parse_count(operands: &str, line: usize) -> Result<Expected, String> {
    let mut words = operands.split_whitespace();
    let (Some(depth), Some(nodes), None) = (words.next(), words.next(), words.next()) else {
        return Err(format!("`{operands}` is not a depth and a node count"));
    };
    let depth = depth.parse().map_err(|_| format!("`{depth}` is not a depth"))?;
    let nodes = nodes.parse().map_err(|_| format!("`{nodes}` is not a node count"))?;
    Ok(Expected { line, depth, nodes })
}

fn parse_epd_line(text: &str, line: usize, id: Option<String>) -> Entry {
    let (head, ops) = text.split_once(';').unwrap_or((text, ""));
    // The FEN is the first four fields and the clocks if they are numbers;
    // anything after them is the first operation (EPD writes `D1 20;`).
    let fields: Vec<&str> = head.split_whitespace().collect();
    let mut fen_len = fields.len().min(4);
    while fen_len < fields.len().min(6) && fields[fen_len].parse::<u32>().is_ok() {
        fen_len += 1;
    }
    let fen = fields[..fen_len].join(" ");
    let first_op = fields[fen_len..].join(" ");
    let mut entry =
        Entry { line, id, position: position_from_fen(&fen), fen, expected: Vec::new(), bad_lines: Vec::new() };
    for op in std::iter::once(first_op.as_str()).chain(ops.split(';')) {
        let op = op.trim();
        let (code, operands) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        if let Some(depth) = code.strip_prefix('D').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
            match parse_count(&format!("{depth} {operands}"), line) {
                Ok(expected) => entry.expected.push(expected),
                Err(message) => entry.bad_lines.push(BadLine { line, message: format!("in `{op}`: {message}") }),
            }
        } else if code == "id" {
            entry.id = Some(operands.trim().trim_matches('"').to_owned());
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, fen::Fen};

    use super::*;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    fn entries(text: &str) -> Vec<Entry> {
        parse_suite(text)
            .into_iter()
            .map(|item| match item {
                Item::Entry(entry) => *entry,
                Item::BadLine(bad) => panic!("unexpected bad line {bad:?}"),
            })
            .collect()
    }

    fn counts(entry: &Entry) -> Vec<(usize, u32, u64)> {
        entry.expected.iter().map(|e| (e.line, e.depth, e.nodes)).collect()
    }

    #[test]
    fn start_position_counts_match_the_published_ones() {
        let pos = Chess::default();
        let got: Vec<u64> = (0..=4).map(|d| perft(&pos, d)).collect();
        assert_eq!(got, [1, 20, 400, 8902, 197_281]);
    }

    #[test]
    fn kiwipete_counts_match_the_published_ones() {
        let pos = position_from_fen(KIWIPETE).unwrap();
        assert_eq!((perft(&pos, 1), perft(&pos, 2), perft(&pos, 3)), (48, 2039, 97_862));
    }

    #[test]
    fn the_parallel_count_equals_the_sequential_one() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let pos = position_from_fen(KIWIPETE).unwrap();
        for depth in 0..=3 {
            assert_eq!(pool.install(|| perft_parallel(&pos, depth)), perft(&pos, depth), "depth {depth}");
        }
    }

    #[test]
    fn divide_lists_every_root_move_sorted_and_sums_to_the_total() {
        let pos = Chess::default();
        let split = divide(&pos, 3);
        assert_eq!(split.len(), 20);
        assert!(split.windows(2).all(|w| w[0].0 < w[1].0), "sorted by move");
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 8902);
        // Stockfish's `go perft 3` from the start position.
        assert!(split.contains(&("e2e4".to_owned(), 600)));
        assert!(split.contains(&("g1f3".to_owned(), 440)));
    }

    #[test]
    fn divide_writes_standard_castling_king_two_squares() {
        let pos = position_from_fen(KIWIPETE).unwrap();
        let moves: Vec<String> = divide(&pos, 1).into_iter().map(|(m, _)| m).collect();
        assert!(moves.contains(&"e1g1".to_owned()) && moves.contains(&"e1c1".to_owned()), "{moves:?}");
    }

    #[test]
    fn shredder_fen_castling_on_standard_squares_is_standard_chess() {
        // Kiwipete with its rights written Shredder-style: the same position.
        let pos = position_from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w HAha - 0 1").unwrap();
        assert_eq!(pos.castles().mode(), CastlingMode::Standard);
        assert_eq!(perft(&pos, 3), 97_862);
    }

    #[test]
    fn chess960_castling_is_written_king_onto_rook() {
        // King on g1, rooks on a1 and h1 (counts from python-chess with
        // chess960=True).
        let pos = position_from_fen("4k3/8/8/8/8/8/8/R5KR w HA - 0 1").unwrap();
        assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
        let moves: Vec<String> = divide(&pos, 1).into_iter().map(|(m, _)| m).collect();
        assert!(moves.contains(&"g1h1".to_owned()) && moves.contains(&"g1a1".to_owned()), "{moves:?}");
        assert_eq!((perft(&pos, 1), perft(&pos, 2), perft(&pos, 3)), (25, 106, 2929));
    }

    #[test]
    fn x_fen_rights_with_the_king_off_e1_are_chess960() {
        // From the first Chess960 position of Ethereal's fischer.epd, with the
        // rights written KQkq: the rooks are found from the king outwards.
        let pos = position_from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9").unwrap();
        assert_eq!(pos.castles().mode(), CastlingMode::Chess960);
        assert_eq!((perft(&pos, 1), perft(&pos, 2), perft(&pos, 3)), (21, 528, 12_189));
    }

    #[test]
    fn a_position_without_kings_is_refused() {
        let err = position_from_fen("8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err();
        assert!(matches!(err, FenError::Illegal(_)), "{err}");
        assert!(err.to_string().contains("missing king"), "{err}");
    }

    #[test]
    fn text_that_is_not_fen_is_refused() {
        let err = position_from_fen("rnbqkbnr/pppppppp w").unwrap_err();
        assert!(matches!(err, FenError::Syntax(_)), "{err}");
    }

    #[test]
    fn too_much_material_still_counts() {
        // Nine queens and a pawn: promotions cannot give that, but moves are well
        // defined (counts from python-chess).
        let fen: Fen = "k7/8/8/8/8/P7/1QQQQ3/1QQQQQK1 w - - 0 1".parse().unwrap();
        assert!(fen.into_position::<Chess>(CastlingMode::Standard).is_err(), "strictly, not a legal position");
        let pos = position_from_fen("k7/8/8/8/8/P7/1QQQQ3/1QQQQQK1 w - - 0 1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((perft(&pos, 1), perft(&pos, 2)), (75, 55));
    }

    #[test]
    fn epd_layout_with_space_before_each_semicolon_is_read() {
        let suite = format!("{KIWIPETE} ;D1 48 ;D2 2039\n");
        let entries = entries(&suite);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].fen, KIWIPETE);
        assert_eq!(counts(&entries[0]), [(1, 1, 48), (1, 2, 2039)]);
        assert!(entries[0].position.is_ok());
    }

    #[test]
    fn epd_layout_with_semicolon_after_the_fen_is_read() {
        let suite = "# header\n\n8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -; D4 43238\n";
        let entries = entries(suite);
        assert_eq!(entries[0].line, 3);
        assert_eq!(entries[0].fen, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -");
        assert_eq!(counts(&entries[0]), [(3, 4, 43_238)]);
    }

    #[test]
    fn epd_operations_after_four_fields_and_an_id_are_read() {
        let suite = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - D1 14; D2 191; id \"pos-3\";\n";
        let entries = entries(suite);
        assert_eq!(entries[0].fen, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -");
        assert_eq!(entries[0].id.as_deref(), Some("pos-3"));
        assert_eq!(counts(&entries[0]), [(1, 1, 14), (1, 2, 191)]);
    }

    #[test]
    fn block_layout_is_read_with_each_count_on_its_own_line() {
        let suite = "# comment\nid pos-3\nepd 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -\nperft 1 14\nperft 2 191\n\n\
                     id 0\nepd bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\nperft 1 21\n";
        let entries = entries(suite);
        assert_eq!(entries.len(), 2);
        assert_eq!((entries[0].id.as_deref(), entries[0].line), (Some("pos-3"), 3));
        assert_eq!(counts(&entries[0]), [(4, 1, 14), (5, 2, 191)]);
        assert_eq!((entries[1].id.as_deref(), entries[1].line), (Some("0"), 8));
        assert_eq!(entries[1].position.as_ref().unwrap().castles().mode(), CastlingMode::Chess960);
        assert_eq!(counts(&entries[1]), [(9, 1, 21)]);
    }

    #[test]
    fn malformed_counts_are_reported_with_their_line() {
        let suite = "perft 1 20\nepd 8/8/8/8/8/8/8/K6k w - -\nperft 1 x\nperft 2\n4k3/8/8/8/8/8/8/4K3 w - - ;D1 5 ;Dx 3 ;D2 -1\n";
        let items = parse_suite(suite);
        assert_eq!(items.len(), 3);
        let Item::BadLine(first) = &items[0] else { panic!("{:?}", items[0]) };
        assert_eq!(first.line, 1);
        let Item::Entry(block) = &items[1] else { panic!("{:?}", items[1]) };
        assert_eq!(block.bad_lines.iter().map(|b| b.line).collect::<Vec<_>>(), [3, 4]);
        let Item::Entry(line) = &items[2] else { panic!("{:?}", items[2]) };
        // `Dx 3` is not a count operation (ignored); `D2 -1` is a bad count.
        assert_eq!(counts(line), [(5, 1, 5)]);
        assert_eq!(line.bad_lines.len(), 1);
        assert!(line.bad_lines[0].message.contains("`-1` is not a node count"), "{:?}", line.bad_lines);
    }

    #[test]
    fn an_unreadable_fen_in_a_suite_keeps_its_line_and_text() {
        let entries = entries("not a fen ;D1 20\n");
        assert_eq!(entries[0].fen, "not a fen");
        assert!(entries[0].position.is_err());
        assert_eq!(counts(&entries[0]), [(1, 1, 20)]);
    }
}
