//! Board diagrams of a position: a text board for the terminal and a
//! self-contained SVG for documents and web pages.
//!
//! Both draw any FEN that can be read, legal or not (a composer's sketch or
//! a teaching position may lack a king), so they work from a [`Setup`]
//! rather than a played position.
//!
//! The SVG pieces are simple geometric shapes drawn for pgnkit as paths, not
//! font glyphs: a chess font may be missing where the SVG is shown, and its
//! glyphs then fall back to whatever the viewer has (or to empty boxes),
//! while paths look the same in every viewer. Only the coordinates are
//! text, in the generic `sans-serif` family.

use std::fmt::Write as _;

use shakmaty::{Board, Color, File, Piece, Rank, Role, Setup, Square, fen::Fen};

/// How to draw the text board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextStyle {
    /// Black's view: rank 1 at the top, the h-file on the left.
    pub flip: bool,
    /// Letters (`KQRBNP`, `kqrbnp`, `.`) instead of chess symbols.
    pub ascii: bool,
}

/// What to draw on the SVG board besides the pieces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SvgOptions {
    /// Black's view: rank 1 at the top, the h-file on the left.
    pub flip: bool,
    /// Arrows from a square to a square (a ring when both are the same).
    pub arrows: Vec<(Square, Square)>,
    /// Squares to shade.
    pub highlight: Vec<Square>,
    /// The last move, shaded on its from and to squares.
    pub last_move: Option<(Square, Square)>,
}

/// The squares from the top-left corner of the diagram, row by row.
fn rows(flip: bool) -> impl Iterator<Item = Vec<Square>> {
    let ranks: Vec<Rank> = if flip { Rank::ALL.to_vec() } else { Rank::ALL.into_iter().rev().collect() };
    ranks.into_iter().map(move |rank| {
        let files: Vec<File> = if flip { File::ALL.into_iter().rev().collect() } else { File::ALL.to_vec() };
        files.into_iter().map(|file| Square::from_coords(file, rank)).collect()
    })
}

fn is_dark(sq: Square) -> bool {
    // a1 is dark: the file and rank indices have the same parity.
    (u32::from(sq.file()) + u32::from(sq.rank())) % 2 == 0
}

/// The king of the side to move when it is attacked.
pub fn checked_king(setup: &Setup) -> Option<Square> {
    let board = &setup.board;
    (board.kings() & board.by_color(setup.turn))
        .into_iter()
        .find(|&king| board.attacks_to(king, !setup.turn, board.occupied()).any())
}

/// `White to move (in check), castling KQkq, en passant -`.
pub fn status_line(setup: &Setup) -> String {
    let fen = Fen::try_from_setup(setup.clone()).unwrap_or_else(|err| err.ignore()).to_string();
    let mut fields = fen.split(' ').skip(2);
    let castling = fields.next().unwrap_or("-");
    let en_passant = fields.next().unwrap_or("-");
    let side = if setup.turn == Color::White { "White" } else { "Black" };
    let check = if checked_king(setup).is_some() { " (in check)" } else { "" };
    format!("{side} to move{check}, castling {castling}, en passant {en_passant}")
}

/// The board as text, ranks 8 to 1 from the top (1 to 8 with `flip`), with
/// the files below and [`status_line`] after it. Without `ascii`, empty
/// dark squares show a `·` and empty light squares stay blank.
pub fn text(setup: &Setup, style: TextStyle) -> String {
    let (top, bottom, side) = if style.ascii { ("+", "+", '|') } else { ("┌", "└", '│') };
    let (top_end, bottom_end, rule) = if style.ascii { ("+", "+", "-") } else { ("┐", "┘", "─") };
    let mut out = String::new();
    let _ = writeln!(out, "  {top}{}{top_end}", rule.repeat(17));
    for row in rows(style.flip) {
        let _ = write!(out, "{} {side}", row[0].rank().char());
        for sq in row {
            out.push(' ');
            out.push(match setup.board.piece_at(sq) {
                Some(piece) if style.ascii => piece.char(),
                Some(piece) => symbol(piece),
                None if style.ascii => '.',
                None if is_dark(sq) => '·',
                None => ' ',
            });
        }
        let _ = writeln!(out, " {side}");
    }
    let _ = writeln!(out, "  {bottom}{}{bottom_end}", rule.repeat(17));
    let files: Vec<String> =
        rows(style.flip).next().into_iter().flatten().map(|sq| sq.file().char().to_string()).collect();
    let _ = writeln!(out, "    {}", files.join(" "));
    out.push_str(&status_line(setup));
    out.push('\n');
    out
}

