//! The movetext and tag-line lexicon the framer and the locator share: what
//! a token is, where it ends, and whether a tag line is well formed.

use std::ops::Range;

/// How the framer and the locator see a movetext token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenClass {
    /// A termination marker.
    Result,
    /// Move numbers and NAGs.
    Ignored,
    /// `e.p.` or `ep` after an en passant capture: not SAN, and not a move.
    EnPassantMark,
    /// A `$` token that is not a NAG (`$256`, `$x`): pgn-reader drops it
    /// silently.
    BadNag,
    /// An evaluation symbol written as text (`+-`, `=`, `RR`, `N`), as in
    /// Informant-style files; pgn-reader skips these.
    Annotation,
    /// Anything the parser will try to read as a move (valid or not).
    Move,
}

/// Classifies a token as pgn-reader reads it: termination markers, move
/// numbers (digits, possibly glued to the move that follows), NAGs, and
/// everything else as a move attempt.
#[inline(always)]
pub(crate) fn classify_token(token: &[u8]) -> TokenClass {
    match token[0] {
        b'e' if matches!(token, b"ep" | b"e.p.") => TokenClass::EnPassantMark,
        b'N' | b'R' if matches!(token, b"N" | b"RR") => TokenClass::Annotation,
        b if MOVE_START[usize::from(b)] => TokenClass::Move,
        b'$' if nag_number(token).is_some() => TokenClass::Ignored,
        b'$' => TokenClass::BadNag,
        b'0'..=b'9' => {
            // Half of all tokens are move numbers: settle those first.
            let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == token.len() {
                TokenClass::Ignored
            } else if is_result(token) {
                TokenClass::Result
            } else {
                TokenClass::Move
            }
        }
        _ if is_result(token) => TokenClass::Result,
        // One table look settles most junk before the list is searched.
        b if ANNOTATION_START[usize::from(b)] && token.len() <= 7 && ANNOTATION_SYMBOLS.contains(&token) => {
            TokenClass::Annotation
        }
        _ => TokenClass::Move,
    }
}

/// Whether pgn-reader skips a [`TokenClass::Move`] token whole, reading
/// nothing of it: one that starts with none of the bytes it reads a token
/// of its own kind by (move numbers, results, a `)` that closes nothing)
/// and of which not even a prefix reads as SAN (`x`, `Xq9`), as a one-byte
/// token's never does. SAN holds no byte that ends a token, so the token
/// alone reads as it does followed by the rest of the game.
pub(crate) fn parser_skips(token: &[u8]) -> bool {
    !OWN_CASE[usize::from(token[0])] && (token.len() == 1 || shakmaty::san::SanPlus::from_ascii_prefix(token).is_err())
}

/// The bytes pgn-reader's movetext reading has a case of its own for, and
/// `[` and `%`, which end or skip a line at its start, and the first of a
/// byte order mark, which it skips where it starts a game.
const OWN_CASE: [bool; 256] = byte_set(b"0123456789\xc2{}()$!?*;.%[ \t\r\n\xef");

/// First bytes of the tokens [`classify_token`] reads as moves whatever
/// follows (but for `ep`, `e.p.`, `N` and `RR`): the framer's movetext walk
/// tells move tokens by them too.
pub(crate) const MOVE_START: [bool; 256] = byte_set(b"abcdefghNBRQKO");

/// The number of a `$n` NAG token: `$` and digits, 0 to 255, the PGN
/// standard's range (pgn-reader keeps a NAG in a byte and drops any other
/// `$` token without a word).
pub(crate) fn nag_number(token: &[u8]) -> Option<u8> {
    let digits = token.strip_prefix(b"$").filter(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))?;
    let significant = &digits[digits.iter().take_while(|&&d| d == b'0').count()..];
    if significant.len() > 3 {
        return None;
    }
    significant.iter().try_fold(0u8, |n, &d| n.checked_mul(10)?.checked_add(d - b'0'))
}

/// Evaluation and commentary symbols some databases write as text instead
/// of NAGs (Informant style): recognised so they are reported as such, not
/// as broken moves. `!` and `?` runs are handled separately.
const ANNOTATION_SYMBOLS: &[&[u8]] = &[
    b"+-",
    b"-+",
    b"+=",
    b"=+",
    b"+/=",
    b"=/+",
    b"+/-",
    b"-/+",
    b"=",
    b"~",
    b"inf",
    b"=/inf",
    b"inf/=",
    b"=/~",
    b"TN",
    b"->",
    b"<->",
    b"=>",
    b"^",
    b"\xc2\xb1",
    b"\xe2\x88\x93",
    b"\xe2\xa9\xb2",
    b"\xe2\xa9\xb1",
    b"\xe2\x88\x9e",
    b"\xe2\x96\xa1",
    b"\xce\x94",
    b"\xe2\x87\x86",
    b"\xe2\x86\x91",
    b"\xe2\x86\x92",
];

