//! dfsio across 4 MPI ranks (Open MPI's mpirun on loopback), built with `--features mpi`. The test
//! script installs Open MPI and runs these with `cargo test --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use storebench::stats::report::RunReport;

fn sb() -> String {
    assert_cmd::cargo::cargo_bin("storebench").to_string_lossy().into_owned()
}

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
        c.args(["-np", ranks, &sb()]);
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

fn report(p: &std::path::Path) -> RunReport {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
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
        let d = rep.dfsio_run.unwrap();
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
            assert!(store.counters.contains(&("create_calls".into(), 10)), "{store:?}");
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
    let (Ok(ep), Ok(bucket), Ok(ak), Ok(sk)) = (
        std::env::var("STOREBENCH_S3_ENDPOINT"),
        std::env::var("STOREBENCH_S3_BUCKET"),
        std::env::var("STOREBENCH_S3_ACCESS_KEY"),
        std::env::var("STOREBENCH_S3_SECRET_KEY"),
    ) else {
        assert!(std::env::var("STOREBENCH_REQUIRE_S3").is_err(), "no S3 server");
        return;
    };
    let root = format!("s3://{bucket}/mpi-{}/TestDFSIO", std::process::id());
    let keys = [format!("fs.s3a.endpoint={ep}"), format!("fs.s3a.access.key={ak}"), format!("fs.s3a.secret.key={sk}")];
    for mode in ["-write", "-read", "-clean"] {
        let mut a =
            vec!["dfsio", mode, "-nrFiles", "6", "-fileSize", "3MB", "-rootDir", &root, "-q", "-resFile", "/dev/null"];
        for k in &keys {
            a.extend(["-D", k.as_str()]);
        }
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
        sb(),
        sb()
    );
    let out = mpirun(&a, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("rank 2 was started with different arguments") && err.contains("'5'"), "{err}");
    assert!(!r.is_empty() && !std::path::Path::new(r).exists(), "nothing ran");

    // Task 3 (rank 3) cannot write: its file is a directory. Rank 0 says which rank and why.
    std::fs::create_dir_all(tmp.path().join("T/io_data/test_io_3")).unwrap();
    let out = mpirun(
        "4",
        &["dfsio", "-write", "-nrFiles", "4", "-fileSize", "1MB", "-rootDir", r, "-q", "-resFile", "/dev/null"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("rank 3 (") && err.contains("task 3"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
