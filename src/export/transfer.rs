//! `transfer` output: one row per method, buffer and run, then the means and the CPU ratios.

use crate::stats::report::RunReport;
use crate::stats::transfer::{completed_pairs, mean_over, TransferRun};
use crate::units::human_bytes;
use std::fmt::Write;

/// The text report.
pub fn text(r: &RunReport, quiet: bool) -> String {
    let mut out = String::new();
    let Some(t) = r.transfer() else { return out };
    let (source, bytes, to, runs) = (&t.source, t.bytes, &t.to, &t.runs);
    if !quiet {
        let _ = writeln!(out, "Transfer of {} ({} bytes) from {source} to {to}", human_bytes(bytes), bytes);
        let _ = writeln!(
            out,
            "Sender CPU is the sending thread's (RUSAGE_THREAD); receiver CPU is the receiving thread's. CPU% is \
             CPU per GiB against read-write with the smallest buffer."
        );
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{:<16} {:>9} {:>3} {:>8} {:>8} {:>8} {:>10} {:>10} {:>7} {:>9} {:>9}",
        "method",
        "buffer",
        "run",
        "user_s",
        "kernel_s",
        "wall_s",
        "MB/s",
        "CPU-s/GiB",
        "CPU%",
        "rx_user_s",
        "rx_kern_s"
    );
    for r in runs {
        if r.status != "ok" {
            let _ = writeln!(out, "{:<16} {:>9} {:>3} {}", r.method, human_bytes(r.buffer), r.run, r.status);
            continue;
        }
        let (ru, rk) =
            r.receiver.map_or(("-".into(), "-".into()), |c| (format!("{:.3}", c.user_s), format!("{:.3}", c.system_s)));
        let _ = writeln!(
            out,
            "{:<16} {:>9} {:>3} {:>8.3} {:>8.3} {:>8.3} {:>10.1} {:>10} {:>7} {:>9} {:>9}",
            r.method,
            human_bytes(r.buffer),
            r.run,
            r.sender.user_s,
            r.sender.system_s,
            r.wall_s,
            r.mb_s,
            r.cpu_s_per_gib.map_or("-".into(), |c| format!("{c:.3}")),
            r.cpu_vs_baseline_pct.map_or("-".into(), |p| format!("{p:.0}%")),
            ru,
            rk
        );
    }
    // Means per method and buffer, and how much less CPU each needs than the baseline.
    let keys = completed_pairs(runs);
    if keys.is_empty() {
        return out;
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Mean over runs:");
    let mean = |m: &str, b: u64, f: &dyn Fn(&TransferRun) -> f64| mean_over(runs, m, b, f);
    let base = keys.iter().filter(|(m, _)| m == "read-write").map(|(_, b)| *b).min();
    let cpu_of = |r: &TransferRun| r.cpu_s_per_gib.unwrap_or(0.0); // ok runs moved bytes: always Some
    let base_cpu = base.map(|b| mean("read-write", b, &cpu_of));
    for (m, b) in &keys {
        let cpu = mean(m, *b, &cpu_of);
        let ratio = match base_cpu {
            Some(bc) if cpu > 0.0 => {
                format!("{:.2}x less CPU per GiB than read-write {}", bc / cpu, human_bytes(base.unwrap_or(0)))
            }
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:<16} {:>9}  {:>10.1} MB/s  {:>7.3} CPU-s/GiB  {ratio}",
            m,
            human_bytes(*b),
            mean(m, *b, &|r| r.mb_s),
            cpu
        );
    }
    out
}
