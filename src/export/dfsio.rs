//! `dfsio` output: TestDFSIO's own block, line for line, then what it hides.

use crate::stats::report::{Params, RunReport};
use std::fmt::Write;

/// Java's `Date.toString()` of now, in local time: "Wed Aug 21 10:56:45 PDT 2013".
pub fn java_date(t: std::time::SystemTime) -> String {
    strftime(t, "%a %b %d %H:%M:%S %Z %Y")
}

/// The log4j prefix of TestDFSIO's lines: "13/08/21 10:56:45 INFO fs.TestDFSIO: ".
pub fn log_prefix(t: std::time::SystemTime) -> String {
    format!("{} INFO fs.TestDFSIO: ", strftime(t, "%y/%m/%d %H:%M:%S"))
}

fn strftime(t: std::time::SystemTime, fmt: &str) -> String {
    let secs = t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as libc::time_t;
    let fmt = std::ffi::CString::new(fmt).unwrap_or_default();
    let mut buf = [0u8; 128];
    // SAFETY: localtime_r fills `tm`; strftime writes at most buf.len() bytes into buf.
    let n = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&secs, &mut tm).is_null() {
            return String::new();
        }
        libc::strftime(buf.as_mut_ptr() as *mut libc::c_char, buf.len(), fmt.as_ptr(), &tm)
    };
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// TestDFSIO's result lines of this run (none for -clean): what it prints and appends to -resFile.
pub fn hadoop_lines(r: &RunReport) -> Vec<String> {
    let (Some(d), Params::Dfsio(p)) = (r.dfsio_run(), &r.params) else { return Vec::new() };
    if p.mode == crate::stats::dfsio::Mode::Clean {
        return Vec::new();
    }
    let started = humantime::parse_rfc3339(&r.started_at).unwrap_or_else(|_| std::time::SystemTime::now());
    let exec_ms = (d.exec_time_s * 1000.0).round() as i64;
    d.aggregates.result_lines(&d.test_type, &java_date(started), exec_ms)
}

/// The whole text report: the Hadoop block (with log4j's prefix on each line), then storebench's
/// figures.
pub fn text(r: &RunReport, quiet: bool) -> String {
    let hadoop_lines = hadoop_lines(r);
    let prefix = log_prefix(std::time::SystemTime::now());
    let mut out = String::new();
    let Some(d) = r.dfsio_run() else { return out };
    let Params::Dfsio(p) = &r.params else { return out };
    if let Some((removed, left)) = &d.cleaned {
        let _ = writeln!(out, "{prefix}Cleaning up test files: removed {removed} file(s) under {}", r.target);
        for f in left {
            let _ = writeln!(out, "{prefix}Left {f}: storebench did not make it");
        }
        return out;
    }
    for l in &hadoop_lines {
        let _ = writeln!(out, "{prefix}{l}");
    }
    let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
    let _ = writeln!(out, "----- storebench: what TestDFSIO's figures hide (MB = 2^20 bytes) -----");
    for line in super::controls(r) {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(
        out,
        "  Aggregate bandwidth MB/s: {:.3}   ({:.1} MB from the common start to the last task's end)",
        d.aggregate_mb_s,
        mb(d.aggregates.size as u64)
    );
    let _ = writeln!(
        out,
        "  Stonewall bandwidth MB/s: {:.3}   (all tasks' bytes until the first task finished)",
        d.stonewall_mb_s
    );
    out.push_str(&super::findings::suspect_line(r, &["throughput_mb_s", "aggregate_mb_s", "stonewall_mb_s"]));
    let _ = writeln!(
        out,
        "  Task IO rate MB/s: min {:.3}, p50 {:.3}, p90 {:.3}, max {:.3} over {} task(s) on {} thread(s) x {} rank(s)",
        d.task_rate_min,
        d.task_rate_p50,
        d.task_rate_p90,
        d.task_rate_max,
        d.tasks.len(),
        p.threads,
        p.ranks
    );
    if d.calls.count > 0 {
        let _ = writeln!(
            out,
            "  Calls of bufferSize: {}, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            d.calls.count,
            d.calls.p50_s * 1e3,
            d.calls.p99_s * 1e3,
            d.calls.max_s * 1e3
        );
    }
    let _ = writeln!(
        out,
        "  Throughput mb/sec above is the tasks' bytes over the SUM of their times: a per-task average, not the cluster's bandwidth"
    );
    if !quiet {
        let mut slow: Vec<_> = d.tasks.iter().collect();
        slow.sort_by(|a, b| a.rate_mb_s.total_cmp(&b.rate_mb_s));
        for t in slow.iter().take(3) {
            let _ = writeln!(
                out,
                "  Slow task: {} on rank {} ({}): {:.3} MB/s, {} bytes in {:.3} s",
                t.file,
                t.rank,
                t.host,
                t.rate_mb_s,
                t.bytes,
                t.time_ms as f64 / 1000.0
            );
        }
    }
    if let Some(e) = &r.outcome.error {
        let _ = writeln!(out, "RUN FAILED: {e}");
    }
    out
}
