//! `storebench ops` end to end on local files, through the binary.

mod common;

use common::{report, sb};
use predicates::prelude::*;
use storebench::stats::report::{Params, RunReport, Status};

#[test]
fn create_write_threads_times_iterations_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    sb().args(["ops", "--op", "create_write", "--threads", "3", "--iterations", "4", "--file-size", "256k"])
        .args(["--buffer-size", "64k", "--repeats", "2", "--json"])
        .arg(&json)
        .arg(&work)
        .assert()
        .success()
        .stdout(predicate::str::contains("create_write x 3 threads x 4 iterations x 2 repeats"))
        .stdout(predicate::str::contains("Repeat 2: 12 ok, 0 failed, 3,145,728 bytes"));
    let r = report(&json);
    assert_eq!(r.outcome.status, Status::Completed);
    let Params::Ops(p) = &r.params else { panic!("not an ops report") };
    assert_eq!((p.threads, p.iterations, p.buffer_size, p.repeats), (3, Some(4), 64 << 10, 2));
    let run = r.ops_run().unwrap();
    assert_eq!(run.repeats.len(), 2);
    // WriteTotal is the same in both repeats: no spread.
    let total = run.statistics.iter().find(|s| s.name == "WriteTotal(B)").unwrap();
    assert_eq!((total.mean, total.stddev, total.n), ((12 * (256 << 10)) as f64, 0.0, 2));
    let s = run.repeats[1].summary.clone();
    assert_eq!((s.ops, s.errors, s.bytes), (12, 0, 12 * (256 << 10)));
    assert_eq!(s.latency.count, 12);
    // Stonewall: by the time the first thread ended, at least its own 4 operations had.
    assert!(s.stonewall_ops >= 4 && s.stonewall_ops <= 12 && s.stonewall_s <= s.wall_s);
    assert!((s.ops_per_s - 12.0 / s.wall_s).abs() < 1e-6 * s.ops_per_s);
    // Each thread's share per repeat, with where it ran (rank 0 without MPI); the wall time is the
    // last thread's end.
    let tasks: Vec<_> = r.tasks.iter().filter(|t| t.repeat == Some(2)).collect();
    assert_eq!(
        tasks.iter().map(|t| (t.task.as_str(), t.rank, t.ops)).collect::<Vec<_>>(),
        [("thread 0", 0, 4), ("thread 1", 0, 4), ("thread 2", 0, 4)]
    );
    assert!(tasks.iter().all(|t| t.bytes == 4 * (256 << 10) && !t.host.is_empty()));
    assert_eq!(tasks.iter().map(|t| t.seconds).fold(0.0, f64::max), s.wall_s);
    // Everything storebench made is gone: the work directory is empty again.
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

#[test]
fn open_read_for_a_duration_with_prepare_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    sb().args(["ops", "--op", "open_read", "--threads", "2", "--duration", "300ms", "--file-size", "1m"])
        .args(["--prepare", "--repeats", "1", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg(&work)
        .assert()
        .success()
        .stdout(predicate::str::contains("OpenReaderTime(S)"));
    let r = report(&json);
    let run = r.ops_run().unwrap();
    let s = &run.repeats[0].summary;
    assert!(s.ops >= 2 && s.errors == 0, "{s:?}");
    assert_eq!(s.bytes, s.ops << 20);
    // Bounded by time: no thread starts an operation after 300 ms.
    assert!(s.wall_s >= 0.3 && s.wall_s < 5.0, "{}", s.wall_s);
    // The per-second series adds up to the operations.
    assert_eq!(run.repeats[0].per_second.iter().map(|x| x.ops).sum::<u64>(), s.ops);
    let Params::Ops(p) = &r.params else { panic!() };
    assert_eq!((p.iterations, p.duration_s), (None, Some(0.3)));
    // The CSV: a header, one repeat row and six statistics rows, a column per figure.
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 1 + 6, "{text}");
    assert!(lines[0].starts_with("\"row\",\"ops\",\"errors\",\"bytes\",\"ops_per_s\""), "{}", lines[0]);
    assert!(lines[0].contains("\"ReadRate(B/S)\""));
    assert!(lines[1].starts_with(&format!("\"1\",{},0,{}", s.ops, s.bytes)));
    // What --prepare made is gone.
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

/// The Doris seed's workflow: create_write --keep, then the operations that build on its files.
#[test]
fn metadata_ops_on_1000_small_files() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir(&base).unwrap();
    let run = |op: &str, extra: &[&str]| -> RunReport {
        let json = dir.path().join(format!("{op}.json"));
        sb().args(["ops", "--op", op, "--threads", "1000", "--file-size", "1k", "--repeats", "1", "-q", "--json"])
            .arg(&json)
            .args(extra)
            .arg(&base)
            .assert()
            .success();
        report(&json)
    };
    // Reading before anything was written: told to run create_write first.
    sb().args(["ops", "--op", "exists", "--threads", "2"])
        .arg(&base)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("test_0 does not exist"))
        .stderr(predicate::str::contains("create_write --keep"));
    run("create_write", &["--keep"]);
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1000);
    for op in ["exists", "stat", "open_read", "list"] {
        let r = run(op, &[]);
        let s = &r.ops_run().unwrap().repeats[0].summary;
        assert_eq!((s.ops, s.errors), (1000, 0), "{op}");
        let kind = match op {
            "open_read" => "download",
            other => other,
        };
        assert_eq!(r.ops.iter().find(|o| o.op == kind).unwrap().latency.count, 1000, "{op}");
    }
    // rename twice: test_K -> test_K_new -> test_K; every file is back under its name.
    let r = run("rename", &["--iterations", "2"]);
    assert_eq!(r.ops_run().unwrap().repeats[0].summary.ops, 2000);
    assert!(base.join("test_999").exists() && !base.join("test_999_new").exists());
    // The kept files are the user's now: ops never removed them.
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1000);
    // create_write will not take over existing test_K files.
    sb().args(["ops", "--op", "create_write", "--threads", "2"])
        .arg(&base)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("test_0 already exists"));
    // delete removes only the files it made for itself (test_K_I), one per iteration.
    let json = dir.path().join("delete.json");
    sb().args(["ops", "--op", "delete", "--threads", "4", "--iterations", "3", "-q", "--json"])
        .arg(&json)
        .arg(&base)
        .assert()
        .success();
    // Three repeats (the default) x 4 threads x 3 iterations.
    let rep = report(&json);
    let run = rep.ops_run().unwrap();
    assert_eq!(run.repeats.iter().map(|r| r.summary.ops).collect::<Vec<_>>(), [12, 12, 12]);
    assert!(run.statistics.iter().any(|s| s.name == "DeleteCost(S)"));
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1000);
}

