//! `dfsio`: Hadoop's TestDFSIO on any store. One task per file `ROOT/io_data/test_io_K`; each task
//! writes, appends or reads its file in `bufferSize` calls and reports its bytes and its time (from
//! create/open to close, as TestDFSIO's mapper times `doIO`). Tasks are spread over worker threads;
//! TestDFSIO's aggregates and formulas are in [`crate::stats::dfsio`].

pub mod manifest;

use crate::run::RunContext;
use crate::stats::dfsio::Aggregates;
pub use crate::stats::dfsio::{DfsioRun, Mode, ReadOrder, TaskRecord};
use crate::stats::histogram::{Histogram, HistogramData};
use crate::store::{join, ReadOptions, StoreError, Target, WriteOptions};
use crate::workload::data::xorshift;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A validated dfsio run.
#[derive(Clone, Debug)]
pub struct DfsioPlan {
    /// What to do.
    pub mode: Mode,
    /// The order of -read.
    pub order: ReadOrder,
    /// Files, one task each.
    pub nr_files: u64,
    /// Bytes per file (per append with -append).
    pub file_size: u64,
    /// Bytes per call.
    pub buffer_size: u64,
    /// Tasks run at once.
    pub threads: usize,
    /// The benchmark's root directory in the store.
    pub root: String,
    /// The seed of -random's offsets.
    pub seed: u64,
    /// The test data written (`--data`).
    pub data: crate::workload::data::TestData,
    /// What to evict from the page cache before each read phase (`--drop-cache`).
    pub drop_cache: Option<crate::workload::DropCache>,
    /// `--reorder N` (-read only): rank r reads the files rank (r + N) mod ranks wrote.
    pub reorder: Option<u32>,
    /// MPI ranks of this run (the -write records them in the manifest; a reordered -read needs as many).
    pub ranks: u32,
}

impl DfsioPlan {
    /// The tasks (K of test_io_K) rank `rank` runs: those with K mod ranks = the rank, or with
    /// `--reorder N` those of rank (rank + N) mod ranks, which that rank's -write wrote.
    pub fn tasks_of(&self, rank: u32) -> Vec<u64> {
        let ranks = self.ranks.max(1);
        let from = self.reorder.map_or(rank, |n| crate::workload::reorder_source(rank, ranks, n));
        (0..self.nr_files).filter(|k| k % ranks as u64 == from as u64).collect()
    }

    /// With `--reorder`, the rank whose -write wrote task `k`'s file.
    pub fn writer_of(&self, k: u64) -> Option<u32> {
        self.reorder.map(|_| (k % self.ranks.max(1) as u64) as u32)
    }

    /// `ROOT/io_data`, where the files live.
    pub fn data_dir(&self) -> String {
        join(&self.root, "io_data")
    }

    /// The file of task `k`.
    pub fn file(&self, k: u64) -> String {
        join(&self.data_dir(), &task_name(k))
    }

    /// TestDFSIO's name for the test ("write", "read", "random read", "backward read", "skip read").
    pub fn test_type(&self) -> &'static str {
        match (self.mode, self.order) {
            (Mode::Write, _) => "write",
            (Mode::Append, _) => "append",
            (Mode::Clean, _) => "clean",
            (Mode::Read, ReadOrder::Sequential) => "read",
            (Mode::Read, ReadOrder::Random) => "random read",
            (Mode::Read, ReadOrder::Backward) => "backward read",
            (Mode::Read, ReadOrder::Skip { .. }) => "skip read",
        }
    }
}

/// The name of task `k`'s file in `io_data`: `test_io_K`, as TestDFSIO names it.
pub fn task_name(k: u64) -> String {
    format!("test_io_{k}")
}

