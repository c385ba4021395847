//! `ops`: T threads repeat one operation on their own file (thread K on `test_K`, as Apache Doris'
//! fs_benchmark_tool) for a number of iterations or for a duration. Threads start together behind a
//! barrier, record into thread-local histograms, and merge at the end.
//!
//! This is the first slice of the ops workload: create_write and open_read, one repeat.

use super::data::DataPattern;
use super::Failure;
use crate::cli::ops::Op;
use crate::run::cpu::CpuTimes;
use crate::run::RunContext;
use crate::stats::aggregate::{self, cpu_report, latency_stats};
use crate::stats::report::{CounterGroup, OpsParams, OpsSummary, Params, RunReport};
use crate::stats::sample::{Event, OpKind, Recorder};
use crate::target::{ReadOptions, StoreError, Target, WriteOptions};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A validated ops plan.
#[derive(Clone, Debug)]
pub struct OpsPlan {
    /// The operation.
    pub op: Op,
    /// Worker threads.
    pub threads: usize,
    /// Operations per thread, or None when bounded by `duration`.
    pub iterations: Option<u64>,
    /// How long the threads keep going, when bounded by time.
    pub duration: Option<Duration>,
    /// Bytes per operation.
    pub file_size: u64,
    /// Bytes per write or read call.
    pub buffer_size: u64,
    /// Keep the files at the end.
    pub keep: bool,
}

impl OpsPlan {
    /// The operation kind recorded for one whole operation.
    fn kind(&self) -> OpKind {
        match self.op {
            Op::CreateWrite => OpKind::Upload,
            Op::OpenRead => OpKind::Download,
        }
    }
}

/// What one thread did: the end time (ns since the epoch) and bytes of each successful operation, and
/// why it stopped early.
#[derive(Debug, Default)]
pub struct ThreadRun {
    /// (end ns since the epoch, bytes) of each successful operation.
    pub done: Vec<(u64, u64)>,
    /// Why the thread stopped early.
    pub failure: Option<Failure>,
}

/// The file thread `k` works on.
pub fn file_of(dir: &str, k: usize) -> String {
    format!("{}/test_{k}", dir.trim_end_matches('/'))
}

/// Makes a fresh run directory under the target's path.
pub fn prepare_dir(target: &Target) -> Result<String, String> {
    let base = target.path.trim_end_matches('/');
    let store = &target.store;
    if !base.is_empty() && store.capabilities().directories {
        match store.stat(base).map_err(|e| e.to_string())? {
            Some(m) if m.is_dir => {}
            Some(_) => return Err(format!("{base} is a file; ops needs a directory or prefix to work in")),
            None => return Err(format!("directory {base} does not exist; create it first or give an existing one")),
        }
    }
    let name = super::bandwidth::unique_name();
    let dir = if base.is_empty() { name } else { format!("{base}/{name}") };
    store.create_dir(&dir).map_err(|e| format!("cannot create the run directory: {e}"))?;
    Ok(dir)
}

fn write_file(target: &Target, path: &str, plan: &OpsPlan, data: &[u8]) -> Result<(), StoreError> {
    let opts = WriteOptions { overwrite: true, size_hint: Some(plan.file_size), ..Default::default() };
    let mut w = target.store.create(path, &opts)?;
    let mut left = plan.file_size;
    while left > 0 {
        let n = left.min(plan.buffer_size) as usize;
        if let Err(e) = w.write(&data[..n]) {
            let _ = w.abort();
            return Err(e);
        }
        left -= n as u64;
    }
    w.close().map(|_| ())
}

/// Creates every thread's file, untimed, for the read operations.
pub fn prepare_files(target: &Target, dir: &str, plan: &OpsPlan) -> Result<(), String> {
    let data = DataPattern::new(plan.buffer_size as usize, 1).buffer();
    for k in 0..plan.threads {
        write_file(target, &file_of(dir, k), plan, &data).map_err(|e| format!("preparing test_{k}: {e}"))?;
    }
    Ok(())
}

