//! JSON: the RunReport itself, pretty-printed.

use super::Exporter;
use crate::stats::report::RunReport;

/// Writes the report as JSON.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json"
    }
    fn render(&self, report: &RunReport) -> String {
        let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }
}