/// UTF-8's byte order mark: skipped where it starts the input or a line.
pub(crate) const BOM: &[u8] = b"\xef\xbb\xbf";

/// The first bytes of [`ANNOTATION_SYMBOLS`] (a test checks it).
const ANNOTATION_START: [bool; 256] = byte_set(b"+-=~iT<^\xc2\xe2\xce");

#[inline]
pub(crate) fn is_result(token: &[u8]) -> bool {
    // Most tokens are moves: reject them on the first byte, here, where
    // the call is made.
    match token.first() {
        Some(b'*') => token.len() == 1,
        Some(b'0' | b'1' | 0xc2) => is_result_marker(token),
        _ => false,
    }
}

/// [`is_result`] for a token that starts as a result does.
fn is_result_marker(token: &[u8]) -> bool {
    let (left, right) = match memchr::memchr(b'-', token) {
        Some(i) => (&token[..i], &token[i + 1..]),
        None => {
            // pgn-reader also accepts an en dash or em dash.
            let Some(i) = memchr::memchr(0xe2, token) else {
                return false;
            };
            match token.get(i + 1..i + 3) {
                Some([0x80, 0x93 | 0x94]) => (&token[..i], &token[i + 3..]),
                _ => return false,
            }
        }
    };
    matches!((left, right), (b"1", b"0") | (b"0", b"1") | (b"1/2", b"1/2") | (b"\xc2\xbd", b"\xc2\xbd"))
}

/// Length of the token at the start of `rest` (which starts with a byte
/// that is not a token end), or `None` if `rest` ends inside it. The old
/// annotation `e.p.` is one token although pgn-reader splits it at the dots.
/// `complete` says whether more bytes may follow `rest`, asked only when
/// that matters.
#[inline]
pub(crate) fn token_len(rest: &[u8], complete: impl FnOnce() -> bool) -> Option<usize> {
    let Some(len) = rest[1..].iter().position(|&b| is_token_end(b)) else {
        return complete().then_some(rest.len());
    };
    let len = len + 1;
    if &rest[..len] == b"e" {
        if rest.len() < len + 3 && !complete() {
            return None;
        }
        if rest[len..].starts_with(b".p.") {
            return Some(len + 3);
        }
    }
    Some(len)
}

/// Bytes that end a movetext token, as in pgn-reader.
#[inline]
pub(crate) fn is_token_end(b: u8) -> bool {
    TOKEN_END[usize::from(b)]
}

const TOKEN_END: [bool; 256] = byte_set(b" \t\n\r{}()!?$;.*");

/// A lookup table that is true for the given bytes.
pub(crate) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

/// Horizontal white space (and `\r`, which precedes `\n` in CRLF files).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// The bytes [`is_blank`] is true for.
const BLANK: [bool; 256] = byte_set(b" \t\r\x0b\x0c");

/// How [`read_tag`] reads a tag. Both readings cut a tag the same way: a
/// head from `[` to the first `"`, `]` or line break, then, when that is a
/// `"`, a value up to the next `"` that no backslash escapes (or a line
/// break, or the end), then blanks and `]`. They differ only where noted,
/// each time in a `match` on this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The framer's and the locator's: one line (without its `\n`), where a
    /// name is an identifier between blanks and each departure from
    /// `[Name "value"]` is a [`TagProblem`].
    Strict,
    /// pgn-reader's, over a game's bytes: any head is a name, and what does
    /// not fit is skipped as pgn-reader skips it (so that commands reading
    /// tags without parsing see what `validate` sees).
    PgnReader,
}

/// Why a tag is not `[Name "value"]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagProblem {
    /// Nothing to name the tag before its value (or where it should be).
    NoName,
    /// No quoted value after the name.
    NoValue,
    /// The value has no closing quote.
    OpenValue,
    /// Something other than blanks between the value and `]` (or no `]`).
    NotClosed,
}

/// One tag as [`read_tag`] cuts it, as offsets into the bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tag {
    /// The name (empty when there is none).
    pub name: Range<usize>,
    /// The value between its quotes, escapes kept; `None` when the head is
    /// not followed by a quoted value.
    pub value: Option<Range<usize>>,
    /// Offset of the first byte after the tag.
    pub end: usize,
    /// The first thing wrong with the tag, if any.
    pub problem: Option<TagProblem>,
    /// The value holds quotes that are not escaped: it was read up to the
    /// last quote before the `]` that ends its line ([`loose_value_end`]).
    pub loose: bool,
}

/// The head of a tag: its name, and whether a quoted value follows it.
struct Head {
    name: Range<usize>,
    /// Where reading the head stopped: at its end (the first `"`, `]` or
    /// line break after the `[`, or the end) unless it is not a name.
    stop: usize,
    /// Whether the head ends at a quote that opens the tag's value.
    opens_value: bool,
}

/// Bytes that end a tag's head.
const HEAD_END: [bool; 256] = byte_set(b"\"]\n");

