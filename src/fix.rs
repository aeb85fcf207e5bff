//! What `fix` repairs in a checked game, and the game written again with
//! its repairs, or as it was read.
//!
//! A game is written byte for byte as it was read when it has nothing to
//! repair, and when it cannot be repaired: it was not replayed to its end
//! (an illegal or ambiguous move, a broken FEN tag or variant, broken
//! syntax, a cut), or writing it again would lose text the reader skips
//! (an annotation written as text, a NAG past 255). Any other game with
//! something to repair is written as `convert --to pgn` writes it (export
//! format: the Seven Tag Roster first, SAN regenerated, movetext wrapped),
//! with its result made right. Such a game has nothing left to repair when
//! read again, so that a second `fix` writes every game as it reads it:
//! fixing is idempotent. Stray text between games belongs to no game and
//! is never written.

use std::sync::Arc;

use shakmaty::Color;

use crate::{
    aliases::Aliases,
    check::{GameReader, KeptTags, Options, ReadOptions},
    frame::{RawGame, TagAt, locate},
    game::{Game, Tags},
    notation,
    output::games::{GameWriter, PgnWriter, crlf_from, ends_lines_with_crlf, pgn::SEVEN_TAG_ROSTER, write_original},
    report::{Code, Diagnostic, GameReport, Severity, Termination},
};

/// A kind of repair; its kebab-case name is stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Repair {
    /// The Result tag set to what the board or the termination marker says.
    FixedResultTag,
    /// The termination marker set to the game's result, or written as the
    /// standard writes it.
    FixedResultMarker,
    /// A termination marker added where the movetext had none.
    AddedResultMarker,
    /// Moves written again in standard SAN.
    NormalizedSan,
    /// Text that is not UTF-8, read as Windows-1252 (Latin-1), written as
    /// UTF-8. The code keeps its first name.
    ReEncodedLatin1,
    /// Tags of the Seven Tag Roster added with their unknown values.
    CompletedSevenTagRoster,
    /// Castling rights the FEN tag's position cannot have, dropped from it.
    DroppedCastlingRights,
    /// An en passant square the FEN tag's position cannot have, dropped.
    DroppedEnPassant,
    /// ECO and Opening tags set from `--openings`.
    SetOpeningTags,
    /// A White or Black tag that is an alias of `--aliases` set to its name.
    SetPlayerName,
    /// Text between games that is no game, left out.
    RemovedStrayText,
    /// A tag of a name a rewritten game gives again later, left out (the
    /// last is kept: of a tag given twice the last counts, for every
    /// reader).
    RemovedDuplicateTag,
    /// A variation with no move in it (`()`), left out.
    RemovedEmptyVariation,
    /// Quotes of a tag value that were not escaped, escaped.
    EscapedTagQuotes,
    /// A game glued to the termination marker of the game before
    /// (`0-1[Event`), written on lines of its own.
    SeparatedGluedGame,
}

impl Repair {
    /// Every repair.
    pub const ALL: &'static [Repair] = &[
        Repair::FixedResultTag,
        Repair::FixedResultMarker,
        Repair::AddedResultMarker,
        Repair::NormalizedSan,
        Repair::ReEncodedLatin1,
        Repair::CompletedSevenTagRoster,
        Repair::DroppedCastlingRights,
        Repair::DroppedEnPassant,
        Repair::SetOpeningTags,
        Repair::SetPlayerName,
        Repair::RemovedStrayText,
        Repair::RemovedDuplicateTag,
        Repair::RemovedEmptyVariation,
        Repair::EscapedTagQuotes,
        Repair::SeparatedGluedGame,
    ];

    /// The stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Repair::FixedResultTag => "fixed-result-tag",
            Repair::FixedResultMarker => "fixed-result-marker",
            Repair::AddedResultMarker => "added-result-marker",
            Repair::NormalizedSan => "normalized-san",
            Repair::ReEncodedLatin1 => "re-encoded-latin1",
            Repair::CompletedSevenTagRoster => "completed-seven-tag-roster",
            Repair::DroppedCastlingRights => "dropped-castling-rights",
            Repair::DroppedEnPassant => "dropped-en-passant",
            Repair::SetOpeningTags => "set-opening-tags",
            Repair::SetPlayerName => "set-player-name",
            Repair::RemovedStrayText => "removed-stray-text",
            Repair::RemovedDuplicateTag => "removed-duplicate-tag",
            Repair::RemovedEmptyVariation => "removed-empty-variation",
            Repair::EscapedTagQuotes => "escaped-tag-quotes",
            Repair::SeparatedGluedGame => "separated-glued-game",
        }
    }
}

/// One repair, located where the input had what was repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What kind.
    pub code: Repair,
    /// 1-based line in the input.
    pub line: u64,
    /// 1-based column (in characters) in the input.
    pub column: u32,
    /// What was done, in a user's words; empty when [`fix`] was asked for
    /// no messages.
    pub message: String,
}

/// What became of one game.
#[derive(Debug, Clone)]
pub struct Fixed {
    /// The repairs made, in the order of the text.
    pub fixes: Vec<Fix>,
    /// The game's report with only the findings `fix` does not repair
    /// (those `validate` prints, `--lint` off), located in the input.
    pub left: GameReport,
    /// Whether the game was written again rather than as read.
    pub rewritten: bool,
}

