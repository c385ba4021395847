//! One driver for every command. A command implements [`Command`] (plan, prepare, run one rank,
//! conclude on rank 0 from every rank's part); [`drive`] runs the same sequence for all of them, on one
//! process or on many MPI ranks: agree on the arguments, plan (rank 0's verdict), print the target's
//! warnings, create the output files, prepare, stamp the start, run, gather the ranks' parts, conclude,
//! write the files and the summary, and decide the result. A new command is one file here plus one line
//! in `app::dispatch`.

pub mod bandwidth;
pub mod compare;
pub mod dfsio;
pub mod ops;
pub mod ranges;
pub mod report;
pub mod sweep;
pub mod transfer;

use crate::error::Error;
use crate::export::manager::{ExportManager, Outputs};
use crate::run::dist::{Dist, WAIT};
use crate::stats::report::RunReport;
use crate::stats::sample::Event;
use crate::workload::Failure;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Instant;

/// Set on MPI ranks other than 0, which write no files.
static FOLLOWER: AtomicBool = AtomicBool::new(false);

/// Whether this process is an MPI rank other than 0 (it writes no report files).
pub fn is_follower() -> bool {
    FOLLOWER.load(Ordering::SeqCst)
}

/// What one rank knows while it runs.
pub struct Rank {
    /// The MPI job (or the one process).
    pub dist: Dist,
    /// When the command started (plan included).
    pub began: Instant,
    /// This host's name.
    pub host: String,
    /// When the run proper started (after prepare), RFC 3339 UTC.
    pub started_at: String,
    /// Set by SIGINT, SIGTERM or SIGHUP.
    pub stop: Arc<AtomicBool>,
    /// Progress display off (`--quiet`, or not rank 0).
    pub quiet: bool,
    /// A streaming `--csv`'s event sink.
    pub csv: Option<Sender<Event>>,
    /// `conclude` leaves what `prepare` made in place: the sweep's next point takes it over.
    pub hand_on: bool,
}

impl Rank {
    /// This process's place in a run that started at `began`, before its run proper starts.
    pub fn new(dist: Dist, began: Instant, quiet: bool, csv: Option<Sender<Event>>) -> Rank {
        let (host, stop) = (crate::run::host_name(), crate::run::signal::stop_flag());
        Rank { dist, began, host, started_at: String::new(), stop, quiet, csv, hand_on: false }
    }
}

/// What every rank plans with: how many ranks run, and the run's seed (rank 0's clock, shared, so
/// every rank draws its choices and its data from the same seed; `--seed` overrides it).
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// MPI ranks (1 without MPI).
    pub ranks: u32,
    /// The run's seed where the user gave none.
    pub seed: u64,
}

/// What rank 0 concludes: the report, why the run stopped early, and what could not be cleaned up or
/// written (warnings; a failed file fails a completed run).
pub struct Concluded {
    /// The report.
    pub report: RunReport,
    /// Why the run stopped before its end.
    pub failure: Option<Failure>,
    /// What could not be cleaned up (warnings).
    pub cleanup_errors: Vec<String>,
    /// Files of the command's own that could not be written (TestDFSIO's -resFile).
    pub file_errors: Vec<String>,
}

