//! The figures of an ops run: each repeat merged over threads and ranks, the seed's figures, the
//! statistics over repeats, and the report.

use super::*;

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
    threads.iter().map(|t| t.done.last_end_ns).collect()
}

/// Operations and bytes that had ended by `ns` (exact on a millisecond for runs of up to 4 s; see
/// `stats::timeline`).
pub fn done_by(threads: &[ThreadRun], ns: u64) -> (u64, u64) {
    threads.iter().map(|t| t.done.done_by(ns)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
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
/// first thread (rank x threads with MPI). With `--reorder` each names the file it read and the
/// rank that wrote it.
pub fn thread_tasks(
    plan: &OpsPlan,
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
                path: file_of(base, plan.reads_of(first + i)),
                written_by: plan.writer_of(first + i),
                ops: t.done.ops,
                errors: t.failed,
                bytes: t.done.bytes,
                ..Default::default()
            }
            .timed(t.done.last_end_ns as f64 / 1e9)
        })
        .collect()
}

pub use crate::stats::timeline::add_seconds;

/// Operations and bytes that ended in each second.
pub fn per_second(threads: &[ThreadRun]) -> Vec<SecondSample> {
    let mut out: Vec<SecondSample> = Vec::new();
    for t in threads {
        add_seconds(&mut out, t.done.per_second());
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
    /// Page-cache residency of what its threads read, taken before the repeat.
    #[serde(default)]
    pub residency: Vec<crate::stats::findings::Residency>,
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
        self.residency.extend(other.residency);
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
        section: Some(crate::stats::report::Section::Ops(run)),
        // Test data of ours only where the run wrote files: otherwise it read somebody else's.
        data: (plan.prepare || plan.has(super::Op::CreateWrite)).then(|| plan.data.choice()),
        drop_cache: plan.drop_cache.map(|d| d.name().to_string()),
        ..crate::workload::base_report("ops", target, target.store.engine(false), params, failure, started_at)
    }
}