/// One thread's loop.
pub fn run_thread(
    plan: &OpsPlan,
    target: &Target,
    dir: &str,
    k: usize,
    ctx: &RunContext,
    rec: &mut Recorder,
) -> ThreadRun {
    let mut out = ThreadRun::default();
    let path = file_of(dir, k);
    let data = DataPattern::new(plan.buffer_size as usize, k as u64 + 1).buffer();
    let mut buf = vec![0u8; plan.buffer_size as usize];
    let deadline = plan.duration.map(|d| ctx.epoch + d);
    let mut i = 0u64;
    loop {
        if plan.iterations.is_some_and(|n| i >= n) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if ctx.stopping() {
            out.failure = Some(Failure::Interrupted);
            break;
        }
        i += 1;
        let t0 = Instant::now();
        let mut first = None;
        let r = match plan.op {
            Op::CreateWrite => write_file(target, &path, plan, &data).map(|_| plan.file_size),
            Op::OpenRead => (|| {
                let mut s = target.store.open(&path, &ReadOptions { sequential: true, ..Default::default() })?;
                let t_open = Instant::now();
                rec.record(Event {
                    op: OpKind::OpenForDownload,
                    bytes: 0,
                    offset: 0,
                    start_ns: ctx.ns(t0),
                    first_byte_ns: ctx.ns(t_open),
                    end_ns: ctx.ns(t_open),
                    error: None,
                });
                let mut got = 0u64;
                while got < plan.file_size {
                    let want = (plan.file_size - got).min(plan.buffer_size) as usize;
                    let info = s.read_next(&mut buf[..want])?;
                    first.get_or_insert(info.first_byte);
                    if info.bytes == 0 {
                        break;
                    }
                    got += info.bytes as u64;
                }
                s.close()?;
                Ok(got)
            })(),
        };
        let t1 = Instant::now();
        let err = r.as_ref().err().map(|e| e.to_string());
        let bytes = *r.as_ref().unwrap_or(&0);
        rec.record(Event {
            op: plan.kind(),
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
                out.failure = Some(Failure::Failed(format!("{} of {path} failed: {e}", plan.op.name())));
                break;
            }
        }
    }
    out
}

/// The aggregate figures: both throughput definitions (until the last thread ends, and until the first
/// thread ends: "stonewall").
pub fn summarize(plan: &OpsPlan, rec: &Recorder, threads: &[ThreadRun], cpu: CpuTimes) -> OpsSummary {
    let acc = rec.op(plan.kind());
    let ends: Vec<u64> = threads.iter().map(|t| t.done.last().map_or(0, |d| d.0)).collect();
    let wall_ns = ends.iter().copied().max().unwrap_or(0);
    let stonewall_ns = ends.iter().copied().min().unwrap_or(0);
    let (mut sw_ops, mut sw_bytes) = (0, 0);
    for (end, bytes) in threads.iter().flat_map(|t| t.done.iter()) {
        if *end <= stonewall_ns {
            sw_ops += 1;
            sw_bytes += bytes;
        }
    }
    let secs = |ns: u64| ns as f64 / 1e9;
    let per_s = |x: f64, ns: u64| if ns > 0 { x / secs(ns) } else { 0.0 };
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    OpsSummary {
        ops: acc.ok,
        errors: acc.errors,
        bytes: acc.bytes,
        wall_s: secs(wall_ns),
        ops_per_s: per_s(acc.ok as f64, wall_ns),
        mib_per_s: per_s(mib(acc.bytes), wall_ns),
        stonewall_s: secs(stonewall_ns),
        stonewall_ops: sw_ops,
        stonewall_bytes: sw_bytes,
        stonewall_mib_per_s: per_s(mib(sw_bytes), stonewall_ns),
        latency: latency_stats(acc),
        cpu: cpu_report(cpu, acc.bytes),
    }
}

/// The run's report.
#[allow(clippy::too_many_arguments)]
pub fn report(
    plan: &OpsPlan,
    target: &Target,
    dir: &str,
    rec: &Recorder,
    summary: OpsSummary,
    counters: Vec<CounterGroup>,
    failure: Option<&Failure>,
    started_at: String,
) -> RunReport {
    let params = Params::Ops(OpsParams {
        op: plan.op.name().into(),
        threads: plan.threads,
        iterations: plan.iterations,
        duration_s: plan.duration.map(|d| d.as_secs_f64()),
        file_size: plan.file_size,
        buffer_size: plan.buffer_size,
        path: dir.to_string(),
    });
    RunReport {
        ops: aggregate::op_stats(rec),
        counters,
        summary: Some(summary),
        ..super::base_report("ops", target, target.store.engine(false), params, failure, started_at)
    }
}

/// Removes the files and the run directory unless `--keep`; returns what could not be removed.
pub fn cleanup(plan: &OpsPlan, target: &Target, dir: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if plan.keep {
        return errors;
    }
    for k in 0..plan.threads {
        let f = file_of(dir, k);
        match target.store.delete(&f) {
            Ok(()) | Err(StoreError::NotFound { .. }) => {}
            Err(e) => errors.push(format!("deleting {f}: {e}")),
        }
    }
    if let Err(e) = target.store.remove_dir(dir) {
        errors.push(format!("removing the run directory {dir}: {e}"));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(done: &[(u64, u64)]) -> ThreadRun {
        ThreadRun { done: done.to_vec(), failure: None }
    }

    #[test]
    fn throughput_until_last_and_until_first_thread_done() {
        // Two threads, 1 MiB per op. Thread 0: ops ending at 1 s and 2 s. Thread 1: 0.5, 1.5, 2.5, 4 s.
        let plan = OpsPlan {
            op: Op::CreateWrite,
            threads: 2,
            iterations: None,
            duration: None,
            file_size: 1 << 20,
            buffer_size: 1 << 20,
            keep: false,
        };
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
    }
}
