//! Arguments of `storebench transfer` (HADOOP-3164: zero-copy vs copying paths, judged on CPU).

use crate::units::parse_size;
use crate::workload::transfer::Method;
use clap::Args;
use std::path::PathBuf;

/// `storebench transfer` arguments.
#[derive(Clone, Debug, Args)]
#[command(after_help = "Sender CPU is the sending thread's own (getrusage RUSAGE_THREAD); the receiver's is \
reported apart. On loopback the receiver's copy and the kernel's network work share the same cores: see \
docs/metrics.md.")]
pub struct TransferArgs {
    /// The file to send (default: a file of --size made in the temporary directory and removed after).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Size of the file made when no FILE is given.
    #[arg(long, value_parser = parse_size, default_value = "1g", conflicts_with = "file")]
    pub size: u64,
    /// Methods, comma-separated: read-write, sendfile, splice, mmap, io-uring, copy-file-range (files
    /// only), all.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    pub method: Vec<Method>,
    /// read-write's buffer sizes, comma-separated; the smallest is the baseline.
    #[arg(long, value_delimiter = ',', value_parser = parse_size, default_value = "4k,64k,128k,1m")]
    pub buffer: Vec<u64>,
    /// Send to a `storebench transfer --serve` receiver on another host.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["to_file", "serve"])]
    pub to: Option<String>,
    /// Send to a receiver in this process on 127.0.0.1 (the default).
    #[arg(long, conflicts_with_all = ["to", "to_file", "serve"])]
    pub loopback: bool,
    /// Copy to this file instead of a socket (it must not exist; it is removed after each run).
    #[arg(long, value_name = "PATH", conflicts_with = "serve")]
    pub to_file: Option<PathBuf>,
    /// Runs of each method and buffer.
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// Evict the file from the page cache before each run (posix_fadvise DONTNEED).
    #[arg(long)]
    pub drop_cache: bool,
    /// Read with O_DIRECT (read-write only; buffers must be multiples of 4 KiB).
    #[arg(long)]
    pub direct: bool,
    /// The receiver checksums what it gets (CRC32) and the sender checks it; costs receiver CPU.
    #[arg(long)]
    pub verify: bool,
    /// Run a receiver on [HOST:]PORT for senders on other hosts (host 127.0.0.1 unless --bind or
    /// HOST says otherwise).
    #[arg(long, value_name = "[HOST:]PORT")]
    pub serve: Option<String>,
    /// With --serve: the address to listen on, e.g. 0.0.0.0 for every interface (default 127.0.0.1).
    #[arg(long, value_name = "ADDR", requires = "serve")]
    pub bind: Option<String>,
    /// With --serve: stop after this many transfers (at least 1).
    #[arg(long, value_name = "N", requires = "serve")]
    pub max_connections: Option<u64>,
    /// Seconds to wait for a silent peer (a receiver that takes no bytes or never confirms them, a
    /// sender that sends nothing) before giving up on it.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::workload::transfer::DEFAULT_TIMEOUT.as_secs())]
    pub timeout: u64,
    /// Write every run as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the report as one self-contained HTML page with charts to this file (as `storebench
    /// report` would from the JSON).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Format of the summary on standard output: text, markdown (the main table) or json (the report).
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::export::manager::StdoutFormat,

    /// Only the table.
    #[arg(short, long)]
    pub quiet: bool,
}

impl super::CommandArgs for TransferArgs {
    fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
    fn target(&self) -> Option<String> {
        self.file.as_ref().map(|f| f.display().to_string())
    }
}
