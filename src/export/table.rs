//! The human summary, laid out as cloudstore's bandwidth prints it, plus what cloudstore lacks:
//! block latency percentiles and CPU cost per phase.

use super::Exporter;
use crate::stats::report::{LatencyStats, Params, PhaseReport, RunReport, Status};
use crate::stats::sample::OpKind;
use crate::units::{human_bytes, with_commas};
use std::fmt::Write;

/// Renders the text summary.
pub struct TextExporter {
    /// Add per-block lines and counters.
    pub verbose: bool,
    /// Leave out the preamble.
    pub quiet: bool,
}

/// Seconds with three decimals from one second up, six below (local blocks take microseconds).
pub fn secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3}")
    } else {
        format!("{s:.6}")
    }
}

/// A duration as minutes:seconds.millis, as cloudstore prints it (0:31.598).
pub fn min_sec(s: f64) -> String {
    let total_ms = (s * 1000.0).round() as u64;
    format!("{}:{:02}.{:03}", total_ms / 60_000, (total_ms / 1000) % 60, total_ms % 1000)
}

/// "p50 X s, p90 Y s, p99 Z s, max W s" of a latency set.
fn percentiles(l: &LatencyStats) -> String {
    format!("p50 {} s, p90 {} s, p99 {} s, max {} s", secs(l.p50_s), secs(l.p90_s), secs(l.p99_s), secs(l.max_s))
}

fn underline(out: &mut String, title: &str) {
    let _ = writeln!(out, "{title}\n{}", "=".repeat(title.chars().count()));
}

fn phase(out: &mut String, r: &RunReport, p: &PhaseReport, ranks: u32) {
    let (title, verb, blocks_label) = if p.name == "upload" {
        ("Upload Summary", "Upload", "Blocks uploaded (ignoring close() overhead)")
    } else {
        ("Download Summary", "Download", "Blocks downloaded")
    };
    let _ = writeln!(out);
    underline(out, title);
    let _ = writeln!(out);
    if !p.complete {
        let _ = writeln!(out, "INCOMPLETE: the {} did not finish; figures cover what was done", p.name);
    }
    let _ = writeln!(out, "Data size {} bytes", with_commas(p.bytes));
    let _ = writeln!(out, "{verb} duration {}", min_sec(p.duration_s));
    let _ = writeln!(out);
    let _ = writeln!(out, "{verb} bandwidth in Megabits/second {:.3} Mbit/s", p.mbit_per_s);
    let _ = writeln!(out, "{verb} bandwidth in Megabytes/second {:.3} MB/s", p.mbyte_per_s);
    out.push_str(&super::findings::suspect_line(r, &[&crate::stats::findings::phase_figure(&p.name)]));
    let b = &p.blocks;
    let _ = writeln!(
        out,
        "{blocks_label}: {}: min {} seconds, max {} seconds, mean {} seconds,",
        b.count,
        secs(b.min_s),
        secs(b.max_s),
        secs(b.mean_s)
    );
    let _ = writeln!(out, "Block latency percentiles: {}", percentiles(b));
    if b.errors > 0 {
        let _ = writeln!(out, "Blocks failed: {}", b.errors);
    }
    let _ = writeln!(out);
    if let Some(c) = p.close_s {
        let sum = if ranks > 1 { format!(", the sum over {ranks} ranks") } else { String::new() };
        let _ = writeln!(out, "Close() duration: {} (minute:seconds{sum})", min_sec(c));
    }
    if let Some(m) = p.mean_per_block_incl_close_s {
        let _ = writeln!(out, "Mean {verb} duration/block including close() overhead {} seconds", secs(m));
    }
    let per_gib = p.cpu.s_per_gib.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    let _ = writeln!(
        out,
        "CPU ({}): user {:.3} s, kernel {:.3} s, {per_gib} CPU-seconds/GiB",
        if ranks > 1 { format!("all {ranks} processes") } else { "whole process".to_string() },
        p.cpu.user_s,
        p.cpu.system_s
    );
}

