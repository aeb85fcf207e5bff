//! One JSON object per game (its fields: docs/output-formats.md).
//!
//! Written by hand, not through serde: `--format jsonl` writes an object
//! for every game, and serde's generic serializer (a key escaped byte by
//! byte, a buffer grown field by field) cost a third of the whole run. The
//! bytes are serde_json's, which a test checks.

use std::{borrow::Cow, cell::RefCell, sync::Arc};

use super::writer::ReportWriter;
use crate::{
    output::json::{number, optional_number, optional_plain, optional_string, plain, string},
    report::{Diagnostic, GameReport},
};

/// JSON Lines, one object per game in input order.
#[derive(Debug, Default)]
pub struct JsonlWriter;

impl ReportWriter for JsonlWriter {
    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        // Room for the whole object, so that it takes one allocation, not
        // a growth on the way: the keys and numbers take under 336 bytes, a
        // FEN under 104, the strings their length (more only when escaped).
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let findings: usize =
            report.diagnostics.iter().map(|d| 320 + d.message.len() + text(&d.san) + text(&d.fen)).sum();
        out.reserve(
            336 + 104
                + report.file.len()
                + text(&report.white)
                + text(&report.black)
                + report.result_tag.as_deref().map_or(0, str::len)
                + findings,
        );
        opening(out, &report.file);
        number(out, report.game);
        out.extend_from_slice(b",\"game_line\":");
        number(out, report.line);
        out.extend_from_slice(b",\"white\":");
        optional_string(out, report.white.as_deref());
        out.extend_from_slice(b",\"black\":");
        optional_string(out, report.black.as_deref());
        match agreed_result(report) {
            Some(fields) => out.extend_from_slice(fields),
            None => {
                out.extend_from_slice(b",\"result\":");
                optional_plain(out, report.result);
                out.extend_from_slice(b",\"result_tag\":");
                match &report.result_tag {
                    // One of the four results.
                    Some(Cow::Borrowed(result)) => plain(out, result),
                    Some(Cow::Owned(tag)) => string(out, tag),
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b",\"result_marker\":");
                optional_plain(out, report.result_marker);
            }
        }
        out.extend_from_slice(b",\"plies\":");
        number(out, report.plies.into());
        out.extend_from_slice(if report.valid { b",\"valid\":true" } else { b",\"valid\":false" });
        out.extend_from_slice(if report.checked { b",\"checked\":true" } else { b",\"checked\":false" });
        out.extend_from_slice(b",\"board_termination\":");
        optional_plain(out, report.termination.map(|t| t.as_str()));
        match &report.final_fen {
            // A FEN's alphabet has no quote, backslash or control character.
            Some(fen) => {
                out.extend_from_slice(b",\"final_fen\":\"");
                fen.write(out);
                out.push(b'"');
            }
            None => out.extend_from_slice(b",\"final_fen\":null"),
        }
        let rules = [report.threefold_ply, report.fivefold_ply, report.fifty_moves_ply, report.seventyfive_moves_ply];
        if report.draw_reason.is_none() && rules.iter().all(Option::is_none) {
            // Most games, at once: not drawn on the board, no rule reached.
            out.extend_from_slice(
                b",\"draw_reason\":null,\"threefold_ply\":null,\"fivefold_ply\":null,\"fifty_moves_ply\":null,\
                  \"seventyfive_moves_ply\":null",
            );
        } else {
            out.extend_from_slice(b",\"draw_reason\":");
            optional_plain(out, report.draw_reason.map(|d| d.as_str()));
            let keys = [
                &b",\"threefold_ply\":"[..],
                b",\"fivefold_ply\":",
                b",\"fifty_moves_ply\":",
                b",\"seventyfive_moves_ply\":",
            ];
            for (key, ply) in keys.into_iter().zip(rules) {
                out.extend_from_slice(key);
                optional_number(out, ply);
            }
        }
        if report.diagnostics.is_empty() {
            out.extend_from_slice(b",\"diagnostics\":[]}\n");
            return;
        }
        out.extend_from_slice(b",\"diagnostics\":[");
        for (i, diagnostic) in report.diagnostics.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            finding(out, diagnostic);
        }
        out.extend_from_slice(b"]}\n");
    }
}

