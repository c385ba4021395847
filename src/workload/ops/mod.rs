//! `ops`: T threads repeat operations on their own files (thread K on `BASE/test_K`, as Apache Doris'
//! fs_benchmark_tool) for a number of iterations or for a duration, R times. Threads start together
//! behind a barrier, record into thread-local histograms, and merge at the end of each repeat; the
//! figures of the repeats are then summarized (mean, median, stddev, cv, min, max).

mod op;

pub use op::Op;

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

    fn has(&self, op: Op) -> bool {
        self.mix.iter().any(|(o, _)| *o == op)
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
    /// (end ns since the repeat's epoch, bytes) of each successful operation.
    pub done: Vec<(u64, u64)>,
    /// The first failure messages.
    pub errors: Vec<String>,
    /// Failed operations.
    pub failed: u64,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
}

/// The file thread `k` works on.
pub fn file_of(dir: &str, k: usize) -> String {
    join(dir, &format!("test_{k}"))
}

/// The files a run made and must remove, and the base directory it made, if any.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Prepared {
    /// The base directory or prefix the operations work in.
    pub base: String,
    /// storebench made `base` itself (a fresh temporary directory).
    pub made_base: bool,
    /// Files storebench created before the run.
    pub files: Vec<String>,
    /// The file single_read and prefetch_read read.
    pub single: Option<String>,
    /// The threads (K of test_K) whose create_write has created their file in this process: a file
    /// is created exclusively until then, and replaced only after.
    #[serde(skip)]
    pub written: std::sync::Mutex<std::collections::BTreeSet<usize>>,
}

fn write_file(
    target: &Target,
    path: &str,
    size: u64,
    buffer: u64,
    data: &[u8],
    overwrite: bool,
) -> Result<(), StoreError> {
    let opts = WriteOptions { overwrite, size_hint: Some(size), ..Default::default() };
    let mut w = target.store.create(path, &opts)?;
    let mut left = size;
    while left > 0 {
        let n = left.min(buffer) as usize;
        if let Err(e) = w.write(&data[..n]) {
            let _ = w.abort();
            return Err(e);
        }
        left -= n as u64;
    }
    w.close().map(|_| ())
}

/// Checks and creates what the operations need before the first repeat: the base directory, the
/// threads' files (with --prepare, or checks they exist), delete's files, the single-read file.
pub fn prepare(target: &Target, plan: &OpsPlan, default_base: bool) -> Result<Prepared, String> {
    let mut p = Prepared { base: target.path.trim_end_matches('/').to_string(), ..Default::default() };
    match prepare_into(target, plan, default_base, &mut p) {
        Ok(()) => Ok(p),
        Err(e) => {
            // Nothing runs: take back what was made so far.
            let _ = remove_made(target, &p, Vec::new());
            Err(e)
        }
    }
}

