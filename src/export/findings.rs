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
    if verbose && !r.probes.page_cache.is_empty() {
        let ms: f64 = r.probes.page_cache.iter().map(|p| p.probe_s).sum::<f64>() * 1e3;
        let _ = writeln!(out, "\nProbes (outside the timed phases): page-cache residency {ms:.3} ms");
    }
    out
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
