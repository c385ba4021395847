//! The parts of a run's section every command shares: findings, the figures table with each figure's
//! formula on hover, and the parameters and provenance at the end.

use super::esc;
use crate::stats::report::RunReport;

/// The findings, first thing after the heading; nothing when none were found.
pub fn findings(r: &RunReport) -> String {
    if r.findings.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h3>Findings</h3>\n");
    for f in &r.findings {
        out.push_str(&format!(
            "<div class=\"finding\"><span class=\"rule\">{}</span>: {}<ul>{}</ul><p class=\"note\">Try: {}</p></div>\n",
            esc(&f.rule),
            esc(&f.verdict),
            f.evidence.iter().map(|e| format!("<li>{}</li>", esc(e))).collect::<String>(),
            esc(&f.advice)
        ));
    }
    out
}

/// One row of a figures table: name, value, unit, and the formula shown on hover (docs/metrics.md).
pub struct Row {
    /// The figure's name.
    pub name: String,
    /// Its value, formatted.
    pub value: String,
    /// Its unit.
    pub unit: &'static str,
    /// How it is computed.
    pub formula: &'static str,
}

/// A row of a figure with a formula.
pub fn row(name: impl Into<String>, value: impl Into<String>, unit: &'static str, formula: &'static str) -> Row {
    Row { name: name.into(), value: value.into(), unit, formula }
}

/// A table of figures; each name carries its formula on hover (and in print, after the table).
pub fn table(caption: &str, rows: &[Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<table class=\"figures\"><caption>{}</caption><tr><th>figure</th><th>value</th><th>unit</th></tr>\n",
        esc(caption)
    );
    for r in rows {
        out.push_str(&format!(
            "<tr><td><abbr title=\"{}\">{}</abbr></td><td>{}</td><td>{}</td></tr>\n",
            esc(r.formula),
            esc(&r.name),
            esc(&r.value),
            r.unit
        ));
    }
    out.push_str("</table>\n");
    out
}

/// A number with a sensible precision for a table.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        "–".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// The run's parameters and where it came from, at the end.
pub fn provenance(r: &RunReport) -> String {
    let params = serde_json::to_string_pretty(&r.params).unwrap_or_default();
    let mut out = String::from("<h3>Parameters and provenance</h3>\n<table class=\"provenance\">\n");
    for (k, v) in [
        ("tool", format!("{} {}", r.tool, r.version)),
        ("schema version", r.schema_version.to_string()),
        ("command", r.command.clone()),
        ("target", r.target.clone()),
        ("engine", r.engine.clone()),
        ("host", r.host.clone()),
        ("started at", r.started_at.clone()),
        ("usable cores", r.probes.cores.map(|c| c.to_string()).unwrap_or_else(|| "–".into())),
    ] {
        out.push_str(&format!("<tr><td>{k}</td><td>{}</td></tr>\n", esc(&v)));
    }
    out.push_str("</table>\n");
    for w in &r.warnings {
        out.push_str(&format!("<p class=\"note\">Warning: {}</p>\n", esc(w)));
    }
    out.push_str(&format!("<details open><summary>params</summary><pre>{}</pre></details>\n", esc(&params)));
    out
}