fn prepare_into(target: &Target, plan: &OpsPlan, default_base: bool, p: &mut Prepared) -> Result<(), String> {
    let store = &target.store;
    if default_base {
        p.base = join(&p.base, &super::bandwidth::unique_name());
        store.create_dir(&p.base).map_err(|e| format!("cannot create the run directory: {e}"))?;
        p.made_base = true;
    } else if !p.base.is_empty() && store.capabilities().directories {
        match store.stat(&p.base).map_err(|e| e.to_string())? {
            Some(m) if m.is_dir => {}
            Some(_) => return Err(format!("{} is a file; ops needs a directory or prefix to work in", p.base)),
            None => {
                return Err(format!("directory {} does not exist; create it first or give an existing one", p.base))
            }
        }
    }
    let size = if plan.file_size == 0 { 10 << 20 } else { plan.file_size };
    let data = DataPattern::new(plan.buffer_size as usize, plan.seed).buffer();
    // Every file made here is created exclusively and goes into the ledger (`p.files`) that the
    // clean-up deletes from: nothing that was there before the run is replaced or removed.
    let make = |p: &mut Prepared, path: String, size: u64| -> Result<(), String> {
        write_file(target, &path, size, plan.buffer_size, &data, false).map_err(|e| match e {
            StoreError::AlreadyExists { .. } => format!(
                "{path} already exists: storebench creates only files of its own; remove it or use another directory"
            ),
            e => format!("preparing {path}: {e}"),
        })?;
        p.files.push(path);
        Ok(())
    };
    let exists = |f: &str| store.exists(f).map_err(|e| e.to_string());
    if plan.has(Op::CreateWrite) {
        // create_write writes test_K itself, alone or in a mix: it must never take over a file that is
        // already there (whoever made it), so a run that writes starts from none of them.
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if exists(&f)? {
                return Err(format!(
                    "{f} already exists (left by an earlier --keep run?): create_write will not overwrite it; remove it or use another directory"
                ));
            }
        }
    }
    if plan.has(Op::Rename) && !store.capabilities().atomic_rename {
        // rename goes to test_K_new and back. Where rename is a copy that would replace test_K_new
        // (object stores), that name must be free before the run; elsewhere a rename onto an existing
        // name fails on its own, without replacing it, and counts as a failed operation.
        for k in 0..plan.threads {
            let f = format!("{}_new", file_of(&p.base, k));
            if exists(&f)? {
                return Err(format!("{f} already exists: rename would replace it; remove it or use another directory"));
            }
        }
    }
    let thread_files = plan.needs_thread_files() || (plan.mix.len() > 1 && plan.has(Op::CreateWrite));
    if thread_files {
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if exists(&f)? {
                continue;
            }
            if !plan.prepare {
                return Err(format!(
                    "{f} does not exist: {} reads the files `storebench ops --op create_write --keep` leaves in {}; run that first (same --threads), or add --prepare",
                    plan.name(),
                    if p.base.is_empty() { "the store's root" } else { &p.base }
                ));
            }
            make(p, f, size)?;
        }
    }
    if plan.has(Op::Delete) {
        let n = plan.iterations.unwrap_or(0);
        for k in 0..plan.threads {
            for i in 0..n * plan.repeats as u64 {
                let f = join(&p.base, &format!("test_{k}_{i}"));
                make(p, f, 0)?;
            }
        }
    }
    if plan.has(Op::List) && plan.prepare && !thread_files {
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if !exists(&f)? {
                make(p, f, 0)?;
            }
        }
    }
    if plan.needs_single_file() {
        match &plan.file_path {
            Some(f) => match store.stat(f).map_err(|e| e.to_string())? {
                Some(m) if !m.is_dir => p.single = Some(f.clone()),
                _ => {
                    return Err(format!(
                        "--file-path {f} does not exist (or is a directory): give an existing file to read"
                    ))
                }
            },
            None if plan.prepare => {
                // Random reads need room to land in: at least 64 MiB.
                let f = join(&p.base, "single_read.dat");
                make(p, f.clone(), if plan.random { size.max(64 << 20) } else { size })?;
                p.single = Some(f);
            }
            None => {
                return Err(format!(
                    "{} reads one given file: pass --file-path (conf: file_path), or add --prepare to make one",
                    plan.name()
                ))
            }
        }
    }
    Ok(())
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
            let info =
                if prefetch { s.read_at(at, &mut self.buf[..want])? } else { s.read_next(&mut self.buf[..want])? };
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
                write_file(self.target, &mine, size, plan.buffer_size, &self.data, ours)?;
                written().insert(self.k);
                Ok((size, None))
            }
            Op::OpenRead => self.read(&mine, plan.file_size, false, rec),
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
    let mut w = Worker {
        plan,
        target,
        prepared,
        k,
        repeat,
        ctx,
        data: DataPattern::new(plan.buffer_size as usize, plan.seed ^ k as u64).buffer(),
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
                out.done.push((ctx.ns(t1), bytes));
                ctx.bytes_done.fetch_add(bytes, Ordering::Relaxed);
            }
            Some(e) => {
                out.failed += 1;
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

/// The operations of a repeat, all kinds the plan records merged.
fn merged(plan: &OpsPlan, rec: &Recorder) -> OpAccumulator {
    let mut acc = OpAccumulator::default();
    // open_read, single_read and prefetch_read all record as download: count that kind once.
    let mut kinds: Vec<OpKind> = plan.mix.iter().map(|(o, _)| kind(*o)).collect();
    kinds.sort();
    kinds.dedup();
    for k in kinds {
        acc.merge(rec.op(k));
    }
    acc
}

/// When each thread's last successful operation ended (0 for none), ns since the repeat's start.
pub fn thread_ends(threads: &[ThreadRun]) -> Vec<u64> {
    threads.iter().map(|t| t.done.last().map_or(0, |d| d.0)).collect()
}

/// Operations and bytes that had ended by `ns`.
pub fn done_by(threads: &[ThreadRun], ns: u64) -> (u64, u64) {
    let (mut ops, mut bytes) = (0, 0);
    for (end, b) in threads.iter().flat_map(|t| t.done.iter()) {
        if *end <= ns {
            ops += 1;
            bytes += b;
        }
    }
    (ops, bytes)
}

/// The aggregate figures, with both throughput definitions (until the last thread ends, and until the
/// first thread ends: "stonewall"), from every thread's end (of every rank: their clocks start at a
/// common barrier) and the operations and bytes done by the first thread's end.
pub fn summarize_parts(
    plan: &OpsPlan,
    rec: &Recorder,
    ends: &[u64],
    stonewall: (u64, u64),
    cpu: CpuTimes,
) -> OpsSummary {
    let acc = merged(plan, rec);
    let wall_ns = ends.iter().copied().max().unwrap_or(0);
    let stonewall_ns = ends.iter().copied().min().unwrap_or(0);
    let (sw_ops, sw_bytes) = stonewall;
    let secs = |ns: u64| ns as f64 / 1e9;
    let per_s = |x: f64, ns: u64| crate::units::per_second(x, secs(ns));
    let mib_per_s = |b: u64, ns: u64| crate::units::mib_per_s(b as f64, secs(ns));
    OpsSummary {
        ops: acc.ok,
        errors: acc.errors,
        bytes: acc.bytes,
        wall_s: secs(wall_ns),
        ops_per_s: per_s(acc.ok as f64, wall_ns),
        mib_per_s: mib_per_s(acc.bytes, wall_ns),
        stonewall_s: secs(stonewall_ns),
        stonewall_ops: sw_ops,
        stonewall_bytes: sw_bytes,
        stonewall_mib_per_s: mib_per_s(sw_bytes, stonewall_ns),
        latency: latency_stats(&acc),
        cpu: cpu_report(cpu, acc.bytes),
    }
}

/// Each thread's share of a repeat, for the report's task list; `first` is the global index of the
/// first thread (rank x threads with MPI).
pub fn thread_tasks(
    threads: &[ThreadRun],
    first: usize,
    repeat: usize,
    base: &str,
    rank: u32,
    host: &str,
) -> Vec<TaskReport> {
    threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            TaskReport {
                rank,
                host: host.to_string(),
                task: format!("thread {}", first + i),
                repeat: Some(repeat),
                path: file_of(base, first + i),
                ops: t.done.len() as u64,
                errors: t.failed,
                bytes: t.done.iter().map(|d| d.1).sum(),
                ..Default::default()
            }
            .timed(t.done.last().map_or(0, |d| d.0) as f64 / 1e9)
        })
        .collect()
}

