//! Exit statuses: 0 all well, 1 problems found in the data, 2 the tool failed.

use std::process::ExitCode;

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

/// Whether an error chain ends in a closed pipe (`pgnkit ... | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|err| err.kind() == std::io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::ExitStatus;

    #[test]
    fn the_worst_status_wins() {
        let statuses = [ExitStatus::Failure, ExitStatus::Error, ExitStatus::Success];
        assert_eq!(statuses.into_iter().max(), Some(ExitStatus::Error));
    }
}
