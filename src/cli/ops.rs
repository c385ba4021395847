//! Arguments of `storebench ops` (Apache Doris fs_benchmark_tool's operations, with threads and a
//! duration mode).

use crate::units::parse_size;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The operations (Apache Doris fs_benchmark_tool's, plus stat and delete).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Op {
    /// Thread K creates BASE/test_K and writes --file-size bytes to it in --buffer-size writes.
    CreateWrite,
    /// Thread K reads BASE/test_K (--file-size bytes; 0 = the whole file) in --buffer-size reads.
    OpenRead,
    /// Every thread reads --file-path (--file-size bytes, 0 = whole; --random: at random offsets).
    SingleRead,
    /// As single_read, through a prefetching reader (--prefetch blocks of --buffer-size ahead).
    PrefetchRead,
    /// Thread K asks whether BASE/test_K exists.
    Exists,
    /// Thread K asks BASE/test_K's size.
    Stat,
    /// Thread K renames BASE/test_K to BASE/test_K_new (and back on the next iteration).
    Rename,
    /// Lists BASE.
    List,
    /// Thread K deletes BASE/test_K_I, one file per iteration (made first, untimed).
    Delete,
}

impl Op {
    /// Every operation.
    pub const ALL: [Op; 9] = [
        Op::CreateWrite,
        Op::OpenRead,
        Op::SingleRead,
        Op::PrefetchRead,
        Op::Exists,
        Op::Stat,
        Op::Rename,
        Op::List,
        Op::Delete,
    ];

    /// The operation's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Op::CreateWrite => "create_write",
            Op::OpenRead => "open_read",
            Op::SingleRead => "single_read",
            Op::PrefetchRead => "prefetch_read",
            Op::Exists => "exists",
            Op::Stat => "stat",
            Op::Rename => "rename",
            Op::List => "list",
            Op::Delete => "delete",
        }
    }

    /// The operation named `s`.
    pub fn parse(s: &str) -> Result<Op, String> {
        Op::ALL.iter().copied().find(|o| o.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
            format!("unknown operation '{s}': valid are {}", names.join(", "))
        })
    }
}

/// Output formats of the summary on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// Plain text.
    Text,
    /// A Markdown table.
    Markdown,
}

fn duration_arg(s: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(s) {
        Ok(d) if d > crate::plan::MAX_DURATION => {
            Err(format!("invalid duration '{s}': at most {}", humantime::format_duration(crate::plan::MAX_DURATION)))
        }
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!("invalid duration '{s}': must be longer than 0 (e.g. 30s, 2m)")),
        Err(e) => Err(format!("invalid duration '{s}': {e} (e.g. 30s, 2m, 1h)")),
    }
}

/// `storebench ops --op OP [options] [URL]`
#[derive(Debug, Args)]
#[command(after_help = "Sizes take binary suffixes: 1k = 1024 bytes, 1m = 1 MiB. Durations: 30s, 2m, 1h. \
The Doris seed's spellings work too: --operation, --file_size, --buffer_size, --conf with base_dir, file_path.")]
pub struct OpsArgs {
    /// The operation each thread repeats (or --mix).
    #[arg(long, alias = "operation", value_parser = Op::parse, required_unless_present = "mix")]
    pub op: Option<Op>,

    /// A mixed workload: op=weight,... (e.g. open_read=70,create_write=20,stat=10); each operation is
    /// drawn by weight.
    #[arg(long, value_name = "OP=WEIGHT,...", conflicts_with = "op")]
    pub mix: Option<String>,

    /// Worker threads; thread K works on the file test_K.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,

    /// Operations per thread [default: 1, unless --duration is given].
    #[arg(long, conflicts_with = "duration")]
    pub iterations: Option<u64>,

    /// Repeat the operation for this long instead of a number of iterations (e.g. 30s).
    #[arg(long, value_parser = duration_arg)]
    pub duration: Option<std::time::Duration>,

    /// Times the whole measurement is repeated; statistics across repeats follow.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,

    /// Operations per second for all threads together (a token bucket); latency counts from each
    /// operation's intended start, so queueing behind a slow store shows (coordinated omission).
    #[arg(long, value_name = "OPS_PER_S")]
    pub rate: Option<f64>,

    /// Bytes per file written or read by one operation [default: 10m; single_read and prefetch_read:
    /// 0 = the whole file] (conf: file_size).
    #[arg(long, alias = "file_size", value_parser = parse_size)]
    pub file_size: Option<u64>,

    /// Bytes per write or read call [default: 1m, or --file-size if smaller] (conf: buffer_size).
    #[arg(long, alias = "buffer_size", value_parser = parse_size)]
    pub buffer_size: Option<u64>,

    /// The file single_read and prefetch_read read (conf: file_path); a path in URL's store or a URL.
    #[arg(long, alias = "file_path", value_name = "PATH")]
    pub file_path: Option<String>,

    /// single_read: each operation reads --file-size bytes at a random offset (aligned to it).
    #[arg(long)]
    pub random: bool,

    /// prefetch_read: blocks read ahead.
    #[arg(long, default_value_t = 4)]
    pub prefetch: usize,

    /// Create the files the operation needs first (untimed) and remove them after, instead of
    /// requiring them from an earlier `create_write --keep`.
    #[arg(long)]
    pub prepare: bool,

    /// Stop at the first failed operation (by default failures are counted and the run goes on).
    #[arg(long)]
    pub fail_fast: bool,

    /// Seed of --mix and --random choices (default: from the clock; the report records it).
    #[arg(long)]
    pub seed: Option<u64>,

    /// The base directory or prefix (conf: base_dir). Default: a fresh directory under the system's
    /// temporary directory.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    /// Keep the files create_write wrote (and those --prepare made) at the end.
    #[arg(long)]
    pub keep: bool,

    /// Write the whole report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write one row per repeat and the statistics rows as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Format of the summary on standard output.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutFormat,

    /// Print only the statistics.
    #[arg(short, long)]
    pub quiet: bool,

    /// Store configuration: -D, --xmlfile and the connection flags.
    #[command(flatten)]
    pub config: crate::plan::StoreArgs,

    /// Accepted for the Doris tool's command lines (hdfs, s3); the URL's scheme decides the store.
    #[arg(long = "fs_type", hide = true)]
    pub fs_type: Option<String>,
}
