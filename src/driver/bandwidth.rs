//! `storebench bandwidth`: cloudstore's upload-then-download, on one process or one file per MPI rank.

use super::{Command, Concluded, Rank};
use crate::cli::bandwidth::BandwidthArgs;
use crate::cli::Sweepable;
use crate::error::Error;
use crate::export::manager::{CsvMode, Outputs};
use crate::run::dist::{wait_after, WAIT};
use crate::run::progress::Progress;
use crate::run::RunContext;
use crate::stats::sample::Recorder;
use crate::store::Target;
use crate::workload::bandwidth::{self, BandwidthPlan, BandwidthRun, Layout, RankPart};

/// Runs `bandwidth` with these arguments: the entry `app`'s command table points at.
pub fn run(args: BandwidthArgs) -> Result<(), crate::error::Error> {
    super::drive(Bandwidth::new(args))
}

/// The command and what it learns on the way.
pub struct Bandwidth {
    args: BandwidthArgs,
    planned: Option<(BandwidthPlan, Target)>,
    layout: Option<Layout>,
    ranks: u32,
    /// One process: the recorder (with every event) and the run stay here, not in a part.
    local: Option<(Recorder, BandwidthRun)>,
}

impl Bandwidth {
    /// The command for these arguments.
    pub fn new(args: BandwidthArgs) -> Self {
        Bandwidth { args, planned: None, layout: None, ranks: 1, local: None }
    }

    fn planned(&self) -> (&BandwidthPlan, &Target) {
        let (p, t) = self.planned.as_ref().expect("planned before use");
        (p, t)
    }
}

impl Command for Bandwidth {
    type Part = Option<RankPart>;
    const NAME: &'static str = "bandwidth";

    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.args.json.clone(),
            html: self.args.html.clone(),
            csv: self.args.csv.clone().map(|p| (p, CsvMode::Stream)),
            format: self.args.format,
            verbose: self.args.verbose,
            quiet: self.args.quiet,
            announce: true,
        }
    }

    fn plan(&mut self, launch: super::Launch) -> Result<Vec<String>, String> {
        let ranks = launch.ranks;
        let (plan, target) = crate::plan::bandwidth(&self.args, launch.seed)?;
        crate::workload::check_reorder(self.args.controls.reorder, ranks)?;
        if ranks > 1 && self.args.csv.is_some() {
            return Err(format!(
                "--csv logs every block of one process; with {ranks} MPI ranks use --json (merged histograms, each rank's phases)"
            ));
        }
        let warnings = target.warnings.clone();
        self.planned = Some((plan, target));
        self.ranks = ranks;
        Ok(warnings)
    }

    fn prepare(&mut self, rank: &Rank) -> Result<(), Error> {
        let (plan, target) = self.planned();
        // Rank 0 makes the run directory and checks every rank's file; the others take its layout.
        let layout =
            rank.dist.share(|| bandwidth::prepare_layout(plan, target, self.ranks), WAIT).map_err(Error::Run)?;
        self.layout = Some(layout);
        rank.dist.barrier(WAIT).map_err(Error::Run)
    }

    fn run(&mut self, rank: &Rank) -> Result<Self::Part, Error> {
        let (plan, target) = self.planned();
        let layout = self.layout.as_ref().expect("prepared before the run");
        let mine = layout.of_rank(rank.dist.rank(), self.args.controls.reorder);
        let ctx = RunContext::new(rank.stop.clone());
        let progress = Progress::start(ctx.bytes_done.clone(), plan.size * 2, rank.quiet);
        // The report keeps at most EVENT_CAP events, spread over the run; the CSV log gets every one.
        let cap = crate::stats::sample::EVENT_CAP;
        let rec = if self.ranks == 1 { Recorder::new().keep_events(cap) } else { Recorder::new() };
        let mut rec = rec.with_sink(rank.csv.clone());
        // The download starts together on every rank; MPI is called from this (the main) thread only.
        let mut between = || rank.dist.barrier(wait_after(rank.began));
        let out = bandwidth::run(plan, target, &mine, &ctx, &mut rec, &mut between);
        rec.close_sink();
        drop(progress);
        if self.ranks == 1 {
            self.local = Some((rec, out));
            return Ok(None);
        }
        Ok(Some(RankPart::new(&mine, &rank.host, &rec, out)))
    }

    fn sweep_args(&self) -> Option<&crate::cli::SweepArgs> {
        Some(&self.args.sweep)
    }

    fn sweep_keys(&self) -> &'static [&'static str] {
        BandwidthArgs::SWEEPS
    }

    fn at_point(&self, point: &[(String, String)]) -> Result<Self, String> {
        self.args.at_point(point).map(Bandwidth::new)
    }

    fn conclude(&mut self, rank: &Rank, parts: Vec<Self::Part>) -> Result<Concluded, Error> {
        let local = self.local.take();
        let (plan, target) = self.planned();
        let layout = self.layout.as_ref().expect("prepared before the run");
        let (rec, out, tasks) = match local {
            Some((rec, out)) => {
                let tasks = bandwidth::rank_tasks(&rec, &out, &layout.of_rank(0, None), &rank.host);
                (rec, out, tasks)
            }
            None => {
                let (rec, mut out, tasks) =
                    bandwidth::merge_ranks(parts.into_iter().flatten().collect()).map_err(Error::Run)?;
                // Every rank removed its own file; the run directory is rank 0's to remove.
                if let (Some(dir), false) = (&layout.run_dir, plan.keep) {
                    if let Err(e) = target.store.remove_dir(dir) {
                        out.cleanup_errors.push(format!("removing the run directory {dir}: {e}"));
                    }
                }
                (rec, out, tasks)
            }
        };
        let mut report = bandwidth::report(plan, target, layout, &rec, &out, tasks, rank.started_at.clone());
        report.reorder = self.args.controls.reorder;
        Ok(Concluded { report, failure: out.failure, cleanup_errors: out.cleanup_errors, file_errors: Vec::new() })
    }
}