/// What the tasks of one process did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Finished tasks, in task order.
    pub tasks: Vec<TaskRecord>,
    /// The first failure, if any.
    pub error: Option<String>,
    /// Whether Ctrl-C stopped the run.
    pub interrupted: bool,
    /// Bytes moved by all tasks when the first task finished, and when that was (s from the start).
    pub stonewall: Option<(u64, f64)>,
    /// Bytes moved in all (finished tasks and the unfinished parts of the others).
    pub bytes_moved: u64,
    /// Latency of every read or write call of bufferSize, mergeable across threads and ranks.
    pub calls: Histogram,
    /// The store's counters, summed over ranks.
    pub counters: Vec<(String, u64)>,
    /// Page-cache residency of each rank's files before the read (local files).
    pub residency: Vec<crate::stats::findings::Residency>,
}

/// Checks the files a run needs and makes the directories -write needs. Returns a one-line error.
/// -write replaces only files an earlier run's manifest lists (deleting them first, so every task file
/// is then created exclusively), refuses any other file in its way, and lists its files and the
/// directories it made in the manifest before a byte is written. -append writes only to listed files.
pub fn prepare(target: &Target, plan: &DfsioPlan) -> Result<(), String> {
    let store = target.store.as_ref();
    let dirs = store.capabilities().directories;
    match plan.mode {
        Mode::Write => {
            let mut made = Vec::new();
            if dirs {
                for d in [plan.root.clone(), plan.data_dir()] {
                    match store.stat(&d).map_err(|e| e.to_string())? {
                        Some(m) if m.is_dir => {}
                        Some(_) => return Err(format!("{d} exists and is not a directory")),
                        None => made.extend(create_dirs(target, &d)?),
                    }
                }
            }
            let what = format!("-nrFiles {} x -fileSize {}", plan.nr_files, crate::units::human_bytes(plan.file_size));
            let need = plan.nr_files.saturating_mul(plan.file_size);
            crate::store::ensure_room(store, &plan.data_dir(), need, &what, "")?;
            let old = manifest::read(target, plan)?;
            let replace = old.is_some();
            let mut m = old.unwrap_or_default();
            for k in 0..plan.nr_files {
                let f = plan.file(k);
                if store.stat(&f).map_err(|e| e.to_string())?.is_none() {
                    continue;
                }
                if !m.files.contains(&task_name(k)) {
                    return Err(format!(
                        "{f} exists and no storebench manifest ({}) lists it: storebench writes only files it \
                         created; remove it or give another -rootDir",
                        manifest::path(plan)
                    ));
                }
                store.delete(&f).map_err(|e| format!("replacing {f} from an earlier run: {e}"))?;
            }
            m.files.extend((0..plan.nr_files).map(task_name));
            m.dirs.extend(made);
            m.ranks = Some(plan.ranks.max(1));
            manifest::write(target, plan, &m, replace)
        }
        Mode::Read | Mode::Append => {
            if let Some(n) = plan.reorder {
                check_writers(target, plan, n)?;
            }
            let listed = if plan.mode == Mode::Append {
                manifest::read(target, plan)?.unwrap_or_default().files
            } else {
                Default::default()
            };
            for k in 0..plan.nr_files {
                let f = plan.file(k);
                match store.stat(&f).map_err(|e| e.to_string())? {
                    Some(m) if !m.is_dir => {
                        if plan.mode == Mode::Read && m.size < plan.file_size {
                            return Err(format!(
                                "-read: {f} holds {} bytes, less than -fileSize {}: run -write with the same \
                                 -fileSize first",
                                m.size, plan.file_size
                            ));
                        }
                        if plan.mode == Mode::Append && !listed.contains(&task_name(k)) {
                            return Err(format!(
                                "-append: {f} was not created by storebench dfsio -write (no manifest lists it): \
                                 storebench writes only files it created"
                            ));
                        }
                    }
                    _ => {
                        return Err(format!(
                            "-{}: {f} does not exist: run dfsio -write with -nrFiles {} and the same -rootDir first",
                            plan.test_type().rsplit(' ').next().unwrap_or("read"),
                            plan.nr_files
                        ))
                    }
                }
            }
            Ok(())
        }
        Mode::Clean => Ok(()),
    }
}

