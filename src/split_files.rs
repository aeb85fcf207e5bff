//! Output files for `pgnkit split`: the names of its files ([`FileName`]:
//! parts, shards, and safe and distinct names made from the values of a
//! `--by` key, [`GroupKey`]), and a bounded set of open (optionally
//! compressed) writers.
//!
//! Naming rules for `--by`, relied on by the command's help and docs/commands/split.md:
//! * a key value that is missing, empty or only `?` (PGN's "unknown") goes
//!   to the file [`UNKNOWN`], and no other value ever gets that name;
//! * other values keep letters, combining marks and digits of any script
//!   (UTF-8 names: `王皓`, `Müller_Jürgen`), and `.`, `-` and `_`; every run
//!   of other characters (separators, punctuation, spaces, control and
//!   format characters) becomes one `_`; `.`, `-` and `_` are trimmed from
//!   both ends (no hidden files, no names that look like options); names are
//!   cut to [`MAX_STEM`] bytes at a character boundary; a value with nothing
//!   left is [`UNNAMED`];
//! * with ASCII names ([`KeyFiles::ascii_names`]) Latin letters lose their
//!   diacritics first, by a table of Latin-1 and Latin Extended-A (`é` is
//!   `e`, `ß` is `ss`, `Ł` is `L`, `Æ` is `AE`) and Romanian `ș` `ț`, with
//!   combining accents dropped; then only ASCII letters and digits are
//!   kept, so other scripts are dropped (`王皓` is [`UNNAMED`]);
//! * names are compared without case and accents (for case-insensitive
//!   file systems, and macOS's, which also takes `é` and `e` + U+0301 for
//!   one name): a value whose name is already taken by another value, or is
//!   a device name of Windows (`CON`, `NUL`, `COM¹`, ...), gets the first
//!   free suffix `-2`, `-3`, ... in the order the values are first seen, so
//!   two values never share a file; for a device name before a dot the
//!   suffix goes before the dot (`nul.x` is `nul-2.x`), as after it the name
//!   is still the device's.
//!
//! Writing rules, relied on by `docs/output-formats.md`: every file is
//! written under a temporary name ([`Staged`]) and all are renamed into
//! place at the end of a run that wrote them all, as one set
//! ([`commit_all`]): a signal waits for the last rename, and a run killed
//! among them leaves the journal [`JOURNAL_FILE`], by which the next run
//! into the directory finishes them. A run that fails or is stopped before
//! removes its files and leaves the directory as it was. A run holds the
//! lock [`LOCK_FILE`] in the directory, so that two runs into one
//! directory do not mix their files.

use std::{
    collections::{HashMap, HashSet},
    fmt,
    fs::{self, File, OpenOptions},
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::LazyLock,
};

use regex::Regex;

use crate::{
    input::Compression,
    keys::GroupKey,
    output::file::{DirLock, FilesRead, Staged, commit_all, finish_journal},
};

/// The file of games whose key has no value.
pub const UNKNOWN: &str = "unknown";
/// The base name of a value with no character a file name keeps.
pub const UNNAMED: &str = "unnamed";
/// The longest file name stem (suffix included, extensions not).
pub const MAX_STEM: usize = 100;
/// The lock file a run holds in its directory; no output is ever called so
/// (outputs end in `.pgn`, `.pgn.gz` or `.pgn.zst`).
pub const LOCK_FILE: &str = ".pgnkit-split.lock";
/// The journal of the renames that end a run ([`commit_all`]): there only
/// while they are done, or after a run killed (SIGKILL) in the middle of
/// them, whose renames the next run into the folder finishes.
pub const JOURNAL_FILE: &str = ".pgnkit-split.journal";

/// The file stem a value of `key` asks for, before the collision rule.
fn stem(key: &GroupKey, value: &str, ascii: bool) -> String {
    // `*` keeps no character, and unfinished games are worth a name.
    if *key == GroupKey::Result && value == "*" {
        return "unfinished".to_owned();
    }
    let stem = if ascii { sanitize_ascii(value) } else { sanitize(value) };
    if stem.is_empty() { UNNAMED.to_owned() } else { stem }
}

/// The runs of characters a name keeps: letters, marks (accents written
/// apart, vowel signs) and digits of any script, and `.`, `-`, `_`.
static KEPT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{M}\p{N}._-]+").expect("the pattern is valid"));

/// A key value as a file name stem: letters, marks and digits of any
/// script, `.`, `-` and `_` kept, every run of other characters one `_`, no
/// `.`, `-` or `_` at either end, at most [`MAX_STEM`] bytes. May be empty.
pub fn sanitize(value: &str) -> String {
    joined(KEPT.find_iter(value).map(|run| run.as_str()))
}

/// As [`sanitize`], in ASCII: Latin letters without their diacritics
/// ([`transliterate`]), then ASCII letters, digits, `.`, `-` and `_` kept.
pub fn sanitize_ascii(value: &str) -> String {
    let latin = transliterate(value);
    joined(latin.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))))
}

/// The runs kept, one `_` between two, trimmed and cut.
fn joined<'a>(runs: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for run in runs.filter(|run| !run.is_empty()) {
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(run);
    }
    truncate(&out, MAX_STEM)
}

/// `stem` cut to at most `max` bytes at a character boundary, without `.`,
/// `-` or `_` at the ends.
fn truncate(stem: &str, max: usize) -> String {
    let trim = |c: char| matches!(c, '.' | '-' | '_');
    let stem = stem.trim_matches(trim);
    stem[..stem.floor_char_boundary(max)].trim_end_matches(trim).to_owned()
}

