//! Command-line arguments as parsed by clap, before validation. One file per subcommand.
//!
//! The seeds' tools use single-dash long options (`-block 8`, `-csv file`); [`normalize_args`] turns
//! them into clap's double-dash form before parsing, so both spellings work.

pub mod bandwidth;
pub mod compare;
pub mod dfsio;
pub mod ops;
pub mod ranges;
pub mod report;
pub mod store;
pub mod transfer;

use std::ffi::OsString;

/// What a run controls about what it measures, on every command that writes or reads test files
/// (bandwidth, ops, dfsio, ranges): the data written and the page cache before each read.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ControlArgs {
    /// What the written data is made of: random (default: incompressible), zeros, compressible:PCT,
    /// dedupe:PCT, and seed:N for reproducible content; e.g. compressible:50,seed:7.
    #[arg(long, value_name = "PATTERN", value_parser = crate::workload::data::parse_data)]
    pub data: Option<crate::workload::data::DataSpec>,

    /// Before each read phase (and each repeat), evict the files about to be read from this host's
    /// page cache (fsync, then fadvise DONTNEED); --drop-cache=all drops the whole page cache (root).
    /// Local files only; the time it takes is outside the timed phases.
    #[arg(long, value_name = "WHAT", num_args = 0..=1, require_equals = true, default_missing_value = "files",
          value_parser = crate::workload::parse_drop_cache)]
    pub drop_cache: Option<crate::workload::DropCache>,

    /// Under MPI (bandwidth, ops, dfsio -read): rank r reads what rank (r + N) mod ranks wrote, so no
    /// rank reads its own data back through its node's cache (IOR's -C/-Q). N = ranks per node
    /// moves every read to another node.
    #[arg(long, value_name = "N", value_parser = crate::workload::parse_reorder)]
    pub reorder: Option<u32>,
}

use std::path::Path;

/// `--sweep` and its limits (bandwidth, ops, dfsio).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SweepArgs {
    /// Run over a grid of settings: KEY=V1,V2,... or KEY=LOW..HIGH (every power of two), repeatable;
    /// the grid is the product (e.g. --sweep threads=1..64 --sweep file-size=64k,1m,16m).
    #[arg(long, value_name = "KEY=VALUES", value_parser = crate::run::sweep::parse_axis)]
    pub sweep: Vec<crate::run::sweep::Axis>,
    /// Stop a sweep after the current point once this much time has passed (e.g. 30m); the points
    /// not run are listed.
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration, requires = "sweep")]
    pub max_time: Option<std::time::Duration>,
    /// Run a grid of more than 1,000 points.
    #[arg(long, requires = "sweep")]
    pub yes: bool,
}

/// The arguments of a command that takes `--sweep`: the keys it may vary, and how one is set.
pub trait Sweepable: Clone {
    /// The keys `--sweep` may vary.
    const SWEEPS: &'static [&'static str];
    /// Sets one swept setting from its value as typed.
    fn set(&mut self, key: &str, v: &str) -> Result<(), String>;
    /// These arguments with one grid point's settings.
    fn at_point(&self, point: &[(String, String)]) -> Result<Self, String> {
        let mut args = self.clone();
        for (k, v) in point {
            args.set(k, v)?;
        }
        Ok(args)
    }
}

/// The size a sweep value names.
fn size(key: &str, v: &str) -> Result<u64, String> {
    crate::units::parse_size(v).map_err(|e| format!("--sweep {key}={v}: {e}"))
}

/// The number a sweep value names.
fn count<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("--sweep {key}={v}: not a whole number"))
}

/// A store key a sweep sets (`multipart.size`, `active.blocks`), as -D would.
fn store_key(key: &str) -> Option<&'static str> {
    match key {
        "multipart.size" => Some("fs.s3a.multipart.size"),
        "active.blocks" => Some("fs.s3a.fast.upload.active.blocks"),
        _ => None,
    }
}

/// What `app` needs of every command's arguments before the command runs: where its JSON report
/// goes and what it targets (for the report of a run that fails early). Each arguments file
/// implements it.
pub trait CommandArgs {
    /// The `--json` file asked for, if any.
    fn json(&self) -> Option<&Path>;
    /// The target as the user named it, if the command has one.
    fn target(&self) -> Option<String>;
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
