//! `ranges`: read a set of byte ranges of one object with several strategies, a cold pass then warm
//! passes, timing every GET's first byte apart from its transfer (the GeoTrellis S3 ADR), and rank the
//! strategies on this link.

mod strategy;

pub use strategy::Strategy;

use super::data::DataPattern;
use super::Failure;
use crate::stats::aggregate::latency_stats;
pub use crate::stats::aggregate::link_fit;
use crate::stats::report::{Params, RangesParams, RangesRun, RequestReport, RunReport, StrategyReport, VerdictRow};
use crate::stats::sample::{Event, OpKind, Recorder};
use crate::store::{ReadOptions, ReadStream, StoreError, Target, WriteOptions};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A byte range, end exclusive.
pub type Range = std::ops::Range<u64>;

/// The most ranges one run reads (from a file, --range or --generate).
pub const MAX_RANGES: usize = 100_000;
/// The largest ranges file read.
pub const MAX_RANGES_FILE: u64 = 16 << 20;
/// The most GETs one pass of one strategy makes (split cuts ranges into more pieces).
pub const MAX_FETCHES: u64 = 1_000_000;
/// The cold-pass GETs listed one by one in the report and the text; the rest are counted.
pub const LISTED_REQUESTS: usize = 10_000;
/// The GETs kept to fit the link's latency and bandwidth.
const LINK_POINTS: usize = 100_000;
/// The most warm passes.
pub const MAX_WARM: usize = 1_000_000;

/// Parses `START-END` (inclusive end) or `START,LENGTH`.
pub fn parse_range(s: &str) -> Result<Range, String> {
    let s = s.trim();
    if s.len() > 64 {
        // A line of a hostile file is not echoed whole.
        let head: String = s.chars().take(32).collect();
        return Err(format!("range '{head}...' is {} characters long; a range is START-END or START,LENGTH", s.len()));
    }
    let num = |x: &str| x.trim().parse::<u64>().map_err(|_| format!("'{}' is not a byte offset", x.trim()));
    let r = if let Some((a, b)) = s.split_once(',') {
        let (start, len) = (num(a)?, num(b)?);
        if len == 0 {
            return Err(format!("range '{s}' has length 0"));
        }
        let end = start.checked_add(len).ok_or_else(|| format!("range '{s}' ends past the largest byte offset"))?;
        start..end
    } else if let Some((a, b)) = s.split_once('-') {
        let (start, end) = (num(a)?, num(b)?);
        if start > end {
            return Err(format!("range '{s}' starts after it ends (start > end)"));
        }
        let end = end.checked_add(1).ok_or_else(|| format!("range '{s}' ends past the largest byte offset"))?;
        start..end
    } else {
        return Err(format!("range '{s}' is neither START-END nor START,LENGTH"));
    };
    Ok(r)
}

/// Reads a ranges file: one range per line, `#` comments and blank lines skipped.
pub fn parse_ranges_file(path: &std::path::Path) -> Result<Vec<Range>, String> {
    let text = crate::store::config::read_input(path, "ranges file", MAX_RANGES_FILE)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if out.len() == MAX_RANGES {
            return Err(format!(
                "ranges file {} holds more than {MAX_RANGES} ranges (line {}): storebench reads at most {MAX_RANGES} per run",
                path.display(),
                i + 1
            ));
        }
        out.push(parse_range(l).map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))?);
    }
    Ok(out)
}

