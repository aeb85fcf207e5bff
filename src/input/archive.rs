//! The PGN members of a zip archive, each read as an input of its own, one
//! after the other, decompressed on a thread of their own.
//!
//! An archive given as a file is read through its central directory, in
//! its order (one whose members overlap is refused); one from a pipe
//! (stdin) through its local headers, in the order they come, which is the
//! same for any archive that a zipper wrote to a file. One thread reads the
//! whole archive: it hands over each member as a [`ReadAhead`] and fills
//! it, a few chunks ahead, until the reader has read it to its end; only
//! then does it go on to the next member, so memory stays at one member's
//! chunks.

use std::{
    borrow::Cow,
    io::{self, BufReader, Read, Seek},
    sync::mpsc::{self, Receiver, SyncSender},
    thread::{self, JoinHandle},
};

use super::ahead::{self, ReadAhead};

/// Whether `head`, the first bytes of an input, start a zip archive: a
/// member's local header, or the end record of an empty archive.
pub fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Whether a member of an archive is read: a file whose name ends in
/// `.pgn`, in any case. The metadata that macOS adds to the archives it
/// makes (`__MACOSX/` and `._` files, binary, with the names of the files
/// they describe) is not.
pub fn is_pgn_member(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let extension = base.rsplit_once('.').map(|(_, extension)| extension);
    !name.starts_with("__MACOSX/")
        && !base.starts_with("._")
        && extension.is_some_and(|e| e.eq_ignore_ascii_case("pgn"))
}

/// A member's name as it is shown: the archive's bytes, so a control
/// character (an escape sequence a terminal would act on) is written as
/// `\u{1b}`, as findings write those of the games.
fn shown(name: &str) -> String {
    crate::text::escape_controls(name)
}

/// What the archive's thread hands over: a member's name and its bytes,
/// or an error, with the member's name when it is a member's.
type Handed = (Option<String>, io::Result<ReadAhead>);

/// A member as [`Members::next_member`] gives it.
pub type Member = (Option<String>, io::Result<Box<dyn Read + Send>>);

/// The PGN members of an archive, in order.
#[derive(Debug)]
pub struct Members {
    members: Receiver<Handed>,
    thread: Option<JoinHandle<()>>,
}

impl Members {
    /// Reads the archive in `file`, through its central directory.
    pub fn from_file<R: Read + Seek + Send + 'static>(file: R) -> io::Result<Members> {
        Members::spawn(move |hand| match zip::ZipArchive::new(BufReader::with_capacity(1 << 16, file)) {
            Ok(mut archive) => match archive.has_overlapping_files() {
                Ok(false) => read_archive(archive, hand),
                Ok(true) => {
                    hand.send((None, Err(overlapping()))).ok();
                }
                Err(err) => {
                    hand.send((None, Err(unreadable(err)))).ok();
                }
            },
            Err(err) => {
                hand.send((None, Err(unreadable(err)))).ok();
            }
        })
    }

    /// Reads the archive in `stream` through its local headers, as it comes.
    pub fn from_stream(stream: Box<dyn Read + Send>) -> io::Result<Members> {
        Members::spawn(move |hand| read_stream(BufReader::with_capacity(1 << 16, stream), hand))
    }

    fn spawn(read: impl FnOnce(&SyncSender<Handed>) + Send + 'static) -> io::Result<Members> {
        // No member waits: the thread goes on to the next one only when
        // the reader asks for it, so nothing is read after the run stops.
        let (hand, members) = mpsc::sync_channel(0);
        let thread = thread::Builder::new().name("unzip".into()).spawn(move || read(&hand))?;
        Ok(Members { members, thread: Some(thread) })
    }

    /// The next member: its name in the archive (none for an error of the
    /// archive itself) and its bytes, decompressed. After the last one, a
    /// panic of the thread is raised here.
    pub fn next_member(&mut self) -> Option<Member> {
        match self.members.recv() {
            Ok((name, member)) => Some((name, member.map(|reader| Box::new(reader) as Box<dyn Read + Send>))),
            Err(mpsc::RecvError) => {
                if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                None
            }
        }
    }
}

/// An error of the zip crate as an I/O error, saying what was being read.
fn unreadable(err: zip::result::ZipError) -> io::Error {
    match err {
        zip::result::ZipError::Io(err) => err,
        err => io::Error::new(io::ErrorKind::InvalidData, format!("not a readable zip archive: {err}")),
    }
}

