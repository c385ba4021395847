//! The pipeline of one invocation: parse -> plan -> target -> run -> report -> export. This is the one
//! place that prints errors and decides the exit code.

use crate::cli::bandwidth::BandwidthArgs;
use crate::cli::{normalize_args, Cli, Command};
use crate::error::Error;
use crate::export::csv::CsvStream;
use crate::export::{exporter, Format};
use crate::run::progress::Progress;
use crate::run::{run_workers, RunContext};
use crate::stats::report::RunReport;
use crate::stats::sample::Recorder;
use crate::workload::bandwidth;
use crate::workload::Failure;
use clap::Parser;
use std::ffi::OsString;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::run::signal::stop_flag;

/// Reduces clap's multi-line error to its first paragraph on one line.
fn one_line(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("Usage:") || t.starts_with("For more information") {
            if !parts.is_empty() {
                break;
            }
            continue;
        }
        parts.push(t.trim_start_matches("error: ").to_string());
    }
    parts.join(" ")
}

/// Runs storebench with these arguments and returns the exit code.
pub fn main_with(args: Vec<OsString>) -> i32 {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("storebench: internal error{at}: {msg} (this is a bug; please report it)");
    }));
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("").to_string();
    let cli = match Cli::try_parse_from(normalize_args(args)) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            return match e.kind() {
                DisplayHelp | DisplayVersion => {
                    let _ = e.print();
                    0
                }
                _ => {
                    let hint = if sub.is_empty() || sub.starts_with('-') {
                        "storebench --help".to_string()
                    } else {
                        format!("storebench {sub} --help")
                    };
                    eprintln!("storebench: {} (see '{hint}')", one_line(&e.render().to_string()));
                    2
                }
            };
        }
    };
    let (command, json, url) = (cli.command.name(), cli.command.json().map(|p| p.to_path_buf()), cli.command.target());
    let result = match cli.command {
        Command::Bandwidth(args) => run_bandwidth(args),
        Command::Ops(args) => run_ops(args),
        Command::Ranges(args) => run_ranges(args),
        Command::Dfsio(args) => run_dfsio(args),
        Command::Transfer(args) => run_transfer(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            // A run that stopped before it wrote its report still leaves one saying why.
            if let Some(p) = json.filter(|_| !REPORT_WRITTEN.load(Ordering::SeqCst) && !FOLLOWER.load(Ordering::SeqCst))
            {
                let text = failure_report(command, url.as_deref(), &e);
                if let Err(w) = crate::export::open_output(&p, "the JSON file", false)
                    .and_then(|mut f| f.write_all(text.as_bytes()).map_err(|x| x.to_string()))
                {
                    eprintln!("storebench: warning: writing the JSON file {} failed: {w}", p.display());
                }
            }
            match &e {
                Error::Interrupted => {
                    eprintln!("storebench: {}; the figures above cover what was done", crate::run::signal::describe())
                }
                other => eprintln!("storebench: {other}"),
            }
            e.exit_code()
        }
    }
}

/// Set once a command has written its `--json` report.
static REPORT_WRITTEN: AtomicBool = AtomicBool::new(false);
/// Set on MPI ranks other than 0, which write no files.
static FOLLOWER: AtomicBool = AtomicBool::new(false);

