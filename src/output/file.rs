//! Output files written safely: every file a command writes goes first to a
//! new temporary file beside it and is renamed over its final name only
//! when complete, never replaces an input, and never follows a symbolic
//! link; [`remove_temporaries`] cleans up after a signal.
//!
//! The rules, relied on by `docs/exit-codes.md` and `docs/output-formats.md`:
//! * the temporary file is made with `O_CREAT | O_EXCL` (a name that exists,
//!   a planted symbolic link included, is never opened), in the target's
//!   directory so that the rename is atomic;
//! * a target that is an input, compared by device and inode (a hard link,
//!   another spelling of the path, or stdin redirected from the file), is
//!   refused before anything is written;
//! * a target that is a symbolic link is replaced, link and all, and what
//!   it pointed to is left alone; except a device, a pipe or a terminal
//!   (`/dev/null`), and any file named through an open descriptor
//!   (`/dev/stdout`, `/dev/fd/3`), which are written in place, as no file
//!   name is at stake there: a regular file so reached is appended to,
//!   never truncated, and refused when it is an input;
//! * stdout and stderr are refused when they are an input
//!   ([`refuse_standard_outputs`]), as `cat` refuses `cat f >> f`;
//! * a file that may not be written (no write permission) is refused, as it
//!   was when outputs were truncated in place, though the rename would need
//!   only the folder's permission;
//! * a temporary file not committed is removed when dropped (an error,
//!   a panic) or by [`remove_temporaries`] (a signal), so that no file is
//!   ever left cut short under its final name.

use std::{
    collections::BTreeMap,
    ffi::{OsStr, OsString},
    fs::{self, File, Metadata, OpenOptions, Permissions, TryLockError},
    io::{self, Write},
    os::{
        fd::AsFd,
        unix::{
            ffi::OsStrExt,
            fs::{MetadataExt, PermissionsExt},
        },
    },
    path::{Path, PathBuf},
    sync::{
        Mutex, MutexGuard, OnceLock, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
};

/// The files a command reads, by device and inode: a path is not enough, as
/// a hard link or stdin redirected from a file is the same file by another
/// name.
#[derive(Debug, Clone, Default)]
pub struct FilesRead {
    /// Each file's device and inode, and its name for messages.
    files: Vec<((u64, u64), String)>,
}

impl FilesRead {
    /// No input.
    pub fn none() -> FilesRead {
        FilesRead::default()
    }

    /// The inputs of a game-reading command, as given on its command line:
    /// `-`, or no path at all, is stdin, which counts when it is a regular
    /// file (`< games.pgn`). Paths that cannot be read are left out: the
    /// command reports them itself.
    pub fn of_args(paths: &[PathBuf]) -> FilesRead {
        let mut inputs = FilesRead::none();
        let stdin = paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-");
        for path in crate::input::expand_paths(paths).iter().filter(|p| p.as_os_str() != "-") {
            inputs.add_path(path);
        }
        if stdin {
            inputs.add_stdin();
        }
        inputs
    }

    /// One more input file (through symbolic links: what is read is what
    /// they point to).
    pub fn add_path(&mut self, path: &Path) {
        if let Ok(meta) = fs::metadata(path) {
            self.files.push((id(&meta), path.display().to_string()));
        }
    }

    /// Stdin, when it is a regular file.
    pub fn add_stdin(&mut self) {
        if let Some(meta) = stdio_metadata(io::stdin().as_fd()).filter(Metadata::is_file) {
            self.files.push((id(&meta), "stdin".to_owned()));
        }
    }

    /// Whether `meta` is the metadata of an input.
    pub fn contains(&self, meta: &Metadata) -> bool {
        self.name_of(meta).is_some()
    }

    /// The name of the input `meta` is the metadata of.
    fn name_of(&self, meta: &Metadata) -> Option<&str> {
        self.files.iter().find(|(file, _)| *file == id(meta)).map(|(_, name)| name.as_str())
    }
}

/// Refuses a stdout or stderr that is a regular file among the inputs, as
/// `cat` refuses `cat f >> f` ("input file is output file"): written to,
/// the input would be cut short (`>`, already done by the shell) or read
/// back as it grows (`>>`, with no end). A terminal, a pipe or `/dev/null`
/// is never an input. `inputs` is asked for only when a stream is a
/// regular file, as it may walk folders.
///
/// # Errors
///
/// A stream is an input; the message names both.
pub fn refuse_standard_outputs(inputs: impl FnOnce() -> FilesRead) -> io::Result<()> {
    let streams = [("stdout", stdio_metadata(io::stdout().as_fd())), ("stderr", stdio_metadata(io::stderr().as_fd()))];
    let mut inputs = Some(inputs);
    let mut known = None;
    for (stream, meta) in streams {
        let Some(meta) = meta.filter(Metadata::is_file) else { continue };
        let known = known.get_or_insert_with(|| inputs.take().map(|f| f()).unwrap_or_default());
        if let Some(name) = known.name_of(&meta) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{stream} is the input {name}: writing it would destroy the input or read the output back \
                     (input file is output file)"
                ),
            ));
        }
    }
    Ok(())
}

