//! The output thread's half of a CI format: items' bytes, in input order,
//! put into their document.
//!
//! JUnit wants the counts of a file's test cases on its `<testsuite>` tag,
//! before the test cases, but they are known only once the file's last
//! item is in. So a file's test cases wait in a [`Spool`]: in memory up to
//! a few MiB, then in an unnamed temporary file, so that a file of ten
//! million games costs disk, not memory. Every other layout writes each
//! item as it comes.

use std::io::{self, Write};

use super::{
    item::{Layout, Verdict},
    junit,
};
use crate::output::spool::Spool;

/// Places items in their document, in input order.
#[derive(Debug)]
pub struct Document {
    layout: Layout,
    /// An element is written (so the next one needs a comma before it).
    wrote_element: bool,
    /// The testsuite being gathered.
    suite: Option<Suite>,
}

/// One input's test cases so far.
#[derive(Debug)]
struct Suite {
    name: String,
    tests: u64,
    failures: u64,
    skipped: u64,
    cases: Spool,
}

impl Document {
    /// A document of `layout`; its format's header is written by the caller.
    pub fn new(layout: Layout) -> Document {
        Document { layout, wrote_element: false, suite: None }
    }

    /// One item's bytes, read from `file`.
    ///
    /// # Errors
    ///
    /// Writing `out`, or the temporary file of a JUnit suite.
    pub fn item(&mut self, file: &str, verdict: Verdict, bytes: &[u8], out: &mut impl Write) -> io::Result<()> {
        match self.layout {
            Layout::Stream => out.write_all(bytes),
            Layout::JsonArray => {
                if bytes.is_empty() {
                    return Ok(());
                }
                if self.wrote_element {
                    out.write_all(b",\n")?;
                }
                self.wrote_element = true;
                out.write_all(bytes)
            }
            Layout::Suites => {
                if self.suite.as_ref().is_some_and(|suite| suite.name != file) {
                    self.close_suite(out)?;
                }
                let suite = self.suite.get_or_insert_with(|| Suite {
                    name: file.to_owned(),
                    tests: 0,
                    failures: 0,
                    skipped: 0,
                    cases: Spool::default(),
                });
                suite.tests += 1;
                suite.failures += u64::from(verdict == Verdict::Failed);
                suite.skipped += u64::from(verdict == Verdict::Skipped);
                suite.cases.write_all(bytes)
            }
        }
    }

    /// After the last item, before the format's footer.
    ///
    /// # Errors
    ///
    /// As [`Document::item`].
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.close_suite(out)
    }

    fn close_suite(&mut self, out: &mut impl Write) -> io::Result<()> {
        let Some(mut suite) = self.suite.take() else { return Ok(()) };
        let mut open = Vec::new();
        junit::open_suite(&suite.name, suite.tests, suite.failures, suite.skipped, &mut open);
        out.write_all(&open)?;
        suite.cases.pour(out)?;
        out.write_all(junit::CLOSE_SUITE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_elements_get_a_comma_between_them_and_items_without_any_nothing() {
        let mut document = Document::new(Layout::JsonArray);
        let mut out = Vec::new();
        for bytes in [&b""[..], b"{1}", b"", b"{2},\n{3}"] {
            document.item("a", Verdict::Passed, bytes, &mut out).unwrap();
        }
        document.finish(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{1},\n{2},\n{3}");
    }

    #[test]
    fn a_suite_per_file_with_its_counts_before_its_cases() {
        let mut document = Document::new(Layout::Suites);
        let mut out = Vec::new();
        document.item("a", Verdict::Passed, b"<1/>\n", &mut out).unwrap();
        document.item("a", Verdict::Failed, b"<2/>\n", &mut out).unwrap();
        document.item("b", Verdict::Skipped, b"<3/>\n", &mut out).unwrap();
        document.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<testsuite name=\"a\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">\n<1/>\n<2/>\n</testsuite>\n\
             <testsuite name=\"b\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n<3/>\n</testsuite>\n"
        );
    }
}