/// The report of a run that failed or was stopped before it had figures: the envelope of every
/// report (docs/report-schema.md) with the outcome, the error and the exit code.
fn failure_report(command: &str, target: Option<&str>, e: &Error) -> String {
    use crate::stats::report::SCHEMA_VERSION;
    let status = match e {
        Error::Interrupted => "interrupted",
        Error::Usage(_) => "refused",
        Error::Run(_) => "failed",
    };
    let error = match e {
        Error::Interrupted => crate::run::signal::describe(),
        other => other.to_string(),
    };
    let doc = serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "tool": "storebench",
        "version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "started_at": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        "host": crate::run::host_name(),
        "target": target.map(crate::store::redact_url),
        "outcome": { "status": status, "error": error, "exit_code": e.exit_code() },
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (storebench ... | head) is not an error worth a panic.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Creates the `--json` file before the run, so an unwritable path fails before anything runs.
fn create_json(path: Option<&std::path::Path>) -> Result<Option<std::fs::File>, Error> {
    path.map(|p| crate::export::open_output(p, "the JSON file", false).map_err(Error::Usage)).transpose()
}

/// Writes `text` into the `--json` file made by [`create_json`]; returns why it could not.
fn write_json_text(file: Option<std::fs::File>, path: Option<&std::path::Path>, text: &str) -> Option<String> {
    let (mut f, p) = (file?, path?);
    REPORT_WRITTEN.store(true, Ordering::SeqCst);
    f.write_all(text.as_bytes()).err().map(|e| format!("writing the JSON file {} failed: {e}", p.display()))
}

/// Writes the report into the `--json` file made by [`create_json`]; returns why it could not.
fn write_json(file: Option<std::fs::File>, path: Option<&std::path::Path>, report: &RunReport) -> Option<String> {
    write_json_text(file, path, &exporter(Format::Json, false, false).render(report))
}

/// The end of every run, after its figures are printed: warnings for what could not be cleaned up or
/// written, and the result that decides the exit code (a failed report file fails a completed run).
fn finish(failure: Option<Failure>, cleanup_errors: &[String], file_errors: Vec<String>) -> Result<(), Error> {
    for e in cleanup_errors.iter().chain(file_errors.iter()) {
        eprintln!("storebench: warning: {e}");
    }
    match failure {
        None if file_errors.is_empty() => Ok(()),
        None => Err(Error::Run(file_errors.join("; "))),
        Some(Failure::Failed(m)) => Err(Error::Run(m)),
        Some(Failure::Interrupted) => Err(Error::Interrupted),
    }
}

fn run_ops(args: crate::cli::ops::OpsArgs) -> Result<(), Error> {
    use crate::run::dist::{wait_after, WAIT};
    use crate::stats::report::{CounterGroup, OpsRun};
    use crate::workload::ops;
    let began = std::time::Instant::now();
    let (dist, (plan, target, default_base)) = join_run(|| crate::plan::ops(&args))?;
    let (ranks, rank, leads) = (dist.size(), dist.rank(), dist.leads());
    // Every rank runs --threads threads; thread K of rank R is thread R x threads + K of the run, on
    // its own file test_<that>. Rank 0 prepares and cleans up for all of them.
    let mut all_plan = plan.clone();
    all_plan.threads = plan.threads * ranks as usize;
    let mut rank_plan = plan.clone();
    rank_plan.rate = plan.rate.map(|r| r / ranks as f64);
    let first = rank as usize * plan.threads;
    if leads {
        for w in &target.warnings {
            eprintln!("storebench: {w}");
        }
    }
    let json_file = if leads { create_json(args.json.as_deref())? } else { None };
    let prepared = match dist.share(|| ops::prepare(&target, &all_plan, default_base), WAIT) {
        Ok(p) => p,
        Err(e) => {
            return Err(Error::Run(e));
        }
    };
    let host = crate::run::host_name();
    let started_at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
    let stop = stop_flag();
    let mut all = Recorder::new();
    let mut run = OpsRun::default();
    let mut tasks = Vec::new();
    let mut counters = Vec::new();
    let mut interrupted = false;
    let mut failed_ops = 0;
    for repeat in 1..=plan.repeats {
        let wait = wait_after(began);
        dist.barrier(wait).map_err(Error::Run)?;
        let ctx = RunContext::new(stop.clone());
        let shared = ops::RepeatShared::default();
        let total = plan.iterations.map_or(0, |n| n * plan.threads as u64 * plan.file_size);
        let progress = Progress::start(ctx.bytes_done.clone(), total, args.quiet || total == 0 || !leads);
        let cpu0 = crate::stats::cpu::CpuTimes::process();
        let (rec, threads) = run_workers(plan.threads, |k| {
            let mut rec = Recorder::new();
            let out = ops::run_thread(&rank_plan, &target, &prepared, first + k, repeat, &ctx, &shared, &mut rec);
            (rec, out)
        });
        let cpu = crate::stats::cpu::CpuTimes::process().since(cpu0);
        drop(progress);
        let part = ops::RepeatPart {
            rank,
            stats: rec.to_data(),
            ends: ops::thread_ends(&threads),
            per_second: ops::per_second(&threads),
            cpu,
            first_errors: threads.iter().flat_map(|t| t.errors.iter().cloned()).take(5).collect(),
            interrupted: threads.iter().any(|t| t.interrupted),
            tasks: ops::thread_tasks(&threads, first, repeat, &prepared.base, rank, &host),
            // Rank 0 adds its own counters at the end, after the clean-up.
            counters: if leads { Vec::new() } else { target.store.counters() },
        };
        let wait = wait_after(began);
        let gathered = gather_or_abort(&dist, serde_json::to_vec(&part).unwrap_or_default(), wait);
        // The stonewall is the first thread's end over every rank; each rank counts what it had
        // done by then (exact, and a few bytes per rank).
        let merged = match gathered {
            Some(parts) => {
                let mut m = ops::RepeatPart::default();
                let mut rrec = Recorder::new();
                for p in decode_parts::<ops::RepeatPart>(&parts)? {
                    m.absorb(&mut rrec, p, ranks).map_err(Error::Run)?;
                }
                Some((m, rrec))
            }
            None => None,
        };
        let first_end = merged.as_ref().map(|(m, _)| m.ends.iter().copied().min().unwrap_or(0));
        let first_end = dist.announce(Ok(first_end.unwrap_or(0).to_le_bytes().to_vec()), wait).map_err(Error::Run)?;
        let first_end = u64::from_le_bytes(first_end.try_into().unwrap_or([0; 8]));
        let (sw_ops, sw_bytes) = ops::done_by(&threads, first_end);
        let counts = gather_or_abort(&dist, [sw_ops.to_le_bytes(), sw_bytes.to_le_bytes()].concat(), wait);
        let mut stop_now = false;
        if let (Some((m, rrec)), Some(counts)) = (merged, counts) {
            let sum = |i: usize| -> u64 {
                counts.iter().filter_map(|c| c.get(i * 8..i * 8 + 8)?.try_into().ok()).map(u64::from_le_bytes).sum()
            };
            let summary = ops::summarize_parts(&plan, &rrec, &m.ends, (sum(0), sum(1)), m.cpu);
            let r = ops::repeat_report(&plan, repeat, &rrec, summary, m.per_second);
            failed_ops += r.summary.errors;
            run.first_errors.extend(m.first_errors);
            run.repeats.push(r);
            all.merge(rrec);
            tasks.extend(m.tasks);
            counters = m.counters;
            interrupted = m.interrupted;
            stop_now = interrupted || (plan.fail_fast && failed_ops > 0);
        }
        // Rank 0 decides whether every rank goes on to the next repeat.
        let go = dist.announce(Ok(vec![u8::from(stop_now)]), wait).map_err(Error::Run)?;
        if go.first() == Some(&1) {
            break;
        }
    }
    if !leads {
        // Rank 0 reports and cleans up.
        return Ok(());
    }
    run.statistics = ops::statistics(&run.repeats);
    if run.repeats.len() >= 3 {
        run.warm_statistics = ops::statistics(&run.repeats[1..]);
    }
    let cleanup_errors = ops::cleanup(&all_plan, &target, &prepared);
    let failure = if interrupted {
        Some(Failure::Interrupted)
    } else if failed_ops > 0 {
        Some(Failure::Failed(format!(
            "{failed_ops} operation(s) failed; the first: {}",
            run.first_errors.first().cloned().unwrap_or_default()
        )))
    } else {
        None
    };
    // The other ranks' counters as of their last repeat, and this rank's after the clean-up.
    let mut summed = target.store.counters();
    crate::stats::report::add_counters(&mut summed, counters);
    let counters = vec![CounterGroup { scope: "store".into(), counters: summed }];
    let mut report = ops::report(&plan, &target, &prepared, &all, run, counters, failure.as_ref(), started_at, ranks);
    report.tasks = tasks;
    let mut file_errors = Vec::new();
    file_errors.extend(write_json(json_file, args.json.as_deref(), &report));
    if let Some(p) = &args.csv {
        let written = crate::export::open_output(p, "the CSV file", false)
            .and_then(|mut f| f.write_all(crate::export::ops::csv(&report).as_bytes()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            file_errors.push(format!("writing the CSV file {} failed: {e}", p.display()));
        }
    }
    let text = match args.format {
        crate::cli::ops::OutFormat::Text => exporter(Format::Text, false, args.quiet).render(&report),
        crate::cli::ops::OutFormat::Markdown => crate::export::ops::markdown(&report),
    };
    print_stdout(&text);
    finish(failure, &cleanup_errors, file_errors)
}

fn run_dfsio(args: crate::cli::dfsio::DfsioArgs) -> Result<(), Error> {
    use crate::stats::report::{CounterGroup, DfsioParams, Params};
    use crate::workload::dfsio::{self, Mode, RankResult};
    use std::time::Duration;
    let began = std::time::Instant::now();
    let short = crate::run::dist::WAIT;
    let (dist, (mut plan, target)) = join_run(|| crate::plan::dfsio(&args))?;
    if args.threads.is_none() {
        // By default every task of a rank runs at once (as a cluster with enough map slots), at most 64.
        plan.threads = plan.nr_files.div_ceil(dist.size() as u64).clamp(1, 64) as usize;
    }
    let leads = dist.leads();
    if leads {
        for w in &target.warnings {
            eprintln!("storebench: {w}");
        }
    }
    let json_file = if leads { create_json(args.json.as_deref())? } else { None };
    // Rank 0 alone makes the directories and checks the files; the others wait for its word.
    let prepared = if leads { dfsio::prepare(&target, &plan) } else { Ok(()) };
    if let Err(e) = dist.verdict(prepared, short) {
        return Err(Error::Run(e));
    }
    let started = std::time::SystemTime::now();
    let started_at = humantime::format_rfc3339_millis(started).to_string();
    let host = crate::run::host_name();
    let stop = stop_flag();
    dist.barrier(short).map_err(Error::Run)?;
    let ctx = RunContext::new(stop);
    let mut cleaned = None;
    let mine = if plan.mode == Mode::Clean {
        let mut r = RankResult { rank: dist.rank(), host: host.clone(), ..Default::default() };
        if leads {
            match dfsio::clean(&target, &plan) {
                Ok(c) => cleaned = Some(c),
                Err(e) => r.error = Some(e),
            }
        }
        r
    } else {
        let tasks: Vec<u64> = (0..plan.nr_files).filter(|k| k % dist.size() as u64 == dist.rank() as u64).collect();
        let total = tasks.len() as u64 * plan.file_size;
        let progress = Progress::start(ctx.bytes_done.clone(), total, args.quiet || !leads);
        let out = dfsio::run(&target, &plan, &tasks, &ctx, dist.rank(), &host);
        drop(progress);
        RankResult {
            rank: dist.rank(),
            host: host.clone(),
            tasks: out.tasks,
            error: out.error,
            interrupted: out.interrupted,
            bytes_moved: out.bytes_moved,
            stonewall: out.stonewall,
            calls: Some(out.calls.to_data()),
            counters: target.store.counters(),
        }
    };
    // Rank 0 waits for the others at most 5 minutes or 4 times its own run, whichever is longer.
    let wait = Duration::from_secs(300).max(began.elapsed() * 4);
    let bytes = serde_json::to_vec(&mine).map_err(|e| Error::Run(format!("cannot encode this rank's result: {e}")))?;
    let Some(all) = gather_or_abort(&dist, bytes, wait) else {
        // Not rank 0: rank 0 has this rank's failure, names it and exits non-zero. Exiting 0 here
        // keeps mpirun from aborting rank 0 before it has reported.
        return Ok(());
    };
    let out = dfsio::merge(decode_parts::<RankResult>(&all)?);
    let exec_ms = began.elapsed().as_millis() as i64;
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
        ranks: dist.size(),
    });
    let engine = target.store.engine(false);
    let mut report = crate::workload::base_report("dfsio", &target, engine, params, failure.as_ref(), started_at);
    let mut run = dfsio::summarize(&plan, &out, exec_ms as f64 / 1000.0);
    run.cleaned = cleaned;
    let hadoop_lines = if plan.mode == Mode::Clean {
        Vec::new()
    } else {
        run.aggregates.result_lines(plan.test_type(), &crate::export::dfsio::java_date(started), exec_ms)
    };
    // Store counters summed over every rank.
    let counters = if plan.mode == Mode::Clean { target.store.counters() } else { out.counters.clone() };
    report.counters = vec![CounterGroup { scope: "store".into(), counters }];
    report.dfsio_run = Some(run);
    let mut file_errors = Vec::new();
    // TestDFSIO appends its result lines to -resFile; storebench adds the raw aggregates after them.
    // Only a complete run with finite figures is appended: a failed or interrupted one would put
    // "Number of files: 0" or NaN among the user's results.
    let complete = failure.is_none() && out.tasks.len() as u64 == plan.nr_files;
    let finite = report.dfsio_run.as_ref().is_some_and(|d| d.aggregates.is_finite());
    if !hadoop_lines.is_empty() && complete && finite {
        let raw = report.dfsio_run.as_ref().map(|d| d.aggregates.raw_lines()).unwrap_or_default();
        let text: String = hadoop_lines.iter().chain(raw.iter()).map(|l| format!("{l}\n")).collect();
        let appended = crate::export::open_output(&args.res_file, "the -resFile", true)
            .and_then(|mut f| f.write_all(format!("{text}\n").as_bytes()).map_err(|e| e.to_string()));
        if let Err(e) = appended {
            file_errors.push(format!("appending to the -resFile {} failed: {e}", args.res_file.display()));
        }
    } else if !hadoop_lines.is_empty() {
        eprintln!(
            "storebench: the run did not complete ({} of {} tasks): nothing was appended to {}",
            out.tasks.len(),
            plan.nr_files,
            args.res_file.display()
        );
    }
    file_errors.extend(write_json(json_file, args.json.as_deref(), &report));
    let prefix = crate::export::dfsio::log_prefix(std::time::SystemTime::now());
    print_stdout(&crate::export::dfsio::text(&report, &hadoop_lines, &prefix, args.quiet));
    finish(failure, &[], file_errors)
}

