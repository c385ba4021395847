//! Workloads decide WHAT operations happen and in which order; they talk only to the `Store` trait.

pub mod bandwidth;
pub mod data;
pub mod dfsio;
pub mod ops;
pub mod ranges;
pub mod transfer;

use crate::stats::findings::Residency;
use crate::stats::report::{Outcome, Params, RunReport, Status, SCHEMA_VERSION};
use crate::store::Target;

/// A report with what every workload fills the same way: tool, host, target, engine, parameters and
/// outcome. The workload adds its figures (phases, ops, events, counters, its section).
pub fn base_report(
    command: &str,
    target: &Target,
    engine: String,
    params: Params,
    failure: Option<&Failure>,
    started_at: String,
) -> RunReport {
    let url = if target.store.url() == "file://" {
        target.path.clone()
    } else {
        format!("{}{}", target.store.url(), target.path)
    };
    let mut report = envelope(command, &url, engine, params, failure, started_at);
    report.warnings = target.warnings.clone();
    report.probes.link = target.store.remote().and_then(|r| crate::run::probe::link(&r));
    report
}

/// The envelope of every report (docs/report-schema.md), for a target given as text (credentials are
/// removed from it); no figures yet.
pub fn envelope(
    command: &str,
    target: &str,
    engine: String,
    params: Params,
    failure: Option<&Failure>,
    started_at: String,
) -> RunReport {
    let (status, error) = match failure {
        None => (Status::Completed, None),
        Some(Failure::Failed(m)) => (Status::Failed, Some(m.clone())),
        Some(Failure::Interrupted) => (Status::Interrupted, Some(crate::run::signal::describe())),
    };
    RunReport {
        schema_version: SCHEMA_VERSION,
        tool: "storebench".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: command.into(),
        started_at,
        host: crate::run::host_name(),
        target: crate::store::redact_url(target),
        engine,
        params,
        phases: Vec::new(),
        ops: Vec::new(),
        events: Vec::new(),
        event_sampling: None,
        counters: Vec::new(),
        warnings: Vec::new(),
        outcome: Outcome { status, error },
        section: None,
        probes: crate::stats::findings::Probes {
            cores: crate::run::usable_cores(),
            memory: crate::run::probe::memory(),
            ..Default::default()
        },
        findings: Vec::new(),
        tasks: Vec::new(),
        data: None,
        drop_cache: None,
        reorder: None,
    }
}

/// `--reorder N`: the rank whose data rank `rank` of `ranks` reads, (rank + N) mod ranks.
pub fn reorder_source(rank: u32, ranks: u32, n: u32) -> u32 {
    ((rank as u64 + n as u64) % ranks.max(1) as u64) as u32
}

/// Checks `--reorder N` against the number of ranks: it needs several, and N mod ranks must not be 0
/// (every rank would read its own data).
pub fn check_reorder(n: Option<u32>, ranks: u32) -> Result<(), String> {
    match n {
        None => Ok(()),
        Some(n) if ranks <= 1 => Err(format!(
            "--reorder {n} needs several MPI ranks (rank r reads what rank (r + {n}) mod ranks wrote), and this run \
             has one: start it with mpirun -np 2 or more, or leave --reorder out"
        )),
        Some(n) if n % ranks == 0 => Err(format!(
            "--reorder {n} on {ranks} ranks makes every rank read its own data: give N from 1 to {} (e.g. the \
             ranks per node, so each rank reads what another node wrote)",
            ranks - 1
        )),
        Some(_) => Ok(()),
    }
}

/// Parses `--reorder N` (N >= 1).
pub fn parse_reorder(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "invalid --reorder '{s}': a whole number from 1 up (rank r reads what rank (r + N) mod ranks wrote)"
        )),
    }
}

/// `--drop-cache`: what is evicted from this host's page cache before each read phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCache {
    /// The files about to be read: fsync, then posix_fadvise(DONTNEED).
    Files,
    /// Those, then every clean page of the host (sync; 3 > /proc/sys/vm/drop_caches): root only.
    All,
}

/// Parses `--drop-cache[=files|all]`.
pub fn parse_drop_cache(s: &str) -> Result<DropCache, String> {
    match s {
        "files" => Ok(DropCache::Files),
        "all" => Ok(DropCache::All),
        _ => Err(format!("invalid --drop-cache '{s}': files (the default: the files about to be read) or all (the whole page cache, as root)")),
    }
}

impl DropCache {
    /// The report's name of it (`drop_cache` in JSON).
    pub fn name(self) -> &'static str {
        match self {
            DropCache::Files => "files",
            DropCache::All => "all",
        }
    }
}

/// Before a read phase: evicts `files` from the page cache when `drop` asks (outside the timed
/// phase), then probes how much of them is resident; with `drop`, what stayed is marked so, and the
/// findings say it.
pub fn before_read(
    target: &Target,
    files: &[(String, u64)],
    phase: &str,
    rank: u32,
    drop: Option<DropCache>,
) -> Result<Option<Residency>, String> {
    if let Some(d) = drop {
        for (path, _) in files {
            target.store.evict(path).map_err(|e| format!("--drop-cache: {e}"))?;
        }
        if d == DropCache::All {
            // SAFETY: sync takes no arguments.
            unsafe { libc::sync() };
            std::fs::write("/proc/sys/vm/drop_caches", "3").map_err(|e| {
                format!("--drop-cache=all writes /proc/sys/vm/drop_caches, which needs root ({e}); --drop-cache evicts the files read")
            })?;
        }
    }
    Ok(residency(target, files, phase, rank).map(|r| Residency { evicted: drop.is_some(), ..r }))
}

/// How much of `files` (each a path and the bytes about to be read from its start) is in this host's
/// page cache: one timed probe for `phase`, taken outside the timed phases by every workload that
/// reads. None when a file is missing or the store cannot tell (only local files can).
fn residency(target: &Target, files: &[(String, u64)], phase: &str, rank: u32) -> Option<Residency> {
    let t0 = std::time::Instant::now();
    let mut resident_bytes = 0;
    for (path, len) in files {
        resident_bytes += target.store.resident_bytes(path, *len)?;
    }
    Some(Residency {
        phase: phase.into(),
        rank,
        resident_bytes,
        file_bytes: files.iter().map(|f| f.1).sum(),
        probe_s: t0.elapsed().as_secs_f64(),
        evicted: false,
    })
}

/// Why a workload stopped before its end.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// An operation failed; the message says which and why.
    Failed(String),
    /// The user asked to stop (Ctrl-C).
    Interrupted,
}
