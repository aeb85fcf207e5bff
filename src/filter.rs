//! Selecting games: the criteria of `pgnkit filter`, decided from a game's
//! tags alone whenever they allow it, and from its replay only when a
//! criterion needs the moves.
//!
//! Reading tags costs a scan of a few lines; replaying costs the whole
//! game. [`Filter::by_tags`] answers from the tags when the answer cannot
//! depend on the moves (an AND with a failed tag criterion, an OR with a
//! passed one), so a tag-only filter never replays a game.

use std::{fmt, sync::Arc};

use regex::Regex;
use shakmaty::{Bitboard, Board, ByRole, Chess, Color, Move, Position, Rank, Role, Square};

use crate::{
    aliases::Aliases,
    game::{Game, Item, Line, Tags},
    openings::Openings,
    report::Termination,
    tag_values::{Variant, elo},
};

/// One condition on a game.
#[derive(Debug, Clone)]
pub enum Criterion {
    /// The tag's value starts with one of the texts (case-sensitive unless
    /// the names ignore case, as pgn-extract's `-T` criteria).
    TagPrefix(&'static str, Names),
    /// White or Black starts with one of the names.
    Player(Names),
    /// The player who won, by the game's result, starts with one of the
    /// names: White for 1-0, Black for 0-1, nobody for a draw or `*`.
    Winner(Names),
    /// The player who lost starts with one of the names.
    Loser(Names),
    /// The opening's ECO code starts with the text, or lies in the range:
    /// the code the table names for the game's positions, or without a
    /// table its ECO tag.
    Eco(EcoRange, Option<Arc<Openings>>),
    /// The opening's name starts with one of the names: the table's, or
    /// without a table the game's Opening tag.
    Opening(Names, Option<Arc<Openings>>),
    /// The Date tag lies at or after the date (every date it may stand for).
    DateFrom(PgnDate),
    /// The Date tag lies at or before the date.
    DateTo(PgnDate),
    /// Both players' Elo (WhiteElo, BlackElo) at least this.
    EloMin(u32),
    /// Both players' Elo at most this.
    EloMax(u32),
    /// The mean of both players' Elo at least this.
    AvgEloMin(u32),
    /// The mean of both players' Elo at most this.
    AvgEloMax(u32),
    /// The tag has exactly this value.
    TagEquals(String, String),
    /// The tag's value contains a match of the regular expression.
    TagMatches(String, Regex),
    /// The tag is present.
    HasTag(String),
    /// The Variant tag names this variant (no tag: standard chess).
    Variant(String),
    /// The game's result (the Result tag, else the movetext's marker).
    Result(&'static str),
    /// The rule that ends the game on the board (`None`: no rule does).
    Termination(Option<Termination>),
    /// No error (`true`) or some error (`false`) when replayed.
    Valid(bool),
    /// Main-line plies replayed, at least this many.
    MinPlies(u32),
    /// Main-line plies replayed, at most this many.
    MaxPlies(u32),
    /// A comment anywhere in the game.
    HasComments,
    /// A variation anywhere in the game.
    HasVariations,
    /// A main-line promotion to a rook, bishop or knight.
    Underpromotion,
    /// How the players castled in the main line.
    Castling(Castling),
    /// The game reaches this position (board, side to move, castling rights
    /// and en passant square, compared as for repetitions).
    Position(Target),
    /// The game reaches this piece placement.
    Placement(Box<Board>),
    /// The game reaches a position with exactly this material.
    Material(Material),
}

/// The names (or texts) a tag value may start with: a match is a value
/// that starts with any of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    /// Lower-cased, char by char, when case is ignored.
    prefixes: Vec<String>,
    ignore_case: bool,
    /// Players' names are compared as the names their aliases stand for.
    aliases: Option<Arc<Aliases>>,
}

impl Names {
    /// Any of `prefixes`; compared without case when `ignore_case`.
    pub fn new(prefixes: Vec<String>, ignore_case: bool) -> Names {
        Names::of_players(prefixes, ignore_case, None)
    }

    /// The same for players' names: with `aliases`, a name given and a
    /// value compared that are aliases stand for their names.
    pub fn of_players(prefixes: Vec<String>, ignore_case: bool, aliases: Option<Arc<Aliases>>) -> Names {
        let prefixes = match &aliases {
            Some(aliases) => prefixes.iter().map(|p| aliases.resolve(p).to_owned()).collect(),
            None => prefixes,
        };
        let prefixes = if ignore_case { prefixes.iter().map(|p| fold(p).collect()).collect() } else { prefixes };
        Names { prefixes, ignore_case, aliases }
    }