impl Fixed {
    /// Whether an error is left that `fix` could not repair.
    pub fn unfixable(&self) -> bool {
        self.left.invalid()
    }
}

/// How games must be read for [`fix`]: every tag, full reports with the
/// final position, and the `--lint` findings, which tell the moves not
/// written in standard SAN (without their messages: `fix` shows none).
/// Without the repairs' `messages` (`fix -q`), the lint stops at a game's
/// first finding: one is reason enough to write the game again.
pub fn read_options(messages: bool) -> ReadOptions {
    ReadOptions {
        check: Options {
            full_reports: true,
            final_fen: true,
            lint: true,
            lint_messages: false,
            lint_first_only: !messages,
            variations: true,
        },
        tags: KeptTags::All,
        // The SAN the lint works out is what a rewritten game is written
        // with: kept, it is not worked out again by playing the moves.
        san: true,
        ..ReadOptions::default()
    }
}

/// Reads a game for [`fix`] with its notes, by a reader made with
/// [`read_options`] and the same `messages`. Without them, a game whose
/// tags lack one of the Seven Tag Roster is written again whatever its
/// moves show (unless it cannot be): its moves are not linted, as the
/// lint's findings would only add repairs that are not shown.
pub fn read(reader: &mut GameReader, file: &Arc<str>, raw: RawGame<'_>, messages: bool) -> Game {
    if !messages && lacks_roster_tag(&raw) {
        reader.read_unlinted(file, raw, true)
    } else {
        reader.read(file, raw, true)
    }
}

/// Whether the tags the framer kept of `raw` lack one of the Seven Tag
/// Roster; false when it kept none.
fn lacks_roster_tag(raw: &RawGame<'_>) -> bool {
    let name = |tag: &TagAt| &raw.bytes[tag.name.start as usize..tag.name.end as usize];
    raw.frame.flags.kept() && missing_roster(raw.tags.iter().map(name)) != 0
}

/// The tags of the Seven Tag Roster a game lacks: bit `k` for the `k`-th
/// of [`SEVEN_TAG_ROSTER`].
fn missing_roster_tags(tags: &Tags) -> u8 {
    missing_roster(tags.iter().map(|(name, _)| name.as_bytes()))
}

/// The names of the Seven Tag Roster not among `names`, from one pass:
/// bit `k` for the `k`-th of [`SEVEN_TAG_ROSTER`] (a list of them, grown
/// tag by tag, cost a reallocation at most games).
fn missing_roster<'a>(names: impl Iterator<Item = &'a [u8]>) -> u8 {
    let mut missing = (1u8 << SEVEN_TAG_ROSTER.len()) - 1;
    for name in names {
        if let Some(k) = crate::output::games::pgn::roster_index(name) {
            missing &= !(1 << k);
        }
    }
    missing
}

/// Findings that writing the game again repairs (with the result set).
fn repaired_by_rewrite(code: Code) -> bool {
    matches!(
        code,
        Code::ResultMismatch
            | Code::InvalidResultTag
            | Code::MissingResult
            | Code::NonstandardResultMarker
            | Code::NonUtf8
            | Code::FenTagRepaired
            | Code::EmptyVariation
            | Code::UnescapedQuote
    ) || san_kind(code).is_some()
}

/// What a finding about a move's notation says is not standard SAN.
fn san_kind(code: Code) -> Option<&'static str> {
    Some(match code {
        Code::NonSanMove => "another notation",
        Code::UnmarkedCapture => "captures without x",
        Code::LintCheckSuffix => "check and mate marks",
        Code::LintDisambiguation => "disambiguation",
        Code::LintZeroCastling => "castling with zeros",
        Code::LintPromotionEquals => "promotions without =",
        Code::LintEnPassantSuffix => "e.p. suffixes",
        _ => return None,
    })
}

/// Findings of `--lint` only: `validate` does not print them by default.
fn lint_only(code: Code) -> bool {
    matches!(
        code,
        Code::LintCheckSuffix
            | Code::LintDisambiguation
            | Code::LintZeroCastling
            | Code::LintPromotionEquals
            | Code::LintEnPassantSuffix
    )
}

/// Whether writing the game again cannot be done without loss: it was not
/// replayed to its end, or it holds text the reader skips.
fn blocked(game: &Game) -> bool {
    game.start.is_none()
        || game.report.diagnostics.iter().any(|d| {
            let error =
                d.severity == Severity::Error && !matches!(d.code, Code::ResultMismatch | Code::InvalidResultTag);
            error || matches!(d.code, Code::TextAnnotation | Code::InvalidNag)
        })
}

