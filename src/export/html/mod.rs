//! The HTML report (`storebench report`, `--html FILE`): one self-contained page per set of runs, with
//! no network, no CDN and no external file (a Content-Security-Policy forbids loading anything), charts
//! as inline SVG (see [`chart`]), the findings at the top, the key figures with their formulas on hover,
//! and the run's parameters and provenance at the end. It prints on paper as it shows on screen.

pub mod chart;
mod commands;
mod others;
mod sections;

use crate::stats::report::RunReport;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:1em auto;\
padding:0 1em;color:#222;line-height:1.4}h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;\
margin-top:2em}h3{margin-top:1.5em}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;\
padding:.2em .6em;text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}\
abbr{text-decoration:underline dotted;cursor:help}figure.chart{margin:1em 0;break-inside:avoid}\
figure.chart svg{max-width:100%;height:auto}figcaption{font-weight:600;margin-bottom:.3em}.note{color:#555;\
font-size:.9em;margin:.2em 0}.finding{border-left:4px solid #d55e00;background:#fff6f0;padding:.4em .8em;\
margin:.5em 0}.finding .rule{font-family:monospace;color:#a33}.status-failed,.status-interrupted{color:#b00}\
pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.85em}details{margin:.5em 0}\
@media print{body{max-width:none}h2{break-after:avoid}details{display:block}.noprint{display:none}}";

/// The page for these runs (each in its own section, in order).
pub fn page(reports: &[(String, RunReport)]) -> String {
    page_with("", reports)
}

/// The page for these runs with `preface` (a comparison, a sweep) before the first run's section.
pub fn page_with(preface: &str, reports: &[(String, RunReport)]) -> String {
    let title = match reports {
        [(_, r)] => format!("storebench {} — {}", r.command, r.target),
        _ => format!("storebench — {} runs", reports.len()),
    };
    let mut body = preface.to_string();
    for (name, r) in reports {
        body.push_str(&run(name, r));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"generator\" content=\"storebench {}\">\
<title>{}</title><style>{STYLE}</style></head>\n<body>\n<h1>{}</h1>\n{body}</body></html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(&title),
        esc(&title)
    )
}

/// One run: heading and outcome, findings, the command's figures and charts, parameters, provenance.
fn run(name: &str, r: &RunReport) -> String {
    let status = format!("{:?}", r.outcome.status).to_lowercase();
    let mut out = format!(
        "<section class=\"run\" data-command=\"{}\">\n<h2>{} <small>{}</small></h2>\n<p>{} on <code>{}</code> ({}), \
         started {} on {}: <span class=\"status-{status}\">{status}</span>{}</p>\n",
        esc(&r.command),
        esc(&r.command),
        esc(name),
        esc(&r.command),
        esc(&r.target),
        esc(&r.engine),
        esc(&r.started_at),
        esc(&r.host),
        r.outcome.error.as_deref().map(|e| format!(": {}", esc(e))).unwrap_or_default()
    );
    for line in crate::export::controls(r) {
        out.push_str(&format!("<p class=\"note\">{}</p>\n", esc(&line)));
    }
    out.push_str(&sections::findings(r));
    out.push_str(&commands::body(r));
    out.push_str(&sections::provenance(r));
    out.push_str("</section>\n");
    out
}

/// The HTML exporter (one report), for `--html FILE`.
pub struct HtmlExporter;

impl super::Exporter for HtmlExporter {
    fn name(&self) -> &'static str {
        "html"
    }

    fn render(&self, report: &RunReport) -> String {
        page(&[(String::new(), report.clone())])
    }
}