/// `-read --reorder N`: the files must have been written by a -write on as many ranks as read them,
/// as its manifest records, or "the rank that wrote it" would not be the rank the read thinks.
fn check_writers(target: &Target, plan: &DfsioPlan, n: u32) -> Result<(), String> {
    let wrote = manifest::read(target, plan)?.and_then(|m| m.ranks);
    match wrote {
        Some(w) if w == plan.ranks => Ok(()),
        Some(w) => Err(format!(
            "-read --reorder {n}: the files were written by a -write on {w} rank(s) (its manifest {} says), \
             and this read runs on {}: read on {w} ranks, or write again on {}",
            manifest::path(plan),
            plan.ranks,
            plan.ranks
        )),
        None => Err(format!(
            "-read --reorder {n}: no storebench manifest ({}) records which ranks wrote the files: write them \
             with dfsio -write on {} ranks first",
            manifest::path(plan),
            plan.ranks
        )),
    }
}

/// Creates `dir` and any missing parent on stores with directories; returns the directories it made.
fn create_dirs(target: &Target, dir: &str) -> Result<Vec<String>, String> {
    let store = target.store.as_ref();
    let mut path = String::new();
    let mut made = Vec::new();
    for part in dir.split('/') {
        if part.is_empty() {
            if path.is_empty() && dir.starts_with('/') {
                path.push('/');
            }
            continue;
        }
        path = if path.is_empty() || path == "/" { format!("{path}{part}") } else { format!("{path}/{part}") };
        if store.stat(&path).map_err(|e| e.to_string())?.is_none() {
            match store.create_dir(&path) {
                Ok(()) => made.push(path.clone()),
                Err(StoreError::AlreadyExists { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
    }
    Ok(made)
}

/// -clean: deletes the task files the manifest lists, the manifest, then the directories the runs
/// made, deepest first, when they are empty. Nothing the manifest does not list is touched: without a
/// manifest nothing is deleted. Returns how many files it removed and what it left in io_data.
pub fn clean(target: &Target, plan: &DfsioPlan) -> Result<(u64, Vec<String>), String> {
    let store = target.store.as_ref();
    let data = plan.data_dir();
    let m = manifest::read(target, plan)?.unwrap_or_default();
    let mut removed = 0;
    for n in &m.files {
        match store.delete(&join(&data, n)) {
            Ok(()) => removed += 1,
            Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    manifest::remove(target, plan)?;
    let left: Vec<String> = match store.list(&data) {
        Ok(n) => n.into_iter().map(|n| join(&data, &n)).collect(),
        Err(StoreError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(e.to_string()),
    };
    if store.capabilities().directories {
        // Only the directories -write can have made: io_data, the root and the root's parents.
        for d in m.dirs.iter().rev().filter(|d| manifest::on_the_way_to(d, &data)) {
            if let Some(meta) = store.stat(d).map_err(|e| e.to_string())? {
                if meta.is_dir && store.list(d).map_err(|e| e.to_string())?.is_empty() {
                    store.remove_dir(d).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    Ok((removed, left))
}

/// Before a read, outside the timed tasks: --drop-cache's eviction of this rank's task files, then
/// how much of them is in the page cache, on stores that can tell.
pub fn before_read(
    target: &Target,
    plan: &DfsioPlan,
    tasks: &[u64],
    rank: u32,
) -> Result<Option<crate::stats::findings::Residency>, String> {
    let files: Vec<(String, u64)> = tasks.iter().map(|&k| (plan.file(k), plan.file_size)).collect();
    super::before_read(target, &files, "read", rank, plan.drop_cache)
}

/// Runs every task of this process (`tasks`) on `plan.threads` workers.
pub fn run(target: &Target, plan: &DfsioPlan, tasks: &[u64], ctx: &RunContext, rank: u32, host: &str) -> Outcome {
    let next = AtomicUsize::new(0);
    let moved: Vec<AtomicU64> = tasks.iter().map(|_| AtomicU64::new(0)).collect();
    let first_done = AtomicBool::new(false);
    let stonewall = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let threads = plan.threads.min(tasks.len()).max(1);
    let (_, outs) = crate::run::run_workers(threads, |_| {
        let mut done = Vec::new();
        let mut error = None;
        let mut calls = Histogram::new();
        let mut buf = vec![0u8; plan.buffer_size as usize];
        let pattern = plan.data.pattern(plan.buffer_size as usize);
        if plan.mode != Mode::Read {
            buf.copy_from_slice(&pattern.buffer());
        }
        loop {
            if ctx.stopping() || failed.load(Ordering::Relaxed) {
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&k) = tasks.get(i) else { break };
            let start = Instant::now();
            match one_task(target, plan, k, (&mut buf, &pattern), &moved[i], ctx, &mut calls) {
                Ok((bytes, first_byte)) => {
                    let end = Instant::now();
                    let time_ms = (end.duration_since(start).as_millis() as i64).max(1);
                    if !first_done.swap(true, Ordering::SeqCst) {
                        let all: u64 = moved.iter().map(|m| m.load(Ordering::Relaxed)).sum();
                        *stonewall.lock().unwrap_or_else(|p| p.into_inner()) = Some((all, ctx.ns(end) as f64 / 1e9));
                    }
                    done.push(TaskRecord {
                        task: k,
                        file: plan.file(k),
                        rank,
                        host: host.to_string(),
                        bytes,
                        start_s: ctx.ns(start) as f64 / 1e9,
                        end_s: ctx.ns(end) as f64 / 1e9,
                        first_byte_s: first_byte.map(|t| ctx.ns(t) as f64 / 1e9),
                        time_ms,
                        rate_mb_s: crate::stats::dfsio::task_rate(bytes as i64, time_ms) as f64,
                        written_by: plan.writer_of(k),
                    });
                }
                Err(None) => break, // stopped
                Err(Some(e)) => {
                    failed.store(true, Ordering::Relaxed);
                    error = Some(format!("task {k} ({}): {e}", plan.file(k)));
                    break;
                }
            }
        }
        (crate::stats::sample::Recorder::new(), (done, error, calls))
    });
    let mut out = Outcome::default();
    for (done, error, calls) in outs {
        out.calls.merge(&calls);
        out.tasks.extend(done);
        if out.error.is_none() {
            out.error = error;
        }
    }
    out.tasks.sort_by_key(|t| t.task);
    out.interrupted = ctx.stopping() && out.error.is_none();
    out.stonewall = stonewall.into_inner().unwrap_or_else(|p| p.into_inner());
    out.bytes_moved = moved.iter().map(|m| m.load(Ordering::Relaxed)).sum();
    out
}

/// One task: its bytes and, for reads, when its first byte arrived; `Err(None)` when stopped,
/// `Err(Some(msg))` when it failed.
fn one_task(
    target: &Target,
    plan: &DfsioPlan,
    k: u64,
    (buf, pattern): (&mut [u8], &crate::workload::data::DataPattern),
    moved: &AtomicU64,
    ctx: &RunContext,
    calls: &mut Histogram,
) -> Result<(u64, Option<Instant>), Option<String>> {
    let store = target.store.as_ref();
    let path = plan.file(k);
    let fail = |e: StoreError| Some(e.to_string());
    // One call of `n` bytes that started at `t`: its latency, and the bytes for progress and stonewall.
    let mut account = |t: Instant, n: usize| {
        calls.record(t.elapsed().as_nanos() as u64);
        moved.fetch_add(n as u64, Ordering::Relaxed);
        ctx.bytes_done.fetch_add(n as u64, Ordering::Relaxed);
        n as u64
    };
    match plan.mode {
        Mode::Write | Mode::Append => {
            let mut w = if plan.mode == Mode::Write {
                store.create(
                    &path,
                    // Exclusive: prepare removed this file if an earlier run of ours had made it.
                    &WriteOptions { overwrite: false, size_hint: Some(plan.file_size), ..Default::default() },
                )
            } else {
                store.append(&path)
            }
            .map_err(fail)?;
            let mut done = 0u64;
            while done < plan.file_size {
                if ctx.stopping() {
                    let _ = w.abort();
                    return Err(None);
                }
                let n = (plan.file_size - done).min(buf.len() as u64) as usize;
                let block = buf.len() as u64;
                pattern.stamp(&mut buf[..n], done / block);
                let t = Instant::now();
                if let Err(e) = w.write(&buf[..n]) {
                    let _ = w.abort();
                    return Err(fail(e));
                }
                done += account(t, n);
            }
            w.close().map_err(fail)?;
            Ok((done, None))
        }
        Mode::Read => {
            let mut r = store
                .open(&path, &ReadOptions { sequential: plan.order == ReadOrder::Sequential, ..Default::default() })
                .map_err(fail)?;
            let len = r.len();
            let want = plan.file_size;
            let bs = buf.len() as u64;
            let mut done = 0u64;
            let mut rng = plan.seed ^ (k.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
            // TestDFSIO's nextOffset: random, backward (skipSize = -bufferSize) or skip.
            let mut pos: Option<u64> = None;
            let mut first_byte = None;
            while done < want {
                if ctx.stopping() {
                    return Err(None);
                }
                let t = Instant::now();
                let read = match plan.order {
                    ReadOrder::Sequential => {
                        let n = ((want - done).min(bs)) as usize;
                        r.read_next(&mut buf[..n]).map_err(fail)?
                    }
                    order => {
                        let at = match (order, pos) {
                            (ReadOrder::Random, _) => xorshift(&mut rng) % len.max(1),
                            (ReadOrder::Backward, None) => len.saturating_sub(bs),
                            (ReadOrder::Backward, Some(p)) => {
                                if p == 0 {
                                    break;
                                }
                                p.saturating_sub(bs)
                            }
                            (ReadOrder::Skip { .. }, None) => 0,
                            (ReadOrder::Skip { skip }, Some(p)) => p + bs + skip,
                            (ReadOrder::Sequential, _) => unreachable!(),
                        };
                        if at >= len {
                            break;
                        }
                        pos = Some(at);
                        let n = ((want - done).min(bs)) as usize;
                        r.read_at(at, &mut buf[..n]).map_err(fail)?
                    }
                };
                let n = read.bytes;
                first_byte = first_byte.or(Some(read.first_byte));
                if n == 0 {
                    break;
                }
                done += account(t, n);
            }
            r.close().map_err(fail)?;
            Ok((done, first_byte))
        }
        Mode::Clean => Ok((0, None)),
    }
}

/// What one rank sends rank 0 after its tasks: a few hundred bytes per task, whatever the call count.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RankResult {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// Its finished tasks.
    pub tasks: Vec<TaskRecord>,
    /// Its first failure.
    pub error: Option<String>,
    /// Whether Ctrl-C stopped it.
    pub interrupted: bool,
    /// Bytes it moved.
    pub bytes_moved: u64,
    /// Its own stonewall (bytes of its tasks when its first task finished, and when).
    pub stonewall: Option<(u64, f64)>,
    /// Its call latencies (a few KiB at most, whatever the number of calls).
    pub calls: Option<HistogramData>,
    /// Its store's counters.
    pub counters: Vec<(String, u64)>,
    /// Page-cache residency of its files before the read (local files).
    #[serde(default)]
    pub residency: Option<crate::stats::findings::Residency>,
}

/// Merges every rank's result into one outcome. Across ranks the stonewall is interpolated: when the
/// first task of the whole run finished, each task is taken to have moved its bytes at an even pace
/// between its start and its end (the ranks share no clock but the barrier before the run).
pub fn merge(results: Vec<RankResult>) -> Outcome {
    let single = results.len() == 1;
    let mut out = Outcome::default();
    for r in results {
        if out.error.is_none() {
            out.error = r.error.map(|e| if single { e } else { format!("rank {} ({}): {e}", r.rank, r.host) });
        }
        out.interrupted |= r.interrupted;
        out.bytes_moved += r.bytes_moved;
        if single {
            out.stonewall = r.stonewall;
        }
        out.tasks.extend(r.tasks);
        if let Some(h) = r.calls.as_ref().and_then(|d| Histogram::from_data(d).ok()) {
            out.calls.merge(&h);
        }
        crate::stats::report::add_counters(&mut out.counters, r.counters);
        out.residency.extend(r.residency);
    }
    out.tasks.sort_by_key(|t| t.task);
    if !single {
        out.stonewall = interpolated_stonewall(&out.tasks);
    }
    out
}

/// Bytes moved by all tasks when the first one finished, each task at an even pace; and when.
pub fn interpolated_stonewall(tasks: &[TaskRecord]) -> Option<(u64, f64)> {
    let first = tasks.iter().map(|t| t.end_s).min_by(|a, b| a.total_cmp(b))?;
    let bytes: f64 = tasks
        .iter()
        .map(|t| {
            let span = t.end_s - t.start_s;
            let part = if span > 0.0 { ((first - t.start_s) / span).clamp(0.0, 1.0) } else { 1.0 };
            t.bytes as f64 * part
        })
        .sum();
    Some((bytes.round() as u64, first))
}

/// The aggregates TestDFSIO's reducer would compute from these tasks (in task order).
pub fn aggregates(tasks: &[TaskRecord]) -> Aggregates {
    let mut a = Aggregates::default();
    for t in tasks {
        a.add_task(t.bytes as i64, t.time_ms);
    }
    a
}

/// The figures of a finished (or partly finished) run.
pub fn summarize(plan: &DfsioPlan, out: &Outcome, exec_time_s: f64) -> DfsioRun {
    let a = aggregates(&out.tasks);
    let mega = crate::stats::dfsio::MEGA as f64;
    let last_end = out.tasks.iter().map(|t| t.end_s).fold(0.0, f64::max);
    let mut rates: Vec<f64> = out.tasks.iter().map(|t| t.rate_mb_s).collect();
    rates.sort_by(|x, y| x.total_cmp(y));
    let (sw_bytes, sw_s) = out.stonewall.unwrap_or((0, 0.0));
    let per = |bytes: u64, s: f64| crate::units::per_second(bytes as f64 / mega, s);
    DfsioRun {
        test_type: plan.test_type().into(),
        aggregates: a,
        throughput_mb_s: if a.tasks > 0 { a.throughput() } else { 0.0 },
        average_io_rate_mb_s: if a.tasks > 0 { a.average_io_rate() as f64 } else { 0.0 },
        io_rate_std_dev: if a.tasks > 0 { a.io_rate_std_dev() } else { 0.0 },
        exec_time_s,
        aggregate_mb_s: per(a.size as u64, last_end),
        stonewall_mb_s: per(sw_bytes, sw_s),
        task_rate_min: rates.first().copied().unwrap_or(0.0),
        task_rate_p50: crate::stats::percentile_of_sorted(&rates, 0.5),
        task_rate_p90: crate::stats::percentile_of_sorted(&rates, 0.9),
        task_rate_max: rates.last().copied().unwrap_or(0.0),
        calls: crate::stats::aggregate::latency_stats(&crate::stats::sample::OpAccumulator {
            latency: out.calls.clone(),
            ok: out.calls.count(),
            ..Default::default()
        }),
        tasks: out.tasks.clone(),
        cleaned: None,
    }
}

#[cfg(test)]
mod tests;