fn run_transfer(args: crate::cli::transfer::TransferArgs) -> Result<(), Error> {
    use crate::workload::transfer::{self as t, Method, Source, TransferRun, CHUNK};
    use std::os::fd::AsRawFd;
    if let Some(&b) = args.buffer.iter().find(|&&b| b == 0 || b > crate::plan::MAX_BLOCK) {
        return Err(Error::Usage(format!("invalid --buffer {b}: expected 1 byte to 1 GiB (e.g. 4k,64k,128k,1m)")));
    }
    if args.direct {
        if let Some(b) = args.buffer.iter().find(|&&b| b % 4096 != 0) {
            return Err(Error::Usage(format!("invalid --buffer {b} with --direct: expected a multiple of 4096")));
        }
    }
    if args.runs == 0 {
        return Err(Error::Usage("invalid --runs 0: expected 1 or more".into()));
    }
    if args.timeout == 0 || args.timeout > 86_400 {
        return Err(Error::Usage(format!("invalid --timeout {}: expected 1 to 86400 seconds", args.timeout)));
    }
    let timeout = std::time::Duration::from_secs(args.timeout);
    let stop = stop_flag();
    let json_file = if args.serve.is_some() { None } else { create_json(args.json.as_deref())? };
    if let Some(spec) = &args.serve {
        if args.max_connections == Some(0) {
            return Err(Error::Usage("invalid --max-connections 0: expected 1 or more transfers".into()));
        }
        let addr = match (spec.rsplit_once(':'), &args.bind) {
            (Some(_), Some(_)) => {
                return Err(Error::Usage(format!(
                    "--serve {spec} names a host already: drop --bind, or give --serve PORT"
                )))
            }
            (Some(_), None) => spec.clone(),
            (None, bind) => format!("{}:{spec}", bind.as_deref().unwrap_or("127.0.0.1")),
        };
        let listener = std::net::TcpListener::bind(&addr)
            .map_err(|e| Error::Run(format!("--serve: cannot listen on {addr}: {e}")))?;
        eprintln!("storebench: receiving on {}", listener.local_addr().map_or(addr.clone(), |a| a.to_string()));
        t::serve(listener, args.max_connections, timeout, &stop).map_err(|e| Error::Run(format!("--serve: {e}")))?;
        return if stop.load(std::sync::atomic::Ordering::Relaxed) { Err(Error::Interrupted) } else { Ok(()) };
    }
    if args.file.is_none() && args.size == 0 {
        return Err(Error::Usage("invalid --size 0: the test file needs at least 1 byte (e.g. 1g)".into()));
    }
    let to_file = args.to_file.clone();
    if let Some(p) = &to_file {
        if std::fs::symlink_metadata(p).is_ok() {
            return Err(Error::Usage(format!("--to-file {}: it exists; storebench will not replace it", p.display())));
        }
    }
    // The source: the user's file, or one made here (and removed at the end).
    let mut made = None;
    let path = match &args.file {
        Some(p) => p.clone(),
        None => {
            let p = t::make_test_file(args.size, &stop).map_err(|e| {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    Error::Interrupted
                } else {
                    Error::Run(e)
                }
            })?;
            made = Some(p.clone());
            p
        }
    };
    let cleanup = |made: &Option<std::path::PathBuf>| {
        if let Some(p) = made {
            let _ = std::fs::remove_file(p);
        }
    };
    let src = match Source::open(&path, args.direct) {
        Ok(s) => s,
        Err(e) => {
            cleanup(&made);
            return Err(Error::Usage(e));
        }
    };
    let source_crc = if args.verify { crate::workload::transfer::file_crc(&path).ok() } else { None };

    // Where to: a receiver thread on 127.0.0.1, another host's receiver, or a file.
    let socket_methods = [Method::ReadWrite, Method::Sendfile, Method::Splice, Method::Mmap, Method::IoUring];
    let file_methods = [Method::ReadWrite, Method::CopyFileRange, Method::Splice, Method::Mmap];
    let all = if to_file.is_some() { &file_methods[..] } else { &socket_methods[..] };
    let methods: Vec<Method> = if args.method.contains(&Method::All) {
        all.to_vec()
    } else {
        args.method.iter().copied().filter(|m| *m != Method::All).collect()
    };
    let mut buffers = args.buffer.clone();
    buffers.sort_unstable();
    buffers.dedup();
    let attempts: u64 =
        methods.iter().map(|m| if m.uses_buffer() { buffers.len() as u64 } else { 1 }).sum::<u64>() * args.runs as u64;
    let dest: Option<std::net::SocketAddr> = if to_file.is_some() {
        None
    } else if let Some(to) = &args.to {
        use std::net::ToSocketAddrs;
        match to.to_socket_addrs().map(|mut a| a.next()) {
            Ok(Some(a)) => Some(a),
            _ => {
                cleanup(&made);
                return Err(Error::Usage(format!(
                    "invalid --to '{to}': expected HOST:PORT of a storebench transfer --serve"
                )));
            }
        }
    } else {
        let l = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| Error::Run(format!("cannot listen on 127.0.0.1: {e}")))?;
        let a = l.local_addr().map_err(|e| Error::Run(e.to_string()))?;
        let never = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        std::thread::spawn(move || t::serve(l, Some(attempts), timeout, &never));
        Some(a)
    };
    let mut runs: Vec<TransferRun> = Vec::new();
    let mut failure = None;
    'all: for run in 1..=args.runs {
        for &m in &methods {
            let sizes: Vec<u64> = if m.uses_buffer() { buffers.clone() } else { vec![CHUNK as u64] };
            for b in sizes {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    failure = Some(Failure::Interrupted);
                    break 'all;
                }
                let unsupported = |why: String| {
                    let mut r = t::figures(m, b, run, 0, 0.0, Default::default(), None);
                    r.status = format!("unsupported: {why}");
                    r
                };
                if to_file.is_none() && m == Method::CopyFileRange {
                    runs.push(unsupported("copy_file_range copies between files only: use --to-file".into()));
                    continue;
                }
                if to_file.is_some() && (m == Method::IoUring || m == Method::Sendfile) {
                    runs.push(unsupported(format!(
                        "{} sends to sockets; --to-file compares read-write, copy-file-range, splice and mmap",
                        m.name()
                    )));
                    continue;
                }
                if args.direct && m != Method::ReadWrite {
                    runs.push(unsupported("only read-write reads with --direct".into()));
                    continue;
                }
                if args.drop_cache {
                    // SAFETY: advisory call on an open descriptor.
                    unsafe { libc::posix_fadvise(src.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
                }
                match (&to_file, dest) {
                    (Some(p), _) => {
                        let out = match std::fs::OpenOptions::new().write(true).create_new(true).open(p) {
                            Ok(f) => f,
                            Err(e) => {
                                failure = Some(Failure::Failed(format!("--to-file {}: {e}", p.display())));
                                break 'all;
                            }
                        };
                        let start = std::time::Instant::now();
                        let cpu0 = crate::stats::cpu::CpuTimes::thread();
                        let r = t::send(&src, out.as_raw_fd(), m, b as usize, args.direct);
                        let cpu = crate::stats::cpu::CpuTimes::thread().since(cpu0);
                        let wall = start.elapsed().as_secs_f64();
                        drop(out);
                        let crc = if args.verify { crate::workload::transfer::file_crc(p).ok() } else { None };
                        let _ = std::fs::remove_file(p);
                        match r {
                            Ok(Ok(n)) => {
                                let mut f = t::figures(m, b, run, n, wall, cpu, None);
                                f.crc32 = crc;
                                if args.verify && (crc != source_crc || n != src.len) {
                                    failure = Some(Failure::Failed(format!(
                                        "{}: the copy differs from {}",
                                        m.name(),
                                        src.path
                                    )));
                                }
                                runs.push(f);
                            }
                            Ok(Err(why)) => runs.push(unsupported(why)),
                            Err(e) => {
                                failure = Some(Failure::Failed(format!(
                                    "{}: writing {} failed after {} bytes: {}",
                                    m.name(),
                                    p.display(),
                                    e.sent,
                                    e.error
                                )));
                                break 'all;
                            }
                        }
                    }
                    (None, Some(a)) => match t::to_socket(&src, a, m, b as usize, args.direct, args.verify, timeout) {
                        Ok((Ok(n), wall, cpu, receipt)) => {
                            let mut f = t::figures(m, b, run, n, wall, cpu, receipt.map(|r| r.cpu));
                            if args.verify {
                                f.crc32 = receipt.map(|r| r.crc32);
                                if f.crc32 != source_crc {
                                    failure = Some(Failure::Failed(format!(
                                        "{}: the receiver's CRC32 differs from the file's",
                                        m.name()
                                    )));
                                }
                            }
                            runs.push(f);
                        }
                        Ok((Err(why), ..)) => runs.push(unsupported(why)),
                        Err(e) => {
                            failure = Some(Failure::Failed(e));
                            break 'all;
                        }
                    },
                    (None, None) => unreachable!("a destination is always chosen"),
                }
            }
        }
    }
    cleanup(&made);
    t::relate_to_baseline(&mut runs);
    let to = match (&to_file, dest) {
        (Some(p), _) => format!("file {}", p.display()),
        (None, Some(a)) if args.to.is_none() => format!("{a} (loopback receiver in this process)"),
        (None, Some(a)) => a.to_string(),
        _ => String::new(),
    };
    let text = crate::export::transfer::text(&src.path, src.len, &to, &runs, args.quiet);
    print_stdout(&text);
    let mut file_errors = Vec::new();
    if args.json.is_some() {
        let doc = serde_json::json!({
            "tool": "storebench", "command": "transfer", "version": env!("CARGO_PKG_VERSION"),
            "host": crate::run::host_name(), "source": src.path, "bytes": src.len, "to": to,
            "runs": runs, "error": failure.as_ref().map(|f| match f { Failure::Failed(m) => m.clone(), Failure::Interrupted => "interrupted".into() }),
        });
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        file_errors.extend(write_json_text(json_file, args.json.as_deref(), &text));
    }
    finish(failure, &[], file_errors)
}

