//! Findings: what bound a run, said from its report. Every rule reads the [`RunReport`] only (what
//! the probes measured is in `report.probes`), has its threshold as a named constant, and is
//! documented in docs/findings.md. [`of`] runs every rule, most important first; nothing is said
//! where nothing is found.

pub use super::probes::{CpuWait, Dirty, Finding, Probes, Residency};
use super::report::{RunReport, Section};

mod impossible;
mod latency;
pub use impossible::{impossible, phase_figure, repeat_figure, throughputs, LINK_FACTOR, MEMORY_FACTOR};
pub use latency::latency_bound;

/// A read phase whose file was at least this resident (percent) measured memory, not the device.
pub const PAGE_CACHE_PCT: f64 = 50.0;
/// Residency after `--drop-cache` from which the page_cache finding reports what stayed.
pub const DROPPED_PCT: f64 = 1.0;
/// Requests that spent at least this share of their time waiting for the first byte were bound by
/// the link's latency.
pub const LATENCY_SHARE: f64 = 0.5;
/// A write phase that left at least this much (percent) of its bytes dirty measured the page cache.
pub const DIRTY_PCT: f64 = 50.0;
/// A phase whose process CPU per wall second reached this share of its usable cores was bound by
/// the client's CPU.
pub const CPU_SATURATED_SHARE: f64 = 0.9;
/// An upload whose close() took at least this share of the phase did its work in close().
pub const CLOSE_SHARE: f64 = 0.5;
/// Stonewall and whole-run rates further apart than this (relative) mean a few tasks held it up.
pub const STRAGGLER_GAP: f64 = 0.2;
/// Repeats whose throughput varies more than this (coefficient of variation) are unstable.
pub const UNSTABLE_CV: f64 = 0.10;
/// A transfer's one sending thread busy this share of the wall time has little left to wait on the
/// link: the rest is the receiver's pace.
pub const SENDER_BUSY_SHARE: f64 = 0.8;
/// Transfer runs shorter than this (seconds) are left out of [`sender_cpu_bound`].
pub const MIN_TRANSFER_S: f64 = 0.1;
/// A first repeat slower than the others' mean by more than this share was cold.
pub const COLD_FIRST_GAP: f64 = 0.2;
/// A repeat with fewer operations than this has no tail: its p99 is its slowest operation.
pub const MIN_OPS: u64 = 100;
/// A timed phase shorter than this (seconds) says little: start-up and timer effects dominate.
pub const SHORT_PHASE_S: f64 = 0.5;
/// HTTP counters that mean the store pushed back or the network failed.
const PUSHBACK: &[&str] = &["http_retries", "http_throttled", "http_5xx", "http_transport_errors"];

/// Every finding of a report, most important first.
pub fn of(r: &RunReport) -> Vec<Finding> {
    let rules: &[fn(&RunReport) -> Vec<Finding>] = &[
        impossible,
        page_cache,
        writes_in_cache,
        cpu_saturated,
        latency_bound,
        sender_cpu_bound,
        upload_in_close,
        stragglers,
        reorder_same_host,
        pushback,
        unstable,
        cold_first,
        few_ops,
        short_phases,
    ];
    rules.iter().flat_map(|rule| rule(r)).collect()
}

/// Whether a finding of the report marked this figure (named as in docs/metrics.md) as suspect.
pub fn suspect(r: &RunReport, figure: &str) -> bool {
    r.findings.iter().any(|f| f.suspect.iter().any(|s| s == figure))
}

fn finding(rule: &str, verdict: String, evidence: Vec<String>, advice: &str) -> Finding {
    Finding { rule: rule.into(), verdict, evidence, advice: advice.into(), suspect: Vec::new() }
}

