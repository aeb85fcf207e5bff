//! CSV cells that a spreadsheet opens as text, not as a formula: the one
//! rule that every CSV pgnkit writes applies to each of its cells.
//!
//! A cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage
//! return, which some spreadsheets skip before one) is read as a formula by
//! Excel, LibreOffice and Google Sheets; a tag value or a player's name
//! can be `=HYPERLINK(...)`. As OWASP advises against CSV injection, such
//! a cell is written after a `'`, which a spreadsheet shows as text and
//! does not show. A number (`-35`, `+1.5`, `-2e3`) is no formula and is
//! written as it is, so that numeric columns load as numbers, and so is a
//! lone `-` (the PGN `Round "-"`). `--raw-csv` turns the rule off for
//! data tools, which read the cells as they are.

use std::{
    borrow::Cow,
    io::Write,
    sync::atomic::{AtomicBool, Ordering},
};

/// Set by `--raw-csv`, once, before anything is written.
static RAW: AtomicBool = AtomicBool::new(false);

/// Writes cells as they are from now on (`raw`), or guarded (the default).
pub fn write_raw(raw: bool) {
    RAW.store(raw, Ordering::Relaxed);
}

/// What goes before `cell` when it is written: `'` when a spreadsheet
/// would read it as a formula, else nothing.
pub fn prefix(cell: &[u8]) -> &'static [u8] {
    let formula = match cell {
        [b'=' | b'@' | b'\t' | b'\r', ..] => true,
        [b'+' | b'-'] => false,
        [b'+' | b'-', rest @ ..] => !is_number(rest),
        _ => false,
    };
    if formula && !RAW.load(Ordering::Relaxed) { b"'" } else { b"" }
}

/// `cell` as it is written ([`prefix`] before it).
pub fn guarded(cell: &[u8]) -> Cow<'_, [u8]> {
    match prefix(cell) {
        [] => Cow::Borrowed(cell),
        before => Cow::Owned([before, cell].concat()),
    }
}

/// Digits, with a decimal part and an exponent or not (`35`, `1.5`,
/// `2e3`): what follows a sign in a number.
fn is_number(text: &[u8]) -> bool {
    let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(text);
    let mut at = whole;
    let mut fraction = 0;
    if text.get(at) == Some(&b'.') {
        fraction = digits(&text[at + 1..]);
        at += 1 + fraction;
    }
    if whole + fraction == 0 {
        return false;
    }
    if let Some(b'e' | b'E') = text.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = text.get(at) {
            at += 1;
        }
        let exponent = digits(&text[at..]);
        if exponent == 0 {
            return false;
        }
        at += exponent;
    }
    at == text.len()
}

/// A CSV writer whose every cell is [`guarded`]: the writer of each CSV
/// that carries text from the input.
#[derive(Debug)]
pub struct Writer<W: Write> {
    inner: csv::Writer<W>,
}

impl<W: Write> Writer<W> {
    /// A writer to `out`.
    pub fn from_writer(out: W) -> Writer<W> {
        Writer { inner: csv::Writer::from_writer(out) }
    }

    /// Writes one row.
    ///
    /// # Errors
    ///
    /// Writing to the output fails.
    pub fn write_record<I, T>(&mut self, record: I) -> csv::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        for cell in record {
            self.inner.write_field(guarded(cell.as_ref()))?;
        }
        self.inner.write_record(None::<&[u8]>)
    }

    /// Writes what is buffered to the output.
    ///
    /// # Errors
    ///
    /// Writing to the output fails.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::{Writer, is_number, prefix};

    #[test]
    fn cells_a_spreadsheet_reads_as_formulas_get_a_quote_before_them_and_numbers_do_not() {
        for cell in ["=1+2", "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3", "\t=1", "\r=1", "=", "-x", "+-1", "-1-1"] {
            assert_eq!(prefix(cell.as_bytes()), b"'", "{cell:?}");
        }
        for cell in ["-35", "+1.5", "-0.25", "-2e3", "-1E-5", "-.5", "-", "+", "", "Carlsen, Magnus", "1-0", " =1"] {
            assert_eq!(prefix(cell.as_bytes()), b"", "{cell:?}");
        }
        assert!(!is_number(b".") && !is_number(b"1e") && !is_number(b"1.2.3") && is_number(b"7."));
    }

    #[test]
    fn the_writer_guards_every_cell_and_quotes_as_csv_does() {
        let mut out = Vec::new();
        let mut w = Writer::from_writer(&mut out);
        w.write_record(["=HYPERLINK(\"x\")", "-12", "a,b"]).unwrap();
        w.flush().unwrap();
        drop(w);
        assert_eq!(String::from_utf8(out).unwrap(), "\"'=HYPERLINK(\"\"x\"\")\",-12,\"a,b\"\n");
    }
}