fn id(meta: &Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

/// The metadata of a standard stream's file (fstat of a duplicate of it).
fn stdio_metadata(fd: std::os::fd::BorrowedFd<'_>) -> Option<Metadata> {
    File::from(fd.try_clone_to_owned().ok()?).metadata().ok()
}

/// An I/O error that names the file.
fn with_path(what: &str, path: &Path, err: &io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("cannot {what} {}: {err}", path.display()))
}

/// The error for a target that is an input.
fn is_input(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::AlreadyExists, format!("{} is an input: writing it would destroy it", path.display()))
}

/// The temporary files alive, for [`remove_temporaries`]: process-wide, as a
/// signal comes to the process, not to a command.
struct Live {
    /// Set by [`remove_temporaries`]: nothing may be created or renamed
    /// any more, as the process is ending.
    stopping: bool,
    next: u64,
    paths: BTreeMap<u64, PathBuf>,
    /// The folders (device and inode) whose stale temporary files this
    /// process has removed: each is looked through once.
    cleaned: Vec<(u64, u64)>,
}

static LIVE: Mutex<Live> = Mutex::new(Live { stopping: false, next: 0, paths: BTreeMap::new(), cleaned: Vec::new() });

/// How many stale temporary files this process removed.
static STALE_REMOVED: AtomicUsize = AtomicUsize::new(0);

/// What starts watching for the signals that must remove the temporary
/// files ([`watch_before_writing`]), and how that went, once.
static WATCH: OnceLock<fn() -> io::Result<()>> = OnceLock::new();
static WATCHING: OnceLock<Result<(), String>> = OnceLock::new();

/// Has `watch` run before the first file that a signal must remove (a
/// temporary or a lock file) is created, and only then: a run that writes
/// no file leaves the signals to their default action, which ends it just
/// as well, and starts nothing to watch them (a thread, for the binary).
pub fn watch_before_writing(watch: fn() -> io::Result<()>) {
    let _ = WATCH.set(watch);
}

/// Runs the watch of [`watch_before_writing`] the first time; its error,
/// every time.
fn watched() -> io::Result<()> {
    let Some(watch) = WATCH.get() else { return Ok(()) };
    let watching = WATCHING.get_or_init(|| watch().map_err(|err| format!("cannot watch for signals: {err}")));
    watching.clone().map_err(io::Error::other)
}

/// What every temporary file's name ends with.
const TEMP_SUFFIX: &str = ".pgnkit-tmp";

/// A panic elsewhere while the lock was held leaves the registry as
/// consistent as ever: each change is one insert or remove.
fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn stopping() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "interrupted: the output is not written")
}

/// Removes every temporary file (and lock file) alive and refuses to create
/// or rename any from now on: for a signal handler, before the process
/// ends. Returns how many files were removed.
pub fn remove_temporaries() -> usize {
    let mut live = live();
    live.stopping = true;
    let paths = std::mem::take(&mut live.paths);
    paths.values().filter(|path| fs::remove_file(path).is_ok()).count()
}

/// Registers `path` (just created, while `live` was held) for removal.
fn register(live: &mut Live, path: PathBuf) -> u64 {
    let key = live.next;
    live.next += 1;
    live.paths.insert(key, path);
    key
}

/// Creates a new temporary file for the file `name` in `dir`:
/// `.NAME.PID-N.pgnkit-tmp`, with `O_EXCL` (nothing already there is
/// opened), and locked (`flock`) for as long as it is open, which tells it
/// from a file left by a run that was killed.
fn create_temp(live: &mut Live, dir: &Path, name: &OsStr) -> io::Result<(PathBuf, File)> {
    // The name stays within the usual 255 bytes: a dot, at most 200 bytes
    // of the target's name, the process and a count.
    let short = &name.as_bytes()[..name.len().min(200)];
    loop {
        let mut temp_name = OsString::from(".");
        temp_name.push(OsStr::from_bytes(short));
        temp_name.push(format!(".{}-{}{TEMP_SUFFIX}", std::process::id(), live.next));
        let temp = dir.join(temp_name);
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                // A file system without locks leaves the process number
                // alone to tell a live file from a stale one.
                let _ = file.try_lock();
                return Ok((temp, file));
            }
            // Left by a process with our number that died.
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => live.next += 1,
            Err(err) => return Err(err),
        }
    }
}