fn symbol(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

/// Size of a square in SVG units; pieces are drawn in a box of this size.
const SQUARE: i32 = 100;
/// Room around the board for the coordinates and the side-to-move mark.
const MARGIN: i32 = 50;
const LIGHT: &str = "#ecd9b9";
const DARK: &str = "#ae8a68";

/// Each piece's shapes in a 100 x 100 box, above a common plinth: the
/// outline (filled with the piece's colour) and the inner lines (drawn in
/// the other colour). They are drawn 10% larger, centred on the square.
fn piece_shapes(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::Pawn => ("M31 78l7-24h24l7 24z M37 46h26v8h-26z M50 21a13 13 0 1 1 0 26a13 13 0 1 1 0-26z", ""),
        Role::Rook => ("M32 78v-36h36v36z M27 42v-22h10v8h8v-8h10v8h8v-8h10v22z", "M34 48h32 M34 72h32"),
        Role::Bishop => (
            "M36 78v-8h28v8z M40 70c-9-13-8-33 10-48c18 15 19 35 10 48z M50 9a6 6 0 1 1 0 12a6 6 0 1 1 0-12z",
            "M56 36l-10 14 M42 64h16",
        ),
        Role::Knight => (
            "M33 78c1-13 7-21 13-29l-10 5c-5 2-9 0-12-3l-3-4c6-11 13-20 22-26l2-9l7 8c16 3 24 20 22 58z",
            "M44 29a3 3 0 1 1 0 .1z M64 36c2 10 3 24 1 38",
        ),
        Role::Queen => (
            "M30 78l-8-44l14 18l4-26l10 24l10-24l4 26l14-18l-8 44z \
             M22 26a5 5 0 1 1 0 10a5 5 0 1 1 0-10z M40 18a5 5 0 1 1 0 10a5 5 0 1 1 0-10z \
             M60 18a5 5 0 1 1 0 10a5 5 0 1 1 0-10z M78 26a5 5 0 1 1 0 10a5 5 0 1 1 0-10z",
            "M31 70h38",
        ),
        Role::King => (
            "M30 78c-8-18-6-34 8-36h24c14 2 16 18 8 36z M41 42v-8h18v8z M46 34v-9h-7v-7h7v-7h8v7h7v7h-7v9z",
            "M31 70h38 M50 44v26",
        ),
    }
}

const PLINTH: &str = "M25 78h50v8h-50z";

/// `wK`, `bp`-style ids of the piece symbols.
fn piece_id(piece: Piece) -> String {
    format!("{}{}", piece.color.char(), piece.role.upper_char())
}