/// The blanks pgn-reader skips between a value and its `]`.
const PGN_READER_BLANK: [bool; 256] = byte_set(b" \t\r");

/// Bytes of a name, to the strict reading.
const NAME: [bool; 256] = {
    let mut table = byte_set(b"_");
    let mut b = 0;
    while b < 256 {
        table[b] |= (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// Bytes that end a value or escape the next one.
const VALUE_STOP: [bool; 256] = byte_set(b"\"\\\n");

/// Offset of the first byte at or after `from` that is not in `set`.
#[inline(always)]
fn skip_set(bytes: &[u8], mut from: usize, set: &[bool; 256]) -> usize {
    while from < bytes.len() && set[usize::from(bytes[from])] {
        from += 1;
    }
    from
}

/// Reads the head of the tag whose `[` is at `start`.
#[inline(always)]
fn read_head(bytes: &[u8], start: usize, reading: Reading) -> Head {
    match reading {
        Reading::Strict => {
            // A name is an identifier between blanks: the first other byte
            // ends the reading. That is the head's end when the head is a
            // name, and otherwise the head opens no value (and recovering
            // from there finds the `]` recovering from the end would).
            let name_start = skip_set(bytes, start + 1, &BLANK);
            let name_end = skip_set(bytes, name_start, &NAME);
            let stop = skip_set(bytes, name_end, &BLANK);
            Head { name: name_start..name_end, stop, opens_value: bytes.get(stop) == Some(&b'"') }
        }
        Reading::PgnReader => {
            // Tag heads are short: a plain loop beats memchr's set-up cost.
            let head = start + 1;
            let stop =
                head + bytes[head..].iter().position(|&b| HEAD_END[usize::from(b)]).unwrap_or(bytes.len() - head);
            // pgn-reader takes the whole head as the name, but for one space
            // before the quote, which belongs to the layout.
            let end = if stop > head && bytes[stop - 1] == b' ' { stop - 1 } else { stop };
            Head { name: head..end, stop, opens_value: bytes.get(stop) == Some(&b'"') }
        }
    }
}

/// Reads the tag whose `[` is at `start` of `bytes` (a line without its
/// `\n` for [`Reading::Strict`], a game's bytes for [`Reading::PgnReader`]).
#[inline(always)]
pub(crate) fn read_tag(bytes: &[u8], start: usize, reading: Reading) -> Tag {
    let head = read_head(bytes, start, reading);
    let no_name = head.name.is_empty();
    if !head.opens_value {
        let end = match reading {
            // pgn-reader reads on after the `]` or line break that ends a head
            // as after a value.
            Reading::PgnReader => tag_end(bytes, (head.stop + 1).min(bytes.len()), reading).0,
            Reading::Strict if bytes.get(head.stop) == Some(&b']') => head.stop + 1,
            Reading::Strict => recover(bytes, head.stop, reading),
        };
        let problem = if no_name { TagProblem::NoName } else { TagProblem::NoValue };
        return Tag { name: head.name, value: None, end, problem: Some(problem), loose: false };
    }
    let from = head.stop + 1;
    let (mut value_end, mut after, closed) = read_value(bytes, from);
    let mut loose = false;
    if closed
        && bytes.get(skip_set(bytes, after, &BLANK)) != Some(&b']')
        && let Some(last) = loose_value_end(bytes, after)
    {
        (value_end, after, loose) = (last, last + 1, true);
    }
    let (end, ket) = tag_end(bytes, after, reading);
    let problem = match (no_name, closed, ket) {
        (true, ..) => Some(TagProblem::NoName),
        (_, false, _) => Some(TagProblem::OpenValue),
        (_, _, false) => Some(TagProblem::NotClosed),
        _ => None,
    };
    Tag { name: head.name, value: Some(from..value_end), end, problem, loose }
}

/// Where the value of a tag goes on to when a quote closed it at `after - 1`
/// but no `]` follows (`[Event "LA CC Handicap Tour "C""]`, as old
/// databases write quotes in a value): to the last quote of the line, when
/// the line ends right after it with `]` (blanks aside), no `]` comes
/// between, and no backslash escapes that quote. Such a value is read so,
/// as python-chess reads it, rather than cut at its first inner quote.
#[cold]
#[inline(never)]
fn loose_value_end(bytes: &[u8], after: usize) -> Option<usize> {
    let line_end = memchr::memchr(b'\n', &bytes[after..]).map_or(bytes.len(), |n| after + n);
    let line = bytes[after..line_end].trim_ascii_end().strip_suffix(b"]")?.trim_ascii_end();
    let quote = after + line.len().checked_sub(1)?;
    let escapes = line[..line.len() - 1].iter().rev().take_while(|&&b| b == b'\\').count();
    (line.ends_with(b"\"") && escapes % 2 == 0 && memchr::memchr(b']', &bytes[after..quote]).is_none()).then_some(quote)
}

/// `line` without the blanks ([`is_blank`]) and line breaks it starts
/// with: a line of tags may start with a vertical tab or a form feed, as
/// the framer reads it.
fn trim_blanks_start(line: &[u8]) -> &[u8] {
    &line[line.iter().take_while(|&&b| is_blank(b) || b == b'\n').count()..]
}

/// The tag section `section` with what pgn-reader would read otherwise than
/// pgnkit mended, into `out`: a byte order mark at a line's start left out,
/// the quotes of a value read past them ([`Tag::loose`]) escaped, and a
/// vertical tab or form feed between tags, where pgn-reader skips only
/// spaces, tabs and `\r` (and would end the tag section, losing the tags
/// after it), written as a space.
/// For [`crate::frame::FrameFlags::TAGS_MENDED`] games handed to pgn-reader.
#[cold]
#[inline(never)]
pub(crate) fn mend_tags(section: &[u8], out: &mut Vec<u8>) {
    for line in section.split_inclusive(|&b| b == b'\n') {
        let line = line.strip_prefix(BOM).unwrap_or(line);
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let mut copied = 0;
        if trim_blanks_start(text).starts_with(b"[") {
            // Blanks from `from` on, each odd one as a space.
            let blanks = |from: usize, out: &mut Vec<u8>| {
                let to = from + text[from..].iter().take_while(|&&b| is_blank(b)).count();
                out.extend(text[from..to].iter().map(|&b| if PGN_READER_BLANK[usize::from(b)] { b } else { b' ' }));
                to
            };
            let mut gap = 0;
            let (scan, _) = scan_tag_line_with(text, |_, tag| {
                out.extend_from_slice(&text[copied..gap]);
                copied = blanks(gap, out);
                gap = tag.end;
                let Some(value) = tag.value.clone().filter(|_| tag.loose) else { return };
                out.extend_from_slice(&text[copied..value.start]);
                let mut escaped = false;
                for &b in &text[value.clone()] {
                    if b == b'"' && !escaped {
                        out.push(b'\\');
                    }
                    escaped = b == b'\\' && !escaped;
                    out.push(b);
                }
                copied = value.end;
            });
            if gap > 0 && gap <= scan.tags_end {
                out.extend_from_slice(&text[copied..gap]);
                copied = blanks(gap, out);
            }
        }
        out.extend_from_slice(&line[copied..]);
    }
}

/// Reads a value from `from`, just after its opening quote, to its closing
/// quote, a line break or the end: returns where the value ends, where the
/// tag goes on, and whether a quote closed it.
#[inline(always)]
fn read_value(bytes: &[u8], from: usize) -> (usize, usize, bool) {
    let mut k = from;
    loop {
        let stop = value_stop(bytes, k);
        match stop.map(|i| (i, bytes[i])) {
            // A backslash escapes the next byte, whatever it is.
            Some((i, b'\\')) => k = (i + 2).min(bytes.len()),
            Some((i, b'"')) => return (i, i + 1, true),
            Some((i, _)) => return (i, i, false),
            // Left open at the end of the input, the value ends after its last
            // escape: what `Tags::scan` has always kept there (pgn-reader
            // gives up with an error).
            None => return (k, bytes.len(), false),
        }
    }
}

/// Offset of the first `"`, `\` or line break at or after `from`.
#[inline(always)]
fn value_stop(bytes: &[u8], from: usize) -> Option<usize> {
    // Most values are short: a plain loop over their start beats memchr's
    // set-up cost, which only long values repay.
    let window = bytes.len().min(from + 32);
    let mut i = from;
    while i < window {
        if VALUE_STOP[usize::from(bytes[i])] {
            return Some(i);
        }
        i += 1;
    }
    memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..]).map(|n| i + n)
}

/// Where a tag ends whose value (or value-less head) ends before `at`:
/// after blanks and `]`, or where reading can go on; and whether a `]`
/// closed it.
#[inline(always)]
fn tag_end(bytes: &[u8], at: usize, reading: Reading) -> (usize, bool) {
    let blanks = match reading {
        Reading::Strict => &BLANK,
        // pgn-reader's blanks here are only space, tab and `\r`.
        Reading::PgnReader => &PGN_READER_BLANK,
    };
    let i = skip_set(bytes, at, blanks);
    match bytes.get(i) {
        Some(b']') => (i + 1, true),
        Some(_) => (recover(bytes, i, reading), false),
        None => (i, false),
    }
}

/// Where reading goes on after something that does not fit a tag at `at`.
#[inline(always)]
fn recover(bytes: &[u8], at: usize, reading: Reading) -> usize {
    // The strict reading goes on after the next `]`, to check the tags that
    // follow on the line. pgn-reader reads text after a broken tag
    // (`"Smith, John "The King""]`) as movetext, then the tag lines after it
    // as a game of their own, which the checker takes as part of this one:
    // so the rest of the line is skipped.
    let byte = match reading {
        Reading::Strict => b']',
        Reading::PgnReader => b'\n',
    };
    memchr::memchr(byte, &bytes[at..]).map_or(bytes.len(), |n| at + n + 1)
}

/// The tag name if `line` (starting at `[`) looks like `[Name "`.
pub(crate) fn tag_name(line: &[u8]) -> Option<&[u8]> {
    let head = read_head(line, 0, Reading::Strict);
    (head.opens_value && !head.name.is_empty()).then(|| &line[head.name])
}

/// What a line of tags holds: where its tags end (movetext may follow on
/// the same line) and the first thing wrong with them, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TagLineScan {
    /// Offset of the first byte after the tags (the line length if none).
    pub tags_end: usize,
    /// Why a tag on the line is not `[Name "value"]`.
    pub problem: Option<String>,
}

