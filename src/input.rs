//! Where game bytes come from: a file or stdin, decompressed by magic bytes,
//! decoded from UTF-16, refused when it is not text; a zip archive's PGN
//! members, each as an input of its own.
//!
//! [`open`] gives the streams of one input, each named as findings name it;
//! [`decode`] and [`decode_ahead`] the text of one stream (a decompressor
//! on top of it, in place or on a thread of its own, or a bzip2 stream's
//! blocks on threads of their own, then the [`encoding`] layer). Nothing here
//! knows PGN.

mod ahead;
mod archive;
pub mod encoding;

use std::{
    fmt, fs,
    io::{self, BufReader, Read, Seek},
    path::{Path, PathBuf},
    sync::Arc,
};

pub use archive::is_pgn_member;

/// One input named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-` or no path at all).
    Stdin,
    /// A file path.
    Path(PathBuf),
}

impl Source {
    /// `-` means stdin, anything else a path.
    pub fn from_arg(arg: &Path) -> Source {
        if arg == Path::new("-") { Source::Stdin } else { Source::Path(arg.to_path_buf()) }
    }

    /// Stdin that is a terminal: what is read is typed by the user.
    pub fn is_typed(&self) -> bool {
        matches!(self, Source::Stdin) && std::io::IsTerminal::is_terminal(&std::io::stdin())
    }

    /// The size in bytes of the raw (possibly compressed) input, when known.
    pub fn size(&self) -> Option<u64> {
        match self {
            Source::Stdin => None,
            Source::Path(path) => fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len()),
        }
    }

    /// Opens the raw bytes. A directory is an error, not an empty input.
    pub fn open(&self) -> io::Result<Box<dyn Read + Send>> {
        match self {
            Source::Stdin => Ok(Box::new(io::stdin())),
            Source::Path(path) => {
                let file = fs::File::open(path)?;
                if file.metadata()?.is_dir() {
                    return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
                }
                Ok(Box::new(file))
            }
        }
    }
}

/// The files read for a command's path arguments: a directory stands for
/// the game files under it, found recursively as `rg` and `fd` walk
/// (hidden entries skipped, links to directories not followed), in the
/// byte order of names at each level; other paths stay as given. Game
/// files are `.pgn`, the same compressed (`.pgn.gz`, `.pgn.zst`,
/// `.pgn.bz2`, `.pgn.xz`) and `.zip` archives, in any case. A directory
/// with none stays itself, so that reading it says so.
pub fn expand_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    expand(paths, GAME_FILES)
}

/// As [`expand_paths`], for `fen check`: a directory stands for the
/// position files under it, `.fen` and `.epd` and the same compressed
/// (`.fen.gz`, `.epd.zst`, ...), in any case.
pub fn expand_position_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    expand(paths, POSITION_FILES)
}

/// The endings of game files, as a directory is searched for them.
const GAME_FILES: &[&str] = &[".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2", ".pgn.xz", ".zip"];

/// The endings of position files.
const POSITION_FILES: &[&str] =
    &[".fen", ".fen.gz", ".fen.zst", ".fen.bz2", ".fen.xz", ".epd", ".epd.gz", ".epd.zst", ".epd.bz2", ".epd.xz"];

fn expand(paths: &[PathBuf], endings: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        let before = files.len();
        if path.as_os_str() != "-" && fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            walk(path, endings, &mut files);
        }
        if files.len() == before {
            files.push(path.clone());
        }
    }
    files
}

fn walk(dir: &Path, endings: &[&str], files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<fs::DirEntry> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let Ok(kind) = entry.file_type() else { continue };
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, endings, files);
        } else if ends_with_any(&name, endings) && fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            files.push(path);
        }
    }
}

/// The error for a directory read as an input: [`expand_paths`] found no
/// game file in it.
fn no_game_file() -> io::Error {
    io::Error::new(
        io::ErrorKind::IsADirectory,
        "a directory with no game file under it (.pgn, .pgn.gz, .pgn.zst, .pgn.bz2, .pgn.xz, .zip)",
    )
}

/// Whether a file name ends with one of `endings`, in any case.
fn ends_with_any(name: &std::ffi::OsStr, endings: &[&str]) -> bool {
    let name = name.to_string_lossy().to_ascii_lowercase();
    endings.iter().any(|ending| name.ends_with(ending))
}

impl Source {
    /// The input's name as findings and data outputs (JSON, CSV, CI
    /// formats) carry it: the path as it is, control characters and all;
    /// text output shows it escaped, as [`fmt::Display`] does.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::Path(path) => path.to_string_lossy().into_owned(),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdin => f.write_str("<stdin>"),
            // A file name can hold an escape sequence or a bidi control (a
            // folder of downloads, a name made to trick): shown escaped, as
            // game text is; the data name ([`Source::name`]) keeps them.
            Source::Path(path) => write!(f, "{}", crate::text::Shown(&path.to_string_lossy())),
        }
    }
}

