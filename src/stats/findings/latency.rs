//! The latency_bound rule, and where each command's read requests come from: bandwidth's download
//! blocks, ops' downloads, dfsio's read tasks and ranges' GETs are all requests that wait for a first
//! byte and then stream; one rule reads them all.

use super::{finding, Finding, LATENCY_SHARE};
use crate::stats::latency::LatencyStats;
use crate::stats::report::{RunReport, Section};
use crate::units::{mib_per_s, MIB};

/// What a command's read requests say about the link.
struct Link {
    /// The requests, in words ("download requests").
    what: &'static str,
    /// How the latency was found ("fit over 512 download requests").
    how: String,
    /// Wait for the first byte of a request (the fit's intercept, or the mean time to first byte).
    latency_s: f64,
    /// A typical request's whole time (median of the points, or the mean of the statistics).
    typical_s: f64,
    /// One stream's bandwidth once the bytes flow, MiB/s (0 when unknown).
    stream_mib: f64,
    /// Bytes of a request (the largest).
    request_bytes: f64,
    /// Requests in flight on average: the sum of their times over the span they ran in.
    in_flight: f64,
    /// The figure the command reports for those requests: name and MiB/s.
    observed: (String, f64),
    /// What to try.
    advice: &'static str,
}

/// (latency, stream MiB/s, median time, largest request) through (bytes, total s, first-byte s) points.
fn fit(points: &[(u64, f64, f64)]) -> (f64, f64, f64, f64) {
    let (latency, stream) = crate::stats::aggregate::link_fit(points);
    let mut totals: Vec<f64> = points.iter().map(|p| p.1).collect();
    totals.sort_by(f64::total_cmp);
    let largest = points.iter().map(|p| p.0).max().unwrap_or(0) as f64;
    (latency, stream, crate::stats::percentile_of_sorted(&totals, 0.5), largest)
}

/// Bandwidth's download: a fit through its block events when the report kept them, else the means of
/// its block statistics.
fn bandwidth(r: &RunReport) -> Option<Link> {
    use crate::stats::sample::OpKind;
    let phase = r.phases.iter().find(|p| p.name == "download" && p.duration_s > 0.0)?;
    let points: Vec<(u64, f64, f64)> = r
        .events
        .iter()
        .filter(|e| e.op == OpKind::DownloadBlock && e.error.is_none())
        .map(|e| (e.bytes, secs(e.end_ns - e.start_ns), secs(e.first_byte_ns.max(e.start_ns) - e.start_ns)))
        .collect();
    let advice = "raise --prefetch or --threads (more requests in flight) or the block size (fewer waits per byte)";
    let observed = ("download mbyte_per_s".to_string(), phase.mbyte_per_s);
    if points.len() >= 2 {
        let (latency_s, stream_mib, typical_s, request_bytes) = fit(&points);
        let sum: f64 = points.iter().map(|p| p.1).sum();
        return Some(Link {
            what: "download requests",
            how: format!("fit over {} download requests", points.len()),
            latency_s,
            typical_s,
            stream_mib,
            request_bytes,
            in_flight: sum / phase.duration_s,
            observed,
            advice,
        });
    }
    means("download requests", &phase.blocks, phase.bytes, phase.duration_s, observed, advice)
}

/// The means of a latency statistic that knows each request's time to first byte.
fn means(
    what: &'static str,
    s: &LatencyStats,
    bytes: u64,
    duration_s: f64,
    observed: (String, f64),
    advice: &'static str,
) -> Option<Link> {
    if s.count < 2 || duration_s <= 0.0 {
        return None;
    }
    let request_bytes = bytes as f64 / s.count as f64;
    let streaming = s.mean_s - s.first_byte_mean_s;
    Some(Link {
        what,
        how: format!("means over {} {what}", s.count),
        latency_s: s.first_byte_mean_s,
        typical_s: s.mean_s,
        stream_mib: if streaming > 0.0 { mib_per_s(request_bytes, streaming) } else { 0.0 },
        request_bytes,
        in_flight: s.total_s / duration_s,
        observed,
        advice,
    })
}

/// Ops' whole downloads (open_read): the means over every repeat.
fn ops(r: &RunReport) -> Option<Link> {
    let Some(Section::Ops(run)) = &r.section else { return None };
    let download = r.ops.iter().find(|o| o.op == "download")?;
    let wall: f64 = run.repeats.iter().map(|p| p.summary.wall_s).sum();
    let observed = ("download MiB/s over the repeats".to_string(), mib_per_s(download.bytes as f64, wall));
    means(
        "downloads",
        &download.latency,
        download.bytes,
        wall,
        observed,
        "raise --threads (more requests in flight) or --file-size (fewer waits per byte)",
    )
}

