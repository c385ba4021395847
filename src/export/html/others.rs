//! ranges', dfsio's and transfer's figures and charts.

use super::chart::{self, Bar, Series, Xy};
use super::sections::{num, row, table};
use crate::stats::report::RunReport;

const MIB: f64 = 1048576.0;

/// ranges: a waterfall per strategy, the strategies ranked, and the latency + bandwidth fit.
pub fn ranges(r: &RunReport) -> String {
    let Some(run) = r.ranges_run() else { return "<p>No ranges section in this report.</p>\n".into() };
    let rows = vec![
        row(
            "fitted request latency",
            num(run.request_latency_s * 1e3),
            "ms",
            "least-squares intercept of request time over request length",
        ),
        row(
            "fitted stream bandwidth",
            num(run.stream_mib_per_s),
            "MiB/s",
            "1 / slope of request time over request length, in MiB",
        ),
    ];
    let mut out = table("Link fit (hover a name for its formula; docs/metrics.md)", &rows);
    let labels: Vec<String> = run.verdict.iter().map(|v| format!("{}. {}", v.rank, v.strategy)).collect();
    let times: Vec<f64> = run.verdict.iter().map(|v| v.time_s * 1e3).collect();
    out.push_str(&chart::stacked(
        "strategies",
        "Strategies ranked (cold pass)",
        "time (ms)",
        &labels,
        &[("cold time", times)],
        "Each strategy's cold-pass time, fastest first.",
    ));
    for s in &run.strategies {
        let bars: Vec<Bar> = s
            .cold_requests
            .iter()
            .enumerate()
            .map(|(i, q)| Bar {
                row: i,
                segments: vec![
                    (q.at_s * 1e3, (q.at_s + q.first_byte_s) * 1e3, 0),
                    ((q.at_s + q.first_byte_s) * 1e3, (q.at_s + q.first_byte_s + q.transfer_s) * 1e3, 1),
                ],
            })
            .collect();
        let omitted = if s.cold_requests_omitted > 0 {
            format!(" {} more requests not kept.", s.cold_requests_omitted)
        } else {
            String::new()
        };
        let (id, title) =
            (format!("waterfall-{}", s.name), format!("Waterfall: {} (cold pass, {} GETs)", s.name, s.requests));
        let xy = Xy {
            id: &id,
            title: &title,
            x: "time from the pass's start (ms)",
            y: "request",
            log_y: false,
            nines_x: false,
        };
        out.push_str(&chart::bars(
            &xy,
            s.cold_requests.len(),
            &bars,
            &["wait for the first byte", "transfer"],
            &format!("Each GET as a bar: waiting for its first byte, then its transfer.{omitted}"),
        ));
    }
    let points: Vec<(f64, f64)> = run
        .strategies
        .iter()
        .flat_map(|s| s.cold_requests.iter().map(|q| (q.length as f64 / MIB, q.total_s * 1e3)))
        .collect();
    let max = points.iter().map(|p| p.0).fold(0.0, f64::max);
    let fit = if run.stream_mib_per_s > 0.0 {
        let at = |x: f64| (x, (run.request_latency_s + x / run.stream_mib_per_s) * 1e3);
        vec![at(0.0), at(max)]
    } else {
        Vec::new()
    };
    let xy = Xy {
        id: "fit",
        title: "Request time over request size",
        x: "request (MiB)",
        y: "time (ms)",
        log_y: false,
        nines_x: false,
    };
    out.push_str(&chart::xy(
        &xy,
        &[Series::dots("GETs", points), Series::line("latency + size / bandwidth", fit)],
        "Every kept cold GET, and the fitted line time = latency + size / bandwidth.",
    ));
    out
}

