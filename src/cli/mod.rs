//! Command-line arguments as parsed by clap, before validation. One file per subcommand.
//!
//! The seeds' tools use single-dash long options (`-block 8`, `-csv file`); [`normalize_args`] turns
//! them into clap's double-dash form before parsing, so both spellings work.

pub mod bandwidth;
pub mod dfsio;
pub mod ops;
pub mod ranges;
pub mod store;
pub mod transfer;

use clap::{Parser, Subcommand};
use std::ffi::OsString;

/// storebench: how fast, how steadily and at what CPU cost data moves to and from storage.
#[derive(Debug, Parser)]
#[command(name = "storebench", version, about, long_about = None, disable_help_subcommand = true)]
pub struct Cli {
    /// The benchmark to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Upload SIZE bytes to URL in blocks, download them, delete them (Hadoop cloudstore's bandwidth).
    Bandwidth(bandwidth::BandwidthArgs),
    /// T threads repeat a data or metadata operation on their own files, for a count or a duration,
    /// R times, with statistics across repeats (Apache Doris' fs_benchmark_tool).
    Ops(ops::OpsArgs),
    /// Read byte ranges of one object with several strategies (sequential, parallel, split, coalesce,
    /// whole), first byte apart from transfer, cold then warm, and rank them on this link.
    Ranges(ranges::RangesArgs),
    /// Hadoop's TestDFSIO on any store: -write, -read, -append, -clean of nrFiles files of fileSize,
    /// one task per file, with TestDFSIO's figures and what they hide.
    Dfsio(dfsio::DfsioArgs),
    /// Send a file to a socket (or file) with read-write, sendfile, splice, mmap and io_uring, and
    /// compare the CPU each path costs per GiB (HADOOP-3164).
    Transfer(transfer::TransferArgs),
}

impl Command {
    /// The subcommand's name.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Bandwidth(_) => "bandwidth",
            Command::Ops(_) => "ops",
            Command::Ranges(_) => "ranges",
            Command::Dfsio(_) => "dfsio",
            Command::Transfer(_) => "transfer",
        }
    }

    /// The `--json` file asked for, if any.
    pub fn json(&self) -> Option<&std::path::Path> {
        match self {
            Command::Bandwidth(a) => a.json.as_deref(),
            Command::Ops(a) => a.json.as_deref(),
            Command::Ranges(a) => a.json.as_deref(),
            Command::Dfsio(a) => a.json.as_deref(),
            Command::Transfer(a) => a.json.as_deref(),
        }
    }

    /// The target as the user named it, if the command has one.
    pub fn target(&self) -> Option<String> {
        match self {
            Command::Bandwidth(a) => a.url.clone(),
            Command::Ops(a) => a.url.clone(),
            Command::Ranges(a) => Some(a.url.clone()),
            Command::Dfsio(a) => a.root_dir.clone(),
            Command::Transfer(a) => a.file.as_ref().map(|f| f.display().to_string()),
        }
    }
}

/// Long options that may be written with one dash, per subcommand, and the clap option they mean.
fn single_dash_aliases(subcommand: &str) -> &'static [(&'static str, &'static str)] {
    match subcommand {
        "bandwidth" => bandwidth::SINGLE_DASH,
        "dfsio" => dfsio::SINGLE_DASH,
        _ => &[],
    }
}

/// Rewrites cloudstore/Hadoop-style single-dash long options into clap's form. `-block N` with a bare
/// number means N MiB, as in cloudstore; every other value is left as written.
pub fn normalize_args(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut sub: Option<String> = None;
    let mut rest_literal = false;
    let mut iter = args.into_iter().peekable();
    if let Some(prog) = iter.next() {
        out.push(prog);
    }
    while let Some(arg) = iter.next() {
        let Some(s) = arg.to_str().map(str::to_string) else {
            out.push(arg);
            continue;
        };
        if rest_literal {
            out.push(arg);
            continue;
        }
        if s == "--" {
            rest_literal = true;
            out.push(arg);
            continue;
        }
        if sub.is_none() && !s.starts_with('-') {
            sub = Some(s.clone());
            out.push(arg);
            continue;
        }
        let aliases = single_dash_aliases(sub.as_deref().unwrap_or(""));
        let (name, inline_value) = match s.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (s.clone(), None),
        };
        match aliases.iter().find(|(alias, _)| *alias == name) {
            Some((_, long)) => {
                if *long == "--block" {
                    // cloudstore: "-block <block-size> block size in megabytes".
                    let value = match inline_value {
                        Some(v) => Some(v),
                        None => iter.next().and_then(|v| v.into_string().ok()),
                    };
                    out.push(OsString::from(*long));
                    if let Some(v) = value {
                        let bare = !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.');
                        out.push(OsString::from(if bare { format!("{v}m") } else { v }));
                    }
                } else {
                    match inline_value {
                        Some(v) => out.push(OsString::from(format!("{long}={v}"))),
                        None => out.push(OsString::from(*long)),
                    }
                }
            }
            None => out.push(arg),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &[&str]) -> Vec<String> {
        normalize_args(v.iter().map(OsString::from).collect()).into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn cloudstore_spellings() {
        assert_eq!(
            norm(&[
                "sb",
                "bandwidth",
                "-csv",
                "x.csv",
                "-block",
                "8",
                "-verbose",
                "-policy",
                "whole-file",
                "128m",
                "/tmp"
            ]),
            [
                "sb",
                "bandwidth",
                "--csv",
                "x.csv",
                "--block",
                "8m",
                "--verbose",
                "--policy",
                "whole-file",
                "128m",
                "/tmp"
            ]
        );
        assert_eq!(norm(&["sb", "bandwidth", "-block=64k", "1m"]), ["sb", "bandwidth", "--block", "64k", "1m"]);
        assert_eq!(norm(&["sb", "bandwidth", "--block", "4096", "1m"]), ["sb", "bandwidth", "--block", "4096", "1m"]);
        assert_eq!(
            norm(&["sb", "bandwidth", "-D", "a=b", "-Dc=d", "1m"]),
            ["sb", "bandwidth", "-D", "a=b", "-Dc=d", "1m"]
        );
        assert_eq!(norm(&["sb", "bandwidth", "1m", "--", "-keep"]), ["sb", "bandwidth", "1m", "--", "-keep"]);
    }
}