/// `N:SIZE[,N:SIZE]`: groups of N ranges of SIZE; the i-th range of every group starts at the i-th of
/// max(N) offsets spread evenly through the object, each jittered by the seed (as the seed's pairs of a
/// 64 KiB header and a ~2 MiB body).
pub fn generate(spec: &str, object_size: u64, seed: u64) -> Result<Vec<Range>, String> {
    let mut groups = Vec::new();
    for g in spec.split(',').map(str::trim).filter(|g| !g.is_empty()) {
        let (n, size) = g.split_once(':').ok_or_else(|| format!("invalid --generate '{g}': expected N:SIZE"))?;
        let n: usize = n.trim().parse().map_err(|_| format!("invalid --generate count '{}'", n.trim()))?;
        let size = crate::units::parse_size(size.trim())?;
        if n == 0 || size == 0 {
            return Err(format!("invalid --generate '{g}': N and SIZE must be above 0"));
        }
        groups.push((n, size));
    }
    let slots = groups.iter().map(|(n, _)| *n).max().ok_or("--generate is empty: expected N:SIZE")?;
    let count = groups.iter().fold(0usize, |a, (n, _)| a.saturating_add(*n));
    if count > MAX_RANGES {
        return Err(format!(
            "invalid --generate '{spec}': {count} ranges; storebench reads at most {MAX_RANGES} per run"
        ));
    }
    let largest = groups.iter().map(|(_, s)| *s).max().unwrap_or(0);
    if largest > object_size {
        return Err(format!("--generate ranges of {largest} bytes do not fit in the object's {object_size} bytes"));
    }
    let stride = (object_size - largest) / slots as u64;
    let mut state = seed | 1;
    let offsets: Vec<u64> = (0..slots as u64)
        .map(|i| {
            let r = super::data::xorshift(&mut state);
            i * stride + if stride > 0 { r % stride } else { 0 }
        })
        .collect();
    let mut out = Vec::new();
    for (i, &o) in offsets.iter().enumerate() {
        for (n, size) in &groups {
            if i < *n {
                out.push(o..o + size);
            }
        }
    }
    Ok(out)
}

/// Ranges cut into pieces of at most `max` bytes.
pub fn split(ranges: &[Range], max: u64) -> Vec<Range> {
    let max = max.max(1);
    let mut out = Vec::new();
    for r in ranges {
        let mut at = r.start;
        while at < r.end {
            let end = (at + max).min(r.end);
            out.push(at..end);
            at = end;
        }
    }
    out
}

