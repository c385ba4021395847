//! The [`RunReport`]: everything a run measured, in one serializable value. Every exporter reads only
//! this. Its JSON form is the `--json` file; `schema_version` changes when a field changes meaning.

use super::histogram::HistogramData;
pub use super::latency::LatencyStats;
pub use super::params::*;
use super::sample::Event;
use serde::{Deserialize, Serialize};

/// Version of the report's layout (docs/report-schema.md). Bumped when a field is removed or changes
/// meaning. 2: `transfer` reports carry the envelope of every report and a `transfer` section.
pub const SCHEMA_VERSION: u32 = 2;

/// The result of one storebench run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Version of this layout ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// "storebench".
    pub tool: String,
    /// storebench's version.
    pub version: String,
    /// The subcommand that ran ("bandwidth").
    pub command: String,
    /// When the run started, RFC 3339 UTC.
    pub started_at: String,
    /// The host the run ran on.
    pub host: String,
    /// The target URL as given, without credentials.
    pub target: String,
    /// The I/O engine used, in words.
    pub engine: String,
    /// The workload's parameters.
    pub params: Params,
    /// Per-phase figures (upload, download).
    pub phases: Vec<PhaseReport>,
    /// Per-operation-kind statistics over the whole run.
    pub ops: Vec<OpStats>,
    /// The operations in order, when the workload keeps them (bandwidth on one rank), at most
    /// `event_sampling.cap`: a longer run keeps every `stride`-th.
    pub events: Vec<Event>,
    /// How `events` was sampled from the run's operations (absent when none are kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_sampling: Option<super::sample::EventSampling>,
    /// Counters kept by the store and its streams (shown with `--verbose`).
    pub counters: Vec<CounterGroup>,
    /// Warnings about the configuration.
    pub warnings: Vec<String>,
    /// How the run ended.
    pub outcome: Outcome,
    /// What only this command measured, as one typed section (absent for bandwidth, whose phases say
    /// everything). In JSON it is one top-level key named for the section: `ranges_run`, `dfsio_run`,
    /// `ops_run` or `transfer`.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub section: Option<Section>,
    /// What the probes around the timed phases measured (cores, page-cache residency).
    #[serde(default, skip_serializing_if = "super::probes::Probes::is_empty")]
    pub probes: super::probes::Probes,
    /// What bound the run, most important first (docs/findings.md); empty when nothing was found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<super::probes::Finding>,
    /// Each task's share and where it ran: per rank and phase for bandwidth, per thread for ops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskReport>,
    /// The data the run wrote (`--data`), for commands that write test data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataChoice>,
    /// What `--drop-cache` evicted before each read phase: `files` or `all`; absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_cache: Option<String>,
    /// `--reorder N`: rank r read what rank (r + N) mod ranks wrote; absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder: Option<u32>,
}

/// What the written test data was made of (`--data`; docs/metrics.md, "Test data").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DataChoice {
    /// `random`, `zeros`, `compressible:PCT` or `dedupe:PCT`.
    pub pattern: String,
    /// The seed the content was drawn from (`seed:N`, else the run's seed).
    pub seed: u64,
}

/// The part of a report only one command has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Section {
    /// Strategies and verdict of the ranges workload.
    #[serde(rename = "ranges_run")]
    Ranges(RangesRun),
    /// TestDFSIO's aggregates and figures, and every task, of the dfsio workload.
    #[serde(rename = "dfsio_run")]
    Dfsio(crate::stats::dfsio::DfsioRun),
    /// Repeats and statistics of the ops workload.
    #[serde(rename = "ops_run")]
    Ops(OpsRun),
    /// The runs of the transfer command (source, destination, every method, buffer and run).
    #[serde(rename = "transfer")]
    Transfer(super::transfer::TransferSection),
}

impl RunReport {
    /// The ranges section, when the report has one.
    pub fn ranges_run(&self) -> Option<&RangesRun> {
        match &self.section {
            Some(Section::Ranges(s)) => Some(s),
            _ => None,
        }
    }