    /// Whether the value starts with one of the names.
    pub fn matches(&self, value: &str) -> bool {
        let value = match &self.aliases {
            Some(aliases) => aliases.resolve(value),
            None => value,
        };
        if self.ignore_case {
            // Folded once, not once per name: a names file may hold thousands.
            let folded: String = fold(value).collect();
            self.prefixes.iter().any(|prefix| folded.starts_with(prefix.as_str()))
        } else {
            self.prefixes.iter().any(|prefix| value.starts_with(prefix.as_str()))
        }
    }
}

/// Lower case char by char, the same for names and values, with the final
/// sigma as any other (as case folding has it): `Σ` and `ς` are one letter
/// that a name typed in capitals cannot tell apart.
fn fold(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().flat_map(char::to_lowercase).map(|c| if c == 'ς' { 'σ' } else { c })
}

/// The names of a names file: one per line, trimmed; blank lines and lines
/// starting with `#` left out. UTF-8 (a byte order mark is skipped), else
/// Windows-1252, as game text is read.
pub fn name_list(bytes: &[u8]) -> Vec<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    crate::text::decode(bytes)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The player who won (`winner`) or lost the game with this result:
/// the White or Black tag, none after a draw or an unfinished game.
fn decided_player<'t>(tags: &'t Tags, result: &str, winner: bool) -> Option<&'t str> {
    let side = match (result, winner) {
        ("1-0", true) | ("0-1", false) => "White",
        ("0-1", true) | ("1-0", false) => "Black",
        _ => return None,
    };
    tags.get(side)
}

/// `--castling`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Castling {
    /// Neither player castled.
    None,
    /// A player castled short.
    Short,
    /// A player castled long.
    Long,
}

/// A position to reach, with what repetitions compare.
#[derive(Debug, Clone)]
pub struct Target {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl Target {
    /// What a position is compared by.
    pub fn new(pos: &Chess) -> Target {
        Target {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.legal_ep_square(),
        }
    }

    fn matches(&self, pos: &Chess) -> bool {
        // The board first: it differs in almost every position.
        *pos.board() == self.board
            && pos.turn() == self.turn
            && pos.castles().castling_rights() == self.castling
            && pos.legal_ep_square() == self.ep
    }
}

/// Pieces of each side, kings left out (there is always one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Material([[u8; 5]; 2]);

impl Material {
    /// Reads `KQRvKR`, `QRRvQ`, `KPPvK` (white's pieces, `v`, black's; `K` may
    /// be left out, letters in any order).
    pub fn parse(text: &str) -> Result<Material, String> {
        let sides: Vec<&str> = text.split(['v', 'V']).collect();
        let [white, black] = sides[..] else {
            return Err(format!("{text:?} is not a material signature like KQRvKR (white's pieces, v, black's)"));
        };
        let mut counts = [[0u8; 5]; 2];
        for (side, pieces) in [white, black].into_iter().enumerate() {
            for letter in pieces.chars() {
                let index = match letter.to_ascii_uppercase() {
                    'K' => continue,
                    'Q' => 0,
                    'R' => 1,
                    'B' => 2,
                    'N' => 3,
                    'P' => 4,
                    _ => return Err(format!("{text:?}: {letter:?} is not a piece letter (K, Q, R, B, N, P)")),
                };
                counts[side][index] = counts[side][index].saturating_add(1);
            }
        }
        Ok(Material(counts))
    }

    fn of(board: &Board) -> Material {
        let side = |pieces: ByRole<u8>| [pieces.queen, pieces.rook, pieces.bishop, pieces.knight, pieces.pawn];
        let material = board.material();
        Material([side(material.white), side(material.black)])
    }
}

/// `--eco B2` (a prefix) or `--eco A00-B99` (an inclusive range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EcoRange {
    /// Codes starting with this.
    Prefix(String),
    /// Codes from the first to the second, both included.
    Range(String, String),
}

impl EcoRange {
    /// Reads `B2` or `A00-B99` (case-insensitive).
    pub fn parse(text: &str) -> Result<EcoRange, String> {
        let code = |c: &str| {
            let c = c.trim().to_ascii_uppercase();
            let ok = c.len() <= 3
                && c.chars().next().is_some_and(|l| ('A'..='E').contains(&l))
                && c.chars().skip(1).all(|d| d.is_ascii_digit());
            if ok { Ok(c) } else { Err(format!("{text:?} is not an ECO code, prefix (B2) or range (A00-B99)")) }
        };
        match text.split_once('-') {
            Some((from, to)) => {
                let (from, to) = (code(from)?, code(to)?);
                if from.len() != 3 || to.len() != 3 {
                    return Err(format!("{text:?}: a range takes whole codes (A00-B99)"));
                }
                Ok(EcoRange::Range(from, to))
            }
            None => Ok(EcoRange::Prefix(code(text)?)),
        }
    }

