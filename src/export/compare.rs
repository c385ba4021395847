//! `storebench compare`'s output: the table of changes as text, Markdown or one HTML page (the
//! table, both runs' latency distributions overlaid, then each run's own section).

use crate::stats::compare::{Change, Test, ALPHA};
use crate::stats::report::RunReport;

/// One run compared with the base: its name and its changes.
pub struct Compared<'a> {
    /// The new run's file name.
    pub name: String,
    /// Its report.
    pub report: &'a RunReport,
    /// Its figures against the base's.
    pub changes: Vec<Change>,
}

fn test_text(t: &Test) -> String {
    match t {
        Test::Welch { over, p, n_base, n_new } => {
            format!("Welch over {over} ({n_base} vs {n_new}), p = {}", p_text(*p))
        }
        Test::Percentile { p, bound_pct } => {
            format!("Welch on the block means, p = {}; percentile bound {bound_pct:.2} %", p_text(*p))
        }
        Test::Untested { why } => format!("not tested: {why}"),
    }
}

fn p_text(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

fn value(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 0.01 {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
}

/// What a change amounts to: better, worse, or within the noise.
pub fn verdict(c: &Change) -> &'static str {
    match (c.significant, c.worse_pct() > 0.0) {
        (false, _) => "within noise",
        (true, true) => "worse",
        (true, false) => "better",
    }
}

fn rows(c: &Compared) -> Vec<[String; 6]> {
    c.changes
        .iter()
        .map(|x| {
            [
                format!("{} ({})", x.figure, x.unit),
                value(x.base),
                value(x.new),
                format!("{:+.1} %", x.change_pct),
                verdict(x).to_string(),
                test_text(&x.test),
            ]
        })
        .collect()
}

const HEAD: [&str; 6] = ["figure", "base", "new", "change", "verdict", "test"];

/// The text table, one block per new run.
pub fn text(base_name: &str, base: &RunReport, runs: &[Compared]) -> String {
    let mut out = String::new();
    for c in runs {
        out.push_str(&format!(
            "{} {}: {} against {} (significant at p < {ALPHA})\n",
            base.command, base.target, c.name, base_name
        ));
        let table = rows(c);
        let widths: Vec<usize> = (0..6)
            .map(|i| table.iter().map(|r| r[i].chars().count()).chain([HEAD[i].len()]).max().unwrap_or(0))
            .collect();
        let line = |cells: [&str; 6]| {
            let mut l = String::new();
            for (i, cell) in cells.iter().enumerate() {
                if i == 0 || i == 5 {
                    l.push_str(&format!("{cell:<w$}  ", w = widths[i]));
                } else {
                    l.push_str(&format!("{cell:>w$}  ", w = widths[i]));
                }
            }
            l.trim_end().to_string() + "\n"
        };
        out.push_str(&line(HEAD));
        for r in &table {
            out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
        }
        out.push('\n');
    }
    out
}

/// The Markdown table, one per new run.
pub fn markdown(base_name: &str, base: &RunReport, runs: &[Compared]) -> String {
    let mut out = String::new();
    for c in runs {
        out.push_str(&format!("### {} {}: {} against {}\n\n", base.command, base.target, c.name, base_name));
        out.push_str(&format!("| {} |\n|---|---:|---:|---:|---|---|\n", HEAD.join(" | ")));
        for r in rows(c) {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        out.push_str(&format!("\nSignificant at p < {ALPHA}.\n\n"));
    }
    out
}

/// The HTML page: each comparison's table, the runs' latency distributions overlaid, then every run.
pub fn html(base_name: &str, base: &RunReport, runs: &[Compared]) -> String {
    use super::html::{chart, esc};
    let mut top = String::new();
    for c in runs {
        top.push_str(&format!(
            "<h2>{} against {}</h2>\n<table class=\"compare\"><tr>{}</tr>\n",
            esc(&c.name),
            esc(base_name),
            HEAD.iter().map(|h| format!("<th>{h}</th>")).collect::<String>()
        ));
        for r in rows(c) {
            top.push_str(&format!(
                "<tr class=\"{}\">{}</tr>\n",
                r[4].replace(' ', "-"),
                r.iter().map(|x| format!("<td>{}</td>", esc(x))).collect::<String>()
            ));
        }
        top.push_str(&format!(
            "</table>\n<p class=\"note\">Significant at p &lt; {ALPHA}; docs/metrics.md, \"compare\".</p>\n"
        ));
        let mut series = chart::percentile_series(base, &[], "base ");
        series.extend(chart::percentile_series(c.report, &[], "new "));
        if !series.is_empty() {
            let xy = chart::Xy::percentiles("compare-percentiles", "Latency distributions, both runs");
            top.push_str(&chart::xy(&xy, &series, "Each run's histograms, overlaid."));
        }
    }
    let mut all = vec![(base_name.to_string(), base.clone())];
    all.extend(runs.iter().map(|c| (c.name.clone(), c.report.clone())));
    // The comparison goes first, after the page's title.
    super::html::page_with(&top, &all)
}