fn run_ranges(args: crate::cli::ranges::RangesArgs) -> Result<(), Error> {
    use crate::workload::ranges;
    let (plan, target, size) = crate::plan::ranges(&args).map_err(Error::from_plan)?;
    for w in &target.warnings {
        eprintln!("storebench: {w}");
    }
    let json_file = create_json(args.json.as_deref())?;
    let started_at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
    if let Some(s) = plan.prepare {
        if let Err(e) = ranges::prepare_object(&target, s, plan.seed) {
            return Err(Error::Run(e));
        }
    }
    let stop = stop_flag();
    let (run, failure) = match ranges::reference(&target, &plan) {
        Ok(reference) => ranges::run(&target, &plan, reference.as_ref(), &stop),
        Err(e) => (Default::default(), Some(Failure::Failed(format!("--verify: reading the object: {e}")))),
    };
    let mut warnings = Vec::new();
    if plan.prepare.is_some() {
        if let Err(e) = target.store.delete(&target.path) {
            warnings.push(format!("deleting the test object {}: {e}", args.url));
        }
    }
    let report = ranges::report(&target, &plan, size, run, failure.as_ref(), started_at);
    let file_errors: Vec<String> = write_json(json_file, args.json.as_deref(), &report).into_iter().collect();
    print_stdout(&crate::export::ranges::text(&report, args.quiet));
    finish(failure, &warnings, file_errors)
}