    fn matches(&self, eco: &str) -> bool {
        let eco = eco.trim();
        match self {
            EcoRange::Prefix(prefix) => eco.starts_with(prefix.as_str()),
            EcoRange::Range(from, to) => eco.len() == 3 && (from.as_str()..=to.as_str()).contains(&eco),
        }
    }
}

/// Year, month and day, ordered as dates are.
type Day = (u16, u8, u8);

/// A PGN date, its unknown parts (`??`) left open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgnDate {
    year: Option<u16>,
    month: Option<u8>,
    day: Option<u8>,
}

impl PgnDate {
    /// Reads `2024.05.17`, `2024.05.??`, `2024.??.??` (also with `-`, and
    /// with the unknown parts left off: `2024.05`, `2024`).
    pub fn parse(text: &str) -> Option<PgnDate> {
        let mut parts = text.trim().split(['.', '-', '/']);
        let year = parts.next()?;
        let part = |p: Option<&str>, max: u8| -> Option<Option<u8>> {
            match p {
                None => Some(None),
                Some(p) if p.chars().all(|c| c == '?') => Some(None),
                Some(p) => p.parse::<u8>().ok().filter(|&n| (1..=max).contains(&n)).map(Some),
            }
        };
        let year = if year.chars().all(|c| c == '?') { None } else { Some(year.parse::<u16>().ok()?) };
        let (month, day) = (part(parts.next(), 12)?, part(parts.next(), 31)?);
        if parts.next().is_some() || (month.is_none() && day.is_some()) {
            return None;
        }
        Some(PgnDate { year, month, day })
    }

    /// The first and last day the date may stand for, `None` without a year.
    fn span(self) -> Option<(Day, Day)> {
        let year = self.year?;
        let last_month = self.month.unwrap_or(12);
        let last_day = self.day.unwrap_or(match last_month {
            2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        });
        Some(((year, self.month.unwrap_or(1), self.day.unwrap_or(1)), (year, last_month, last_day)))
    }
}

impl fmt::Display for PgnDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            Some(y) => write!(f, "{y:04}")?,
            None => f.write_str("????")?,
        }
        for part in [self.month, self.day] {
            match part {
                Some(n) => write!(f, ".{n:02}")?,
                None => f.write_str(".??")?,
            }
        }
        Ok(())
    }
}

impl Criterion {
    /// The verdict from tags alone; `None` when it depends on the moves.
    fn by_tags(&self, tags: &Tags) -> Option<bool> {
        let elos = || Some((elo(tags.get("WhiteElo"))?, elo(tags.get("BlackElo"))?));
        Some(match self {
            Criterion::TagPrefix(name, names) => tags.get(name).is_some_and(|v| names.matches(v)),
            Criterion::Player(names) => {
                ["White", "Black"].iter().any(|name| tags.get(name).is_some_and(|v| names.matches(v)))
            }
            Criterion::Winner(names) | Criterion::Loser(names) => {
                // Neither player named: no result can make one the winner,
                // so the game need not be replayed for its marker.
                let named = ["White", "Black"].iter().any(|name| tags.get(name).is_some_and(|v| names.matches(v)));
                let winner = matches!(self, Criterion::Winner(_));
                named && decided_player(tags, crate::check::tag_result(tags)?, winner).is_some_and(|v| names.matches(v))
            }
            Criterion::Eco(range, None) => tags.get("ECO").is_some_and(|eco| range.matches(eco)),
            Criterion::Opening(names, None) => tags.get("Opening").is_some_and(|name| names.matches(name)),
            Criterion::DateFrom(from) => date_span(tags).zip(from.span()).is_some_and(|(game, from)| game.0 >= from.0),
            Criterion::DateTo(to) => date_span(tags).zip(to.span()).is_some_and(|(game, to)| game.1 <= to.1),
            Criterion::EloMin(min) => elos().is_some_and(|(w, b)| w >= *min && b >= *min),
            Criterion::EloMax(max) => elos().is_some_and(|(w, b)| w <= *max && b <= *max),
            Criterion::AvgEloMin(min) => elos().is_some_and(|(w, b)| w + b >= 2 * min),
            Criterion::AvgEloMax(max) => elos().is_some_and(|(w, b)| w + b <= 2 * max),
            Criterion::TagEquals(name, value) => tags.get(name) == Some(value.as_str()),
            Criterion::TagMatches(name, regex) => tags.get(name).is_some_and(|v| regex.is_match(v)),
            Criterion::HasTag(name) => tags.get(name).is_some(),
            Criterion::Variant(name) => Variant::from_tag(tags.get("Variant")) == Variant::from_tag(Some(name)),
            // A Result tag that is a result decides; else the marker.
            Criterion::Result(result) => crate::check::tag_result(tags)? == *result,
            _ => return None,
        })
    }

