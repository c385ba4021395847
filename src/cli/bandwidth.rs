//! Arguments of `storebench bandwidth`.

use crate::units::parse_size;
use crate::workload::bandwidth::ReadPolicy;
use clap::Args;
use std::path::PathBuf;

/// cloudstore's single-dash option names and their storebench form.
pub const SINGLE_DASH: &[(&str, &str)] = &[
    ("-block", "--block"),
    ("-csv", "--csv"),
    ("-json", "--json"),
    ("-flush", "--flush"),
    ("-hflush", "--hflush"),
    ("-keep", "--keep"),
    ("-rename", "--rename"),
    ("-policy", "--policy"),
    ("-prefetch", "--prefetch"),
    ("-verbose", "--verbose"),
    ("-xmlfile", "--xmlfile"),
    ("-verify", "--verify"),
    ("-quiet", "--quiet"),
    ("-direct", "--direct"),
    ("-overwrite", "--overwrite"),
    ("-read-only", "--read-only"),
    ("-conf", "--conf"),
    ("-endpoint", "--endpoint"),
    ("-region", "--region"),
];

/// `storebench bandwidth [options] SIZE [URL]`
#[derive(Clone, Debug, Args)]
#[command(after_help = "Sizes take binary suffixes: 1k = 1024 bytes, 1m = 1 MiB, 1g = 1 GiB (Hadoop's meaning). \
cloudstore's single-dash options work too: -block 8 (MiB), -csv FILE, -keep, -verbose ...")]
pub struct BandwidthArgs {
    /// Bytes to upload then download, e.g. 128m, 1g, 1.5g, 4096.
    #[arg(value_parser = parse_size, value_name = "SIZE")]
    pub size: u64,

    /// Where to write: a directory (a fresh run directory is made inside), a file path, file:///path or
    /// memory://path. Default: a fresh directory under the system's temporary directory.
    #[arg(value_name = "URL")]
    pub url: Option<String>,

    /// Block size of each write and read [default: 8m, or SIZE if smaller] (cloudstore's `-block N` means N MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub block: Option<u64>,

    /// Write every operation to this CSV file (cloudstore's columns), as the run goes.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write the whole report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the report as one self-contained HTML page with charts to this file (as `storebench
    /// report` would from the JSON).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Hand each block to the OS after writing it (files: start writeback with sync_file_range).
    #[arg(long)]
    pub flush: bool,

    /// Make each block durable after writing it (files: fdatasync; HDFS: hflush).
    #[arg(long)]
    pub hflush: bool,

    /// Keep the file (and the run directory) at the end.
    #[arg(long)]
    pub keep: bool,

    /// Rename the file to <name>.renamed after the upload and time it; the download reads the new name.
    #[arg(long)]
    pub rename: bool,

    /// How to read the file back.
    #[arg(long, value_enum, default_value = "whole-file")]
    pub policy: ReadPolicy,

    /// Blocks fetched ahead, in parallel, with --policy prefetch.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub prefetch: usize,

    /// Define a configuration property, e.g. -D fs.s3a.multipart.size=32M (repeatable).
    #[arg(short = 'D', value_name = "KEY=VALUE", action = clap::ArgAction::Append)]
    pub define: Vec<String>,

    /// Load properties from a Hadoop XML configuration file (repeatable; -D wins over it).
    #[arg(long, value_name = "FILE", action = clap::ArgAction::Append)]
    pub xmlfile: Vec<PathBuf>,

    /// Print every block's time and the store's and streams' counters.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// Check every byte read back against what was written.
    #[arg(long)]
    pub verify: bool,

    /// Format of the summary on standard output: text, markdown (the main table) or json (the report).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::export::manager::StdoutFormat,

    /// No progress bar and no preamble: only the summaries.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Bypass the page cache with O_DIRECT (local files). SIZE and --block must be multiples of 4 KiB.
    #[arg(long)]
    pub direct: bool,

    /// fsync the file inside close(), so close() is timed with it.
    #[arg(long)]
    pub fsync_on_close: bool,

    /// Replace the target file if it exists (otherwise storebench refuses to touch it).
    #[arg(long)]
    pub overwrite: bool,

    /// Only download: read the first SIZE bytes of the existing file or object URL names (an http(s)://
    /// URL, a dataset). Nothing is written, renamed or deleted. With --verify and the --seed, --block
    /// and --data a `--keep` run wrote it with, checks every byte of a file storebench wrote earlier.
    #[arg(long, conflicts_with_all = ["rename", "keep", "overwrite", "flush", "hflush", "fsync_on_close"])]
    pub read_only: bool,

    /// Store connection options.
    #[command(flatten)]
    pub store: crate::cli::store::StoreFlags,

    /// Seed of the test data and of the random read order (default: from the clock; the report records it).
    #[arg(long)]
    pub seed: Option<u64>,

    /// What the run controls about what it measures: --data, --drop-cache.
    #[command(flatten)]
    pub controls: crate::cli::ControlArgs,

    /// `--sweep`, `--max-time`, `--yes`.
    #[command(flatten)]
    pub sweep: crate::cli::SweepArgs,
}

impl super::Sweepable for BandwidthArgs {
    const SWEEPS: &'static [&'static str] = &["block", "file-size", "prefetch", "multipart.size", "active.blocks"];

    /// Sets one swept setting (file-size is SIZE).
    fn set(&mut self, key: &str, v: &str) -> Result<(), String> {
        match key {
            "block" => self.block = Some(super::size(key, v)?),
            "file-size" => self.size = super::size(key, v)?,
            "prefetch" => self.prefetch = super::count(key, v)?,
            k => match super::store_key(k) {
                Some(name) => self.define.push(format!("{name}={v}")),
                None => return Err(format!("--sweep {k}: bandwidth sweeps {}", Self::SWEEPS.join(", "))),
            },
        }
        Ok(())
    }
}

impl super::CommandArgs for BandwidthArgs {
    fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
    fn target(&self) -> Option<String> {
        self.url.clone()
    }
}