/// The position as a self-contained SVG diagram (no fonts needed for the
/// pieces, no external references): board, coordinates, a mark beside the
/// side to move, the shaded squares, a king in check, and arrows.
pub fn svg(setup: &Setup, opts: &SvgOptions) -> String {
    let size = 8 * SQUARE + 2 * MARGIN;
    let fen = Fen::try_from_setup(setup.clone()).unwrap_or_else(|err| err.ignore()).to_string();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 {size} {size}" width="{}" height="{}">"#,
        size / 2,
        size / 2
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&fen));
    defs(&setup.board, &mut out);
    let _ = writeln!(out, r##"<rect width="{size}" height="{size}" fill="#f7f4ef"/>"##);

    let place = |sq: Square| -> (i32, i32) {
        let (file, rank) = (i32::from(sq.file()), i32::from(sq.rank()));
        let (column, row) = if opts.flip { (7 - file, rank) } else { (file, 7 - rank) };
        (MARGIN + column * SQUARE, MARGIN + row * SQUARE)
    };
    let _ = writeln!(
        out,
        r#"<rect x="{MARGIN}" y="{MARGIN}" width="{}" height="{}" fill="{LIGHT}"/>"#,
        8 * SQUARE,
        8 * SQUARE
    );
    for sq in Square::ALL.into_iter().filter(|&sq| is_dark(sq)) {
        let (x, y) = place(sq);
        let _ = writeln!(out, r#"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{DARK}"/>"#);
    }
    let shade = |out: &mut String, sq: Square, class: &str, colour: &str| {
        let (x, y) = place(sq);
        let _ = writeln!(
            out,
            r#"<rect class="{class}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{colour}" fill-opacity="0.5"/>"#
        );
    };
    if let Some((from, to)) = opts.last_move {
        shade(&mut out, from, "last-move", "#e8d83c");
        if to != from {
            shade(&mut out, to, "last-move", "#e8d83c");
        }
    }
    for &sq in &opts.highlight {
        shade(&mut out, sq, "highlight", "#3d8fd6");
    }
    if let Some(king) = checked_king(setup) {
        let (x, y) = place(king);
        let _ = writeln!(
            out,
            r#"<rect class="check" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="url(#check)"/>"#
        );
    }
    for sq in setup.board.occupied() {
        let piece = setup.board.piece_at(sq).expect("occupied square");
        let (x, y) = place(sq);
        let _ = writeln!(out, r##"<use xlink:href="#{}" x="{x}" y="{y}"/>"##, piece_id(piece));
    }
    for &(from, to) in &opts.arrows {
        arrow(&mut out, place(from), place(to));
    }
    coordinates(&mut out, opts.flip);
    let mover_at_bottom = (setup.turn == Color::White) != opts.flip;
    let mark_y = if mover_at_bottom { MARGIN + 8 * SQUARE - SQUARE / 2 } else { MARGIN + SQUARE / 2 };
    let mark_fill = if setup.turn == Color::White { "#ffffff" } else { "#1a1a1a" };
    let _ = writeln!(
        out,
        r##"<circle class="to-move" cx="{}" cy="{mark_y}" r="13" fill="{mark_fill}" stroke="#1a1a1a" stroke-width="3"/>"##,
        MARGIN + 8 * SQUARE + MARGIN / 2
    );
    out.push_str("</svg>\n");
    out
}

/// The check gradient and a symbol for each kind of piece on the board.
fn defs(board: &Board, out: &mut String) {
    out.push_str("<defs>\n");
    out.push_str(
        r##"<radialGradient id="check"><stop offset="0" stop-color="#ff2a2a"/><stop offset="0.45" stop-color="#e01b1b" stop-opacity="0.75"/><stop offset="1" stop-color="#a00000" stop-opacity="0"/></radialGradient>"##,
    );
    out.push('\n');
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            if board.by_piece(piece).is_empty() {
                continue;
            }
            let (fill, ink) = if color == Color::White { ("#ffffff", "#1a1a1a") } else { ("#1a1a1a", "#f2f2f2") };
            let (outline, details) = piece_shapes(role);
            let _ = write!(
                out,
                r##"<g id="{}" transform="matrix(1.1 0 0 1.1 -5 -5.5)" stroke="#1a1a1a" stroke-width="3" stroke-linejoin="round" stroke-linecap="round"><path d="{PLINTH} {outline}" fill="{fill}"/>"##,
                piece_id(piece)
            );
            if !details.is_empty() {
                let _ = write!(out, r#"<path d="{details}" fill="none" stroke="{ink}"/>"#);
            }
            out.push_str("</g>\n");
        }
    }
    out.push_str("</defs>\n");
}

/// An arrow from the centre of one square to the centre of another, or a
/// ring on the square when both are the same.
fn arrow(out: &mut String, from: (i32, i32), to: (i32, i32)) {
    const COLOUR: &str = "#1f8a4c";
    let centre = |(x, y): (i32, i32)| (f64::from(x + SQUARE / 2), f64::from(y + SQUARE / 2));
    let ((x0, y0), (x1, y1)) = (centre(from), centre(to));
    if from == to {
        let _ = writeln!(
            out,
            r#"<circle class="arrow" cx="{x0}" cy="{y0}" r="42" fill="none" stroke="{COLOUR}" stroke-width="8" stroke-opacity="0.85"/>"#
        );
        return;
    }
    let (dx, dy) = (x1 - x0, y1 - y0);
    let length = dx.hypot(dy);
    let (ux, uy) = (dx / length, dy / length);
    let (nx, ny) = (-uy, ux);
    let (shaft, head, head_length) = (7.0, 20.0, 36.0);
    // The tip stops short of the centre so that the target piece shows.
    let tip = (x1 - ux * 12.0, y1 - uy * 12.0);
    let base = (tip.0 - ux * head_length, tip.1 - uy * head_length);
    let start = (x0 + ux * 18.0, y0 + uy * 18.0);
    let points = [
        (start.0 + nx * shaft, start.1 + ny * shaft),
        (base.0 + nx * shaft, base.1 + ny * shaft),
        (base.0 + nx * head, base.1 + ny * head),
        tip,
        (base.0 - nx * head, base.1 - ny * head),
        (base.0 - nx * shaft, base.1 - ny * shaft),
        (start.0 - nx * shaft, start.1 - ny * shaft),
    ];
    let points: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    let _ =
        writeln!(out, r#"<polygon class="arrow" points="{}" fill="{COLOUR}" fill-opacity="0.8"/>"#, points.join(" "));
}

/// File letters under the board and rank numbers on its left.
fn coordinates(out: &mut String, flip: bool) {
    out.push_str(r##"<g font-family="sans-serif" font-size="30" fill="#4a4a4a" text-anchor="middle">"##);
    out.push('\n');
    for (i, row) in rows(flip).enumerate() {
        let i = i as i32;
        let y = MARGIN + i * SQUARE + SQUARE / 2 + 10;
        let _ = writeln!(out, r#"<text x="{}" y="{y}">{}</text>"#, MARGIN / 2, row[0].rank().char());
        if i == 7 {
            for (column, sq) in row.iter().enumerate() {
                let x = MARGIN + column as i32 * SQUARE + SQUARE / 2;
                let _ = writeln!(out, r#"<text x="{x}" y="{}">{}</text>"#, MARGIN + 8 * SQUARE + 36, sq.file().char());
            }
        }
    }
    out.push_str("</g>\n");
}

/// Text made safe inside an XML element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use shakmaty::{Setup, Square, fen::Fen};

    use super::{SvgOptions, TextStyle, checked_king, status_line, svg, text};

    fn setup(fen: &str) -> Setup {
        fen.parse::<Fen>().expect("FEN").into_setup()
    }

    #[test]
    fn text_board_shows_dark_empty_squares_as_dots_and_light_ones_blank() {
        let after_e4 = setup("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        let want = "  ┌─────────────────┐
8 │ ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜ │
7 │ ♟ ♟ ♟ ♟ ♟ ♟ ♟ ♟ │
6 │   ·   ·   ·   · │
5 │ ·   ·   ·   ·   │
4 │   ·   · ♙ ·   · │
3 │ ·   ·   ·   ·   │
2 │ ♙ ♙ ♙ ♙   ♙ ♙ ♙ │
1 │ ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖ │
  └─────────────────┘
    a b c d e f g h
Black to move, castling KQkq, en passant e3
";
        assert_eq!(text(&after_e4, TextStyle::default()), want);
    }

    #[test]
    fn flipped_ascii_board_puts_rank_one_and_the_h_file_first() {
        let mate = setup("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
        let want = "  +-----------------+
1 | R N . K . B N R |
2 | P P P . P P P P |
3 | . . . . . . . . |
4 | . . . P . B . . |
5 | . . . p . . . . |
6 | . . n . . n . . |
7 | p p Q . p p p p |
8 | r . b k q b . r |
  +-----------------+
    h g f e d c b a
Black to move (in check), castling KQkq, en passant -
";
        assert_eq!(text(&mate, TextStyle { flip: true, ascii: true }), want);
    }

    #[test]
    fn status_line_names_an_inner_castling_rook_by_its_file() {
        let chess960 = setup("1r1k2rr/8/8/8/8/8/8/1R1K2RR w Gg - 0 1");
        assert_eq!(status_line(&chess960), "White to move, castling Gg, en passant -");
    }

    #[test]
    fn the_king_in_check_is_the_side_to_move_s_only() {
        assert_eq!(checked_king(&setup("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")), None);
        assert_eq!(checked_king(&setup("R3k3/8/8/8/8/8/8/4K3 b - - 0 1")), Some(Square::E8));
        // A position without kings is drawn, and nobody is in check.
        assert_eq!(checked_king(&setup("8/8/8/8/8/8/8/R7 b - - 0 1")), None);
    }

    #[test]
    fn svg_places_every_piece_shading_and_arrow() {
        let pos = setup("R3k3/8/8/8/8/8/3PP3/4K3 b - - 0 1");
        let opts = SvgOptions {
            flip: false,
            arrows: vec![(Square::E8, Square::E7), (Square::D2, Square::D2)],
            highlight: vec![Square::A8],
            last_move: Some((Square::A1, Square::A8)),
        };
        let drawing = svg(&pos, &opts);
        assert!(drawing.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(drawing.ends_with("</svg>\n"));
        assert_eq!(drawing.matches("<use ").count(), 5, "one per piece");
        // Only the kinds of piece on the board are defined.
        assert_eq!(drawing.matches("<g id=").count(), 4);
        assert_eq!(drawing.matches(r#"class="last-move""#).count(), 2);
        assert_eq!(drawing.matches(r#"class="highlight""#).count(), 1);
        assert_eq!(drawing.matches(r#"class="check""#).count(), 1);
        assert_eq!(drawing.matches("<polygon class=\"arrow\"").count(), 1);
        assert_eq!(drawing.matches("<circle class=\"arrow\"").count(), 1);
        // a8 is the top-left square, e8 the fifth of the top row.
        assert!(drawing.contains(r##"<use xlink:href="#wR" x="50" y="50"/>"##));
        assert!(drawing.contains(r##"<use xlink:href="#bK" x="450" y="50"/>"##));
        let flipped = svg(&pos, &SvgOptions { flip: true, ..opts });
        assert!(flipped.contains(r##"<use xlink:href="#wR" x="750" y="750"/>"##));
        assert!(flipped.contains(r##"<use xlink:href="#bK" x="350" y="750"/>"##));
    }
}
