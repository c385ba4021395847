//! A sweep's figures and verdict: each grid point's key figures, read from its report, and for each
//! swept key the peak, the knee (the smallest setting reaching [`KNEE_SHARE`] of the peak) and where
//! latency starts rising faster than throughput (queueing), checked with Little's law (requests in
//! flight = operations per second x mean latency). docs/metrics.md, "Sweeps".

use super::report::RunReport;
use serde::{Deserialize, Serialize};

/// The knee: the smallest setting whose throughput reaches this share of the peak.
pub const KNEE_SHARE: f64 = 0.9;
/// Latency rising this much faster than throughput between two settings is queueing.
pub const QUEUEING_FACTOR: f64 = 1.25;
/// The keys that set how much runs at once: only along these does rising latency mean queueing (a
/// larger block or object takes longer by itself).
pub const CONCURRENCY_KEYS: [&str; 5] = ["threads", "concurrency", "prefetch", "active.blocks", "nrFiles"];
/// Repeats whose throughput varies more than this (coefficient of variation) disagree.
pub const SPREAD_CV: f64 = 0.10;

/// One grid point's key figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PointFigures {
    /// The point's settings, (key, value as typed), in the order of the axes.
    pub settings: Vec<(String, String)>,
    /// Throughput, MiB/s (bandwidth: the download, or the upload without one; ops: the mean over the
    /// repeats; dfsio: the aggregate rate; ranges: the bytes needed over the fastest strategy's cold
    /// pass).
    pub mib_per_s: f64,
    /// Operations per second (bandwidth: blocks; dfsio: bufferSize calls).
    pub ops_per_s: f64,
    /// Median latency, s.
    pub p50_s: f64,
    /// 99th percentile latency, s.
    pub p99_s: f64,
    /// Mean latency, s (for Little's law).
    pub mean_s: f64,
    /// CPU seconds per GiB, where the report has it.
    pub cpu_s_per_gib: Option<f64>,
    /// The repeats' coefficient of variation of throughput (ops), or the tasks' (dfsio).
    pub cv: Option<f64>,
    /// `completed`, `failed` or `interrupted`.
    pub status: String,
    /// The point whose prepared files this one read (its settings as text), when only read
    /// settings differ between them; none when the point prepared its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepared_by: Option<String>,
}

impl PointFigures {
    /// The value of `key` at this point, as typed ("" when the point has no such key).
    pub fn setting(&self, key: &str) -> &str {
        self.settings.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
    }

    /// The line of the grid this point lies on along `key`: the other keys' values ("" with one key).
    pub fn line_along(&self, key: &str) -> String {
        settings_text(&self.settings, key)
    }

    /// The figure the verdict ranks points by: MiB/s, or ops/s when the run moved no bytes.
    pub fn throughput(&self, by_ops: bool) -> f64 {
        if by_ops {
            self.ops_per_s
        } else {
            self.mib_per_s
        }
    }
}

/// Settings as text, "k=v, k=v", leaving out the key `except` (none when it is "").
pub fn settings_text(settings: &[(String, String)], except: &str) -> String {
    settings.iter().filter(|(k, _)| k != except).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// The lines of the grid along `key` these points lie on, in the order the points first reach them.
pub fn lines_along<'a>(points: impl Iterator<Item = &'a PointFigures>, key: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for l in points.map(|p| p.line_along(key)) {
        if !lines.contains(&l) {
            lines.push(l);
        }
    }
    lines
}

