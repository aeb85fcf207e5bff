//! Fingerprints of findings that survive edits elsewhere in the file, and
//! baseline files of them (`--baseline`, `--write-baseline`; the GitLab
//! report's `fingerprint` and SARIF's `partialFingerprints` are the same).
//!
//! A line number would not do: a game inserted above moves every line
//! below it. So a game's finding is fingerprinted by what names the game,
//! not where it is:
//!
//! * the file, as named on the command line;
//! * the game: the values of its Event, Site, Date, Round, White and Black
//!   tags (the Seven Tag Roster without Result, which is an outcome and
//!   often the thing fixed), its FEN tag, and its first eight main-line
//!   moves as written (the games of one match, or of a puzzle book, often
//!   share their tags); or its whole text when it has none of the six tags;
//! * the finding: its code, ply and move as written, and how many findings
//!   of the same code, ply and move come before it in the game.
//!
//! So editing one game changes no other game's fingerprints, and fixing one
//! finding of a game leaves the game's other findings matched (unless the
//! fix is to one of those tags or first moves). Games alike in all of
//! these (copies of one game) share fingerprints: a finding of one is
//! matched by the other's, the price of a key that needs no game number.
//! A `fen check` record is fingerprinted by its file, its text and the
//! finding's code and column.
//!
//! The hash is XXH3's 128-bit one, of the fields each preceded by its
//! length: stable across runs, thread counts, platforms and versions of
//! pgnkit (a change would be a breaking one, named in the changelog).
//!
//! A baseline file is JSON Lines: a first line saying what it is
//! (`{"pgnkit_baseline":1,"command":"validate"}`), then one line per
//! finding with its `fingerprint`, and where it was (`file`, `game`,
//! `line`, `code`) for a person reading the file; only the fingerprint is
//! matched.

use std::{collections::HashSet, io::BufRead};

use serde::{Deserialize, Serialize};

use crate::{
    fen_check::{FenFinding, FenReport},
    frame::locate::{self, Event, TokenKind},
    game::Tags,
    output::findings::ci::Fingerprint,
    report::{Diagnostic, GameReport},
};

/// The tags that name a game.
const NAMING_TAGS: [&str; 6] = ["Event", "Site", "Date", "Round", "White", "Black"];

/// The main-line moves of a game's identity.
const OPENING_MOVES: usize = 8;

/// The version of the baseline format and of its fingerprints.
const VERSION: u32 = 1;

/// Fields hashed into one fingerprint, each preceded by its length so that
/// no two lists of fields hash the same bytes.
#[derive(Default)]
struct Key(Vec<u8>);

impl Key {
    fn field(mut self, bytes: &[u8]) -> Key {
        self.0.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
        self
    }

    fn fingerprint(&self) -> Fingerprint {
        Fingerprint(twox_hash::XxHash3_128::oneshot(&self.0))
    }
}

/// What names a game in its fingerprints: its naming tags, its FEN tag and
/// its first eight main-line moves as written, or its whole text when it
/// has no naming tag. `game` is the game's text as framed.
pub fn game_identity(game: &[u8]) -> Fingerprint {
    let tags = Tags::scan_only(game, &[&NAMING_TAGS[..], &["FEN"]].concat());
    if !tags.iter().any(|(name, _)| NAMING_TAGS.contains(&name)) {
        return Key::default().field(b"text").field(game).fingerprint();
    }
    let mut key = Key::default().field(b"tags");
    for name in NAMING_TAGS.iter().chain(&["FEN"]) {
        // A tag given twice counts by its last value, as pgn-reader reads it.
        let value = tags.iter().filter(|(n, _)| n == name).last().map(|(_, v)| v);
        key = match value {
            Some(value) => key.field(b"=").field(value.as_bytes()),
            None => key.field(b"-"),
        };
    }
    // The games of a match or a puzzle book often share their tags; their
    // openings tell them apart.
    let mut moves = 0;
    locate::scan(game, |event| {
        if let Event::Token(token) = event
            && token.kind == TokenKind::Move
            && token.depth == 0
            && moves < OPENING_MOVES
        {
            moves += 1;
            key = std::mem::take(&mut key).field(&game[token.offset..token.offset + token.len]);
        }
    });
    key.fingerprint()
}

/// The fingerprints of a game's findings (`report` is the game's report,
/// `identity` its [`game_identity`]), in the order of its diagnostics.
pub fn game_fingerprints(report: &GameReport, identity: Fingerprint) -> Vec<Fingerprint> {
    let mut seen: Vec<(&Diagnostic, u64)> = Vec::new();
    report
        .diagnostics
        .iter()
        .map(|d| {
            let same = |other: &Diagnostic| other.code == d.code && other.ply == d.ply && other.san == d.san;
            let before = seen.iter().filter(|(other, _)| same(other)).count() as u64;
            seen.push((d, before));
            Key::default()
                .field(b"validate")
                .field(report.file.as_bytes())
                .field(&identity.0.to_le_bytes())
                .field(d.code.as_str().as_bytes())
                .field(&d.ply.map_or(u64::MAX, u64::from).to_le_bytes())
                .field(d.san.as_deref().unwrap_or("").as_bytes())
                .field(&before.to_le_bytes())
                .fingerprint()
        })
        .collect()
}

