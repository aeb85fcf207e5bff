//! EPD move operands: `am`, `bm`, `pm` and `sm` moves must be legal in the
//! position, and a `pv` line must be playable move after move.

use shakmaty::{Chess, Move, Position, san::SanPlus};

use super::{
    findings::{FenCode, Findings},
    syntax::{MOVE_OPCODES, Record},
};
use crate::notation::{explain, resolve};

/// Why an operand names no legal move.
enum NoMove {
    /// Not SAN at all.
    NotSan,
    /// SAN, but not legal here: why, in words.
    Illegal(String),
}

/// The legal move a SAN operand names: from the attack tables when they
/// tell, as for a game's moves, else from shakmaty, which also says why
/// there is none.
fn legal_move(pos: &Chess, text: &str) -> Result<Move, NoMove> {
    let san = SanPlus::from_ascii(text.as_bytes()).map_err(|_| NoMove::NotSan)?.san;
    if let Some(m) = resolve::quick_move(pos, san) {
        return Ok(m);
    }
    san.to_move(pos).map_err(|err| NoMove::Illegal(explain::san_error(pos, san, &err).2))
}

/// Replays every move operand on `pos` (a valid position).
pub(super) fn check_moves(pos: &Chess, record: &Record<'_>, findings: &mut Findings<'_>) {
    for op in record.operations.iter().filter(|op| MOVE_OPCODES.contains(&op.opcode)) {
        let opcode = op.opcode;
        let operands = record.operands(op);
        if opcode == "pv" {
            let mut line = pos.clone();
            for (ply, operand) in operands.iter().enumerate().filter(|(_, o)| !o.quoted) {
                match legal_move(&line, operand.text) {
                    Ok(m) => line.play_unchecked(m),
                    Err(no) => {
                        let played: Vec<&str> = operands[..ply].iter().map(|o| o.text).collect();
                        let after =
                            if played.is_empty() { String::new() } else { format!(" after `{}`", played.join(" ")) };
                        let text = operand.text;
                        let message = match no {
                            NoMove::NotSan => {
                                format!("move {} of the `pv` line, `{text}`, is not a move in SAN", ply + 1)
                            }
                            NoMove::Illegal(why) => {
                                format!("move {} of the `pv` line, `{text}`, cannot be played{after}: {why}", ply + 1)
                            }
                        };
                        findings.error(FenCode::EpdIllegalMove, operand.at, message);
                        break;
                    }
                }
            }
            continue;
        }
        for operand in operands.iter().filter(|o| !o.quoted) {
            let text = operand.text;
            let message = match legal_move(pos, text) {
                Ok(_) => continue,
                Err(NoMove::NotSan) => format!("the `{opcode}` operand `{text}` is not a move in SAN"),
                Err(NoMove::Illegal(why)) => format!("the `{opcode}` move `{text}` is not legal here: {why}"),
            };
            findings.error(FenCode::EpdIllegalMove, operand.at, message);
        }
    }
}