/// Repairs `game`, read from `raw` with [`read_options`] and its notes, and
/// appends it to `out`: written again by `writer` when it has something to
/// repair and can be, else as it was read. A White or Black tag that is one
/// of `aliases` is something to repair.
///
/// Each repair has its message when `messages` is true; else none is
/// made (`fix -q` counts the repairs and shows none).
pub fn fix(
    game: &mut Game,
    raw: &RawGame<'_>,
    writer: &PgnWriter,
    aliases: Option<&Aliases>,
    messages: bool,
    out: &mut Vec<u8>,
) -> Fixed {
    let mut fixes = Repairs::new(messages);
    let opening = writer.options.openings.as_ref().and_then(|openings| openings.of_game(game)).cloned();
    let blocked = blocked(game);
    let missing = missing_roster_tags(&game.tags);
    let opening_differs = opening.as_ref().is_some_and(|o| {
        game.tags.get("ECO") != Some(o.eco.as_str()) || game.tags.get("Opening") != Some(o.name.as_str())
    });
    let renamed: Vec<(&str, String)> = match aliases {
        Some(aliases) => ["White", "Black"]
            .into_iter()
            .filter_map(|tag| Some((tag, aliases.name_of(game.tags.get(tag)?)?.to_owned())))
            .collect(),
        None => Vec::new(),
    };
    let rewrite = !blocked
        && (game.report.diagnostics.iter().any(|d| repaired_by_rewrite(d.code))
            || missing != 0
            || opening_differs
            || !renamed.is_empty());
    let at = Locator { raw, utf8: !game.report.diagnostics.iter().any(|d| d.code == Code::NonUtf8) };
    if rewrite {
        let result = fixed_result(&game.report);
        result_fixes(&game.report, result, &at, &mut fixes);
        san_fix(&game.report.diagnostics, &mut fixes);
        for d in game.report.diagnostics.iter().filter(|d| d.code == Code::EmptyVariation) {
            fixes.add(Repair::RemovedEmptyVariation, (d.line, d.column), || {
                "a variation with no move in it, left out".to_owned()
            });
        }
        if let Some(d) = game.report.diagnostics.iter().find(|d| d.code == Code::NonUtf8) {
            fixes.add(Repair::ReEncodedLatin1, (d.line, d.column), || {
                "Windows-1252 (Latin-1) text written as UTF-8".to_owned()
            });
        }
        if missing != 0 {
            fixes.add(Repair::CompletedSevenTagRoster, (raw.frame.line, raw.frame.column), || {
                added_tags_message(missing, result)
            });
        }
        for d in game.report.diagnostics.iter().filter(|d| d.code == Code::UnescapedQuote) {
            fixes.add(Repair::EscapedTagQuotes, (d.line, d.column), || {
                let value = d.message.split_once(" holds ").map_or("a tag value", |(value, _)| value);
                format!("{value} written with its quotes escaped")
            });
        }
        repair_fen_tag(game, &at, &mut fixes);
        for (tag, name) in renamed {
            let (line, column) = at.tag(tag);
            fixes.add(Repair::SetPlayerName, (line, column), || {
                let alias = crate::text::escape_controls(game.tags.get(tag).unwrap_or_default());
                format!("[{tag} \"{alias}\"] set to \"{name}\", the name of its alias")
            });
            game.tags.set(tag, &name);
        }
        if let Some(o) = opening.as_ref().filter(|_| opening_differs) {
            fixes.add(Repair::SetOpeningTags, (raw.frame.line, raw.frame.column), || {
                format!("[ECO \"{}\"] and [Opening \"{}\"] from the openings table", o.eco, o.name)
            });
        }
        // The export keeps the last tag of a name; say what goes. ECO and
        // Opening from a table replace every one of the game's.
        let replaced = |name: &str| opening.is_some() && matches!(name, "ECO" | "Opening");
        for (dropped, last) in earlier_tags_of_a_name(&game.tags) {
            let ((name, value), (_, last)) = (game.tags.nth(dropped), game.tags.nth(last));
            if replaced(name) {
                continue;
            }
            fixes.add(Repair::RemovedDuplicateTag, (raw.frame.line, raw.frame.column), || {
                format!(
                    "dropped [{name} \"{}\"], an earlier {name} tag (the last, \"{}\", is kept)",
                    crate::text::escape_controls(value),
                    crate::text::escape_controls(last)
                )
            });
        }
        if result != "*" {
            // The result is given now.
            game.report.diagnostics.retain(|d| d.code != Code::UnknownResult);
        }
        game.result = result;
        let from = out.len();
        writer.game(game, out);
        if ends_lines_with_crlf(raw.bytes) {
            crlf_from(out, from);
        }
    } else {
        write_original(raw.bytes, out);
    }
    between_games_fixes(&game.report.diagnostics, raw, &mut fixes);
    let mut fixes = fixes.into_list();
    fixes.sort_by_key(|f| (f.line, f.column));
    // The game's report is what is left of it; the rest goes back to its
    // reader for the next game.
    let file = std::sync::Arc::clone(&game.report.file);
    let mut left = std::mem::replace(&mut game.report, GameReport::new(&file, 0, 0));
    // A rewritten game gives each tag once.
    let rewritten = |code: Code| repaired_by_rewrite(code) || code == Code::DuplicateTag;
    left.diagnostics.retain(|d| {
        !(lint_only(d.code) || matches!(d.code, Code::StrayText | Code::GluedGame) || (rewrite && rewritten(d.code)))
    });
    left.valid = left.checked && !left.invalid();
    Fixed { fixes, left, rewritten: rewrite }
}

