//! `storebench dfsio`: Hadoop TestDFSIO's -write, -read, -append and -clean, its tasks spread over
//! the MPI ranks; rank 0 prints TestDFSIO's block and appends it to -resFile.

use super::{Command, Concluded, Rank};
use crate::cli::dfsio::DfsioArgs;
use crate::cli::Sweepable;
use crate::error::Error;
use crate::export::manager::Outputs;
use crate::run::progress::Progress;
use crate::run::RunContext;
use crate::stats::report::{CounterGroup, DfsioParams, Params};
use crate::store::Target;
use crate::workload::dfsio::{self, DfsioPlan, Mode, RankResult};
use crate::workload::Failure;
use std::io::Write;

/// Runs `dfsio` with these arguments: the entry `app`'s command table points at.
pub fn run(args: DfsioArgs) -> Result<(), crate::error::Error> {
    super::drive(Dfsio::new(args))
}

/// The command and what it learns on the way.
pub struct Dfsio {
    args: DfsioArgs,
    planned: Option<(DfsioPlan, Target)>,
    cleaned: Option<(u64, Vec<String>)>,
}

impl Dfsio {
    /// The command for these arguments.
    pub fn new(args: DfsioArgs) -> Self {
        Dfsio { args, planned: None, cleaned: None }
    }
}

