//! `storebench ranges`: the byte ranges of one object read with each strategy, in one process.

use super::{Command, Concluded, Rank};
use crate::cli::ranges::RangesArgs;
use crate::cli::Sweepable;
use crate::error::Error;
use crate::export::manager::Outputs;
use crate::store::Target;
use crate::workload::ranges::{self, RangesPlan};
use crate::workload::Failure;

/// Runs `ranges` with these arguments: the entry `app`'s command table points at.
pub fn run(args: RangesArgs) -> Result<(), crate::error::Error> {
    super::drive(Ranges::new(args))
}

/// The command and what it learns on the way.
pub struct Ranges {
    args: RangesArgs,
    planned: Option<(RangesPlan, Target, u64)>,
    done: Option<(crate::stats::report::RangesRun, Option<Failure>)>,
    /// Page-cache residency before each cold pass, when --drop-cache evicted the object.
    residency: Vec<crate::stats::findings::Residency>,
    /// The object at the URL is the one --prepare wrote (here or at an earlier point of a sweep), and
    /// this command removes it unless it hands it on (`rank.hand_on`).
    ours: bool,
}

impl Ranges {
    /// The command for these arguments.
    pub fn new(args: RangesArgs) -> Self {
        Ranges { args, planned: None, done: None, residency: Vec::new(), ours: false }
    }
}

impl Command for Ranges {
    type Part = ();
    const NAME: &'static str = "ranges";

    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.args.json.clone(),
            html: self.args.html.clone(),
            format: self.args.format,
            quiet: self.args.quiet,
            ..Default::default()
        }
    }

    fn distributed(&self) -> bool {
        false
    }

    fn plan(&mut self, launch: super::Launch) -> Result<Vec<String>, String> {
        if let Some(n) = self.args.controls.reorder {
            return Err(format!(
                "--reorder {n}: ranges runs in one process, so no rank reads another's data; --reorder applies \
                 to bandwidth, ops and dfsio -read under mpirun"
            ));
        }
        let (plan, target, size) = crate::plan::ranges(&self.args, launch.seed, self.ours)?;
        let warnings = target.warnings.clone();
        self.planned = Some((plan, target, size));
        Ok(warnings)
    }

    fn prepare(&mut self, _rank: &Rank) -> Result<(), Error> {
        let (plan, target, _) = self.planned.as_ref().expect("planned");
        match plan.prepare {
            Some(s) if !self.ours => {
                ranges::prepare_object(target, s, plan.data).map_err(Error::Run)?;
                self.ours = true;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn run(&mut self, rank: &Rank) -> Result<(), Error> {
        let (plan, target, _) = self.planned.as_ref().expect("planned");
        self.done = Some(match ranges::reference(target, plan) {
            Ok(reference) => ranges::run(target, plan, reference.as_ref(), &rank.stop, &mut self.residency),
            Err(e) => (Default::default(), Some(Failure::Failed(format!("--verify: reading the object: {e}")))),
        });
        Ok(())
    }

    fn sweep_args(&self) -> Option<&crate::cli::SweepArgs> {
        Some(&self.args.sweep)
    }

    fn sweep_keys(&self) -> &'static [&'static str] {
        RangesArgs::SWEEPS
    }

    fn at_point(&self, point: &[(String, String)]) -> Result<Self, String> {
        self.args.at_point(point).map(Ranges::new)
    }

    /// Points that differ only in how many GETs are in flight read the object --prepare wrote once.
    fn read_settings(&self) -> Option<&'static [&'static str]> {
        self.args.prepare.map(|_| RangesArgs::SWEEPS)
    }

    fn take_prepared(&mut self, from: &mut Self) {
        self.ours = std::mem::take(&mut from.ours);
    }

    fn clean_prepared(&mut self) -> Vec<String> {
        let Some((_, target, _)) = self.planned.as_ref().filter(|_| self.ours) else { return Vec::new() };
        self.ours = false;
        match target.store.delete(&target.path) {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("deleting the test object {}: {e}", self.args.url)],
        }
    }

    fn conclude(&mut self, rank: &Rank, _: Vec<()>) -> Result<Concluded, Error> {
        let cleanup_errors = if rank.hand_on { Vec::new() } else { self.clean_prepared() };
        let (plan, target, size) = self.planned.as_ref().expect("planned");
        let (run, failure) = self.done.take().unwrap_or_default();
        let mut report = ranges::report(target, plan, *size, run, failure.as_ref(), rank.started_at.clone());
        report.probes.page_cache = std::mem::take(&mut self.residency);
        Ok(Concluded { report, failure, cleanup_errors, file_errors: Vec::new() })
    }
}
