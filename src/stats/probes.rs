//! What the findings rest on beyond the figures, and the findings themselves, as report types: the
//! probes taken outside the timed phases (cores, page-cache residency, dirty bytes, CPU wait) and a
//! [`Finding`]. Types only; the rules that read them are in `stats::findings`.

use serde::{Deserialize, Serialize};

/// What the small probes around the timed phases measured (never inside a timed region).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Probes {
    /// CPUs this process may run on (sched_getaffinity), per rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// Page-cache residency of the files about to be read, per rank and phase (local files only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub page_cache: Vec<Residency>,
    /// Data a write phase left dirty in the page cache, per rank and phase (local files written
    /// without --direct, --fsync-on-close or --hflush).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dirty: Vec<Dirty>,
    /// Time the process's threads waited for a CPU during each phase, per rank (schedstat).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_wait: Vec<CpuWait>,
    /// This host's memory bandwidth, measured at the start (rank 0's host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryProbe>,
    /// The network link to a remote store, when the endpoint is not on this host and the interface
    /// reports its speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkProbe>,
}

/// This host's memory bandwidth: threads copying a 32 MiB source into 1 MiB buffers (run::probe).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryProbe {
    /// Bytes copied over the probe's wall time, MiB/s.
    pub mib_per_s: f64,
    /// Threads that copied (one per usable core, at most 8).
    pub threads: u32,
    /// Time the probe took, seconds (before the run).
    pub probe_s: f64,
}

/// The link a remote store's bytes cross.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkProbe {
    /// The endpoint (host:port, no credentials).
    pub endpoint: String,
    /// The network interface the kernel routes it through.
    pub interface: String,
    /// Its speed as the kernel reports it (/sys/class/net/IF/speed), Mbit/s.
    pub mbit_per_s: u64,
    /// Time the probe took, seconds.
    pub probe_s: f64,
}

/// Time a rank's threads were runnable but not running during a phase: with the CPU they used, what
/// the phase asked of the processor, whatever else the host was running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuWait {
    /// The phase ("upload", "download").
    pub phase: String,
    /// The rank.
    pub rank: u32,
    /// Seconds spent waiting for a CPU (run delay in /proc/self/task/*/schedstat).
    pub wait_s: f64,
}

/// How much of what a write phase wrote was still unwritten to the device when it ended: the growth
/// of the kernel's Dirty + Writeback (/proc/meminfo) over the phase, at most the bytes written.
/// System-wide, so other writers on the host add to it; the evidence says so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dirty {
    /// The write phase ("upload").
    pub phase: String,
    /// The rank that wrote.
    pub rank: u32,
    /// Growth of Dirty + Writeback over the phase, capped at `written_bytes`.
    pub dirty_bytes: u64,
    /// Bytes the phase wrote.
    pub written_bytes: u64,
}

impl Probes {
    /// True when no probe measured anything.
    pub fn is_empty(&self) -> bool {
        self.cores.is_none()
            && self.page_cache.is_empty()
            && self.dirty.is_empty()
            && self.cpu_wait.is_empty()
            && self.memory.is_none()
            && self.link.is_none()
    }
}

/// How much of a file was in the page cache just before a phase read it (mincore, as fincore does).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Residency {
    /// The phase about to read ("download").
    pub phase: String,
    /// The rank whose file it was.
    pub rank: u32,
    /// Bytes of the range about to be read that were resident.
    pub resident_bytes: u64,
    /// Bytes of that range.
    pub file_bytes: u64,
    /// Time the probe took, seconds (outside the timed phase).
    pub probe_s: f64,
    /// The files had just been evicted (`--drop-cache`): what is resident stayed despite it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evicted: bool,
}

/// One finding: a verdict, the figures it rests on (named as in docs/metrics.md) and what to try.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule that fired (docs/findings.md).
    pub rule: String,
    /// One line: what bound the run.
    pub verdict: String,
    /// The figures it rests on.
    pub evidence: Vec<String>,
    /// What to try.
    pub advice: String,
    /// Figures this finding marks as suspect, named as in docs/metrics.md ("download mbyte_per_s").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect: Vec<String>,
}