/// An archive whose members share compressed bytes: no zipper writes one,
/// and a few KB of them (a zip bomb's) decompress, member after member, to
/// gigabytes for hours. Refused before any member is read. (Read from a
/// pipe, members come one after the other and cannot overlap.)
fn overlapping() -> io::Error {
    let why = "not a readable zip archive: its members overlap (they share compressed bytes, as a zip bomb's do)";
    io::Error::new(io::ErrorKind::InvalidData, why)
}

fn no_pgn_member(members: usize) -> io::Error {
    let found = match members {
        0 => "an empty zip archive".to_owned(),
        1 => "a zip archive of 1 member, not a .pgn file".to_owned(),
        n => format!("a zip archive of {n} members, none of them a .pgn file"),
    };
    io::Error::new(io::ErrorKind::InvalidData, found)
}

/// Hands over one member and fills it until it ends or its reader is
/// dropped. False when nobody reads any more.
fn hand_over(hand: &SyncSender<Handed>, name: &str, member: &mut dyn Read) -> bool {
    let (filler, reader) = ahead::pair();
    if hand.send((Some(shown(name)), Ok(reader))).is_err() {
        return false;
    }
    filler.fill(member);
    true
}

fn read_archive<R: Read + Seek>(mut archive: zip::ZipArchive<R>, hand: &SyncSender<Handed>) {
    let mut found = false;
    for index in 0..archive.len() {
        // Names first: a member that is not read is never opened, so an
        // unsupported method or a password elsewhere in the archive does
        // not matter.
        let name = match archive.name_for_index(index) {
            Some(Ok(name)) if is_pgn_member(&name) => name.into_owned(),
            _ => continue,
        };
        found = true;
        let read = match archive.by_index(index) {
            Ok(mut member) if !member.is_dir() => hand_over(hand, &name, &mut member),
            Ok(_) => true,
            Err(err) => hand.send((Some(shown(&name)), Err(unreadable(err)))).is_ok(),
        };
        if !read {
            return;
        }
    }
    if !found {
        hand.send((None, Err(no_pgn_member(archive.len())))).ok();
    }
}

fn read_stream(mut stream: impl Read, hand: &SyncSender<Handed>) {
    let (mut found, mut members) = (false, 0);
    loop {
        let mut member = match zip::read::read_zipfile_from_stream(&mut stream) {
            Ok(Some(member)) => member,
            Ok(None) => break,
            Err(zip::result::ZipError::UnsupportedArchive(why)) if why.contains("length is not available") => {
                let why = "a zip archive written as a stream (its members' sizes after their bytes) cannot be \
                           read from a pipe: give it as a file";
                hand.send((None, Err(io::Error::new(io::ErrorKind::InvalidData, why)))).ok();
                return;
            }
            Err(err) => {
                hand.send((None, Err(unreadable(err)))).ok();
                return;
            }
        };
        members += 1;
        let name = member.name().map(Cow::into_owned).unwrap_or_default();
        if member.is_dir() || !is_pgn_member(&name) {
            // Dropping a member reads past its bytes.
            continue;
        }
        found = true;
        if !hand_over(hand, &name, &mut member) {
            return;
        }
    }
    if !found {
        hand.send((None, Err(no_pgn_member(members)))).ok();
    }
}

#[cfg(test)]
mod tests {
    use super::{is_pgn_member, shown};

    #[test]
    fn pgn_members_are_found_by_their_extension_in_any_case_and_macos_metadata_is_left_out() {
        for name in ["twic1500.pgn", "games/a.PGN", "b.Pgn", "dir\\c.pgn"] {
            assert!(is_pgn_member(name), "{name}");
        }
        for name in ["readme.txt", "pgn", "a.pgn.gz", "games/", "__MACOSX/._a.pgn", "sub/._b.pgn", "a.pgnx"] {
            assert!(!is_pgn_member(name), "{name}");
        }
    }

    #[test]
    fn control_characters_of_a_member_name_are_shown_escaped() {
        assert_eq!(shown("a\u{1b}[2Jb.pgn"), "a\\u{1b}[2Jb.pgn");
        assert_eq!(shown("R\u{e9}ti.pgn"), "R\u{e9}ti.pgn");
        assert_eq!(shown("a\u{202e}nip.pgn"), "a\\u{202e}nip.pgn");
    }
}
