//! Arguments of `storebench report` (an HTML page from JSON reports).

use clap::Args;
use std::path::PathBuf;

/// `storebench report RUN.json [RUN2.json ...] -o report.html`
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// JSON reports (`--json` of any command, any schema version), one section each, in order.
    #[arg(value_name = "RUN.json", required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,

    /// The HTML file to write (one self-contained page).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

impl super::CommandArgs for ReportArgs {
    fn json(&self) -> Option<&std::path::Path> {
        None
    }
    fn target(&self) -> Option<String> {
        None
    }
}
