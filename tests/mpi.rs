//! dfsio, bandwidth and ops across 4 MPI ranks (Open MPI's mpirun on loopback), built with
//! `--features mpi`. The test script installs Open MPI and runs these with
//! `cargo test --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use storebench::stats::report::RunReport;

mod common;

use common::{bin, report};

/// mpirun with the flags that keep it on loopback and let it run as root; every run is bounded.
fn mpirun(ranks: &str, args: &[&str]) -> Output {
    let mut c = Command::new("mpirun");
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1").env_remove("HADOOP_CONF_DIR");
    c.args(["--oversubscribe", "--mca", "btl", "self,vader,tcp", "--mca", "btl_tcp_if_include", "lo"]);
    c.args(["--mca", "oob_tcp_if_include", "lo"]);
    if ranks.contains(':') {
        // MPMD: "2:ARGS" pairs separated by " ::: " in args.
        c.args(ranks.split(' '));
    } else {
        c.args(["-np", ranks, &bin()]);
    }
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("mpirun (Open MPI) is needed: the test script installs it");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("mpirun {args:?} hung for 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn four_ranks_write_read_and_clean_on_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("TestDFSIO");
    let (json, res) = (tmp.path().join("run.json"), tmp.path().join("res.txt"));
    let r = root.to_str().unwrap();
    for mode in ["-write", "-read"] {
        let out = mpirun(
            "4",
            &[
                "dfsio",
                mode,
                "-nrFiles",
                "10",
                "-fileSize",
                "2MB",
                "-rootDir",
                r,
                "-q",
                "-resFile",
                res.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
        // Only rank 0 prints the result.
        assert_eq!(stdout.matches("----- TestDFSIO -----").count(), 1, "{stdout}");
        assert!(stdout.contains("Number of files: 10") && stdout.contains("x 4 rank(s)"), "{stdout}");
        let rep = report(&json);
        let d = rep.dfsio_run().unwrap();
        // Task k ran on rank k % 4; the merged counts are the sums of the ranks' counts.
        let per_rank: Vec<usize> = (0..4).map(|r| d.tasks.iter().filter(|t| t.rank == r).count()).collect();
        assert_eq!(per_rank, [3, 3, 2, 2]);
        assert!(d.tasks.iter().all(|t| t.rank as u64 == t.task % 4 && t.bytes == 2 << 20));
        assert_eq!((d.aggregates.tasks, d.aggregates.size), (10, 10 * (2 << 20)));
        assert_eq!(d.aggregates.time, d.tasks.iter().map(|t| t.time_ms).sum::<i64>());
        // Mergeable stats: every rank's call histogram and store counters, summed by rank 0.
        // 2 MiB in 1,000,000-byte calls is 3 calls per file.
        assert_eq!(d.calls.count, 30, "{mode}");
        if mode == "-write" {
            let store = rep.counters.iter().find(|g| g.scope == "store").unwrap();
            // 10 task files, and rank 0's manifest of what the run created.
            assert!(store.counters.contains(&("create_calls".into(), 11)), "{store:?}");
        }
    }
    let files: Vec<_> = std::fs::read_dir(root.join("io_data")).unwrap().collect();
    assert_eq!(files.len(), 10);
    assert!(files.iter().all(|f| f.as_ref().unwrap().metadata().unwrap().len() == 2 << 20));
    // -clean removes only the benchmark's directory.
    std::fs::write(tmp.path().join("neighbour"), "x").unwrap();
    let out = mpirun("4", &["dfsio", "-clean", "-rootDir", r]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!root.exists());
    assert!(tmp.path().join("neighbour").exists() && res.exists());
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn four_ranks_on_memory_and_s3() {
    let out = mpirun(
        "4",
        &[
            "dfsio",
            "-write",
            "-nrFiles",
            "8",
            "-fileSize",
            "1MB",
            "-rootDir",
            "memory://b/T",
            "-q",
            "-resFile",
            "/dev/null",
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Total MBytes processed: 8.0"));
    let (bucket, keys, sk) = s3_keys();
    let root = format!("s3://{bucket}/mpi-{}/TestDFSIO", std::process::id());
    for mode in ["-write", "-read", "-clean"] {
        let a =
            vec!["dfsio", mode, "-nrFiles", "6", "-fileSize", "3MB", "-rootDir", &root, "-q", "-resFile", "/dev/null"];
        let a = with_keys(a, &keys);
        let out = mpirun("4", &a);
        assert!(out.status.success(), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains(&sk) && !String::from_utf8_lossy(&out.stderr).contains(&sk), "the secret leaked");
        if mode != "-clean" {
            assert!(stdout.contains("Total MBytes processed: 18.0"), "{stdout}");
        }
    }
}

#[test]
fn ranks_that_disagree_or_fail_are_named_and_nobody_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("T");
    let r = r.to_str().unwrap();
    // MPMD: ranks 0-1 and 2-3 run different commands.
    let a = format!(
        "-np 2 {} dfsio -write -nrFiles 4 -rootDir {r} : -np 2 {} dfsio -write -nrFiles 5 -rootDir {r}",
        bin(),
        bin()
    );
    let out = mpirun(&a, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("rank 2 was started with different arguments") && err.contains("'5'"), "{err}");
    assert!(!r.is_empty() && !std::path::Path::new(r).exists(), "nothing ran");

    // Task 3 (rank 3) cannot write: a link is planted at its name (dangling, so it passes the checks
    // before the run; the exclusive create refuses it). Rank 0 says which rank and why.
    std::fs::create_dir_all(tmp.path().join("T/io_data")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), tmp.path().join("T/io_data/test_io_3")).unwrap();
    let out = mpirun(
        "4",
        &["dfsio", "-write", "-nrFiles", "4", "-fileSize", "1MB", "-rootDir", r, "-q", "-resFile", "/dev/null"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("rank 3 (") && err.contains("task 3"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!tmp.path().join("nowhere").exists(), "nothing written through the link");
}

/// The S3 test server's bucket, `-D` keys and secret.
fn s3_keys() -> (String, Vec<String>, String) {
    let s3 = common::s3();
    (s3.bucket.clone(), s3.defines(), s3.secret.clone())
}

fn with_keys<'a>(mut a: Vec<&'a str>, keys: &'a [String]) -> Vec<&'a str> {
    for k in keys {
        a.extend(["-D", k.as_str()]);
    }
    a
}

/// Checks a 4-rank bandwidth report: every rank's two phases with its host, the phases' bytes the sum
/// of the ranks', and each phase spanning every rank's own.
fn check_bandwidth(rep: &RunReport, size: u64) {
    assert_eq!(rep.tasks.len(), 8, "{:?}", rep.tasks);
    for phase in ["upload", "download"] {
        let tasks: Vec<_> = rep.tasks.iter().filter(|t| t.task == phase).collect();
        let ranks: Vec<u32> = tasks.iter().map(|t| t.rank).collect();
        assert_eq!(ranks, [0, 1, 2, 3], "{phase}");
        assert!(tasks
            .iter()
            .all(|t| t.bytes == size && !t.host.is_empty() && t.path.ends_with(&format!(".rank{}", t.rank))));
        let p = rep.phases.iter().find(|p| p.name == phase).unwrap();
        assert!(p.complete, "{phase}");
        assert_eq!(p.bytes, 4 * size, "{phase}");
        assert_eq!(p.bytes, tasks.iter().map(|t| t.bytes).sum::<u64>());
        assert!(tasks.iter().all(|t| t.seconds <= p.duration_s + 1e-9), "{phase}: {} vs {:?}", p.duration_s, tasks);
        assert!((p.mbyte_per_s - p.bytes as f64 / 1048576.0 / p.duration_s).abs() < 1e-6);
    }
    // Merged histograms: 4 ranks x 4 blocks each way.
    let blocks = |op: &str| rep.ops.iter().find(|o| o.op == op).unwrap().latency.count;
    assert_eq!((blocks("upload-block"), blocks("download-block")), (16, 16));
    // Per-block events are not gathered (a rank sends a few KiB whatever the block count).
    assert!(rep.events.is_empty());
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn bandwidth_with_one_file_per_rank_on_files_and_s3() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("bw.json");
    let (d, j) = (tmp.path().to_str().unwrap(), json.to_str().unwrap());
    // A directory: rank 0 makes the run directory, each rank writes and reads its own file, rank 0
    // removes the directory once everyone is done.
    let out = mpirun("4", &["bandwidth", "4m", d, "--block", "1m", "--verify", "--json", j]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.matches("Upload Summary").count(), 1, "only rank 0 prints: {stdout}");
    assert!(stdout.contains("x 4 MPI ranks") && stdout.contains("download MB/s"), "{stdout}");
    check_bandwidth(&report(&json), 4 << 20);
    let left: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("bw.json")]);

    // A file name with --keep: exactly one file per rank, of SIZE; --read-only reads them back.
    let f = tmp.path().join("data");
    let f = f.to_str().unwrap();
    let out = mpirun("4", &["bandwidth", "4m", f, "--block", "1m", "--keep", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for r in 0..4 {
        assert_eq!(std::fs::metadata(format!("{f}.rank{r}")).unwrap().len(), 4 << 20);
    }
    assert!(!std::path::Path::new(f).exists());
    let out = mpirun("4", &["bandwidth", "4m", f, "--block", "1m", "--read-only", "-q", "--json", j]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rep = report(&json);
    assert_eq!(rep.phases.len(), 1);
    assert_eq!(rep.phases[0].bytes, 16 << 20);
    // The files are there: without --overwrite nothing runs, and the error names the file.
    let out = mpirun("4", &["bandwidth", "4m", f, "--block", "1m"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains(".rank0 already exists"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Every block of every rank cannot go to one CSV log: said before anything runs.
    let csv = tmp.path().join("log.csv");
    let out = mpirun("4", &["bandwidth", "4m", d, "--csv", csv.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--csv") && err.contains("4 MPI ranks"), "{err}");
    assert!(!csv.exists());
    // A rank that fails midway (its file is a directory) is named by rank 0, with why; the others
    // finish, and the figures cover what was done.
    let g = tmp.path().join("g");
    std::fs::create_dir(format!("{}.rank2", g.display())).unwrap();
    let out = mpirun("4", &["bandwidth", "4m", g.to_str().unwrap(), "--overwrite", "-q", "--json", j]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("rank 2 (") && err.contains("is a directory"), "{err}");
    let rep = report(&json);
    assert_eq!(rep.phases[0].bytes, 12 << 20);
    assert!(!rep.phases[0].complete);
    assert_eq!(rep.tasks.iter().filter(|t| t.task == "download").count(), 3);
    assert!((0..4).filter(|r| *r != 2).all(|r| !std::path::Path::new(&format!("{}.rank{r}", g.display())).exists()));

    let (bucket, keys, sk) = s3_keys();
    let url = format!("s3://{bucket}/mpi-bw-{}/", std::process::id());
    let out = mpirun("4", &with_keys(vec!["bandwidth", "4m", &url, "--block", "1m", "--json", j], &keys));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(!stdout.contains(&sk) && !stderr.contains(&sk), "the secret leaked");
    check_bandwidth(&report(&json), 4 << 20);
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn ops_threads_spread_over_ranks_on_files_and_s3() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("ops.json");
    let (d, j) = (tmp.path().join("run"), json.to_str().unwrap());
    std::fs::create_dir(&d).unwrap();
    let d = d.to_str().unwrap();
    // 4 ranks x 2 threads: threads 0..7 of the run, each on its own file test_K.
    let out = mpirun(
        "4",
        &["ops", "--op", "create_write", "--threads", "2", "--iterations", "3", "--file-size", "1m", d, "--keep"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("Repeat 1 (cold)").count(), 1, "only rank 0 prints: {stdout}");
    let mut files: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, (0..8).map(|k| format!("test_{k}")).collect::<Vec<_>>());
    assert!(files.iter().all(|f| std::fs::metadata(format!("{d}/{f}")).unwrap().len() == 1 << 20));

    // Reading them back: merged counts are the sums of the threads' (and ranks') counts.
    for args in [
        vec!["ops", "--op", "open_read", "--threads", "2", "--iterations", "3", "--repeats", "2", d, "--json", j],
        vec!["ops", "--op", "stat", "--threads", "2", "--iterations", "5", "--repeats", "1", d, "--json", j],
    ] {
        let out = mpirun("4", &args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        check_ops(&report(&json), args[2], if args[2] == "stat" { 5 } else { 3 });
    }
    let (bucket, keys, sk) = s3_keys();
    let url = format!("s3://{bucket}/mpi-ops-{}/", std::process::id());
    for op in ["create_write", "open_read"] {
        let mut a = vec!["ops", "--op", op, "--threads", "2", "--iterations", "3", "--repeats", "1"];
        a.extend(["--file-size", "1m", &url, "--json", j]);
        if op == "create_write" {
            a.push("--keep");
        }
        let out = mpirun("4", &with_keys(a, &keys));
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{op}: {stderr}");
        assert!(!stdout.contains(&sk) && !stderr.contains(&sk), "the secret leaked");
        check_ops(&report(&json), op, 3);
    }
}

/// Checks a 4-rank x 2-thread ops report of `iterations` per thread.
fn check_ops(rep: &RunReport, op: &str, iterations: u64) {
    use storebench::stats::report::Params;
    let Params::Ops(p) = &rep.params else { panic!("not ops") };
    assert_eq!((p.ranks, p.threads), (4, 2));
    let run = rep.ops_run().unwrap();
    for r in &run.repeats {
        let tasks: Vec<_> = rep.tasks.iter().filter(|t| t.repeat == Some(r.repeat)).collect();
        // Thread K of the run ran on rank K / 2, on test_K.
        assert_eq!(tasks.len(), 8, "{op}");
        for (k, t) in tasks.iter().enumerate() {
            assert_eq!((t.task.clone(), t.rank, t.ops), (format!("thread {k}"), k as u32 / 2, iterations), "{op}");
            assert!(t.path.ends_with(&format!("test_{k}")) && !t.host.is_empty());
        }
        assert_eq!(r.summary.ops, 8 * iterations, "{op}");
        assert_eq!(r.summary.ops, tasks.iter().map(|t| t.ops).sum::<u64>());
        assert_eq!(r.summary.bytes, tasks.iter().map(|t| t.bytes).sum::<u64>());
        // The run lasts until the last thread of any rank ended; the stonewall until the first did.
        let max = tasks.iter().map(|t| t.seconds).fold(0.0, f64::max);
        let min = tasks.iter().map(|t| t.seconds).fold(f64::MAX, f64::min);
        assert!((r.summary.wall_s - max).abs() < 1e-6 && (r.summary.stonewall_s - min).abs() < 1e-6, "{op}");
        assert!(r.summary.stonewall_ops >= 1 && r.summary.stonewall_ops <= r.summary.ops);
        assert_eq!(r.per_second.iter().map(|s| s.ops).sum::<u64>(), r.summary.ops);
    }
    let total: u64 = run.repeats.iter().map(|r| r.summary.ops).sum();
    let kind = match op {
        "create_write" => "upload",
        "open_read" => "download",
        other => other,
    };
    let merged = rep.ops.iter().find(|o| o.op == kind).unwrap();
    assert_eq!((merged.latency.count, merged.histogram.count), (total, total), "merged histograms");
}

/// `--reorder N` (IOR's -C): every rank reads what rank (r + N) mod 4 wrote, listed in the JSON tasks;
/// all four ranks run on this host, so the findings say the page cache was shared.
#[test]
fn reorder_moves_every_read_to_another_ranks_data() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("run.json");
    let j = json.to_str().unwrap();
    let same_host = |rep: &RunReport| rep.findings.iter().any(|f| f.rule == "reorder_same_host");

    // dfsio: -write on 4 ranks records them in its manifest; -read --reorder 1 hands rank r the files
    // rank r + 1 wrote.
    let root = tmp.path().join("TestDFSIO");
    let r = root.to_str().unwrap();
    let dfsio = |ranks: &str, extra: &[&str]| {
        let mut a = vec!["dfsio", "-nrFiles", "8", "-fileSize", "1MB", "-rootDir", r, "-q", "--json", j];
        a.extend(extra);
        a.extend(["-resFile", "/dev/null"]);
        mpirun(ranks, &a)
    };
    let out = dfsio("4", &["-write"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = dfsio("4", &["-read", "--reorder", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rep = report(&json);
    assert_eq!(rep.reorder, Some(1));
    let d = rep.dfsio_run().unwrap();
    assert_eq!(d.tasks.len(), 8);
    for t in &d.tasks {
        let w = t.written_by.expect("a reordered read names its writer");
        assert_eq!((w as u64, (t.rank + 1) % 4), (t.task % 4, w), "task {} read by rank {}", t.task, t.rank);
    }
    assert!(same_host(&rep), "{:?}", rep.findings);
    // A read on other ranks than the write cannot say who wrote what: refused, naming both.
    let out = dfsio("2", &["-read", "--reorder", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("-write on 4 rank(s)") && err.contains("runs on 2"), "{err}");

    // bandwidth: rank r downloads rank r + 1's file, checked (--verify) against that rank's data;
    // nobody deletes its file before every read is done, and nothing is left.
    let dir = tmp.path().join("bw");
    std::fs::create_dir(&dir).unwrap();
    let a = ["bandwidth", "4m", dir.to_str().unwrap(), "--block", "1m", "--verify", "--reorder", "1", "--json", j];
    let out = mpirun("4", &a);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Reorder: rank r read what rank (r + 1) mod ranks wrote"));
    let rep = report(&json);
    let downloads: Vec<_> = rep.tasks.iter().filter(|t| t.task == "download").collect();
    assert_eq!(downloads.len(), 4);
    for t in downloads {
        let w = (t.rank + 1) % 4;
        assert_eq!(t.written_by, Some(w));
        assert!(t.path.ends_with(&format!(".rank{w}")) && t.bytes == 4 << 20, "{t:?}");
    }
    assert!(rep.tasks.iter().filter(|t| t.task == "upload").all(|t| t.written_by.is_none()));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);

    // ops: 4 ranks x 2 threads wrote test_0..7; open_read --reorder 2 has thread K read test_(K+4 mod 8).
    let d = tmp.path().join("ops");
    std::fs::create_dir(&d).unwrap();
    let d = d.to_str().unwrap();
    let base = ["ops", "--threads", "2", "--iterations", "2", "--repeats", "1", "--file-size", "1m", d];
    let out = mpirun("4", &[&base[..], &["--op", "create_write", "--keep"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = mpirun("4", &[&base[..], &["--op", "open_read", "--reorder", "2", "--json", j]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rep = report(&json);
    assert_eq!(rep.tasks.len(), 8);
    for (k, t) in rep.tasks.iter().enumerate() {
        let theirs = (k + 4) % 8;
        assert_eq!((t.rank, t.written_by), (k as u32 / 2, Some(theirs as u32 / 2)), "{t:?}");
        assert!(t.path.ends_with(&format!("test_{theirs}")) && t.bytes == 2 << 20, "{t:?}");
    }
    assert!(same_host(&rep));
    // --reorder 4 on 4 ranks is every rank's own data: refused.
    let out = mpirun("4", &[&base[..], &["--op", "open_read", "--reorder", "4"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--reorder 4 on 4 ranks makes every rank read its own"), "{err}");
}

/// `--sweep` under mpirun: every rank runs the same grid, point by point; each point's report is a
/// 4-rank report.
#[test]
fn a_sweep_runs_each_point_on_every_rank() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("sweep.json");
    let dir = tmp.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let out = mpirun(
        "4",
        &[
            "ops",
            "--op",
            "create_write",
            "--iterations",
            "4",
            "--file-size",
            "64k",
            "--repeats",
            "1",
            "--prepare",
            "-q",
        ]
        .into_iter()
        .chain(["--sweep", "threads=1..2", dir.to_str().unwrap(), "--json", json.to_str().unwrap()])
        .collect::<Vec<_>>(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.matches("Sweep of ops over threads: 2 point(s) run").count(), 1, "only rank 0 prints: {stdout}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reports = v["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    for (r, threads) in reports.iter().zip([1, 2]) {
        assert_eq!((r["params"]["ranks"].as_u64(), r["params"]["threads"].as_u64()), (Some(4), Some(threads)));
        // 4 ranks x threads x 4 iterations.
        assert_eq!(r["ops_run"]["repeats"][0]["summary"]["ops"].as_u64(), Some(16 * threads));
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // Reading only: the files rank 0 prepared for 4 ranks x 1 thread serve the 2-thread point, which
    // makes the other 4 (rank 0 counts every rank's calls), and the last point removes all 8.
    let out = mpirun(
        "4",
        &["ops", "--op", "open_read", "--iterations", "2", "--file-size", "64k", "--repeats", "1", "--prepare", "-q"]
            .into_iter()
            .chain(["--sweep", "threads=1..2", dir.to_str().unwrap(), "--json", json.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let count = |r: &serde_json::Value, name: &str| {
        r["counters"][0]["counters"].as_array().unwrap().iter().find(|c| c[0] == name).unwrap()[1].as_u64().unwrap()
    };
    let reports = v["reports"].as_array().unwrap();
    assert_eq!([count(&reports[0], "create_calls"), count(&reports[1], "create_calls")], [4, 4]);
    assert_eq!([count(&reports[0], "delete_calls"), count(&reports[1], "delete_calls")], [0, 8]);
    assert_eq!(v["sweep"]["points"][1]["prepared_by"], "threads=1");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