    /// The dfsio section, when the report has one.
    pub fn dfsio_run(&self) -> Option<&crate::stats::dfsio::DfsioRun> {
        match &self.section {
            Some(Section::Dfsio(s)) => Some(s),
            _ => None,
        }
    }

    /// The ops section, when the report has one.
    pub fn ops_run(&self) -> Option<&OpsRun> {
        match &self.section {
            Some(Section::Ops(s)) => Some(s),
            _ => None,
        }
    }

    /// The transfer section, when the report has one.
    pub fn transfer(&self) -> Option<&super::transfer::TransferSection> {
        match &self.section {
            Some(Section::Transfer(s)) => Some(s),
            _ => None,
        }
    }

    /// Reads a `--json` report of this version or an earlier one. Version 1's `transfer` files had no
    /// envelope (`source`, `bytes`, `to`, `runs` and `error` at the top): they are read into this
    /// layout, with the fields they lacked left empty.
    pub fn from_json(text: &str) -> Result<RunReport, String> {
        let mut v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not a report: {e}"))?;
        let version = v.get("schema_version").and_then(|n| n.as_u64());
        if version.is_none() && v.get("command").and_then(|c| c.as_str()) == Some("transfer") {
            v = upgrade_v1_transfer(v);
        }
        serde_json::from_value(v).map_err(|e| format!("not a storebench report: {e}"))
    }
}

/// A version 1 `transfer` document in the version 2 layout.
fn upgrade_v1_transfer(v: serde_json::Value) -> serde_json::Value {
    let field = |k: &str| v.get(k).cloned().unwrap_or(serde_json::Value::Null);
    let error = field("error");
    let status = match error.as_str() {
        None => "completed",
        Some("interrupted") => "interrupted",
        Some(_) => "failed",
    };
    serde_json::json!({
        "schema_version": 1,
        "tool": field("tool"),
        "version": field("version"),
        "command": "transfer",
        "started_at": "",
        "host": field("host"),
        "target": field("to"),
        "engine": "",
        "params": { "workload": "transfer" },
        "phases": [], "ops": [], "events": [], "counters": [], "warnings": [],
        "outcome": { "status": status, "error": error },
        "transfer": { "source": field("source"), "bytes": field("bytes"), "to": field("to"), "runs": field("runs") },
    })
}

/// One task's share of a run and where it ran (its MPI rank and host).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    /// The MPI rank that ran it (0 without MPI).
    pub rank: u32,
    /// The host that rank ran on.
    pub host: String,
    /// What it was: "upload" or "download" (bandwidth), "thread K" (ops, K counted over all ranks).
    pub task: String,
    /// The repeat it belongs to (ops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<usize>,
    /// The file or object it worked on.
    pub path: String,
    /// Successful operations (blocks for bandwidth).
    pub ops: u64,
    /// Failed operations.
    pub errors: u64,
    /// Bytes its successful operations moved.
    pub bytes: u64,
    /// Its time: the phase's duration (bandwidth); from the common start to its last operation's
    /// end (ops), seconds.
    pub seconds: f64,
    /// bytes / 2^20 / seconds (0 when seconds is 0).
    pub mib_per_s: f64,
    /// With `--reorder`, the rank whose data this task read (another rank than `rank`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<u32>,
}

impl TaskReport {
    /// Sets `seconds` and the rate that follows from it.
    pub fn timed(mut self, seconds: f64) -> Self {
        self.seconds = seconds;
        self.mib_per_s = crate::units::mib_per_s(self.bytes as f64, seconds);
        self
    }
}

/// Adds counters by name (another rank's) to `into`.
pub fn add_counters(into: &mut Vec<(String, u64)>, from: Vec<(String, u64)>) {
    for (k, v) in from {
        match into.iter_mut().find(|(n, _)| *n == k) {
            Some(c) => c.1 += v,
            None => into.push((k, v)),
        }
    }
}

/// Adds counter groups by scope (another rank's) to `into`.
pub fn add_counter_groups(into: &mut Vec<CounterGroup>, from: Vec<CounterGroup>) {
    for g in from {
        match into.iter_mut().find(|m| m.scope == g.scope) {
            Some(m) => add_counters(&mut m.counters, g.counters),
            None => into.push(g),
        }
    }
}

