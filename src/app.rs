//! One invocation: parse the arguments, hand the command to the driver (`driver::drive`), and turn its
//! result into the exit code. This is the one place that prints errors; a run that stopped before it
//! wrote its `--json` report leaves one there saying why.

use crate::cli::{self, normalize_args, CommandArgs};
use crate::driver::{self, is_follower};
use crate::error::Error;
use clap::Parser;
use std::ffi::OsString;
use std::io::Write;

/// Declares every command once: its name, what `--help` says of it, its arguments (in `cli`) and the
/// function that runs it (in `driver`). Generates the subcommand enum clap parses, its name, its
/// arguments as [`CommandArgs`] and the dispatch. A new command is one entry here.
macro_rules! commands {
    ($($(#[doc = $doc:literal])+ $name:literal => $variant:ident($args:ty) => $run:path;)+) => {
        /// The subcommands.
        #[derive(Debug, clap::Subcommand)]
        pub enum Command {
            $($(#[doc = $doc])+ #[command(name = $name)] $variant($args),)+
        }

        impl Command {
            /// The subcommand's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Command::$variant(_) => $name,)+
                }
            }

            /// Its arguments, as every command's arguments are seen before it runs.
            pub fn args(&self) -> &dyn CommandArgs {
                match self {
                    $(Command::$variant(a) => a,)+
                }
            }

            /// Runs it.
            fn dispatch(self) -> Result<(), Error> {
                match self {
                    $(Command::$variant(a) => $run(a),)+
                }
            }
        }
    };
}

commands! {
    /// Upload SIZE bytes to URL in blocks, download them, delete them (Hadoop cloudstore's bandwidth).
    "bandwidth" => Bandwidth(cli::bandwidth::BandwidthArgs) => driver::bandwidth::run;
    /// T threads repeat a data or metadata operation on their own files, for a count or a duration,
    /// R times, with statistics across repeats (Apache Doris' fs_benchmark_tool).
    "ops" => Ops(cli::ops::OpsArgs) => driver::ops::run;
    /// Read byte ranges of one object with several strategies (sequential, parallel, split, coalesce,
    /// whole), first byte apart from transfer, cold then warm, and rank them on this link.
    "ranges" => Ranges(cli::ranges::RangesArgs) => driver::ranges::run;
    /// Hadoop's TestDFSIO on any store: -write, -read, -append, -clean of nrFiles files of fileSize,
    /// one task per file, with TestDFSIO's figures and what they hide.
    "dfsio" => Dfsio(cli::dfsio::DfsioArgs) => driver::dfsio::run;
    /// Send a file to a socket (or file) with read-write, sendfile, splice, mmap and io_uring, and
    /// compare the CPU each path costs per GiB (HADOOP-3164).
    "transfer" => Transfer(cli::transfer::TransferArgs) => driver::transfer::run;
    /// Turn JSON reports (`--json` of any command) into one self-contained HTML page with charts.
    "report" => Report(cli::report::ReportArgs) => driver::report::run;
    /// Compare runs' key figures (JSON reports of one command and setting) and say which changes are
    /// larger than the noise; --fail-if-slower PCT gates a CI job.
    "compare" => Compare(cli::compare::CompareArgs) => driver::compare::run;
}

/// storebench: how fast, how steadily and at what CPU cost data moves to and from storage.
#[derive(Debug, Parser)]
#[command(name = "storebench", version, about, long_about = None, disable_help_subcommand = true)]
struct Cli {
    /// The benchmark to run.
    #[command(subcommand)]
    command: Command,
}

/// Reduces clap's multi-line error to its first paragraph on one line.
fn one_line(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("Usage:") || t.starts_with("For more information") {
            if !parts.is_empty() {
                break;
            }
            continue;
        }
        parts.push(t.trim_start_matches("error: ").to_string());
    }
    parts.join(" ")
}

/// Runs storebench with these arguments and returns the exit code.
pub fn main_with(args: Vec<OsString>) -> i32 {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("storebench: internal error{at}: {msg} (this is a bug; please report it)");
    }));
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("").to_string();
    let cli = match Cli::try_parse_from(normalize_args(args)) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            return match e.kind() {
                DisplayHelp | DisplayVersion => {
                    let _ = e.print();
                    0
                }
                _ => {
                    let hint = if sub.is_empty() || sub.starts_with('-') {
                        "storebench --help".to_string()
                    } else {
                        format!("storebench {sub} --help")
                    };
                    eprintln!("storebench: {} (see '{hint}')", one_line(&e.render().to_string()));
                    2
                }
            };
        }
    };
    let (command, json, url) =
        (cli.command.name(), cli.command.args().json().map(|p| p.to_path_buf()), cli.command.args().target());
    let result = cli.command.dispatch();
    match result {
        Ok(()) => 0,
        Err(e) => {
            // A run that stopped before it wrote its report still leaves one saying why.
            if let Some(p) = json.filter(|_| !crate::export::manager::report_written() && !is_follower()) {
                let text = failure_report(command, url.as_deref(), &e);
                if let Err(w) = crate::export::open_output(&p, "the JSON file", false)
                    .and_then(|mut f| f.write_all(text.as_bytes()).map_err(|x| x.to_string()))
                {
                    eprintln!("storebench: warning: writing the JSON file {} failed: {w}", p.display());
                }
            }
            match &e {
                Error::Interrupted => {
                    eprintln!("storebench: {}; the figures above cover what was done", crate::run::signal::describe())
                }
                other => eprintln!("storebench: {other}"),
            }
            e.exit_code()
        }
    }
}

/// The report of a run that failed or was stopped before it had figures: the envelope of every
/// report (docs/report-schema.md) with the outcome, the error and the exit code.
fn failure_report(command: &str, target: Option<&str>, e: &Error) -> String {
    use crate::stats::report::SCHEMA_VERSION;
    let status = match e {
        Error::Interrupted => "interrupted",
        Error::Usage(_) => "refused",
        Error::Run(_) => "failed",
    };
    let error = match e {
        Error::Interrupted => crate::run::signal::describe(),
        other => other.to_string(),
    };
    let doc = serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "tool": "storebench",
        "version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "started_at": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        "host": crate::run::host_name(),
        "target": target.map(crate::store::redact_url),
        "outcome": { "status": status, "error": error, "exit_code": e.exit_code() },
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
