//! Exporters: each turns a [`RunReport`] into one format, and reads nothing else. A new format is one
//! new file plus one line in [`exporter`].

pub mod csv;
pub mod dfsio;
pub mod json;
pub mod ops;
pub mod ranges;
pub mod table;
pub mod transfer;

use crate::stats::report::RunReport;

/// Renders a report in one format.
pub trait Exporter {
    /// The format's name, as in `--format`.
    fn name(&self) -> &'static str;
    /// The report in this format.
    fn render(&self, report: &RunReport) -> String;
}

/// The formats storebench writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The human summary (cloudstore's layout).
    Text,
    /// cloudstore's CSV log of operations.
    Csv,
    /// The RunReport as JSON.
    Json,
}

/// The exporter for a format. `verbose` adds per-block lines and counters to the text format.
pub fn exporter(format: Format, verbose: bool, quiet: bool) -> Box<dyn Exporter> {
    match format {
        Format::Text => Box::new(table::TextExporter { verbose, quiet }),
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Json => Box::new(json::JsonExporter),
    }
}