/// What a ranges run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RangesRun {
    /// One entry per strategy, in the order run.
    pub strategies: Vec<StrategyReport>,
    /// Strategies from fastest to slowest.
    pub verdict: Vec<VerdictRow>,
    /// The link's latency per request: the intercept of time = latency + bytes / bandwidth fitted
    /// through sequential's GETs (else all), seconds.
    pub request_latency_s: f64,
    /// The bandwidth of that fit (one stream), MiB/s.
    pub stream_mib_per_s: f64,
}

/// One strategy's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    /// Its name.
    pub name: String,
    /// GETs per pass.
    pub requests: u64,
    /// Sum of the ranges' lengths.
    pub bytes_needed: u64,
    /// Bytes the GETs of one pass fetched.
    pub bytes_fetched: u64,
    /// The first (cold) pass: from the first GET's start to the last one's end, seconds.
    pub cold_s: f64,
    /// Mean of the warm passes, seconds.
    pub warm_mean_s: Option<f64>,
    /// Fastest warm pass, seconds.
    pub warm_min_s: Option<f64>,
    /// Latency of one GET over every pass (first_byte_mean_s: time to first byte).
    pub request_latency: LatencyStats,
    /// The cold pass's GETs, in the order they started: the first
    /// `workload::ranges::LISTED_REQUESTS` of them.
    pub cold_requests: Vec<RequestReport>,
    /// GETs of the cold pass left out of `cold_requests` (its statistics cover every GET).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cold_requests_omitted: u64,
    /// The bytes were checked and matched.
    pub verified: bool,
}

/// One GET.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestReport {
    /// First byte asked for.
    pub start: u64,
    /// Last byte asked for (inclusive).
    pub end: u64,
    /// end - start + 1.
    pub length: u64,
    /// When it started, seconds after the pass began.
    pub at_s: f64,
    /// From its start to the first byte, seconds.
    pub first_byte_s: f64,
    /// From the first byte to the last, seconds.
    pub transfer_s: f64,
    /// first_byte_s + transfer_s.
    pub total_s: f64,
}

/// A strategy's place in the verdict.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerdictRow {
    /// 1 = fastest.
    pub rank: usize,
    /// The strategy.
    pub strategy: String,
    /// The time ranked: warm mean, or the cold pass without warm passes, seconds.
    pub time_s: f64,
    /// sequential's time / this one's (absent when sequential did not run).
    pub vs_sequential: Option<f64>,
}

/// The repeats of an ops run and the statistics across them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpsRun {
    /// One entry per repeat, in order.
    pub repeats: Vec<RepeatReport>,
    /// Statistics of each figure over all repeats.
    pub statistics: Vec<FigureStats>,
    /// The same over repeats 2..R (the first is often cold), when there are at least 3 repeats.
    pub warm_statistics: Vec<FigureStats>,
    /// The first failures, as messages (at most 5 per repeat).
    pub first_errors: Vec<String>,
}

/// One repeat of an ops run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RepeatReport {
    /// 1-based repeat number.
    pub repeat: usize,
    /// Aggregate figures.
    pub summary: OpsSummary,
    /// Every figure of the repeat by name (see docs/metrics.md), in print order.
    pub figures: Vec<Figure>,
    /// Per-operation-kind statistics of the repeat.
    pub ops: Vec<OpStats>,
    /// Operations and bytes that ended in each second since the repeat's start.
    pub per_second: Vec<SecondSample>,
}

/// One named figure of a repeat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Its name ("ops_per_s", "ReadRate(B/S)", ...).
    pub name: String,
    /// Its unit ("1/s", "B/s", "s", "B", "MiB/s").
    pub unit: String,
    /// Its value.
    pub value: f64,
}

