//! `--format markdown`: the run's main table as Markdown, for every command (ops keeps its own table of
//! repeats and statistics).

use super::findings::cell;
use crate::stats::report::{RunReport, Section};
use std::fmt::Write;

/// The report's main table in Markdown, under a heading naming the command and target.
pub fn markdown(r: &RunReport) -> String {
    let f3 = |v: f64| format!("{v:.3}");
    let f6 = |v: f64| format!("{v:.6}");
    let (head, rows): (&[&str], Vec<Vec<String>>) = match &r.section {
        Some(Section::Ops(_)) => return super::ops::markdown(r),
        Some(Section::Transfer(t)) => {
            let rows = t
                .runs
                .iter()
                .map(|x| {
                    let pct = x.cpu_vs_baseline_pct.map_or("-".into(), |p| format!("{p:.1}"));
                    vec![
                        x.method.clone(),
                        x.buffer.to_string(),
                        x.run.to_string(),
                        x.status.clone(),
                        f3(x.mb_s),
                        x.cpu_s_per_gib.map_or("-".into(), f3),
                        pct,
                    ]
                })
                .collect();
            (&["method", "buffer (bytes)", "run", "status", "MiB/s", "CPU-s/GiB", "CPU % of baseline"], rows)
        }
        Some(Section::Ranges(g)) => {
            let rows = g
                .verdict
                .iter()
                .map(|v| {
                    let vs = v.vs_sequential.map_or("-".into(), |x| format!("{x:.2}"));
                    vec![v.rank.to_string(), v.strategy.clone(), f6(v.time_s), vs]
                })
                .collect();
            (&["rank", "strategy", "time (s)", "x sequential"], rows)
        }
        Some(Section::Dfsio(d)) => {
            let rows = vec![vec![
                d.test_type.clone(),
                d.aggregates.tasks.to_string(),
                cell(r, "throughput_mb_s", f3(d.throughput_mb_s)),
                f3(d.average_io_rate_mb_s),
                cell(r, "aggregate_mb_s", f3(d.aggregate_mb_s)),
                cell(r, "stonewall_mb_s", f3(d.stonewall_mb_s)),
                f3(d.exec_time_s),
            ]];
            (
                &[
                    "test",
                    "files",
                    "throughput MB/s",
                    "average IO rate MB/s",
                    "aggregate MB/s",
                    "stonewall MB/s",
                    "exec time (s)",
                ],
                rows,
            )
        }
        None => {
            let rows = r
                .phases
                .iter()
                .map(|p| {
                    vec![
                        p.name.clone(),
                        p.bytes.to_string(),
                        f3(p.duration_s),
                        cell(r, &crate::stats::findings::phase_figure(&p.name), f3(p.mbyte_per_s)),
                        f6(p.blocks.p50_s),
                        f6(p.blocks.p99_s),
                        p.cpu.s_per_gib.map_or("-".into(), f3),
                    ]
                })
                .collect();
            (&["phase", "bytes", "seconds", "MiB/s", "block p50 (s)", "block p99 (s)", "CPU-s/GiB"], rows)
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "### storebench {} on {} ({:?})\n", r.command, r.target, r.outcome.status);
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(head.len()));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}