/// The compression formats: of an input, recognised by its first bytes
/// ([`Compression::sniff`]), and of the files that split writes
/// ([`crate::split_files::SplitFiles`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// Zstandard (`28 b5 2f fd`, or a skippable frame first, `5? 2a 4d
    /// 18`, as `pzstd` writes).
    Zstd,
    /// bzip2 (`BZh`).
    Bzip2,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
}

impl Compression {
    /// Detects the format from the first bytes of a stream. Names are not
    /// trusted: a `.pgn` that is really gzip is still decompressed.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || is_skippable_frame(head) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else if head.starts_with(b"\xfd7zXZ\x00") {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    /// What the name of a file in this format ends with, after `.pgn`.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
            Compression::Bzip2 => ".bz2",
            Compression::Xz => ".xz",
        }
    }
}

/// Whether `head` starts with a Zstandard skippable frame (RFC 8878,
/// 3.1.2: a magic of `0x184D2A50` to `0x184D2A5F`, little-endian), which
/// `pzstd` puts before each frame to say its size; the decoder steps over
/// them.
fn is_skippable_frame(head: &[u8]) -> bool {
    matches!(head, [low, 0x2a, 0x4d, 0x18, ..] if low & 0xf0 == 0x50)
}

/// The longest magic [`Compression::sniff`] and [`open`] look for.
const MAGIC: usize = 6;

/// Reads the first bytes of `raw` into `head`, in a loop as pipes may hand
/// out one byte at a time; fewer when it ends first.
fn read_head(raw: &mut dyn Read, head: &mut [u8; MAGIC]) -> io::Result<usize> {
    let mut got = 0;
    while got < head.len() {
        match raw.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(got)
}

/// Puts the right decompressor on top of `raw`, chosen by its magic bytes:
/// bzip2's blocks decoded on `bzip2_threads` threads of their own, or in
/// place when it is 0.
fn decompress(mut raw: Box<dyn Read + Send>, bzip2_threads: usize) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let mut head = [0u8; MAGIC];
    let got = read_head(&mut raw, &mut head)?;
    let compression = Compression::sniff(&head[..got]);
    let chained = io::Cursor::new(head[..got].to_vec()).chain(raw);
    // 64 KiB keeps the number of read(2) calls low for plain files.
    let buffered = BufReader::with_capacity(1 << 16, chained);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
        Compression::Bzip2 if bzip2_threads > 0 => bzip2_blocks::pooled(Box::new(buffered), bzip2_threads)?,
        Compression::Bzip2 => bzip2_blocks::in_place(Box::new(buffered)),
        Compression::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(buffered)),
    };
    Ok((compression, reader))
}

/// Puts the right decompressor on top of `raw`, chosen by its magic bytes,
/// then the [`encoding`] layer: UTF-16 with a byte order mark comes out as
/// UTF-8, and a stream that is not text is refused.
///
/// Multi-member gzip and multi-frame zstd files (as `pigz` and `pzstd`
/// write them), and xz files of several streams (as `cat` joins them), are
/// read to the end. A truncated
/// stream fails with an I/O error from the decoder when the reader reaches
/// the cut, after every byte before it.
///
/// # Errors
///
/// `raw` cannot be read, or is not text ([`io::ErrorKind::InvalidData`],
/// `not a text file: WHY`): an image, an executable, an archive, or more
/// control bytes than text has ([`encoding::not_text`]).
pub fn decode(raw: Box<dyn Read + Send>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let (compression, reader) = decompress(raw, 0)?;
    Ok((compression, encoding::text(reader)?))
}

/// As [`decode`], but a compressed stream is decompressed on a thread of
/// its own, a few chunks of at most 128 KiB ahead of the reader (512 KiB in
/// all, whatever the stream holds), so the reader's work and the
/// decompression run at once. A bzip2 stream's blocks are decoded on
/// `threads` threads and scanned for on one more, at most `threads + 2`
/// blocks ahead: bzip2 is slow enough that one thread holds
/// up the readers, and a block comes whole, so a thread that handed it in
/// chunks would wait for the reader before decoding the next. A plain
/// stream is read in place: reading it costs little next to its copy from
/// one thread to the other.
///
/// With one thread (`-j1`) nothing runs beside the reader: the stream is
/// decoded in place, as [`decode`] does, so that `-j1` keeps to one core
/// (runs started one per core, by `parallel` or `xargs -P`, would
/// otherwise each keep two busy).
///
/// The reader gives the same bytes as [`decode`]'s, then the same error,
/// if any, whatever `threads`. Dropping it ends the threads (as soon as
/// they have done the piece they are doing); a panic of the decompressor
/// reaches the reader.
///
/// # Errors
///
/// As [`decode`], and when a thread cannot be started.
pub fn decode_ahead(raw: Box<dyn Read + Send>, threads: usize) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    if threads <= 1 {
        return decode(raw);
    }
    let (compression, reader) = decompress(raw, threads)?;
    if matches!(compression, Compression::None | Compression::Bzip2) {
        return Ok((compression, encoding::text(reader)?));
    }
    Ok((compression, encoding::text(Box::new(ahead::spawn(reader)?))?))
}

