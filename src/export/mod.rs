//! Exporters: each turns a [`RunReport`] into one format, and reads nothing else. A new format is one
//! new file plus one line in [`exporter`].

pub mod compare;
pub mod csv;
pub mod dfsio;
pub mod findings;
pub mod html;
pub mod json;
pub mod manager;
pub mod markdown;
pub mod ops;
pub mod ranges;
pub mod sweep;
pub mod table;
pub mod transfer;

pub use markdown::markdown;

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
    /// A self-contained HTML page with charts.
    Html,
}

/// The exporter for a format. `verbose` adds per-block lines and counters to the text format.
pub fn exporter(format: Format, verbose: bool, quiet: bool) -> Box<dyn Exporter> {
    match format {
        Format::Text => Box::new(table::TextExporter { verbose, quiet }),
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Json => Box::new(json::JsonExporter),
        Format::Html => Box::new(html::HtmlExporter),
    }
}

/// Opens a report file the user named (`--json`, `--csv`, `-resFile`; `what` names it in errors, as
/// "the JSON file") for writing: created if missing, replaced (or, with `append`, added to) only when it
/// is a regular file. A symbolic link,
/// device, FIFO or directory is refused with one line: report files are never written through a link
/// or into a device (`/dev/null` alone is taken, as the usual discard). The check is made on the opened
/// handle, before anything is truncated.
pub fn open_output(path: &std::path::Path, what: &str, append: bool) -> Result<std::fs::File, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let shown = format!("{what} {}", path.display());
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).append(append);
    o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC);
    let f = o.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => format!("{shown} is a symbolic link: give the report file's own path"),
        Some(libc::ENXIO) => format!("{shown} is a FIFO: give a regular file"),
        _ => format!("cannot create {shown}: {e}"),
    })?;
    let m = f.metadata().map_err(|e| format!("cannot stat {shown}: {e}"))?;
    // /dev/null is the one device a report may go to: the usual way to discard it.
    let discard = path == std::path::Path::new("/dev/null");
    if let Some(kind) = crate::store::local::not_regular(m.mode() as libc::mode_t).filter(|_| !discard) {
        return Err(format!("{shown} is {kind}: give a regular file for the report"));
    }
    if !append && !discard {
        f.set_len(0).map_err(|e| format!("cannot truncate {shown}: {e}"))?;
    }
    Ok(f)
}

/// The header lines that say what the run controlled: what the written data was made of (`--data`;
/// none when the run wrote no test data) and what `--drop-cache` evicted before each read.
pub fn controls(r: &crate::stats::report::RunReport) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(d) = r.data.as_ref() {
        let (kind, pct) = d.pattern.split_once(':').map_or((d.pattern.as_str(), ""), |(k, p)| (k, p));
        let what = match kind {
            "random" => "random (incompressible, no block repeats another)".to_string(),
            "zeros" => "zeros".to_string(),
            "compressible" => format!("compressible {pct} % (the last {pct} % of every 4 KiB is zero)"),
            "dedupe" => format!("dedupe {pct} % ({pct} % of blocks repeat an earlier block)"),
            other => other.to_string(),
        };
        out.push(format!("Data: {what}, seed {}", d.seed));
    }
    match r.drop_cache.as_deref() {
        Some("all") => out.push("Page cache: all of it dropped before each read (/proc/sys/vm/drop_caches)".into()),
        Some(_) => out.push("Page cache: the files read evicted before each read (fsync, fadvise DONTNEED)".into()),
        None => {}
    }
    if let Some(n) = r.reorder {
        out.push(format!("Reorder: rank r read what rank (r + {n}) mod ranks wrote (--reorder {n})"));
    }
    out
}