/// The base letters of U+00C0 to U+017F (Latin-1 letters, Latin
/// Extended-A), 16 to a row; `*` where the letter is two ([`LIGATURES`]) or
/// the character no letter (`×`, `÷`).
const LATIN: [&str; 12] = [
    "AAAAAA*CEEEEIIII", // U+00C0
    "DNOOOOO*OUUUUY**", // U+00D0
    "aaaaaa*ceeeeiiii", // U+00E0
    "dnooooo*ouuuuy*y", // U+00F0
    "AaAaAaCcCcCcCcDd", // U+0100
    "DdEeEeEeEeEeGgGg", // U+0110
    "GgGgHhHhIiIiIiIi", // U+0120
    "Ii**JjKkkLlLlLlL", // U+0130
    "lLlNnNnNnnNnOoOo", // U+0140
    "Oo**RrRrRrSsSsSs", // U+0150
    "SsTtTtTtUuUuUuUu", // U+0160
    "UuUuWwYyYZzZzZzs", // U+0170
];

/// Letters of [`LATIN`] written with two, and letters beyond it.
const LIGATURES: [(char, &str); 13] = [
    ('Æ', "AE"),
    ('æ', "ae"),
    ('Þ', "TH"),
    ('þ', "th"),
    ('ß', "ss"),
    ('Ĳ', "IJ"),
    ('ĳ', "ij"),
    ('Œ', "OE"),
    ('œ', "oe"),
    ('Ș', "S"),
    ('ș', "s"),
    ('Ț', "T"),
    ('ț', "t"),
];