impl Exporter for TextExporter {
    fn name(&self) -> &'static str {
        "text"
    }

    fn render(&self, r: &RunReport) -> String {
        let mut out = String::new();
        let bp = match &r.params {
            Params::Bandwidth(bp) => bp,
            Params::Ops(_) => return super::ops::text(r, self.quiet),
            Params::Ranges(_) => return super::ranges::text(r, self.quiet),
            Params::Dfsio(_) => return super::dfsio::text(r, self.quiet),
            Params::Transfer(_) => return super::transfer::text(r, self.quiet),
        };
        if !self.quiet {
            let per = if bp.ranks > 1 { format!(" per rank x {} MPI ranks", bp.ranks) } else { String::new() };
            let title = format!("Bandwidth test against {} with data size {}{per}", r.target, human_bytes(bp.size));
            underline(&mut out, &title);
            let _ = writeln!(out);
            let _ = writeln!(out, "Block size {} bytes ({})", with_commas(bp.block), human_bytes(bp.block));
            let _ = writeln!(out, "Engine: {}", r.engine);
            for line in super::controls(r) {
                let _ = writeln!(out, "{line}");
            }
            if bp.ranks > 1 {
                let _ = writeln!(out, "Files: {}.rank<R>, one per rank", bp.path);
            } else {
                let _ = writeln!(out, "File: {}", bp.path);
            }
            let _ = writeln!(
                out,
                "Writing data as {} blocks each of size {} bytes; read policy {}",
                bp.blocks,
                with_commas(bp.block),
                bp.policy
            );
            let mut flags = Vec::new();
            for (on, name) in [
                (bp.flush, "flush"),
                (bp.hflush, "hflush"),
                (bp.direct, "direct"),
                (bp.fsync_on_close, "fsync-on-close"),
                (bp.rename, "rename"),
                (bp.verify, "verify"),
                (bp.keep, "keep"),
            ] {
                if on {
                    flags.push(name);
                }
            }
            if !flags.is_empty() {
                let _ = writeln!(out, "Options: {}", flags.join(", "));
            }
        }
        for w in &r.warnings {
            let _ = writeln!(out, "{w}");
        }
        if self.verbose {
            let _ = writeln!(out);
            let (mut up, mut down) = (0u64, 0u64);
            for e in &r.events {
                let d = e.duration_ns() as f64 / 1e9;
                let fail = e.error.as_deref().map(|m| format!(" FAILED: {m}")).unwrap_or_default();
                match e.op {
                    OpKind::UploadBlock => {
                        let _ = writeln!(out, "Write block {up} in {} seconds{fail}", secs(d));
                        up += 1;
                    }
                    OpKind::DownloadBlock => {
                        let fb = (e.first_byte_ns.saturating_sub(e.start_ns)) as f64 / 1e9;
                        let _ = writeln!(
                            out,
                            "Read block {down} (offset {}) in {} seconds (first byte {} s){fail}",
                            with_commas(e.offset),
                            secs(d),
                            secs(fb)
                        );
                        down += 1;
                    }
                    OpKind::Upload | OpKind::Download => {}
                    op => {
                        let _ = writeln!(out, "Duration of {}: {}{fail}", op.name(), min_sec(d));
                    }
                }
            }
        }
        for p in &r.phases {
            phase(&mut out, r, p, bp.ranks);
        }
        if bp.ranks > 1 {
            let _ = writeln!(out);
            underline(&mut out, "Ranks");
            let _ = writeln!(out, "{:>5}  {:<24} {:>12} {:>12}", "rank", "host", "upload MB/s", "download MB/s");
            for rank in 0..bp.ranks {
                let rate = |name: &str| {
                    r.tasks
                        .iter()
                        .find(|t| t.rank == rank && t.task == name)
                        .map_or("-".to_string(), |t| format!("{:.3}", t.mib_per_s))
                };
                let host = r.tasks.iter().find(|t| t.rank == rank).map_or("(no result)", |t| t.host.as_str());
                let _ = writeln!(out, "{rank:>5}  {host:<24} {:>12} {:>12}", rate("upload"), rate("download"));
            }
        }
        if let Some(parts) = r.ops.iter().find(|o| o.op == "upload-part") {
            let l = &parts.latency;
            let _ = writeln!(
                out,
                "\nMultipart parts uploaded: {} ({} bytes): min {} s, {}",
                l.count,
                with_commas(parts.bytes),
                secs(l.min_s),
                percentiles(l)
            );
        }
        let extra: Vec<_> = r.ops.iter().filter(|o| o.op == "rename" || o.op == "delete").collect();
        if !extra.is_empty() {
            let _ = writeln!(out);
            for o in extra {
                let sum = if bp.ranks > 1 { format!(" (the sum over {} ranks)", bp.ranks) } else { String::new() };
                let _ = writeln!(out, "{} duration: {} seconds{sum}", o.op, secs(o.latency.total_s));
            }
        }
        if self.verbose && !r.counters.is_empty() {
            let _ = writeln!(out);
            underline(&mut out, "Counters");
            for g in &r.counters {
                let list: Vec<String> = g.counters.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(out, "{}: {}", g.scope, list.join(" "));
            }
        }
        match r.outcome.status {
            Status::Completed => {}
            Status::Failed => {
                let _ = writeln!(out, "\nRUN FAILED: {}", r.outcome.error.as_deref().unwrap_or("unknown error"));
            }
            Status::Interrupted => {
                let _ = writeln!(out, "\nRUN INTERRUPTED: figures cover what was done before Ctrl-C");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_cloudstore() {
        assert_eq!(min_sec(31.598), "0:31.598");
        assert_eq!(min_sec(69.531), "1:09.531");
        assert_eq!(min_sec(0.0004), "0:00.000");
        assert_eq!(secs(1.2168), "1.217");
        assert_eq!(secs(0.000412), "0.000412");
    }
}