/// `added [Round "?"], [Result "1-0"]`: the repair's message for the
/// roster tags a game lacked.
fn added_tags_message(missing: u8, result: &str) -> String {
    let added = || {
        SEVEN_TAG_ROSTER
            .iter()
            .enumerate()
            .filter(move |&(k, _)| missing & 1 << k != 0)
            .map(|(_, &(name, default))| (name, if name == "Result" { result } else { default }))
    };
    // Made in one buffer of its size: grown part by part, it was most of
    // the cost of `fix` beyond writing the games. `[`, ` "` and `"]` about
    // each tag, `, ` between them.
    let len = added().map(|(name, value)| name.len() + value.len() + 7).sum::<usize>();
    let mut message = String::with_capacity("added ".len() + len - 2);
    message.push_str("added ");
    for (i, (name, value)) in added().enumerate() {
        if i > 0 {
            message.push_str(", ");
        }
        for part in ["[", name, " \"", value, "\"]"] {
            message.push_str(part);
        }
    }
    message
}

/// A game's repairs as they are found, each worded only when messages
/// are asked for. As a game's findings are, the repairs of one kind are
/// listed up to [`FINDINGS_PER_CODE`](crate::check::FINDINGS_PER_CODE),
/// then counted: a game giving one tag a million times held a million
/// messages (460 MB).
struct Repairs {
    list: Vec<Fix>,
    messages: bool,
    /// Once the list holds [`FINDINGS_PER_CODE`] repairs, the count of each
    /// kind. Kept only then: counting every game's repairs cost 5 M
    /// instructions on the bench sample, 1% of `fix -q`.
    ///
    /// [`FINDINGS_PER_CODE`]: crate::check::FINDINGS_PER_CODE
    per_kind: Option<Box<PerKind>>,
}

/// Of each kind of repair, by [`Repair::ALL`]'s order: how many, and where
/// the first not listed is.
type PerKind = [(u64, (u64, u32)); Repair::ALL.len()];

/// Repairs of one kind a game lists, as findings of one code.
const LISTED: u64 = crate::check::FINDINGS_PER_CODE as u64;

impl Repairs {
    fn new(messages: bool) -> Repairs {
        Repairs { list: Vec::new(), messages, per_kind: None }
    }

    /// A repair of `code` at `(line, column)`, in the words of `message`.
    fn add(&mut self, code: Repair, (line, column): (u64, u32), message: impl FnOnce() -> String) {
        if self.list.len() as u64 >= LISTED && !self.listed(code, (line, column)) {
            return;
        }
        let message = if self.messages { message() } else { String::new() };
        self.list.push(Fix { code, line, column, message });
    }

    /// Counts a repair of a game with many; whether it is listed.
    #[cold]
    fn listed(&mut self, code: Repair, place: (u64, u32)) -> bool {
        let list = &self.list;
        let per_kind = self.per_kind.get_or_insert_with(|| {
            let mut per_kind: Box<PerKind> = Box::new([(0, (0, 0)); Repair::ALL.len()]);
            for fix in list {
                per_kind[fix.code as usize].0 += 1;
            }
            per_kind
        });
        let (count, first_unlisted) = &mut per_kind[code as usize];
        *count += 1;
        if *count == LISTED + 1 {
            *first_unlisted = place;
        }
        *count <= LISTED
    }

    /// The repairs listed, with one for each kind that had more.
    fn into_list(mut self) -> Vec<Fix> {
        let Some(per_kind) = self.per_kind.take() else { return self.list };
        for (&code, &(count, place)) in Repair::ALL.iter().zip(per_kind.iter()) {
            let Some(more) = count.checked_sub(LISTED).filter(|&more| more > 0) else { continue };
            let message = || {
                let (s, are) = if more == 1 { ("", "is") } else { ("s", "are") };
                format!(
                    "{more} more `{}` repair{s} in this game {are} not listed, from here on (the first {LISTED} are)",
                    code.as_str()
                )
            };
            let message = if self.messages { message() } else { String::new() };
            self.list.push(Fix { code, line: place.0, column: place.1, message });
        }
        self.list
    }
}

/// What became of text around the game that is part of no game: a game
/// glued to the one before set on lines of its own, stray text and the
/// comments and escape lines between games left out.
fn between_games_fixes(diagnostics: &[Diagnostic], raw: &RawGame<'_>, fixes: &mut Repairs) {
    if let Some(d) = diagnostics.iter().find(|d| d.code == Code::GluedGame) {
        // Every game is written on lines of its own, as read or not.
        fixes.add(Repair::SeparatedGluedGame, (d.line, d.column), || {
            "the game, whose first tag followed the termination marker of the game before, \
             written on lines of its own"
                .to_owned()
        });
    }
    for d in diagnostics.iter().filter(|d| d.code == Code::StrayText) {
        // Its own words, but for what became of the text.
        fixes.add(Repair::RemovedStrayText, (d.line, d.column), || d.message.replacen(", skipped: ", ", removed: ", 1));
    }
    let skipped = raw.skipped();
    for text in &skipped.kept {
        fixes.add(Repair::RemovedStrayText, (text.line, text.column), || {
            let shown = crate::text::decode(&text.text);
            let what = match text.text.first() {
                Some(b'%') => "an escape line",
                Some(b';') => "a comment to the end of the line",
                _ => "a comment",
            };
            format!("{what} between games (part of no game), removed: `{}`", crate::text::escape_controls(&shown))
        });
    }
    if let (Some(last), more @ 1..) = (skipped.kept.last(), skipped.more) {
        fixes.add(Repair::RemovedStrayText, (last.line, last.column), || {
            format!("{more} more comments or escape lines between games removed, not shown")
        });
    }
}

