//! `ops`: T threads repeat operations on their own files (thread K on `BASE/test_K`, as Apache Doris'
//! fs_benchmark_tool) for a number of iterations or for a duration, R times. Threads start together
//! behind a barrier, record into thread-local histograms, and merge at the end of each repeat; the
//! figures of the repeats are then summarized (mean, median, stddev, cv, min, max).

mod op;
mod prepare;
mod summary;

pub use op::Op;
pub use prepare::*;
pub use summary::*;

use super::data::{xorshift, DataPattern};
use super::Failure;
use crate::run::RunContext;
use crate::stats::aggregate::{self, cpu_report, latency_stats};
use crate::stats::cpu::CpuTimes;
use crate::stats::report::{
    CounterGroup, Figure, FigureStats, OpsParams, OpsRun, OpsSummary, Params, RepeatReport, RunReport, SecondSample,
    TaskReport,
};
use crate::stats::sample::{AccumulatorData, Event, OpAccumulator, OpKind, Recorder};
use crate::store::{join, Prefetch, ReadOptions, StoreError, Target, WriteOptions};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Failure messages kept per repeat.
const FIRST_ERRORS: usize = 5;

/// A validated ops plan.
#[derive(Clone, Debug)]
pub struct OpsPlan {
    /// The operations and their weights (one entry for a single operation).
    pub mix: Vec<(Op, u32)>,
    /// Worker threads.
    pub threads: usize,
    /// Operations per thread, or None when bounded by `duration`.
    pub iterations: Option<u64>,
    /// How long the threads keep going, when bounded by time.
    pub duration: Option<Duration>,
    /// Repeats of the measurement.
    pub repeats: usize,
    /// Operations per second, all threads together.
    pub rate: Option<f64>,
    /// Bytes per operation (reads: 0 = the whole file).
    pub file_size: u64,
    /// Bytes per write or read call.
    pub buffer_size: u64,
    /// The file single_read and prefetch_read read (a path in the store).
    pub file_path: Option<String>,
    /// single_read at random offsets.
    pub random: bool,
    /// prefetch_read's blocks ahead.
    pub prefetch: usize,
    /// Make missing files first and remove them after.
    pub prepare: bool,
    /// Stop at the first failure.
    pub fail_fast: bool,
    /// Keep the files at the end.
    pub keep: bool,
    /// Seed of mix and random choices.
    pub seed: u64,
    /// The test data written (`--data`).
    pub data: crate::workload::data::TestData,
    /// What to evict from the page cache before each read phase (`--drop-cache`).
    pub drop_cache: Option<crate::workload::DropCache>,
    /// `--reorder N`: thread K of rank r reads the test file of thread K of rank (r + N) mod ranks.
    pub reorder: Option<u32>,
    /// MPI ranks of the run (each runs `threads` threads).
    pub ranks: u32,
}

impl OpsPlan {
    /// The operation's name, or "mix".
    pub fn name(&self) -> &'static str {
        if self.mix.len() == 1 {
            self.mix[0].0.name()
        } else {
            "mix"
        }
    }

    /// The thread (global index) whose test file thread `k` reads: itself, or with `--reorder N` the
    /// same thread of rank (rank + N) mod ranks, (k + N x threads) mod (threads x ranks).
    pub fn reads_of(&self, k: usize) -> usize {
        let all = self.threads * self.ranks.max(1) as usize;
        self.reorder.map_or(k, |n| (k + n as usize % self.ranks.max(1) as usize * self.threads) % all.max(1))
    }

    /// With `--reorder`, the rank whose thread wrote the file thread `k` reads.
    pub fn writer_of(&self, k: usize) -> Option<u32> {
        self.reorder.map(|_| (self.reads_of(k) / self.threads.max(1)) as u32)
    }

    fn has(&self, op: Op) -> bool {
        self.mix.iter().any(|(o, _)| *o == op)
    }

    /// Whether every operation leaves the files as they were (no create_write, rename or delete).
    pub fn reads_only(&self) -> bool {
        ![Op::CreateWrite, Op::Rename, Op::Delete].iter().any(|o| self.has(*o))
    }

    /// Whether the operations need each thread's test_K.
    fn needs_thread_files(&self) -> bool {
        [Op::OpenRead, Op::Exists, Op::Stat, Op::Rename].iter().any(|o| self.has(*o))
    }

    /// Whether the operations read --file-path.
    fn needs_single_file(&self) -> bool {
        self.has(Op::SingleRead) || self.has(Op::PrefetchRead)
    }
}

