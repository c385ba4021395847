//! Arguments of `storebench ops` (Apache Doris fs_benchmark_tool's operations, with threads and a
//! duration mode).

use crate::plan::size::parse_size;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Op {
    /// Each thread K creates test_K and writes --file-size bytes to it in --buffer-size writes.
    CreateWrite,
    /// Each thread K reads its test_K whole, in --buffer-size reads (the files are made first, untimed).
    OpenRead,
}

impl Op {
    /// The operation's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Op::CreateWrite => "create_write",
            Op::OpenRead => "open_read",
        }
    }
}

fn size_arg(s: &str) -> Result<u64, String> {
    parse_size(s)
}

fn duration_arg(s: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!("invalid duration '{s}': must be longer than 0 (e.g. 30s, 2m)")),
        Err(e) => Err(format!("invalid duration '{s}': {e} (e.g. 30s, 2m, 1h)")),
    }
}

/// `storebench ops --op OP [options] [URL]`
#[derive(Debug, Args)]
#[command(after_help = "Sizes take binary suffixes: 1k = 1024 bytes, 1m = 1 MiB. Durations: 30s, 2m, 1h.")]
pub struct OpsArgs {
    /// The operation each thread repeats.
    #[arg(long, value_enum)]
    pub op: Op,

    /// Worker threads; thread K works on the file test_K.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,

    /// Operations per thread [default: 1, unless --duration is given].
    #[arg(long, conflicts_with = "duration")]
    pub iterations: Option<u64>,

    /// Repeat the operation for this long instead of a number of iterations (e.g. 30s).
    #[arg(long, value_parser = duration_arg)]
    pub duration: Option<std::time::Duration>,

    /// Bytes per file written or read by one operation.
    #[arg(long, value_parser = size_arg, default_value = "10m")]
    pub file_size: u64,

    /// Bytes per write or read call [default: 1m, or --file-size if smaller].
    #[arg(long, value_parser = size_arg)]
    pub buffer_size: Option<u64>,

    /// Where: a directory or prefix; a fresh run directory is made inside it. Default: the system's
    /// temporary directory.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    /// Keep the files and the run directory at the end.
    #[arg(long)]
    pub keep: bool,

    /// Write the whole report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print only the summary.
    #[arg(short, long)]
    pub quiet: bool,

    /// Hadoop configuration key=value for the store (repeatable), e.g. -D fs.s3a.endpoint=http://...
    #[arg(short = 'D', value_name = "KEY=VALUE")]
    pub define: Vec<String>,

    /// Hadoop XML configuration file (core-site.xml) with store keys (repeatable).
    #[arg(long, value_name = "FILE")]
    pub xmlfile: Vec<PathBuf>,

    /// Store connection options.
    #[command(flatten)]
    pub store: crate::plan::StoreFlags,
}
