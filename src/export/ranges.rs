//! The ranges workload's text: the seed's per-request log for each strategy's cold pass, per-strategy
//! figures, and the verdict with the link measurements that explain it.

use crate::export::ops::num;
use crate::stats::report::{Params, RunReport, Status};
use crate::units::{human_bytes, with_commas};
use std::fmt::Write;

fn ms(s: f64) -> String {
    let m = s * 1e3;
    if m >= 100.0 {
        format!("{m:.0} ms")
    } else if m >= 1.0 {
        format!("{m:.1} ms")
    } else {
        format!("{m:.3} ms")
    }
}

/// The text of a ranges run.
pub fn text(r: &RunReport, quiet: bool) -> String {
    let mut out = String::new();
    let (Params::Ranges(p), Some(run)) = (&r.params, r.ranges_run()) else { return out };
    let title = format!(
        "Range reads of {} ({} bytes, {}): {} ranges, {} warm passes",
        r.target,
        with_commas(p.object_size),
        human_bytes(p.object_size),
        p.ranges.len(),
        p.warm
    );
    let _ = writeln!(out, "{title}\n{}\n", "=".repeat(title.chars().count()));
    let _ = writeln!(
        out,
        "Concurrency {}, split size {}, coalesce gap {}{}",
        p.concurrency,
        human_bytes(p.split_size),
        human_bytes(p.coalesce_gap),
        if p.verify { ", every byte verified" } else { "" }
    );
    for line in super::controls(r) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "Engine: {}\n", r.engine);
    for s in &run.strategies {
        if !quiet {
            let _ = writeln!(out, "{} (cold pass)", s.name);
            for q in &s.cold_requests {
                let _ = writeln!(
                    out,
                    "  GET bytes={}-{} ({}) at +{}: first byte {}, transfer {}, total {}",
                    q.start,
                    q.end,
                    with_commas(q.length),
                    ms(q.at_s),
                    ms(q.first_byte_s),
                    ms(q.transfer_s),
                    ms(q.total_s)
                );
            }
            if s.cold_requests_omitted > 0 {
                let _ = writeln!(
                    out,
                    "  ... and {} more GETs (in the figures below)",
                    with_commas(s.cold_requests_omitted)
                );
            }
        }
        let warm = match (s.warm_mean_s, s.warm_min_s) {
            (Some(m), Some(n)) => format!("; warm mean {} (min {})", ms(m), ms(n)),
            _ => String::new(),
        };
        let l = &s.request_latency;
        let _ = writeln!(
            out,
            "{}: cold {}{warm}; {} GETs per pass fetching {} bytes for {} needed; per GET p50 {}, p99 {}, first byte mean {}",
            s.name,
            ms(s.cold_s),
            s.requests,
            with_commas(s.bytes_fetched),
            with_commas(s.bytes_needed),
            ms(l.p50_s),
            ms(l.p99_s),
            ms(l.first_byte_mean_s)
        );
        if !quiet {
            let _ = writeln!(out);
        }
    }
    if !run.verdict.is_empty() {
        let _ = writeln!(out, "\nVerdict on this link (ranked by warm mean; the cold pass without warm passes):");
        for v in &run.verdict {
            let vs = v.vs_sequential.map_or(String::new(), |x| format!(", {x:.2}x sequential's speed"));
            let _ = writeln!(out, "  {}. {:<10} {}{vs}", v.rank, v.strategy, ms(v.time_s));
        }
        let _ = writeln!(
            out,
            "Link (fitted through the GETs: time = latency + bytes / bandwidth): latency {} per GET, one stream {} MiB/s. \
Parallel strategies pay the latency once per {} GETs in flight: they win where latency dominates and gain little where transfer does.",
            ms(run.request_latency_s),
            num(run.stream_mib_per_s),
            p.concurrency
        );
    }
    if let Some(e) = &r.outcome.error {
        let word = if r.outcome.status == Status::Interrupted { "INTERRUPTED" } else { "FAILED" };
        let _ = writeln!(out, "RUN {word}: {e}");
    }
    out
}
