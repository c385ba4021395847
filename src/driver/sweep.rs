//! `--sweep`: the command run once per grid point, each point as it would run alone (planned,
//! prepared, run, concluded and cleaned up), on every MPI rank together; then the table of points,
//! the verdict, and one JSON file (and HTML page) with every point's report. Rank 0 decides before
//! each point whether to go on (`--max-time`, Ctrl-C), so the ranks stay in step; what was measured
//! is always reported, and the points not run are named.

use super::{execute, plan, warn_all, Command, Launch, Rank};
use crate::error::Error;
use crate::run::dist::{Dist, WAIT};
use crate::stats::report::RunReport;
use crate::stats::sweep::{figures, verdict};
use crate::workload::Failure;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A point's error, naming the point.
fn named(e: Error, what: &str) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(format!("sweep point {what}: {m}")),
        Error::Run(m) => Error::Run(format!("sweep point {what}: {m}")),
        other => other,
    }
}

fn describe(point: &[(String, String)]) -> String {
    crate::stats::sweep::settings_text(point, "")
}

/// What the points measured and why some did not run.
#[derive(Default)]
struct State {
    /// Every point run: its settings and report.
    done: Vec<(Vec<(String, String)>, RunReport)>,
    /// For each point run, the point whose prepared files it used, if not its own.
    shared: Vec<Option<String>>,
    skipped: Vec<String>,
    failed: Vec<String>,
    interrupted: bool,
    refused: Vec<String>,
}

/// Whether two points differ only in `keys`.
fn differ_only_in(a: &[(String, String)], b: &[(String, String)], keys: &[&str]) -> bool {
    a.iter().zip(b).all(|((k, x), (_, y))| x == y || keys.contains(&k.as_str()))
}

/// Runs the grid's points in order, each as it would run alone but for what `prepare` makes: a point
/// that differs from the one that prepared only in read settings takes it over (`held`), and a
/// point keeps it for the next when that one may take it.
fn points_loop<C: Command>(
    cmd: &C,
    points: &[Vec<(String, String)>],
    s: &crate::cli::SweepArgs,
    rank: &mut Rank,
    launch: Launch,
    st: &mut State,
    held: &mut Option<(usize, C)>,
) -> Result<(), Error> {
    let (n, leads, t0) = (points.len(), rank.dist.leads(), Instant::now());
    for (i, point) in points.iter().enumerate() {
        // Rank 0 decides whether every rank goes on: not after Ctrl-C, not past --max-time.
        let go = !rank.stop.load(Ordering::SeqCst) && s.max_time.map_or(true, |m| t0.elapsed() < m);
        let go = rank.dist.announce(Ok(vec![u8::from(go)]), WAIT).map_err(Error::Run)?;
        if go.first() != Some(&1) {
            st.skipped = points[i..].iter().map(|p| describe(p)).collect();
            break;
        }
        let what = describe(point);
        let mut pc = cmd.at_point(point).map_err(Error::Usage)?;
        // Take over what the holding point prepared when only read settings differ; else remove it.
        let from = match held.as_mut() {
            Some((h, prev)) if prev.read_settings().is_some_and(|k| differ_only_in(&points[*h], point, k)) => {
                pc.take_prepared(prev);
                Some(*h)
            }
            _ => {
                if let Some((_, mut prev)) = held.take().filter(|_| leads) {
                    warn_all(&prev.clean_prepared());
                }
                None
            }
        };
        // A point the command refuses (a block larger than SIZE, say): the first stops the sweep
        // (the arguments themselves are wrong), a later one is reported and the sweep goes on.
        let warnings = match plan(&mut pc, &rank.dist, launch) {
            Ok(w) => w,
            Err(e) if i == 0 => return Err(named(e, &what)),
            Err(e) => {
                if let Some((_, prev)) = held.as_mut() {
                    prev.take_prepared(&mut pc);
                }
                st.refused.push(format!("{what}: {e}"));
                continue;
            }
        };
        *held = None;
        if leads {
            if i == 0 {
                warnings.iter().for_each(|w| eprintln!("storebench: {w}"));
            }
            let eta = if i > 0 {
                let left = t0.elapsed().mul_f64((n - i) as f64 / i as f64);
                format!(", about {} left", humantime::format_duration(std::time::Duration::from_secs(left.as_secs())))
            } else {
                String::new()
            };
            let reuse = from.map(|h| format!(" (reading what {} prepared)", describe(&points[h]))).unwrap_or_default();
            eprintln!("storebench: sweep point {}/{n}: {what}{eta}{reuse}", i + 1);
        }
        if let Err(e) = pc.prepare(rank) {
            if i == 0 {
                return Err(named(e, &what));
            }
            st.refused.push(format!("{what}: {e}"));
            continue;
        }
        // The next point may take over what this one prepared: keep it (a refused next point hands
        // it back, and a later one may take it).
        let hand_on =
            points.get(i + 1).is_some_and(|next| pc.read_settings().is_some_and(|k| differ_only_in(point, next, k)));
        rank.hand_on = hand_on;
        let concluded = execute(&mut pc, rank);
        rank.hand_on = false;
        let origin = from.unwrap_or(i);
        if hand_on {
            *held = Some((origin, pc));
        }
        let Some(c) = concluded? else { continue };
        warn_all(&c.cleanup_errors.iter().chain(&c.file_errors).map(|e| format!("{what}: {e}")).collect::<Vec<_>>());
        match &c.failure {
            Some(Failure::Interrupted) => st.interrupted = true,
            Some(Failure::Failed(m)) => st.failed.push(format!("{what}: {m}")),
            None => {}
        }
        st.shared.push(from.map(|h| describe(&points[h])));
        st.done.push((point.clone(), c.report));
    }
    Ok(())
}