/// Dfsio's read tasks: a fit through each task's bytes, time and wait for its first byte.
fn dfsio(r: &RunReport) -> Option<Link> {
    let Some(Section::Dfsio(d)) = &r.section else { return None };
    let points: Vec<(u64, f64, f64)> = d
        .tasks
        .iter()
        .filter_map(|t| t.first_byte_s.map(|f| (t.bytes, t.end_s - t.start_s, (f - t.start_s).max(0.0))))
        .collect();
    if points.len() < 2 {
        return None;
    }
    let start = d.tasks.iter().map(|t| t.start_s).fold(f64::INFINITY, f64::min);
    let end = d.tasks.iter().map(|t| t.end_s).fold(0.0, f64::max);
    let (latency_s, stream_mib, typical_s, request_bytes) = fit(&points);
    Some(Link {
        what: "read tasks",
        how: format!("fit over {} read tasks (open to first byte, then the file)", points.len()),
        latency_s,
        typical_s,
        stream_mib,
        request_bytes,
        in_flight: points.iter().map(|p| p.1).sum::<f64>() / (end - start).max(f64::MIN_POSITIVE),
        observed: ("aggregate_mb_s".to_string(), d.aggregate_mb_s),
        advice: "run more tasks at once (threads or ranks) or larger files (fewer waits per byte)",
    })
}

/// Ranges' cold pass of sequential (else the first strategy), with the fit ranges itself made.
fn ranges(r: &RunReport) -> Option<Link> {
    let Some(Section::Ranges(run)) = &r.section else { return None };
    let s = run.strategies.iter().find(|s| s.name == "sequential").or(run.strategies.first())?;
    let points: Vec<(u64, f64, f64)> = s.cold_requests.iter().map(|q| (q.length, q.total_s, q.first_byte_s)).collect();
    if points.len() < 2 || s.cold_s <= 0.0 {
        return None;
    }
    let (_, _, typical_s, request_bytes) = fit(&points);
    Some(Link {
        what: "GETs",
        how: format!("the run's fit (request_latency_s); {} GETs of {}'s cold pass", points.len(), s.name),
        latency_s: run.request_latency_s,
        typical_s,
        stream_mib: run.stream_mib_per_s,
        request_bytes,
        in_flight: points.iter().map(|p| p.1).sum::<f64>() / s.cold_s,
        observed: (format!("{} cold pass MiB/s", s.name), mib_per_s(s.bytes_fetched as f64, s.cold_s)),
        advice: "see the ranking: strategies with more GETs in flight (parallel) or fewer GETs (coalesce) hide it",
    })
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Latency-bound reads: on stores that answer requests (object stores' GETs, HDFS DataNode reads),
/// a typical request spent at least [`LATENCY_SHARE`] of its time waiting for its first byte. The
/// latency is the fit time = latency + bytes / bandwidth through the requests where the report has
/// each one (bandwidth's events, dfsio's tasks, ranges' GETs), else the mean time to first byte. The
/// verdict gives the ceiling the observed concurrency can carry: in-flight x request / (latency +
/// request / stream bandwidth).
pub fn latency_bound(r: &RunReport) -> Vec<Finding> {
    let requests =
        r.counters.iter().any(|g| g.counters.iter().any(|(n, _)| n == "get_requests" || n == "datanode_reads"));
    if !requests {
        return Vec::new();
    }
    let link = match r.command.as_str() {
        "bandwidth" => bandwidth(r),
        "ops" => ops(r),
        "dfsio" => dfsio(r),
        "ranges" => ranges(r),
        _ => None,
    };
    let Some(l) = link else { return Vec::new() };
    if l.typical_s <= 0.0 || l.latency_s / l.typical_s < LATENCY_SHARE {
        return Vec::new();
    }
    let per_request = l.latency_s + if l.stream_mib > 0.0 { l.request_bytes / (l.stream_mib * MIB) } else { 0.0 };
    let ceiling = mib_per_s(l.in_flight * l.request_bytes, per_request);
    let in_flight = l.in_flight;
    vec![finding(
        "latency_bound",
        format!(
            "each request waited {:.1} ms before its first byte ({:.0} % of it): {in_flight:.1} in flight can carry \
             at most {ceiling:.1} MiB/s here",
            l.latency_s * 1e3,
            l.latency_s / l.typical_s * 100.0
        ),
        vec![
            format!("request_latency_s = {:.4} s ({})", l.latency_s, l.how),
            format!("typical request {:.4} s; stream_mib_per_s = {:.1} MiB/s", l.typical_s, l.stream_mib),
            format!("{} in flight (sum of their times / the time they ran in) = {in_flight:.2}", l.what),
            format!("{} = {:.1} MiB/s", l.observed.0, l.observed.1),
        ],
        l.advice,
    )]
}