    /// Whether the criterion needs comments and variations read.
    fn needs_notes(&self) -> bool {
        matches!(self, Criterion::HasComments | Criterion::HasVariations)
    }

    fn is_position(&self) -> bool {
        matches!(self, Criterion::Position(_) | Criterion::Placement(_) | Criterion::Material(_))
    }
}

fn date_span(tags: &Tags) -> Option<(Day, Day)> {
    PgnDate::parse(tags.get("Date")?)?.span()
}

/// The criteria of one run, and how they combine.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// What a game must satisfy.
    pub criteria: Vec<Criterion>,
    /// A game matches when any criterion holds (else when all do).
    pub any: bool,
    /// Select the games that do not match.
    pub invert: bool,
    /// Position criteria look only at the positions from this ply on (0:
    /// the start position).
    pub after_ply: u32,
}

impl Filter {
    /// The tags the criteria look at.
    pub fn tag_names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        for criterion in &self.criteria {
            match criterion {
                Criterion::TagPrefix(name, _) => names.push(*name),
                Criterion::Player(_) => names.extend(["White", "Black"]),
                Criterion::Winner(_) | Criterion::Loser(_) => names.extend(["White", "Black", "Result"]),
                Criterion::Eco(_, None) => names.push("ECO"),
                Criterion::Opening(_, None) => names.push("Opening"),
                Criterion::DateFrom(_) | Criterion::DateTo(_) => names.push("Date"),
                Criterion::EloMin(_) | Criterion::EloMax(_) | Criterion::AvgEloMin(_) | Criterion::AvgEloMax(_) => {
                    names.extend(["WhiteElo", "BlackElo"]);
                }
                Criterion::TagEquals(name, _) | Criterion::TagMatches(name, _) | Criterion::HasTag(name) => {
                    names.push(name);
                }
                Criterion::Variant(_) => names.push("Variant"),
                Criterion::Result(_) => names.push("Result"),
                _ => {}
            }
        }
        names
    }

    /// Whether the game must be read with its comments and variations.
    pub fn needs_notes(&self) -> bool {
        self.criteria.iter().any(Criterion::needs_notes)
    }

    /// The verdict from the tags alone, when the moves cannot change it.
    pub fn by_tags(&self, tags: &Tags) -> Option<bool> {
        let mut open = false;
        for criterion in &self.criteria {
            match criterion.by_tags(tags) {
                Some(hit) if hit == self.any => return Some(hit != self.invert),
                Some(_) => {}
                None => open = true,
            }
        }
        // No criterion decided alone: with all known, AND holds and OR fails.
        (!open).then_some(self.any == self.invert)
    }

    /// The verdict on a game read in full (by a checker keeping its moves,
    /// and its notes when [`Filter::needs_notes`]), with its tags (read by
    /// [`Tags::scan`], or the game's own).
    pub fn by_game(&self, game: &Game, tags: &Tags) -> bool {
        let positions = self.positions_reached(game);
        let mut position_index = 0;
        let mut verdicts = self.criteria.iter().map(|criterion| {
            if criterion.is_position() {
                position_index += 1;
                return positions[position_index - 1];
            }
            criterion.by_tags(tags).unwrap_or_else(|| by_moves(criterion, game, tags))
        });
        let hit = if self.any { verdicts.any(|v| v) } else { verdicts.all(|v| v) };
        hit != self.invert
    }

    /// For each position criterion, in order, whether the main line reaches
    /// what it asks for at a ply from `after_ply` on.
    fn positions_reached(&self, game: &Game) -> Vec<bool> {
        let wanted: Vec<(&Criterion, Floor)> =
            self.criteria.iter().filter(|c| c.is_position()).map(|c| (c, Floor::of(c))).collect();
        let mut reached = vec![false; wanted.len()];
        let Some(start) = &game.start else { return reached };
        if wanted.is_empty() {
            return reached;
        }
        // Settled: reached, or out of reach for good.
        let mut settled = vec![false; wanted.len()];
        let mut pos = start.clone();
        let mut ply = 0;
        let mut material_changed = true;
        let counts_material = wanted.iter().any(|(c, _)| matches!(c, Criterion::Material(_)));
        let mut material = None;
        loop {
            if material_changed {
                // Men are never added and pawns never move back: once a side
                // has fewer men or pawns than a criterion needs, or has moved
                // a pawn it needs on its home rank, no later ply has them.
                let floor = Floor::of_board(pos.board());
                for (settled, (_, needs)) in settled.iter_mut().zip(&wanted) {
                    *settled = *settled || !floor.covers(needs);
                }
            }
            if material_changed && counts_material {
                material = Some(Material::of(pos.board()));
            }
            if ply >= self.after_ply as usize {
                for ((hit, settled), (criterion, _)) in reached.iter_mut().zip(settled.iter_mut()).zip(&wanted) {
                    if *settled {
                        continue;
                    }
                    *hit = match criterion {
                        Criterion::Position(target) => target.matches(&pos),
                        Criterion::Placement(board) => pos.board() == &**board,
                        Criterion::Material(m) => material == Some(*m),
                        _ => false,
                    };
                    *settled = *hit;
                }
            }
            if settled.iter().all(|&s| s) {
                break;
            }
            let Some(node) = game.mainline.nodes.get(ply) else { break };
            // Only captures and pawn moves change what `Floor` looks at.
            material_changed = node.step.is_some_and(|m| m.is_capture() || m.role() == Role::Pawn);
            crate::game::play(&mut pos, node.step);
            ply += 1;
        }
        reached
    }
}