/// Operations that ended in one second of a repeat.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondSample {
    /// Second since the repeat's start (0 = [0 s, 1 s)).
    pub second: u64,
    /// Successful operations that ended in it.
    pub ops: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Operations that failed in it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: u64,
    /// With a mix of operations: the successful ones of each, by name (absent for one operation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_op: Vec<(String, u64)>,
}

/// A figure's statistics across repeats (Google Benchmark's aggregates, as the Doris seed prints).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureStats {
    /// The figure's name.
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// Number of repeats.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (mean of the two middle values for an even n).
    pub median: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one repeat).
    pub stddev: f64,
    /// Coefficient of variation: stddev / mean (0 when the mean is 0).
    pub cv: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

/// Aggregate figures of an ops run, defined in docs/metrics.md.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpsSummary {
    /// Successful operations, all threads.
    pub ops: u64,
    /// Failed operations.
    pub errors: u64,
    /// Bytes moved by the successful operations.
    pub bytes: u64,
    /// From the common start (the barrier) to the end of the last thread's last operation, seconds.
    pub wall_s: f64,
    /// ops / wall_s.
    pub ops_per_s: f64,
    /// bytes / 2^20 / wall_s.
    pub mib_per_s: f64,
    /// From the common start to the end of the first thread to finish, seconds ("first done").
    pub stonewall_s: f64,
    /// Operations that had ended by stonewall_s.
    pub stonewall_ops: u64,
    /// Bytes moved by the operations that had ended by stonewall_s.
    pub stonewall_bytes: u64,
    /// stonewall_bytes / 2^20 / stonewall_s.
    pub stonewall_mib_per_s: f64,
    /// Latency of one whole operation (create + writes + close, or open + reads + close).
    pub latency: LatencyStats,
    /// CPU time of the process during the run.
    pub cpu: CpuReport,
}

/// Figures of one phase (upload or download), defined in docs/metrics.md.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseReport {
    /// "upload" or "download".
    pub name: String,
    /// Bytes moved by the phase's successful block operations.
    pub bytes: u64,
    /// Wall time of the phase, from the start of create/open to the end of close(), seconds.
    pub duration_s: f64,
    /// bytes / 2^20 / duration_s ("Megabytes/second", MiB/s as cloudstore prints it).
    pub mbyte_per_s: f64,
    /// bytes * 8 / 2^20 / duration_s ("Megabits/second").
    pub mbit_per_s: f64,
    /// Latency of the block operations.
    pub blocks: LatencyStats,
    /// Time of create (upload) or open (download), seconds.
    pub open_s: Option<f64>,
    /// Time of close(), seconds.
    pub close_s: Option<f64>,
    /// (sum of block times + close time) / number of blocks, seconds.
    pub mean_per_block_incl_close_s: Option<f64>,
    /// CPU time of the process during the phase.
    pub cpu: CpuReport,
    /// The phase ran to its end (false when a run failed or was interrupted in it).
    pub complete: bool,
}

/// CPU cost of a phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuReport {
    /// User-mode CPU seconds of the process.
    pub user_s: f64,
    /// Kernel CPU seconds of the process.
    pub system_s: f64,
    /// user_s + system_s.
    pub total_s: f64,
    /// total_s / (bytes / 2^30): CPU seconds per GiB moved (None when no bytes moved).
    pub s_per_gib: Option<f64>,
}

/// Statistics of one kind of operation over the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    /// The operation's name (as in the CSV log).
    pub op: String,
    /// Bytes moved by the successful operations.
    pub bytes: u64,
    /// Latency figures.
    pub latency: LatencyStats,
    /// The latency histogram, mergeable with other runs' and ranks'.
    pub histogram: HistogramData,
}

/// Counters from one source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterGroup {
    /// Where the counters come from ("store", "upload stream", "download stream").
    pub scope: String,
    /// Name and value of each counter.
    pub counters: Vec<(String, u64)>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// "completed", "failed" or "interrupted".
    pub status: Status,
    /// What went wrong, when it did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

/// The end state of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Everything ran.
    Completed,
    /// An operation failed and the run stopped; the figures cover what was done.
    Failed,
    /// Stopped by Ctrl-C; the figures cover what was done.
    Interrupted,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