/// Adds per-second samples (another rank's) to `into`, second by second.
pub fn add_seconds(into: &mut Vec<SecondSample>, from: &[SecondSample]) {
    for x in from {
        while into.len() as u64 <= x.second {
            into.push(SecondSample { second: into.len() as u64, ..Default::default() });
        }
        into[x.second as usize].ops += x.ops;
        into[x.second as usize].bytes += x.bytes;
    }
}

/// Operations and bytes that ended in each second.
pub fn per_second(threads: &[ThreadRun]) -> Vec<SecondSample> {
    let mut out: Vec<SecondSample> = Vec::new();
    for (end, bytes) in threads.iter().flat_map(|t| t.done.iter()) {
        let s = end / 1_000_000_000;
        while out.len() as u64 <= s {
            out.push(SecondSample { second: out.len() as u64, ..Default::default() });
        }
        out[s as usize].ops += 1;
        out[s as usize].bytes += bytes;
    }
    out
}

/// A repeat's figures: the common ones, then the Doris seed's for the operation.
pub fn figures(plan: &OpsPlan, rec: &Recorder, s: &OpsSummary) -> Vec<Figure> {
    let f = |name: &str, unit: &str, value: f64| Figure { name: name.into(), unit: unit.into(), value };
    let l = &s.latency;
    let mut v = vec![
        f("ops_per_s", "1/s", s.ops_per_s),
        f("mib_per_s", "MiB/s", s.mib_per_s),
        f("stonewall_mib_per_s", "MiB/s", s.stonewall_mib_per_s),
        f("wall_s", "s", s.wall_s),
        f("latency_p50_s", "s", l.p50_s),
        f("latency_p90_s", "s", l.p90_s),
        f("latency_p99_s", "s", l.p99_s),
        f("latency_p999_s", "s", l.p999_s),
        f("latency_max_s", "s", l.max_s),
    ];
    if plan.mix.len() == 1 {
        let b = s.bytes as f64;
        let rate = if s.wall_s > 0.0 { b / s.wall_s } else { 0.0 };
        match plan.mix[0].0 {
            Op::CreateWrite => v.extend([
                f("WriteRate(B/S)", "B/s", rate),
                f("WriteTime(S)", "s", s.wall_s),
                f("WriteTotal(B)", "B", b),
            ]),
            Op::OpenRead | Op::SingleRead | Op::PrefetchRead => {
                let open = rec.op(OpKind::OpenForDownload).latency.mean().unwrap_or(0.0) / 1e9;
                v.extend([
                    f("OpenReaderTime(S)", "s", open),
                    f("ReadRate(B/S)", "B/s", rate),
                    f("ReadTime(S)", "s", s.wall_s),
                    f("ReadTotal(B)", "B", b),
                ])
            }
            op => {
                let cost = match op {
                    Op::Exists => "ExistsCost(S)",
                    Op::Stat => "StatCost(S)",
                    Op::Rename => "RenameCost(S)",
                    Op::List => "ListCost(S)",
                    _ => "DeleteCost(S)",
                };
                v.push(f(cost, "s", l.mean_s));
            }
        }
    }
    v
}