/// The kind an operation is recorded as.
pub fn kind(op: Op) -> OpKind {
    match op {
        Op::CreateWrite => OpKind::Upload,
        Op::OpenRead | Op::SingleRead | Op::PrefetchRead => OpKind::Download,
        Op::Exists => OpKind::Exists,
        Op::Stat => OpKind::Stat,
        Op::Rename => OpKind::Rename,
        Op::List => OpKind::List,
        Op::Delete => OpKind::Delete,
    }
}

/// Parses `op=weight,...`.
pub fn parse_mix(s: &str) -> Result<Vec<(Op, u32)>, String> {
    let mut mix = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, w) =
            part.split_once('=').ok_or_else(|| format!("invalid --mix entry '{part}': expected op=weight"))?;
        let op = Op::parse(name.trim()).map_err(|e| format!("--mix: {e}"))?;
        let w: u32 = match w.trim().parse() {
            Ok(w) if w > 0 => w,
            _ => {
                return Err(format!("invalid --mix weight '{}' for {name}: expected a whole number above 0", w.trim()))
            }
        };
        if matches!(op, Op::Rename | Op::Delete) {
            return Err(format!("--mix cannot hold {}: it moves the files the other operations use", op.name()));
        }
        if mix.iter().any(|(o, _)| *o == op) {
            return Err(format!("--mix names {} twice", op.name()));
        }
        mix.push((op, w));
    }
    if mix.is_empty() {
        return Err("--mix is empty: expected op=weight,... (e.g. open_read=80,create_write=20)".into());
    }
    Ok(mix)
}

/// What one thread did in one repeat.
#[derive(Debug, Default)]
pub struct ThreadRun {
    /// The successful operations over time (constant memory, whatever their number).
    pub done: crate::stats::timeline::Timeline,
    /// The first failure messages.
    pub errors: Vec<String>,
    /// Failed operations.
    pub failed: u64,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
}

/// Per-thread state of the loop.
struct Worker<'a> {
    plan: &'a OpsPlan,
    target: &'a Target,
    prepared: &'a Prepared,
    k: usize,
    repeat: usize,
    ctx: &'a RunContext,
    data: crate::store::aligned::AlignedBuf,
    /// What `data` holds, and the stamps of each block written from it.
    pattern: DataPattern,
    buf: Vec<u8>,
    rng: u64,
    renamed: bool,
    /// The reader single_read --random keeps open.
    reader: Option<Box<dyn crate::store::ReadStream>>,
}