/// Ranges sorted and merged where they overlap, touch, or lie at most `gap` bytes apart.
pub fn coalesce(ranges: &[Range], gap: u64) -> Vec<Range> {
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range> = Vec::new();
    for r in sorted {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The GETs a strategy makes.
pub fn fetches(strategy: Strategy, ranges: &[Range], split_size: u64, gap: u64) -> Vec<Range> {
    match strategy {
        Strategy::Sequential | Strategy::Parallel | Strategy::All => ranges.to_vec(),
        Strategy::Split => split(ranges, split_size),
        Strategy::Coalesce => coalesce(ranges, gap),
        Strategy::Whole => {
            let start = ranges.iter().map(|r| r.start).min().unwrap_or(0);
            let end = ranges.iter().map(|r| r.end).max().unwrap_or(0);
            std::iter::once(start..end).collect()
        }
    }
}

/// A validated plan.
#[derive(Clone, Debug)]
pub struct RangesPlan {
    /// The ranges to read.
    pub ranges: Vec<Range>,
    /// Strategies to run.
    pub strategies: Vec<Strategy>,
    /// split's piece size.
    pub split_size: u64,
    /// coalesce's gap.
    pub coalesce_gap: u64,
    /// GETs in flight.
    pub concurrency: usize,
    /// Warm passes.
    pub warm: usize,
    /// Check bytes.
    pub verify: bool,
    /// Seed.
    pub seed: u64,
    /// The test data written (`--data`).
    pub data: crate::workload::data::TestData,
    /// What to evict from the page cache before each read phase (`--drop-cache`).
    pub drop_cache: Option<crate::workload::DropCache>,
    /// Write the object first, of this size.
    pub prepare: Option<u64>,
}

/// Checks the ranges against the object's size.
pub fn check_ranges(ranges: &[Range], size: u64, path: &str) -> Result<(), String> {
    if ranges.is_empty() {
        return Err("no ranges to read: give --ranges FILE, --range START-END or --generate N:SIZE".into());
    }
    if ranges.len() > MAX_RANGES {
        return Err(format!("{} ranges given; storebench reads at most {MAX_RANGES} per run", ranges.len()));
    }
    if let Some(r) = ranges.iter().find(|r| r.end > size) {
        return Err(format!(
            "range {}-{} ends past the end of {path}, which holds {size} bytes (last byte {})",
            r.start,
            r.end - 1,
            size.saturating_sub(1)
        ));
    }
    Ok(())
}

/// Writes the test object of --prepare.
pub fn prepare_object(target: &Target, size: u64, data: super::data::TestData) -> Result<(), String> {
    let block = 8 << 20;
    let pattern = data.pattern(block);
    let mut buf = pattern.buffer();
    let mut w = target
        .store
        .create(&target.path, &WriteOptions { size_hint: Some(size), ..Default::default() })
        .map_err(|e| format!("--prepare: {e}"))?;
    let mut at = 0u64;
    while at < size {
        let n = (size - at).min(block as u64) as usize;
        pattern.stamp(&mut buf, at / block as u64);
        if let Err(e) = w.write(&buf[..n]) {
            let _ = w.abort();
            return Err(format!("--prepare: {e}"));
        }
        at += n as u64;
    }
    w.close().map(|_| ()).map_err(|e| format!("--prepare: {e}"))
}

/// What the bytes must be: the --prepare pattern, or a copy of the covering span read once, untimed.
pub enum Reference {
    /// The --prepare pattern (block size 8 MiB).
    Pattern(DataPattern),
    /// The covering span's bytes.
    Bytes {
        /// Offset of `data[0]`.
        start: u64,
        /// The bytes.
        data: Vec<u8>,
    },
}

impl Reference {
    fn check(&self, offset: u64, got: &[u8]) -> Result<(), u64> {
        match self {
            Reference::Pattern(p) => p.verify(offset, got),
            Reference::Bytes { start, data } => {
                let from = (offset - start) as usize;
                match got.iter().zip(&data[from..]).position(|(a, b)| a != b) {
                    Some(i) => Err(offset + i as u64),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Builds the reference for --verify.
pub fn reference(target: &Target, plan: &RangesPlan) -> Result<Option<Reference>, String> {
    if !plan.verify {
        return Ok(None);
    }
    if plan.prepare.is_some() {
        return Ok(Some(Reference::Pattern(plan.data.pattern(8 << 20))));
    }
    let span = fetches(Strategy::Whole, &plan.ranges, 0, 0).remove(0);
    let mut r = target.store.open(&target.path, &ReadOptions::default()).map_err(|e| e.to_string())?;
    let mut data = vec![0u8; (span.end - span.start) as usize];
    // read_at fills the buffer unless the object ends first; check_ranges made sure it does not.
    r.read_at(span.start, &mut data).map_err(|e| e.to_string())?;
    Ok(Some(Reference::Bytes { start: span.start, data }))
}

/// One GET's timing, nanoseconds since its pass began.
#[derive(Clone, Debug)]
struct Timed {
    fetch: Range,
    start_ns: u64,
    first_ns: u64,
    end_ns: u64,
}

/// Runs one pass: every fetch once, at most `readers.len()` at a time; returns the pass's duration and
/// each GET's timing.
fn pass(
    readers: &mut [Box<dyn ReadStream>],
    list: &[Range],
    reference: Option<&Reference>,
    path: &str,
) -> Result<(u64, Vec<Timed>), String> {
    let next = AtomicUsize::new(0);
    let t0 = Instant::now();
    let ns = |t: Instant| t.duration_since(t0).as_nanos() as u64;
    let results: Vec<Result<Vec<Timed>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = readers
            .iter_mut()
            .map(|reader| {
                let next = &next;
                s.spawn(move || {
                    let mut out = Vec::new();
                    let mut buf = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = list.get(i) else { break };
                        let len = (f.end - f.start) as usize;
                        if buf.len() < len {
                            buf.resize(len, 0);
                        }
                        let start = Instant::now();
                        // read_at fills the buffer unless the object ends first.
                        let info = reader
                            .read_at(f.start, &mut buf[..len])
                            .map_err(|e: StoreError| format!("GET bytes={}-{}: {e}", f.start, f.end - 1))?;
                        if info.bytes < len {
                            return Err(format!(
                                "GET bytes={}-{} of {path} ended after {} bytes",
                                f.start,
                                f.end - 1,
                                info.bytes
                            ));
                        }
                        let end = Instant::now();
                        if let Some(r) = reference {
                            r.check(f.start, &buf[..len])
                                .map_err(|at| format!("--verify: byte {at} of {path} differs from the object's"))?;
                        }
                        out.push(Timed {
                            fetch: f.clone(),
                            start_ns: ns(start),
                            first_ns: ns(info.first_byte),
                            end_ns: ns(end),
                        });
                    }
                    Ok(out)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let total = ns(Instant::now());
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    all.sort_by_key(|t| t.start_ns);
    Ok((total, all))
}

/// Runs every strategy; returns the figures, or the figures so far and the failure. `stop` (Ctrl-C) is
/// looked at between passes.
pub fn run(
    target: &Target,
    plan: &RangesPlan,
    reference: Option<&Reference>,
    stop: &std::sync::atomic::AtomicBool,
    residency: &mut Vec<crate::stats::findings::Residency>,
) -> (RangesRun, Option<Failure>) {
    let mut run = RangesRun::default();
    let needed: u64 = plan.ranges.iter().map(|r| r.end - r.start).sum();
    let mut seq_requests: Vec<Timed> = Vec::new();
    let mut all_requests: Vec<Timed> = Vec::new();
    for &strategy in &plan.strategies {
        let list = fetches(strategy, &plan.ranges, plan.split_size, plan.coalesce_gap);
        let k = match strategy {
            Strategy::Sequential | Strategy::Whole => 1,
            _ => plan.concurrency.min(list.len()).max(1),
        };
        // Readers are opened before the passes (an open is a HEAD on object stores), untimed.
        let mut readers = Vec::with_capacity(k);
        for _ in 0..k {
            match target.store.open(&target.path, &ReadOptions { sequential: false, ..Default::default() }) {
                Ok(r) => readers.push(r),
                Err(e) => return (run, Some(Failure::Failed(e.to_string()))),
            }
        }
        let mut rec = Recorder::new();
        let mut totals = Vec::new();
        let mut cold = Vec::new();
        let mut interrupted = false;
        for p in 0..=plan.warm {
            if stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            if p == 0 && plan.drop_cache.is_some() {
                // The cold pass reads from the store, not from this host's memory.
                let size = readers.first().map_or(0, |r| r.len());
                let phase = format!("{} cold pass", strategy.name());
                match super::before_read(target, &[(target.path.clone(), size)], &phase, 0, plan.drop_cache) {
                    Ok(r) => residency.extend(r),
                    Err(e) => return (run, Some(Failure::Failed(e))),
                }
            }
            let (total, timed) = match pass(&mut readers, &list, reference, &target.path) {
                Ok(x) => x,
                Err(e) => return (run, Some(Failure::Failed(format!("{}: {e}", strategy.name())))),
            };
            for t in &timed {
                rec.record(Event {
                    op: OpKind::DownloadBlock,
                    bytes: t.fetch.end - t.fetch.start,
                    offset: t.fetch.start,
                    start_ns: t.start_ns,
                    first_byte_ns: t.first_ns,
                    end_ns: t.end_ns,
                    error: None,
                });
            }
            // The link is fitted through at most LINK_POINTS GETs: memory stays flat with passes.
            if strategy == Strategy::Sequential {
                let room = LINK_POINTS.saturating_sub(seq_requests.len());
                seq_requests.extend(timed.iter().take(room).cloned());
            }
            let room = LINK_POINTS.saturating_sub(all_requests.len());
            all_requests.extend(timed.iter().take(room).cloned());
            if p == 0 {
                cold = timed;
            }
            totals.push(total as f64 / 1e9);
        }
        for r in readers {
            let _ = r.close();
        }
        if totals.is_empty() {
            // Stopped before this strategy's first pass: what ran before it stands.
            run.verdict = verdict(&run.strategies);
            return (run, Some(Failure::Interrupted));
        }
        let warm = &totals[1..];
        let secs = |ns: u64| ns as f64 / 1e9;
        run.strategies.push(StrategyReport {
            name: strategy.name().into(),
            requests: list.len() as u64,
            bytes_needed: needed,
            bytes_fetched: list.iter().map(|r| r.end - r.start).sum(),
            cold_s: totals[0],
            warm_mean_s: (!warm.is_empty()).then(|| warm.iter().sum::<f64>() / warm.len() as f64),
            warm_min_s: warm.iter().copied().reduce(f64::min),
            request_latency: latency_stats(rec.op(OpKind::DownloadBlock)),
            cold_requests_omitted: cold.len().saturating_sub(LISTED_REQUESTS) as u64,
            cold_requests: cold
                .iter()
                .take(LISTED_REQUESTS)
                .map(|t| RequestReport {
                    start: t.fetch.start,
                    end: t.fetch.end - 1,
                    length: t.fetch.end - t.fetch.start,
                    at_s: secs(t.start_ns),
                    first_byte_s: secs(t.first_ns - t.start_ns),
                    transfer_s: secs(t.end_ns - t.first_ns),
                    total_s: secs(t.end_ns - t.start_ns),
                })
                .collect(),
            verified: reference.is_some(),
        });
        if interrupted {
            // The passes that finished are kept and ranked.
            run.verdict = verdict(&run.strategies);
            return (run, Some(Failure::Interrupted));
        }
    }
    run.verdict = verdict(&run.strategies);
    let basis = if seq_requests.is_empty() { &all_requests } else { &seq_requests };
    let (latency, mib) = link(basis);
    run.request_latency_s = latency;
    run.stream_mib_per_s = mib;
    (run, None)
}

fn link(requests: &[Timed]) -> (f64, f64) {
    let points: Vec<(u64, f64, f64)> = requests
        .iter()
        .map(|t| {
            (t.fetch.end - t.fetch.start, (t.end_ns - t.start_ns) as f64 / 1e9, (t.first_ns - t.start_ns) as f64 / 1e9)
        })
        .collect();
    link_fit(&points)
}

/// Strategies ranked by their warm mean (the cold pass when there are no warm passes).
pub fn verdict(strategies: &[StrategyReport]) -> Vec<VerdictRow> {
    let time = |s: &StrategyReport| s.warm_mean_s.unwrap_or(s.cold_s);
    let seq = strategies.iter().find(|s| s.name == "sequential").map(time);
    let mut rows: Vec<VerdictRow> = strategies
        .iter()
        .map(|s| VerdictRow {
            rank: 0,
            strategy: s.name.clone(),
            time_s: time(s),
            vs_sequential: seq.map(|q| if time(s) > 0.0 { q / time(s) } else { 0.0 }),
        })
        .collect();
    rows.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    rows
}

/// The run's report.
pub fn report(
    target: &Target,
    plan: &RangesPlan,
    object_size: u64,
    run: RangesRun,
    failure: Option<&Failure>,
    started_at: String,
) -> RunReport {
    let params = Params::Ranges(RangesParams {
        path: target.path.clone(),
        object_size,
        ranges: plan.ranges.iter().map(|r| (r.start, r.end - 1)).collect(),
        strategies: plan.strategies.iter().map(|s| s.name().to_string()).collect(),
        split_size: plan.split_size,
        coalesce_gap: plan.coalesce_gap,
        concurrency: plan.concurrency,
        warm: plan.warm,
        seed: plan.seed,
        verify: plan.verify,
    });
    RunReport {
        counters: vec![crate::stats::report::CounterGroup { scope: "store".into(), counters: target.store.counters() }],
        section: Some(crate::stats::report::Section::Ranges(run)),
        // Only --prepare writes test data; otherwise the object is somebody else's.
        data: plan.prepare.map(|_| plan.data.choice()),
        drop_cache: plan.drop_cache.map(|d| d.name().to_string()),
        ..super::base_report("ranges", target, target.store.engine(false), params, failure, started_at)
    }
}

#[cfg(test)]
mod tests;
