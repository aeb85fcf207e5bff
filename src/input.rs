//! Where game bytes come from: a file or stdin, decompressed by magic bytes.
//!
//! The caller may wrap the raw reader (for a progress bar, say) before
//! [`decode`] puts a decompressor on top of it, or [`decode_ahead`] one
//! that runs on a thread of its own. Nothing here knows PGN.

mod ahead;

use std::{
    fmt, fs,
    io::{self, BufReader, Read},
    path::{Path, PathBuf},
};

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

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdin => f.write_str("<stdin>"),
            Source::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Compression formats recognised by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// Zstandard (`28 b5 2f fd`).
    Zstd,
    /// bzip2 (`BZh`).
    Bzip2,
}

impl Compression {
    /// Detects the format from the first bytes of a stream. Names are not
    /// trusted: a `.pgn` that is really gzip is still decompressed.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

/// Puts the right decompressor on top of `raw`, chosen by its magic bytes.
///
/// Multi-member gzip and multi-frame zstd files (as `pigz` and `pzstd` write
/// them) are read to the end. A truncated stream fails with an I/O error from
/// the decoder when the reader reaches the cut, after every byte before it.
pub fn decode(mut raw: Box<dyn Read + Send>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    // Pipes may hand out one byte at a time, so read the magic in a loop.
    let mut head = [0u8; 4];
    let mut got = 0;
    while got < head.len() {
        match raw.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    let compression = Compression::sniff(&head[..got]);
    let chained = io::Cursor::new(head[..got].to_vec()).chain(raw);
    // 64 KiB keeps the number of read(2) calls low for plain files.
    let buffered = BufReader::with_capacity(1 << 16, chained);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
    };
    Ok((compression, reader))
}

/// As [`decode`], but a compressed stream is decompressed on a thread of
/// its own, a few chunks of at most 128 KiB ahead of the reader (512 KiB in
/// all, whatever the stream holds), so the reader's work and the
/// decompression run at once. A plain stream is read in place: reading it
/// costs little next to its copy from one thread to the other.
///
/// The reader gives the same bytes as [`decode`]'s, then the same error,
/// if any. Dropping it ends the thread (as soon as it has filled the chunk
/// it is filling); a panic of the decompressor reaches the reader.
///
/// # Errors
///
/// As [`decode`], and when the thread cannot be started.
pub fn decode_ahead(raw: Box<dyn Read + Send>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let (compression, reader) = decode(raw)?;
    if compression == Compression::None {
        return Ok((compression, reader));
    }
    Ok((compression, Box::new(ahead::ReadAhead::spawn(reader)?)))
}