/// Per phase, a part and a whole summed over the ranks' probes, for the phases where part / whole
/// reaches `threshold` percent: (phase, part, whole, percent).
fn shares_at_least<'a, I>(probes: I, threshold: f64) -> Vec<(&'a str, u64, u64, f64)>
where
    I: Iterator<Item = (&'a str, u64, u64)> + Clone,
{
    let mut phases: Vec<&str> = probes.clone().map(|p| p.0).collect();
    phases.sort_unstable();
    phases.dedup();
    phases
        .into_iter()
        .filter_map(|phase| {
            let (part, whole) =
                probes.clone().filter(|p| p.0 == phase).fold((0u64, 0u64), |(a, b), p| (a + p.1, b + p.2));
            let pct = part as f64 * 100.0 / whole as f64;
            (whole > 0 && pct >= threshold).then_some((phase, part, whole, pct))
        })
        .collect()
}

/// Reads served from the page cache: residency before a read phase at or above [`PAGE_CACHE_PCT`],
/// or at or above [`DROPPED_PCT`] when `--drop-cache` had just evicted the files (what stayed is
/// never passed over in silence).
pub fn page_cache(r: &RunReport) -> Vec<Finding> {
    let probes = |evicted: bool| {
        r.probes
            .page_cache
            .iter()
            .filter(move |p| p.evicted == evicted)
            .map(|p| (p.phase.as_str(), p.resident_bytes, p.file_bytes))
    };
    let mut out = Vec::new();
    for (phase, resident, total, pct) in shares_at_least(probes(true), DROPPED_PCT) {
        out.push(finding(
            "page_cache",
            format!("--drop-cache evicted the files, yet {pct:.1} % of them was in the page cache before the {phase}"),
            vec![format!(
                "page_cache_resident_pct = {pct:.1} % ({resident} of {total} bytes, mincore after the eviction, before the {phase})"
            )],
            "look for another process that maps or locks the files (fuser, lsof); those reads come from memory",
        ));
    }
    for (phase, resident, total, pct) in shares_at_least(probes(false), PAGE_CACHE_PCT) {
        let mut evidence = vec![format!(
            "page_cache_resident_pct = {pct:.0} % ({} of {} bytes, mincore before the {phase})",
            resident, total
        )];
        if let Some(p) = r.phases.iter().find(|p| p.name == phase) {
            evidence.push(format!("{phase} mbyte_per_s = {:.1} MiB/s", p.mbyte_per_s));
        }
        let (what, advice) = if r.command == "dfsio" || r.command == "ops" {
            (
                "the files were",
                "read from hosts that did not write the files, or drop the cache before reading (as root: sync; \
                 echo 1 > /proc/sys/vm/drop_caches)",
            )
        } else {
            ("the file was", "add --direct to read from the device (or evict the file from the cache before reading)")
        };
        out.push(finding(
            "page_cache",
            format!(
                "{pct:.0} % of {what} in the page cache before the {phase}: this is memory bandwidth, not the disk's"
            ),
            evidence,
            advice,
        ));
    }
    out
}

/// Writes that only reached the page cache: at least [`DIRTY_PCT`] of a write phase's bytes still
/// dirty when it ended.
pub fn writes_in_cache(r: &RunReport) -> Vec<Finding> {
    let probes = r.probes.dirty.iter().map(|d| (d.phase.as_str(), d.dirty_bytes, d.written_bytes));
    let mut out = Vec::new();
    for (phase, dirty, written, pct) in shares_at_least(probes, DIRTY_PCT) {
        let mut evidence = vec![format!(
            "dirty_pct = {pct:.0} % ({dirty} of {written} bytes: growth of Dirty + Writeback in /proc/meminfo over \
             the {phase}, host-wide)"
        )];
        if let Some(p) = r.phases.iter().find(|p| p.name == phase) {
            evidence.push(format!("{phase} mbyte_per_s = {:.1} MiB/s", p.mbyte_per_s));
        }
        out.push(finding(
            "writes_in_cache",
            format!(
                "{pct:.0} % of the {phase}'s bytes were still in the page cache, unwritten, when it ended: the \
                 figure is how fast memory took them, not the disk"
            ),
            evidence,
            "add --fsync-on-close (close() then waits for the device and is timed) or --direct",
        ));
    }
    out
}

/// The client's CPU saturated: a phase's process CPU plus the time its threads waited for a CPU, per
/// wall second and rank, at or above [`CPU_SATURATED_SHARE`] of the cores it may use (a client that
/// waits for a CPU is as CPU-bound as one that uses it all). Phases under [`SHORT_PHASE_S`] are left
/// out: CPU time is counted in scheduler ticks, too coarse for them.
pub fn cpu_saturated(r: &RunReport) -> Vec<Finding> {
    let Some(cores) = r.probes.cores.filter(|&c| c > 0) else { return Vec::new() };
    let ranks = r.tasks.iter().map(|t| t.rank).max().map_or(1, |m| m + 1) as f64;
    let mut out = Vec::new();
    for p in r.phases.iter().filter(|p| p.duration_s >= SHORT_PHASE_S) {
        let wait: f64 = r.probes.cpu_wait.iter().filter(|w| w.phase == p.name).map(|w| w.wait_s).sum();
        let used = (p.cpu.total_s + wait) / p.duration_s / ranks;
        if used < CPU_SATURATED_SHARE * cores as f64 {
            continue;
        }
        out.push(finding(
            "cpu_saturated",
            format!(
                "the client kept {used:.2} of {cores} {} busy during the {}: the store may be faster than this figure",
                if cores == 1 { "core" } else { "cores" },
                p.name
            ),
            vec![
                format!(
                    "{} cpu.total_s = {:.3} s + cpu_wait_s = {wait:.3} s over duration_s = {:.3} s",
                    p.name, p.cpu.total_s, p.duration_s
                ),
                format!("cores usable (sched_getaffinity) = {cores}"),
            ],
            "more clients (MPI ranks on other hosts) would tell how fast the store is",
        ));
    }
    out
}

/// A transfer method whose sending thread was busy (on a CPU, or runnable and waiting for one) at
/// least [`SENDER_BUSY_SHARE`] of the wall time
/// (mean over its runs of at least [`MIN_TRANSFER_S`]): the sender's CPU, not the link, bound it.
/// The cheapest method per GiB of the same run is named against it.
pub fn sender_cpu_bound(r: &RunReport) -> Vec<Finding> {
    let Some(Section::Transfer(t)) = &r.section else { return Vec::new() };
    use super::transfer::{completed_pairs, mean_over};
    let pairs = completed_pairs(&t.runs);
    let keys: Vec<(&str, u64)> = pairs.iter().map(|(m, b)| (m.as_str(), *b)).collect();
    let per_gib = |m: &str, b: u64| mean_over(&t.runs, m, b, |x| x.cpu_s_per_gib.unwrap_or(0.0));
    let cheapest = keys.iter().copied().min_by(|a, b| per_gib(a.0, a.1).total_cmp(&per_gib(b.0, b.1)));
    let mut out = Vec::new();
    for &(m, b) in &keys {
        let timed: Vec<f64> = t
            .runs
            .iter()
            .filter(|x| x.status == "ok" && x.method == m && x.buffer == b && x.wall_s >= MIN_TRANSFER_S)
            .map(|x| (x.sender.total_s() + x.sender_wait_s.unwrap_or(0.0)) / x.wall_s)
            .collect();
        let busy = timed.iter().sum::<f64>() / timed.len().max(1) as f64;
        if timed.is_empty() || busy < SENDER_BUSY_SHARE {
            continue;
        }
        let name = format!("{m} {}", crate::units::human_bytes(b));
        let mut evidence = vec![
            format!("sender (cpu + cpu wait) / wall_s = {:.0} % (mean over runs)", busy * 100.0),
            format!("{name}: {:.1} MB/s, {:.3} CPU-s/GiB", mean_over(&t.runs, m, b, |x| x.mb_s), per_gib(m, b)),
        ];
        let mut advice = if cheapest == Some((m, b)) {
            "the cheapest path measured: what is left is the kernel's own work (on loopback the whole path is \
             memory); only more sending threads or cores go faster"
        } else {
            "a larger --buffer or a zero-copy method (sendfile, splice) frees the sender's CPU"
        };
        if let Some((cm, cb)) = cheapest.filter(|&(cm, cb)| (cm, cb) != (m, b) && per_gib(cm, cb) > 0.0) {
            evidence.push(format!(
                "{cm} {}: {:.3} CPU-s/GiB ({:.1}x less)",
                crate::units::human_bytes(cb),
                per_gib(cm, cb),
                per_gib(m, b) / per_gib(cm, cb)
            ));
            advice = "the cheaper method above moves the same bytes for less CPU: on a busy server that is what \
                      leaves room for more clients";
        }
        out.push(finding(
            "sender_cpu_bound",
            format!(
                "{name} kept its sending thread {:.0} % busy: the sender's CPU, not the link, bound it",
                busy * 100.0
            ),
            evidence,
            advice,
        ));
    }
    out
}

/// The upload happened in close(): close_s at least [`CLOSE_SHARE`] of the upload phase.
pub fn upload_in_close(r: &RunReport) -> Vec<Finding> {
    let Some(p) = r.phases.iter().find(|p| p.name == "upload") else { return Vec::new() };
    let Some(close) = p.close_s.filter(|_| p.duration_s > 0.0) else { return Vec::new() };
    let share = close / p.duration_s;
    if share < CLOSE_SHARE {
        return Vec::new();
    }
    let object = r.counters.iter().any(|g| g.counters.iter().any(|(n, _)| n == "multipart_parts"));
    let advice = if object {
        "the writes only filled buffers; parts went out in close(): raise fs.s3a.fast.upload.active.blocks \
         (parts in flight) or lower fs.s3a.multipart.size so they go out during the writes"
    } else {
        "the writes reached only the page cache; close() waited for the device (--fsync-on-close): the block \
         figures alone overstate the store's speed"
    };
    vec![finding(
        "upload_in_close",
        format!("close() took {:.0} % of the upload: the upload happened there, not in the writes", share * 100.0),
        vec![format!("upload close_s = {close:.3} s of duration_s = {:.3} s", p.duration_s)],
        advice,
    )]
}

/// Stragglers: the whole-run rate more than [`STRAGGLER_GAP`] below TestDFSIO's stonewall rate (all
/// tasks' bytes until the first ended), with tasks that ended that much after the median: the slowest
/// are named. A whole-run rate above the stonewall rate (tasks that started late, a run of a few ms) is
/// no straggler.
pub fn stragglers(r: &RunReport) -> Vec<Finding> {
    let Some(Section::Dfsio(d)) = &r.section else { return Vec::new() };
    if d.stonewall_mb_s <= 0.0 || d.aggregate_mb_s <= 0.0 || d.tasks.len() < 2 {
        return Vec::new();
    }
    let gap = (d.stonewall_mb_s - d.aggregate_mb_s) / d.stonewall_mb_s;
    if gap <= STRAGGLER_GAP {
        return Vec::new();
    }
    let mut by_end: Vec<_> = d.tasks.iter().collect();
    by_end.sort_by(|a, b| b.end_s.total_cmp(&a.end_s));
    let mut ends: Vec<f64> = d.tasks.iter().map(|t| t.end_s).collect();
    ends.sort_by(f64::total_cmp);
    let median = super::percentile_of_sorted(&ends, 0.5);
    let slow: Vec<String> = by_end
        .iter()
        .take_while(|t| t.end_s > median * (1.0 + STRAGGLER_GAP))
        .take(3)
        .map(|t| format!("task {} (rank {}, {}) ended at {:.3} s", t.task, t.rank, t.host, t.end_s))
        .collect();
    if slow.is_empty() {
        return Vec::new();
    }
    let mut evidence = vec![
        format!("stonewall_mb_s = {:.1} MB/s, aggregate_mb_s = {:.1} MB/s", d.stonewall_mb_s, d.aggregate_mb_s),
        format!("median task ended at {median:.3} s"),
    ];
    evidence.extend(slow);
    vec![finding(
        "stragglers",
        format!(
            "the run waited on its slowest tasks: they pulled the whole-run rate {:.0} % below the stonewall rate",
            gap * 100.0
        ),
        evidence,
        "look at the named tasks' hosts and disks; the stonewall figure is what the rest delivered",
    )]
}

/// `--reorder` reads whose data was written on the reader's own host: ranks on one host share its
/// page cache, so those reads did not avoid it. The writer's host is where its rank ran in this run
/// (dfsio -read: the -write is assumed placed alike).
pub fn reorder_same_host(r: &RunReport) -> Vec<Finding> {
    let Some(n) = r.reorder else { return Vec::new() };
    // (reader rank, reader host, writer rank) of every read, from the task list or dfsio's tasks.
    let mut reads: Vec<(u32, &str, u32)> =
        r.tasks.iter().filter_map(|t| Some((t.rank, t.host.as_str(), t.written_by?))).collect();
    if let Some(d) = r.dfsio_run() {
        reads.extend(d.tasks.iter().filter_map(|t| Some((t.rank, t.host.as_str(), t.written_by?))));
    }
    let host_of = |rank: u32| {
        let dfsio = r.dfsio_run().into_iter().flat_map(|d| d.tasks.iter().map(|t| (t.rank, t.host.as_str())));
        r.tasks.iter().map(|t| (t.rank, t.host.as_str())).chain(dfsio).find(|(k, _)| *k == rank).map(|(_, h)| h)
    };
    let same: Vec<&(u32, &str, u32)> = reads.iter().filter(|(_, host, w)| host_of(*w) == Some(*host)).collect();
    if same.is_empty() {
        return Vec::new();
    }
    let mut hosts: Vec<&str> = same.iter().map(|(_, h, _)| *h).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let (rank, host, writer) = same[0];
    vec![finding(
        "reorder_same_host",
        format!(
            "--reorder {n}: {} of {} reads were of data written on the reader's own host ({}): ranks on one host \
             share its page cache, so those reads may have come from memory",
            same.len(),
            reads.len(),
            hosts.join(", ")
        ),
        vec![format!("rank {rank} on {host} read what rank {writer} wrote, and rank {writer} ran on {host}")],
        "give --reorder the number of ranks per host (with ranks placed by node, as mpirun --map-by node does, \
         1 is enough), or add --drop-cache",
    )]
}

/// Throttling, retries and failed attempts counted during the run.
pub fn pushback(r: &RunReport) -> Vec<Finding> {
    let mut seen: Vec<String> = Vec::new();
    for g in &r.counters {
        for (n, v) in &g.counters {
            if *v > 0 && PUSHBACK.contains(&n.as_str()) {
                seen.push(format!("{} {n} = {v}", g.scope));
            }
        }
    }
    if seen.is_empty() {
        return Vec::new();
    }
    vec![finding(
        "pushback",
        "the store pushed back or the network failed during the run: retried requests are in the figures".into(),
        seen,
        "fewer threads or a lower --rate show whether the store throttles; the figures include the waits",
    )]
}

/// Unstable results: the throughput over repeats varies by more than [`UNSTABLE_CV`].
pub fn unstable(r: &RunReport) -> Vec<Finding> {
    let Some(Section::Ops(run)) = &r.section else { return Vec::new() };
    let Some(s) = run.statistics.iter().find(|s| s.name == "ops_per_s" && s.n >= 2) else { return Vec::new() };
    if s.cv <= UNSTABLE_CV {
        return Vec::new();
    }
    let mut evidence = vec![format!(
        "ops_per_s over {} repeats: mean {:.1}, cv {:.3} (min {:.1}, max {:.1})",
        s.n, s.mean, s.cv, s.min, s.max
    )];
    if let (Some(first), Some(warm)) = (run.repeats.first(), run.warm_statistics.iter().find(|w| w.name == "ops_per_s"))
    {
        evidence.push(format!("first repeat {:.1} ops/s, repeats 2.. mean {:.1}", first.summary.ops_per_s, warm.mean));
    }
    vec![finding(
        "unstable",
        format!(
            "the repeats disagree (cv {:.0} % > {:.0} %): one figure would mislead",
            s.cv * 100.0,
            UNSTABLE_CV * 100.0
        ),
        evidence,
        "run longer (--duration) or more repeats; look for other load on the machine or the store",
    )]
}

/// A cold first repeat: with at least 3 repeats, the first one's ops/s below the others' mean by
/// more than [`COLD_FIRST_GAP`].
pub fn cold_first(r: &RunReport) -> Vec<Finding> {
    let Some(Section::Ops(run)) = &r.section else { return Vec::new() };
    let (Some(first), Some(warm)) = (run.repeats.first(), run.warm_statistics.iter().find(|w| w.name == "ops_per_s"))
    else {
        return Vec::new();
    };
    if warm.mean <= 0.0 || first.summary.ops_per_s >= (1.0 - COLD_FIRST_GAP) * warm.mean {
        return Vec::new();
    }
    let pct = first.summary.ops_per_s / warm.mean * 100.0;
    vec![finding(
        "cold_first",
        format!("the first repeat ran at {pct:.0} % of the others' rate: it was cold (caches, connections, metadata)"),
        vec![format!(
            "repeat 1 ops_per_s = {:.1}; repeats 2..{} mean = {:.1}",
            first.summary.ops_per_s,
            warm.n + 1,
            warm.mean
        )],
        "quote the warm statistics (repeats 2..R, printed under the table), or add a warm-up repeat",
    )]
}

/// Repeats with fewer than [`MIN_OPS`] operations: their percentiles are single operations.
pub fn few_ops(r: &RunReport) -> Vec<Finding> {
    let Some(Section::Ops(run)) = &r.section else { return Vec::new() };
    let few: Vec<String> = run
        .repeats
        .iter()
        .filter(|x| x.summary.ops < MIN_OPS)
        .map(|x| format!("repeat {} ops = {}", x.repeat, x.summary.ops))
        .collect();
    if few.is_empty() {
        return Vec::new();
    }
    vec![finding(
        "few_ops",
        format!("{} repeat(s) ran fewer than {MIN_OPS} operations: their p99 is their slowest operation", few.len()),
        few,
        "more --iterations or a --duration: 100 operations per repeat for p99, 1,000 for p99.9",
    )]
}

/// Phases too short to mean much: under [`SHORT_PHASE_S`].
pub fn short_phases(r: &RunReport) -> Vec<Finding> {
    let short: Vec<String> = r
        .phases
        .iter()
        .filter(|p| p.complete && p.duration_s < SHORT_PHASE_S)
        .map(|p| format!("{} duration_s = {:.3} s", p.name, p.duration_s))
        .collect();
    if short.is_empty() {
        return Vec::new();
    }
    vec![finding(
        "short_run",
        format!("a phase took under {SHORT_PHASE_S} s: start-up, caches and timers weigh as much as the transfer"),
        short,
        "use a larger SIZE so each phase runs for seconds",
    )]
}

#[cfg(test)]
mod tests;
