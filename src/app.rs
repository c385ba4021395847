//! One invocation: parse the arguments, hand the command to the driver (`driver::drive`), and turn its
//! result into the exit code. This is the one place that prints errors; a run that stopped before it
//! wrote its `--json` report leaves one there saying why.

use crate::cli::{normalize_args, Cli, Command};
use crate::driver::{drive, is_follower};
use crate::error::Error;
use clap::Parser;
use std::ffi::OsString;
use std::io::Write;

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
    let (command, json, url) = (cli.command.name(), cli.command.json().map(|p| p.to_path_buf()), cli.command.target());
    let result = dispatch(cli.command);
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

/// Runs one command: every command goes through [`drive`] (a new command is one line here).
fn dispatch(command: Command) -> Result<(), Error> {
    use crate::driver::{bandwidth::Bandwidth, dfsio::Dfsio, ops::Ops, ranges::Ranges, transfer};
    match command {
        Command::Bandwidth(args) => drive(Bandwidth::new(args)),
        Command::Ops(args) => drive(Ops::new(args)),
        Command::Ranges(args) => drive(Ranges::new(args)),
        Command::Dfsio(args) => drive(Dfsio::new(args)),
        Command::Transfer(args) if args.serve.is_some() => transfer::serve(&args),
        Command::Transfer(args) => drive(transfer::Transfer::new(args)),
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
