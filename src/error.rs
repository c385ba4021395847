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
    /// The user pressed Ctrl-C; what was measured has been reported. Exit code 130.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Run(_) => 1,
            Error::Interrupted => 130,
        }
    }
}