#[test]
fn mix_rate_repeats_and_single_read() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    // A mix at 200 ops/s for 0.5 s: about 100 operations, split about 3:1.
    sb().args(["ops", "--mix", "open_read=3,stat=1", "--threads", "4", "--duration", "500ms", "--rate", "200"])
        .args(["--file-size", "64k", "--prepare", "--repeats", "3", "--seed", "7", "--json"])
        .arg(&json)
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("Repeat 1 is flagged cold"))
        .stdout(predicate::str::contains("Repeats 2..3"));
    let r = report(&json);
    let run = r.ops_run().unwrap();
    assert_eq!(run.repeats.len(), 3);
    for rep in &run.repeats {
        let n = rep.summary.ops;
        assert!((85..=101).contains(&n), "{n} ops at 200/s for 0.5 s");
        let reads = rep.ops.iter().find(|o| o.op == "download").unwrap().latency.count;
        assert!(reads * 100 / n >= 55 && reads * 100 / n <= 95, "{reads} of {n}");
    }
    assert_eq!(run.statistics.len(), run.warm_statistics.len());
    assert_eq!(run.warm_statistics[0].n, 2);
    // single_read of 4 KiB at random offsets of one given file; markdown output.
    let file = dir.path().join("data.bin");
    std::fs::write(&file, vec![5u8; 1 << 20]).unwrap();
    sb().args(["ops", "--op", "single_read", "--random", "--file-size", "4k", "--iterations", "50", "--repeats", "1"])
        .args(["--format", "markdown", "--file-path"])
        .arg(&file)
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("| ReadTotal(B) | B | 204800 |"));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 1 << 20, "the given file is only read");
}

#[test]
fn failures_are_counted_and_the_run_goes_on_unless_fail_fast() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let base = dir.path().join("b");
    std::fs::create_dir(&base).unwrap();
    for k in 0..3 {
        std::fs::write(base.join(format!("test_{k}")), b"x").unwrap();
    }
    // rename test_1 -> test_1_new fails when test_1_new already exists (storebench never replaces).
    std::fs::write(base.join("test_1_new"), b"mine").unwrap();
    sb().args(["ops", "--op", "rename", "--threads", "3", "--iterations", "4", "--repeats", "1", "--json"])
        .arg(&json)
        .arg(&base)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("First failures:"))
        .stderr(predicate::str::contains("operation(s) failed; the first: rename"));
    let r = report(&json);
    let s = &r.ops_run().unwrap().repeats[0].summary;
    // Threads 0 and 2 did their 4 renames; thread 1 failed all 4 and went on.
    assert_eq!((s.ops, s.errors), (8, 4));
    assert_eq!(std::fs::read_to_string(base.join("test_1_new")).unwrap(), "mine");
    // --fail-fast: the first failure stops every thread and the remaining repeats.
    sb().args(["ops", "--op", "rename", "--threads", "2", "--iterations", "4", "--repeats", "3", "--fail-fast"])
        .arg("--json")
        .arg(&json)
        .arg(&base)
        .assert()
        .code(1);
    let rep = report(&json);
    let run = rep.ops_run().unwrap();
    assert_eq!(run.repeats.len(), 1);
    assert_eq!(run.repeats[0].summary.errors, 1);
    assert!(run.repeats[0].summary.ops <= 4);
    assert_eq!(std::fs::read_to_string(base.join("test_1_new")).unwrap(), "mine");
}

