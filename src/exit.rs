//! Exit statuses: 0 all well, 1 problems found in the data (0 with
//! `--exit-zero`), 2 the tool failed.

use std::{io, process::ExitCode};

/// How a run ended; the worst of several runs wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// No findings that fail the run.
    Success,
    /// The data has errors (or warnings with `--deny-warnings`).
    Failure,
    /// Usage or I/O error.
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}

impl ExitStatus {
    /// The status with `--exit-zero`: problems found in the data do not
    /// fail the run; a run that failed still does.
    pub fn with_exit_zero(self, exit_zero: bool) -> ExitStatus {
        match self {
            ExitStatus::Failure if exit_zero => ExitStatus::Success,
            status => status,
        }
    }
}

/// Whether an error chain ends in a closed pipe (`pgnkit ... | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(closed_pipe)
}

/// Whether `err` is a closed pipe, or wraps one where `source` does not
/// lead: the csv crate's error (its `From` for `io::Error` makes one of
/// kind `Other` around it, and it has no source), and serde_json's, whose
/// source skips the I/O error it holds.
fn closed_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(io) = err.downcast_ref::<io::Error>() {
        return io.kind() == io::ErrorKind::BrokenPipe || io.get_ref().is_some_and(|inner| closed_pipe(inner));
    }
    if let Some(csv) = err.downcast_ref::<csv::Error>() {
        return matches!(csv.kind(), csv::ErrorKind::Io(io) if closed_pipe(io));
    }
    if let Some(json) = err.downcast_ref::<serde_json::Error>() {
        return json.io_error_kind() == Some(io::ErrorKind::BrokenPipe);
    }
    false
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::{ExitStatus, is_broken_pipe};
    use crate::stdout::tests::Failing;

    #[test]
    fn a_closed_pipe_is_seen_through_the_errors_of_csv_and_serde_json_however_converted() {
        // More than the csv writer's buffer: the row that fills it fails
        // in `write_record`, with a csv error, not in `flush`.
        let row = ["x".repeat(1 << 16)];
        let csv_error = |kind| csv::Writer::from_writer(Failing(kind)).write_record(&row).unwrap_err();
        let closed = io::ErrorKind::BrokenPipe;
        assert!(is_broken_pipe(&anyhow::Error::new(io::Error::from(csv_error(closed)))), "as io::Error");
        assert!(is_broken_pipe(&anyhow::Error::new(csv_error(closed))), "as itself");
        let json = serde_json::to_writer(Failing(closed), &row).unwrap_err();
        assert!(is_broken_pipe(&anyhow::Error::new(json).context("cannot write")));
        let full = io::ErrorKind::StorageFull;
        assert!(!is_broken_pipe(&anyhow::Error::new(io::Error::from(csv_error(full)))));
        assert!(!is_broken_pipe(&anyhow::Error::new(serde_json::to_writer(Failing(full), &row).unwrap_err())));
    }

    #[test]
    fn exit_zero_turns_only_problems_in_the_data_into_success() {
        assert_eq!(ExitStatus::Failure.with_exit_zero(true), ExitStatus::Success);
        assert_eq!(ExitStatus::Error.with_exit_zero(true), ExitStatus::Error);
        assert_eq!(ExitStatus::Success.with_exit_zero(true), ExitStatus::Success);
        assert_eq!(ExitStatus::Failure.with_exit_zero(false), ExitStatus::Failure);
    }

    #[test]
    fn the_worst_status_wins() {
        let statuses = [ExitStatus::Failure, ExitStatus::Error, ExitStatus::Success];
        assert_eq!(statuses.into_iter().max(), Some(ExitStatus::Error));
    }
}
