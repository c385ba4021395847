//! `storebench ops` end to end on local files, through the binary.

use assert_cmd::Command;
use predicates::prelude::*;
use storebench::stats::report::{Params, RunReport, Status};

fn sb() -> Command {
    Command::cargo_bin("storebench").unwrap()
}

fn report(p: &std::path::Path) -> RunReport {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn create_write_threads_times_iterations_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    sb().args(["ops", "--op", "create_write", "--threads", "3", "--iterations", "4", "--file-size", "256k"])
        .args(["--buffer-size", "64k", "--json"])
        .arg(&json)
        .arg(&work)
        .assert()
        .success()
        .stdout(predicate::str::contains("create_write x 3 threads x 4 iterations"))
        .stdout(predicate::str::contains("Operations: 12 ok, 0 failed; 3,145,728 bytes"));
    let r = report(&json);
    assert_eq!(r.outcome.status, Status::Completed);
    let Params::Ops(p) = &r.params else { panic!("not an ops report") };
    assert_eq!((p.threads, p.iterations, p.buffer_size), (3, Some(4), 64 << 10));
    let s = r.summary.unwrap();
    assert_eq!((s.ops, s.errors, s.bytes), (12, 0, 12 * (256 << 10)));
    assert_eq!(s.latency.count, 12);
    // Stonewall: by the time the first thread ended, at least its own 4 operations had.
    assert!(s.stonewall_ops >= 4 && s.stonewall_ops <= 12 && s.stonewall_s <= s.wall_s);
    assert!((s.ops_per_s - 12.0 / s.wall_s).abs() < 1e-6 * s.ops_per_s);
    // Everything storebench made is gone: the work directory is empty again.
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

#[test]
fn open_read_for_a_duration_keeps_files_with_keep() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    sb().args(["ops", "--op", "open_read", "--threads", "2", "--duration", "300ms", "--file-size", "1m"])
        .args(["--keep", "-q", "--json"])
        .arg(&json)
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("Mean time to first byte"));
    let r = report(&json);
    let s = r.summary.unwrap();
    assert!(s.ops >= 2 && s.errors == 0, "{s:?}");
    assert_eq!(s.bytes, s.ops << 20);
    // Bounded by time: no thread runs much past the duration (one operation of 1 MiB at most).
    assert!(s.wall_s >= 0.3 && s.wall_s < 5.0, "{}", s.wall_s);
    let Params::Ops(p) = &r.params else { panic!() };
    assert_eq!((p.iterations, p.duration_s), (None, Some(0.3)));
    // --keep: test_0 and test_1 of 1 MiB stay in the run directory.
    let run_dir = dir.path().join(p.path.rsplit('/').next().unwrap());
    for k in 0..2 {
        assert_eq!(std::fs::metadata(run_dir.join(format!("test_{k}"))).unwrap().len(), 1 << 20);
    }
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
    bad(&["ops", "--op", "create_write", "--iterations", "2", "--duration", "1s"], "--duration");
    bad(&["ops", "--op", "create_write", "--duration", "0s"], "invalid duration '0s'");
    bad(&["ops", "--op", "create_write", "--file-size", "0"], "invalid --file-size '0'");
    bad(&["ops", "--op", "teleport"], "teleport");
    // A target that cannot be used is a run failure (exit 1), also on one line.
    sb().args(["ops", "--op", "create_write", "/no/such/dir"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/no/such/dir does not exist"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}