/// `text` with the Latin letters of `LATIN` and `LIGATURES` written in
/// ASCII and combining accents (U+0300 to U+036F, as in `e` + U+0301)
/// dropped; every other character is left as it is.
pub fn transliterate(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if let Some(&(_, ascii)) = LIGATURES.iter().find(|(letter, _)| *letter == c) {
            out.push_str(ascii);
            continue;
        }
        match u32::from(c) {
            0x0300..=0x036f => {}
            code @ 0xc0..=0x17f => {
                let offset = (code - 0xc0) as usize;
                match LATIN[offset / 16].as_bytes()[offset % 16] {
                    b'*' => out.push(c),
                    base => out.push(char::from(base)),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// What two names must differ in to be two files on every file system:
/// not case (Windows, macOS), nor accents (macOS takes `é` and `e` + U+0301
/// for one name; the stricter rule costs a suffix now and then).
fn fold(stem: &str) -> String {
    transliterate(&stem.to_lowercase()).to_lowercase()
}

/// Whether Windows reserves the name (with any extension) for a device;
/// its serial and parallel ports count in superscript digits too (`COM¹`).
fn reserved_on_windows(stem: &str) -> bool {
    let base = stem.split('.').next().unwrap_or(stem).to_ascii_uppercase();
    if matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL") {
        return true;
    }
    if !(base.starts_with("COM") || base.starts_with("LPT")) {
        return false;
    }
    let mut number = base[3..].chars();
    matches!((number.next(), number.next()), (Some('1'..='9' | '¹' | '²' | '³'), None))
}

/// The files of `split --by`: one per distinct key value, numbered in the
/// order the values are first seen, each with its own stem (see the module
/// documentation for the rules).
#[derive(Debug)]
pub struct KeyFiles {
    key: GroupKey,
    ids: HashMap<String, usize>,
    unknown: Option<usize>,
    /// Per file: its stem and the value it holds (`None`: no value).
    files: Vec<(String, Option<String>)>,
    stems: Stems,
    /// Names in ASCII only.
    ascii: bool,
}

/// The stems given so far, and how the next one is made distinct.
#[derive(Debug)]
struct Stems {
    /// Stems in use, [`fold`]ed.
    taken: HashSet<String>,
    /// Per stem asked for ([`fold`]ed), the next suffix to try.
    next_suffix: HashMap<String, u64>,
}

impl Stems {
    fn new() -> Stems {
        // Kept for games without a value, whether or not there are any.
        Stems { taken: HashSet::from([UNKNOWN.to_owned()]), next_suffix: HashMap::new() }
    }

    /// `base`, or the first free `base-2`, `base-3`, ... (cut to fit). The
    /// count goes on from the last one given for `base`, so that many
    /// values with one stem (with ASCII names, every name in a script with
    /// no Latin letter is `unnamed`) are named in linear time.
    fn claim(&mut self, base: String) -> String {
        let lower = fold(&base);
        let first = self.next_suffix.get(&lower).copied();
        if first.is_none() && !reserved_on_windows(&base) && self.taken.insert(lower.clone()) {
            self.next_suffix.insert(lower, 2);
            return base;
        }
        let mut n = first.unwrap_or(2);
        loop {
            let stem = with_suffix(&base, n);
            n += 1;
            if !reserved_on_windows(&stem) && self.taken.insert(fold(&stem)) {
                self.next_suffix.insert(lower, n);
                return stem;
            }
        }
    }
}

impl KeyFiles {
    /// No file yet.
    pub fn new(key: GroupKey) -> KeyFiles {
        KeyFiles { key, ids: HashMap::new(), unknown: None, files: Vec::new(), stems: Stems::new(), ascii: false }
    }

    /// The same, naming files in ASCII only (see the module documentation).
    #[must_use]
    pub fn ascii_names(self) -> KeyFiles {
        KeyFiles { ascii: true, ..self }
    }

    /// The key the files are made for.
    pub fn key(&self) -> &GroupKey {
        &self.key
    }

    /// The file of a value (0-based, in first-seen order), and whether this
    /// is its first game.
    pub fn file(&mut self, value: Option<&str>) -> (usize, bool) {
        let next = self.files.len();
        let Some(value) = value else {
            if let Some(id) = self.unknown {
                return (id, false);
            }
            self.unknown = Some(next);
            self.files.push((UNKNOWN.to_owned(), None));
            return (next, true);
        };
        if let Some(&id) = self.ids.get(value) {
            return (id, false);
        }
        let stem = self.stems.claim(stem(&self.key, value, self.ascii));
        self.ids.insert(value.to_owned(), next);
        self.files.push((stem, Some(value.to_owned())));
        (next, true)
    }

    /// The stem of a file.
    pub fn stem(&self, id: usize) -> &str {
        &self.files[id].0
    }

    /// The value a file holds (`None`: games without a value).
    pub fn value(&self, id: usize) -> Option<&str> {
        self.files[id].1.as_deref()
    }
}

/// What stands between the parts of a name made of several keys' values:
/// no part keeps it, so the name says where each part ends.
pub const JOINER: char = '+';

/// The files of `split --by` with several keys: one per distinct list of
/// values, named by the names each value gets by itself ([`KeyFiles`], one
/// per key) joined by [`JOINER`] in the order of the keys
/// (`Wch_2024+Carlsen_Magnus`), then cut and made distinct as one value's.
#[derive(Debug)]
pub struct JoinedFiles {
    parts: Vec<KeyFiles>,
    ids: HashMap<Vec<usize>, usize>,
    /// Per file: its stem and each key's file among `parts`.
    files: Vec<(String, Vec<usize>)>,
    stems: Stems,
}

impl JoinedFiles {
    /// No file yet, for these keys.
    pub fn new(keys: Vec<GroupKey>, ascii: bool) -> JoinedFiles {
        let part = |key| if ascii { KeyFiles::new(key).ascii_names() } else { KeyFiles::new(key) };
        JoinedFiles {
            parts: keys.into_iter().map(part).collect(),
            ids: HashMap::new(),
            files: Vec::new(),
            stems: Stems::new(),
        }
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &GroupKey> {
        self.parts.iter().map(KeyFiles::key)
    }

    /// The file of a game's values, one per key in order (0-based, in
    /// first-seen order), and whether this is its first game.
    ///
    /// # Panics
    ///
    /// `values` has not one value per key.
    pub fn file(&mut self, values: &[Option<&str>]) -> (usize, bool) {
        assert_eq!(values.len(), self.parts.len(), "one value per key");
        let parts: Vec<usize> = self.parts.iter_mut().zip(values).map(|(files, value)| files.file(*value).0).collect();
        if let Some(&id) = self.ids.get(&parts) {
            return (id, false);
        }
        let mut joined = String::new();
        for (files, &part) in self.parts.iter().zip(&parts) {
            if !joined.is_empty() {
                joined.push(JOINER);
            }
            joined.push_str(files.stem(part));
        }
        let cut = joined[..joined.floor_char_boundary(MAX_STEM)].trim_end_matches(['.', '-', '_', JOINER]);
        let stem = self.stems.claim(cut.to_owned());
        let next = self.files.len();
        self.ids.insert(parts.clone(), next);
        self.files.push((stem, parts));
        (next, true)
    }

    /// The stem of a file.
    pub fn stem(&self, id: usize) -> &str {
        &self.files[id].0
    }

    /// The values a file holds, one per key in order (`None`: no value).
    pub fn values(&self, id: usize) -> impl Iterator<Item = Option<&str>> {
        self.parts.iter().zip(&self.files[id].1).map(|(files, &part)| files.value(part))
    }
}

/// `base` with the suffix `-n`, cut to [`MAX_STEM`]. The suffix goes before
/// the first `.` of a Windows device name (`nul.x` is `nul-2.x`): after it,
/// the name would still be the device's, whatever the number.
fn with_suffix(base: &str, n: u64) -> String {
    let suffix = format!("-{n}");
    match base.split_once('.') {
        Some((device, rest)) if reserved_on_windows(base) => truncate(&format!("{device}{suffix}.{rest}"), MAX_STEM),
        _ => truncate(base, MAX_STEM - suffix.len()) + &suffix,
    }
}

/// The name of a file of `split`, in each layout's form; the file name
/// ends in `.pgn` and the compression's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileName<'a> {
    /// `--games`: the n-th file (from 1), `part-00001.pgn`.
    Part(u64),
    /// `--shards`: shard `number` of `of` (from 1), numbered with four
    /// digits or as many as `of` has, `shard-0001-of-0004.pgn`.
    Shard {
        /// Which shard.
        number: u64,
        /// How many shards there are.
        of: u64,
    },
    /// `--by`: the file of a value, by its stem ([`KeyFiles::stem`]),
    /// `Smith_J.pgn`.
    Value(&'a str),
}

impl FileName<'_> {
    /// The file name, compressed as `compress` says.
    pub fn with(self, compress: Compression) -> String {
        let extension = compress.extension();
        match self {
            FileName::Part(n) => format!("part-{n:05}.pgn{extension}"),
            FileName::Shard { number, of } => {
                let width = of.to_string().len().max(4);
                format!("shard-{number:0width$}-of-{of:0width$}.pgn{extension}")
            }
            FileName::Value(stem) => format!("{stem}.pgn{extension}"),
        }
    }
}

/// One output file.
#[derive(Debug)]
pub struct SplitFile {
    /// Where it is.
    pub path: PathBuf,
    /// Games written to it.
    pub games: u64,
    created: bool,
    /// Its temporary file, from its creation to the end of the run.
    staged: Option<Staged>,
    /// Its place in the open writers.
    slot: Option<usize>,
}

/// The output files of a run, at most `max_open` of them open at a time:
/// the least recently used is closed (its compressed stream finished) to
/// open another, and opened again (its temporary file, in append mode)
/// when its next game comes. A file is created under a temporary name the
/// first time this run opens it and renamed over the final name by
/// [`SplitFiles::finish`], so output of an earlier run is replaced, never
/// appended to, and stays whole until then. A compressed file gets a
/// stream of its own each time it is opened (a gzip member, a zstd frame
/// with a checksum, a bzip2 or xz stream): written one after the other,
/// they form a valid file, which every decoder (pgnkit's, `gzip -d`,
/// `zstd -d`, `bzip2 -d`, `xz -d`) reads to the end.
pub struct SplitFiles {
    dir: PathBuf,
    compress: Compression,
    max_open: usize,
    files: Vec<SplitFile>,
    open: Vec<Open>,
    clock: u64,
    /// The files that must not be written over.
    inputs: FilesRead,
    /// Held for the run.
    lock: DirLock,
    /// A zstd context from a closed file, for the next one: contexts are
    /// large, and allocating one per reopening costs time and memory.
    spare_zstd: Option<ZstdContext>,
    /// Files of a killed run that this one put in place from its journal.
    recovered: usize,
}

type ZstdContext = zstd::stream::raw::Encoder<'static>;

impl fmt::Debug for SplitFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SplitFiles")
            .field("dir", &self.dir)
            .field("compress", &self.compress)
            .field("max_open", &self.max_open)
            .field("files", &self.files)
            .field("open", &self.open)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Open {
    id: usize,
    last_used: u64,
    writer: Writer,
}

enum Writer {
    Plain(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<File>),
    Zstd(zstd::stream::zio::Writer<File, ZstdContext>),
    Bzip2(bzip2::write::BzEncoder<File>),
    Xz(liblzma::write::XzEncoder<File>),
}

impl fmt::Debug for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Writer::Plain(_) => "Plain",
            Writer::Gzip(_) => "Gzip",
            Writer::Zstd(_) => "Zstd",
            Writer::Bzip2(_) => "Bzip2",
            Writer::Xz(_) => "Xz",
        })
    }
}