/// Finds lines and columns in a game's text.
struct Locator<'a, 'b> {
    raw: &'a RawGame<'b>,
    utf8: bool,
}

impl Locator<'_, '_> {
    fn at(&self, offset: usize) -> (u64, u32) {
        let frame = self.raw.frame;
        locate::line_column(self.raw.bytes, offset, frame.line, frame.column, self.utf8)
    }

    /// Where the tag `[name` is in the tag section, the last one given.
    fn tag(&self, name: &str) -> (u64, u32) {
        let bytes = self.raw.bytes;
        let tags = &bytes[..(self.raw.frame.movetext as usize).min(bytes.len())];
        let at = memchr::memmem::rfind(tags, format!("[{name}").as_bytes()).unwrap_or(0);
        self.at(at)
    }

    /// The termination marker's offset and text.
    fn marker(&self) -> Option<(usize, String)> {
        let bytes = self.raw.bytes;
        let at = locate::scan(bytes, |_| {}).result_at?;
        let len = bytes[at..].iter().position(u8::is_ascii_whitespace).unwrap_or(bytes.len() - at);
        Some((at, crate::text::text(&bytes[at..at + len], self.utf8)))
    }

    /// Just after the game's last non-blank byte.
    fn end(&self) -> (u64, u32) {
        let bytes = self.raw.bytes;
        self.at(bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1))
    }
}

/// What the board says the result is, and why, when the game ended on it:
/// checkmate, stalemate, insufficient material, or an automatic draw
/// (fivefold repetition, 75 moves), also one that play went on from (the
/// checker's rule: the first automatic draw ends the game).
fn board_result(report: &GameReport) -> Option<(&'static str, String)> {
    let drawn = [report.fivefold_ply, report.seventyfive_moves_ply].into_iter().flatten().min();
    if let Some(ply) = drawn.filter(|&ply| ply < report.plies) {
        return Some(("1/2-1/2", format!("the game was drawn on the board at ply {ply}")));
    }
    let end = report.termination.filter(|end| end.ends_game())?;
    let white_to_move = report.final_fen.is_some_and(|fen| fen.turn() == Color::White);
    let result = match end {
        Termination::Checkmate if white_to_move => "0-1",
        Termination::Checkmate => "1-0",
        _ => "1/2-1/2",
    };
    Some((result, format!("the game ended on the board ({})", end.as_str().replace('_', " "))))
}

/// The result a repaired game is written with. When the game ended on the
/// board, the board's, unless the game gives only `*` (unknown is no
/// contradiction: a puzzle's solution ends in mate and stays `*`); else
/// the termination marker's (pgn-extract's `--fixresulttags`: the marker
/// wins over the tag), else the Result tag's when it is a result, else `*`.
fn fixed_result(report: &GameReport) -> &'static str {
    let tag =
        report.result_tag.as_deref().and_then(|tag| ["1-0", "0-1", "1/2-1/2", "*"].into_iter().find(|&r| r == tag));
    let given = report.result_marker.or(tag);
    match board_result(report) {
        Some(_) if [report.result_marker, tag].iter().flatten().all(|&r| r == "*") && given.is_some() => "*",
        Some((result, _)) => result,
        None => given.unwrap_or("*"),
    }
}

/// The repairs of the Result tag and the termination marker.
fn result_fixes(report: &GameReport, result: &'static str, at: &Locator<'_, '_>, fixes: &mut Repairs) {
    let why = || match board_result(report) {
        Some((_, why)) => why,
        None => match report.result_marker {
            Some(marker) => format!("the movetext ends with {marker}"),
            None => "the movetext gives no result".to_owned(),
        },
    };
    if let Some(tag) = report.result_tag.as_deref().filter(|&tag| tag != result) {
        let (line, column) = at.tag("Result");
        fixes.add(Repair::FixedResultTag, (line, column), || {
            format!("[Result \"{tag}\"] set to \"{result}\": {}", why())
        });
    }
    // A marker written as the standard writes the result stays: the game's
    // text is not read again to find it.
    let standard = report.result_marker == Some(result)
        && !report.diagnostics.iter().any(|d| d.code == Code::NonstandardResultMarker);
    if standard {
        return;
    }
    match at.marker() {
        Some((offset, written)) if written != result => {
            let (line, column) = at.at(offset);
            fixes.add(Repair::FixedResultMarker, (line, column), || {
                if report.result_marker == Some(result) {
                    format!("the termination marker `{written}` written as the standard writes it, {result}")
                } else {
                    format!("the termination marker {written} set to {result}: {}", why())
                }
            });
        }
        Some(_) => {}
        None => {
            let (line, column) = at.end();
            fixes.add(Repair::AddedResultMarker, (line, column), || {
                let from = match report.result_tag.as_deref() {
                    Some(tag) if tag == result => "the Result tag's",
                    _ if result == "*" => "the result is not known",
                    _ => "the board's",
                };
                format!("added the termination marker {result} ({from})")
            });
        }
    }
}