/// The fingerprints of a record's findings, in their order; `file` as the
/// record's findings name it.
pub fn record_fingerprints(file: &str, report: &FenReport<'_>) -> Vec<Fingerprint> {
    let key = |f: &FenFinding| {
        Key::default()
            .field(b"fen check")
            .field(file.as_bytes())
            .field(report.fen.as_bytes())
            .field(f.code.as_str().as_bytes())
            .field(&f.column.to_le_bytes())
            .fingerprint()
    };
    report.findings.iter().map(key).collect()
}

/// The first line of a baseline file.
#[derive(Serialize, Deserialize)]
struct Header {
    pgnkit_baseline: u32,
    command: String,
}

/// A line of a baseline file after the first: the fingerprint, and for
/// people where the finding was.
#[derive(Serialize)]
struct Entry<'a> {
    fingerprint: &'a str,
    file: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<u64>,
    line: u64,
    code: &'a str,
}

/// What is read of an [`Entry`]: the rest is for people.
#[derive(Deserialize)]
struct Stored {
    fingerprint: String,
}

/// The findings of an earlier run, not to be reported again.
#[derive(Debug, Default)]
pub struct Baseline {
    fingerprints: HashSet<Fingerprint>,
}

impl Baseline {
    /// Reads a baseline file written by `command` (`validate`, `fen check`).
    ///
    /// # Errors
    ///
    /// The file cannot be read, is not a baseline, or is another command's;
    /// the message says which line.
    pub fn read(reader: impl BufRead, command: &str) -> Result<Baseline, String> {
        let mut lines = reader.lines();
        let first = lines.next().transpose().map_err(|err| err.to_string())?.unwrap_or_default();
        let header: Header = serde_json::from_str(&first)
            .map_err(|_| "line 1: not a pgnkit baseline (written by --write-baseline)".to_owned())?;
        if header.pgnkit_baseline != VERSION {
            return Err(format!("line 1: baseline version {} (this pgnkit reads {VERSION})", header.pgnkit_baseline));
        }
        if header.command != command {
            return Err(format!("line 1: a baseline of `pgnkit {}`, not of `pgnkit {command}`", header.command));
        }
        let mut baseline = Baseline::default();
        for (number, line) in (2..).zip(lines) {
            let line = line.map_err(|err| err.to_string())?;
            if line.trim().is_empty() {
                continue;
            }
            let fingerprint = serde_json::from_str::<Stored>(&line)
                .ok()
                .filter(|entry| entry.fingerprint.len() == 32)
                .and_then(|entry| u128::from_str_radix(&entry.fingerprint, 16).ok())
                .ok_or_else(|| format!("line {number}: not a baseline entry"))?;
            baseline.fingerprints.insert(Fingerprint(fingerprint));
        }
        Ok(baseline)
    }

    /// How many findings it holds.
    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// Whether it holds the finding.
    pub fn contains(&self, fingerprint: Fingerprint) -> bool {
        self.fingerprints.contains(&fingerprint)
    }

    /// Drops the game's findings it holds (and their fingerprints), and
    /// judges the game by what is left; returns how many it dropped.
    pub fn suppress_in_game(&self, report: &mut GameReport, fingerprints: &mut Vec<Fingerprint>) -> u64 {
        let keep: Vec<bool> = fingerprints.iter().map(|&f| !self.contains(f)).collect();
        let dropped = keep.iter().filter(|&&k| !k).count() as u64;
        if dropped > 0 {
            let mut flags = keep.iter();
            report.diagnostics.retain(|_| *flags.next().unwrap_or(&true));
            let mut flags = keep.iter();
            fingerprints.retain(|_| *flags.next().unwrap_or(&true));
            report.valid = report.checked && !report.invalid();
        }
        dropped
    }

    /// As [`Baseline::suppress_in_game`], for a record of `fen check`.
    pub fn suppress_in_record(&self, report: &mut FenReport<'_>, fingerprints: &mut Vec<Fingerprint>) -> u64 {
        let keep: Vec<bool> = fingerprints.iter().map(|&f| !self.contains(f)).collect();
        let dropped = keep.iter().filter(|&&k| !k).count() as u64;
        if dropped > 0 {
            let mut flags = keep.iter();
            report.findings.retain(|_| *flags.next().unwrap_or(&true));
            let mut flags = keep.iter();
            fingerprints.retain(|_| *flags.next().unwrap_or(&true));
            report.valid = !report.findings.iter().any(|f| f.severity == crate::report::Severity::Error);
        }
        dropped
    }
}

/// The first line of a baseline file of `command`.
pub fn header(command: &str, out: &mut Vec<u8>) {
    let header = Header { pgnkit_baseline: VERSION, command: command.to_owned() };
    serde_json::to_writer(&mut *out, &header).expect("a header always serializes");
    out.push(b'\n');
}