/// The folder a file named `path` goes in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Removes the temporary files of pgnkit's naming (`.NAME.PID-N.pgnkit-tmp`)
/// in `dir` that a run killed by SIGKILL (or a crash, a power cut) left:
/// those whose process is gone and that no process holds a lock on (a
/// process of another PID namespace, which shares the folder but not
/// `/proc`, still holds its lock). Nothing is removed where there is no
/// `/proc` to ask. Once per folder and process: the first file made there
/// does it. Returns how many were removed.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(folder) = fs::metadata(dir) else { return 0 };
    {
        let mut live = live();
        if live.stopping || live.cleaned.contains(&id(&folder)) {
            return 0;
        }
        live.cleaned.push(id(&folder));
    }
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    let own = std::process::id();
    let mut dead = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        // The temporary files of a journal are outputs whole, waiting for
        // their rename (finish_journal).
        if is_journal(&name) {
            return 0;
        }
        // A regular file only: a FIFO would block its opening.
        if let Some(pid) = temp_pid(&name).filter(|&pid| pid != own)
            && entry.file_type().is_ok_and(|kind| kind.is_file())
            && !Path::new("/proc").join(pid.to_string()).exists()
        {
            dead.push(entry.path());
        }
    }
    let mut removed = 0;
    for path in dead {
        let Ok(file) = File::open(&path) else { continue };
        if file.try_lock().is_ok() && fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    STALE_REMOVED.fetch_add(removed, Ordering::Relaxed);
    removed
}

/// Whether `name` is that of a journal of [`commit_all`]:
/// `.pgnkit-NAME.journal`.
fn is_journal(name: &OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with(".pgnkit-") && name.ends_with(".journal"))
}

/// The process number in the name of a temporary file (`.NAME.PID-N` and
/// the suffix), or `None` for any other name.
fn temp_pid(name: &OsStr) -> Option<u32> {
    let name = name.to_str()?.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let (_, tail) = name.rsplit_once('.')?;
    let (pid, count) = tail.split_once('-')?;
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(count)).then(|| pid.parse().ok()).flatten()
}

/// How many stale temporary files [`remove_stale_temporaries`] removed in
/// this process, for a note at the end of the run.
pub fn stale_removed() -> usize {
    STALE_REMOVED.load(Ordering::Relaxed)
}

/// A file being written under a temporary name beside its target: renamed
/// over the target by [`Staged::commit`], removed when dropped before.
#[derive(Debug)]
pub struct Staged {
    temp: PathBuf,
    target: PathBuf,
    key: u64,
    done: bool,
}

impl Staged {
    /// Creates the temporary file of `target`, after checking that the
    /// target is neither an input nor a directory. Whatever else is at the
    /// target's name (a file, a symbolic link, anything) is replaced at the
    /// commit, and left alone until then.
    ///
    /// # Errors
    ///
    /// The target is an input or a directory, or the temporary file cannot
    /// be created; the message names the target.
    pub fn create(target: &Path, inputs: &FilesRead) -> io::Result<(Staged, File)> {
        let existing = match fs::symlink_metadata(target) {
            Ok(meta) => Some(meta),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => return Err(with_path("create", target, &err)),
        };
        if let Some(meta) = &existing {
            // A link to a folder is more likely a mistake than a name to
            // give up: it is refused as the folder itself would be.
            let to_dir = meta.file_type().is_symlink() && fs::metadata(target).is_ok_and(|m| m.is_dir());
            if meta.is_dir() || to_dir {
                return Err(with_path("create", target, &io::Error::from(io::ErrorKind::IsADirectory)));
            }
            if meta.is_file() && inputs.contains(meta) {
                return Err(is_input(target));
            }
            // A file we may not write stays refused, as when it was
            // truncated in place: the rename would need only the folder's
            // permission. Opened, not written.
            if meta.is_file()
                && let Err(err) = OpenOptions::new().write(true).open(target)
                && err.kind() == io::ErrorKind::PermissionDenied
            {
                return Err(with_path("create", target, &err));
            }
        }
        let Some(name) = target.file_name() else {
            return Err(with_path("create", target, &io::Error::from(io::ErrorKind::InvalidInput)));
        };
        let dir = folder_of(target);
        remove_stale_temporaries(dir);
        watched()?;
        let (staged, file) = {
            // Created and registered under one lock, so that a signal
            // handler either refuses the creation or sees the file.
            let mut live = live();
            if live.stopping {
                return Err(stopping());
            }
            let (temp, file) = create_temp(&mut live, dir, name).map_err(|err| with_path("create", target, &err))?;
            let key = register(&mut live, temp.clone());
            (Staged { temp, target: target.to_path_buf(), key, done: false }, file)
        };
        // On an error from here `staged` goes, and its file.
        if let Some(meta) = existing.as_ref().filter(|m| m.is_file()) {
            keep_owner_and_mode(&file, meta).map_err(|err| with_path("replace", target, &err))?;
        }
        Ok((staged, file))
    }

