//! The parameters every report records (`params` in JSON), one struct per command.

use serde::{Deserialize, Serialize};

/// Parameters of the workload that ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "workload", rename_all = "snake_case")]
pub enum Params {
    /// `storebench bandwidth`.
    Bandwidth(BandwidthParams),
    /// `storebench ops`.
    Ops(OpsParams),
    /// `storebench ranges`.
    Ranges(RangesParams),
    /// `storebench dfsio`.
    Dfsio(DfsioParams),
    /// `storebench transfer`.
    Transfer(super::transfer::TransferParams),
}

/// Parameters of a dfsio run (TestDFSIO's names).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DfsioParams {
    /// write, read, append or clean.
    pub mode: crate::stats::dfsio::Mode,
    /// The order of -read.
    pub order: crate::stats::dfsio::ReadOrder,
    /// -nrFiles.
    pub nr_files: u64,
    /// -fileSize, bytes.
    pub file_size: u64,
    /// -bufferSize, bytes.
    pub buffer_size: u64,
    /// Tasks at once per process.
    pub threads: usize,
    /// Processes (MPI ranks; 1 without MPI).
    pub ranks: u32,
}

/// Parameters of a ranges run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangesParams {
    /// The object read, relative to the store's root.
    pub path: String,
    /// Its size in bytes.
    pub object_size: u64,
    /// The ranges as (start, end) with an inclusive end.
    pub ranges: Vec<(u64, u64)>,
    /// Strategies run, in order.
    pub strategies: Vec<String>,
    /// split's largest piece, bytes.
    pub split_size: u64,
    /// coalesce's largest gap merged, bytes.
    pub coalesce_gap: u64,
    /// GETs in flight at most.
    pub concurrency: usize,
    /// Warm passes after the cold one.
    pub warm: usize,
    /// Seed of --generate and --prepare.
    pub seed: u64,
    /// Bytes were checked.
    pub verify: bool,
}

/// Parameters of an ops run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpsParams {
    /// The operation, or "mix".
    pub op: String,
    /// The mix's operations and weights (one entry of weight 1 for a single operation).
    pub mix: Vec<(String, u32)>,
    /// Repeats of the whole measurement.
    pub repeats: usize,
    /// Operations per second for all threads together, when limited.
    pub rate: Option<f64>,
    /// The file single_read and prefetch_read read.
    pub file_path: Option<String>,
    /// single_read at random offsets.
    pub random: bool,
    /// Seed of the mix and random choices.
    pub seed: u64,
    /// Worker threads, each on its own file test_K.
    pub threads: usize,
    /// Operations per thread, when the run was bounded by count.
    pub iterations: Option<u64>,
    /// Seconds the run lasted at most, when bounded by time.
    pub duration_s: Option<f64>,
    /// Bytes written or read per operation.
    pub file_size: u64,
    /// Bytes per write or read call.
    pub buffer_size: u64,
    /// The run directory, relative to the store's root.
    pub path: String,
    /// Processes (MPI ranks), each running `threads` threads.
    #[serde(default = "one")]
    pub ranks: u32,
}

/// Parameters of a bandwidth run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BandwidthParams {
    /// Bytes uploaded then downloaded.
    pub size: u64,
    /// Bytes per block write and block read.
    pub block: u64,
    /// Number of blocks: ceil(size / block).
    pub blocks: u64,
    /// The read policy: whole-file, sequential or random.
    pub policy: String,
    /// The path written, relative to the store's root.
    pub path: String,
    /// Each block was handed to the OS after writing (`--flush`).
    pub flush: bool,
    /// Each block was made durable after writing (`--hflush`).
    pub hflush: bool,
    /// O_DIRECT was used (`--direct`).
    pub direct: bool,
    /// close() included an fsync (`--fsync-on-close`).
    pub fsync_on_close: bool,
    /// Only an existing file was downloaded (`--read-only`); absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The file was renamed before the download (`--rename`).
    pub rename: bool,
    /// The file was kept (`--keep`).
    pub keep: bool,
    /// Every byte read was checked (`--verify`).
    pub verify: bool,
    /// Seed of the test data and of the random read order.
    pub seed: u64,
    /// Blocks fetched ahead with the prefetch policy.
    #[serde(default)]
    pub prefetch: usize,
    /// Processes (MPI ranks), each with its own file `<path>.rank<R>` when more than 1.
    #[serde(default = "one")]
    pub ranks: u32,
}

fn one() -> u32 {
    1
}