/// One command of storebench.
pub trait Command {
    /// What one rank sends rank 0 at the end of its run.
    type Part: Serialize + DeserializeOwned;
    /// The command's name, as typed ("bandwidth").
    const NAME: &'static str;
    /// The files and format the report goes to.
    fn outputs(&self) -> Outputs;
    /// Whether the command runs across MPI ranks (else it refuses more than one).
    fn distributed(&self) -> bool {
        true
    }
    /// How long rank 0 waits at least for the other ranks' parts (else four times the run so far).
    fn gather_wait(&self) -> std::time::Duration {
        WAIT
    }
    /// Checks the arguments and opens the target, on every rank (rank 0's verdict wins); returns the
    /// target's warnings.
    fn plan(&mut self, launch: Launch) -> Result<Vec<String>, String>;
    /// Makes what the run needs (rank 0 for every rank, through `rank.dist`).
    fn prepare(&mut self, rank: &Rank) -> Result<(), Error>;
    /// This rank's share of the run.
    fn run(&mut self, rank: &Rank) -> Result<Self::Part, Error>;
    /// On rank 0, after every rank's part arrived (in rank order): clean up and build the report.
    fn conclude(&mut self, rank: &Rank, parts: Vec<Self::Part>) -> Result<Concluded, Error>;
    /// `--sweep` and its limits, for commands that sweep.
    fn sweep_args(&self) -> Option<&crate::cli::SweepArgs> {
        None
    }
    /// The keys `--sweep` may vary.
    fn sweep_keys(&self) -> &'static [&'static str] {
        &[]
    }
    /// The command for one grid point: these arguments with the point's settings.
    fn at_point(&self, _point: &[(String, String)]) -> Result<Self, String>
    where
        Self: Sized,
    {
        Err(format!("{} does not sweep", Self::NAME))
    }
    /// Once planned: the sweep keys that only change how the run reads what `prepare` made, so grid
    /// points that differ in these alone share it (the first prepares, the next make only what is
    /// missing, the last cleans up). None (the default): every point makes and removes its own, as
    /// when the run writes, renames or deletes what it works on.
    fn read_settings(&self) -> Option<&'static [&'static str]> {
        None
    }
    /// Takes over what `from` (an earlier grid point, or a later one handing it back) prepared and
    /// still owns; called before `plan`.
    fn take_prepared(&mut self, _from: &mut Self)
    where
        Self: Sized,
    {
    }
    /// On rank 0: removes what `prepare` made and this command still owns (what `conclude` does
    /// unless `rank.hand_on`); returns what could not be removed.
    fn clean_prepared(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// Runs a command from its arguments to its exit result.
pub fn drive<C: Command>(mut cmd: C) -> Result<(), Error> {
    let began = Instant::now();
    let dist = Dist::init().map_err(Error::Usage)?;
    FOLLOWER.store(!dist.leads(), Ordering::SeqCst);
    let argv: Vec<String> = std::env::args().skip(1).collect();
    dist.agree(&argv, WAIT).map_err(Error::Usage)?;
    let ranks = dist.size();
    let seed = dist.share(|| Ok(crate::plan::clock_seed()), WAIT).map_err(Error::Run)?;
    if cmd.sweep_args().is_some_and(|s| !s.sweep.is_empty()) {
        return sweep::run(cmd, dist, began, Launch { ranks, seed });
    }
    let warnings = plan(&mut cmd, &dist, Launch { ranks, seed })?;
    let leads = dist.leads();
    if leads {
        for w in &warnings {
            eprintln!("storebench: {w}");
        }
    }
    let outputs = cmd.outputs();
    let quiet = outputs.quiet || !leads;
    let exports = ExportManager::create(outputs, leads).map_err(Error::Usage)?;
    let mut rank = Rank::new(dist, began, quiet, exports.csv_sink());
    if leads {
        // The memory ceiling of the `impossible` finding, before anything is timed (about 30 ms).
        crate::run::probe::measure_memory();
    }
    if let Err(e) = cmd.prepare(&rank) {
        rank.csv = None;
        exports.abandon();
        return Err(e);
    }
    // Not rank 0: rank 0 has this rank's result (or failure), reports and sets the exit code.
    // Exiting 0 here keeps mpirun from aborting rank 0 before it has reported.
    let Some(c) = execute(&mut cmd, &mut rank)? else { return Ok(()) };
    let (text, mut file_errors) = exports.finish(&c.report);
    file_errors.splice(0..0, c.file_errors);
    print_stdout(&text);
    finish(c.failure, &c.cleanup_errors, file_errors)
}

/// Plans the command on every rank (rank 0's verdict wins); returns the target's warnings.
pub fn plan<C: Command>(cmd: &mut C, dist: &Dist, launch: Launch) -> Result<Vec<String>, Error> {
    let ranks = launch.ranks;
    let planned = if ranks > 1 && !cmd.distributed() {
        Err(format!("{} runs in one process; start it without mpirun ({ranks} ranks here)", C::NAME))
    } else {
        cmd.plan(launch)
    };
    match dist.verdict(planned.as_ref().map(|_| ()).map_err(Clone::clone), WAIT) {
        Ok(()) => planned.map_err(Error::from_plan),
        Err(e) => Err(Error::from_plan(e)),
    }
}

/// Runs a prepared command on this rank, gathers every rank's part on rank 0 and concludes there,
/// findings included; `None` on the other ranks.
pub fn execute<C: Command>(cmd: &mut C, rank: &mut Rank) -> Result<Option<Concluded>, Error> {
    rank.started_at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
    let part = cmd.run(rank);
    rank.csv = None;
    let part = part?;
    let parts = if rank.dist.size() == 1 {
        vec![part]
    } else {
        let bytes =
            serde_json::to_vec(&part).map_err(|e| Error::Run(format!("cannot encode this rank's result: {e}")))?;
        let wait = cmd.gather_wait().max(rank.began.elapsed() * 4);
        let Some(all) = gather_or_abort(&rank.dist, bytes, wait) else { return Ok(None) };
        decode_parts(&all)?
    };
    let mut c = cmd.conclude(rank, parts)?;
    c.report.findings = crate::stats::findings::of(&c.report);
    Ok(Some(c))
}

/// Writes to standard output; a closed pipe (`storebench ... | head`) is not an error.
pub fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Prints each of `errors` as a warning (what could not be cleaned up or written: the run goes on).
fn warn_all(errors: &[String]) {
    for e in errors {
        eprintln!("storebench: warning: {e}");
    }
}

/// The end of every run, after its figures are printed: warnings for what could not be cleaned up or
/// written, and the result that decides the exit code (a failed report file fails a completed run).
fn finish(failure: Option<Failure>, cleanup_errors: &[String], file_errors: Vec<String>) -> Result<(), Error> {
    warn_all(cleanup_errors);
    warn_all(&file_errors);
    match failure {
        None if file_errors.is_empty() => Ok(()),
        None => Err(Error::Run(file_errors.join("; "))),
        Some(Failure::Failed(m)) => Err(Error::Run(m)),
        Some(Failure::Interrupted) => Err(Error::Interrupted),
    }
}

/// The ranks' results rank 0 gathered, in rank order.
pub fn decode_parts<T: DeserializeOwned>(all: &[Vec<u8>]) -> Result<Vec<T>, Error> {
    let parts = all.iter().map(|b| serde_json::from_slice(b)).collect::<Result<Vec<T>, _>>();
    parts.map_err(|e| Error::Run(format!("a rank's result could not be read: {e}")))
}

/// Sends this rank's result to rank 0, which gets everyone's; a rank that does not answer within
/// `wait` ends the whole MPI job (after rank 0 names it), so nobody hangs.
pub fn gather_or_abort(dist: &Dist, bytes: Vec<u8>, wait: std::time::Duration) -> Option<Vec<Vec<u8>>> {
    match dist.gather(bytes, wait) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("storebench: {e}");
            dist.abort(1);
        }
    }
}
