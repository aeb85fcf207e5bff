//! `pgnkit moves`: apply moves written in any notation to a position and
//! print them in one notation, or the positions they reach.

#![allow(clippy::print_stderr)]

use std::io::{self, BufRead, BufReader, Write};

use anyhow::{Context, bail};
use pgnkit::{
    notation::{self, Leniency, MoveError, Notation, Read, Token},
    output::findings::escape_controls,
    report::Code,
    text::shorten,
};
use shakmaty::{Chess, Color, EnPassantMode, Position, fen::Fen};

use crate::{
    cli::{MovesArgs, MovesFormat},
    exit::ExitStatus,
};

pub fn run(args: &MovesArgs) -> anyhow::Result<ExitStatus> {
    if args.every && args.to != MovesFormat::Fen {
        bail!("--every prints positions: it needs --to fen");
    }
    let start = match &args.fen {
        Some(fen) => pgnkit::fen_check::argument(fen).map_err(|why| anyhow::anyhow!("--fen {why}"))?,
        None => Chess::default(),
    };
    let mut converter = Converter { start, to: args.to, every: args.every, text: String::new(), warnings: Vec::new() };
    let mut out = io::BufWriter::with_capacity(1 << 16, crate::stdout::stdout());

    if !args.moves.is_empty() && args.moves != ["-"] {
        // The arguments are one game, whether given one move per argument
        // or quoted together.
        let converted = converter.convert(&args.moves.join(" "));
        if converted.is_ok() {
            out.write_all(converter.text.as_bytes())?;
        }
        out.flush()?;
        let failed = tell(&converter.warnings, converted.err(), "");
        return Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success });
    }

    let mut input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut raw = Vec::new();
    let mut failed = false;
    for number in 1.. {
        // Answer each line at once when the input comes slowly (a script
        // feeding one game at a time), and in big writes otherwise.
        if input.buffer().is_empty() {
            out.flush()?;
        }
        raw.clear();
        if input.read_until(b'\n', &mut raw).context("stdin")? == 0 {
            break;
        }
        // A byte order mark (Windows editors write one) is not a move.
        if number == 1 && raw.starts_with(b"\xef\xbb\xbf") {
            raw.drain(..3);
        }
        let line = String::from_utf8_lossy(&raw);
        let converted = converter.convert(&line);
        match &converted {
            Ok(()) => {
                out.write_all(converter.text.as_bytes())?;
                if converter.every {
                    out.write_all(b"\n")?;
                }
            }
            // An empty line holds the failed line's place, so that a
            // script pairing input and output lines stays in step (with
            // --every, the empty line that ends a line's FENs).
            Err(_) => out.write_all(b"\n")?,
        }
        if converted.is_err() || !converter.warnings.is_empty() {
            // Output so far goes out first, so that it stays in step with
            // the messages when both streams go to one terminal.
            out.flush()?;
        }
        failed |= tell(&converter.warnings, converted.err(), &format!("line {number}: "));
    }
    out.flush()?;
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}

/// Writes a line's warnings, then its failure, to stderr after `pgnkit: `
/// and `place`; whether it failed.
fn tell(warnings: &[Failure], failure: Option<Failure>, place: &str) -> bool {
    for said in warnings.iter().chain(&failure).filter(|_| crate::sink::findings_shown()) {
        say!("pgnkit: {place}{}", escape_controls(&said.to_string()));
    }
    failure.is_some()
}

/// Converts one line (one game) at a time into `text`.
struct Converter {
    start: Chess,
    to: MovesFormat,
    every: bool,
    text: String,
    /// The last line's warnings: a move read leniently, as `validate`
    /// warns of it.
    warnings: Vec<Failure>,
}

/// A move of a line that cannot be played, or (`warning`) that was read
/// leniently.
struct Failure {
    /// 1-based ply within the line.
    ply: usize,
    /// The move as written, after its move number (`2. Nf4`).
    shown: String,
    error: MoveError,
    warning: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Failure { ply, shown, error, warning } = self;
        // A junk token can be megabytes long.
        let (message, shown) = (shorten(&error.message, 300), shorten(shown, 60));
        let severity = if *warning { "warning" } else { "error" };
        write!(f, "{severity}[{}]: {message} (ply {ply}: {shown})", error.code)
    }
}

impl Converter {
    /// Fills `text` with the converted line, ending in a newline (with
    /// `--every`, one line per ply); an empty line gives an empty line.
    fn convert(&mut self, line: &str) -> Result<(), Failure> {
        self.text.clear();
        self.warnings.clear();
        let mut pos = self.start.clone();
        let mut plies = 0;
        let mut result = None;
        let mut tokens = notation::tokens(line).peekable();
        if tokens.peek().is_none() {
            if !self.every {
                self.text.push('\n');
            }
            return Ok(());
        }
        for token in tokens {
            let word = match token {
                Token::Result(r) => {
                    result = Some(r);
                    continue;
                }
                Token::Move(word) => word,
            };
            let fail = |pos: &Chess, error, warning| Failure {
                ply: plies + 1,
                shown: format!("{} {word}", notation::move_number(pos)),
                error,
                warning,
            };
            if let Some(r) = result {
                let message = format!("a move after the result `{r}`");
                return Err(fail(&pos, MoveError { code: Code::InvalidSan, reason: None, message }, false));
            }
            let Read { m, leniency } = notation::read_move(&pos, word).map_err(|error| fail(&pos, error, false))?;
            // Coordinates are no fault here: `moves` reads every notation.
            if leniency == Some(Leniency::UnmarkedCapture) && self.warnings.is_empty() {
                let message = format!(
                    "{} (later captures of this line written so are read the same way, without a warning)",
                    Leniency::UnmarkedCapture.describe(&pos, m, word)
                );
                let warning = MoveError { code: Code::UnmarkedCapture, reason: None, message };
                self.warnings.push(fail(&pos, warning, true));
            }
            if plies > 0 && self.to != MovesFormat::Fen {
                self.text.push(' ');
            }
            match self.to {
                MovesFormat::San => notation::write_and_play(&mut pos, m, Notation::San, &mut self.text),
                MovesFormat::Uci => notation::write_and_play(&mut pos, m, Notation::Uci, &mut self.text),
                MovesFormat::Lan => notation::write_and_play(&mut pos, m, Notation::Lan, &mut self.text),
                MovesFormat::Pgn => {
                    if plies == 0 || pos.turn() == Color::White {
                        self.text.push_str(&notation::move_number(&pos));
                        self.text.push(' ');
                    }
                    notation::write_and_play(&mut pos, m, Notation::San, &mut self.text);
                }
                MovesFormat::Fen => {
                    pos.play_unchecked(m);
                    if self.every {
                        push_fen(&pos, &mut self.text);
                    }
                }
            }
            plies += 1;
        }
        match self.to {
            MovesFormat::Fen if !self.every => push_fen(&pos, &mut self.text),
            MovesFormat::Fen => {}
            MovesFormat::Pgn => {
                if let Some(result) = result {
                    if plies > 0 {
                        self.text.push(' ');
                    }
                    self.text.push_str(result);
                }
                self.text.push('\n');
            }
            MovesFormat::San | MovesFormat::Uci | MovesFormat::Lan => self.text.push('\n'),
        }
        Ok(())
    }
}

/// The FEN of `pos` and a newline; the en passant square only when a
/// capture is legal, as in `validate`'s `final_fen`.
fn push_fen(pos: &Chess, text: &mut String) {
    Fen::from_position(pos, EnPassantMode::Legal).append_to_string(text);
    text.push('\n');
}