thread_local! {
    /// The input whose games this thread wrote last, and the opening of
    /// their objects (`{"file":"...","game":`): every game of an input
    /// starts the same, and escaping its name again for each cost more than
    /// copying it. The input is held, so that its name cannot be freed and
    /// another take its place.
    static OPENING: RefCell<(Option<Arc<str>>, Vec<u8>)> = const { RefCell::new((None, Vec::new())) };
}

/// `{"file":"<file>","game":`.
fn opening(out: &mut Vec<u8>, file: &Arc<str>) {
    OPENING.with_borrow_mut(|(input, opening)| {
        if !input.as_ref().is_some_and(|input| Arc::ptr_eq(input, file)) {
            opening.clear();
            opening.extend_from_slice(b"{\"file\":");
            string(opening, file);
            opening.extend_from_slice(b",\"game\":");
            *input = Some(Arc::clone(file));
        }
        out.extend_from_slice(opening);
    });
}

/// The result, Result tag and marker fields at once, for a game whose three
/// are one result, as nearly every game's are.
fn agreed_result(report: &GameReport) -> Option<&'static [u8]> {
    const AGREED: [(&str, &[u8]); 4] = [
        ("1-0", b",\"result\":\"1-0\",\"result_tag\":\"1-0\",\"result_marker\":\"1-0\""),
        ("0-1", b",\"result\":\"0-1\",\"result_tag\":\"0-1\",\"result_marker\":\"0-1\""),
        ("1/2-1/2", b",\"result\":\"1/2-1/2\",\"result_tag\":\"1/2-1/2\",\"result_marker\":\"1/2-1/2\""),
        ("*", b",\"result\":\"*\",\"result_tag\":\"*\",\"result_marker\":\"*\""),
    ];
    let (Some(result), Some(tag), Some(marker)) = (report.result, &report.result_tag, report.result_marker) else {
        return None;
    };
    if tag != result || marker != result {
        return None;
    }
    AGREED.iter().find(|&&(agreed, _)| agreed == result).map(|&(_, fields)| fields)
}