    /// The temporary file, to open again (`split` closes and reopens its
    /// files).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary file over the target. Everything written must
    /// have been flushed (and synced, for durability) by the caller.
    ///
    /// # Errors
    ///
    /// The rename fails, or the process is ending on a signal; the
    /// temporary file is then removed.
    pub fn commit(mut self) -> io::Result<()> {
        let mut live = live();
        self.rename(&mut live)
    }

    /// As [`Staged::commit`], unless the target is no longer the file
    /// `was` describes (another inode, size, modification or change time):
    /// a file written to while it was read and rewritten (games appended
    /// to it) is not replaced, as what was written would be lost. Checked
    /// under the lock, just before the rename. Returns whether the file was
    /// renamed; when not, the temporary file is removed.
    ///
    /// # Errors
    ///
    /// As [`Staged::commit`].
    pub fn commit_if_unchanged(mut self, was: &Metadata) -> io::Result<bool> {
        let mut live = live();
        let unchanged = fs::metadata(&self.target).is_ok_and(|now| {
            id(&now) == id(was)
                && now.len() == was.len()
                && (now.mtime(), now.mtime_nsec()) == (was.mtime(), was.mtime_nsec())
                && (now.ctime(), now.ctime_nsec()) == (was.ctime(), was.ctime_nsec())
        });
        if unchanged {
            return self.rename(&mut live).map(|()| true);
        }
        // Dropped (its file removed) once the lock is released.
        drop(live);
        Ok(false)
    }

    /// The rename, under the lock: a signal handler sees the file either
    /// renamed or still to remove, never half-way.
    fn rename(&mut self, live: &mut Live) -> io::Result<()> {
        self.done = true;
        if live.stopping {
            return Err(stopping());
        }
        let renamed = fs::rename(&self.temp, &self.target);
        live.paths.remove(&self.key);
        if let Err(err) = renamed {
            let _ = fs::remove_file(&self.temp);
            return Err(with_path("create", &self.target, &err));
        }
        Ok(())
    }
}

/// A replaced file's owner, group and permission bits given to the new
/// file, as when files were truncated in place (root rewriting a user's
/// file leaves it the user's), but without the set-user-ID and
/// set-group-ID bits, which the kernel drops from a file written to.
fn keep_owner_and_mode(file: &File, was: &Metadata) -> io::Result<()> {
    let own = file.metadata()?;
    if (own.uid(), own.gid()) != (was.uid(), was.gid()) {
        std::os::unix::fs::fchown(file, Some(was.uid()), Some(was.gid())).map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("its owner and group (uid {}, gid {}) cannot be kept: {err}", was.uid(), was.gid()),
            )
        })?;
    }
    file.set_permissions(Permissions::from_mode(was.mode() & 0o1777))
}

/// Renames the staged `files`, all in the folder of `journal` (named
/// `.pgnkit-NAME.journal`), into place as one set (`split`'s files):
/// * a signal that comes meanwhile waits until all are renamed: the
///   renames hold the registry's lock, which [`remove_temporaries`] takes
///   first;
/// * the journal lists the renames while they are done, so that a run
///   killed part-way (SIGKILL, a crash) can have them finished by
///   [`finish_journal`]. It is written under a temporary name and renamed
///   into place (whole when it exists), and removed after the last rename.
///   It is not synced, as the files are not: a power cut is not guarded
///   against.
///
/// # Errors
///
/// The process is ending on a signal or the journal cannot be written:
/// nothing is renamed. A rename fails (a folder put at a file's name in
/// between): the files renamed before it stay, the others are removed.
pub fn commit_all(mut files: Vec<Staged>, journal: &Path) -> io::Result<()> {
    debug_assert!(journal.file_name().is_some_and(is_journal), "{}", journal.display());
    if files.is_empty() {
        return Ok(());
    }
    let mut live = live();
    if live.stopping {
        // The files are gone already; dropped after the lock.
        drop(live);
        return Err(stopping());
    }
    let result = write_journal(&mut live, &files, journal).and_then(|()| {
        let renamed = files.iter_mut().try_for_each(|file| {
            fs::rename(&file.temp, &file.target).map_err(|err| with_path("create", &file.target, &err))?;
            live.paths.remove(&file.key);
            file.done = true;
            Ok(())
        });
        let _ = fs::remove_file(journal);
        renamed
    });
    for file in files.iter_mut().filter(|file| !file.done) {
        if live.paths.remove(&file.key).is_some() {
            let _ = fs::remove_file(&file.temp);
        }
        file.done = true;
    }
    result
}

