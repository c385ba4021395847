//! Each command's figures and charts (bandwidth and ops here; ranges, dfsio and transfer in
//! [`super::others`]).

use super::chart::{self, Series, Xy};
use super::sections::{num, row, table, Row};
use crate::stats::report::RunReport;
use crate::stats::sample::OpKind;

/// The command's part of the page.
pub fn body(r: &RunReport) -> String {
    match r.command.as_str() {
        "bandwidth" => bandwidth(r),
        "ops" => ops(r),
        "ranges" => super::others::ranges(r),
        "dfsio" => super::others::dfsio(r),
        "transfer" => super::others::transfer(r),
        other => format!("<p>No charts for the command '{}'.</p>\n", super::esc(other)),
    }
}

const MIB: f64 = 1048576.0;

/// The latency percentile plot of the named operations' histograms (HdrHistogram's layout).
pub fn percentiles(r: &RunReport, id: &str, title: &str, names: &[&str]) -> String {
    chart::xy(
        &Xy::percentiles(id, title),
        &chart::percentile_series(r, names, ""),
        "Nearest-rank percentiles of each operation's log-bucketed histogram (merged exactly across threads and \
         ranks; each value within the histogram's relative error bound).",
    )
}

fn bandwidth(r: &RunReport) -> String {
    let mut rows: Vec<Row> = Vec::new();
    for p in &r.phases {
        rows.push(row(format!("{} throughput", p.name), num(p.mbyte_per_s), "MiB/s", "bytes / 2^20 / duration_s"));
        rows.push(row(format!("{} duration", p.name), num(p.duration_s), "s", "first start to last end of the phase"));
        rows.push(row(
            format!("{} block p50", p.name),
            num(p.blocks.p50_s * 1e3),
            "ms",
            "nearest-rank median of block latencies",
        ));
        rows.push(row(
            format!("{} block p99", p.name),
            num(p.blocks.p99_s * 1e3),
            "ms",
            "nearest-rank 99th percentile of block latencies",
        ));
        if let Some(c) = p.close_s {
            rows.push(row(format!("{} close()", p.name), num(c), "s", "time in close() (the commit of an upload)"));
        }
        if let Some(s) = p.cpu.s_per_gib {
            rows.push(row(
                format!("{} CPU per GiB", p.name),
                num(s),
                "s/GiB",
                "(user + system CPU s) / (bytes / 2^30)",
            ));
        }
    }
    let mut out = table("Figures (hover a name for its formula; docs/metrics.md)", &rows);
    // Block latency over time: one point per block (kept events), close() marked.
    let secs = |ns: u64| ns as f64 / 1e9;
    let lat = |e: &crate::stats::sample::Event| (e.end_ns.saturating_sub(e.start_ns)) as f64 / 1e6;
    let of = |k: OpKind| -> Vec<(f64, f64)> {
        r.events.iter().filter(|e| e.op == k && e.error.is_none()).map(|e| (secs(e.end_ns), lat(e))).collect()
    };
    let closes: Vec<(f64, f64)> = r
        .events
        .iter()
        .filter(|e| matches!(e.op, OpKind::CloseUpload | OpKind::CloseDownload))
        .map(|e| (secs(e.end_ns), lat(e)))
        .collect();
    let series = vec![
        Series::dots("upload block", of(OpKind::UploadBlock)),
        Series::dots("download block", of(OpKind::DownloadBlock)),
        Series::dots("close()", closes),
    ];
    let sampled = r.event_sampling.as_ref().filter(|s| s.stride > 1).map(|s| {
        format!(
            " The report kept every {}th of {} events; at most {} points are drawn.",
            s.stride,
            s.total,
            chart::MAX_POINTS
        )
    });
    let none = if r.events.is_empty() { " Runs under MPI keep histograms, not events: no points." } else { "" };
    let xy = Xy {
        id: "block-latency",
        title: "Block latency over time",
        x: "time from the start (s)",
        y: "latency (ms, log)",
        log_y: true,
        nines_x: false,
    };
    out.push_str(&chart::xy(
        &xy,
        &series,
        &format!(
            "One point per block at its end; close() marked in its own colour.{}{none}",
            sampled.unwrap_or_default()
        ),
    ));
    // Throughput over time: bytes of the blocks that ended in each bin / the bin's width.
    let end = r.events.iter().map(|e| e.end_ns).max().unwrap_or(0) as f64 / 1e9;
    let bin = (end / 100.0).max(0.01);
    let rate = |k: OpKind| -> Vec<(f64, f64)> {
        let n = (end / bin).ceil() as usize + 1;
        let mut bytes = vec![0u64; n];
        for e in r.events.iter().filter(|e| e.op == k && e.error.is_none()) {
            bytes[((e.end_ns as f64 / 1e9) / bin) as usize] += e.bytes;
        }
        let stride = r.event_sampling.as_ref().map_or(1, |s| s.stride.max(1)) as f64;
        let first = bytes.iter().position(|&b| b > 0);
        let last = bytes.iter().rposition(|&b| b > 0);
        match (first, last) {
            (Some(a), Some(z)) => {
                (a..=z).map(|i| ((i as f64 + 0.5) * bin, bytes[i] as f64 * stride / MIB / bin)).collect()
            }
            _ => Vec::new(),
        }
    };
    let series =
        vec![Series::line("upload", rate(OpKind::UploadBlock)), Series::line("download", rate(OpKind::DownloadBlock))];
    let xy = Xy {
        id: "throughput",
        title: "Throughput over time",
        x: "time from the start (s)",
        y: "MiB/s",
        log_y: false,
        nines_x: false,
    };
    out.push_str(&chart::xy(
        &xy,
        &series,
        &format!(
            "Bytes of the blocks that ended in each {} ms bin / the bin (x the event stride when events were sampled).",
            num(bin * 1e3)
        ),
    ));
    out.push_str(&percentiles(
        r,
        "latency-percentiles",
        "Block latency distribution",
        &["upload-block", "download-block"],
    ));
    out
}

