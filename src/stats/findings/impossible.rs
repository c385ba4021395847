//! The impossible rule: a throughput above what the path can carry (this host's memory, or the
//! network link to a remote store) is marked suspect in every format.

use super::{finding, Finding};
use crate::stats::report::{RunReport, Section};

/// A figure above this multiple of the memory probe is impossible for bytes that pass through memory.
/// The probe is noisy on shared machines (it is short); 1.5 keeps a page-cache read, which copies at
/// about the probe's rate, clear of it.
pub const MEMORY_FACTOR: f64 = 1.5;
/// A figure above this multiple of the link's speed did not cross the link.
pub const LINK_FACTOR: f64 = 1.1;

/// The name a phase's throughput goes by in findings and marks ("download mbyte_per_s").
pub fn phase_figure(phase: &str) -> String {
    format!("{phase} mbyte_per_s")
}

/// The name of one repeat's figure in findings and marks ("repeat 2 mib_per_s").
pub fn repeat_figure(repeat: usize, figure: &str) -> String {
    format!("repeat {repeat} {figure}")
}

/// The throughput figures of a report, by name (as in docs/metrics.md), in MiB/s (the seeds' MB/s are
/// MiB/s).
pub fn throughputs(r: &RunReport) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = r.phases.iter().map(|p| (phase_figure(&p.name), p.mbyte_per_s)).collect();
    match &r.section {
        Some(Section::Ops(run)) => {
            for rep in &run.repeats {
                out.push((repeat_figure(rep.repeat, "mib_per_s"), rep.summary.mib_per_s));
                out.push((repeat_figure(rep.repeat, "stonewall_mib_per_s"), rep.summary.stonewall_mib_per_s));
            }
        }
        Some(Section::Dfsio(d)) => {
            out.push(("throughput_mb_s".into(), d.throughput_mb_s));
            out.push(("aggregate_mb_s".into(), d.aggregate_mb_s));
            out.push(("stonewall_mb_s".into(), d.stonewall_mb_s));
        }
        _ => {}
    }
    out.retain(|(_, v)| v.is_finite() && *v > 0.0);
    out
}

/// Hosts the run's tasks ran on (at least 1): ceilings are per host.
fn hosts(r: &RunReport) -> f64 {
    let mut names: Vec<&str> = r.tasks.iter().map(|t| t.host.as_str()).collect();
    if let Some(Section::Dfsio(d)) = &r.section {
        names.extend(d.tasks.iter().map(|t| t.host.as_str()));
    }
    names.sort_unstable();
    names.dedup();
    names.len().max(1) as f64
}

/// Impossible figures: a throughput above [`MEMORY_FACTOR`] x the memory probe (per host), or above
/// [`LINK_FACTOR`] x the link's speed to a remote store (per host). Each such figure is named in the
/// finding's `suspect` list, which every format marks. Transfer and ranges are left out: transfer's
/// zero-copy methods move no bytes through memory, and ranges reports times.
pub fn impossible(r: &RunReport) -> Vec<Finding> {
    let figures = throughputs(r);
    let hosts = hosts(r);
    let per_host = if hosts > 1.0 { format!(" x {hosts} hosts") } else { String::new() };
    let mut out = Vec::new();
    if let Some(m) = r.probes.memory {
        let ceiling = m.mib_per_s * hosts;
        let above: Vec<&(String, f64)> = figures.iter().filter(|f| f.1 > ceiling * MEMORY_FACTOR).collect();
        if let Some((name, value)) = above.first() {
            let mut f = finding(
                "impossible",
                format!(
                    "{name} = {value:.0} MiB/s is {:.1}x what this host's memory delivered to a copy: the bytes came \
                     from CPU caches or were never moved, or the timing is wrong",
                    value / ceiling
                ),
                std::iter::once(format!(
                    "memory_mib_per_s = {:.0} MiB/s{per_host} ({} threads copying 32 MiB into 1 MiB buffers)",
                    m.mib_per_s, m.threads
                ))
                .chain(above.iter().map(|(n, v)| format!("{n} = {v:.1} MiB/s (suspect)")))
                .collect(),
                "use files larger than the CPU caches and more of them (no thread rereading what it just read), or \
                 --direct on files; trust no figure marked suspect",
            );
            f.suspect = above.iter().map(|(n, _)| n.clone()).collect();
            out.push(f);
        }
    }
    if let Some(l) = &r.probes.link {
        let ceiling = l.mbit_per_s as f64 * 1e6 / 8.0 / crate::units::MIB * hosts;
        let above: Vec<&(String, f64)> = figures.iter().filter(|f| f.1 > ceiling * LINK_FACTOR).collect();
        if let Some((name, value)) = above.first() {
            let mut f = finding(
                "impossible",
                format!(
                    "{name} = {value:.0} MiB/s is more than the {} Mbit/s link to {} carries ({ceiling:.0} MiB/s): a \
                     cache on this side served it, or the data compressed on the wire",
                    l.mbit_per_s, l.endpoint
                ),
                std::iter::once(format!(
                    "link_mib_per_s = {ceiling:.1} MiB/s ({} at {} Mbit/s{per_host})",
                    l.interface, l.mbit_per_s
                ))
                .chain(above.iter().map(|(n, v)| format!("{n} = {v:.1} MiB/s (suspect)")))
                .collect(),
                "read objects this host has not read before (a client cache serves repeats), with incompressible data",
            );
            f.suspect = above.iter().map(|(n, _)| n.clone()).collect();
            out.push(f);
        }
    }
    out
}
