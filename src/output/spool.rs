//! Bytes held for later: in memory up to a few MiB, past that in a
//! temporary file with no name, so that what waits costs disk, not memory,
//! and nothing is left behind however the run ends.

use std::{
    fs::File,
    io::{self, BufWriter, Seek, Write},
    os::unix::fs::OpenOptionsExt,
    sync::atomic::{AtomicU64, Ordering},
};

/// Bytes written to it, held until [`Spool::pour`]ed out.
#[derive(Debug, Default)]
pub struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
}

impl Spool {
    /// Bytes held in memory before the rest goes to a file.
    pub const MEMORY: usize = 4 << 20;

    /// Writes what is held to `out`, in order, and holds nothing after.
    pub fn pour(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.rewind()?;
            io::copy(&mut file, out)?;
        }
        out.write_all(&self.memory)?;
        self.memory.clear();
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.memory.len() + bytes.len() > Self::MEMORY {
            let mut file = BufWriter::with_capacity(1 << 16, unnamed_file()?);
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => file.write(bytes),
            None => {
                self.memory.extend_from_slice(bytes);
                Ok(bytes.len())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), Write::flush)
    }
}

/// A new file in the temporary folder, readable and writable by its owner
/// only, with no name left: its space is freed when it is closed.
pub(crate) fn unnamed_file() -> io::Result<File> {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let path = dir.join(format!("pgnkit-spool-{}-{}", std::process::id(), MADE.fetch_add(1, Ordering::Relaxed)));
        match File::options().read(true).write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
            Err(err) => {
                return Err(io::Error::new(
                    err.kind(),
                    format!("cannot create a temporary file in {} (TMPDIR): {err}", dir.display()),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::Spool;

    #[test]
    fn a_spool_past_its_memory_goes_to_a_file_and_comes_back_whole() {
        let mut spool = Spool::default();
        let chunk: Vec<u8> = (0..=255).cycle().take(1 << 20).collect();
        for _ in 0..6 {
            spool.write_all(&chunk).unwrap();
        }
        assert!(spool.file.is_some() && spool.memory.is_empty());
        let mut out = Vec::new();
        spool.pour(&mut out).unwrap();
        assert_eq!(out.len(), 6 << 20);
        assert!(out.chunks(1 << 20).all(|c| c == chunk));
    }
}
