//! Arguments of `storebench compare` (two or more runs' figures, and whether the changes are real).

use clap::Args;
use std::path::PathBuf;

/// `storebench compare BASE.json NEW.json [NEW2.json ...]`
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base run's JSON report (`--json` of any command).
    #[arg(value_name = "BASE.json")]
    pub base: PathBuf,

    /// The runs compared with it, each on its own.
    #[arg(value_name = "NEW.json", required = true, num_args = 1..)]
    pub new: Vec<PathBuf>,

    /// Exit 1 when a figure got worse by more than PCT % and the change is significant (a CI gate).
    #[arg(long, value_name = "PCT", value_parser = parse_pct, allow_negative_numbers = true)]
    pub fail_if_slower: Option<f64>,

    /// Format on standard output: text or markdown.
    #[arg(long, value_enum, default_value = "text")]
    pub format: CompareFormat,

    /// Also write an HTML page (the tables, both runs' distributions overlaid, every run's charts).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `compare`'s formats on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// An aligned table.
    Text,
    /// A Markdown table.
    Markdown,
}

fn parse_pct(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("invalid --fail-if-slower '{s}': a percentage of 0 or more, e.g. 10")),
    }
}

impl super::CommandArgs for CompareArgs {
    fn json(&self) -> Option<&std::path::Path> {
        None
    }
    fn target(&self) -> Option<String> {
        None
    }
}