/// The baseline lines of a game's findings.
pub fn game_entries(report: &GameReport, fingerprints: &[Fingerprint], out: &mut Vec<u8>) {
    for (d, fingerprint) in report.diagnostics.iter().zip(fingerprints) {
        let fingerprint = fingerprint.to_string();
        let entry = Entry {
            fingerprint: &fingerprint,
            file: &report.file,
            game: Some(report.game),
            line: d.line,
            code: d.code.as_str(),
        };
        serde_json::to_writer(&mut *out, &entry).expect("an entry always serializes");
        out.push(b'\n');
    }
}

/// The baseline lines of a record's findings.
pub fn record_entries(file: &str, report: &FenReport<'_>, fingerprints: &[Fingerprint], out: &mut Vec<u8>) {
    for (f, fingerprint) in report.findings.iter().zip(fingerprints) {
        let fingerprint = fingerprint.to_string();
        let entry = Entry { fingerprint: &fingerprint, file, game: None, line: report.line, code: f.code.as_str() };
        serde_json::to_writer(&mut *out, &entry).expect("an entry always serializes");
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{check::Checker, frame::Batch, frame::Framer};

    fn reports(pgn: &str) -> Vec<(GameReport, Fingerprint)> {
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut checker = Checker::default();
        let mut out = Vec::new();
        let file: Arc<str> = Arc::from("a.pgn");
        while framer.next_batch(&mut batch).unwrap() {
            out.extend(batch.games().map(|game| (checker.check(&file, game), game_identity(game.bytes))));
        }
        out
    }

    const BAD: &str = "[Event \"E\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n";
    const GOOD: &str = "[Event \"F\"]\n[White \"C\"]\n[Black \"D\"]\n\n1. d4 d5 *\n\n";

    #[test]
    fn a_game_inserted_above_or_a_changed_result_leaves_fingerprints_alone() {
        let alone = reports(BAD);
        let below = reports(&format!("{GOOD}{GOOD}{BAD}"));
        let fingerprints = |(report, identity): &(GameReport, Fingerprint)| game_fingerprints(report, *identity);
        assert_eq!(alone[0].0.diagnostics[0].code.as_str(), "illegal-move");
        assert_eq!(fingerprints(&alone[0]), fingerprints(&below[2]));
        let other_result = reports(&BAD.replace("[Result \"*\"]", "[Result \"1-0\"]"));
        assert_eq!(fingerprints(&alone[0])[0], fingerprints(&other_result[0])[0]);
        let other_game = reports(&BAD.replace("[White \"A\"]", "[White \"Z\"]"));
        assert_ne!(fingerprints(&alone[0]), fingerprints(&other_game[0]));
    }

    #[test]
    fn a_baseline_reads_what_was_written_and_drops_those_findings() {
        let games = reports(&format!("{BAD}{GOOD}"));
        let (report, identity) = &games[0];
        let mut fingerprints = game_fingerprints(report, *identity);
        let mut file = Vec::new();
        header("validate", &mut file);
        game_entries(report, &fingerprints, &mut file);
        let baseline = Baseline::read(&file[..], "validate").unwrap();
        assert_eq!(baseline.len(), report.diagnostics.len());
        let mut report = report.clone();
        assert!(!report.valid);
        assert_eq!(baseline.suppress_in_game(&mut report, &mut fingerprints), baseline.len() as u64);
        assert!(report.diagnostics.is_empty() && fingerprints.is_empty() && report.valid);
        assert!(Baseline::read(&file[..], "fen check").unwrap_err().contains("not of `pgnkit fen check`"));
        assert!(Baseline::read(&b"{\"file\":1}\n"[..], "validate").unwrap_err().contains("not a pgnkit baseline"));
        let mut broken = file.clone();
        broken.extend_from_slice(b"{\"fingerprint\":\"xyz\"}\n");
        assert!(Baseline::read(&broken[..], "validate").unwrap_err().starts_with("line 3:"));
    }

    #[test]
    fn a_game_is_named_by_its_tags_and_first_moves_or_without_tags_by_its_text() {
        assert_ne!(game_identity(b"1. e4 e5 *\n"), game_identity(b"1. d4 d5 *\n"));
        let named = |moves: &str| game_identity(format!("[White \"A\"]\n\n{moves} *\n").as_bytes());
        assert_ne!(named("1. e4"), named("1. d4"));
        let opening = "1. e4 {a comment} e5 2. Nf3 (2. Nc3) Nc6 3. Bb5 a6 $1 4. Ba4 Nf6";
        assert_eq!(named(&format!("{opening} 5. O-O")), named(&format!("{opening} 5. d3 Be7")));
        assert_ne!(named(&format!("{opening} 5. O-O")), named(&opening.replace("2. Nf3", "2. Nc3")));
        let fen = |fen: &str| game_identity(format!("[White \"A\"]\n[FEN \"{fen}\"]\n\n1. Kd2 *\n").as_bytes());
        assert_ne!(fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), fen("4k3/8/8/8/8/8/8/3K4 w - - 0 1"));
    }
}
