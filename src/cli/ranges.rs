//! Arguments of `storebench ranges` (the GeoTrellis S3 range-read ADR).

use crate::units::parse_size;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How the ranges are fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Strategy {
    /// One GET per range, one after the other.
    Sequential,
    /// One GET per range, at most --concurrency in flight.
    Parallel,
    /// Every range cut into pieces of at most --split-size, at most --concurrency in flight.
    Split,
    /// Ranges closer than --coalesce-gap merged into one GET (vectored IO), --concurrency in flight.
    Coalesce,
    /// One GET of the span covering every range.
    Whole,
    /// Every strategy above, one after the other.
    All,
}

impl Strategy {
    /// The strategies `all` stands for, in report order.
    pub const EACH: [Strategy; 5] =
        [Strategy::Sequential, Strategy::Parallel, Strategy::Split, Strategy::Coalesce, Strategy::Whole];

    /// The strategy's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Sequential => "sequential",
            Strategy::Parallel => "parallel",
            Strategy::Split => "split",
            Strategy::Coalesce => "coalesce",
            Strategy::Whole => "whole",
            Strategy::All => "all",
        }
    }
}

/// `storebench ranges URL [options]`
#[derive(Debug, Args)]
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

    /// Write the whole report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print only the per-strategy figures and the verdict (no line per request).
    #[arg(short, long)]
    pub quiet: bool,

    /// Store configuration: -D, --xmlfile and the connection flags.
    #[command(flatten)]
    pub config: crate::plan::StoreArgs,
}
