//! `storebench ranges` end to end on local files, through the binary.

mod common;

use common::sb;
use predicates::prelude::*;
use storebench::stats::report::{Params, RunReport};

#[test]
fn every_strategy_on_a_file_with_verify() {
    let dir = tempfile::tempdir().unwrap();
    let (obj, json) = (dir.path().join("obj.bin"), dir.path().join("r.json"));
    let seed_ranges = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/seed-ranges.txt");
    sb().args(["ranges", "--prepare", "48m", "--ranges", seed_ranges, "--verify", "--warm", "2", "--json"])
        .arg(&json)
        .arg(&obj)
        .assert()
        .success()
        // The seed's first range, as its log shows it: 65,536 bytes.
        .stdout(predicate::str::contains("GET bytes=21013289-21078824 (65,536)"))
        .stdout(predicate::str::contains("Verdict on this link"));
    let r: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let Params::Ranges(p) = &r.params else { panic!("not a ranges report") };
    assert_eq!((p.ranges.len(), p.object_size, p.warm), (12, 48 << 20, 2));
    let run = r.ranges_run().unwrap();
    let by = |n: &str| run.strategies.iter().find(|s| s.name == n).unwrap();
    let needed: u64 = p.ranges.iter().map(|(a, b)| b - a + 1).sum();
    // sequential and parallel fetch exactly what is needed, one GET per range.
    assert_eq!((by("sequential").requests, by("sequential").bytes_fetched), (12, needed));
    assert_eq!(by("parallel").bytes_fetched, needed);
    // split: pieces of at most 10 KiB.
    assert!(by("split").cold_requests.iter().all(|q| q.length <= 10 << 10));
    assert_eq!(by("split").bytes_fetched, needed);
    // coalesce: the six overlapping pairs become six GETs that fetch less than the sum.
    assert_eq!(by("coalesce").requests, 6);
    assert!(by("coalesce").bytes_fetched < needed);
    // whole: one GET of the span 21013289..=47330500.
    assert_eq!((by("whole").requests, by("whole").bytes_fetched), (1, 47330500 - 21013289 + 1));
    assert!(run.strategies.iter().all(|s| s.verified && s.warm_mean_s.is_some()));
    assert_eq!(run.verdict.iter().map(|v| v.rank).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    // --prepare's object is removed again.
    assert!(!obj.exists());
}

#[test]
fn ranges_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("obj");
    std::fs::write(&obj, vec![1u8; 1000]).unwrap();
    let bad = |args: &[&str], code: i32, needle: &str| {
        let mut c = sb();
        c.arg("ranges").args(args).arg(&obj);
        c.assert()
            .code(code)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    };
    bad(&["--range", "990-1000"], 2, "ends past the end");
    bad(&["--range", "990-1000"], 2, "holds 1000 bytes");
    bad(&["--range", "9-3"], 2, "start > end");
    bad(&[], 2, "no ranges to read");
    bad(&["--range", "0-9", "--concurrency", "0"], 2, "invalid --concurrency '0'");
    bad(&["--range", "0-9", "--prepare", "1m"], 2, "already exists");
    bad(&["--range", "0-9", "--strategy", "zigzag"], 2, "zigzag");
    let f = dir.path().join("ranges.txt");
    std::fs::write(&f, "0-9\nten-20\n").unwrap();
    bad(&["--ranges", f.to_str().unwrap()], 2, "line 2: 'ten' is not a byte offset");
    sb().args(["ranges", "--range", "0-9"])
        .arg(dir.path().join("missing"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not exist: give an existing object, or --prepare SIZE"));
    // An existing file is only read.
    sb().args(["ranges", "--range", "0-9", "--range", "500,100", "--warm", "0", "-q"]).arg(&obj).assert().success();
    assert_eq!(std::fs::read(&obj).unwrap(), vec![1u8; 1000]);
}

#[test]
fn ctrl_c_stops_between_passes_reports_and_removes_the_test_object() {
    let dir = tempfile::tempdir().unwrap();
    let (obj, json) = (dir.path().join("obj"), dir.path().join("r.json"));
    let bin = assert_cmd::cargo::cargo_bin("storebench");
    // A million warm passes of tiny ranges: far longer than the test waits.
    let child = std::process::Command::new(bin)
        .args(["ranges", "--prepare", "1m", "--range", "0-9", "--range", "5000,10", "--warm", "1000000"])
        .args(["--strategy", "sequential", "-q", "--json"])
        .arg(&json)
        .arg(&obj)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("RUN INTERRUPTED"));
    let r: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r.outcome.status, storebench::stats::report::Status::Interrupted);
    assert!(!obj.exists(), "the --prepare object is removed");
    // The passes that finished are kept: the cold one and some warm ones.
    let run = r.ranges_run().unwrap();
    assert_eq!(run.strategies.len(), 1);
    assert!(run.strategies[0].warm_mean_s.is_some() && run.verdict.len() == 1);
}