/// zstd's own default level, as the `zstd` command uses.
const ZSTD_LEVEL: i32 = 3;

/// xz's own default preset, as the `xz` command uses.
const XZ_LEVEL: u32 = 6;

impl Writer {
    fn new(file: File, compress: Compression, spare: &mut Option<ZstdContext>) -> io::Result<Writer> {
        Ok(match compress {
            Compression::None => Writer::Plain(BufWriter::with_capacity(1 << 16, file)),
            Compression::Gzip => Writer::Gzip(flate2::write::GzEncoder::new(file, flate2::Compression::default())),
            // The `bzip2` command's level (blocks of 900 kB).
            Compression::Bzip2 => Writer::Bzip2(bzip2::write::BzEncoder::new(file, bzip2::Compression::best())),
            Compression::Xz => Writer::Xz(liblzma::write::XzEncoder::new(file, XZ_LEVEL)),
            Compression::Zstd => {
                let context = match spare.take() {
                    Some(context) => context,
                    None => {
                        let mut context = ZstdContext::new(ZSTD_LEVEL)?;
                        context.set_parameter(zstd::stream::raw::CParameter::ChecksumFlag(true))?;
                        context
                    }
                };
                Writer::Zstd(zstd::stream::zio::Writer::new(file, context))
            }
        })
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Writer::Plain(w) => w.write_all(bytes),
            Writer::Gzip(w) => w.write_all(bytes),
            Writer::Zstd(w) => w.write_all(bytes),
            Writer::Bzip2(w) => w.write_all(bytes),
            Writer::Xz(w) => w.write_all(bytes),
        }
    }

    /// Ends the compressed stream and flushes everything to the file; a
    /// zstd context is handed back for the next file.
    fn finish(self, spare: &mut Option<ZstdContext>) -> io::Result<()> {
        match self {
            Writer::Plain(w) => w.into_inner().map_err(io::IntoInnerError::into_error).map(drop),
            Writer::Gzip(w) => w.finish().map(drop),
            Writer::Bzip2(w) => w.finish().map(drop),
            Writer::Xz(w) => w.finish().map(drop),
            Writer::Zstd(mut w) => {
                w.finish()?;
                let (_, mut context) = w.into_inner();
                // Parameters (level, checksum) stay; the frame state goes.
                zstd::stream::raw::Operation::reinit(&mut context)?;
                *spare = Some(context);
                Ok(())
            }
        }
    }
}

/// An I/O error that names the file.
fn with_path(what: &str, path: &Path, err: &io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("cannot {what} {}: {err}", path.display()))
}

impl SplitFiles {
    /// Output into `dir`, created if missing, and locked for the run; the
    /// renames of a run killed while making them are finished first.
    ///
    /// # Errors
    ///
    /// The directory cannot be created, another run holds its lock, or a
    /// journal left there cannot be finished.
    pub fn new(dir: &Path, compress: Compression, max_open: usize) -> io::Result<SplitFiles> {
        fs::create_dir_all(dir).map_err(|err| with_path("create the directory", dir, &err))?;
        let lock = DirLock::acquire(dir, LOCK_FILE)?;
        let recovered = finish_journal(&dir.join(JOURNAL_FILE))?;
        Ok(SplitFiles {
            dir: dir.to_path_buf(),
            compress,
            max_open: max_open.max(1),
            files: Vec::new(),
            open: Vec::new(),
            clock: 0,
            inputs: FilesRead::none(),
            lock,
            spare_zstd: None,
            recovered,
        })
    }

    /// How many files of a run killed while renaming them were put in
    /// place when this one started.
    pub fn recovered(&self) -> usize {
        self.recovered
    }

