//! A sweep's output: the table of points and the verdict (text), one JSON file with the sweep's
//! figures and every point's full report, and an HTML page with throughput against each key and
//! latency against throughput (one line per value of the other key), then the points' own sections.

use crate::run::sweep::Axis;
use crate::stats::report::RunReport;
use crate::stats::sweep::{lines_along, paragraph, KeyVerdict, PointFigures};

/// Points whose own sections the HTML page includes at most (beyond, the JSON has them).
const MAX_SECTIONS: usize = 24;

/// What a sweep measured.
pub struct Sweep<'a> {
    /// The command.
    pub command: &'a str,
    /// The swept keys and values.
    pub axes: &'a [Axis],
    /// Every point run (in grid order), with its figures.
    pub points: &'a [PointFigures],
    /// The verdict per key.
    pub verdict: &'a [KeyVerdict],
    /// The points not run (--max-time, Ctrl-C), and those the command refused (with why).
    pub skipped: &'a [String],
}

impl Sweep<'_> {
    fn by_ops(&self) -> bool {
        self.points.iter().all(|p| p.mib_per_s == 0.0)
    }

    fn unit(&self) -> &'static str {
        if self.by_ops() {
            "ops/s"
        } else {
            "MiB/s"
        }
    }
}

fn opt(v: Option<f64>, scale: f64) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{:.2}", x * scale))
}

/// The table and the verdict.
pub fn text(s: &Sweep) -> String {
    let keys: Vec<&str> = s.axes.iter().map(|a| a.key.as_str()).collect();
    let mut out = format!(
        "Sweep of {} over {}: {} point(s) run{}\n\n",
        s.command,
        keys.join(" x "),
        s.points.len(),
        if s.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} not run (--max-time, Ctrl-C, or refused)", s.skipped.len())
        }
    );
    let mut head: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    head.extend(["MiB/s", "ops/s", "p50 ms", "p99 ms", "CPU s/GiB", "spread", "status"].map(String::from));
    let mut rows = vec![head];
    for p in s.points {
        let mut r: Vec<String> = p.settings.iter().map(|(_, v)| v.clone()).collect();
        r.push(format!("{:.1}", p.mib_per_s));
        r.push(format!("{:.0}", p.ops_per_s));
        r.push(format!("{:.3}", p.p50_s * 1e3));
        r.push(format!("{:.3}", p.p99_s * 1e3));
        r.push(opt(p.cpu_s_per_gib, 1.0));
        r.push(p.cv.map_or_else(|| "-".into(), |c| format!("{:.1} %", c * 100.0)));
        r.push(p.status.clone());
        rows.push(r);
    }
    let cols = rows[0].len();
    let widths: Vec<usize> = (0..cols).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    for r in &rows {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    // The points that read another's prepared files, by the point that prepared them.
    let mut by: Vec<(&str, usize)> = Vec::new();
    for p in s.points.iter().filter_map(|p| p.prepared_by.as_deref()) {
        match by.iter_mut().find(|(b, _)| *b == p) {
            Some((_, n)) => *n += 1,
            None => by.push((p, 1)),
        }
    }
    if !by.is_empty() {
        let said: Vec<String> = by.iter().map(|(b, n)| format!("{b}'s files served {n} later point(s)")).collect();
        out.push_str(&format!("\nPrepared once where only read settings differ: {}.\n", said.join("; ")));
    }
    out.push_str("\nVerdict\n-------\n");
    if s.verdict.is_empty() {
        out.push_str("No completed point: nothing to say.\n");
    }
    for v in s.verdict {
        out.push_str(&paragraph(v, s.unit()));
        out.push('\n');
    }
    if !s.skipped.is_empty() {
        out.push_str(&format!("\nNot run: {}\n", s.skipped.join("; ")));
    }
    out
}

/// The JSON file: the sweep's figures and verdict, and every point's full report (in grid order).
pub fn json(s: &Sweep, reports: &[&RunReport]) -> String {
    let doc = serde_json::json!({
        "schema_version": crate::stats::report::SCHEMA_VERSION,
        "tool": "storebench",
        "version": env!("CARGO_PKG_VERSION"),
        "sweep": {
            "command": s.command,
            "axes": s.axes,
            "points": s.points,
            "verdict": s.verdict,
            "skipped": s.skipped,
        },
        "reports": reports,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// The HTML page.
pub fn html(s: &Sweep, reports: &[(String, RunReport)]) -> String {
    use super::html::{chart, esc};
    let by_ops = s.by_ops();
    let unit = s.unit();
    let mut top =
        format!("<h2>Sweep of {} over {} points</h2>\n<pre>{}</pre>\n", esc(s.command), s.points.len(), esc(&text(s)));
    for a in s.axes {
        // Throughput against this key, one line per value of the other keys.
        let mut lines = lines_along(s.points.iter(), &a.key);
        lines.sort();
        let value = |p: &PointFigures| crate::units::parse_size(p.setting(&a.key)).unwrap_or(1);
        let series: Vec<chart::Series> = lines
            .iter()
            .map(|l| {
                let mut pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| p.line_along(&a.key) == *l && p.status == "completed")
                    .map(|p| ((value(p) as f64).log2(), p.throughput(by_ops)))
                    .collect();
                pts.sort_by(|x, y| x.0.total_cmp(&y.0));
                chart::Series::line(if l.is_empty() { "throughput" } else { l }, pts)
            })
            .collect();
        let (id, title, x) =
            (format!("sweep-{}", a.key), format!("Throughput against {}", a.key), format!("log2 of {}", a.key));
        let xy = chart::Xy { id: &id, title: &title, x: &x, y: unit, log_y: false, nines_x: false };
        top.push_str(&chart::xy(
            &xy,
            &series,
            "Each completed point; the knee is the smallest setting at 90 % of the peak.",
        ));
    }
    // Latency against throughput (the hockey stick), along the first key.
    let first = &s.axes[0].key;
    let mut lines = lines_along(s.points.iter(), first);
    lines.sort();
    let series: Vec<chart::Series> = lines
        .iter()
        .map(|l| {
            let pts = s
                .points
                .iter()
                .filter(|p| p.line_along(first) == *l && p.status == "completed")
                .map(|p| (p.throughput(by_ops), p.p50_s * 1e3))
                .collect();
            chart::Series::line(if l.is_empty() { first } else { l }, pts)
        })
        .collect();
    let xy = chart::Xy {
        id: "hockey-stick",
        title: "Latency against throughput",
        x: unit,
        y: "p50 latency (ms)",
        log_y: false,
        nines_x: false,
    };
    top.push_str(&chart::xy(
        &xy,
        &series,
        &format!("Along {first}: where the line turns up, the store queues instead of serving more."),
    ));
    let shown: Vec<(String, RunReport)> = reports.iter().take(MAX_SECTIONS).cloned().collect();
    if reports.len() > MAX_SECTIONS {
        top.push_str(&format!(
            "<p class=\"note\">The first {MAX_SECTIONS} points' own sections follow; the JSON file has all {}.</p>\n",
            reports.len()
        ));
    }
    super::html::page_with(&top, &shown)
}