/// The men (kings included) and pawns of each side a position criterion
/// needs, and its pawns still on their home rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Floor {
    men: [u32; 2],
    pawns: [u32; 2],
    home_pawns: Bitboard,
}

impl Floor {
    fn of(criterion: &Criterion) -> Floor {
        match criterion {
            Criterion::Position(target) => Floor::of_board(&target.board),
            Criterion::Placement(board) => Floor::of_board(board),
            Criterion::Material(Material(sides)) => Floor {
                men: sides.map(|side| side.iter().map(|&n| u32::from(n)).sum::<u32>() + 1),
                pawns: sides.map(|side| u32::from(side[4])),
                home_pawns: Bitboard::EMPTY,
            },
            _ => Floor { men: [0; 2], pawns: [0; 2], home_pawns: Bitboard::EMPTY },
        }
    }

    fn of_board(board: &Board) -> Floor {
        let side = |color: Color| board.by_color(color);
        Floor {
            men: [side(Color::White).count() as u32, side(Color::Black).count() as u32],
            pawns: [
                (side(Color::White) & board.pawns()).count() as u32,
                (side(Color::Black) & board.pawns()).count() as u32,
            ],
            home_pawns: (board.white() & board.pawns() & Bitboard::from_rank(Rank::Second))
                | (board.black() & board.pawns() & Bitboard::from_rank(Rank::Seventh)),
        }
    }

    /// Whether a position with these men could still lead to `needs`.
    fn covers(&self, needs: &Floor) -> bool {
        (0..2).all(|i| self.men[i] >= needs.men[i] && self.pawns[i] >= needs.pawns[i])
            && needs.home_pawns.without(self.home_pawns).is_empty()
    }
}

/// The verdict of a criterion on the game's moves (and its tags, for the
/// criteria that need both).
fn by_moves(criterion: &Criterion, game: &Game, tags: &Tags) -> bool {
    let steps = || game.mainline.nodes.iter().filter_map(|n| n.step);
    match criterion {
        Criterion::Result(result) => game.result == *result,
        Criterion::Winner(names) => decided_player(tags, game.result, true).is_some_and(|v| names.matches(v)),
        Criterion::Loser(names) => decided_player(tags, game.result, false).is_some_and(|v| names.matches(v)),
        Criterion::Termination(termination) => game.report.termination == *termination,
        Criterion::Eco(range, Some(table)) => table.of_game(game).is_some_and(|o| range.matches(&o.eco)),
        Criterion::Opening(names, Some(table)) => table.of_game(game).is_some_and(|o| names.matches(&o.name)),
        // A game that could not be replayed and has no error is neither.
        Criterion::Valid(true) => game.report.valid,
        Criterion::Valid(false) => game.report.invalid(),
        Criterion::MinPlies(min) => game.mainline.nodes.len() >= *min as usize,
        Criterion::MaxPlies(max) => game.mainline.nodes.len() <= *max as usize,
        Criterion::HasComments => has_comments(&game.mainline),
        Criterion::HasVariations => game.mainline.notes.items().any(|item| matches!(item, Item::Open { .. })),
        Criterion::Underpromotion => {
            steps().any(|m| matches!(m, Move::Normal { promotion: Some(Role::Rook | Role::Bishop | Role::Knight), .. }))
        }
        Criterion::Castling(castling) => {
            let mut sides = steps().filter_map(|m| match m {
                Move::Castle { king, rook } => Some(if rook < king { Castling::Long } else { Castling::Short }),
                _ => None,
            });
            match castling {
                Castling::None => sides.next().is_none(),
                wanted => sides.any(|side| side == *wanted),
            }
        }
        _ => false,
    }
}