/// Reads the `[Name "value"]` tags of one line (without its `\n`) strictly.
pub(crate) fn scan_tag_line(line: &[u8]) -> TagLineScan {
    scan_tag_line_with(line, |_, _| {}).0
}

/// [`scan_tag_line`], handing each tag to `on_tag` with the line; also
/// says whether every blank the scan stepped over between tags is one
/// pgn-reader skips there too (space, tab, `\r`; not a vertical tab or a
/// form feed).
#[inline(always)]
pub(crate) fn scan_tag_line_with(line: &[u8], mut on_tag: impl FnMut(&[u8], &Tag)) -> (TagLineScan, bool) {
    debug_assert!(!line.contains(&b'\n'), "a tag line is read without its line break");
    let mut odd_blank = false;
    let mut skip_blanks = |mut i: usize| {
        while i < line.len() && is_blank(line[i]) {
            odd_blank |= !PGN_READER_BLANK[usize::from(line[i])];
            i += 1;
        }
        i
    };
    let mut problem = None;
    let mut i = skip_blanks(0);
    while line.get(i) == Some(&b'[') {
        let tag = read_tag(line, i, Reading::Strict);
        i = skip_blanks(tag.end);
        on_tag(line, &tag);
        if problem.is_none()
            && let Some(kind) = tag.problem
        {
            problem = Some(describe(line, tag, kind));
        }
    }
    (TagLineScan { tags_end: i, problem }, !odd_blank)
}