    /// Refuse to write over these files (the inputs, as on the command
    /// line: see [`FilesRead::of_args`]): the rename would put the output in
    /// the input's place.
    ///
    /// # Errors
    ///
    /// An input is the lock file, which is no input.
    pub fn set_inputs(&mut self, paths: &[PathBuf]) -> io::Result<()> {
        for path in paths {
            if let Ok(meta) = fs::metadata(path)
                && self.lock.is(&meta)
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is the lock file of split, not an input", path.display()),
                ));
            }
        }
        self.inputs = FilesRead::of_args(paths);
        Ok(())
    }

    /// A new file called `name` (with the run's compression) in the
    /// directory; nothing is created yet. Returns its number (0-based, in
    /// the order added).
    pub fn add(&mut self, name: FileName<'_>) -> usize {
        let path = self.dir.join(name.with(self.compress));
        self.files.push(SplitFile { path, games: 0, created: false, staged: None, slot: None });
        self.files.len() - 1
    }

    /// The files added so far.
    pub fn files(&self) -> &[SplitFile] {
        &self.files
    }

    /// Files created so far.
    pub fn created(&self) -> usize {
        self.files.iter().filter(|f| f.created).count()
    }

    /// Appends one game's bytes to file `id`.
    ///
    /// # Errors
    ///
    /// The file cannot be created, opened or written; the message names it.
    pub fn write_game(&mut self, id: usize, bytes: &[u8]) -> io::Result<()> {
        let slot = self.slot(id)?;
        self.files[id].games += 1;
        self.open[slot].writer.write_all(bytes).map_err(|err| with_path("write", &self.files[id].path, &err))
    }

    /// Creates file `id` if it does not exist yet, so that it is there (a
    /// valid, empty PGN file) even when no game goes to it.
    ///
    /// # Errors
    ///
    /// As [`SplitFiles::write_game`].
    pub fn touch(&mut self, id: usize) -> io::Result<()> {
        if !self.files[id].created {
            self.slot(id)?;
        }
        Ok(())
    }

    /// Closes every open file, in the order they were added, then renames
    /// them all into place as one set. Until this is called, no file of the
    /// run has its final name.
    ///
    /// # Errors
    ///
    /// A file cannot be written or renamed; the message names it. The files
    /// not renamed yet are removed when `self` is dropped.
    pub fn finish(&mut self) -> io::Result<()> {
        let mut open = std::mem::take(&mut self.open);
        open.sort_by_key(|o| o.id);
        for o in open {
            self.files[o.id].slot = None;
            self.close(o)?;
        }
        // No sync: the renames keep a signal or an error from leaving a
        // file cut short; a power cut is not guarded against, as one sync
        // per file would cost a run of many files dear.
        let staged = self.files.iter_mut().filter_map(|file| file.staged.take()).collect();
        commit_all(staged, &self.dir.join(JOURNAL_FILE))
    }

    fn close(&mut self, open: Open) -> io::Result<()> {
        open.writer.finish(&mut self.spare_zstd).map_err(|err| with_path("write", &self.files[open.id].path, &err))
    }

    /// The slot of file `id`, opening it (and closing the least recently
    /// used file first when `max_open` are open).
    fn slot(&mut self, id: usize) -> io::Result<usize> {
        self.clock += 1;
        if let Some(slot) = self.files[id].slot {
            self.open[slot].last_used = self.clock;
            return Ok(slot);
        }
        if self.open.len() >= self.max_open {
            // Closed before the next is opened: never more than max_open.
            let (slot, _) = self.open.iter().enumerate().min_by_key(|(_, o)| o.last_used).expect("max_open >= 1");
            let evicted = self.open.swap_remove(slot);
            if let Some(moved) = self.open.get(slot) {
                self.files[moved.id].slot = Some(slot);
            }
            self.files[evicted.id].slot = None;
            self.close(evicted)?;
        }
        let writer = self.open_writer(id)?;
        self.open.push(Open { id, last_used: self.clock, writer });
        let slot = self.open.len() - 1;
        self.files[id].slot = Some(slot);
        Ok(slot)
    }

    fn open_writer(&mut self, id: usize) -> io::Result<Writer> {
        let file = &mut self.files[id];
        let file = match &file.staged {
            Some(staged) => OpenOptions::new()
                .append(true)
                .open(staged.temp_path())
                .map_err(|err| with_path("reopen", &file.path, &err))?,
            None => {
                let (staged, created) = Staged::create(&file.path, &self.inputs)?;
                file.staged = Some(staged);
                file.created = true;
                created
            }
        };
        Writer::new(file, self.compress, &mut self.spare_zstd)
            .map_err(|err| with_path("write", &self.files[id].path, &err))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn sanitizing_keeps_letters_and_digits_of_any_script_and_turns_other_runs_into_one_underscore() {
        for sanitize in [sanitize, sanitize_ascii] {
            assert_eq!(sanitize("Carlsen, Magnus"), "Carlsen_Magnus");
            assert_eq!(sanitize("1/2-1/2"), "1_2-1_2");
            assert_eq!(sanitize("../../etc/passwd"), "etc_passwd");
            assert_eq!(sanitize(".hidden"), "hidden");
            assert_eq!(sanitize("-rf"), "rf");
            assert_eq!(sanitize("(Kasparov)"), "Kasparov");
            assert_eq!(sanitize("Smith, J."), "Smith_J");
            assert_eq!(sanitize(&"x".repeat(300)).len(), MAX_STEM);
            // A cut that lands after a separator does not leave it at the end.
            assert_eq!(sanitize(&format!("{}, b", "a".repeat(MAX_STEM - 1))), "a".repeat(MAX_STEM - 1));
        }
        assert_eq!(sanitize("Müller, Jürgen"), "Müller_Jürgen");
        assert_eq!(sanitize("王皓"), "王皓");
        assert_eq!(sanitize("Ding Liren (丁立人)"), "Ding_Liren_丁立人");
        assert_eq!(sanitize("Гарри Каспаров"), "Гарри_Каспаров");
        assert_eq!(sanitize("विश्वनाथन आनंद"), "विश्वनाथन_आनंद", "vowel signs are marks, kept");
        assert_eq!(sanitize("e\u{301}"), "e\u{301}", "a combining accent stays on its letter");
        // Slashes of other scripts, controls, direction overrides and joiners are no letters.
        assert_eq!(sanitize("a\u{2215}b\u{ff0f}c\u{202e}d\u{200d}e\u{7f}f"), "a_b_c_d_e_f");
        assert_eq!(sanitize("\u{3000}\u{3002}"), "", "ideographic space and full stop");
        // 34 characters of three bytes: cut at 99 bytes, not inside the 34th.
        assert_eq!(sanitize(&"王".repeat(40)), "王".repeat(33));
        assert_eq!(sanitize_ascii("Müller, Jürgen"), "Muller_Jurgen");
        assert_eq!(sanitize_ascii("王皓"), "");
        assert_eq!(sanitize_ascii("Ding Liren (丁立人)"), "Ding_Liren");
        assert_eq!(sanitize_ascii("Mu\u{308}ller"), "Muller", "a decomposed accent is dropped");
    }

    #[test]
    fn transliteration_strips_latin_diacritics_and_leaves_other_scripts() {
        assert_eq!(
            transliterate("Ærøskøbing Łódź Škoda Þór Straße Ştefănescu Șerban Œuvre Ĳssel Ğİ ı"),
            "AEroskobing Lodz Skoda THor Strasse Stefanescu Serban OEuvre IJssel GI i"
        );
        assert_eq!(transliterate("5×3÷王"), "5×3÷王");
        // Each row of the table lines up with Unicode: a letter and its other
        // case have the same base letter, in the other case.
        for code in 0xc0..=0x17f_u32 {
            let Some(c) = char::from_u32(code) else { continue };
            let mut other = c.to_lowercase().chain(c.to_uppercase()).filter(|&o| o != c);
            let Some(other) = other.next() else { continue };
            if !(0xc0..=0x17f).contains(&u32::from(other)) || matches!(c, 'İ' | 'ı' | 'ſ' | 'ÿ' | 'Ÿ') {
                continue;
            }
            let (a, b) = (transliterate(&c.to_string()), transliterate(&other.to_string()));
            assert!(a.eq_ignore_ascii_case(&b) && a != b, "{c} is {a}, {other} is {b}");
        }
    }

    #[test]
    fn windows_devices_include_ports_numbered_in_superscript() {
        for device in ["CON", "nul.txt", "COM1", "lpt9.x", "COM¹", "lpt³"] {
            assert!(reserved_on_windows(device), "{device}");
        }
        for name in ["COM0", "COM10", "COM⁴", "CONSOLE", "LPT", "Ⅽon"] {
            assert!(!reserved_on_windows(name), "{name}");
        }
    }

    #[test]
    fn distinct_values_never_share_a_file_whatever_they_sanitize_to() {
        let mut files = KeyFiles::new(GroupKey::White);
        let mut stem = |value: Option<&str>| {
            let (id, _) = files.file(value);
            files.stem(id).to_owned()
        };
        assert_eq!(stem(Some("Smith, J.")), "Smith_J");
        assert_eq!(stem(Some("Smith J")), "Smith_J-2");
        // Case-insensitive file systems would merge these.
        assert_eq!(stem(Some("smith j")), "smith_j-3");
        assert_eq!(stem(Some("Smith, J.")), "Smith_J");
        // `unknown` is kept for games without a value.
        assert_eq!(stem(Some("Unknown")), "Unknown-2");
        assert_eq!(stem(None), UNKNOWN);
        assert_eq!(stem(Some("王皓")), "王皓");
        assert_eq!(stem(Some("丁立人")), "丁立人");
        assert_eq!(stem(Some("CON")), "CON-2");
        assert_eq!(stem(Some("COM¹")), "COM¹-2");
        // One name on macOS (accents written apart, or not) and Windows (case).
        assert_eq!(stem(Some("Müller")), "Müller");
        assert_eq!(stem(Some("Mu\u{308}ller")), "Mu\u{308}ller-2");
        assert_eq!(stem(Some("MÜLLER")), "MÜLLER-3");
        assert_eq!(stem(Some("Muller")), "Muller-4");
        let long = "y".repeat(150);
        assert_eq!(stem(Some(&long)), "y".repeat(MAX_STEM));
        assert_eq!(stem(Some(&format!("{long}!"))), format!("{}-2", "y".repeat(MAX_STEM - 2)));
    }

    #[test]
    fn device_names_with_a_dot_get_their_suffix_before_it_and_naming_ends() {
        let mut files = KeyFiles::new(GroupKey::White);
        let mut stem = |value: &str| {
            let (id, _) = files.file(Some(value));
            files.stem(id).to_owned()
        };
        // These looped forever: `nul.x-2` is still the device NUL.
        assert_eq!(stem("nul.x"), "nul-2.x");
        assert_eq!(stem("NUL.x"), "NUL-3.x");
        assert_eq!(stem("Aux.Open 2024"), "Aux-2.Open_2024");
        assert_eq!(stem("com1.txt.gz"), "com1-2.txt.gz");
        assert_eq!(stem("COM0.x"), "COM0.x", "COM0 is no device");
    }

    #[test]
    fn arbitrary_values_get_distinct_safe_names_and_naming_always_ends() {
        const PARTS: &[&str] = &[
            "nul",
            "NUL",
            "Con",
            "aux",
            "prn",
            "com1",
            "LPT9",
            "com0",
            "COM²",
            ".",
            "..",
            "-",
            "_",
            "x",
            "Aux.Open",
            " ",
            "2024",
            "王",
            "皓",
            "💥",
            "é",
            "E",
            "e\u{301}",
            "\u{301}",
            "ß",
            "ẞ",
            "İ",
            "Ω",
            "ω",
            "/",
            "\\",
            "\u{0}",
            "\n",
            "\u{202e}",
            "\u{200d}",
            "\u{ff0f}",
            "?",
            "*",
            ":",
            "<",
            "unknown",
            "unnamed",
            "-2",
            ".txt",
            "a",
            "王皓王皓王皓王皓王皓王皓王皓王皓王皓王皓王皓王皓王皓王皓",
        ];
        let mut rng = crate::test_rng::Rng(0x5917_7e57_0000_0001);
        for ascii in [false, true] {
            for round in 0..50 {
                let files = KeyFiles::new(GroupKey::Event);
                let mut files = if ascii { files.ascii_names() } else { files };
                let mut seen = HashSet::new();
                for _ in 0..400 {
                    let value: String = (0..rng.below(8)).map(|_| PARTS[rng.below(PARTS.len())]).collect();
                    let (id, first) = files.file(Some(&value));
                    let stem = files.stem(id);
                    if first {
                        assert!(seen.insert(fold(stem)), "round {round}: {stem:?} given twice");
                    }
                    assert!(!stem.is_empty() && stem.len() <= MAX_STEM, "{stem:?}");
                    assert!(!reserved_on_windows(stem), "{value:?} named {stem:?}, a device");
                    assert!(!stem.starts_with(['.', '-']) && !stem.ends_with(['.', '-', '_']), "{stem:?}");
                    let safe = |c: char| c.is_alphanumeric() || "._-".contains(c) || KEPT.is_match(&c.to_string());
                    assert!(stem.chars().all(|c| safe(c) && !c.is_control() && !"/\\:*?<>|\"".contains(c)), "{stem:?}");
                    if ascii {
                        assert!(stem.is_ascii(), "{value:?} named {stem:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn joined_names_name_each_value_by_its_keys_rules_and_never_share_a_file() {
        let mut files = JoinedFiles::new(vec![GroupKey::Event, GroupKey::Result], false);
        assert_eq!(files.file(&[Some("Wch 2024"), Some("1-0")]), (0, true));
        assert_eq!(files.file(&[Some("Wch 2024"), Some("1-0")]), (0, false));
        assert_eq!(files.stem(0), "Wch_2024+1-0");
        assert_eq!(files.file(&[None, Some("*")]), (1, true));
        assert_eq!(files.stem(1), "unknown+unfinished", "each part by its key's rules");
        assert_eq!(files.values(1).collect::<Vec<_>>(), [None, Some("*")]);
        // A name taken in one key gets its suffix there, whatever the other.
        assert_eq!(files.file(&[Some("wch 2024"), Some("1-0")]), (2, true));
        assert_eq!(files.stem(2), "wch_2024-2+1-0");
        // Two lists whose joined names are cut to one name still get two files.
        let long = "x".repeat(120);
        let (a, _) = files.file(&[Some(&long), Some("1-0")]);
        let (b, _) = files.file(&[Some(&long), Some("0-1")]);
        assert_eq!(files.stem(a), "x".repeat(100));
        assert_eq!(files.stem(b), format!("{}-2", "x".repeat(98)));
        let mut ascii = JoinedFiles::new(vec![GroupKey::White, GroupKey::Black], true);
        ascii.file(&[Some("Müller"), Some("王皓")]);
        assert_eq!(ascii.stem(0), "Muller+unnamed");
        assert!(files.keys().eq(&[GroupKey::Event, GroupKey::Result]));
    }

    #[test]
    fn many_values_with_one_stem_count_on_from_the_last_suffix() {
        let mut files = KeyFiles::new(GroupKey::White).ascii_names();
        for i in 0..20_000u32 {
            let name = char::from_u32(0x4e00 + i).unwrap().to_string();
            let (id, _) = files.file(Some(&name));
            let want = if i == 0 { UNNAMED.to_owned() } else { format!("{UNNAMED}-{}", i + 1) };
            assert_eq!(files.stem(id), want);
        }
    }

    #[test]
    fn many_values_of_symbols_only_are_named_in_linear_time_with_utf8_names_too() {
        // Pairs of Miscellaneous Symbols (☀☁, ...): no letter nor digit, so
        // every one asks for `unnamed`.
        let mut files = KeyFiles::new(GroupKey::White);
        let symbol = |i: u32| char::from_u32(0x2600 + i % 256).unwrap();
        for i in 0..20_000u32 {
            let value: String = [symbol(i), symbol(i / 256)].into_iter().collect();
            let (id, _) = files.file(Some(&value));
            let want = if i == 0 { UNNAMED.to_owned() } else { format!("{UNNAMED}-{}", i + 1) };
            assert_eq!(files.stem(id), want, "{value}");
        }
    }

    #[test]
    fn the_first_sight_of_a_value_makes_a_new_file_numbered_in_order() {
        let mut files = KeyFiles::new(GroupKey::Result);
        assert_eq!(files.file(Some("1-0")), (0, true));
        assert_eq!(files.file(Some("*")), (1, true));
        assert_eq!(files.file(None), (2, true));
        assert_eq!(files.file(Some("1-0")), (0, false));
        assert_eq!(files.file(None), (2, false));
        assert_eq!(files.stem(1), "unfinished");
        assert_eq!((files.value(1), files.value(2)), (Some("*"), None));
    }

    #[test]
    fn each_layout_names_its_files_in_its_form_with_the_compressions_extension() {
        assert_eq!(FileName::Part(1).with(Compression::None), "part-00001.pgn");
        assert_eq!(FileName::Part(123_456).with(Compression::Gzip), "part-123456.pgn.gz");
        assert_eq!(FileName::Shard { number: 1, of: 4 }.with(Compression::None), "shard-0001-of-0004.pgn");
        assert_eq!(FileName::Shard { number: 7, of: 10_000 }.with(Compression::Zstd), "shard-00007-of-10000.pgn.zst");
        assert_eq!(FileName::Value("Smith_J-2").with(Compression::None), "Smith_J-2.pgn");
        assert_eq!(FileName::Value(UNKNOWN).with(Compression::Zstd), "unknown.pgn.zst");
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-shard-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// A file's bytes, decompressed as an input is.
    fn read_back(path: &Path) -> Vec<u8> {
        let (_, mut reader) = crate::input::decode(Box::new(File::open(path).unwrap())).unwrap();
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn nothing_has_its_final_name_before_the_finish_and_a_run_dropped_before_leaves_the_old_files() {
        let dir = temp_dir("dropped");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("a.pgn"), "old\n").unwrap();
        let mut outputs = SplitFiles::new(&dir, Compression::Zstd, 1).unwrap();
        let (a, b) = (outputs.add(FileName::Value("a")), outputs.add(FileName::Value("b")));
        for id in [a, b, a] {
            outputs.write_game(id, b"new\n").unwrap();
        }
        assert!(!dir.join("b.pgn").exists());
        assert_eq!(fs::read(dir.join("a.pgn")).unwrap(), b"old\n");
        drop(outputs);
        let names: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["a.pgn"], "no temporary file, no lock file");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_run_into_a_directory_is_refused_while_the_first_holds_it() {
        let dir = temp_dir("locked");
        let first = SplitFiles::new(&dir, Compression::None, 1).unwrap();
        let err = SplitFiles::new(&dir, Compression::None, 1).unwrap_err();
        assert!(err.to_string().contains("in use by another run"), "{err}");
        let mut first = first;
        let err = first.set_inputs(&[dir.join(LOCK_FILE)]).unwrap_err();
        assert!(err.to_string().contains("lock file"), "{err}");
        drop(first);
        drop(SplitFiles::new(&dir, Compression::None, 1).unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_closed_and_reopened_many_times_hold_everything_in_order() {
        for compress in [Compression::None, Compression::Gzip, Compression::Zstd, Compression::Bzip2, Compression::Xz] {
            let dir = temp_dir(&format!("{compress:?}"));
            let mut outputs = SplitFiles::new(&dir, compress, 2).unwrap();
            let ids: Vec<usize> = (0..5).map(|i| outputs.add(FileName::Part(i + 1))).collect();
            let mut expected = vec![Vec::new(); 5];
            for round in 0..20 {
                for &id in &ids {
                    let text = format!("game {round} of file {id}\n");
                    outputs.write_game(id, text.as_bytes()).unwrap();
                    expected[id].extend_from_slice(text.as_bytes());
                    assert!(outputs.open.len() <= 2);
                }
            }
            outputs.finish().unwrap();
            for (id, file) in outputs.files().iter().enumerate() {
                assert_eq!(file.games, 20);
                assert_eq!(read_back(&file.path), expected[id], "{compress:?} file {id}");
            }
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn a_file_is_emptied_when_first_opened_so_a_rerun_replaces_old_output() {
        let dir = temp_dir("rerun");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("a.pgn"), "old\n").unwrap();
        let mut outputs = SplitFiles::new(&dir, Compression::None, 1).unwrap();
        let (a, b) = (outputs.add(FileName::Value("a")), outputs.add(FileName::Value("b")));
        for id in [a, b, a] {
            outputs.write_game(id, b"new\n").unwrap();
        }
        outputs.finish().unwrap();
        assert_eq!(fs::read(dir.join("a.pgn")).unwrap(), b"new\nnew\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn touching_creates_a_valid_empty_file_and_inputs_are_never_written() {
        let dir = temp_dir("touch");
        let mut outputs = SplitFiles::new(&dir, Compression::Zstd, 4).unwrap();
        let id = outputs.add(FileName::Value("empty"));
        outputs.touch(id).unwrap();
        outputs.finish().unwrap();
        drop(outputs);
        assert!(!fs::read(dir.join("empty.pgn.zst")).unwrap().is_empty());
        assert_eq!(read_back(&dir.join("empty.pgn.zst")), b"");

        fs::write(dir.join("input.pgn"), "1. e4 *\n").unwrap();
        let mut outputs = SplitFiles::new(&dir, Compression::None, 4).unwrap();
        fs::hard_link(dir.join("input.pgn"), dir.join("hard.pgn")).unwrap();
        outputs.set_inputs(&[dir.join("input.pgn")]).unwrap();
        for name in ["input", "hard"] {
            let id = outputs.add(FileName::Value(name));
            let err = outputs.write_game(id, b"x").unwrap_err();
            assert!(err.to_string().contains("is an input"), "{err}");
        }
        // A link is replaced by the output, and what it points to is kept.
        std::os::unix::fs::symlink(dir.join("input.pgn"), dir.join("link.pgn")).unwrap();
        let id = outputs.add(FileName::Value("link"));
        outputs.write_game(id, b"x").unwrap();
        outputs.finish().unwrap();
        assert_eq!(fs::read(dir.join("link.pgn")).unwrap(), b"x");
        assert!(!fs::symlink_metadata(dir.join("link.pgn")).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(dir.join("input.pgn")).unwrap(), b"1. e4 *\n");
        drop(outputs);
        fs::remove_dir_all(&dir).unwrap();
    }
}