/// Whether a line (or a variation inside it) has a comment.
fn has_comments(line: &Line) -> bool {
    line.notes.items().any(|item| matches!(item, Item::Comment(_)))
}

#[cfg(test)]
mod tests {
    use super::{Castling, Criterion, EcoRange, Filter, Material, Names, PgnDate, name_list};
    use crate::{check::read_all, game::Tags};

    fn names(prefix: &str) -> Names {
        Names::new(vec![prefix.to_owned()], false)
    }

    fn tags(pgn: &str) -> Tags {
        Tags::scan(pgn.as_bytes())
    }

    fn filter(criteria: Vec<Criterion>) -> Filter {
        Filter { criteria, ..Filter::default() }
    }

    #[test]
    fn dates_with_unknown_parts_match_only_when_every_day_they_stand_for_is_in_range() {
        let from = |d: &str, game: &str| {
            filter(vec![Criterion::DateFrom(PgnDate::parse(d).unwrap())]).by_tags(&tags(game)).unwrap()
        };
        assert!(from("2020", "[Date \"2020.??.??\"]"));
        assert!(!from("2020.05", "[Date \"2020.??.??\"]"));
        assert!(from("2020.05", "[Date \"2020.05.??\"]"));
        assert!(!from("2020.05.02", "[Date \"2020.05.01\"]"));
        assert!(!from("1900", "[Date \"????.??.??\"]"));
        assert!(!from("1900", ""));
        let to = |d: &str, game: &str| {
            filter(vec![Criterion::DateTo(PgnDate::parse(d).unwrap())]).by_tags(&tags(game)).unwrap()
        };
        assert!(to("2020", "[Date \"2020.??.??\"]"));
        assert!(!to("2020.06", "[Date \"2020.??.??\"]"));
        assert!(to("2020-06-30", "[Date \"2020.06.??\"]"));
        assert!(!to("2021.02.27", "[Date \"2021.02.??\"]"));
        assert!(to("2021.02.28", "[Date \"2021.02.??\"]"));
        assert!(!to("2020.02.28", "[Date \"2020.02.??\"]"));
        assert_eq!(PgnDate::parse("2020.13"), None);
        assert_eq!(PgnDate::parse("2020.??.05"), None);
        assert_eq!(PgnDate::parse("2020.05.??").unwrap().to_string(), "2020.05.??");
    }

    #[test]
    fn every_termination_name_reads_back() {
        for name in crate::report::TERMINATIONS {
            let termination = crate::report::Termination::parse(name).unwrap();
            assert_eq!(termination.map_or("none", |t| t.as_str()), name);
        }
        assert!(crate::report::Termination::parse("resignation").is_err());
    }

    #[test]
    fn eco_prefixes_and_ranges() {
        let eco = |range: &str, code: &str| EcoRange::parse(range).unwrap().matches(code);
        assert!(eco("B2", "B27"));
        assert!(!eco("B2", "B30"));
        assert!(eco("a00-b99", "B99"));
        assert!(eco("A00-B99", "A00"));
        assert!(!eco("A00-B99", "C00"));
        assert!(!eco("A00-B99", "B"));
        assert!(EcoRange::parse("F00").is_err());
        assert!(EcoRange::parse("A0-B9").is_err());
    }

    #[test]
    fn elo_criteria_need_both_ratings() {
        let game = "[WhiteElo \"2400\"]\n[BlackElo \"2200\"]\n";
        let verdict = |c: Criterion| filter(vec![c]).by_tags(&tags(game)).unwrap();
        assert!(verdict(Criterion::EloMin(2200)));
        assert!(!verdict(Criterion::EloMin(2201)));
        assert!(verdict(Criterion::EloMax(2400)));
        assert!(verdict(Criterion::AvgEloMin(2300)));
        assert!(!verdict(Criterion::AvgEloMax(2299)));
        assert!(!filter(vec![Criterion::EloMin(1)]).by_tags(&tags("[WhiteElo \"2400\"]\n")).unwrap());
    }