/// Mean, median, sample standard deviation, cv, min and max of `values`.
pub fn stats_of(name: &str, unit: &str, values: &[f64]) -> FigureStats {
    let n = values.len();
    if n == 0 {
        return FigureStats { name: name.into(), unit: unit.into(), ..Default::default() };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
    let stddev =
        if n > 1 { (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
    FigureStats {
        name: name.into(),
        unit: unit.into(),
        n,
        mean,
        median,
        stddev,
        cv: if mean != 0.0 { stddev / mean } else { 0.0 },
        min: sorted[0],
        max: sorted[n - 1],
    }
}

/// Statistics of every figure over `repeats`.
pub fn statistics(repeats: &[RepeatReport]) -> Vec<FigureStats> {
    let Some(first) = repeats.first() else { return Vec::new() };
    first
        .figures
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let values: Vec<f64> = repeats.iter().filter_map(|r| r.figures.get(i)).map(|g| g.value).collect();
            stats_of(&f.name, &f.unit, &values)
        })
        .collect()
}

/// The one repeat's report.
pub fn repeat_report(
    plan: &OpsPlan,
    repeat: usize,
    rec: &Recorder,
    summary: OpsSummary,
    per_second: Vec<SecondSample>,
) -> RepeatReport {
    RepeatReport { repeat, figures: figures(plan, rec, &summary), summary, ops: aggregate::op_stats(rec), per_second }
}

/// What one rank sends rank 0 after a repeat: a few KiB whatever the number of operations.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct RepeatPart {
    /// The rank.
    pub rank: u32,
    /// Its operations' statistics.
    pub stats: Vec<AccumulatorData>,
    /// When each of its threads' last operation ended, ns since the repeat's start.
    pub ends: Vec<u64>,
    /// Its operations per second.
    pub per_second: Vec<SecondSample>,
    /// Its process's CPU time in the repeat.
    pub cpu: CpuTimes,
    /// Its first failures.
    pub first_errors: Vec<String>,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
    /// Its threads' shares.
    pub tasks: Vec<TaskReport>,
    /// Its store's counters so far.
    pub counters: Vec<(String, u64)>,
}

