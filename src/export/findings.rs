//! The Findings section, for every command: after the summary in text, as a list in Markdown (JSON
//! carries `findings` as it is). Nothing is printed when nothing was found; `--quiet` keeps it.

use crate::stats::report::RunReport;
use std::fmt::Write;

/// The findings as text: a heading, then each verdict with its evidence and what to try. With
/// `verbose`, what the probes cost.
pub fn text(r: &RunReport, verbose: bool) -> String {
    let mut out = String::new();
    if !r.findings.is_empty() {
        let _ = writeln!(out, "\nFindings");
        let _ = writeln!(out, "--------");
        for (i, f) in r.findings.iter().enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, f.verdict);
            for e in &f.evidence {
                let _ = writeln!(out, "   evidence: {e}");
            }
            let _ = writeln!(out, "   try: {}", f.advice);
        }
    }
    if verbose {
        let mut cost = Vec::new();
        if let Some(m) = &r.probes.memory {
            cost.push(format!("memory {:.1} ms ({:.0} MiB/s)", m.probe_s * 1e3, m.mib_per_s));
        }
        if let Some(l) = &r.probes.link {
            cost.push(format!("link {:.1} ms ({} {} Mbit/s)", l.probe_s * 1e3, l.interface, l.mbit_per_s));
        }
        if !r.probes.page_cache.is_empty() {
            let ms: f64 = r.probes.page_cache.iter().map(|p| p.probe_s).sum::<f64>() * 1e3;
            cost.push(format!("page-cache residency {ms:.3} ms"));
        }
        if !cost.is_empty() {
            let _ = writeln!(out, "\nProbes (outside the timed phases): {}", cost.join(", "));
        }
    }
    out
}

/// The line under a figure a finding marked as suspect (the figure's line itself keeps its seed's
/// layout), or nothing.
pub fn suspect_line(r: &RunReport, figures: &[&str]) -> String {
    let marked: Vec<&str> = figures.iter().copied().filter(|f| crate::stats::findings::suspect(r, f)).collect();
    if marked.is_empty() {
        return String::new();
    }
    format!("  ^ SUSPECT: {} above what the path can carry (see Findings)\n", marked.join(", "))
}

/// A table cell's value with " (suspect)" when a finding marked the figure.
pub fn cell(r: &RunReport, figure: &str, value: String) -> String {
    if crate::stats::findings::suspect(r, figure) {
        format!("{value} (suspect)")
    } else {
        value
    }
}

/// The findings as a Markdown list under a heading.
pub fn markdown(r: &RunReport) -> String {
    let mut out = String::new();
    if r.findings.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\n#### Findings\n");
    for f in &r.findings {
        let _ = writeln!(out, "- **{}** ({}): {}; try: {}", f.verdict, f.rule, f.evidence.join("; "), f.advice);
    }
    out
}