/// Where pgn-reader reads the name and value of a tag that has no problem
/// to the strict reading, when it reads them as that reading does: the name
/// right after the `[` and at most one space before the quote, only blanks
/// pgn-reader skips between the value and the `]`.
#[inline(always)]
pub(crate) fn pgn_reader_spans(line: &[u8], tag: &Tag) -> Option<(Range<usize>, Range<usize>)> {
    let value = tag.value.clone().filter(|_| tag.problem.is_none())?;
    let bracket = tag.name.start.checked_sub(1)?;
    let quote = value.start - 1;
    let name_ok =
        line[bracket] == b'[' && (quote == tag.name.end || (quote == tag.name.end + 1 && line[tag.name.end] == b' '));
    let ket_ok = line[value.end + 1..tag.end - 1].iter().all(|&b| PGN_READER_BLANK[usize::from(b)]);
    (name_ok && ket_ok).then(|| (tag.name.clone(), value))
}

/// The name and value of a line that is one plain tag, `[Name "value"]`
/// (one space before the quote, no escape in the value, nothing after the
/// `]` but a `\r`), and the offset of its `\n`; `None` for any other line
/// or one not read to its end. Most tag lines are such: this reads them
/// in one go where [`scan_tag_line_with`] and [`pgn_reader_spans`], which
/// read them alike (a test holds the two equal), look for every departure.
#[inline(always)]
pub(crate) fn plain_tag_line(rest: &[u8]) -> Option<(Range<usize>, Range<usize>, usize)> {
    if rest.first() != Some(&b'[') {
        return None;
    }
    let name_end = skip_set(rest, 1, &NAME);
    if name_end == 1 || rest.get(name_end..name_end + 2) != Some(b" \"") {
        return None;
    }
    let value_start = name_end + 2;
    let value_end = value_start + rest[value_start..].iter().position(|&b| VALUE_STOP[usize::from(b)])?;
    if rest[value_end] != b'"' {
        return None;
    }
    let mut i = value_end + 1;
    if rest.get(i) != Some(&b']') {
        return None;
    }
    i += 1;
    if rest.get(i) == Some(&b'\r') {
        i += 1;
    }
    (rest.get(i) == Some(&b'\n')).then_some((1..name_end, value_start..value_end, i))
}

