//! cloudstore's CSV log: columns `"operation","bytes","total","duration"`, one row per operation,
//! duration in milliseconds. `total` is the running byte count of the ongoing upload or download.
//! The same row logic serves the streaming writer (rows written as the run goes) and the exporter
//! (rows from a finished report), so both produce identical files.

use super::Exporter;
use crate::stats::report::RunReport;
use crate::stats::sample::{Event, OpKind};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// The header row, exactly as cloudstore writes it.
pub const HEADER: &str = "\"operation\",\"bytes\",\"total\",\"duration\"";

/// Turns events into CSV rows, keeping the running total of the ongoing sequence.
#[derive(Debug, Default)]
pub struct CsvRows {
    total: u64,
}

impl CsvRows {
    /// The row for an event, or None for events the log leaves out (failed operations, close of a
    /// download and multipart parts, which cloudstore does not log; they are in the JSON report).
    pub fn row(&mut self, e: &Event) -> Option<String> {
        if e.error.is_some() {
            return None;
        }
        let (bytes, total) = match e.op {
            OpKind::CreateFile | OpKind::OpenForDownload => {
                self.total = 0;
                (0, 0)
            }
            OpKind::UploadBlock | OpKind::DownloadBlock => {
                self.total += e.bytes;
                (e.bytes, self.total)
            }
            OpKind::CloseUpload => (0, self.total),
            OpKind::Upload | OpKind::Download => (e.bytes, e.bytes),
            OpKind::Rename | OpKind::Delete | OpKind::Exists | OpKind::Stat | OpKind::List => (0, 0),
            OpKind::CloseDownload | OpKind::UploadPart => return None,
        };
        Some(format!("\"{}\",{},{},{:.3}", e.op.name(), bytes, total, e.duration_ns() as f64 / 1e6))
    }
}

/// Renders a report's events as the CSV log.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn name(&self) -> &'static str {
        "csv"
    }
    fn render(&self, report: &RunReport) -> String {
        let mut rows = CsvRows::default();
        let mut out = String::from(HEADER);
        out.push('\n');
        for e in &report.events {
            if let Some(r) = rows.row(e) {
                out.push_str(&r);
                out.push('\n');
            }
        }
        out
    }
}

/// A CSV log written by its own thread as events arrive; rows already written survive a crash.
pub struct CsvStream {
    /// Where workers send their events.
    pub sender: Sender<Event>,
    handle: JoinHandle<std::io::Result<()>>,
    /// The file did not exist before: this run made it.
    pub created: bool,
}

impl CsvStream {
    /// Creates the file now (so a bad path fails before the run) and starts the writer thread.
    pub fn create(path: &Path) -> Result<Self, String> {
        let created = std::fs::symlink_metadata(path).is_err();
        let file = super::open_output(path, "the CSV file", false)?;
        let (sender, receiver) = channel::<Event>();
        let handle = std::thread::Builder::new()
            .name("storebench-csv".into())
            .spawn(move || {
                let mut w = BufWriter::new(file);
                writeln!(w, "{HEADER}")?;
                let mut rows = CsvRows::default();
                for e in receiver {
                    if let Some(r) = rows.row(&e) {
                        writeln!(w, "{r}")?;
                    }
                    if !matches!(e.op, OpKind::UploadBlock | OpKind::DownloadBlock) {
                        w.flush()?;
                    }
                }
                w.flush()
            })
            .map_err(|e| format!("cannot start the CSV writer: {e}"))?;
        Ok(Self { sender, handle, created })
    }

    /// Waits for the writer to finish (every sender must have been dropped).
    pub fn finish(self) -> Result<(), String> {
        drop(self.sender);
        match self.handle.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("writing the CSV file failed: {e}")),
            Err(_) => Err("the CSV writer thread failed".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: OpKind, bytes: u64, ms: u64) -> Event {
        Event { op, bytes, offset: 0, start_ns: 0, first_byte_ns: 0, end_ns: ms * 1_000_000, error: None }
    }

    #[test]
    fn rows_as_cloudstore() {
        let mut r = CsvRows::default();
        assert_eq!(r.row(&ev(OpKind::CreateFile, 0, 397)).unwrap(), "\"create-file\",0,0,397.000");
        assert_eq!(r.row(&ev(OpKind::UploadBlock, 8388608, 2)).unwrap(), "\"upload-block\",8388608,8388608,2.000");
        assert_eq!(r.row(&ev(OpKind::UploadBlock, 8388608, 2)).unwrap(), "\"upload-block\",8388608,16777216,2.000");
        assert_eq!(r.row(&ev(OpKind::CloseUpload, 0, 11706)).unwrap(), "\"close-upload\",0,16777216,11706.000");
        assert_eq!(r.row(&ev(OpKind::Upload, 16777216, 31598)).unwrap(), "\"upload\",16777216,16777216,31598.000");
        assert_eq!(r.row(&ev(OpKind::OpenForDownload, 0, 47)).unwrap(), "\"open-for-download\",0,0,47.000");
        assert_eq!(r.row(&ev(OpKind::DownloadBlock, 100, 1)).unwrap(), "\"download-block\",100,100,1.000");
        assert_eq!(r.row(&ev(OpKind::CloseDownload, 0, 1)), None);
        let mut failed = ev(OpKind::UploadBlock, 5, 1);
        failed.error = Some("x".into());
        assert_eq!(r.row(&failed), None);
    }
}