fn run_bandwidth(args: BandwidthArgs) -> Result<(), Error> {
    use crate::run::dist::{wait_after, WAIT};
    let began = std::time::Instant::now();
    let (dist, (plan, target)) = join_run(|| crate::plan::bandwidth(&args))?;
    let ranks = dist.size();
    if ranks > 1 && args.csv.is_some() {
        return Err(Error::Usage(format!(
            "--csv logs every block of one process; with {ranks} MPI ranks use --json (merged histograms, each rank's phases)"
        )));
    }
    let leads = dist.leads();
    if leads {
        for w in &target.warnings {
            eprintln!("storebench: {w}");
        }
    }
    let csv = match &args.csv {
        Some(p) => Some(CsvStream::create(p).map_err(Error::Usage)?),
        None => None,
    };
    let json_file = if leads { create_json(args.json.as_deref())? } else { None };
    // Rank 0 makes the run directory and checks every rank's file; the others take its layout.
    let layout = match dist.share(|| bandwidth::prepare_layout(&plan, &target, ranks), WAIT) {
        Ok(l) => l,
        Err(e) => {
            // Nothing ran: leave no empty CSV behind (when this run made it; the JSON says why).
            if let (Some(c), Some(p)) = (csv, &args.csv) {
                let created = c.created;
                let _ = c.finish();
                if created {
                    let _ = std::fs::remove_file(p);
                }
            }
            return Err(Error::Run(e));
        }
    };
    let mine = layout.of_rank(dist.rank());
    let host = crate::run::host_name();
    dist.barrier(WAIT).map_err(Error::Run)?;
    let started_at = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();

    let ctx = RunContext::new(stop_flag());
    let progress = Progress::start(ctx.bytes_done.clone(), plan.size * 2, args.quiet || !leads);
    let sink = csv.as_ref().map(|c| c.sender.clone());
    // Reserve up front for at most a million events; a longer run grows the list as it goes.
    let capacity = (plan.blocks().saturating_mul(2) + 16).min(1 << 20) as usize;
    let rec = if ranks == 1 { Recorder::new().keep_events(capacity) } else { Recorder::new() };
    let mut rec = rec.with_sink(sink);
    // The download starts together on every rank; MPI is called from this (the main) thread only.
    let mut between = || dist.barrier(wait_after(began));
    let mut out = bandwidth::run(&plan, &target, &mine, &ctx, &mut rec, &mut between);
    rec.close_sink();
    drop(progress);

    let (rec, tasks) = if ranks == 1 {
        let tasks = bandwidth::rank_tasks(&rec, &out, &mine.file, 0, &host);
        (rec, tasks)
    } else {
        let part = bandwidth::RankPart::new(dist.rank(), &host, &mine.file, &rec, out);
        let bytes =
            serde_json::to_vec(&part).map_err(|e| Error::Run(format!("cannot encode this rank's result: {e}")))?;
        let Some(all) = gather_or_abort(&dist, bytes, wait_after(began)) else {
            // Not rank 0: rank 0 has this rank's failure, names it and exits non-zero. Exiting 0
            // here keeps mpirun from aborting rank 0 before it has reported.
            return Ok(());
        };
        let (merged, merged_out, tasks) = bandwidth::merge_ranks(decode_parts(&all)?).map_err(Error::Run)?;
        out = merged_out;
        // Every rank removed its own file; the run directory is rank 0's to remove.
        if let (Some(dir), false) = (&layout.run_dir, plan.keep) {
            if let Err(e) = target.store.remove_dir(dir) {
                out.cleanup_errors.push(format!("removing the run directory {dir}: {e}"));
            }
        }
        (merged, tasks)
    };

    let report = bandwidth::report(&plan, &target, &layout, &rec, &out, tasks, started_at);
    let mut file_errors = Vec::new();
    let csv_saved = match csv {
        Some(c) => match c.finish() {
            Ok(()) => args.csv.clone(),
            Err(e) => {
                file_errors.push(e);
                None
            }
        },
        None => None,
    };
    file_errors.extend(write_json(json_file, args.json.as_deref(), &report));
    let mut text = exporter(Format::Text, args.verbose, args.quiet).render(&report);
    if let Some(p) = csv_saved {
        text.push_str(&format!("\nCSV formatted data saved to {}\n", p.display()));
    }
    if let Some(p) = &args.json {
        if file_errors.iter().all(|e| !e.contains("JSON")) {
            text.push_str(&format!("JSON report saved to {}\n", p.display()));
        }
    }
    print_stdout(&text);
    finish(out.failure, &out.cleanup_errors, file_errors)
}