    #[test]
    fn a_signed_elo_is_no_rating_for_filter_as_for_stats_and_ratings() {
        let game = tags("[WhiteElo \"+2500\"]\n[BlackElo \"2500\"]\n");
        assert!(!filter(vec![Criterion::EloMin(1)]).by_tags(&game).unwrap());
    }

    #[test]
    fn from_position_and_other_spellings_of_a_variant_match_as_validate_reads_them() {
        let verdict = |tag: &str, name: &str| {
            filter(vec![Criterion::Variant(name.to_owned())]).by_tags(&tags(&format!("[Variant \"{tag}\"]\n"))).unwrap()
        };
        assert!(verdict("From Position", "standard"));
        assert!(verdict("FRC", "chess960"));
        assert!(verdict("Crazy House", "crazyhouse"));
        assert!(!verdict("Chess960", "standard"));
    }

    #[test]
    fn tags_decide_alone_unless_the_moves_could_change_the_verdict() {
        let game = tags("[White \"Carlsen, Magnus\"]\n[Result \"1-0\"]\n");
        let white = || Criterion::TagPrefix("White", names("Carlsen"));
        let other = || Criterion::TagPrefix("White", names("Caruana"));
        let moves = || Criterion::MinPlies(10);
        assert_eq!(filter(vec![white(), moves()]).by_tags(&game), None);
        assert_eq!(filter(vec![other(), moves()]).by_tags(&game), Some(false));
        let any = |criteria| Filter { criteria, any: true, ..Filter::default() };
        assert_eq!(any(vec![white(), moves()]).by_tags(&game), Some(true));
        assert_eq!(any(vec![other(), moves()]).by_tags(&game), None);
        assert_eq!(any(vec![other()]).by_tags(&game), Some(false));
        let inverted = Filter { criteria: vec![other()], invert: true, ..Filter::default() };
        assert_eq!(inverted.by_tags(&game), Some(true));
        assert_eq!(filter(vec![Criterion::Result("1-0")]).by_tags(&game), Some(true));
        assert_eq!(filter(vec![Criterion::Result("1-0")]).by_tags(&tags("[Result \"?\"]")), None);
    }

    #[test]
    fn tags_read_for_the_criteria_are_the_tags_that_decide_them() {
        let game = "[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[ECO \"B20\"]\n[Variant \"Chess960\"]\n\
                    [Date \"2020.01.01\"]\n[WhiteElo \"2000\"]\n[BlackElo \"2100\"]\n[Annotator \"Z\"]\n\
                    [Opening \"Sicilian Defense\"]\n";
        let criteria = [
            Criterion::TagPrefix("White", names("A")),
            Criterion::Player(names("B")),
            Criterion::Eco(EcoRange::parse("B2").unwrap(), None),
            Criterion::Opening(names("Sicilian"), None),
            Criterion::DateFrom(PgnDate::parse("2020").unwrap()),
            Criterion::AvgEloMin(2050),
            Criterion::HasTag("Annotator".to_owned()),
            Criterion::Variant("chess960".to_owned()),
            Criterion::Result("*"),
        ];
        for criterion in criteria {
            let filter = filter(vec![criterion]);
            let names = filter.tag_names();
            assert!(!names.is_empty());
            // With only the named tags kept, the verdict is unchanged.
            assert_eq!(filter.by_tags(&Tags::scan_only(game.as_bytes(), &names)), Some(true), "{filter:?}");
        }
        let decided = "[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n[Event \"Z\"]\n";
        for criterion in [Criterion::Winner(names("B")), Criterion::Loser(names("A"))] {
            let filter = filter(vec![criterion]);
            assert_eq!(filter.by_tags(&Tags::scan_only(decided.as_bytes(), &filter.tag_names())), Some(true));
        }
        assert!(filter(vec![Criterion::MinPlies(1), Criterion::Underpromotion]).tag_names().is_empty());
    }

    #[test]
    fn names_match_any_prefix_and_ignore_case_only_when_asked() {
        let two = Names::new(vec!["Carlsen".to_owned(), "Nakamura".to_owned()], false);
        assert!(two.matches("Carlsen, Magnus") && two.matches("Nakamura, Hikaru"));
        assert!(!two.matches("carlsen, magnus") && !two.matches("Magnus Carlsen"));
        let folded = Names::new(vec!["CARLSEN".to_owned(), "Réti".to_owned()], true);
        assert!(folded.matches("Carlsen, Magnus") && folded.matches("RÉTI, Richard"));
        assert!(!folded.matches("Carl"));
        // A final sigma folds as any other.
        assert!(Names::new(vec!["ΟΔΥΣΣΕΥΣ".to_owned()], true).matches("Οδυσσευς"));
    }

