//! Stdout as every command writes it, and writers whose errors name their
//! file: a write error says where it happened (`cannot write stdout: No
//! space left on device`).

use std::io::{self, Write};

/// Stdout, named in its errors. A stdout closed by the shell (`>&-`) is not
/// seen here: before `main`, the Rust runtime opens `/dev/null` on a closed
/// fd 1 (so that no file opened later can take it), and nothing tells that
/// apart from a stdout sent to `/dev/null` read-write (as Python's
/// `subprocess.DEVNULL` does), which must keep working.
pub fn stdout() -> Named<io::Stdout> {
    Named::new("stdout", io::stdout())
}

/// A writer whose errors name what it writes to: `cannot write stdout: No
/// space left on device`. The kind stays, so a closed pipe is still told
/// apart (and ends the run quietly).
pub struct Named<W> {
    name: String,
    inner: W,
}

impl<W: Write> Named<W> {
    /// `inner`, called `name` (a path as shown, or `stdout`) in errors.
    pub fn new(name: impl Into<String>, inner: W) -> Named<W> {
        Named { name: name.into(), inner }
    }

    fn named(&self, err: io::Error) -> io::Error {
        io::Error::new(err.kind(), format!("cannot write {}: {err}", self.name))
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|err| self.named(err))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|err| self.named(err))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|err| self.named(err))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::{self, Write};

    use super::Named;

    /// Fails every write with `kind`.
    pub(crate) struct Failing(pub(crate) io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(self.0.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(self.0.into())
        }
    }

    #[test]
    fn a_write_error_names_its_file_and_keeps_its_kind_so_a_closed_pipe_stays_quiet() {
        let mut out = Named::new("stdout", Failing(io::ErrorKind::BrokenPipe));
        let err = out.write_all(b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert!(err.to_string().starts_with("cannot write stdout: "), "{err}");
        assert!(crate::exit::is_broken_pipe(&anyhow::Error::new(err)));
        let mut file = Named::new("out.pgn", Failing(io::ErrorKind::StorageFull));
        let err = file.flush().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert!(err.to_string().starts_with("cannot write out.pgn: "), "{err}");
    }
}