/// The journal of [`commit_all`]: the names of each temporary file and of
/// its target, each followed by a NUL byte (a byte no file name holds).
fn write_journal(live: &mut Live, files: &[Staged], journal: &Path) -> io::Result<()> {
    let mut text = Vec::new();
    for file in files {
        for path in [&file.temp, &file.target] {
            let name =
                path.file_name().ok_or_else(|| with_path("create", path, &io::ErrorKind::InvalidInput.into()))?;
            text.extend_from_slice(name.as_bytes());
            text.push(0);
        }
    }
    let name = journal.file_name().ok_or_else(|| with_path("create", journal, &io::ErrorKind::InvalidInput.into()))?;
    let (temp, mut file) =
        create_temp(live, folder_of(journal), name).map_err(|err| with_path("create", journal, &err))?;
    let written = file.write_all(&text).and_then(|()| fs::rename(&temp, journal));
    if let Err(err) = written {
        let _ = fs::remove_file(&temp);
        return Err(with_path("write", journal, &err));
    }
    Ok(())
}

/// Finishes the renames of a journal [`commit_all`] left (its run was
/// killed while renaming): every temporary file still there is renamed
/// over its target, as the run would have done, then the journal is
/// removed. The caller holds the folder (split's lock). Returns how many
/// files were renamed; 0 when there is no journal.
///
/// # Errors
///
/// The journal cannot be read or is not one (it is then left alone), or a
/// rename fails.
pub fn finish_journal(journal: &Path) -> io::Result<usize> {
    let text = match fs::read(journal) {
        Ok(text) => text,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(err) => return Err(with_path("read", journal, &err)),
    };
    let not_one = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a journal of pgnkit's renames: remove it", journal.display()),
        )
    };
    let names: Vec<&[u8]> = match text.strip_suffix(b"\0") {
        Some(names) => names.split(|&b| b == 0).collect(),
        None if text.is_empty() => Vec::new(),
        None => return Err(not_one()),
    };
    // Names in the folder only (no `/`, no `..`): temporary files to
    // targets that are not.
    let plain = |name: &&[u8]| !name.is_empty() && !name.contains(&b'/') && *name != b"." && *name != b"..";
    let is_temp = |name: &[u8]| temp_pid(OsStr::from_bytes(name)).is_some();
    if !names.len().is_multiple_of(2)
        || !names.iter().all(plain)
        || !names.chunks(2).all(|pair| is_temp(pair[0]) && !is_temp(pair[1]))
    {
        return Err(not_one());
    }
    let dir = folder_of(journal);
    let mut renamed = 0;
    for pair in names.chunks(2) {
        let (temp, target) = (dir.join(OsStr::from_bytes(pair[0])), dir.join(OsStr::from_bytes(pair[1])));
        if fs::symlink_metadata(&temp).is_ok_and(|m| m.is_file()) {
            fs::rename(&temp, &target).map_err(|err| with_path("create", &target, &err))?;
            renamed += 1;
        }
    }
    fs::remove_file(journal).map_err(|err| with_path("remove", journal, &err))?;
    Ok(renamed)
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let mut live = live();
            if live.paths.remove(&self.key).is_some() {
                let _ = fs::remove_file(&self.temp);
            }
        }
    }
}

/// One output file (`convert -o`, `filter --rejects`, `--svg`): staged and
/// renamed into place by [`OutputFile::commit`], or written in place when
/// it is a device, a pipe or a terminal.
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    staged: Option<Staged>,
    /// The name given, for errors: `cannot write out.pgn: ...`.
    target: PathBuf,
}

impl OutputFile {
    /// Opens `target` for writing; see the module documentation for the
    /// rules.
    ///
    /// # Errors
    ///
    /// As [`Staged::create`], or a device cannot be opened.
    pub fn create(target: &Path, inputs: &FilesRead) -> io::Result<OutputFile> {
        if let Some(meta) = written_in_place(target) {
            // `-o /dev/stdout s.pgn >> s.pgn`: the same file as `>> s.pgn`
            // on its own, refused as stdout itself is.
            if meta.is_file() && inputs.contains(&meta) {
                return Err(is_input(target));
            }
            let mut options = OpenOptions::new();
            options.write(true);
            // A file reached through a descriptor is written as its opener
            // (the shell) meant: never truncated, and appended to, so that
            // `>> log` keeps the log's lines and `> out` (emptied by the
            // shell) is written from its start.
            if meta.is_file() {
                options.append(true);
            }
            let file = options.open(target).map_err(|err| with_path("create", target, &err))?;
            return Ok(OutputFile { file, staged: None, target: target.to_path_buf() });
        }
        let (staged, file) = Staged::create(target, inputs)?;
        Ok(OutputFile { file, staged: Some(staged), target: target.to_path_buf() })
    }