impl Worker<'_> {
    fn choose(&mut self) -> Op {
        if self.plan.mix.len() == 1 {
            return self.plan.mix[0].0;
        }
        let total: u64 = self.plan.mix.iter().map(|(_, w)| *w as u64).sum();
        let mut r = xorshift(&mut self.rng) % total;
        for (op, w) in &self.plan.mix {
            if r < *w as u64 {
                return *op;
            }
            r -= *w as u64;
        }
        self.plan.mix[0].0
    }

    /// Reads up to `size` bytes (0 = to the end) from `offset` of `path`; returns bytes and first-byte time.
    /// Opens `path`, recording the open as open-for-download (the seed's OpenReaderTime).
    fn open_timed(
        &self,
        path: &str,
        opts: &ReadOptions,
        rec: &mut Recorder,
    ) -> Result<Box<dyn crate::store::ReadStream>, StoreError> {
        let t0 = Instant::now();
        let s = self.target.store.open(path, opts)?;
        let t1 = Instant::now();
        rec.record(Event {
            op: OpKind::OpenForDownload,
            bytes: 0,
            offset: 0,
            start_ns: self.ctx.ns(t0),
            first_byte_ns: self.ctx.ns(t1),
            end_ns: self.ctx.ns(t1),
            error: None,
        });
        Ok(s)
    }

    /// Reads `size` bytes (0 = to the end) of `path` from its start in --buffer-size reads: one
    /// streaming read, or block reads through the prefetch queue.
    fn read(
        &mut self,
        path: &str,
        size: u64,
        prefetch: bool,
        rec: &mut Recorder,
    ) -> Result<(u64, Option<Instant>), StoreError> {
        let plan = self.plan;
        let pf = prefetch.then_some(Prefetch { block: plan.buffer_size, depth: plan.prefetch, end: u64::MAX });
        let opts = ReadOptions { sequential: true, prefetch: pf, ..Default::default() };
        let mut s = self.open_timed(path, &opts, rec)?;
        let end = if size == 0 { s.len() } else { size.min(s.len()) };
        let mut at = 0;
        let mut first = None;
        while at < end {
            let want = (end - at).min(plan.buffer_size) as usize;
            // The bytes are read and dropped: a store that holds them in its client's buffers hands
            // those over instead of copying them into this one (docs/metrics.md, "open_read").
            let info = if prefetch {
                s.read_at(at, &mut self.buf[..want])?
            } else {
                s.read_next_with(&mut self.buf[..want], &mut |_| {})?
            };
            first.get_or_insert(info.first_byte);
            if info.bytes == 0 {
                // The file said it holds `end` bytes: a read that ends early is a failure, not a result.
                return Err(short_read(path, at, end));
            }
            at += info.bytes as u64;
        }
        s.close()?;
        Ok((at, first))
    }

    /// single_read --random: one positioned read of --file-size bytes at a random multiple of it, on a
    /// reader the thread opens once per repeat (an IOPS workload, as fio's randread).
    fn random_read(&mut self, rec: &mut Recorder) -> Result<(u64, Option<Instant>), StoreError> {
        let plan = self.plan;
        if self.reader.is_none() {
            let path = self.prepared.single.clone().unwrap_or_default();
            self.reader =
                Some(self.open_timed(&path, &ReadOptions { sequential: false, ..Default::default() }, rec)?);
        }
        let Some(r) = self.reader.as_mut() else { return Ok((0, None)) };
        if r.len() < plan.file_size {
            let path = self.prepared.single.clone().unwrap_or_default();
            return Err(StoreError::Failed {
                op: "read",
                path,
                detail: format!(
                    "it holds {} bytes, fewer than one --file-size read of {}: give a larger file or a smaller --file-size",
                    r.len(),
                    plan.file_size
                ),
            });
        }
        let slots = (r.len() / plan.file_size).max(1);
        let offset = (xorshift(&mut self.rng) % slots) * plan.file_size;
        let mut done = 0u64;
        let mut first = None;
        while done < plan.file_size {
            let want = (plan.file_size - done).min(plan.buffer_size) as usize;
            let info = r.read_at(offset + done, &mut self.buf[..want])?;
            first.get_or_insert(info.first_byte);
            if info.bytes == 0 {
                let path = self.prepared.single.clone().unwrap_or_default();
                return Err(short_read(&path, offset + done, offset + plan.file_size));
            }
            done += info.bytes as u64;
        }
        Ok((done, first))
    }

    /// Runs one operation; returns the bytes it moved and when its first byte came.
    fn one(&mut self, op: Op, i: u64, rec: &mut Recorder) -> Result<(u64, Option<Instant>), StoreError> {
        let plan = self.plan;
        let store = &self.target.store;
        let mine = file_of(&self.prepared.base, self.k);
        match op {
            Op::CreateWrite => {
                let size = if plan.file_size == 0 { 10 << 20 } else { plan.file_size };
                // The first write of the run creates test_K exclusively; later ones replace the file
                // this run made (prepare checked that none was there before).
                let written = || self.prepared.written.lock().unwrap_or_else(|e| e.into_inner());
                let ours = self.prepared.files.contains(&mine) || written().contains(&self.k);
                write_file(self.target, &mine, size, plan.buffer_size, (&mut self.data, &self.pattern), ours)?;
                written().insert(self.k);
                Ok((size, None))
            }
            Op::OpenRead => {
                let theirs = file_of(&self.prepared.base, plan.reads_of(self.k));
                self.read(&theirs, plan.file_size, false, rec)
            }
            Op::SingleRead if plan.random => self.random_read(rec),
            Op::SingleRead | Op::PrefetchRead => {
                let path = self.prepared.single.clone().unwrap_or_default();
                self.read(&path, plan.file_size, op == Op::PrefetchRead, rec)
            }
            Op::Exists => match store.exists(&mine)? {
                true => Ok((0, None)),
                false => Err(StoreError::NotFound { path: mine }),
            },
            Op::Stat => store.stat(&mine)?.map(|_| (0, None)).ok_or(StoreError::NotFound { path: mine }),
            Op::Rename => {
                let new = format!("{mine}_new");
                let (from, to) = if self.renamed { (new, mine) } else { (mine, new) };
                store.rename(&from, &to)?;
                self.renamed = !self.renamed;
                Ok((0, None))
            }
            Op::List => store.list(&self.prepared.base).map(|_| (0, None)),
            Op::Delete => {
                let n = plan.iterations.unwrap_or(0);
                let f = join(&self.prepared.base, &format!("test_{}_{}", self.k, (self.repeat as u64 - 1) * n + i));
                store.delete(&f).map(|_| (0, None))
            }
        }
    }
}