impl Command for Dfsio {
    type Part = RankResult;
    const NAME: &'static str = "dfsio";

    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.args.json.clone(),
            html: self.args.html.clone(),
            format: self.args.format,
            quiet: self.args.quiet,
            ..Default::default()
        }
    }

    /// Rank 0 waits for the others at least 5 minutes.
    fn gather_wait(&self) -> std::time::Duration {
        std::time::Duration::from_secs(300)
    }

    fn plan(&mut self, launch: super::Launch) -> Result<Vec<String>, String> {
        let ranks = launch.ranks;
        let (mut plan, target) = crate::plan::dfsio(&self.args, launch.seed)?;
        crate::workload::check_reorder(self.args.controls.reorder, ranks)?;
        plan.ranks = ranks;
        if self.args.threads.is_none() {
            // By default every task of a rank runs at once (as a cluster with enough map slots), at
            // most 64.
            plan.threads = plan.nr_files.div_ceil(ranks as u64).clamp(1, 64) as usize;
        }
        let warnings = target.warnings.clone();
        self.planned = Some((plan, target));
        Ok(warnings)
    }

    fn prepare(&mut self, rank: &Rank) -> Result<(), Error> {
        let (plan, target) = self.planned.as_ref().expect("planned");
        let short = crate::run::dist::WAIT;
        // Rank 0 alone makes the directories and checks the files; the others wait for its word.
        let prepared = if rank.dist.leads() { dfsio::prepare(target, plan) } else { Ok(()) };
        rank.dist.verdict(prepared, short).map_err(Error::Run)?;
        rank.dist.barrier(short).map_err(Error::Run)
    }

    fn run(&mut self, rank: &Rank) -> Result<RankResult, Error> {
        let (plan, target) = self.planned.as_ref().expect("planned");
        let dist = &rank.dist;
        let ctx = RunContext::new(rank.stop.clone());
        if plan.mode == Mode::Clean {
            let mut r = RankResult { rank: dist.rank(), host: rank.host.clone(), ..Default::default() };
            if dist.leads() {
                match dfsio::clean(target, plan) {
                    Ok(c) => self.cleaned = Some(c),
                    Err(e) => r.error = Some(e),
                }
            }
            return Ok(r);
        }
        let tasks = plan.tasks_of(dist.rank());
        let total = tasks.len() as u64 * plan.file_size;
        let progress = Progress::start(ctx.bytes_done.clone(), total, rank.quiet);
        let residency = if plan.mode == Mode::Read {
            dfsio::before_read(target, plan, &tasks, dist.rank()).map_err(Error::Run)?
        } else {
            None
        };
        let out = dfsio::run(target, plan, &tasks, &ctx, dist.rank(), &rank.host);
        drop(progress);
        Ok(RankResult {
            rank: dist.rank(),
            host: rank.host.clone(),
            tasks: out.tasks,
            error: out.error,
            interrupted: out.interrupted,
            bytes_moved: out.bytes_moved,
            stonewall: out.stonewall,
            calls: Some(out.calls.to_data()),
            counters: target.store.counters(),
            residency,
        })
    }

    fn sweep_args(&self) -> Option<&crate::cli::SweepArgs> {
        Some(&self.args.sweep)
    }

    fn sweep_keys(&self) -> &'static [&'static str] {
        DfsioArgs::SWEEPS
    }

    fn at_point(&self, point: &[(String, String)]) -> Result<Self, String> {
        self.args.at_point(point).map(Dfsio::new)
    }

    fn conclude(&mut self, rank: &Rank, parts: Vec<RankResult>) -> Result<Concluded, Error> {
        let (plan, target) = self.planned.as_ref().expect("planned");
        let out = dfsio::merge(parts);
        let exec_ms = rank.began.elapsed().as_millis() as i64;
        let failure = if let Some(e) = &out.error {
            Some(Failure::Failed(e.clone()))
        } else if out.interrupted {
            Some(Failure::Interrupted)
        } else {
            None
        };
        let params = Params::Dfsio(DfsioParams {
            mode: plan.mode,
            order: plan.order,
            nr_files: plan.nr_files,
            file_size: plan.file_size,
            buffer_size: plan.buffer_size,
            threads: plan.threads,
            ranks: rank.dist.size(),
        });
        let engine = target.store.engine(false);
        let mut report =
            crate::workload::base_report("dfsio", target, engine, params, failure.as_ref(), rank.started_at.clone());
        let mut run = dfsio::summarize(plan, &out, exec_ms as f64 / 1000.0);
        run.cleaned = self.cleaned.take();
        // Store counters summed over every rank.
        let counters = if plan.mode == Mode::Clean { target.store.counters() } else { out.counters.clone() };
        report.counters = vec![CounterGroup { scope: "store".into(), counters }];
        report.section = Some(crate::stats::report::Section::Dfsio(run));
        report.probes.page_cache = out.residency.clone();
        if matches!(plan.mode, Mode::Write | Mode::Append) {
            report.data = Some(plan.data.choice());
        }
        report.drop_cache = plan.drop_cache.map(|d| d.name().to_string());
        report.reorder = plan.reorder;
        let mut file_errors = Vec::new();
        // TestDFSIO appends its result lines to -resFile; storebench adds the raw aggregates after
        // them. Only a complete run with finite figures is appended: a failed or interrupted one would
        // put "Number of files: 0" or NaN among the user's results.
        let hadoop_lines = crate::export::dfsio::hadoop_lines(&report);
        let complete = failure.is_none() && out.tasks.len() as u64 == plan.nr_files;
        let finite = report.dfsio_run().is_some_and(|d| d.aggregates.is_finite());
        let res_file = &self.args.res_file;
        if !hadoop_lines.is_empty() && complete && finite {
            let raw = report.dfsio_run().map(|d| d.aggregates.raw_lines()).unwrap_or_default();
            let text: String = hadoop_lines.iter().chain(raw.iter()).map(|l| format!("{l}\n")).collect();
            let appended = crate::export::open_output(res_file, "the -resFile", true)
                .and_then(|mut f| f.write_all(format!("{text}\n").as_bytes()).map_err(|e| e.to_string()));
            if let Err(e) = appended {
                file_errors.push(format!("appending to the -resFile {} failed: {e}", res_file.display()));
            }
        } else if !hadoop_lines.is_empty() {
            eprintln!(
                "storebench: the run did not complete ({} of {} tasks): nothing was appended to {}",
                out.tasks.len(),
                plan.nr_files,
                res_file.display()
            );
        }
        Ok(Concluded { report, failure, cleanup_errors: Vec::new(), file_errors })
    }
}
