//! EPD move operands: `am`, `bm`, `pm` and `sm` moves must be legal in the
//! position, and a `pv` line must be playable move after move; a move in
//! UCI instead of SAN is read with a warning.

use shakmaty::{Chess, Move, Position, san::SanPlus};

use super::{
    findings::{FenCode, Findings},
    syntax::{MOVE_OPCODES, Operand, Record},
};
use crate::notation::{self, Notation, Written, explain, resolve};

/// Why an operand names no legal move.
enum NoMove {
    /// Not SAN at all.
    NotSan,
    /// SAN, but not legal here: why, in words.
    Illegal(String),
}

/// The legal move a SAN operand names, from the attack tables when they
/// tell, as for a game's moves, else from shakmaty, which also says why
/// there is none; failing that, the move a UCI operand (`e1g1`) names, as
/// a game's moves are read, and its SAN.
fn legal_move(pos: &Chess, text: &str) -> Result<(Move, Option<SanPlus>), NoMove> {
    let san = SanPlus::from_ascii(text.as_bytes()).map(|s| s.san);
    let illegal = match san {
        Ok(san) => match resolve::to_move(pos, san) {
            Ok(m) => return Ok((m, None)),
            Err(err) => Some(explain::san_error(pos, san, &err).2),
        },
        Err(_) => None,
    };
    // Some suites write their moves in UCI; read as the game reader reads
    // them (and python-chess's EPD reader).
    if let Some(Written::Coordinates(c)) = notation::parse(text)
        && c.notation == Notation::Uci
        && let Ok(m) = Written::Coordinates(c).to_move(pos)
    {
        return Ok((m, Some(SanPlus::from_move(pos.clone(), m))));
    }
    Err(illegal.map_or(NoMove::NotSan, NoMove::Illegal))
}

/// The warning for a move operand written in UCI.
fn coordinates(findings: &mut Findings<'_>, opcode: &str, operand: &Operand<'_>, san: SanPlus) {
    findings.warning(
        FenCode::EpdUciMove,
        operand.at,
        format!("the `{opcode}` move `{}` is written in UCI, not SAN; read as {san}", operand.text),
    );
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
                    Ok((m, uci)) => {
                        if let Some(san) = uci {
                            coordinates(findings, opcode, operand, san);
                        }
                        line.play_unchecked(m);
                    }
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
                Ok((_, uci)) => {
                    if let Some(san) = uci {
                        coordinates(findings, opcode, operand, san);
                    }
                    continue;
                }
                Err(NoMove::NotSan) => format!("the `{opcode}` operand `{text}` is not a move in SAN"),
                Err(NoMove::Illegal(why)) => format!("the `{opcode}` move `{text}` is not legal here: {why}"),
            };
            findings.error(FenCode::EpdIllegalMove, operand.at, message);
        }
    }
}