/// Joins the run: every MPI rank (or the one process) parsed the same arguments, and rank 0 found the
/// plan valid. Every rank returns the same error when not.
fn join_run<T>(plan: impl FnOnce() -> Result<T, String>) -> Result<(crate::run::dist::Dist, T), Error> {
    use crate::run::dist::{Dist, WAIT};
    let dist = Dist::init().map_err(Error::Usage)?;
    FOLLOWER.store(!dist.leads(), Ordering::SeqCst);
    let argv: Vec<String> = std::env::args().skip(1).collect();
    dist.agree(&argv, WAIT).map_err(Error::Usage)?;
    let planned = plan();
    match dist.verdict(planned.as_ref().map(|_| ()).map_err(Clone::clone), WAIT) {
        Ok(()) => planned.map(|p| (dist, p)).map_err(Error::from_plan),
        Err(e) => Err(Error::from_plan(e)),
    }
}

/// The ranks' results rank 0 gathered, in rank order.
fn decode_parts<T: serde::de::DeserializeOwned>(all: &[Vec<u8>]) -> Result<Vec<T>, Error> {
    let parts = all.iter().map(|b| serde_json::from_slice(b)).collect::<Result<Vec<T>, _>>();
    parts.map_err(|e| Error::Run(format!("a rank's result could not be read: {e}")))
}

/// Sends this rank's result to rank 0, which gets everyone's; a rank that does not answer within
/// `wait` ends the whole MPI job (after rank 0 names it), so nobody hangs.
fn gather_or_abort(dist: &crate::run::dist::Dist, bytes: Vec<u8>, wait: std::time::Duration) -> Option<Vec<Vec<u8>>> {
    match dist.gather(bytes, wait) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("storebench: {e}");
            dist.abort(1);
        }
    }
}