    /// Another handle on the file, for a writer that must own one.
    ///
    /// # Errors
    ///
    /// The descriptor cannot be duplicated.
    pub fn handle(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// Syncs the file and renames it into place. Whatever was written
    /// through other handles must have been flushed first.
    ///
    /// # Errors
    ///
    /// The file cannot be synced or renamed; it is then removed.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush().map_err(|err| with_path("write", &self.target, &err))?;
        match self.staged.take() {
            Some(staged) => {
                // A full disk can show only now, on some file systems.
                self.file.sync_all().map_err(|err| with_path("write", staged.target(), &err))?;
                staged.commit()
            }
            None => Ok(()),
        }
    }
}

/// Errors name the file: `cannot write out.svg: No space left on device`.
impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|err| with_path("write", &self.target, &err))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|err| with_path("write", &self.target, &err))
    }
}

/// The metadata of what `target` leads to when it is written in place: a
/// device, a pipe or a socket, itself or through symbolic links, or any
/// file reached through the name of an open descriptor (`/dev/stdout`,
/// `/dev/fd/3`, `/proc/self/fd/1`), which stands for a file already open
/// (most often by the shell), not for a name to put a new file at.
fn written_in_place(target: &Path) -> Option<Metadata> {
    let meta = fs::metadata(target).ok()?;
    if meta.is_dir() {
        return None;
    }
    (!meta.is_file() || names_a_descriptor(target)).then_some(meta)
}

/// Whether `path`, itself or through its symbolic links, is an entry of
/// this process's descriptor folder (`/proc/self/fd`, which `/dev/fd` and
/// `/dev/stdout` lead to).
fn names_a_descriptor(path: &Path) -> bool {
    let Ok(descriptors) = fs::canonicalize("/proc/self/fd") else { return false };
    let mut path = path.to_path_buf();
    // As many links as the kernel follows.
    for _ in 0..40 {
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if fs::canonicalize(&parent).is_ok_and(|dir| dir == descriptors) {
            return true;
        }
        match fs::read_link(&path) {
            // A relative link is relative to its folder; an absolute one
            // replaces the path.
            Ok(link) => path = parent.join(link),
            Err(_) => return false,
        }
    }
    false
}

/// A lock on a directory, held by an open file in it, for a run that writes
/// there (`split`): a second run into the same directory is refused rather
/// than mixed with the first. The file is removed when the lock is dropped.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    file: File,
    key: u64,
}

