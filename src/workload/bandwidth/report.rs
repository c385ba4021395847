//! What a bandwidth run reports: each rank's tasks and part, rank 0's merge of the parts, and the
//! RunReport built from them.

use super::*;

/// One rank's figures per phase, for the report's task list; `mine` is the rank's own layout (with
/// `--reorder`, its download names the file it read and the rank that wrote it).
pub fn rank_tasks(rec: &Recorder, out: &BandwidthRun, mine: &Layout, host: &str) -> Vec<TaskReport> {
    [(&aggregate::UPLOAD, out.upload_cpu), (&aggregate::DOWNLOAD, out.download_cpu)]
        .into_iter()
        .filter_map(|(ops, cpu)| aggregate::phase_report(rec, ops, cpu, 1))
        .map(|p| {
            let theirs = mine.reads_from.as_ref().filter(|_| p.name == aggregate::DOWNLOAD.name);
            TaskReport {
                rank: mine.rank,
                host: host.to_string(),
                task: p.name.clone(),
                repeat: None,
                path: theirs.map_or(&mine.file, |(_, f)| f).clone(),
                written_by: theirs.map(|(w, _)| *w),
                ops: p.blocks.count,
                errors: p.blocks.errors,
                bytes: p.bytes,
                ..Default::default()
            }
            .timed(p.duration_s)
        })
        .collect()
}

/// What one rank sends rank 0: its statistics (not its events), CPU, counters, outcome and tasks.
#[derive(Debug, Serialize, Deserialize)]
pub struct RankPart {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub host: String,
    /// Its operations' statistics.
    pub stats: Vec<AccumulatorData>,
    /// Its process's CPU time in the upload.
    pub upload_cpu: CpuTimes,
    /// Its process's CPU time in the download.
    pub download_cpu: CpuTimes,
    /// Its counters.
    pub counters: Vec<CounterGroup>,
    /// Its file's page-cache residency before the download.
    #[serde(default)]
    pub residency: Vec<crate::stats::findings::Residency>,
    /// What its upload left dirty.
    #[serde(default)]
    pub dirty: Vec<crate::stats::findings::Dirty>,
    /// How long its threads waited for a CPU per phase.
    #[serde(default)]
    pub cpu_wait: Vec<crate::stats::findings::CpuWait>,
    /// Why it stopped early: an error, or "interrupted".
    pub failure: Option<String>,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
    /// What it could not clean up.
    pub cleanup_errors: Vec<String>,
    /// Its phases.
    pub tasks: Vec<TaskReport>,
}

impl RankPart {
    /// This rank's part of the run.
    pub fn new(mine: &Layout, host: &str, rec: &Recorder, out: BandwidthRun) -> RankPart {
        let rank = mine.rank;
        RankPart {
            rank,
            host: host.to_string(),
            stats: rec.to_data(),
            tasks: rank_tasks(rec, &out, mine, host),
            upload_cpu: out.upload_cpu,
            download_cpu: out.download_cpu,
            counters: out.counters,
            residency: out.residency.into_iter().map(|r| crate::stats::findings::Residency { rank, ..r }).collect(),
            dirty: out.dirty.into_iter().map(|d| crate::stats::findings::Dirty { rank, ..d }).collect(),
            cpu_wait: out.cpu_wait.into_iter().map(|w| crate::stats::findings::CpuWait { rank, ..w }).collect(),
            interrupted: out.failure == Some(Failure::Interrupted),
            failure: match out.failure {
                Some(Failure::Failed(m)) => Some(m),
                _ => None,
            },
            cleanup_errors: out.cleanup_errors,
        }
    }
}

/// Rank 0's merge of every rank's part: the statistics and counters summed, CPU summed, the first
/// failure named with its rank and host, the tasks in rank order.
pub fn merge_ranks(parts: Vec<RankPart>) -> Result<(Recorder, BandwidthRun, Vec<TaskReport>), String> {
    let mut rec = Recorder::new();
    let mut out = BandwidthRun::default();
    let mut tasks = Vec::new();
    let mut failed = None;
    for p in parts {
        rec.merge_data(&p.stats).map_err(|e| format!("rank {}'s statistics: {e}", p.rank))?;
        out.upload_cpu = out.upload_cpu + p.upload_cpu;
        out.download_cpu = out.download_cpu + p.download_cpu;
        add_counter_groups(&mut out.counters, p.counters);
        out.residency.extend(p.residency);
        out.dirty.extend(p.dirty);
        out.cpu_wait.extend(p.cpu_wait);
        if failed.is_none() {
            failed = p.failure.map(|m| Failure::Failed(format!("rank {} ({}): {m}", p.rank, p.host)));
        }
        if p.interrupted && out.failure.is_none() {
            out.failure = Some(Failure::Interrupted);
        }
        out.cleanup_errors.extend(p.cleanup_errors.into_iter().map(|e| format!("rank {}: {e}", p.rank)));
        tasks.extend(p.tasks);
    }
    if failed.is_some() {
        out.failure = failed;
    }
    Ok((rec, out, tasks))
}

/// Builds the run's report from what was recorded (by one process, or merged from every rank).
pub fn report(
    plan: &BandwidthPlan,
    target: &Target,
    layout: &Layout,
    rec: &Recorder,
    out: &BandwidthRun,
    tasks: Vec<TaskReport>,
    started_at: String,
) -> RunReport {
    let phases = [(&aggregate::UPLOAD, out.upload_cpu), (&aggregate::DOWNLOAD, out.download_cpu)]
        .into_iter()
        .filter_map(|(ops, cpu)| aggregate::phase_report(rec, ops, cpu, layout.ranks))
        .collect();
    let params = Params::Bandwidth(BandwidthParams {
        size: plan.size,
        block: plan.block,
        blocks: plan.blocks(),
        policy: plan.policy.name().into(),
        path: layout.file.clone(),
        flush: plan.flush,
        hflush: plan.hflush,
        direct: plan.direct,
        fsync_on_close: plan.fsync_on_close,
        read_only: plan.read_only,
        rename: plan.rename,
        keep: plan.keep,
        verify: plan.verify,
        seed: plan.seed,
        prefetch: plan.prefetch,
        ranks: layout.ranks,
    });
    let engine = target.store.engine(plan.direct);
    let mut r = RunReport {
        phases,
        ops: aggregate::op_stats(rec),
        events: rec.events().to_vec(),
        event_sampling: Some(rec.sampling()).filter(|s| s.cap > 0),
        counters: out.counters.clone(),
        tasks,
        // A read-only run downloads what somebody else wrote: no test data of ours.
        data: (!plan.read_only).then(|| plan.data.choice()),
        drop_cache: plan.drop_cache.map(|d| d.name().to_string()),
        ..crate::workload::base_report("bandwidth", target, engine, params, out.failure.as_ref(), started_at)
    };
    r.probes.page_cache = out.residency.clone();
    r.probes.dirty = out.dirty.clone();
    r.probes.cpu_wait = out.cpu_wait.clone();
    r
}