impl RepeatPart {
    /// Adds another rank's part: statistics into `rec`, the rest into this part.
    pub fn absorb(&mut self, rec: &mut Recorder, other: RepeatPart, ranks: u32) -> Result<(), String> {
        rec.merge_data(&other.stats).map_err(|e| format!("rank {}'s statistics: {e}", other.rank))?;
        self.ends.extend(other.ends);
        add_seconds(&mut self.per_second, &other.per_second);
        self.cpu = self.cpu + other.cpu;
        let rank = other.rank;
        self.first_errors.extend(other.first_errors.into_iter().map(|e| {
            if ranks > 1 {
                format!("rank {rank}: {e}")
            } else {
                e
            }
        }));
        self.interrupted |= other.interrupted;
        self.tasks.extend(other.tasks);
        crate::stats::report::add_counters(&mut self.counters, other.counters);
        Ok(())
    }
}

/// The run's report.
#[allow(clippy::too_many_arguments)]
pub fn report(
    plan: &OpsPlan,
    target: &Target,
    prepared: &Prepared,
    all: &Recorder,
    run: OpsRun,
    counters: Vec<CounterGroup>,
    failure: Option<&Failure>,
    started_at: String,
    ranks: u32,
) -> RunReport {
    let params = Params::Ops(OpsParams {
        op: plan.name().into(),
        mix: plan.mix.iter().map(|(o, w)| (o.name().to_string(), *w)).collect(),
        threads: plan.threads,
        iterations: plan.iterations,
        duration_s: plan.duration.map(|d| d.as_secs_f64()),
        repeats: plan.repeats,
        rate: plan.rate,
        file_size: plan.file_size,
        buffer_size: plan.buffer_size,
        file_path: prepared.single.clone(),
        random: plan.random,
        seed: plan.seed,
        path: prepared.base.clone(),
        ranks,
    });
    RunReport {
        ops: aggregate::op_stats(all),
        counters,
        ops_run: Some(run),
        ..super::base_report("ops", target, target.store.engine(false), params, failure, started_at)
    }
}

/// Removes what the run created unless `--keep`: the files --prepare made, create_write's files (none
/// existed before the run: `prepare` refuses to start otherwise), and a base directory storebench made.
/// Returns what could not be removed.
pub fn cleanup(plan: &OpsPlan, target: &Target, prepared: &Prepared) -> Vec<String> {
    if plan.keep {
        return Vec::new();
    }
    let written = if plan.has(Op::CreateWrite) {
        (0..plan.threads).map(|k| file_of(&prepared.base, k)).collect()
    } else {
        Vec::new()
    };
    remove_made(target, prepared, written)
}

