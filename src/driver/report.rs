//! `storebench report`: JSON reports in, one self-contained HTML page out. It measures nothing, so it
//! does not go through [`super::drive`].

use crate::cli::report::ReportArgs;
use crate::error::Error;
use crate::stats::report::RunReport;
use std::io::{Read, Write};
use std::path::Path;

/// The largest report read (a report keeps at most 65,536 events: a few tens of MiB).
const MAX_REPORT_BYTES: u64 = 512 << 20;

/// Reads one JSON report, bounded in size; the error names the file.
pub fn read_report(path: &Path) -> Result<RunReport, String> {
    let shown = path.display();
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking open: a FIFO named as a report must not hang the command until a writer appears.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot read the report {shown}: {e}"))?;
    let meta = f.metadata().map_err(|e| format!("cannot stat the report {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("the report {shown} is not a regular file: give a JSON file a run wrote with --json"));
    }
    let mut text = String::new();
    f.take(MAX_REPORT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the report {shown}: {e} (a report is UTF-8 JSON)"))?;
    if text.len() as u64 > MAX_REPORT_BYTES {
        return Err(format!("the report {shown} is larger than 512 MiB: it is not a storebench report"));
    }
    RunReport::from_json(&text).map_err(|e| format!("{shown}: {e}"))
}

/// The name a run goes by in the page: its file's name.
pub fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Runs `report`.
pub fn run(args: ReportArgs) -> Result<(), Error> {
    let mut reports = Vec::new();
    for p in &args.runs {
        reports.push((name_of(p), read_report(p).map_err(Error::Usage)?));
    }
    let html = crate::export::html::page(&reports);
    let mut f = crate::export::open_output(&args.output, "the HTML file", false).map_err(Error::Usage)?;
    f.write_all(html.as_bytes())
        .map_err(|e| Error::Run(format!("writing the HTML file {} failed: {e}", args.output.display())))?;
    eprintln!(
        "storebench: wrote {} ({} run(s), {} KiB)",
        args.output.display(),
        reports.len(),
        html.len().div_ceil(1024)
    );
    Ok(())
}