/// The error of a read that ended at `at` in a file that should hold `end` bytes.
fn short_read(path: &str, at: u64, end: u64) -> StoreError {
    StoreError::Failed {
        op: "read",
        path: path.into(),
        detail: format!("short read: the data ended at byte {at}, but the file should hold {end} bytes"),
    }
}

/// Shared state of one repeat: the rate limiter's tickets and the fail-fast flag.
#[derive(Default)]
pub struct RepeatShared {
    tickets: AtomicU64,
    failed: AtomicBool,
}

/// One thread's loop in one repeat.
#[allow(clippy::too_many_arguments)]
pub fn run_thread(
    plan: &OpsPlan,
    target: &Target,
    prepared: &Prepared,
    k: usize,
    repeat: usize,
    ctx: &RunContext,
    shared: &RepeatShared,
    rec: &mut Recorder,
) -> ThreadRun {
    let mut out = ThreadRun::default();
    let pattern = DataPattern::of(plan.buffer_size as usize, plan.data.seed ^ k as u64, plan.data.kind);
    let mut w = Worker {
        plan,
        target,
        prepared,
        k,
        repeat,
        ctx,
        data: pattern.buffer(),
        pattern,
        buf: vec![0u8; plan.buffer_size as usize],
        rng: (plan.seed ^ ((k as u64 + 1) << 32) ^ repeat as u64) | 1,
        renamed: false,
        reader: None,
    };
    let deadline = plan.duration.and_then(|d| ctx.epoch.checked_add(d));
    let mut i = 0u64;
    loop {
        if plan.iterations.is_some_and(|n| i >= n) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if ctx.stopping() {
            out.interrupted = true;
            break;
        }
        if shared.failed.load(Ordering::Relaxed) {
            break;
        }
        // With --rate, operation n of all threads is due at n / rate: wait for it, and count its
        // latency from then, so time spent queued behind a slow store is not hidden.
        let t0 = match plan.rate {
            Some(rate) => {
                let n = shared.tickets.fetch_add(1, Ordering::Relaxed);
                let Some(due) =
                    Duration::try_from_secs_f64(n as f64 / rate).ok().and_then(|d| ctx.epoch.checked_add(d))
                else {
                    break;
                };
                if deadline.is_some_and(|d| due >= d) {
                    break;
                }
                let now = Instant::now();
                if due > now && !crate::run::signal::sleep(due - now, &ctx.stop) {
                    out.interrupted = true;
                    break;
                }
                due
            }
            None => Instant::now(),
        };
        let op = w.choose();
        let r = w.one(op, i, rec);
        i += 1;
        let t1 = Instant::now();
        let (bytes, first, err) = match &r {
            Ok((b, f)) => (*b, *f, None),
            Err(e) => (0, None, Some(e.to_string())),
        };
        rec.record(Event {
            op: kind(op),
            bytes,
            offset: 0,
            start_ns: ctx.ns(t0),
            first_byte_ns: ctx.ns(first.unwrap_or(t1)),
            end_ns: ctx.ns(t1),
            error: err.clone(),
        });
        match err {
            None => {
                if plan.mix.len() > 1 {
                    out.done.record_op(ctx.ns(t1), bytes, op.name());
                } else {
                    out.done.record(ctx.ns(t1), bytes);
                }
                ctx.bytes_done.fetch_add(bytes, Ordering::Relaxed);
            }
            Some(e) => {
                out.failed += 1;
                out.done.record_error(ctx.ns(t1));
                if out.errors.len() < FIRST_ERRORS {
                    out.errors.push(format!("{}: {e}", op.name()));
                }
                if plan.fail_fast {
                    shared.failed.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
    }
    if let Some(r) = w.reader.take() {
        let _ = r.close();
    }
    // A file renamed an odd number of times goes back to its name, untimed.
    if w.renamed {
        let mine = file_of(&prepared.base, k);
        if let Err(e) = target.store.rename(&format!("{mine}_new"), &mine) {
            out.errors.push(format!("renaming back to {mine}: {e}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