impl DirLock {
    /// Takes the lock file `name` in `dir`, creating it if needed.
    ///
    /// # Errors
    ///
    /// Another process holds the lock (`WouldBlock`), the file is not a
    /// regular file (a symbolic link is never followed), or it cannot be
    /// opened.
    pub fn acquire(dir: &Path, name: &str) -> io::Result<DirLock> {
        let path = dir.join(name);
        let busy = || {
            io::Error::new(
                io::ErrorKind::WouldBlock,
                format!("{} is in use by another run (its lock file {} is held)", dir.display(), path.display()),
            )
        };
        watched()?;
        // A run that ends removes its lock file while it still holds it: a
        // lock taken on a file that is no longer at the name is no lock, so
        // take it again on the new file.
        for _ in 0..100 {
            let mut live = live();
            if live.stopping {
                return Err(stopping());
            }
            let file = match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => file,
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                    let meta = fs::symlink_metadata(&path).map_err(|err| with_path("open", &path, &err))?;
                    if !meta.is_file() {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!("{} is not a regular file: remove it, it is where the lock goes", path.display()),
                        ));
                    }
                    // Only what lstat saw, checked again by fstat below:
                    // a link put in between is caught there.
                    OpenOptions::new().write(true).open(&path).map_err(|err| with_path("open", &path, &err))?
                }
                Err(err) => return Err(with_path("create", &path, &err)),
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(busy()),
                Err(TryLockError::Error(err)) => return Err(with_path("lock", &path, &err)),
            }
            let held = file.metadata().map_err(|err| with_path("lock", &path, &err))?;
            let named = fs::symlink_metadata(&path).ok().filter(|m| m.is_file());
            if named.is_some_and(|m| id(&m) == id(&held)) {
                let key = register(&mut live, path.clone());
                return Ok(DirLock { path, file, key });
            }
        }
        Err(busy())
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `meta` is the lock file's (an input given by its name).
    pub fn is(&self, meta: &Metadata) -> bool {
        self.file.metadata().is_ok_and(|own| id(&own) == id(meta))
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // Removed while still locked (the lock goes with the file, closed
        // after this): see `acquire`.
        let mut live = live();
        if live.paths.remove(&self.key).is_some() {
            let _ = fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-outfile-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_appears_under_its_name_only_when_committed() {
        let dir = temp_dir("commit");
        let target = dir.join("out.pgn");
        let mut out = OutputFile::create(&target, &FilesRead::none()).unwrap();
        out.write_all(b"1. e4 *\n").unwrap();
        assert!(!target.exists());
        assert_eq!(names(&dir).len(), 1, "only the temporary file");
        out.commit().unwrap();
        assert_eq!(names(&dir), ["out.pgn"]);
        assert_eq!(fs::read(&target).unwrap(), b"1. e4 *\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_dropped_before_its_commit_leaves_the_old_one_and_no_temporary() {
        let dir = temp_dir("drop");
        let target = dir.join("out.pgn");
        fs::write(&target, "old\n").unwrap();
        let mut out = OutputFile::create(&target, &FilesRead::none()).unwrap();
        out.write_all(b"cut sho").unwrap();
        drop(out);
        assert_eq!(names(&dir), ["out.pgn"]);
        assert_eq!(fs::read(&target).unwrap(), b"old\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_input_by_any_name_is_refused_and_a_symbolic_link_is_replaced_not_followed() {
        let dir = temp_dir("inputs");
        let input = dir.join("in.pgn");
        fs::write(&input, "1. e4 *\n").unwrap();
        fs::hard_link(&input, dir.join("hard.pgn")).unwrap();
        std::os::unix::fs::symlink(&input, dir.join("soft.pgn")).unwrap();
        let inputs = FilesRead::of_args(&[dir.join("soft.pgn")]);
        for name in ["in.pgn", "hard.pgn"] {
            let err = OutputFile::create(&dir.join(name), &inputs).unwrap_err();
            assert!(err.to_string().contains("is an input"), "{err}");
        }
        let mut out = OutputFile::create(&dir.join("soft.pgn"), &inputs).unwrap();
        out.write_all(b"new\n").unwrap();
        out.commit().unwrap();
        assert!(!fs::symlink_metadata(dir.join("soft.pgn")).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(dir.join("soft.pgn")).unwrap(), b"new\n");
        assert_eq!(fs::read(&input).unwrap(), b"1. e4 *\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_without_write_permission_is_not_replaced() {
        let dir = temp_dir("read-only");
        let target = dir.join("kept.pgn");
        fs::write(&target, "kept\n").unwrap();
        fs::set_permissions(&target, std::os::unix::fs::PermissionsExt::from_mode(0o444)).unwrap();
        // Root may write any file, as it could truncate it before.
        if OpenOptions::new().write(true).open(&target).is_err() {
            let err = OutputFile::create(&target, &FilesRead::none()).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{err}");
            assert_eq!(names(&dir), ["kept.pgn"]);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_or_a_link_to_one_is_refused_and_left_alone() {
        let dir = temp_dir("folder");
        fs::create_dir(dir.join("sub")).unwrap();
        std::os::unix::fs::symlink(dir.join("sub"), dir.join("link")).unwrap();
        for name in ["sub", "link"] {
            let err = OutputFile::create(&dir.join(name), &FilesRead::none()).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::IsADirectory, "{err}");
        }
        assert_eq!(names(&dir), ["link", "sub"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_is_written_in_place() {
        let mut out = OutputFile::create(Path::new("/dev/null"), &FilesRead::none()).unwrap();
        out.write_all(b"x").unwrap();
        out.commit().unwrap();
        let kind = fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(std::os::unix::fs::FileTypeExt::is_char_device(&kind));
    }

    #[test]
    fn names_of_descriptors_are_told_from_names_of_files_through_any_link() {
        for name in ["/dev/stdout", "/dev/stderr", "/dev/fd/0", "/proc/self/fd/1"] {
            assert!(names_a_descriptor(Path::new(name)), "{name}");
        }
        let dir = temp_dir("descriptor");
        std::os::unix::fs::symlink("/dev/stdout", dir.join("out")).unwrap();
        std::os::unix::fs::symlink("out", dir.join("relative")).unwrap();
        fs::write(dir.join("file.pgn"), "").unwrap();
        std::os::unix::fs::symlink(dir.join("file.pgn"), dir.join("link.pgn")).unwrap();
        assert!(names_a_descriptor(&dir.join("out")) && names_a_descriptor(&dir.join("relative")));
        for name in ["file.pgn", "link.pgn", "missing.pgn"] {
            assert!(!names_a_descriptor(&dir.join(name)), "{name}");
        }
        assert!(!names_a_descriptor(Path::new("/dev/null")));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_replaced() {
        let dir = temp_dir("changed");
        let target = dir.join("games.pgn");
        fs::write(&target, "1. e4 *\n").unwrap();
        let was = fs::metadata(&target).unwrap();
        let (staged, mut file) = Staged::create(&target, &FilesRead::none()).unwrap();
        file.write_all(b"fixed\n").unwrap();
        // Appended to meanwhile, as `>>` would.
        OpenOptions::new().append(true).open(&target).unwrap().write_all(b"1. d4 *\n").unwrap();
        assert!(!staged.commit_if_unchanged(&was).unwrap());
        assert_eq!(names(&dir), ["games.pgn"], "no temporary file left");
        assert_eq!(fs::read(&target).unwrap(), b"1. e4 *\n1. d4 *\n");
        let was = fs::metadata(&target).unwrap();
        let (staged, mut file) = Staged::create(&target, &FilesRead::none()).unwrap();
        file.write_all(b"fixed\n").unwrap();
        assert!(staged.commit_if_unchanged(&was).unwrap());
        assert_eq!(fs::read(&target).unwrap(), b"fixed\n");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_left_part_way_is_finished_and_a_set_committed_whole_leaves_none() {
        let dir = temp_dir("journal");
        let journal = dir.join(".pgnkit-test.journal");
        let stage = |name: &str, text: &str| {
            let (staged, mut file) = Staged::create(&dir.join(name), &FilesRead::none()).unwrap();
            file.write_all(text.as_bytes()).unwrap();
            staged
        };
        fs::write(dir.join("b.pgn"), "old b\n").unwrap();
        let mut files = vec![stage("a.pgn", "new a\n"), stage("b.pgn", "new b\n"), stage("c.pgn", "new c\n")];
        // Killed after the journal and the first rename, as SIGKILL may.
        write_journal(&mut live(), &files, &journal).unwrap();
        fs::rename(&files[0].temp, &files[0].target).unwrap();
        for file in &mut files {
            live().paths.remove(&file.key);
            file.done = true;
        }
        assert_eq!(finish_journal(&journal).unwrap(), 2);
        assert_eq!(names(&dir), ["a.pgn", "b.pgn", "c.pgn"]);
        assert_eq!(fs::read_to_string(dir.join("b.pgn")).unwrap(), "new b\n");
        assert_eq!(finish_journal(&journal).unwrap(), 0, "no journal any more");

        commit_all(vec![stage("a.pgn", "newer a\n"), stage("d.pgn", "d\n")], &journal).unwrap();
        assert_eq!(names(&dir), ["a.pgn", "b.pgn", "c.pgn", "d.pgn"]);
        assert_eq!(fs::read_to_string(dir.join("a.pgn")).unwrap(), "newer a\n");

        // Anything else at the journal's name is left alone.
        fs::write(&journal, "a.pgn\0../../etc/passwd\0").unwrap();
        assert_eq!(finish_journal(&journal).unwrap_err().kind(), io::ErrorKind::InvalidData);
        assert!(journal.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_give_their_process_and_no_other_name_does() {
        assert_eq!(temp_pid(OsStr::new(".out.pgn.1234-0.pgnkit-tmp")), Some(1234));
        assert_eq!(temp_pid(OsStr::new(".a.b.c.99-12.pgnkit-tmp")), Some(99));
        for name in ["out.pgn.1234-0.pgnkit-tmp", ".out.pgn.1234.pgnkit-tmp", ".out.pgn.x-0.pgnkit-tmp", ".out.pgn"] {
            assert_eq!(temp_pid(OsStr::new(name)), None, "{name}");
        }
    }

    #[test]
    fn a_directory_is_locked_once_and_its_lock_file_goes_with_the_lock() {
        let dir = temp_dir("lock");
        let lock = DirLock::acquire(&dir, ".lock").unwrap();
        let err = DirLock::acquire(&dir, ".lock").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock, "{err}");
        drop(lock);
        assert!(names(&dir).is_empty());
        drop(DirLock::acquire(&dir, ".lock").unwrap());
        std::os::unix::fs::symlink("/nonexistent-target", dir.join(".lock")).unwrap();
        assert!(DirLock::acquire(&dir, ".lock").is_err(), "a link is never followed");
        fs::remove_dir_all(&dir).unwrap();
    }
}