/// A point's figures, read from its report.
pub fn figures(settings: Vec<(String, String)>, r: &RunReport) -> PointFigures {
    let status = format!("{:?}", r.outcome.status).to_lowercase();
    let mut f = PointFigures { settings, status, ..Default::default() };
    if let Some(run) = r.ops_run() {
        let n = run.repeats.len().max(1) as f64;
        let mean =
            |g: &dyn Fn(&super::report::OpsSummary) -> f64| run.repeats.iter().map(|p| g(&p.summary)).sum::<f64>() / n;
        f.mib_per_s = mean(&|s| s.mib_per_s);
        f.ops_per_s = mean(&|s| s.ops_per_s);
        f.p50_s = mean(&|s| s.latency.p50_s);
        f.p99_s = mean(&|s| s.latency.p99_s);
        f.mean_s = mean(&|s| s.latency.mean_s);
        let cpus: Vec<f64> = run.repeats.iter().filter_map(|p| p.summary.cpu.s_per_gib).collect();
        f.cpu_s_per_gib = (!cpus.is_empty()).then(|| cpus.iter().sum::<f64>() / cpus.len() as f64);
        let name = if f.mib_per_s > 0.0 { "mib_per_s" } else { "ops_per_s" };
        f.cv = run.statistics.iter().find(|s| s.name == name).filter(|s| s.n > 1).map(|s| s.cv);
    } else if let Some(d) = r.dfsio_run() {
        f.mib_per_s = d.aggregate_mb_s;
        let span = d.tasks.iter().map(|t| t.end_s).fold(0.0, f64::max);
        f.ops_per_s = if span > 0.0 { d.calls.count as f64 / span } else { 0.0 };
        (f.p50_s, f.p99_s, f.mean_s) = (d.calls.p50_s, d.calls.p99_s, d.calls.mean_s);
        f.cv = (d.average_io_rate_mb_s > 0.0).then(|| d.io_rate_std_dev / d.average_io_rate_mb_s);
    } else if let Some(run) = r.ranges_run() {
        // The fastest strategy's cold pass: the bytes the ranges needed over its time, its GETs.
        if let Some(s) = run.strategies.iter().filter(|s| s.cold_s > 0.0).min_by(|a, b| a.cold_s.total_cmp(&b.cold_s)) {
            f.mib_per_s = s.bytes_needed as f64 / 1048576.0 / s.cold_s;
            f.ops_per_s = s.requests as f64 / s.cold_s;
            (f.p50_s, f.p99_s, f.mean_s) = (s.request_latency.p50_s, s.request_latency.p99_s, s.request_latency.mean_s);
        }
    } else if let Some(p) = r.phases.iter().find(|p| p.name == "download").or_else(|| r.phases.first()) {
        f.mib_per_s = p.mbyte_per_s;
        f.ops_per_s = if p.duration_s > 0.0 { p.blocks.count as f64 / p.duration_s } else { 0.0 };
        (f.p50_s, f.p99_s, f.mean_s) = (p.blocks.p50_s, p.blocks.p99_s, p.blocks.mean_s);
        f.cpu_s_per_gib = p.cpu.s_per_gib;
    }
    f
}

/// A setting's value as a number (sizes by their suffix), for ordering and ratios.
fn magnitude(v: &str) -> f64 {
    crate::units::parse_size(v).map(|n| n as f64).unwrap_or(f64::NAN)
}

/// What a sweep found for one key along one line of the grid (the other keys fixed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyVerdict {
    /// The swept key.
    pub key: String,
    /// The other keys' values on this line ("file-size=1m"), empty with one axis.
    pub at: String,
    /// The peak throughput and the value that reached it.
    pub peak: (String, f64),
    /// The knee: the smallest value reaching [`KNEE_SHARE`] of the peak, and its throughput.
    pub knee: (String, f64),
    /// Along a key of [`CONCURRENCY_KEYS`], where latency first rose more than [`QUEUEING_FACTOR`] x
    /// faster than throughput: the value,
    /// the latency and throughput ratios to the previous value, and the requests in flight there by
    /// Little's law (ops/s x mean latency).
    pub queueing: Option<(String, f64, f64, f64)>,
    /// Values whose repeats (or tasks) disagree (cv over [`SPREAD_CV`]).
    pub unstable: Vec<String>,
}

/// For every swept key and every line of the grid along it: peak, knee, queueing.
pub fn verdict(keys: &[String], points: &[PointFigures]) -> Vec<KeyVerdict> {
    let done: Vec<&PointFigures> = points.iter().filter(|p| p.status == "completed").collect();
    let by_ops = done.iter().all(|p| p.mib_per_s == 0.0);
    let mut out = Vec::new();
    for key in keys {
        let value = |p: &PointFigures| p.setting(key).to_string();
        for at in lines_along(done.iter().copied(), key) {
            let mut line: Vec<&PointFigures> = done.iter().copied().filter(|p| p.line_along(key) == at).collect();
            line.sort_by(|a, b| magnitude(&value(a)).total_cmp(&magnitude(&value(b))));
            let Some(best) = line.iter().max_by(|a, b| a.throughput(by_ops).total_cmp(&b.throughput(by_ops))) else {
                continue;
            };
            let peak = best.throughput(by_ops);
            let Some(knee) = line.iter().find(|p| p.throughput(by_ops) >= KNEE_SHARE * peak) else { continue };
            let concurrency = CONCURRENCY_KEYS.contains(&key.as_str());
            let queueing = line.windows(2).filter(|_| concurrency).find_map(|w| {
                let (a, b) = (w[0], w[1]);
                let (ta, tb) = (a.throughput(by_ops), b.throughput(by_ops));
                let (la, lb) = (a.mean_s, b.mean_s);
                if ta <= 0.0 || la <= 0.0 {
                    return None;
                }
                let (tr, lr) = (tb / ta, lb / la);
                (lr > QUEUEING_FACTOR * tr).then(|| (value(b), lr, tr, b.ops_per_s * b.mean_s))
            });
            let unstable = line.iter().filter(|p| p.cv.is_some_and(|c| c > SPREAD_CV)).map(|p| value(p)).collect();
            out.push(KeyVerdict {
                key: key.clone(),
                at,
                peak: (value(best), peak),
                knee: (value(knee), knee.throughput(by_ops)),
                queueing,
                unstable,
            });
        }
    }
    out
}