/// The `invalid-tag` message for what is wrong with `tag`.
#[cold]
fn describe(line: &[u8], tag: Tag, problem: TagProblem) -> String {
    let name = String::from_utf8_lossy(&line[tag.name]);
    match problem {
        TagProblem::NoName => "a tag has no name: a tag is written [Name \"value\"]".to_owned(),
        TagProblem::NoValue => format!("tag `{name}` has no quoted value"),
        TagProblem::OpenValue => format!("the value of tag `{name}` has no closing quote"),
        TagProblem::NotClosed => {
            let close = tag.value.map_or(tag.end, |v| v.end + 1);
            if memchr::memchr(b'"', &line[close..tag.end]).is_some() {
                format!("the value of tag `{name}` contains a quote that is not escaped (write \\\" inside a value)")
            } else {
                format!("tag `{name}` is not closed with `]` right after its value")
            }
        }
    }
}

/// Where the movetext starts: after the leading blank, `[` tag and `%`
/// escape lines, and the byte order marks that start lines.
pub(crate) fn movetext_start(bytes: &[u8]) -> usize {
    let mut start = 0;
    while start < bytes.len() {
        if (start == 0 || bytes[start - 1] == b'\n') && bytes[start..].starts_with(BOM) {
            start += BOM.len();
            continue;
        }
        let line_end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n + 1);
        let line = trim_blanks_start(&bytes[start..line_end]);
        if !(line.is_empty() || line.starts_with(b"[") || line.starts_with(b"%")) {
            break;
        }
        start = line_end;
    }
    start
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{
        ANNOTATION_START, ANNOTATION_SYMBOLS, Reading, TagLineScan, TokenClass, classify_token, mend_tags, nag_number,
        pgn_reader_spans, plain_tag_line, read_tag, scan_tag_line, scan_tag_line_with, tag_name,
    };

    #[test]
    fn a_value_with_quotes_not_escaped_runs_to_the_last_quote_before_the_lines_bracket() {
        fn value(line: &str, reading: Reading) -> (Option<&str>, bool, bool) {
            let tag = read_tag(line.as_bytes(), 0, reading);
            (tag.value.map(|v| &line[v]), tag.loose, tag.problem.is_some())
        }
        for reading in [Reading::Strict, Reading::PgnReader] {
            let read = |line| value(line, reading);
            assert_eq!(read("[Event \"LA CC Handicap Tour \"C\"\"]"), (Some("LA CC Handicap Tour \"C\""), true, false));
            assert_eq!(read("[Event \"a \"b\"  ] \r"), (Some("a \"b"), true, false));
            assert_eq!(read("[Event \"a\"] [Site \"b\"]"), (Some("a"), false, false), "two tags");
            // A `]` between, an escaped last quote, no `]` at the end: broken.
            for broken in ["[White \"a\"x] [Black \"b\"]", "[Event \"a \"b\\\"]", "[Event \"a\"b\" 1. e4"] {
                assert_eq!(read(broken).1..=read(broken).2, false..=true, "{broken}");
            }
        }
        assert_eq!(value("[Event \"a\"b\"]\n[Site \"c\"]", Reading::PgnReader).0, Some("a\"b"), "one line only");
        let mut mended = Vec::new();
        mend_tags(
            b"[Event \"a \"b\" \\\"c\\\"\"]\r\n\xef\xbb\xbf[Site \"x\"]\n  \xef\xbb\xbf[Round \"1\"]\n",
            &mut mended,
        );
        assert_eq!(
            String::from_utf8_lossy(&mended),
            "[Event \"a \\\"b\\\" \\\"c\\\"\"]\r\n[Site \"x\"]\n  \u{feff}[Round \"1\"]\n"
        );
    }
    use crate::test_rng::Rng;

    #[test]
    fn a_nag_is_a_dollar_and_digits_from_0_to_255_and_any_other_dollar_token_is_a_bad_nag() {
        for (token, n) in [(&b"$0"[..], 0), (b"$1", 1), (b"$255", 255), (b"$0255", 255), (b"$000", 0)] {
            assert_eq!(nag_number(token), Some(n), "{token:?}");
            assert_eq!(classify_token(token), TokenClass::Ignored, "{token:?}");
        }
        for token in [&b"$256"[..], b"$300", b"$1000", b"$99999999999999999999", b"$", b"$x", b"$+1", b"$1a"] {
            assert_eq!(nag_number(token), None, "{token:?}");
            assert_eq!(classify_token(token), TokenClass::BadNag, "{token:?}");
        }
    }

    #[test]
    fn every_annotation_symbol_starts_with_a_listed_byte_and_reads_as_an_annotation() {
        for symbol in ANNOTATION_SYMBOLS {
            assert!(ANNOTATION_START[usize::from(symbol[0])] && symbol.len() <= 7, "{symbol:?}");
            assert_eq!(classify_token(symbol), TokenClass::Annotation, "{symbol:?}");
        }
        assert_eq!(classify_token(b"x"), TokenClass::Move);
        assert_eq!(classify_token(b"+-+"), TokenClass::Move);
    }

    /// Names for tags that are otherwise well formed (the last two are not
    /// names to the strict reading).
    const NAMES: &[&[u8]] = &[b"Event", b"White", b"a_1", b"9", b"Na me", b"Ren\xe9"];

    /// Pieces tag-like text is made of: the tag syntax, blanks, names and
    /// values, escapes, `%` lines, a byte-order mark and non-ASCII bytes.
    const PIECES: &[&[u8]] = &[
        b"[",
        b"[",
        b"[",
        b"]",
        b"]",
        b"\"",
        b"\"",
        b"\"",
        b"\\",
        b"\\\"",
        b"\\\\",
        b" ",
        b" ",
        b"  ",
        b"\t",
        b"\r",
        b"\x0b",
        b"\x0c",
        b"\n",
        b"\n",
        b"\r\n",
        b"Event",
        b"White",
        b"a_1",
        b"9",
        b"Na me",
        b"Carlsen, Magnus",
        b"*",
        b"1. e4",
        b"%",
        b"% escape",
        b"{",
        b";",
        b"\xEF\xBB\xBF",
        b"\xEF",
        b"\xe9",
        b"\xc3\xa9",
        b"\xff",
        b"\xe2\x80\x93",
        b"[Event \"x\"]",
        b"[Site \"",
        b"\"]",
        b"\" ]",
        b"[White \"Ren\\\"e\"]",
        b"[Bare]",
        b"[ ",
    ];

    /// Random tag-like text for the oracle tests: lines of tags, some well
    /// formed and some broken in every way the pieces allow.
    pub(crate) fn tag_soup(rng: &mut Rng) -> Vec<u8> {
        let mut text = Vec::new();
        for _ in 0..1 + rng.below(6) {
            if rng.below(3) == 0 {
                // A well-formed tag, so that broken ones sit among good ones.
                let name = NAMES[rng.below(NAMES.len())];
                text.extend_from_slice(b"[");
                text.extend_from_slice(name);
                text.extend_from_slice(b" \"");
                text.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                text.extend_from_slice(b"\"]");
            }
            for _ in 0..rng.below(8) {
                text.extend_from_slice(PIECES[rng.below(PIECES.len())]);
            }
            if rng.below(4) != 0 {
                text.push(b'\n');
            }
        }
        text
    }

    /// The framer's and the locator's tag-line reading before the tokenizer,
    /// frozen as the oracle of the one built on it.
    mod old {
        use super::super::{TagLineScan, is_blank};

        pub(super) fn tag_name(line: &[u8]) -> Option<&[u8]> {
            let mut i = 1;
            while i < line.len() && is_blank(line[i]) {
                i += 1;
            }
            let start = i;
            while i < line.len() && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
                i += 1;
            }
            if i == start {
                return None;
            }
            let name = &line[start..i];
            while i < line.len() && is_blank(line[i]) {
                i += 1;
            }
            (line.get(i) == Some(&b'"')).then_some(name)
        }

        pub(super) fn scan_tag_line(line: &[u8]) -> TagLineScan {
            if is_plain_tag_line(line) {
                return TagLineScan { tags_end: line.len(), problem: None };
            }
            let skip_blanks = |mut i: usize| {
                while i < line.len() && is_blank(line[i]) {
                    i += 1;
                }
                i
            };
            let mut problem = None;
            let mut i = skip_blanks(0);
            while i < line.len() && line[i] == b'[' {
                let start = i;
                let name_start = skip_blanks(i + 1);
                let mut j = name_start;
                while j < line.len() && (line[j].is_ascii_alphanumeric() || line[j] == b'_') {
                    j += 1;
                }
                let name = &line[name_start..j];
                let (next, issue) = tag_after_name(line, j, name);
                if problem.is_none() {
                    problem = match (name.is_empty(), issue) {
                        (true, _) => Some("a tag has no name: a tag is written [Name \"value\"]".to_owned()),
                        (false, issue) => issue,
                    };
                }
                i = skip_blanks(next.max(start + 1));
            }
            TagLineScan { tags_end: i, problem }
        }

        fn is_plain_tag_line(line: &[u8]) -> bool {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(inner) = line.strip_prefix(b"[").and_then(|l| l.strip_suffix(b"\"]")) else { return false };
            let Some(quote) = inner.iter().position(|&b| b == b'"') else { return false };
            let name = &inner[..quote.saturating_sub(1)];
            quote >= 2
                && inner[quote - 1] == b' '
                && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
                && !inner[quote + 1..].iter().any(|&b| b == b'"' || b == b'\\')
        }

        fn tag_after_name(line: &[u8], j: usize, name: &[u8]) -> (usize, Option<String>) {
            let name = || String::from_utf8_lossy(name);
            let mut i = j;
            while i < line.len() && is_blank(line[i]) {
                i += 1;
            }
            if line.get(i) != Some(&b'"') {
                let end = memchr::memchr(b']', &line[i..]).map_or(line.len(), |n| i + n + 1);
                return (end, Some(format!("tag `{}` has no quoted value", name())));
            }
            let mut k = i + 1;
            let close = loop {
                match memchr::memchr2(b'"', b'\\', &line[k.min(line.len())..]) {
                    Some(n) if line[k + n] == b'\\' => k += n + 2,
                    Some(n) => break Some(k + n),
                    None => break None,
                }
            };
            let Some(close) = close else {
                return (line.len(), Some(format!("the value of tag `{}` has no closing quote", name())));
            };
            let mut after = close + 1;
            while after < line.len() && is_blank(line[after]) {
                after += 1;
            }
            if line.get(after) == Some(&b']') {
                return (after + 1, None);
            }
            let end = memchr::memchr(b']', &line[after..]).map_or(line.len(), |n| after + n + 1);
            let issue = if memchr::memchr(b'"', &line[after..end]).is_some() {
                format!(
                    "the value of tag `{}` contains a quote that is not escaped (write \\\" inside a value)",
                    name()
                )
            } else {
                format!("tag `{}` is not closed with `]` right after its value", name())
            };
            (end, Some(issue))
        }
    }

    #[test]
    fn tag_lines_read_as_before_the_tokenizer() {
        let mut rng = Rng(0x7a9_11e5_cafe_0001);
        let (mut lines, mut problems, mut names) = (0, 0, 0);
        for _ in 0..100_000 {
            let text = tag_soup(&mut rng);
            // The framer and the locator pass each line without its `\n`.
            for line in text.split(|&b| b == b'\n') {
                let mut loose = false;
                let scan: TagLineScan = scan_tag_line_with(line, |_, tag| loose |= tag.loose).0;
                if loose {
                    // Read on to the last quote, which the old reading did not.
                    continue;
                }
                assert_eq!(scan, old::scan_tag_line(line), "{:?}", String::from_utf8_lossy(line));
                lines += 1;
                problems += usize::from(scan.problem.is_some());
            }
            // The framer passes a window from a `[` that may hold more lines.
            for at in memchr::memchr_iter(b'[', &text) {
                let window = &text[at..];
                assert_eq!(tag_name(window), old::tag_name(window), "{:?}", String::from_utf8_lossy(window));
                names += usize::from(tag_name(window).is_some());
            }
        }
        // The soup holds good and bad lines alike.
        assert!(problems > lines / 10 && problems < lines * 9 / 10, "{problems} problems in {lines} lines");
        assert!(names > 10_000, "only {names} names");
    }

    #[test]
    fn a_plain_tag_line_is_read_as_the_strict_and_the_pgn_reader_readings_read_it() {
        let mut rng = Rng(0x7a9_11e5_cafe_0002);
        let (mut lines, mut plain) = (0, 0);
        for _ in 0..100_000 {
            let text = tag_soup(&mut rng);
            for line_start in std::iter::once(0).chain(memchr::memchr_iter(b'\n', &text).map(|i| i + 1)) {
                let rest = &text[line_start..];
                lines += 1;
                let Some((name, value, end)) = plain_tag_line(rest) else { continue };
                plain += 1;
                let line = &rest[..end];
                assert_eq!(rest[end], b'\n');
                let mut tags = Vec::new();
                let (scan, blanks_alike) = scan_tag_line_with(line, |line, tag| tags.push(pgn_reader_spans(line, tag)));
                let shown = String::from_utf8_lossy(line);
                assert_eq!(scan, TagLineScan { tags_end: line.len(), problem: None }, "{shown:?}");
                assert!(blanks_alike, "{shown:?}");
                assert_eq!(tags, [Some((name, value))], "{shown:?}");
            }
        }
        assert!(plain > 5_000 && plain < lines / 2, "{plain} plain lines in {lines}");
    }

    #[test]
    fn strict_problems_name_the_tag_and_say_what_is_wrong() {
        let problem = |line: &str| scan_tag_line(line.as_bytes()).problem;
        assert_eq!(problem("[Event \"x\"]\r"), None);
        assert_eq!(problem("[Event \"x\"] [Site \"y\"] 1. e4").as_deref(), None);
        assert_eq!(problem("[ \"x\"]").as_deref(), Some("a tag has no name: a tag is written [Name \"value\"]"));
        assert_eq!(problem("[Na me \"x\"]").as_deref(), Some("tag `Na` has no quoted value"));
        assert_eq!(problem("[Event \"x]").as_deref(), Some("the value of tag `Event` has no closing quote"));
        assert_eq!(problem("[White \"Smith \"The King\"\"]").as_deref(), None, "read to the last quote");
        assert_eq!(
            problem("[White \"Smith \"The King\"\"] [Black \"x\"]").as_deref(),
            Some("the value of tag `White` contains a quote that is not escaped (write \\\" inside a value)")
        );
        assert_eq!(
            problem("[Event \"x\" y]").as_deref(),
            Some("tag `Event` is not closed with `]` right after its value")
        );
        assert_eq!(scan_tag_line(b"[Bare] [Event \"x\"] 1. e4").tags_end, 19);
    }
}
