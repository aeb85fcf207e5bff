//! `pgnkit fen show`: the text board byte for byte, and SVG diagrams that
//! are well-formed XML and match the golden file reviewed by eye.

use crate::support::{Scratch, root, run};

const SCHOLARS_MATE: &str = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4";

fn show(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["fen", "show"];
    all.extend_from_slice(args);
    run(&all, None)
}

#[test]
fn text_board_is_drawn_with_the_position_s_state_below() {
    let out = show(&[SCHOLARS_MATE]);
    let want = "  ┌─────────────────┐
8 │ ♜ · ♝ ♛ ♚ ♝   ♜ │
7 │ ♟ ♟ ♟ ♟ · ♕ ♟ ♟ │
6 │   · ♞ ·   ♞   · │
5 │ ·   ·   ♟   ·   │
4 │   · ♗ · ♙ ·   · │
3 │ ·   ·   ·   ·   │
2 │ ♙ ♙ ♙ ♙   ♙ ♙ ♙ │
1 │ ♖ ♘ ♗   ♔   ♘ ♖ │
  └─────────────────┘
    a b c d e f g h
Black to move (in check), castling KQkq, en passant -
";
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, want, ""));
}

#[test]
fn ascii_board_from_black_s_side_with_the_fen_unquoted() {
    let fields: Vec<&str> = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2".split(' ').collect();
    let mut args = vec!["--ascii", "--flip"];
    args.extend(&fields);
    let out = show(&args);
    let want = "  +-----------------+
1 | R N B K Q B N R |
2 | P P P . P P P P |
3 | . . . . . . . . |
4 | . . . P . . . . |
5 | . . . . . p . . |
6 | . . . . . . . . |
7 | p p p p p . p p |
8 | r n b k q b n r |
  +-----------------+
    h g f e d c b a
White to move, castling KQkq, en passant c6
";
    assert_eq!((out.code, out.stdout.as_str()), (0, want));
}

#[test]
fn svg_matches_the_reviewed_golden_file() {
    let out = show(&["--svg", "-", "--last-move", "h5f7", "--arrows", "c4f7", SCHOLARS_MATE]);
    let golden = std::fs::read_to_string(root().join("testdata/diagram/scholars-mate.svg")).expect("golden SVG");
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert!(out.stdout == golden, "the SVG differs from testdata/diagram/scholars-mate.svg:\n{}", out.stdout);
}

#[test]
fn svg_written_to_a_file_is_the_same_as_on_stdout() {
    let dir = Scratch::new("fen-show");
    let path = dir.path("board.svg");
    let out = show(&["--svg", path.to_str().unwrap(), "--flip", SCHOLARS_MATE]);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""));
    let written = std::fs::read_to_string(&path).expect("the SVG file");
    assert_eq!(written, show(&["--svg", "-", "--flip", SCHOLARS_MATE]).stdout);
}