/// The verdict in words: one paragraph per key line, with the figures.
pub fn paragraph(v: &KeyVerdict, unit: &str) -> String {
    let at = if v.at.is_empty() { String::new() } else { format!(" (at {})", v.at) };
    let mut s = format!(
        "{}{at}: throughput peaks at {:.1} {unit} with {}={}; the knee ({:.0} % of the peak) is {}={} at {:.1} {unit}",
        v.key,
        v.peak.1,
        v.key,
        v.peak.0,
        KNEE_SHARE * 100.0,
        v.key,
        v.knee.0,
        v.knee.1
    );
    match &v.queueing {
        Some((at, lr, tr, inflight)) => s.push_str(&format!(
            "; from {}={at} latency rose {lr:.2}x while throughput rose {tr:.2}x: the store stopped absorbing more \
             (in flight by Little's law: {inflight:.1})",
            v.key
        )),
        None if CONCURRENCY_KEYS.contains(&v.key.as_str()) => s.push_str("; latency never rose faster than throughput"),
        None => {}
    }
    if !v.unstable.is_empty() {
        s.push_str(&format!(
            "; repeats disagree (cv over {:.0} %) at {}={}",
            SPREAD_CV * 100.0,
            v.key,
            v.unstable.join(", ")
        ));
    }
    s + "."
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(threads: &str, mib: f64, mean_ms: f64, cv: f64) -> PointFigures {
        PointFigures {
            settings: vec![("threads".into(), threads.into())],
            mib_per_s: mib,
            ops_per_s: mib,
            mean_s: mean_ms / 1e3,
            cv: Some(cv),
            status: "completed".into(),
            ..Default::default()
        }
    }

    /// Worked by hand: 1, 2, 4, 8, 16 threads give 100, 190, 360, 380, 385 MiB/s (1 MiB operations)
    /// at mean latencies 10, 10.5, 11, 21, 41 ms. Peak 385 at 16; 90 % of it is 346.5, first reached at
    /// 4 (360). From 4 to 8 throughput x1.056 while latency x1.909 (> 1.25 x 1.056): queueing from 8,
    /// where 380 ops/s x 0.021 s = 7.98 requests are in flight (8 threads, all busy waiting).
    #[test]
    fn knee_and_queueing_by_hand() {
        let pts = vec![
            point("1", 100.0, 10.0, 0.01),
            point("2", 190.0, 10.5, 0.02),
            point("4", 360.0, 11.0, 0.03),
            point("8", 380.0, 21.0, 0.2),
            point("16", 385.0, 41.0, 0.01),
        ];
        let v = verdict(&["threads".into()], &pts);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].peak, ("16".into(), 385.0));
        assert_eq!(v[0].knee, ("4".into(), 360.0));
        let (at, lr, tr, inflight) = v[0].queueing.clone().unwrap();
        assert_eq!(at, "8");
        assert!((lr - 21.0 / 11.0).abs() < 1e-9 && (tr - 380.0 / 360.0).abs() < 1e-9);
        assert!((inflight - 7.98).abs() < 1e-9);
        assert_eq!(v[0].unstable, ["8"]);
        let p = paragraph(&v[0], "MiB/s");
        assert!(
            p.starts_with(
                "threads: throughput peaks at 385.0 MiB/s with threads=16; the knee (90 % of the peak) is threads=4"
            ),
            "{p}"
        );
        assert!(p.contains("from threads=8 latency rose 1.91x while throughput rose 1.06x"), "{p}");
    }

    #[test]
    fn one_line_per_value_of_the_other_key_and_failed_points_left_out() {
        let mut pts = Vec::new();
        for (size, scale) in [("64k", 1.0), ("1m", 4.0)] {
            for (t, mib) in [("1", 10.0), ("2", 20.0), ("4", 21.0)] {
                let mut p = point(t, mib * scale, 10.0, 0.0);
                p.settings.push(("file-size".into(), size.into()));
                pts.push(p);
            }
        }
        pts[2].status = "failed".into();
        let v = verdict(&["threads".into(), "file-size".into()], &pts);
        let threads: Vec<_> =
            v.iter().filter(|k| k.key == "threads").map(|k| (k.at.clone(), k.knee.0.clone())).collect();
        // 64k: threads=4 failed, so 2 is the peak and the knee; 1m: 4 peaks (84), 2 (80) is the knee.
        assert_eq!(
            threads,
            [("file-size=64k".to_string(), "2".to_string()), ("file-size=1m".to_string(), "2".to_string())]
        );
        assert_eq!(v.iter().filter(|k| k.key == "file-size").count(), 3);
    }
}
