//! Arguments of `storebench ops` (Apache Doris fs_benchmark_tool's operations, with threads and a
//! duration mode).

use crate::units::parse_size;
use crate::workload::ops::Op;
use clap::Args;
use std::path::PathBuf;

/// `storebench ops --op OP [options] [URL]`
#[derive(Clone, Debug, Args)]
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
    #[arg(long, value_parser = crate::units::parse_duration)]
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

    /// What the run controls about what it measures: --data, --drop-cache.
    #[command(flatten)]
    pub controls: crate::cli::ControlArgs,

    /// `--sweep`, `--max-time`, `--yes`.
    #[command(flatten)]
    pub sweep: crate::cli::SweepArgs,

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

    /// Write the report as one self-contained HTML page with charts to this file (as `storebench
    /// report` would from the JSON).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Write one row per repeat and the statistics rows as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Format of the summary on standard output: text, markdown (the main table) or json (the report).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::export::manager::StdoutFormat,

    /// Print only the statistics.
    #[arg(short, long)]
    pub quiet: bool,

    /// Store configuration: -D, --xmlfile and the connection flags.
    #[command(flatten)]
    pub config: crate::cli::store::StoreArgs,

    /// Accepted for the Doris tool's command lines (hdfs, s3); the URL's scheme decides the store.
    #[arg(long = "fs_type", hide = true)]
    pub fs_type: Option<String>,
}

impl super::Sweepable for OpsArgs {
    const SWEEPS: &'static [&'static str] =
        &["threads", "file-size", "buffer-size", "prefetch", "multipart.size", "active.blocks"];

    /// Sets one swept setting.
    fn set(&mut self, key: &str, v: &str) -> Result<(), String> {
        match key {
            "threads" => self.threads = super::count(key, v)?,
            "file-size" => self.file_size = Some(super::size(key, v)?),
            "buffer-size" => self.buffer_size = Some(super::size(key, v)?),
            "prefetch" => self.prefetch = super::count(key, v)?,
            k => match super::store_key(k) {
                Some(name) => self.config.define.push(format!("{name}={v}")),
                None => return Err(format!("--sweep {k}: ops sweeps {}", Self::SWEEPS.join(", "))),
            },
        }
        Ok(())
    }
}

impl super::CommandArgs for OpsArgs {
    fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
    fn target(&self) -> Option<String> {
        self.url.clone()
    }
}
