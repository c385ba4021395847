//! The one export path of every command (after hyperfine's ExportManager): the files the user asked
//! for (`--json`, `--csv`) are created before the run, so a bad path fails before anything runs, and
//! written at its end from the finished report; the summary goes to standard output in `--format`.

use super::csv::CsvStream;
use super::{exporter, Format};
use crate::stats::report::RunReport;
use crate::stats::sample::Event;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

/// Set once a run has written its `--json` report (else the caller writes a failure report there).
static REPORT_WRITTEN: AtomicBool = AtomicBool::new(false);

/// Records that this process wrote its `--json` file itself (a sweep's), so a failed run's exit
/// does not replace it with a failure report.
pub fn mark_report_written() {
    REPORT_WRITTEN.store(true, Ordering::SeqCst);
}

/// Whether a `--json` report was written by this process.
pub fn report_written() -> bool {
    REPORT_WRITTEN.load(Ordering::SeqCst)
}

/// The summary's format on standard output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum StdoutFormat {
    /// The human summary.
    #[default]
    Text,
    /// A Markdown table (ops, one row per operation kind and repeat).
    Markdown,
    /// The whole report as JSON (what `--json` writes).
    Json,
}

/// How `--csv` is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsvMode {
    /// Every operation as the run goes (cloudstore's log; rows written survive a crash).
    Stream,
    /// One row per operation kind and repeat, at the end.
    Summary,
}

/// What a command asked for.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// `--json FILE`.
    pub json: Option<PathBuf>,
    /// `--html FILE`.
    pub html: Option<PathBuf>,
    /// `--csv FILE` and how it is written.
    pub csv: Option<(PathBuf, CsvMode)>,
    /// `--format`.
    pub format: StdoutFormat,
    /// `--verbose`: per-block lines and counters in the text.
    pub verbose: bool,
    /// `--quiet`: no preamble.
    pub quiet: bool,
    /// Say where the CSV and JSON files went, under the summary (cloudstore's "CSV formatted data
    /// saved to").
    pub announce: bool,
}

enum Csv {
    Stream(CsvStream),
    Summary(std::fs::File),
}

/// The files of one run, open from before the run to its end.
pub struct ExportManager {
    outputs: Outputs,
    json: Option<std::fs::File>,
    html: Option<std::fs::File>,
    csv: Option<Csv>,
}

impl ExportManager {
    /// Creates the output files (on the process that reports; others pass `leads = false`).
    pub fn create(outputs: Outputs, leads: bool) -> Result<ExportManager, String> {
        if !leads {
            return Ok(ExportManager { outputs, json: None, html: None, csv: None });
        }
        let csv = match &outputs.csv {
            Some((p, CsvMode::Stream)) => Some(Csv::Stream(CsvStream::create(p)?)),
            Some((p, CsvMode::Summary)) => Some(Csv::Summary(super::open_output(p, "the CSV file", false)?)),
            None => None,
        };
        let json = outputs.json.as_deref().map(|p| super::open_output(p, "the JSON file", false)).transpose()?;
        let html = outputs.html.as_deref().map(|p| super::open_output(p, "the HTML file", false)).transpose()?;
        Ok(ExportManager { outputs, json, html, csv })
    }

    /// Where a streaming CSV takes its events, if one was asked for.
    pub fn csv_sink(&self) -> Option<Sender<Event>> {
        match &self.csv {
            Some(Csv::Stream(s)) => Some(s.sender.clone()),
            _ => None,
        }
    }

    /// The run never started: a streaming CSV this run created is removed (an empty log helps nobody;
    /// the `--json` file is left for the failure report).
    pub fn abandon(self) {
        if let (Some(Csv::Stream(c)), Some((p, _))) = (self.csv, &self.outputs.csv) {
            let created = c.created;
            let _ = c.finish();
            if created {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// Writes the report into the files and returns the standard output text and what could not be
    /// written.
    pub fn finish(self, report: &RunReport) -> (String, Vec<String>) {
        let mut errors = Vec::new();
        let mut csv_saved = false;
        let csv_path = self.outputs.csv.as_ref().map(|(p, _)| p.display().to_string()).unwrap_or_default();
        match self.csv {
            Some(Csv::Stream(c)) => match c.finish() {
                Ok(()) => csv_saved = true,
                Err(e) => errors.push(e),
            },
            Some(Csv::Summary(mut f)) => match f.write_all(super::ops::csv(report).as_bytes()) {
                Ok(()) => csv_saved = true,
                Err(e) => errors.push(format!("writing the CSV file {csv_path} failed: {e}")),
            },
            None => {}
        }
        // Rendered once, for the file and for standard output alike.
        let json_text = if self.json.is_some() || self.outputs.format == StdoutFormat::Json {
            exporter(Format::Json, false, false).render(report)
        } else {
            String::new()
        };
        let mut json_saved = false;
        if let (Some(mut f), Some(p)) = (self.json, &self.outputs.json) {
            REPORT_WRITTEN.store(true, Ordering::SeqCst);
            match f.write_all(json_text.as_bytes()) {
                Ok(()) => json_saved = true,
                Err(e) => errors.push(format!("writing the JSON file {} failed: {e}", p.display())),
            }
        }
        if let (Some(mut f), Some(p)) = (self.html, &self.outputs.html) {
            if let Err(e) = f.write_all(exporter(Format::Html, false, false).render(report).as_bytes()) {
                errors.push(format!("writing the HTML file {} failed: {e}", p.display()));
            }
        }
        let o = &self.outputs;
        let mut text = match o.format {
            StdoutFormat::Text => exporter(Format::Text, o.verbose, o.quiet).render(report),
            StdoutFormat::Markdown => super::markdown(report),
            StdoutFormat::Json => json_text,
        };
        if o.announce && o.format == StdoutFormat::Text {
            if csv_saved {
                text.push_str(&format!("\nCSV formatted data saved to {csv_path}\n"));
            }
            if let (true, Some(p)) = (json_saved, &o.json) {
                text.push_str(&format!("JSON report saved to {}\n", p.display()));
            }
        }
        match o.format {
            StdoutFormat::Text => text.push_str(&super::findings::text(report, o.verbose)),
            StdoutFormat::Markdown => text.push_str(&super::findings::markdown(report)),
            StdoutFormat::Json => {}
        }
        (text, errors)
    }
}
