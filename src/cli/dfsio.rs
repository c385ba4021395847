//! Arguments of `storebench dfsio` (Hadoop's TestDFSIO), with TestDFSIO's names and defaults.

use clap::{ArgGroup, Args};
use std::path::PathBuf;

/// TestDFSIO's single-dash spellings and the options they mean.
pub const SINGLE_DASH: &[(&str, &str)] = &[
    ("-write", "--write"),
    ("-read", "--read"),
    ("-append", "--append"),
    ("-clean", "--clean"),
    ("-nrFiles", "--nr-files"),
    ("-fileSize", "--file-size"),
    ("-size", "--file-size"),
    ("-bufferSize", "--buffer-size"),
    ("-resFile", "--res-file"),
    ("-rootDir", "--root-dir"),
    ("-random", "--random"),
    ("-backward", "--backward"),
    ("-skip", "--skip"),
    ("-skipSize", "--skip-size"),
    ("-threads", "--threads"),
    ("-json", "--json"),
];

/// `storebench dfsio` arguments.
#[derive(Clone, Debug, Args)]
#[command(
    group(ArgGroup::new("mode").required(true).args(["write", "read", "append", "clean"])),
    group(ArgGroup::new("order").args(["random", "backward", "skip"])),
    after_help = "TestDFSIO's spellings work too: -write -nrFiles 4 -fileSize 64MB -resFile r.txt -rootDir URL. \
Files are ROOT/io_data/test_io_0..N-1, one task per file. -fileSize takes B, KB, MB, GB, TB (binary; a bare \
number is MB, as in TestDFSIO)."
)]
pub struct DfsioArgs {
    /// Write nrFiles files of fileSize (replacing the benchmark's own files from an earlier -write).
    #[arg(long)]
    pub write: bool,
    /// Read the files -write made.
    #[arg(long)]
    pub read: bool,
    /// Append fileSize bytes to each file -write made.
    #[arg(long)]
    pub append: bool,
    /// Remove the benchmark's files and its io_data directory (and the root directory when empty).
    #[arg(long)]
    pub clean: bool,

    /// Number of files, one task each (TestDFSIO's map tasks).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub nr_files: u64,
    /// Size of each file: B, KB, MB, GB, TB (binary); a bare number is MB.
    #[arg(long, default_value = "1MB", value_name = "SIZE")]
    pub file_size: String,
    /// Bytes per read or write call.
    #[arg(long, default_value_t = 1_000_000, value_name = "BYTES")]
    pub buffer_size: u64,

    /// What the run controls about what it measures: --data, --drop-cache.
    #[command(flatten)]
    pub controls: crate::cli::ControlArgs,

    /// `--sweep`, `--max-time`, `--yes`.
    #[command(flatten)]
    pub sweep: crate::cli::SweepArgs,
    /// Local file the results are appended to (TestDFSIO's -resFile).
    #[arg(long, default_value = "TestDFSIO_results.log", value_name = "FILE")]
    pub res_file: PathBuf,
    /// Root of the benchmark's files (a URL or path). Default: fs.defaultFS/benchmarks/TestDFSIO when
    /// fs.defaultFS is configured, else benchmarks/TestDFSIO under the system's temporary directory.
    #[arg(long, value_name = "URL")]
    pub root_dir: Option<String>,

    /// -read at random offsets (fileSize bytes in bufferSize reads).
    #[arg(long, requires = "read")]
    pub random: bool,
    /// -read from the end of each file towards its start.
    #[arg(long, requires = "read")]
    pub backward: bool,
    /// -read a buffer, skip skipSize bytes, and so on to the end.
    #[arg(long, requires = "read")]
    pub skip: bool,
    /// Bytes skipped after each buffer with -skip (default: bufferSize).
    #[arg(long, requires = "skip", value_name = "BYTES")]
    pub skip_size: Option<u64>,

    /// Tasks run at once in this process (default: nrFiles, at most 64).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Write the run (aggregates, every task with its rank and host) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the report as one self-contained HTML page with charts to this file (as `storebench
    /// report` would from the JSON).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Format of the summary on standard output: text, markdown (the main table) or json (the report).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::export::manager::StdoutFormat,

    /// Only the results, no progress.
    #[arg(short, long)]
    pub quiet: bool,

    /// Store configuration.
    #[command(flatten)]
    pub config: crate::cli::store::StoreArgs,
}

impl super::Sweepable for DfsioArgs {
    const SWEEPS: &'static [&'static str] =
        &["threads", "file-size", "buffer-size", "nrFiles", "multipart.size", "active.blocks"];

    /// Sets one swept setting (file-size is -fileSize, in bytes; buffer-size -bufferSize).
    fn set(&mut self, key: &str, v: &str) -> Result<(), String> {
        match key {
            "threads" => self.threads = Some(super::count(key, v)?),
            "file-size" => self.file_size = format!("{}B", super::size(key, v)?),
            "buffer-size" => self.buffer_size = super::size(key, v)?,
            "nrFiles" => self.nr_files = super::count(key, v)?,
            k => match super::store_key(k) {
                Some(name) => self.config.define.push(format!("{name}={v}")),
                None => return Err(format!("--sweep {k}: dfsio sweeps {}", Self::SWEEPS.join(", "))),
            },
        }
        Ok(())
    }
}

impl super::CommandArgs for DfsioArgs {
    fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
    fn target(&self) -> Option<String> {
        self.root_dir.clone()
    }
}
