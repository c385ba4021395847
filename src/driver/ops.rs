//! `storebench ops`: Apache Doris fs_benchmark_tool's operations on T threads per rank, repeated, with
//! the statistics over the repeats. Every repeat ends with a gather on rank 0 (the stonewall needs
//! every rank's first thread end), so the repeats run inside [`Command::run`].

use super::{gather_or_abort, Command, Concluded, Rank};
use crate::cli::ops::OpsArgs;
use crate::cli::Sweepable;
use crate::error::Error;
use crate::export::manager::{CsvMode, Outputs};
use crate::run::dist::{wait_after, WAIT};
use crate::run::progress::Progress;
use crate::run::{run_workers, RunContext};
use crate::stats::report::{CounterGroup, OpsRun, TaskReport};
use crate::stats::sample::Recorder;
use crate::store::Target;
use crate::workload::ops::{self, OpsPlan, Prepared};
use crate::workload::Failure;

/// Runs `ops` with these arguments: the entry `app`'s command table points at.
pub fn run(args: OpsArgs) -> Result<(), crate::error::Error> {
    super::drive(Ops::new(args))
}

/// The command and what it learns on the way.
pub struct Ops {
    args: OpsArgs,
    planned: Option<(OpsPlan, Target, bool)>,
    /// The plan of every rank's threads together (rank 0 prepares and cleans up for all).
    all_plan: Option<OpsPlan>,
    prepared: Option<Prepared>,
    // What rank 0 gathers over the repeats.
    all: Recorder,
    run: OpsRun,
    tasks: Vec<TaskReport>,
    counters: Vec<(String, u64)>,
    interrupted: bool,
    failed_ops: u64,
    /// Page-cache residency before each repeat's reads, every rank's.
    residency: Vec<crate::stats::findings::Residency>,
}

impl Ops {
    /// The command for these arguments.
    pub fn new(args: OpsArgs) -> Self {
        Ops {
            args,
            planned: None,
            all_plan: None,
            prepared: None,
            all: Recorder::new(),
            run: OpsRun::default(),
            tasks: Vec::new(),
            counters: Vec::new(),
            interrupted: false,
            failed_ops: 0,
            residency: Vec::new(),
        }
    }
}