/// Runs the sweep `cmd` asks for.
pub fn run<C: Command>(cmd: C, dist: Dist, began: Instant, launch: Launch) -> Result<(), Error> {
    let s = cmd.sweep_args().cloned().unwrap_or_default();
    let outputs = cmd.outputs();
    if outputs.csv.is_some() {
        return Err(Error::Usage("--csv logs one run; a sweep writes every point's full report with --json".into()));
    }
    let points = crate::run::sweep::grid(&s.sweep, C::NAME, cmd.sweep_keys(), s.yes).map_err(Error::Usage)?;
    let leads = dist.leads();
    // The sweep's files are made before the first point, so a bad path fails before anything runs.
    let open = |p: &Option<std::path::PathBuf>, what: &str| {
        p.as_deref().filter(|_| leads).map(|p| crate::export::open_output(p, what, false)).transpose()
    };
    let json = open(&outputs.json, "the JSON file").map_err(Error::Usage)?;
    let html = open(&outputs.html, "the HTML file").map_err(Error::Usage)?;
    // Each point's progress bar is off: the sweep says which point runs.
    let mut rank = Rank::new(dist, began, true, None);
    if leads {
        crate::run::probe::measure_memory();
    }
    let mut state = State::default();
    // What a point prepared and kept for the next ones; removed whatever happens to the loop.
    let mut held: Option<(usize, C)> = None;
    let looped = points_loop(&cmd, &points, &s, &mut rank, launch, &mut state, &mut held);
    if let Some((_, mut h)) = held.take().filter(|_| leads) {
        warn_all(&h.clean_prepared());
    }
    looped?;
    let State { done, mut skipped, mut failed, interrupted, refused, shared } = state;
    let n = points.len();
    if !leads {
        return Ok(());
    }
    let mut figs: Vec<_> = done.iter().map(|(p, r)| figures(p.clone(), r)).collect();
    for (f, by) in figs.iter_mut().zip(shared) {
        f.prepared_by = by;
    }
    let keys: Vec<String> = s.sweep.iter().map(|a| a.key.clone()).collect();
    let found = verdict(&keys, &figs);
    skipped.extend(refused.iter().map(|r| format!("{r} (refused)")));
    let sweep = crate::export::sweep::Sweep {
        command: C::NAME,
        axes: &s.sweep,
        points: &figs,
        verdict: &found,
        skipped: &skipped,
    };
    super::print_stdout(&crate::export::sweep::text(&sweep));
    let mut errors = Vec::new();
    if let (Some(mut f), Some(p)) = (json, &outputs.json) {
        let reports: Vec<&RunReport> = done.iter().map(|(_, r)| r).collect();
        crate::export::manager::mark_report_written();
        if let Err(e) = f.write_all(crate::export::sweep::json(&sweep, &reports).as_bytes()) {
            errors.push(format!("writing the JSON file {} failed: {e}", p.display()));
        }
    }
    if let (Some(mut f), Some(p)) = (html, &outputs.html) {
        let reports: Vec<(String, RunReport)> = done.into_iter().map(|(p, r)| (describe(&p), r)).collect();
        if let Err(e) = f.write_all(crate::export::sweep::html(&sweep, &reports).as_bytes()) {
            errors.push(format!("writing the HTML file {} failed: {e}", p.display()));
        }
    }
    warn_all(&errors);
    if interrupted {
        return Err(Error::Interrupted);
    }
    failed.extend(refused);
    if !failed.is_empty() {
        return Err(Error::Run(format!("{} of {n} sweep point(s) failed; the first: {}", failed.len(), failed[0])));
    }
    match errors.first() {
        Some(e) => Err(Error::Run(e.clone())),
        None => Ok(()),
    }
}
