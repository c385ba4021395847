//! `--sweep`: every grid point run as it would run alone, the table and the verdict, one JSON file
//! with every point's report; `--max-time` and Ctrl-C keep what was measured and name what was not;
//! refusals are one line. The knee itself is checked against a hand-built case in stats::sweep.

mod common;

use common::{s3, sb, unique};
use std::path::Path;

fn sweep_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_grid_on_memory_and_on_files_runs_every_point() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    for url in [format!("memory://{}/", unique("sweep")), dir.display().to_string()] {
        let json = tmp.path().join("sweep.json");
        let html = tmp.path().join("sweep.html");
        let out = sb()
            .args(["ops", "--op", "create_write", "--iterations", "8", "--file-size", "256k", "--repeats", "2", "-q"])
            .args(["--sweep", "threads=1..2", "--sweep", "buffer-size=64k,128k", "--prepare", &url, "--json"])
            .arg(&json)
            .arg("--html")
            .arg(&html)
            .output()
            .unwrap();
        let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{url}: {err}");
        assert!(text.starts_with("Sweep of ops over threads x buffer-size: 4 point(s) run"), "{text}");
        assert!(err.contains("sweep point 4/4: threads=2, buffer-size=128k"), "{err}");
        let v = sweep_json(&json);
        let points = v["sweep"]["points"].as_array().unwrap();
        let settings: Vec<String> = points.iter().map(|p| p["settings"].to_string()).collect();
        assert_eq!(settings[1], r#"[["threads","1"],["buffer-size","128k"]]"#);
        assert!(points.iter().all(|p| p["status"] == "completed" && p["mib_per_s"].as_f64().unwrap() > 0.0));
        // Every point's full report, as the command alone would write it.
        let reports = v["reports"].as_array().unwrap();
        assert_eq!(reports.len(), 4);
        assert_eq!(reports[2]["params"]["threads"], 2);
        assert_eq!(reports[3]["params"]["buffer_size"], 128 << 10);
        // A verdict for each key along each line of the other: 2 + 2.
        let verdict = v["sweep"]["verdict"].as_array().unwrap();
        assert_eq!(verdict.len(), 4);
        assert!(text.contains("threads (at buffer-size=64k): throughput peaks at"), "{text}");
        let page = std::fs::read_to_string(&html).unwrap();
        for chart in ["sweep-threads", "sweep-buffer-size", "hockey-stick"] {
            assert!(page.contains(&format!("class=\"chart\" data-chart=\"{chart}\"")), "{chart}");
        }
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "each point cleaned up after itself");
    // bandwidth over its block: each point writes, reads and removes its own file.
    let out = sb().args(["bandwidth", "2m", "-q", "--sweep", "block=256k..1m"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 point(s) run") && text.contains("block: throughput peaks at"), "{text}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // ranges over its concurrency: the fastest strategy's cold pass ranks each point.
    let json = tmp.path().join("ranges.json");
    let url = format!("memory://{}/obj", unique("sweep-ranges"));
    let out = sb()
        .args(["ranges", &url, "--prepare", "2m", "--generate", "8:16k", "--strategy", "parallel", "-q"])
        .args(["--sweep", "concurrency=1,4", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = sweep_json(&json);
    let points = v["sweep"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert!(points.iter().all(|p| p["mib_per_s"].as_f64().unwrap() > 0.0 && p["ops_per_s"].as_f64().unwrap() > 0.0));
    assert_eq!(v["reports"][1]["params"]["concurrency"], 4);
}

/// Runs storebench with `args` and sends it SIGINT a little after `line` appears on its standard
/// error (which is read to its end: a closed pipe would stop the child with SIGPIPE).
fn interrupt_at(args: &[String], line: &'static str) -> std::process::Output {
    use std::io::BufRead;
    let mut child = std::process::Command::new(common::bin())
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for l in stderr.lines().map_while(Result::ok) {
            if l.contains(line) {
                let _ = tx.send(());
            }
        }
    });
    assert!(rx.recv_timeout(std::time::Duration::from_secs(60)).is_ok(), "the run never printed {line:?}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    reader.join().unwrap();
    out
}

/// Runs a sweep that must succeed with `--json` to a file in `tmp`; its JSON, and each point's
/// `prepared_by` (null when it prepared its own).
fn sweep_ok(tmp: &Path, args: &[&str]) -> (serde_json::Value, Vec<String>) {
    let json = tmp.join("ok.json");
    let out = sb().args(args).arg("--json").arg(&json).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let v = sweep_json(&json);
    let by = v["sweep"]["points"].as_array().unwrap().iter().map(|p| p["prepared_by"].to_string()).collect();
    (v, by)
}

/// The counters a point's report gives its store (create_calls, delete_calls...).
fn counter(report: &serde_json::Value, name: &str) -> u64 {
    let all = report["counters"][0]["counters"].as_array().unwrap();
    all.iter().find(|c| c[0] == name).map_or(0, |c| c[1].as_u64().unwrap())
}

#[test]
fn points_that_differ_only_in_read_settings_share_one_preparation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    let json = tmp.path().join("s.json");
    // open_read over threads, with a point the command refuses between: threads=1 makes test_0 and
    // keeps it; the refused point hands it back; threads=2 makes only test_1 and removes both.
    let out = sb()
        .args(["ops", "--op", "open_read", "--prepare", "--iterations", "2", "--repeats", "1", "--file-size", "64k"])
        .args(["-q", "--sweep", "threads=1,5000,2", "--json"])
        .arg(&json)
        .arg(&dir)
        .output()
        .unwrap();
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("sweep point 3/3: threads=2, about") && err.contains("(reading what threads=1 prepared)"));
    assert!(text.contains("Prepared once where only read settings differ: threads=1's files served 1 later point(s)."));
    let v = sweep_json(&json);
    let reports = v["reports"].as_array().unwrap();
    assert_eq!([counter(&reports[0], "create_calls"), counter(&reports[1], "create_calls")], [1, 1]);
    assert_eq!([counter(&reports[0], "delete_calls"), counter(&reports[1], "delete_calls")], [0, 2]);
    assert!(v["sweep"]["points"][0].get("prepared_by").is_none());
    assert_eq!(v["sweep"]["points"][1]["prepared_by"], "threads=1");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the last point removed what the first made");
    // A file size is a write setting: each size prepares its own files (and removes them).
    let d = dir.to_str().unwrap();
    let stat = ["ops", "--op", "stat", "--prepare", "--iterations", "2", "--repeats", "1", "-q", d];
    let grid = ["--sweep", "file-size=1k,2k", "--sweep", "threads=1,2"];
    let (v, by) = sweep_ok(tmp.path(), &[&stat[..], &grid].concat());
    assert_eq!(by, ["null", r#""file-size=1k, threads=1""#, "null", r#""file-size=2k, threads=1""#]);
    let creates: Vec<u64> = v["reports"].as_array().unwrap().iter().map(|r| counter(r, "create_calls")).collect();
    assert_eq!(creates, [1, 1, 1, 1]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // A run that writes what it works on never shares: create_write makes its own files each point.
    let write = ["ops", "--op", "create_write", "--iterations", "1", "--repeats", "1", "--file-size", "1k", "-q", d];
    let (_, by) = sweep_ok(tmp.path(), &[&write[..], &["--sweep", "buffer-size=1k,512"]].concat());
    assert_eq!(by, ["null", "null"]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // ranges over concurrency: the object --prepare wrote once serves every point, then goes.
    let obj = dir.join("obj");
    let ranges = ["ranges", obj.to_str().unwrap(), "--prepare", "1m", "--generate", "4:16k", "-q"];
    let (_, by) = sweep_ok(tmp.path(), &[&ranges[..], &["--sweep", "concurrency=1..4"]].concat());
    assert_eq!(by, ["null", r#""concurrency=1""#, r#""concurrency=1""#]);
    assert!(!obj.exists());
    // Ctrl-C while a point holds what it prepared for the next: nothing is left behind.
    let mut args: Vec<String> = ["ops", "--op", "open_read", "--prepare", "--duration", "1s", "--repeats", "1"]
        .into_iter()
        .chain(["--file-size", "64k", "-q", "--sweep", "threads=1..4"])
        .map(String::from)
        .collect();
    args.push(dir.display().to_string());
    let status = interrupt_at(&args, "sweep point 2/3").status;
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the files the sweep held were removed");
}

#[test]
fn max_time_and_ctrl_c_keep_the_points_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("sweep.json");
    let args = |budget: &str| {
        vec![
            "ops".to_string(),
            "--op".into(),
            "stat".into(),
            "--duration".into(),
            "1s".into(),
            "--repeats".into(),
            "1".into(),
            "--prepare".into(),
            format!("memory://{}/", unique("budget")),
            "-q".into(),
            "--sweep".into(),
            "threads=1..8".into(),
            "--json".into(),
            json.display().to_string(),
        ]
        .into_iter()
        .chain(budget.split_whitespace().map(String::from))
        .collect::<Vec<String>>()
    };
    // --max-time 1500ms: the first two points run (the second starts before the budget is spent).
    let out = sb().args(args("--max-time 1500ms")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = sweep_json(&json);
    let (run, skipped) =
        (v["sweep"]["points"].as_array().unwrap().len(), v["sweep"]["skipped"].as_array().unwrap().len());
    assert!((1..4).contains(&run) && run + skipped == 4, "{run} run, {skipped} skipped");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\nNot run: ") && text.trim_end().ends_with("threads=8"), "{text}");
    // Ctrl-C during the second point: the first is kept, the second too (interrupted), the rest named.
    let out = interrupt_at(&args(""), "sweep point 2/4");
    assert_eq!(out.status.code(), Some(130));
    let v = sweep_json(&json);
    let points = v["sweep"]["points"].as_array().unwrap();
    assert!(!points.is_empty() && points[0]["status"] == "completed", "{points:?}");
    assert!(points.iter().any(|p| p["status"] == "interrupted"), "{points:?}");
    assert!(!v["sweep"]["skipped"].as_array().unwrap().is_empty());
}

#[test]
fn bad_sweeps_are_one_line() {
    let refused = |args: &[&str], says: &str| {
        let out = sb().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says) && err.lines().count() == 1, "{args:?}: {err}");
    };
    refused(&["ops", "--op", "stat", "--sweep", "thread=1,2"], "valid keys are threads, block");
    refused(&["bandwidth", "1m", "--sweep", "threads=1,2"], "bandwidth does not take it; it sweeps block, file-size");
    refused(&["ops", "--op", "stat", "--sweep", "threads=1,2", "--csv", "/tmp/x.csv"], "--csv logs one run");
    let many: Vec<String> = (1..=40).map(|t| t.to_string()).collect();
    let a = format!("threads={}", many.join(","));
    let b = format!("file-size={}", many.iter().map(|v| format!("{v}k")).collect::<Vec<_>>().join(","));
    refused(&["ops", "--op", "stat", "--sweep", &a, "--sweep", &b], "grid of 1600 points, more than 1000");
    refused(&["ops", "--op", "stat", "--max-time", "1m"], "--sweep");
    // A point the command refuses after others ran: reported, the sweep goes on, the exit is 1.
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("s.json");
    let out = sb()
        .args(["ops", "--op", "create_write", "--iterations", "2", "--file-size", "64k", "--repeats", "1", "-q"])
        .args(["--sweep", "buffer-size=64k,2g,32k", "--prepare"])
        .arg(format!("memory://{}/", unique("refused")))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("1 of 3 sweep point(s) failed; the first: buffer-size=2g: invalid --buffer-size"), "{err}");
    let v = sweep_json(&json);
    assert_eq!(v["sweep"]["points"].as_array().unwrap().len(), 2);
    assert!(v["sweep"]["skipped"][0].as_str().unwrap().ends_with("(refused)"));
}

/// ops stat through toxiproxy (25 ms each way) on the S3 server over threads: each request waits
/// about 50 ms, so throughput rises with threads at first; a knee is found.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn a_sweep_through_a_slow_link_rises_with_threads() {
    let s3 = s3();
    let slow = common::need(&["STOREBENCH_S3_SLOW_ENDPOINT"]).remove(0);
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("sweep.json");
    s3.cmd()
        .args(["ops", "--op", "stat", "--iterations", "6", "--repeats", "1", "--prepare", "--file-size", "1k"])
        .args(["--sweep", "threads=1..8", "-q", "--endpoint", &slow, "--json"])
        .arg(&json)
        .arg(format!("s3://{}/{}/", s3.bucket, unique("sweep")))
        .assert()
        .success();
    let v = sweep_json(&json);
    let ops: Vec<f64> =
        v["sweep"]["points"].as_array().unwrap().iter().map(|p| p["ops_per_s"].as_f64().unwrap()).collect();
    assert_eq!(ops.len(), 4);
    assert!(ops[0] < ops[1] && ops[1] < ops[2], "ops/s over 1, 2, 4 threads: {ops:?}");
    let verdict = &v["sweep"]["verdict"][0];
    assert_eq!(verdict["key"], "threads");
    assert!(verdict["knee"][0].as_str().is_some(), "{verdict}");
}