fn ops(r: &RunReport) -> String {
    let Some(run) = r.ops_run() else { return "<p>No ops section in this report.</p>\n".into() };
    let bytes = run.repeats.iter().any(|p| p.summary.bytes > 0);
    let (unit, pick): (&str, fn(&crate::stats::report::OpsSummary) -> f64) =
        if bytes { ("MiB/s", |s| s.mib_per_s) } else { ("ops/s", |s| s.ops_per_s) };
    let rows: Vec<Row> = run
        .statistics
        .iter()
        .map(|s| {
            let unit = if s.unit == "MiB/s" {
                "MiB/s"
            } else if s.unit == "ops/s" {
                "ops/s"
            } else if s.unit == "s" {
                "s"
            } else {
                ""
            };
            row(
                format!("{} ({} repeats)", s.name, s.n),
                format!("{} ± {} (cv {:.1} %)", num(s.mean), num(s.stddev), s.cv * 100.0),
                unit,
                "mean ± sample standard deviation over the repeats; cv = stddev / mean",
            )
        })
        .collect();
    let mut out = table("Figures across repeats (hover a name for its formula; docs/metrics.md)", &rows);
    let values: Vec<(f64, f64)> = run.repeats.iter().map(|p| (p.repeat as f64, pick(&p.summary))).collect();
    let n = values.len().max(1) as f64;
    let mean = values.iter().map(|v| v.1).sum::<f64>() / n;
    let sd = if values.len() > 1 {
        (values.iter().map(|v| (v.1 - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let span = |y: f64| vec![(values.first().map_or(1.0, |v| v.0), y), (values.last().map_or(1.0, |v| v.0), y)];
    let series = vec![
        Series::dots("each repeat", values.clone()),
        Series::line("mean", span(mean)),
        Series::line("mean - sd", span(mean - sd)),
        Series::line("mean + sd", span(mean + sd)),
    ];
    let title = format!("Throughput per repeat ({unit})");
    let xy = Xy { id: "repeats", title: &title, x: "repeat", y: unit, log_y: false, nines_x: false };
    out.push_str(&chart::xy(
        &xy,
        &series,
        "Each repeat's whole-run figure, with the mean and one sample standard deviation either side.",
    ));
    // One line per repeat; with a mix, one per operation and repeat (operations per second: a mix's
    // bytes are not split by operation).
    let mut names: Vec<&str> = run
        .repeats
        .iter()
        .flat_map(|p| p.per_second.iter().flat_map(|s| s.by_op.iter().map(|o| o.0.as_str())))
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut series: Vec<Series> = Vec::new();
    for p in &run.repeats {
        if names.is_empty() {
            let value =
                |s: &crate::stats::report::SecondSample| if bytes { s.bytes as f64 / MIB } else { s.ops as f64 };
            let pts = p.per_second.iter().map(|s| (s.second as f64 + 0.5, value(s))).collect();
            series.push(Series::line(&format!("repeat {}", p.repeat), pts));
        }
        for op in &names {
            let count = |s: &crate::stats::report::SecondSample| s.by_op.iter().find(|o| o.0 == *op).map_or(0, |o| o.1);
            let pts = p.per_second.iter().map(|s| (s.second as f64 + 0.5, count(s) as f64)).collect();
            series.push(Series::line(&format!("repeat {} {op}", p.repeat), pts));
        }
    }
    let y = if names.is_empty() { unit } else { "ops/s" };
    let xy = Xy {
        id: "per-second",
        title: "Per-second throughput",
        x: "second of the repeat",
        y,
        log_y: false,
        nines_x: false,
    };
    out.push_str(&chart::xy(
        &xy,
        &series,
        "Successful operations (or their bytes) that ended in each second, all threads and ranks; with a mix, each \
         operation's count.",
    ));
    out.push_str(&percentiles(r, "latency-percentiles", "Latency distribution per operation", &[]));
    let failures: Vec<Series> = run
        .repeats
        .iter()
        .map(|p| {
            let pts = p.per_second.iter().map(|s| (s.second as f64 + 0.5, s.errors as f64)).collect();
            Series::line(&format!("repeat {}", p.repeat), pts)
        })
        .collect();
    let total: u64 = run.repeats.iter().map(|p| p.summary.errors).sum();
    let xy = Xy {
        id: "failures",
        title: "Failed operations over time",
        x: "second of the repeat",
        y: "failed operations per second",
        log_y: false,
        nines_x: false,
    };
    let first = run.first_errors.first().map(|e| format!(" The first: {e}")).unwrap_or_default();
    out.push_str(&chart::xy(
        &xy,
        &failures,
        &format!("{total} failed in all; the run goes on unless --fail-fast.{first}"),
    ));
    out
}