    #[test]
    fn a_names_file_skips_blank_and_comment_lines_and_reads_windows_1252() {
        let file = b"\xEF\xBB\xBF# players\r\nCarlsen, Magnus \r\n\n  # not a name\n Caruana\n";
        assert_eq!(name_list(file), ["Carlsen, Magnus", "Caruana"]);
        assert_eq!(name_list(b"R\xe9ti\n\x8aebalj\n"), ["Réti", "Šebalj"]);
        assert!(name_list(b"\n# only a comment\n").is_empty());
    }

    #[test]
    fn winner_and_loser_follow_the_result_and_draws_match_neither() {
        let game = |result: &str| tags(&format!("[White \"Alder\"]\n[Black \"Birch\"]\n[Result \"{result}\"]\n"));
        let verdict = |c: Criterion, result: &str| filter(vec![c]).by_tags(&game(result));
        assert_eq!(verdict(Criterion::Winner(names("Alder")), "1-0"), Some(true));
        assert_eq!(verdict(Criterion::Winner(names("Birch")), "1-0"), Some(false));
        assert_eq!(verdict(Criterion::Loser(names("Birch")), "1-0"), Some(true));
        assert_eq!(verdict(Criterion::Winner(names("Birch")), "0-1"), Some(true));
        assert_eq!(verdict(Criterion::Loser(names("Alder")), "0-1"), Some(true));
        for result in ["1/2-1/2", "*"] {
            assert_eq!(verdict(Criterion::Winner(names("Alder")), result), Some(false));
            assert_eq!(verdict(Criterion::Loser(names("Alder")), result), Some(false));
        }
        // A Result tag that is no result leaves it to the marker, unless
        // neither player is named.
        assert_eq!(verdict(Criterion::Winner(names("Alder")), "?"), None);
        assert_eq!(verdict(Criterion::Winner(names("Cedar")), "?"), Some(false));
        let games = read_all("[White \"Alder\"]\n[Black \"Birch\"]\n\n1. e4 0-1\n");
        let replayed = |c: Criterion| filter(vec![c]).by_game(&games[0], &games[0].tags);
        assert!(replayed(Criterion::Winner(names("Birch"))));
        assert!(replayed(Criterion::Loser(names("Alder"))));
        assert!(!replayed(Criterion::Winner(names("Alder"))));
    }

    #[test]
    fn material_signatures_read_either_way_and_ignore_kings() {
        assert_eq!(Material::parse("KQRvKR").unwrap(), Material::parse("qrVr").unwrap());
        assert!(Material::parse("KQvKvK").is_err());
        assert!(Material::parse("KXvK").is_err());
    }

    #[test]
    fn move_criteria_on_a_replayed_game() {
        let games = read_all(
            "[Event \"x\"]\n\n1. e4 {a comment} e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 (4... d6) 5. d3 O-O *\n\n\
             [Event \"y\"]\n[FEN \"8/P7/8/8/8/8/k7/7K w - - 0 1\"]\n[SetUp \"1\"]\n\n1. a8=N *\n",
        );
        let verdict = |c: Criterion, game: usize| filter(vec![c]).by_game(&games[game], &games[game].tags);
        assert!(verdict(Criterion::HasComments, 0));
        assert!(!verdict(Criterion::HasComments, 1));
        assert!(verdict(Criterion::HasVariations, 0));
        assert!(verdict(Criterion::Castling(Castling::Short), 0));
        assert!(!verdict(Criterion::Castling(Castling::Long), 0));
        assert!(verdict(Criterion::Castling(Castling::None), 1));
        assert!(verdict(Criterion::Underpromotion, 1));
        assert!(!verdict(Criterion::Underpromotion, 0));
        assert!(verdict(Criterion::MinPlies(10), 0));
        assert!(!verdict(Criterion::MaxPlies(9), 0));
        assert!(verdict(Criterion::Material(Material::parse("NvK").unwrap()), 1));
        assert!(verdict(Criterion::Material(Material::parse("PvK").unwrap()), 1));
        let late = Filter {
            criteria: vec![Criterion::Material(Material::parse("PvK").unwrap())],
            after_ply: 1,
            ..Filter::default()
        };
        assert!(!late.by_game(&games[1], &games[1].tags));
    }
}