#[test]
fn ops_bad_input_is_one_line_and_exit_2() {
    let bad = |args: &[&str], needle: &str| {
        sb().args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    };
    bad(&["ops", "--op", "create_write", "--threads", "0"], "invalid --threads '0'");
    bad(&["ops", "--op", "create_write", "--iterations", "0"], "invalid --iterations '0'");
    bad(&["ops", "--op", "stat", "--repeats", "18446744073709551615"], "between 1 and 10,000 repeats");
    bad(&["ops", "--op", "create_write", "--iterations", "2", "--duration", "1s"], "--duration");
    bad(&["ops", "--op", "create_write", "--duration", "0s"], "invalid duration '0s'");
    bad(&["ops", "--op", "create_write", "--file-size", "0"], "invalid --file-size '0'");
    bad(&["ops", "--op", "teleport"], "unknown operation 'teleport': valid are create_write, open_read");
    // A target that cannot be used is a run failure (exit 1), also on one line.
    sb().args(["ops", "--op", "create_write", "/no/such/dir"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/no/such/dir does not exist"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn every_operation_on_memory_with_prepare() {
    for op in
        ["create_write", "open_read", "single_read", "prefetch_read", "exists", "stat", "rename", "list", "delete"]
    {
        let json = tempfile::NamedTempFile::new().unwrap();
        sb().args(["ops", "--op", op, "--threads", "3", "--iterations", "2", "--file-size", "8k", "--prepare"])
            .args(["--repeats", "2", "-q", "--json"])
            .arg(json.path())
            .arg("memory://opsbench/")
            .assert()
            .success()
            .stdout(predicate::str::contains("ops_per_s"));
        let rep = report(json.path());
        let run = rep.ops_run().unwrap();
        for rep in &run.repeats {
            assert_eq!((rep.summary.ops, rep.summary.errors), (6, 0), "{op}");
            let moved = match op {
                "create_write" | "open_read" | "single_read" | "prefetch_read" => 6 * 8192,
                _ => 0,
            };
            assert_eq!(rep.summary.bytes, moved, "{op}");
        }
    }
}

#[test]
fn doris_conf_file_sets_sizes_and_base_dir_and_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir(&base).unwrap();
    let conf = dir.path().join("fs.conf");
    std::fs::write(
        &conf,
        format!("# Doris fs_benchmark_tool\nfile_size=64k\nbuffer_size=16k\nbase_dir={}\n", base.display()),
    )
    .unwrap();
    let json = dir.path().join("r.json");
    // The seed's spellings: --operation, --fs_type (ignored: the URL decides), --conf.
    sb().args([
        "ops",
        "--operation",
        "create_write",
        "--fs_type",
        "hdfs",
        "--threads",
        "2",
        "--repeats",
        "1",
        "--keep",
    ])
    .arg("--conf")
    .arg(&conf)
    .arg("--json")
    .arg(&json)
    .assert()
    .success();
    let r = report(&json);
    let Params::Ops(p) = &r.params else { panic!() };
    assert_eq!((p.file_size, p.buffer_size), (64 << 10, 16 << 10));
    assert_eq!(std::fs::metadata(base.join("test_1")).unwrap().len(), 64 << 10);
    // A flag wins over the conf file.
    sb().args(["ops", "--op", "open_read", "--threads", "2", "--repeats", "1", "--file_size", "32k", "--conf"])
        .arg(&conf)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let r = report(&json);
    assert_eq!(r.ops_run().unwrap().repeats[0].summary.bytes, 2 * (32 << 10));
}

#[test]
fn a_run_that_cannot_start_leaves_nothing_behind() {
    // No URL: a fresh directory under TMPDIR; --file-path missing: refused after the directory was
    // made, which must then go again.
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("out").with_extension("json");
    sb().env("TMPDIR", tmp.path())
        .args(["ops", "--op", "single_read", "--file-path", "/no/such/file", "--json"])
        .arg(&json)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--file-path /no/such/file does not exist"));
    // The run directory is gone; the JSON report is the only thing left, and says why.
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("out.json")]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["outcome"]["status"], "failed");
    assert!(v["outcome"]["error"].as_str().unwrap().contains("--file-path /no/such/file does not exist"));
}
