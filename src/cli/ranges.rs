//! Arguments of `storebench ranges` (the GeoTrellis S3 range-read ADR).

use crate::units::parse_size;
use crate::workload::ranges::Strategy;
use clap::Args;
use std::path::PathBuf;

/// `storebench ranges URL [options]`
#[derive(Clone, Debug, Args)]
#[command(after_help = "Ranges: START-END with an inclusive end (HTTP Range, setRange(start, end)) or START,LENGTH. \
--generate 6:64k,6:2m makes 6 ranges of 64 KiB and 6 of 2 MiB, seeded, each pair starting at one offset.")]
pub struct RangesArgs {
    /// The object (or file) to read; with --prepare SIZE it is written first and removed after.
    #[arg(value_name = "URL")]
    pub url: String,

    /// A file with one range per line: START-END (inclusive) or START,LENGTH; # starts a comment.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["range", "generate"])]
    pub ranges: Option<PathBuf>,

    /// A range on the command line (repeatable): START-END (inclusive) or START,LENGTH.
    #[arg(long, value_name = "RANGE", conflicts_with = "generate")]
    pub range: Vec<String>,

    /// Generate N ranges of SIZE (repeatable groups, comma-separated), seeded, spread through the
    /// object; the i-th range of every group starts at the same offset (as the seed's pairs).
    #[arg(long, value_name = "N:SIZE[,N:SIZE]")]
    pub generate: Option<String>,

    /// The strategies, comma-separated (e.g. sequential,parallel), or all of them.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    pub strategy: Vec<Strategy>,

    /// split: the largest piece one GET fetches.
    #[arg(long, value_parser = parse_size, default_value = "10k")]
    pub split_size: u64,

    /// coalesce: ranges at most this far apart become one GET.
    #[arg(long, value_parser = parse_size, default_value = "1m")]
    pub coalesce_gap: u64,

    /// GETs in flight at most (parallel, split, coalesce).
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,

    /// Warm passes after the first (cold) one; their mean and minimum are reported.
    #[arg(long, default_value_t = 3)]
    pub warm: usize,

    /// Write a test object of SIZE at URL first (refused if URL exists) and remove it after.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub prepare: Option<u64>,

    /// Check every returned byte against the object.
    #[arg(long)]
    pub verify: bool,

    /// Seed of --generate and of the --prepare data (default: from the clock; the report records it).
    #[arg(long)]
    pub seed: Option<u64>,

    /// What the run controls about what it measures: --data, --drop-cache.
    #[command(flatten)]
    pub controls: crate::cli::ControlArgs,

    /// `--sweep`, `--max-time`, `--yes`.
    #[command(flatten)]
    pub sweep: crate::cli::SweepArgs,

    /// Write the whole report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the report as one self-contained HTML page with charts to this file (as `storebench
    /// report` would from the JSON).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Format of the summary on standard output: text, markdown (the main table) or json (the report).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::export::manager::StdoutFormat,

    /// Print only the per-strategy figures and the verdict (no line per request).
    #[arg(short, long)]
    pub quiet: bool,

    /// Store configuration: -D, --xmlfile and the connection flags.
    #[command(flatten)]
    pub config: crate::cli::store::StoreArgs,
}

impl super::Sweepable for RangesArgs {
    const SWEEPS: &'static [&'static str] = &["concurrency"];

    /// Sets one swept setting.
    fn set(&mut self, key: &str, v: &str) -> Result<(), String> {
        match key {
            "concurrency" => self.concurrency = super::count(key, v)?,
            k => return Err(format!("--sweep {k}: ranges sweeps {}", Self::SWEEPS.join(", "))),
        }
        Ok(())
    }
}

impl super::CommandArgs for RangesArgs {
    fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
    fn target(&self) -> Option<String> {
        Some(self.url.clone())
    }
}