/// Told how many raw bytes of an input were read, as they are read (for a
/// progress bar over the inputs' sizes).
pub type Progress = Arc<dyn Fn(u64) + Send + Sync>;

/// A raw input whose reads are told to a [`Progress`].
struct Counted<R> {
    inner: R,
    progress: Option<Progress>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(progress) = &self.progress {
            progress(n as u64);
        }
        Ok(n)
    }
}

impl<R: Seek> Seek for Counted<R> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// One stream of an input: its name and its text, or why it cannot be read.
pub type Stream = (String, io::Result<Box<dyn Read + Send>>);

/// The streams of one input, in order ([`open`]).
pub struct Streams {
    name: String,
    inner: Inner,
}

impl fmt::Debug for Streams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Streams").field("name", &self.name).finish_non_exhaustive()
    }
}

enum Inner {
    /// A file or stdin: its one stream, or the error that opening it gave,
    /// until it is taken.
    One(Option<io::Result<Box<dyn Read + Send>>>),
    /// A zip archive.
    Archive(archive::Members),
}

impl Iterator for Streams {
    type Item = Stream;

    /// The next stream: for a zip archive each PGN member in turn, named
    /// `ARCHIVE:MEMBER` (an error of the archive itself, or an archive
    /// without a PGN member, is one stream named as the archive); for any
    /// other input the input itself.
    fn next(&mut self) -> Option<Stream> {
        match &mut self.inner {
            Inner::One(stream) => stream.take().map(|stream| (self.name.clone(), stream)),
            Inner::Archive(members) => {
                let (member, reader) = members.next_member()?;
                let name = match member {
                    Some(member) => format!("{}:{member}", self.name),
                    None => self.name.clone(),
                };
                // A member is read as an input of its own would be: a
                // compressed one is decompressed, one that is not text refused.
                Some((name, reader.and_then(|reader| Ok(decode(reader)?.1))))
            }
        }
    }
}

/// Opens an input as the streams of game text it holds, telling `progress`
/// of the raw bytes read: a zip archive (found by its magic bytes, whatever
/// its name) gives one stream per PGN member ([`is_pgn_member`]), any other
/// input one stream, decoded as [`decode_ahead`] decodes it on `threads`.
///
/// A zip archive in a file is read through its central directory; one
/// from a pipe (stdin, a FIFO) as it comes, which cannot be done for an
/// archive that a zipper wrote to a pipe itself (its members' sizes come
/// after their bytes): that gives an error.
pub fn open(source: &Source, progress: Option<Progress>, threads: usize) -> Streams {
    let name = source.name();
    let inner = open_inner(source, progress, threads).unwrap_or_else(|err| Inner::One(Some(Err(err))));
    Streams { name, inner }
}

fn open_inner(source: &Source, progress: Option<Progress>, threads: usize) -> io::Result<Inner> {
    let mut head = [0u8; MAGIC];
    if let Source::Path(path) = source {
        let mut file = fs::File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            return Err(no_game_file());
        }
        if metadata.is_file() {
            let got = read_head(&mut file, &mut head)?;
            file.seek(io::SeekFrom::Start(0))?;
            let file = Counted { inner: file, progress };
            if archive::is_zip(&head[..got]) {
                return Ok(Inner::Archive(archive::Members::from_file(file)?));
            }
            return Ok(Inner::One(Some(Ok(decode_ahead(Box::new(file), threads)?.1))));
        }
    }
    // A pipe: what is read to sniff it is put back in front.
    let mut raw = Counted { inner: source.open()?, progress };
    let got = read_head(&mut raw, &mut head)?;
    let raw: Box<dyn Read + Send> = Box::new(io::Cursor::new(head[..got].to_vec()).chain(raw));
    if archive::is_zip(&head[..got]) {
        return Ok(Inner::Archive(archive::Members::from_stream(raw)?));
    }
    Ok(Inner::One(Some(Ok(decode_ahead(raw, threads)?.1))))
}