/// dfsio: the tasks on a time line by rank, the task rate distribution, TestDFSIO's figures.
pub fn dfsio(r: &RunReport) -> String {
    let Some(d) = r.dfsio_run() else { return "<p>No dfsio section in this report.</p>\n".into() };
    let rows = vec![
        row(
            "Throughput (TestDFSIO)",
            num(d.throughput_mb_s),
            "MB/s",
            "sum of bytes / 2^20 / sum of task times (TestDFSIO's formula)",
        ),
        row("Average IO rate", num(d.average_io_rate_mb_s), "MB/s", "mean of each task's bytes / 2^20 / its time"),
        row("IO rate std deviation", num(d.io_rate_std_dev), "MB/s", "sqrt(mean of squared task rates - mean rate^2)"),
        row("aggregate", num(d.aggregate_mb_s), "MB/s", "all bytes / 2^20 / (last task end - common start)"),
        row("stonewall", num(d.stonewall_mb_s), "MB/s", "bytes moved until the first task ended / that time"),
        row("Test exec time", num(d.exec_time_s), "s", "the command's wall time, planning included"),
    ];
    let mut out = table(&format!("{} (hover a name for its formula; docs/metrics.md)", d.test_type), &rows);
    let mut tasks: Vec<_> = d.tasks.iter().collect();
    tasks.sort_by(|a, b| (a.rank, &a.host, a.task).cmp(&(b.rank, &b.host, b.task)));
    let ranks: Vec<u32> = {
        let mut v: Vec<u32> = tasks.iter().map(|t| t.rank).collect();
        v.dedup();
        v
    };
    let colour = |rank: u32| ranks.iter().position(|&x| x == rank).unwrap_or(0) % chart::COLOURS.len();
    let bars: Vec<Bar> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| Bar { row: i, segments: vec![(t.start_s, t.end_s, colour(t.rank))] })
        .collect();
    let names: Vec<String> = ranks
        .iter()
        .take(chart::COLOURS.len())
        .map(|k| format!("rank {k} ({})", tasks.iter().find(|t| t.rank == *k).map_or("", |t| t.host.as_str())))
        .collect();
    let legend: Vec<&str> = names.iter().map(String::as_str).collect();
    let xy = Xy {
        id: "tasks",
        title: "Tasks on a time line, by rank and host",
        x: "time from the common start (s)",
        y: "task (ordered by rank, host, task)",
        log_y: false,
        nines_x: false,
    };
    out.push_str(&chart::bars(
        &xy,
        tasks.len(),
        &bars,
        &legend,
        "Each task from its create/open to its close; colours repeat past six ranks.",
    ));
    let mut rates: Vec<f64> = d.tasks.iter().map(|t| t.rate_mb_s).collect();
    rates.sort_by(f64::total_cmp);
    let n = rates.len().max(1) as f64;
    let points = rates.iter().enumerate().map(|(i, v)| ((i + 1) as f64 * 100.0 / n, *v)).collect();
    let xy = Xy {
        id: "task-rates",
        title: "Task rate distribution",
        x: "share of tasks at or below (%)",
        y: "MB/s",
        log_y: false,
        nines_x: false,
    };
    out.push_str(&chart::xy(
        &xy,
        &[Series::dots("task rate", points)],
        "Each task's bytes / 2^20 / its time, sorted: a flat line is an even run.",
    ));
    // The calls' latency: the report keeps their percentiles (merged over ranks), not the histogram.
    let c = &d.calls;
    let points: Vec<(f64, f64)> =
        [(1.0, c.min_s), (2.0, c.p50_s), (10.0, c.p90_s), (100.0, c.p99_s), (1000.0, c.p999_s)]
            .into_iter()
            .filter(|(x, _)| *x <= c.count.max(1) as f64)
            .map(|(x, v)| (x, v * 1e3))
            .collect();
    let xy = Xy::percentiles("latency-percentiles", "Call latency distribution (bufferSize calls)");
    let calls = if c.count > 0 { points } else { Vec::new() };
    out.push_str(&chart::xy(
        &xy,
        &[Series::line("read or write call", calls)],
        "min, p50, p90, p99 and p99.9 of every call of every task (nearest rank, from the merged histogram).",
    ));
    out
}

/// transfer: user and kernel CPU seconds per GiB per method and buffer, stacked, as the seed's table.
pub fn transfer(r: &RunReport) -> String {
    let Some(t) = r.transfer() else { return "<p>No transfer section in this report.</p>\n".into() };
    use crate::stats::transfer::{completed_pairs, mean_over, TransferRun};
    // The same runs and means as the text table: the completed ones.
    let keys = completed_pairs(&t.runs);
    let mean = |k: &(String, u64), f: &dyn Fn(&TransferRun) -> f64| {
        mean_over(&t.runs, &k.0, k.1, |x| f(x) / (x.bytes.max(1) as f64 / 1073741824.0))
    };
    let labels: Vec<String> = keys.iter().map(|(m, b)| format!("{m} {}", crate::units::human_bytes(*b))).collect();
    let stacks: Vec<(&str, Vec<f64>)> = vec![
        ("sender user", keys.iter().map(|k| mean(k, &|x| x.sender.user_s)).collect()),
        ("sender kernel", keys.iter().map(|k| mean(k, &|x| x.sender.system_s)).collect()),
        ("receiver user", keys.iter().map(|k| mean(k, &|x| x.receiver.map_or(0.0, |c| c.user_s))).collect()),
        ("receiver kernel", keys.iter().map(|k| mean(k, &|x| x.receiver.map_or(0.0, |c| c.system_s))).collect()),
    ];
    let rows: Vec<_> = keys
        .iter()
        .zip(&labels)
        .map(|(k, l)| {
            let mb = mean_over(&t.runs, &k.0, k.1, |x| x.mb_s);
            row(format!("{l} throughput"), num(mb), "MB/s", "bytes / 2^20 / wall_s, mean over the completed runs")
        })
        .collect();
    let mut out = table("Figures (hover a name for its formula; docs/metrics.md)", &rows);
    out.push_str(&chart::stacked(
        "cpu-per-gib",
        "CPU seconds per GiB by method",
        "CPU s per GiB",
        &labels,
        &stacks,
        "User and kernel CPU of the sender and the receiver, per GiB moved, mean over the runs.",
    ));
    out
}
