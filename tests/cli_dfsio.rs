//! `storebench dfsio` on local files and memory://: TestDFSIO's modes, its result file, and bad input.

mod common;

use common::sb;
use predicates::prelude::*;
use storebench::stats::dfsio::Aggregates;
use storebench::stats::report::RunReport;

/// The raw aggregates of the last block in a -resFile.
fn last_aggregates(res: &std::path::Path) -> Aggregates {
    let text = std::fs::read_to_string(res).unwrap();
    let mut a = Aggregates::default();
    for line in text.lines() {
        match line.split_once('\t') {
            Some(("f:rate", v)) => a.rate = v.parse().unwrap(),
            Some(("f:sqrate", v)) => a.sqrate = v.parse().unwrap(),
            Some(("l:size", v)) => a.size = v.parse().unwrap(),
            Some(("l:tasks", v)) => a.tasks = v.parse().unwrap(),
            Some(("l:time", v)) => a.time = v.parse().unwrap(),
            _ => {}
        }
    }
    a
}

#[test]
fn every_mode_on_local_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bench");
    let res = tmp.path().join("res.txt");
    let json = tmp.path().join("run.json");
    let run = |args: &[&str]| {
        sb().arg("dfsio")
            .args(args)
            .args(["-nrFiles", "5", "-fileSize", "3MB", "-bufferSize", "65536", "-q", "-resFile"])
            .arg(&res)
            .arg("-rootDir")
            .arg(&root)
            .arg("--json")
            .arg(&json)
            .assert()
            .success()
    };
    let out = run(&["-write", "--threads", "2"]);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("INFO fs.TestDFSIO: ----- TestDFSIO ----- : write"), "{stdout}");
    assert!(stdout.contains("Aggregate bandwidth MB/s") && stdout.contains("Stonewall bandwidth MB/s"));
    // Exactly nrFiles files of fileSize (3 MB = 3 x 2^20 bytes).
    let data = root.join("io_data");
    let mut names: Vec<String> =
        std::fs::read_dir(&data).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["test_io_0", "test_io_1", "test_io_2", "test_io_3", "test_io_4"]);
    assert!(names.iter().all(|n| std::fs::metadata(data.join(n)).unwrap().len() == 3 << 20));
    // The result file holds TestDFSIO's block and the raw aggregates, and the printed figures are
    // TestDFSIO's formulas applied to exactly those aggregates.
    let a = last_aggregates(&res);
    assert_eq!((a.tasks, a.size), (5, 5 * (3 << 20)));
    let r: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let d = r.dfsio_run().unwrap();
    assert_eq!(d.aggregates.time, d.tasks.iter().map(|t| t.time_ms).sum::<i64>());
    assert!(stdout.contains(&format!("Throughput mb/sec: {}", storebench::stats::dfsio::java_double(a.throughput()))));
    assert_eq!(d.tasks.len(), 5);
    assert!(d.tasks.iter().all(|t| t.rank == 0 && !t.host.is_empty() && t.bytes == 3 << 20 && t.end_s >= t.start_s));
    assert!(d.aggregate_mb_s > 0.0 && d.stonewall_mb_s > 0.0);
    assert!(
        d.task_rate_min <= d.task_rate_p50 && d.task_rate_p50 <= d.task_rate_p90 && d.task_rate_p90 <= d.task_rate_max
    );

    // Reads: whole files in order, at random offsets, backwards, and with skips.
    for (variant, bytes) in [
        (vec!["-read"], 3 << 20),
        (vec!["-read", "-random"], 3 << 20),
        (vec!["-read", "-backward"], 3 << 20),
        // A 64 KiB buffer, then 64 KiB skipped: half of each file.
        (vec!["-read", "-skip"], 3 << 19),
    ] {
        run(&variant);
        let r: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let d = r.dfsio_run().unwrap();
        assert!(d.tasks.iter().all(|t| t.bytes == bytes), "{variant:?}: {:?}", d.tasks);
    }
    let text = std::fs::read_to_string(&res).unwrap();
    for t in ["write", "read", "random read", "backward read", "skip read"] {
        assert!(text.contains(&format!("----- TestDFSIO ----- : {t}\n")), "{t}");
    }
    // Append adds fileSize to every file.
    run(&["-append"]);
    assert!(names.iter().all(|n| std::fs::metadata(data.join(n)).unwrap().len() == 6 << 20));

    // -clean removes the benchmark's files and io_data, and keeps the root when it holds anything else.
    std::fs::write(root.join("not-ours.txt"), "keep").unwrap();
    sb().args(["dfsio", "-clean", "-rootDir"])
        .arg(&root)
        .assert()
        .success()
        .stdout(predicate::str::contains("removed 5 file(s)"));
    assert!(!data.exists());
    assert_eq!(std::fs::read_to_string(root.join("not-ours.txt")).unwrap(), "keep");
}

#[test]
fn memory_store_write() {
    let tmp = tempfile::tempdir().unwrap();
    sb().args(["dfsio", "-write", "-nrFiles", "3", "-fileSize", "1MB", "-rootDir", "memory://b/TestDFSIO", "-resFile"])
        .arg(tmp.path().join("r"))
        .assert()
        .success()
        .stdout(predicate::str::contains("Number of files: 3"))
        .stdout(predicate::str::contains("Total MBytes processed: 3.0"));
}

#[test]
fn read_before_write_and_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("never-written");
    sb().args(["dfsio", "-read", "-nrFiles", "2", "-rootDir"])
        .arg(&root)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("test_io_0 does not exist: run dfsio -write with -nrFiles 2"));
    for (args, needle) in [
        (vec!["-write", "-nrFiles", "0"], "invalid -nrFiles 0"),
        (vec!["-write", "-fileSize", "0"], "invalid -fileSize '0'"),
        (vec!["-write", "-fileSize", "12XB"], "invalid -fileSize '12XB'"),
        (vec!["-write", "-bufferSize", "0"], "invalid -bufferSize 0"),
        (vec!["-write", "-read"], "cannot be used with"),
        (vec!["-nrFiles", "2"], "required"),
    ] {
        let out = sb().arg("dfsio").args(&args).arg("-rootDir").arg(&root).assert().code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    assert!(!root.exists(), "nothing was created");
}

/// Launched by mpirun with several ranks, a storebench built without MPI says how to build one.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_launch_without_the_feature_says_how_to_build() {
    sb().env("OMPI_COMM_WORLD_SIZE", "4")
        .args(["dfsio", "-write", "-rootDir", "memory://b/x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("built without MPI"))
        .stderr(predicate::str::contains("cargo build --release --features mpi"));
}