fn finding(out: &mut Vec<u8>, d: &Diagnostic) {
    out.extend_from_slice(b"{\"severity\":");
    plain(out, d.severity.as_str());
    out.extend_from_slice(b",\"code\":");
    plain(out, d.code.as_str());
    out.extend_from_slice(b",\"line\":");
    number(out, d.line);
    out.extend_from_slice(b",\"column\":");
    number(out, d.column.into());
    out.extend_from_slice(b",\"ply\":");
    optional_number(out, d.ply);
    out.extend_from_slice(b",\"san\":");
    optional_string(out, d.san.as_deref());
    out.extend_from_slice(b",\"fen\":");
    optional_string(out, d.fen.as_deref());
    out.extend_from_slice(b",\"message\":");
    string(out, &d.message);
    out.extend_from_slice(b",\"reason\":");
    optional_plain(out, d.reason.map(|r| r.as_str()));
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use std::{borrow::Cow, sync::Arc};

    use super::JsonlWriter;
    use crate::{
        notation::FenPosition,
        output::findings::ReportWriter,
        report::{Code, Diagnostic, DrawReason, GameReport, Reason, Severity, Termination},
        test_rng::Rng,
    };

    /// Text with what JSON must escape, and what it must not.
    fn text(rng: &mut Rng) -> String {
        const PIECES: &[&str] = &[
            "a", "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{1}", "\u{1f}", "\u{7f}", "é", "½", "/", " ", "💥",
        ];
        (0..rng.below(12)).map(|_| PIECES[rng.below(PIECES.len())]).collect()
    }

    fn maybe<T>(rng: &mut Rng, value: impl FnOnce(&mut Rng) -> T) -> Option<T> {
        (rng.below(2) == 0).then(|| value(rng))
    }

    const FENS: &[&str] = &[
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/1PK5/8/1k2B3/1n6/8/8 b - - 32 89",
        "rbbqnknr/pppppppp/8/8/8/8/PPPPPPPP/RBBQNKNR w HAha - 0 1",
    ];

    #[test]
    fn the_names_written_without_an_escape_test_need_none() {
        use DrawReason as D;
        use Termination as T;
        let terminations = [
            T::Checkmate,
            T::Stalemate,
            T::InsufficientMaterial,
            T::SeventyfiveMoves,
            T::FivefoldRepetition,
            T::FiftyMoves,
            T::ThreefoldRepetition,
        ];
        let draws = [
            D::Stalemate,
            D::InsufficientMaterial,
            D::SeventyfiveMoves,
            D::FivefoldRepetition,
            D::FiftyMoves,
            D::ThreefoldRepetition,
            D::PerpetualCheck,
        ];
        let names = Code::ALL
            .iter()
            .map(|c| c.as_str())
            .chain(Reason::ALL.iter().map(|r| r.as_str()))
            .chain([Severity::Info, Severity::Warning, Severity::Error].map(Severity::as_str))
            .chain(terminations.map(Termination::as_str))
            .chain(draws.map(DrawReason::as_str))
            .chain(["1-0", "0-1", "1/2-1/2", "*"])
            .chain(FENS.iter().copied());
        for name in names {
            let mut escaped = Vec::new();
            crate::output::json::string(&mut escaped, name);
            let mut plain = Vec::new();
            crate::output::json::plain(&mut plain, name);
            assert_eq!(plain, escaped, "{name}");
        }
    }

    #[test]
    fn reports_are_written_byte_for_byte_as_serde_json_writes_them() {
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        // Games of one input in a row, then of another, as the writer sees
        // them.
        let mut file: Arc<str> = Arc::from("");
        for _ in 0..2000 {
            if rng.below(3) == 0 {
                file = Arc::from(text(&mut rng));
            }
            let diagnostics = (0..rng.below(4))
                .map(|_| Diagnostic {
                    severity: [Severity::Info, Severity::Warning, Severity::Error][rng.below(3)],
                    code: Code::ALL[rng.below(Code::ALL.len())],
                    line: rng.next(),
                    column: rng.next() as u32,
                    ply: maybe(&mut rng, |rng| rng.next() as u32),
                    san: maybe(&mut rng, text),
                    fen: maybe(&mut rng, text),
                    message: text(&mut rng),
                    reason: maybe(&mut rng, |rng| Reason::ALL[rng.below(Reason::ALL.len())]),
                })
                .collect();
            // A game's result, Result tag and marker, as often as not the
            // same result.
            const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];
            let agreed = RESULTS[rng.below(4)];
            let (result, result_tag, result_marker) = match rng.below(4) {
                0 => (Some(agreed), Some(Cow::Borrowed(agreed)), Some(agreed)),
                1 => (Some(agreed), Some(Cow::Owned(agreed.to_owned())), Some(agreed)),
                _ => (
                    maybe(&mut rng, |rng| RESULTS[rng.below(4)]),
                    maybe(&mut rng, |rng| match rng.below(2) {
                        0 => Cow::Borrowed(RESULTS[rng.below(4)]),
                        _ => Cow::Owned(text(rng)),
                    }),
                    maybe(&mut rng, |rng| RESULTS[rng.below(4)]),
                ),
            };
            let report = GameReport {
                file: Arc::clone(&file),
                game: rng.next(),
                line: rng.next(),
                white: maybe(&mut rng, text),
                black: maybe(&mut rng, text),
                result,
                result_tag,
                result_marker,
                plies: rng.next() as u32,
                valid: rng.below(2) == 0,
                checked: rng.below(2) == 0,
                termination: maybe(&mut rng, |_| Termination::Checkmate),
                final_fen: maybe(&mut rng, |rng| {
                    FenPosition::new(&crate::notation::position(FENS[rng.below(FENS.len())]).expect("legal"))
                }),
                draw_reason: maybe(&mut rng, |_| DrawReason::PerpetualCheck),
                threefold_ply: maybe(&mut rng, |rng| rng.next() as u32),
                fivefold_ply: maybe(&mut rng, |_| 0),
                fifty_moves_ply: maybe(&mut rng, |_| u32::MAX),
                seventyfive_moves_ply: maybe(&mut rng, |_| 7),
                diagnostics,
            };
            let mut want = serde_json::to_vec(&report).expect("serializes");
            want.push(b'\n');
            let mut got = Vec::new();
            JsonlWriter.game(&report, &mut got);
            assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
        }
    }
}
