//! The error every command returns to `main`, which alone prints it and sets the exit code.

/// Why storebench stops with a non-zero exit code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line or its files were wrong: nothing was run. Exit code 2.
    #[error("{0}")]
    Usage(String),
    /// The run failed; what was measured until then has been reported. Exit code 1.
    #[error("{0}")]
    Run(String),
    /// SIGINT, SIGTERM or SIGHUP stopped the run; what was measured has been reported. Exit code
    /// 128 + the signal (130, 143, 129).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// The error of a plan that could not be made: a usage error, unless the store could not be reached
    /// (its message says "cannot reach"), which is a run failure like any other unusable target.
    pub fn from_plan(message: String) -> Error {
        if message.contains("cannot reach ") {
            Error::Run(message)
        } else {
            Error::Usage(message)
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Run(_) => 1,
            Error::Interrupted => crate::run::signal::exit_code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_store_is_a_run_failure_not_a_usage_error() {
        assert_eq!(Error::from_plan("invalid size 'x'".into()).exit_code(), 2);
        assert_eq!(Error::from_plan("cannot reach the NameNode at 127.0.0.1:1: refused".into()).exit_code(), 1);
        assert_eq!(Error::from_plan("stat s3://b/k failed: cannot reach http://h:1: x".into()).exit_code(), 1);
    }
}