#[test]
fn every_svg_variant_is_well_formed_xml() {
    let cases: &[&[&str]] = &[
        &["--svg", "-", SCHOLARS_MATE],
        &[
            "--svg",
            "-",
            "--flip",
            "--arrows",
            "e2e4,g1f3,d4d4",
            "--highlight",
            "e4,d5",
            "--last-move",
            "e7e5",
            "8/8/8/8/8/8/8/8 w - - 0 1",
        ],
        &["--svg", "-", "--arrows", "a1h8,h1a8,a8a1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
    ];
    for args in cases {
        let out = show(args);
        assert_well_formed(&out.stdout).unwrap_or_else(|err| panic!("{args:?}: {err}\n{}", out.stdout));
    }
    // The checker itself rejects what it should.
    for broken in
        ["<svg><g></svg></g>", "<svg a=\"1\" a=\"2\"/>", "<svg a=1/>", "<svg/><svg/>", "<svg>&nbsp;</svg>", "<svg>"]
    {
        assert!(assert_well_formed(broken).is_err(), "{broken} is not well-formed");
    }
}

#[test]
fn a_position_that_is_not_legal_is_drawn_with_a_warning_and_exit_1() {
    let out = show(&["--ascii", "8/8/8/8/8/8/8/R7 w - - 0 1"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("1 | R . . . . . . . |"), "{}", out.stdout);
    assert_eq!(
        out.stderr,
        "pgnkit: warning: `8/8/8/8/8/8/8/R7 w - - 0 1` is not a usable FEN: missing-king: White has no king; \
         each side has exactly one; missing-king: Black has no king; each side has exactly one; drawn as written\n"
    );
}

#[test]
fn an_unreadable_fen_is_an_error_and_bad_options_are_usage_errors() {
    let out = show(&["rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR"]);
    // Exit 2, as for every command given a FEN it cannot use, explained as
    // `fen check` does.
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    assert_eq!(
        out.stderr,
        "pgnkit: error: `rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR` is not a usable FEN: board-char: row 3 \
         (rank 6) `9` has `9`, which is not a piece letter (KQRBNP for White, kqrbnp for Black) or a count of \
         empty squares (1 to 8)\n"
    );
    for args in [
        &["--svg", "-", "--highlight", "e9", SCHOLARS_MATE][..],
        &["--svg", "-", "--arrows", "e2-e4", SCHOLARS_MATE],
        &["--arrows", "e2e4", SCHOLARS_MATE],
        &["--ascii", "--svg", "-", SCHOLARS_MATE],
    ] {
        let out = show(args);
        assert_eq!((out.code, out.stdout.as_str()), (2, ""), "{args:?}");
    }
}

/// A minimal XML well-formedness check: one root element, tags closed in
/// order, attributes quoted and not repeated, text and attribute values
/// without `<` and with only the predefined or numeric entities.
fn assert_well_formed(xml: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = xml;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt])?;
        if open.is_empty() && !rest[..lt].trim().is_empty() {
            return Err("text outside the root element".into());
        }
        rest = &rest[lt + 1..];
        let end = tag_end(rest).ok_or("a tag is not closed")?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(opened) if opened == name.trim() => continue,
                opened => return Err(format!("</{name}> closes {opened:?}")),
            }
        }
        let empty = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attributes) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_')) {
            return Err(format!("bad element name `{name}`"));
        }
        let mut seen = Vec::new();
        while !attributes.trim().is_empty() {
            let (key, after) = attributes.trim_start().split_once('=').ok_or("an attribute without a value")?;
            let value = after.strip_prefix('"').ok_or(format!("attribute {key} is not quoted"))?;
            let close = value.find('"').ok_or("an attribute value is not closed")?;
            if value[..close].contains('<') {
                return Err(format!("attribute {key} holds a <"));
            }
            check_text(&value[..close])?;
            if seen.contains(&key) {
                return Err(format!("attribute {key} repeated"));
            }
            seen.push(key);
            attributes = &value[close + 1..];
        }
        if open.is_empty() {
            roots += 1;
        }
        if !empty {
            open.push(name);
        }
    }
    if !rest.trim().is_empty() {
        return Err("text after the root element".into());
    }
    match (roots, open.as_slice()) {
        (1, []) => Ok(()),
        (1, unclosed) => Err(format!("unclosed {unclosed:?}")),
        (n, _) => Err(format!("{n} root elements")),
    }
}

/// Where a tag's `>` is, outside quoted attribute values.
fn tag_end(text: &str) -> Option<usize> {
    let mut quoted = false;
    text.char_indices().find_map(|(i, c)| {
        match c {
            '"' => quoted = !quoted,
            '>' if !quoted => return Some(i),
            _ => {}
        }
        None
    })
}

fn check_text(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let end = rest[amp..].find(';').ok_or("a bare &")?;
        let entity = &rest[amp + 1..amp + end];
        let numeric = entity.strip_prefix('#').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !numeric && !matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos") {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &rest[amp + end + 1..];
    }
    Ok(())
}