impl Command for Ops {
    type Part = ();
    const NAME: &'static str = "ops";

    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.args.json.clone(),
            html: self.args.html.clone(),
            csv: self.args.csv.clone().map(|p| (p, CsvMode::Summary)),
            format: self.args.format,
            verbose: false,
            quiet: self.args.quiet,
            announce: false,
        }
    }

    fn plan(&mut self, launch: super::Launch) -> Result<Vec<String>, String> {
        let ranks = launch.ranks;
        let (mut plan, target, default_base) = crate::plan::ops(&self.args, launch.seed)?;
        crate::workload::check_reorder(self.args.controls.reorder, ranks)?;
        plan.ranks = ranks;
        // Every rank runs --threads threads; thread K of rank R is thread R x threads + K of the run,
        // on its own file test_<that>.
        let mut all_plan = plan.clone();
        all_plan.threads = plan.threads * ranks as usize;
        self.all_plan = Some(all_plan);
        let warnings = target.warnings.clone();
        self.planned = Some((plan, target, default_base));
        Ok(warnings)
    }

    fn prepare(&mut self, rank: &Rank) -> Result<(), Error> {
        let (_, target, default_base) = self.planned.as_ref().expect("planned");
        let all_plan = self.all_plan.as_ref().expect("planned");
        let reuse = self.prepared.take();
        let prepared =
            rank.dist.share(|| ops::prepare(target, all_plan, *default_base, reuse), WAIT).map_err(Error::Run)?;
        self.prepared = Some(prepared);
        Ok(())
    }

    fn run(&mut self, rank: &Rank) -> Result<(), Error> {
        let (plan, target, _) = self.planned.as_ref().expect("planned");
        let prepared = self.prepared.as_ref().expect("prepared");
        let dist = &rank.dist;
        let (ranks, me, leads) = (dist.size(), dist.rank(), dist.leads());
        let mut rank_plan = plan.clone();
        rank_plan.rate = plan.rate.map(|r| r / ranks as f64);
        let first = me as usize * plan.threads;
        for repeat in 1..=plan.repeats {
            let wait = wait_after(rank.began);
            dist.barrier(wait).map_err(Error::Run)?;
            let ctx = RunContext::new(rank.stop.clone());
            let shared = ops::RepeatShared::default();
            let total = plan.iterations.map_or(0, |n| n * plan.threads as u64 * plan.file_size);
            let progress = Progress::start(ctx.bytes_done.clone(), total, rank.quiet || total == 0);
            let residency = ops::before_read(plan, target, prepared, first, me).map_err(Error::Run)?;
            let cpu0 = crate::stats::cpu::CpuTimes::process();
            let (rec, threads) = run_workers(plan.threads, |k| {
                let mut rec = Recorder::new();
                let out = ops::run_thread(&rank_plan, target, prepared, first + k, repeat, &ctx, &shared, &mut rec);
                (rec, out)
            });
            let cpu = crate::stats::cpu::CpuTimes::process().since(cpu0);
            drop(progress);
            let part = ops::RepeatPart {
                rank: me,
                stats: rec.to_data(),
                ends: ops::thread_ends(&threads),
                per_second: ops::per_second(&threads),
                cpu,
                first_errors: threads.iter().flat_map(|t| t.errors.iter().cloned()).take(5).collect(),
                interrupted: threads.iter().any(|t| t.interrupted),
                tasks: ops::thread_tasks(&rank_plan, &threads, first, repeat, &prepared.base, me, &rank.host),
                // Rank 0 adds its own counters at the end, after the clean-up.
                counters: if leads { Vec::new() } else { target.store.counters() },
                residency: residency.into_iter().collect(),
            };
            let wait = wait_after(rank.began);
            let gathered = gather_or_abort(dist, serde_json::to_vec(&part).unwrap_or_default(), wait);
            // The stonewall is the first thread's end over every rank; each rank counts what it had
            // done by then (exact, and a few bytes per rank).
            let merged = match gathered {
                Some(parts) => {
                    let mut m = ops::RepeatPart::default();
                    let mut rrec = Recorder::new();
                    for p in super::decode_parts::<ops::RepeatPart>(&parts)? {
                        m.absorb(&mut rrec, p, ranks).map_err(Error::Run)?;
                    }
                    Some((m, rrec))
                }
                None => None,
            };
            let first_end = merged.as_ref().map(|(m, _)| m.ends.iter().copied().min().unwrap_or(0));
            let first_end =
                dist.announce(Ok(first_end.unwrap_or(0).to_le_bytes().to_vec()), wait).map_err(Error::Run)?;
            let first_end = u64::from_le_bytes(first_end.try_into().unwrap_or([0; 8]));
            let (sw_ops, sw_bytes) = ops::done_by(&threads, first_end);
            let counts = gather_or_abort(dist, [sw_ops.to_le_bytes(), sw_bytes.to_le_bytes()].concat(), wait);
            let mut stop_now = false;
            if let (Some((m, rrec)), Some(counts)) = (merged, counts) {
                let sum = |i: usize| -> u64 {
                    counts.iter().filter_map(|c| c.get(i * 8..i * 8 + 8)?.try_into().ok()).map(u64::from_le_bytes).sum()
                };
                let summary = ops::summarize_parts(plan, &rrec, &m.ends, (sum(0), sum(1)), m.cpu);
                let r = ops::repeat_report(plan, repeat, &rrec, summary, m.per_second);
                self.failed_ops += r.summary.errors;
                self.run.first_errors.extend(m.first_errors);
                self.run.repeats.push(r);
                self.all.merge(rrec);
                self.tasks.extend(m.tasks);
                self.counters = m.counters;
                self.residency.extend(m.residency);
                self.interrupted = m.interrupted;
                stop_now = self.interrupted || (plan.fail_fast && self.failed_ops > 0);
            }
            // Rank 0 decides whether every rank goes on to the next repeat.
            let go = dist.announce(Ok(vec![u8::from(stop_now)]), wait).map_err(Error::Run)?;
            if go.first() == Some(&1) {
                break;
            }
        }
        Ok(())
    }

    fn sweep_args(&self) -> Option<&crate::cli::SweepArgs> {
        Some(&self.args.sweep)
    }

    fn sweep_keys(&self) -> &'static [&'static str] {
        OpsArgs::SWEEPS
    }

    fn at_point(&self, point: &[(String, String)]) -> Result<Self, String> {
        self.args.at_point(point).map(Ops::new)
    }

    /// Operations that only read or look at the files --prepare made share them across threads,
    /// buffer-size and prefetch (list across buffer-size and prefetch: it sees every file there).
    fn read_settings(&self) -> Option<&'static [&'static str]> {
        let (plan, _, _) = self.planned.as_ref()?;
        match plan.prepare && plan.reads_only() {
            true if plan.mix.iter().any(|(o, _)| *o == ops::Op::List) => Some(&["buffer-size", "prefetch"]),
            true => Some(&["threads", "buffer-size", "prefetch"]),
            false => None,
        }
    }

    fn take_prepared(&mut self, from: &mut Self) {
        self.prepared = from.prepared.take();
    }

    fn clean_prepared(&mut self) -> Vec<String> {
        match (&self.planned, &self.all_plan, &self.prepared) {
            (Some((_, target, _)), Some(all_plan), Some(p)) => ops::cleanup(all_plan, target, p),
            _ => Vec::new(),
        }
    }

    fn conclude(&mut self, rank: &Rank, _: Vec<()>) -> Result<Concluded, Error> {
        let cleanup_errors = if rank.hand_on { Vec::new() } else { self.clean_prepared() };
        let (plan, target, _) = self.planned.as_ref().expect("planned");
        let prepared = self.prepared.as_ref().expect("prepared");
        let mut run = std::mem::take(&mut self.run);
        run.statistics = ops::statistics(&run.repeats);
        if run.repeats.len() >= 3 {
            run.warm_statistics = ops::statistics(&run.repeats[1..]);
        }
        let failure = if self.interrupted {
            Some(Failure::Interrupted)
        } else if self.failed_ops > 0 {
            Some(Failure::Failed(format!(
                "{} operation(s) failed; the first: {}",
                self.failed_ops,
                run.first_errors.first().cloned().unwrap_or_default()
            )))
        } else {
            None
        };
        // The other ranks' counters as of their last repeat, and this rank's after the clean-up.
        let mut summed = target.store.counters();
        crate::stats::report::add_counters(&mut summed, std::mem::take(&mut self.counters));
        let counters = vec![CounterGroup { scope: "store".into(), counters: summed }];
        let ranks = rank.dist.size();
        let mut report = ops::report(
            plan,
            target,
            prepared,
            &self.all,
            run,
            counters,
            failure.as_ref(),
            rank.started_at.clone(),
            ranks,
        );
        report.tasks = std::mem::take(&mut self.tasks);
        report.reorder = plan.reorder;
        report.probes.page_cache = std::mem::take(&mut self.residency);
        Ok(Concluded { report, failure, cleanup_errors, file_errors: Vec::new() })
    }
}