/// One repair for all the moves written again in standard SAN, at the first.
fn san_fix(diagnostics: &[Diagnostic], fixes: &mut Repairs) {
    let mut kinds: Vec<&str> = Vec::new();
    let mut first: Option<&Diagnostic> = None;
    for d in diagnostics {
        if let Some(kind) = san_kind(d.code) {
            first.get_or_insert(d);
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
    }
    let Some(first) = first else { return };
    fixes.add(Repair::NormalizedSan, (first.line, first.column), || {
        let example = match (&first.san, first.ply) {
            (Some(san), Some(ply)) => format!(" (the first: `{san}`, ply {ply})"),
            _ => String::new(),
        };
        format!("moves written in standard SAN: {}{example}", kinds.join(", "))
    });
}

/// The FEN tag without the castling rights and en passant square its
/// position cannot have, the rest of it as written.
fn repair_fen_tag(game: &mut Game, at: &Locator<'_, '_>, fixes: &mut Repairs) {
    let Some(fen) = game.tags.get("FEN").map(str::to_owned) else { return };
    let chess960 =
        crate::tag_values::Variant::from_tag(game.tags.get("Variant")) == crate::tag_values::Variant::Chess960;
    let Ok((_, dropped)) = notation::tag_position(&fen, chess960) else { return };
    if dropped.is_empty() {
        return;
    }
    let mut fields: Vec<String> = fen.split_ascii_whitespace().map(str::to_owned).collect();
    let (line, column) = at.tag("FEN");
    if !dropped.castling.is_empty()
        && let Some(castling) = fields.get_mut(2)
    {
        let kept: String = castling.chars().filter(|&c| c != '-' && !dropped.castling.contains(c)).collect();
        let part = notation::Dropped { castling: dropped.castling.clone(), ep_square: None };
        *castling = if kept.is_empty() { "-".to_owned() } else { kept };
        fixes.add(Repair::DroppedCastlingRights, (line, column), || format!("dropped from the FEN tag: {part}"));
    }
    if let Some(square) = dropped.ep_square
        && let Some(ep) = fields.get_mut(3)
    {
        *ep = "-".to_owned();
        let part = notation::Dropped { castling: String::new(), ep_square: Some(square) };
        fixes.add(Repair::DroppedEnPassant, (line, column), || format!("dropped from the FEN tag: {part}"));
    }
    game.tags.set("FEN", &fields.join(" "));
}

/// Each tag whose name a tag after it repeats, with the last of that
/// name, as indices in tag order.
fn earlier_tags_of_a_name(tags: &Tags) -> Vec<(usize, usize)> {
    // Most games give each name once, which a bit for each name (of its
    // length and its first and last letters) tells without a list of the
    // names sorted by their hashes.
    let mut seen = 0u64;
    let mut repeated = false;
    for (name, _) in tags.iter() {
        let (first, last) = (name.bytes().next().unwrap_or(0), name.bytes().last().unwrap_or(0));
        let bit = 1u64 << ((name.len() + 3 * usize::from(first) + 5 * usize::from(last)) % 64);
        repeated |= seen & bit != 0;
        seen |= bit;
    }
    if !repeated {
        return Vec::new();
    }
    let names: Vec<&str> = tags.iter().map(|(name, _)| name).collect();
    crate::game::earlier_of_a_name(&names)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Repair, fix, read_options};
    use crate::{
        check::GameReader,
        frame::{Batch, Framer},
        output::games::PgnWriter,
    };

    /// Every game of `pgn` fixed: the output, and the codes of each game's
    /// repairs.
    fn fixed(pgn: &str) -> (String, Vec<Vec<&'static str>>) {
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut reader = GameReader::new(read_options(true));
        let (mut out, mut codes) = (Vec::new(), Vec::new());
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for raw in batch.games() {
                let done = fix(
                    &mut reader.read(&Arc::from("t.pgn"), raw, true),
                    &raw,
                    &PgnWriter::default(),
                    None,
                    true,
                    &mut out,
                );
                codes.push(done.fixes.iter().map(|f| f.code.as_str()).collect());
            }
        }
        (String::from_utf8(out).unwrap(), codes)
    }

    #[test]
    fn an_aliased_player_is_set_to_the_name_as_a_repair_and_the_game_written_again() {
        let aliases = crate::aliases::Aliases::parse("Carlsen M,\"Carlsen, Magnus\"\n").unwrap();
        let pgn = "[Event \"e\"]\n[Site \"s\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"w\"]\n[Black \" Carlsen M \"]\n\
                   [Result \"*\"]\n\n1. e4 *\n";
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut reader = GameReader::new(read_options(true));
        assert!(framer.next_batch(&mut batch).unwrap());
        let raw = batch.games().next().unwrap();
        let mut game = reader.read(&Arc::from("t.pgn"), raw, true);
        let mut out = Vec::new();
        let done = fix(&mut game, &raw, &PgnWriter::default(), Some(&aliases), true, &mut out);
        assert!(done.rewritten);
        assert_eq!(done.fixes.len(), 1);
        assert_eq!((done.fixes[0].code, done.fixes[0].line, done.fixes[0].column), (Repair::SetPlayerName, 6, 1));
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("[Black \"Carlsen, Magnus\"]\n") && out.contains("[White \"w\"]\n"), "{out}");
    }

    #[test]
    fn without_messages_the_same_repairs_are_made_where_they_are_and_worded_not() {
        let pgn = "[White \"Ren\u{e9}\"]\n[White \"R\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w KQ e6 0 1\"]\n\n\
                   1. Ke1-d2 Kd7 2. e4 Ke6 1-0\n\n{between} [Event \"e\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7+ ()\n";
        let fixed = |messages: bool| {
            let mut framer = Framer::new(pgn.as_bytes());
            let mut batch = Batch::default();
            let mut reader = GameReader::new(read_options(true));
            let (mut out, mut fixes) = (Vec::new(), Vec::new());
            while framer.next_batch(&mut batch).unwrap() {
                for raw in batch.games() {
                    let mut game = reader.read(&Arc::from("t.pgn"), raw, true);
                    fixes.extend(fix(&mut game, &raw, &PgnWriter::default(), None, messages, &mut out).fixes);
                }
            }
            (out, fixes)
        };
        let (worded_out, worded) = fixed(true);
        let (out, unworded) = fixed(false);
        assert_eq!(out, worded_out);
        assert!(worded.len() >= 8 && worded.iter().all(|f| !f.message.is_empty()), "{worded:?}");
        assert!(unworded.iter().all(|f| f.message.is_empty()), "{unworded:?}");
        let place = |fixes: &[super::Fix]| fixes.iter().map(|f| (f.code, f.line, f.column)).collect::<Vec<_>>();
        assert_eq!(place(&unworded), place(&worded));
    }

    /// `fix -q`'s reading ([`super::read`] without messages: no lint for a
    /// game lacking a roster tag, the lint stopped at a first finding)
    /// writes every game as the full reading does, with repairs or not
    /// alike, and the same findings left; it lints fewer moves.
    #[test]
    fn without_messages_fewer_moves_are_linted_and_every_game_is_written_the_same() {
        let roster = "[Event \"e\"]\n[Site \"s\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"w\"]\n[Black \"b\"]\n";
        // Three moves to normalize with the roster, one without.
        let crafted = format!(
            "{roster}[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0 6. Bxf7 *\n\n\
             1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 1-0\n"
        );
        let inputs = crate::frame::tests::fixtures().into_iter().chain([crafted.into_bytes()]);
        let (mut games, mut linted) = (0, [0, 0]);
        for input in inputs {
            let run = |messages: bool| {
                let mut framer = Framer::new(&input[..]);
                let mut batch = Batch::default();
                let mut reader = GameReader::new(read_options(messages));
                let mut written = Vec::new();
                while framer.next_batch(&mut batch).unwrap_or(false) {
                    for raw in batch.games() {
                        let mut game = super::read(&mut reader, &Arc::from("t.pgn"), raw, messages);
                        let lint = game.report.diagnostics.iter().filter(|d| super::lint_only(d.code)).count();
                        let mut out = Vec::new();
                        let done = fix(&mut game, &raw, &PgnWriter::default(), None, messages, &mut out);
                        written.push((out, done.rewritten, done.fixes.is_empty(), done.left.diagnostics, lint));
                    }
                }
                written
            };
            let (worded, quiet) = (run(true), run(false));
            assert_eq!(worded.len(), quiet.len());
            for (w, q) in worded.iter().zip(&quiet) {
                games += 1;
                assert_eq!(String::from_utf8_lossy(&w.0), String::from_utf8_lossy(&q.0));
                assert_eq!((w.1, w.2), (q.1, q.2));
                assert_eq!(format!("{:?}", w.3), format!("{:?}", q.3));
                linted[0] += w.4;
                linted[1] += q.4;
            }
        }
        assert!(games > 100, "{games} games");
        // Of the crafted games' four lint findings, only the first game's
        // first is found.
        assert!(linted[0] >= linted[1] + 3, "{linted:?}");
    }

    /// The roster tags a game lacks, told from the framer's tags before it
    /// is read, are those its tags lack once read.
    #[test]
    fn a_game_lacks_a_roster_tag_before_it_is_read_when_it_does_once_read() {
        let (mut games, mut lacking) = (0, 0);
        for input in crate::frame::tests::fixtures() {
            let mut framer = Framer::new(&input[..]);
            let mut batch = Batch::default();
            let mut reader = GameReader::new(read_options(true));
            while framer.next_batch(&mut batch).unwrap_or(false) {
                for raw in batch.games() {
                    let game = reader.read(&Arc::from("t.pgn"), raw, false);
                    if raw.frame.flags.kept() {
                        games += 1;
                        let lacks = super::missing_roster_tags(&game.tags) != 0;
                        assert_eq!(super::lacks_roster_tag(&raw), lacks, "{:?}", game.tags);
                        lacking += usize::from(lacks);
                    } else {
                        assert!(!super::lacks_roster_tag(&raw));
                    }
                }
            }
        }
        assert!(games > 100 && lacking > 10 && lacking < games, "{lacking} of {games}");
    }

    /// A game giving one tag 150 times: its 149 earlier ones dropped, 100
    /// of them listed and the rest counted in one repair where they start,
    /// the game written with the last.
    #[test]
    fn repairs_of_one_kind_are_listed_up_to_a_hundred_then_counted() {
        let mut pgn = String::new();
        for i in 0..150 {
            pgn.push_str(&format!("[Same \"v{i}\"]\n"));
        }
        pgn.push_str("\n1. e4 *\n");
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut reader = GameReader::new(read_options(true));
        assert!(framer.next_batch(&mut batch).unwrap());
        let raw = batch.games().next().unwrap();
        let mut out = Vec::new();
        let done =
            fix(&mut reader.read(&Arc::from("t.pgn"), raw, true), &raw, &PgnWriter::default(), None, true, &mut out);
        let dropped: Vec<&super::Fix> = done.fixes.iter().filter(|f| f.code == Repair::RemovedDuplicateTag).collect();
        assert_eq!(dropped.len(), 101);
        assert!(dropped[..100].iter().all(|f| f.message.starts_with("dropped [Same ")), "{:?}", dropped[0]);
        assert_eq!(
            dropped[100].message,
            "49 more `removed-duplicate-tag` repairs in this game are not listed, from here on (the first 100 are)"
        );
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("[Same \"v149\"]") && !out.contains("[Same \"v148\"]"), "{out}");
    }

    #[test]
    fn every_repair_has_its_own_name() {
        let mut names: Vec<&str> = Repair::ALL.iter().map(|r| r.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Repair::ALL.len());
        // In their order, as a repair's count is kept by its index.
        assert!(Repair::ALL.iter().enumerate().all(|(i, &repair)| repair as usize == i));
    }

    #[test]
    fn the_board_decides_the_result_then_the_marker_and_a_missing_marker_is_added() {
        let roster =
            "[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n[White \"w\"]\n[Black \"b\"]\n";
        let mate = format!("{roster}[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n");
        let (out, codes) = fixed(&mate);
        assert!(out.contains("[Result \"0-1\"]") && out.ends_with("Qh4# 0-1\n\n"), "{out}");
        assert_eq!(codes, [vec!["fixed-result-marker"]]);
        let marker_wins = format!("{roster}[Result \"1-0\"]\n\n1. e4 e5 1/2-1/2\n");
        let (out, codes) = fixed(&marker_wins);
        assert!(out.contains("[Result \"1/2-1/2\"]") && out.ends_with("e5 1/2-1/2\n\n"), "{out}");
        assert_eq!(codes, [vec!["fixed-result-tag"]]);
        let (out, codes) = fixed(&format!("{roster}[Result \"1-0\"]\n\n1. e4 e5\n"));
        assert!(out.ends_with("1. e4 e5 1-0\n\n"), "{out}");
        assert_eq!(codes, [vec!["added-result-marker"]]);
    }

    #[test]
    fn a_repaired_game_keeps_the_crlf_line_endings_it_was_read_with() {
        let roster = "[Event \"e\"]\n[Site \"s\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"w\"]\n[Black \"b\"]\n";
        let lf = format!("{roster}[Result \"0-1\"]\n\n1. f3 e5 2. g4 {{a comment\non two lines}} Qh4# 1-0\n");
        let (lf_out, codes) = fixed(&lf);
        assert_eq!(codes, [vec!["fixed-result-marker"]]);
        assert!(!lf_out.contains('\r'), "{lf_out:?}");
        let (crlf_out, codes) = fixed(&lf.replace('\n', "\r\n"));
        assert_eq!(codes, [vec!["fixed-result-marker"]]);
        assert_eq!(crlf_out, lf_out.replace('\n', "\r\n"));
    }

    #[test]
    fn a_game_with_nothing_to_repair_or_an_illegal_move_is_written_as_read() {
        let pgn = "[Event \"e\"]\n[Site \"s\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"w\"]\n[Black \"b\"]\n\
                   [Result \"*\"]\n\n1.e4   e5 {x}  *\n\n1. e4 e5 2. Ke3 1-0\n";
        let (out, codes) = fixed(pgn);
        assert_eq!(out, format!("{pgn}\n"));
        assert_eq!(codes, [Vec::<&str>::new(), Vec::new()]);
    }

    #[test]
    fn fixing_a_fixed_game_changes_nothing() {
        let pgn = "[White \"Ren\u{e9}\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w KQ e6 0 1\"]\n\n1. Ke1-d2 Kd7 2. e4 Ke6\n";
        let (first, codes) = fixed(pgn);
        assert_eq!(
            codes,
            [vec![
                "completed-seven-tag-roster",
                "dropped-castling-rights",
                "dropped-en-passant",
                "normalized-san",
                "added-result-marker"
            ]]
        );
        assert!(first.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]"), "{first}");
        let (second, codes) = fixed(&first);
        assert_eq!(second, first);
        assert_eq!(codes, [Vec::<&str>::new()]);
    }

    #[test]
    fn each_earlier_tag_of_a_name_is_paired_with_the_last_in_tag_order() {
        let mut tags = crate::game::Tags::default();
        for (name, value) in [("A", "1"), ("B", "2"), ("A", "3"), ("C", "4"), ("B", "5"), ("A", "6")] {
            tags.push(name, value);
        }
        assert_eq!(super::earlier_tags_of_a_name(&tags), [(0, 5), (1, 4), (2, 5)]);
        let mut many = crate::game::Tags::default();
        for i in 0..20_000 {
            many.push(if i % 2 == 0 { "Same" } else { "Other" }, &i.to_string());
        }
        let earlier = super::earlier_tags_of_a_name(&many);
        assert_eq!(earlier.len(), 19_998);
        assert!(earlier.iter().all(|&(i, last)| last == 19_998 + i % 2 && i < 19_998));
    }
}