/// Removes the files `prepare` made plus `more`, and the base directory if storebench made it.
fn remove_made(target: &Target, prepared: &Prepared, more: Vec<String>) -> Vec<String> {
    let mut errors = Vec::new();
    let store = &target.store;
    let mut files = prepared.files.clone();
    files.extend(more);
    files.sort();
    files.dedup();
    for f in files {
        match store.delete(&f) {
            Ok(()) | Err(StoreError::NotFound { .. }) => {}
            Err(e) => errors.push(format!("deleting {f}: {e}")),
        }
    }
    if prepared.made_base {
        if let Err(e) = store.remove_dir(&prepared.base) {
            errors.push(format!("removing the run directory {}: {e}", prepared.base));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One process's aggregate figures, as the run computes them for a rank of one.
    fn summarize(plan: &OpsPlan, rec: &Recorder, threads: &[ThreadRun], cpu: CpuTimes) -> OpsSummary {
        let ends = thread_ends(threads);
        let stonewall = done_by(threads, ends.iter().copied().min().unwrap_or(0));
        summarize_parts(plan, rec, &ends, stonewall, cpu)
    }

    fn thread(done: &[(u64, u64)]) -> ThreadRun {
        ThreadRun { done: done.to_vec(), ..Default::default() }
    }

    fn plan(mix: Vec<(Op, u32)>) -> OpsPlan {
        OpsPlan {
            mix,
            threads: 2,
            iterations: None,
            duration: None,
            repeats: 1,
            rate: None,
            file_size: 1 << 20,
            buffer_size: 1 << 20,
            file_path: None,
            random: false,
            prefetch: 4,
            prepare: false,
            fail_fast: false,
            keep: false,
            seed: 1,
        }
    }

    #[test]
    fn throughput_until_last_and_until_first_thread_done() {
        // Two threads, 1 MiB per op. Thread 0: ops ending at 1 s and 2 s. Thread 1: 0.5, 1.5, 2.5, 4 s.
        let plan = plan(vec![(Op::CreateWrite, 1)]);
        let s = |x: f64| (x * 1e9) as u64;
        let t = [
            thread(&[(s(1.0), 1 << 20), (s(2.0), 1 << 20)]),
            thread(&[(s(0.5), 1 << 20), (s(1.5), 1 << 20), (s(2.5), 1 << 20), (s(4.0), 1 << 20)]),
        ];
        let mut rec = Recorder::new();
        for (start, end) in [(0.0, 1.0), (1.0, 2.0), (0.0, 0.5), (0.5, 1.5), (1.5, 2.5), (2.5, 4.0)] {
            rec.record(Event {
                op: OpKind::Upload,
                bytes: 1 << 20,
                offset: 0,
                start_ns: s(start),
                first_byte_ns: s(end),
                end_ns: s(end),
                error: None,
            });
        }
        let sum = summarize(&plan, &rec, &t, CpuTimes::default());
        // Until the last thread ends: 6 ops, 6 MiB in 4 s.
        assert_eq!((sum.ops, sum.bytes), (6, 6 << 20));
        assert_eq!(sum.wall_s, 4.0);
        assert!((sum.ops_per_s - 1.5).abs() < 1e-12 && (sum.mib_per_s - 1.5).abs() < 1e-12);
        // Until the first thread is done (thread 0 at 2 s): ops ended by then are 1.0, 2.0, 0.5, 1.5 s.
        assert_eq!(sum.stonewall_s, 2.0);
        assert_eq!((sum.stonewall_ops, sum.stonewall_bytes), (4, 4 << 20));
        assert!((sum.stonewall_mib_per_s - 2.0).abs() < 1e-12);
        // Latency: 1, 1, 0.5, 1, 1, 1.5 s: mean 1 s, max 1.5 s, min 0.5 s.
        assert!((sum.latency.mean_s - 1.0).abs() < 1e-9);
        assert_eq!((sum.latency.min_s, sum.latency.max_s), (0.5, 1.5));
        // Per second: ends at 0.5 | 1.0, 1.5 | 2.0, 2.5 | - | 4.0.
        let ps: Vec<u64> = per_second(&t).iter().map(|x| x.ops).collect();
        assert_eq!(ps, [1, 2, 2, 0, 1]);
        // The seed's figures for create_write: WriteRate = 6 MiB / 4 s, WriteTime = 4 s, WriteTotal.
        let figs = figures(&plan, &rec, &sum);
        let get = |n: &str| figs.iter().find(|f| f.name == n).unwrap().value;
        assert_eq!(get("WriteRate(B/S)"), (6 << 20) as f64 / 4.0);
        assert_eq!((get("WriteTime(S)"), get("WriteTotal(B)")), (4.0, (6 << 20) as f64));
    }

    /// The same two threads as above, on two ranks (one each): merging the ranks' parts and counting
    /// each rank's operations by the first end gives the one-process figures exactly.
    #[test]
    fn two_ranks_give_the_one_process_figures() {
        let plan = plan(vec![(Op::CreateWrite, 1)]);
        let s = |x: f64| (x * 1e9) as u64;
        let ranks = [
            (thread(&[(s(1.0), 1 << 20), (s(2.0), 1 << 20)]), vec![(0.0, 1.0), (1.0, 2.0)]),
            (
                thread(&[(s(0.5), 1 << 20), (s(1.5), 1 << 20), (s(2.5), 1 << 20), (s(4.0), 1 << 20)]),
                vec![(0.0, 0.5), (0.5, 1.5), (1.5, 2.5), (2.5, 4.0)],
            ),
        ];
        let mut merged = RepeatPart::default();
        let mut rec = Recorder::new();
        for (r, (t, ops)) in ranks.iter().enumerate() {
            let mut own = Recorder::new();
            for &(a, b) in ops {
                own.record(Event {
                    op: OpKind::Upload,
                    bytes: 1 << 20,
                    offset: 0,
                    start_ns: s(a),
                    first_byte_ns: s(b),
                    end_ns: s(b),
                    error: None,
                });
            }
            let threads = std::slice::from_ref(t);
            let part = RepeatPart {
                rank: r as u32,
                stats: own.to_data(),
                ends: thread_ends(threads),
                per_second: per_second(threads),
                cpu: CpuTimes { user_s: 0.5, system_s: 0.0 },
                tasks: thread_tasks(threads, r, 1, "d", r as u32, "h"),
                ..Default::default()
            };
            merged.absorb(&mut rec, part, 2).unwrap();
        }
        // Rank 0 announces F = 2 s; each rank counts its own operations by then: 2 + 2.
        let first = merged.ends.iter().copied().min().unwrap();
        assert_eq!(first, s(2.0));
        let (a, b) =
            (done_by(std::slice::from_ref(&ranks[0].0), first), done_by(std::slice::from_ref(&ranks[1].0), first));
        let sum = summarize_parts(&plan, &rec, &merged.ends, (a.0 + b.0, a.1 + b.1), merged.cpu);
        assert_eq!((sum.ops, sum.bytes, sum.wall_s, sum.stonewall_s), (6, 6 << 20, 4.0, 2.0));
        assert_eq!((sum.stonewall_ops, sum.stonewall_bytes), (4, 4 << 20));
        assert!((sum.ops_per_s - 1.5).abs() < 1e-12 && (sum.stonewall_mib_per_s - 2.0).abs() < 1e-12);
        assert_eq!(sum.cpu.total_s, 1.0);
        let ps: Vec<u64> = merged.per_second.iter().map(|x| x.ops).collect();
        assert_eq!(ps, [1, 2, 2, 0, 1]);
        // Thread 1 is rank 1's: 4 MiB by 4 s = 1 MiB/s.
        let t1 = &merged.tasks[1];
        assert_eq!((t1.task.as_str(), t1.rank, t1.ops, t1.path.as_str()), ("thread 1", 1, 4, "d/test_1"));
        assert!((t1.seconds - 4.0).abs() < 1e-12 && (t1.mib_per_s - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_mix_counts_each_recorded_kind_once() {
        // open_read and single_read both record as download, apart in the mix: 2 downloads + 1 stat.
        let plan = plan(vec![(Op::OpenRead, 1), (Op::Stat, 1), (Op::SingleRead, 1)]);
        let mut rec = Recorder::new();
        for op in [OpKind::Download, OpKind::Download, OpKind::Stat] {
            rec.record(Event { op, bytes: 10, offset: 0, start_ns: 0, first_byte_ns: 1, end_ns: 2, error: None });
        }
        let sum = summarize(&plan, &rec, &[thread(&[(2, 10), (2, 10), (2, 10)])], CpuTimes::default());
        assert_eq!((sum.ops, sum.bytes), (3, 30));
    }

    #[test]
    fn statistics_across_repeats_by_hand() {
        // 10, 12, 14, 20: mean 14, median 13, sample variance (16 + 4 + 0 + 36) / 3 = 56/3.
        let s = stats_of("x", "1/s", &[10.0, 20.0, 12.0, 14.0]);
        assert_eq!((s.n, s.mean, s.median, s.min, s.max), (4, 14.0, 13.0, 10.0, 20.0));
        assert!((s.stddev - (56.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((s.cv - (56.0f64 / 3.0).sqrt() / 14.0).abs() < 1e-12);
        // The seed's three repeats of ReadTime (s): 13.642, 3.91824, 3.68479 -> mean 7.08166,
        // median 3.91824, stddev 5.68258, cv 80.24 %.
        let s = stats_of("ReadTime(S)", "s", &[13.642, 3.91824, 3.68479]);
        // (the seed printed figures rounded to 6 digits from unrounded repeats, hence 1e-4)
        assert!((s.mean - 7.08166).abs() < 1e-4 && s.median == 3.91824, "{}", s.mean);
        assert!((s.stddev - 5.68258).abs() < 1e-4, "{}", s.stddev);
        assert!((s.cv - 0.8024).abs() < 1e-4);
        // One repeat: no spread.
        let s = stats_of("x", "s", &[3.0]);
        assert_eq!((s.stddev, s.cv, s.median), (0.0, 0.0, 3.0));
    }

    #[test]
    fn mix_parsing_and_weighted_choice() {
        assert_eq!(parse_mix("open_read=3, stat=1").unwrap(), vec![(Op::OpenRead, 3), (Op::Stat, 1)]);
        for (bad, needle) in [
            ("open_read", "expected op=weight"),
            ("teleport=1", "unknown operation 'teleport'"),
            ("stat=0", "weight '0'"),
            ("rename=1", "cannot hold rename"),
            ("stat=1,stat=2", "twice"),
            ("", "empty"),
        ] {
            let e = parse_mix(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
        // Weighted draws follow the weights: 3:1 over 4000 draws, within 5 %.
        let p = plan(vec![(Op::OpenRead, 3), (Op::Stat, 1)]);
        let target = crate::store::memory::MemoryStore::target("mixtest");
        let prepared = Prepared::default();
        let ctx = RunContext::new(std::sync::Arc::new(AtomicBool::new(false)));
        let mut w = Worker {
            plan: &p,
            target: &target,
            prepared: &prepared,
            k: 0,
            repeat: 1,
            ctx: &ctx,
            data: DataPattern::new(16, 1).buffer(),
            buf: Vec::new(),
            rng: 12345,
            renamed: false,
            reader: None,
        };
        let reads = (0..4000).filter(|_| w.choose() == Op::OpenRead).count();
        assert!((2850..3150).contains(&reads), "{reads}");
    }
}
