//! Against a real S3 server (versitygw) on 127.0.0.1, started by scripts/test.sh, which exports
//! STOREBENCH_S3_* and runs these with `--include-ignored`. A plain `cargo test` lists them as ignored
//! ("needs an S3 server").
#![cfg(feature = "s3")]

mod common;

use common::{counter, report, s3, sb, unique};
use predicates::prelude::*;
use storebench::stats::report::{RunReport, Status};
use storebench::store::{conformance, open_target};

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn conformance_suite_on_s3() {
    let s3 = s3();
    let prefix = unique("conformance");
    let t = open_target(&format!("s3://{}/{prefix}", s3.bucket), &s3.config()).unwrap();
    let done = conformance::run_all(t.store.as_ref(), &prefix);
    eprintln!("S3 conformance:\n  {}", done.join("\n  "));
    assert_eq!(conformance::claimed(&done), ["writable", "conditional_create", "vectored_read", "prefetch"]);
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn multipart_upload_parts_and_close() {
    let s3 = s3();
    let prefix = unique("multipart");
    let t = open_target(&format!("s3://{}/{prefix}", s3.bucket), &s3.config()).unwrap();
    // 12 MiB with 5 MiB parts: 3 parts (5 + 5 + 2), completed in close().
    let key = format!("{prefix}/big");
    let mut w = t.store.create(&key, &Default::default()).unwrap();
    let block = vec![7u8; 1 << 20];
    for _ in 0..12 {
        w.write(&block).unwrap();
    }
    assert!(!t.store.exists(&key).unwrap(), "a multipart object is not visible before close()");
    let closed = w.close().unwrap();
    assert!(closed.counters.contains(&("multipart_parts".into(), 3)), "{:?}", closed.counters);
    // Each part is timed: 5 + 5 + 2 MiB at their offsets, each ending after it started.
    let mut parts: Vec<(u64, u64)> = closed.parts.iter().map(|p| (p.offset, p.bytes)).collect();
    parts.sort();
    assert_eq!(parts, [(0, 5 << 20), (5 << 20, 5 << 20), (10 << 20, 2 << 20)]);
    assert!(closed.parts.iter().all(|p| p.end >= p.start));
    assert_eq!(t.store.stat(&key).unwrap().map(|m| m.size), Some(12 << 20));
    // An aborted multipart upload leaves no object.
    let key2 = format!("{prefix}/aborted");
    let mut w = t.store.create(&key2, &Default::default()).unwrap();
    for _ in 0..11 {
        w.write(&block).unwrap();
    }
    w.abort().unwrap();
    assert!(!t.store.exists(&key2).unwrap());
    t.store.delete(&key).unwrap();
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn bandwidth_on_s3_every_policy_and_neighbours_survive() {
    let s3 = s3();
    let prefix = unique("bw");
    let t = open_target(&format!("s3://{}/{prefix}", s3.bucket), &s3.config()).unwrap();
    let neighbour = format!("{prefix}/neighbour.txt");
    let mut w = t.store.create(&neighbour, &Default::default()).unwrap();
    w.write(b"not storebench's").unwrap();
    w.close().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for policy in ["whole-file", "sequential", "random", "prefetch", "vector"] {
        let json = dir.path().join(format!("{policy}.json"));
        s3.cmd()
            .args([
                "bandwidth",
                "12m",
                "--block",
                "1m",
                "--verify",
                "--rename",
                "-q",
                "-D",
                "fs.s3a.multipart.size=5m",
                "--policy",
                policy,
                "--json",
            ])
            .arg(&json)
            .arg(format!("s3://{}/{prefix}/", s3.bucket))
            .assert()
            .success()
            .stdout(predicate::str::contains("Upload Summary"))
            .stdout(predicate::str::contains("Multipart parts uploaded: 3 (12,582,912 bytes)"));
        let r = report(&json);
        assert_eq!(r.outcome.status, Status::Completed);
        assert!(r.phases.iter().all(|p| p.bytes == 12 << 20 && p.blocks.count == 12));
        let get = |k: &str| counter(&r, "store", k);
        assert_eq!(get("multipart_completed"), 1);
        assert_eq!(get("multipart_parts"), 3);
        // Every HTTP attempt is counted: a clean local run retries nothing.
        assert_eq!((get("http_retries"), get("http_5xx"), get("http_transport_errors")), (0, 0, 0));
        assert!(get("http_attempts") >= get("get_requests") + get("head_requests") + 5, "{:?}", r.counters);
        // whole-file: one GET; vector: 4 adjacent blocks per call merge into one GET; else one per block.
        let expected_gets = match policy {
            "whole-file" => 1,
            "vector" => 3,
            _ => 12,
        };
        assert_eq!(get("get_requests"), expected_gets, "{policy}");
        if policy == "prefetch" {
            // Every block after the first was already under way when it was asked for.
            let stream = &r.counters.iter().find(|g| g.scope == "download stream").unwrap().counters;
            assert!(stream.contains(&("prefetch_hits".into(), 11)), "{stream:?}");
        }
        // Latency per part (3 parts) as well as per object (the upload operation).
        let parts = r.ops.iter().find(|o| o.op == "upload-part").unwrap();
        assert_eq!((parts.latency.count, parts.bytes), (3, 12 << 20));
        assert_eq!(r.ops.iter().find(|o| o.op == "upload").unwrap().latency.count, 1);
    }
    assert_eq!(t.store.list(&prefix).unwrap(), ["neighbour.txt"]);
    t.store.delete(&neighbour).unwrap();
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn small_upload_is_one_put_in_close() {
    let s3 = s3();
    let json = tempfile::NamedTempFile::new().unwrap();
    s3.cmd()
        .args(["bandwidth", "3m", "--block", "1m", "-q", "--json"])
        .arg(json.path())
        .arg(format!("s3://{}/{}", s3.bucket, unique("small")))
        .assert()
        .success();
    let r = report(json.path());
    let store = &r.counters.iter().find(|g| g.scope == "store").unwrap().counters;
    assert!(
        store.contains(&("put_requests".into(), 1)) && store.contains(&("multipart_started".into(), 0)),
        "{store:?}"
    );
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn doris_conf_file_and_secrets_never_appear() {
    let s3 = s3();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("s3.conf");
    std::fs::write(
        &conf,
        format!(
            "AWS_ACCESS_KEY={}\nAWS_SECRET_KEY={}\nAWS_ENDPOINT={}\nAWS_REGION=us-east-1\n",
            s3.access, s3.secret, s3.endpoint
        ),
    )
    .unwrap();
    let (csv, json) = (dir.path().join("l.csv"), dir.path().join("r.json"));
    let out = sb()
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .args(["bandwidth", "6m", "--block", "1m", "-v", "--conf"])
        .arg(&conf)
        .arg("--csv")
        .arg(&csv)
        .arg("--json")
        .arg(&json)
        .arg(format!("s3://{}/{}", s3.bucket, unique("conf")))
        .assert()
        .success()
        .get_output()
        .clone();
    let all = [out.stdout, out.stderr, std::fs::read(&csv).unwrap(), std::fs::read(&json).unwrap()].concat();
    assert!(!String::from_utf8_lossy(&all).contains(&s3.secret), "the secret leaked");
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn wrong_credentials_say_403_without_the_secret() {
    let s3 = s3();
    let out = sb()
        .args([
            "bandwidth",
            "1m",
            "--endpoint",
            &s3.endpoint,
            "-D",
            "fs.s3a.access.key=WRONGKEY",
            "-D",
            "fs.s3a.secret.key=WrongSecret999",
        ])
        .arg(format!("s3://{}/x", s3.bucket))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("403") || err.contains("permission denied"), "{err}");
    assert!(!err.contains("WrongSecret999"));
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn missing_bucket_and_unreachable_endpoint_fail_fast_and_clearly() {
    let s3 = s3();
    s3.cmd()
        .args(["bandwidth", "1m", "s3://no-such-bucket-storebench/x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no-such-bucket-storebench"));
    let start = std::time::Instant::now();
    s3.cmd()
        .args(["bandwidth", "1m", "--endpoint", "http://127.0.0.1:9", "-D", "fs.s3a.attempts.maximum=1"])
        .arg(format!("s3://{}/x", s3.bucket))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot reach http://127.0.0.1:9"));
    assert!(start.elapsed().as_secs() < 30, "bounded retries");
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn aws_profile_supplies_credentials_and_endpoint() {
    let s3 = s3();
    let dir = tempfile::tempdir().unwrap();
    let (creds, conf) = (dir.path().join("credentials"), dir.path().join("config"));
    std::fs::write(
        &creds,
        format!(
            "[default]\naws_access_key_id = WRONG\n\n[bench]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            s3.access, s3.secret
        ),
    )
    .unwrap();
    std::fs::write(&conf, format!("[profile bench]\nregion = us-east-1\nendpoint_url = {}\n", s3.endpoint)).unwrap();
    let url = format!("s3://{}/{}", s3.bucket, unique("profile"));
    let run = |profile: &str| {
        let mut c = sb();
        c.env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .env_remove("AWS_ENDPOINT_URL")
            .env("AWS_SHARED_CREDENTIALS_FILE", &creds)
            .env("AWS_CONFIG_FILE", &conf)
            .args(["bandwidth", "1m", "-q", "--profile", profile, &url]);
        c.assert()
    };
    run("bench").success();
    // An unknown profile names itself and the files looked in.
    run("nope").code(2).stderr(predicate::str::contains("AWS profile 'nope' is not in"));
    // AWS_PROFILE chooses the same way as --profile.
    let mut c = sb();
    c.env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env("AWS_SHARED_CREDENTIALS_FILE", &creds)
        .env("AWS_CONFIG_FILE", &conf)
        .env("AWS_PROFILE", "bench")
        .args(["bandwidth", "1m", "-q", &url])
        .assert()
        .success();
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn read_only_reads_an_existing_object_and_leaves_it() {
    let s3 = s3();
    let prefix = unique("readonly");
    let t = open_target(&format!("s3://{}/{prefix}", s3.bucket), &s3.config()).unwrap();
    let key = format!("{prefix}/data.bin");
    let mut w = t.store.create(&key, &Default::default()).unwrap();
    w.write(&vec![1u8; 3 << 20]).unwrap();
    w.close().unwrap();
    let json = tempfile::NamedTempFile::new().unwrap();
    s3.cmd()
        .args(["bandwidth", "2m", "--block", "512k", "--read-only", "--policy", "sequential", "-q", "--json"])
        .arg(json.path())
        .arg(format!("s3://{}/{key}", s3.bucket))
        .assert()
        .success()
        .stdout(predicate::str::contains("Download Summary"))
        .stdout(predicate::str::contains("Upload Summary").not());
    let r = report(json.path());
    assert_eq!(r.phases.len(), 1);
    assert_eq!((r.phases[0].bytes, r.phases[0].blocks.count), (2 << 20, 4));
    // Nothing written, nothing deleted.
    let store = &r.counters.iter().find(|g| g.scope == "store").unwrap().counters;
    assert!(store.contains(&("put_requests".into(), 0)) && store.contains(&("delete_requests".into(), 0)));
    assert_eq!(t.store.stat(&key).unwrap().map(|m| m.size), Some(3 << 20));
    // Asking for more than the object holds is refused before anything is read.
    s3.cmd()
        .args(["bandwidth", "4m", "--read-only", "-q"])
        .arg(format!("s3://{}/{key}", s3.bucket))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds 3145728 bytes, fewer than SIZE 4194304"));
    t.store.delete(&key).unwrap();
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn ops_every_operation_on_s3() {
    let s3 = s3();
    let prefix = unique("ops");
    let url = format!("s3://{}/{prefix}/", s3.bucket);
    let dir = tempfile::tempdir().unwrap();
    let run = |op: &str, extra: &[&str]| -> RunReport {
        let json = dir.path().join(format!("{op}.json"));
        s3.cmd()
            .args(["ops", "--op", op, "--threads", "4", "--repeats", "1", "-q"])
            .args(["-D", "fs.s3a.multipart.size=5m", "--json"])
            .arg(&json)
            .args(extra)
            .arg(&url)
            .assert()
            .success();
        let r = report(&json);
        assert_eq!(r.outcome.status, Status::Completed, "{op}");
        r
    };
    // 4 threads x 3 objects of 6 MiB in 5 MiB parts: 2 parts each, every upload completed; kept.
    let r = run("create_write", &["--iterations", "3", "--keep", "--file-size", "6m"]);
    let s = &r.ops_run().unwrap().repeats[0].summary;
    assert_eq!((s.ops, s.bytes), (12, 12 * (6 << 20)));
    assert_eq!((counter(&r, "store", "multipart_completed"), counter(&r, "store", "multipart_parts")), (12, 24));
    // --file-path takes a URL in the same store (or a key from the bucket's root).
    let (f0, f1) = (format!("{url}test_0"), format!("{prefix}/test_1"));
    for (op, extra) in [
        ("open_read", vec!["--duration", "300ms", "--file-size", "6m"]),
        ("exists", vec![]),
        ("stat", vec![]),
        ("list", vec![]),
        ("rename", vec!["--iterations", "2"]),
        ("prefetch_read", vec!["--file-path", &f0, "--buffer-size", "1m"]),
        ("single_read", vec!["--file-path", &f1, "--random", "--file-size", "64k", "--iterations", "5"]),
        ("delete", vec!["--iterations", "2"]),
    ] {
        let r = run(op, &extra);
        let s = &r.ops_run().unwrap().repeats[0].summary;
        assert!(s.ops >= 4 && s.errors == 0, "{op}: {s:?}");
        match op {
            "open_read" => assert_eq!(s.bytes, s.ops * (6 << 20)),
            "prefetch_read" => assert_eq!(counter(&r, "store", "get_requests"), 4 * 6, "{op}: 6 block GETs per read"),
            "single_read" => assert_eq!((s.ops, s.bytes), (20, 20 * (64 << 10))),
            _ => {}
        }
    }
    // The kept objects are still there (rename put them back, delete only removed its own).
    let t = open_target(&url, &s3.config()).unwrap();
    let mut names = t.store.list(&prefix).unwrap();
    names.sort();
    assert_eq!(names, ["test_0", "test_1", "test_2", "test_3"]);
    for n in names {
        t.store.delete(&format!("{prefix}/{n}")).unwrap();
    }
}

/// The seed's lesson, measured: through a 50 ms round trip (toxiproxy in front of the S3 server)
/// parallel GETs beat sequential ones by a wide margin; on plain loopback the gap is small.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn io_threads_size_the_clients_runtime_and_bad_counts_are_refused() {
    let s3 = s3();
    let url = format!("s3://{}/{}/", s3.bucket, unique("io"));
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let run = |extra: &[&str]| {
        s3.cmd()
            .args(["ops", "--op", "create_write", "--threads", "2", "--iterations", "2", "--repeats", "1", "-q"])
            .args(extra)
            .arg("--json")
            .arg(&json)
            .arg(&url)
            .assert()
            .success();
        let r = report(&json);
        assert_eq!(r.ops_run().unwrap().repeats[0].summary.ops, 4);
        r.engine
    };
    // The runtime the client ran on had the threads asked for (the count comes from the runtime built).
    assert!(run(&["--io-threads", "3"]).ends_with(", 3 I/O threads"));
    assert!(run(&["-D", "storebench.io.threads=1"]).ends_with(", 1 I/O thread"));
    // Unset: half the CPUs, at least one.
    let cpus = std::thread::available_parallelism().unwrap().get();
    let engine = run(&[]);
    let n = (cpus / 2).max(1);
    assert!(engine.ends_with(&format!(", {n} I/O thread{}", if n == 1 { "" } else { "s" })), "{engine}");
    for bad in ["0", "257", "many"] {
        let out = s3.cmd().args(["ops", "--op", "stat", "--io-threads", bad]).arg(&url).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "storebench: invalid storebench.io.threads '{bad}': expected a count of I/O threads from 1 to 256\n"
            )
        );
    }
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn ranges_parallel_wins_on_a_slow_link_not_on_loopback() {
    let s3 = s3();
    let slow = common::need(&["STOREBENCH_S3_SLOW_ENDPOINT"]).remove(0);
    let seed_ranges = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/seed-ranges.txt");
    let speedup = |endpoint: &str| -> f64 {
        let json = tempfile::NamedTempFile::new().unwrap();
        s3.cmd()
            .args(["ranges", "--prepare", "48m", "--ranges", seed_ranges, "--strategy", "sequential,parallel"])
            .args(["--warm", "2", "-q", "--endpoint", endpoint, "--json"])
            .arg(json.path())
            .arg(format!("s3://{}/{}", s3.bucket, unique("ranges")))
            .assert()
            .success();
        let r = report(json.path());
        let run = r.ranges_run().unwrap();
        assert_eq!(run.strategies.len(), 2);
        run.verdict.iter().find(|v| v.strategy == "parallel").unwrap().vs_sequential.unwrap()
    };
    let through_proxy = speedup(&slow);
    let loopback = speedup(&s3.endpoint);
    eprintln!("parallel vs sequential: {through_proxy:.2}x through the proxy, {loopback:.2}x on loopback");
    // 12 GETs at 50 ms each one after the other vs all at once: several times faster (about 8x in a
    // release build; the test binary is a debug build and toxiproxy shares the 2 cores).
    assert!(through_proxy >= 3.0, "parallel only {through_proxy:.2}x sequential through a 50 ms link");
    assert!(loopback < through_proxy / 2.0, "loopback {loopback:.2}x vs proxied {through_proxy:.2}x");
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn ranges_every_strategy_on_s3_with_verify() {
    let s3 = s3();
    let json = tempfile::NamedTempFile::new().unwrap();
    let url = format!("s3://{}/{}", s3.bucket, unique("ranges-verify"));
    s3.cmd()
        .args(["ranges", "--prepare", "6m", "--generate", "4:64k,4:1m", "--seed", "3", "--verify", "--warm", "1"])
        .args(["--split-size", "256k", "--json"])
        .arg(json.path())
        .arg(&url)
        .assert()
        .success()
        .stdout(predicate::str::contains("first byte"));
    let r = report(json.path());
    let run = r.ranges_run().unwrap();
    assert_eq!(run.strategies.len(), 5);
    assert!(run.strategies.iter().all(|s| s.verified && s.cold_requests.len() as u64 == s.requests));
    let by = |n: &str| run.strategies.iter().find(|s| s.name == n).unwrap();
    // 4 pairs of 64 KiB + 1 MiB: split in 256 KiB pieces is 4 x (1 + 4) GETs.
    assert_eq!((by("sequential").requests, by("split").requests), (8, 20));
    // Each GET's time to first byte comes before its end.
    assert!(run.strategies.iter().flat_map(|s| &s.cold_requests).all(|q| q.first_byte_s <= q.total_s));
    // The test object went again.
    let t = open_target(&url, &s3.config()).unwrap();
    assert_eq!(t.store.stat(&t.path).unwrap(), None);
}

/// TestDFSIO's cycle on S3; -append says S3 cannot append.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn dfsio_on_s3() {
    let s3 = s3();
    let root = format!("s3://{}/{}/TestDFSIO", s3.bucket, unique("dfsio"));
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("res.txt");
    for mode in ["-write", "-read"] {
        s3.cmd()
            .args(["dfsio", mode, "-nrFiles", "3", "-fileSize", "6MB", "-q", "-D", "fs.s3a.multipart.size=5m"])
            .arg("-resFile")
            .arg(&res)
            .args(["-rootDir", &root])
            .assert()
            .success()
            .stdout(predicate::str::contains("Total MBytes processed: 18.0"));
    }
    s3.cmd()
        .args(["dfsio", "-append", "-nrFiles", "3", "-rootDir", &root])
        .arg("-resFile")
        .arg(&res)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot append"));
    let t = open_target(&root, &s3.config()).unwrap();
    assert_eq!(t.store.stat(&format!("{}/io_data/test_io_2", t.path)).unwrap().map(|m| m.size), Some(6 << 20));
    s3.cmd()
        .args(["dfsio", "-clean", "-rootDir", &root])
        .assert()
        .success()
        .stdout(predicate::str::contains("removed 3"));
    assert!(t.store.list(&format!("{}/io_data", t.path)).unwrap().is_empty());
}

/// The user's own test_0 and test_1 objects survive an ops mix with create_write (refused before a
/// byte is written), and an interrupted multipart upload (SIGTERM) leaves no object behind.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn foreign_objects_survive_and_sigterm_aborts_the_upload() {
    let s3 = s3();
    let prefix = unique("foreign");
    let t = open_target(&format!("s3://{}/{prefix}/", s3.bucket), &s3.config()).unwrap();
    for k in 0..2 {
        let mut w = t.store.create(&format!("{prefix}/test_{k}"), &Default::default()).unwrap();
        w.write(format!("mine {k}").as_bytes()).unwrap();
        w.close().unwrap();
    }
    s3.cmd()
        .args(["ops", "--mix", "open_read=50,create_write=30,stat=20", "--threads", "2", "--iterations", "5"])
        .args(["--file-size", "4k", "--repeats", "1", "--prepare"])
        .arg(format!("s3://{}/{prefix}/", s3.bucket))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("create_write will not overwrite it"));
    for k in 0..2 {
        let mut r = t.store.open(&format!("{prefix}/test_{k}"), &Default::default()).unwrap();
        let mut buf = vec![0u8; 6];
        r.read_at(0, &mut buf).unwrap();
        assert_eq!(buf, format!("mine {k}").as_bytes());
    }
    // SIGTERM during a multipart upload: exit 143, the upload aborted, nothing left under the prefix
    // but the user's two objects.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storebench"))
        .env("AWS_ACCESS_KEY_ID", &s3.access)
        .env("AWS_SECRET_ACCESS_KEY", &s3.secret)
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .args(["bandwidth", "2g", "--block", "1m", "-D", "fs.s3a.multipart.size=5m", "-q"])
        .arg(format!("s3://{}/{prefix}/", s3.bucket))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: kill on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names = t.store.list(&prefix).unwrap();
    names.sort();
    assert_eq!(names, vec!["test_0".to_string(), "test_1".to_string()]);
}

/// Findings on an object store: through a 50 ms link (toxiproxy) each 1 MiB GET waits most of its time
/// for the first byte, and the report says the download was latency-bound with the ceiling one GET at a
/// time can carry; on loopback with 4 MiB blocks the wait is a small part and the rule is silent.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn latency_bound_through_a_slow_link_not_on_loopback() {
    let s3 = s3();
    let slow = common::need(&["STOREBENCH_S3_SLOW_ENDPOINT"]).remove(0);
    let run = |endpoint: &str, block: &str| {
        let json = tempfile::NamedTempFile::new().unwrap();
        let out = s3
            .cmd()
            .args(["bandwidth", "8m", "--block", block, "--policy", "sequential", "--endpoint", endpoint, "--json"])
            .arg(json.path())
            .arg(format!("s3://{}/{}/", s3.bucket, unique("latency")))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (report(json.path()), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (r, text) = run(&slow, "1m");
    let f = r.findings.iter().find(|f| f.rule == "latency_bound").unwrap_or_else(|| panic!("{text}"));
    eprintln!("through the proxy: {}", f.verdict);
    assert!(f.verdict.starts_with("each request waited"), "{}", f.verdict);
    assert!(text.contains("before its first byte"), "{text}");
    let (r, _) = run(&s3.endpoint, "4m");
    assert!(!r.findings.iter().any(|f| f.rule == "latency_bound"), "{:?}", r.findings);
}

/// The same rule for every command that reads by requests: ops' downloads, dfsio's read tasks and
/// ranges' GETs through the 50 ms link each wait most of their time for the first byte, and each
/// report says so; ops through loopback does not.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn latency_bound_for_ops_dfsio_and_ranges_through_a_slow_link() {
    let s3 = s3();
    let slow = common::need(&["STOREBENCH_S3_SLOW_ENDPOINT"]).remove(0);
    let run = |args: &[&str], endpoint: &str| {
        let json = tempfile::NamedTempFile::new().unwrap();
        let out = s3.cmd().args(args).args(["--endpoint", endpoint, "--json"]).arg(json.path()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        report(json.path())
    };
    let latency = |r: &storebench::stats::report::RunReport| {
        r.findings.iter().find(|f| f.rule == "latency_bound").map(|f| f.verdict.clone())
    };
    let prefix = format!("s3://{}/{}/", s3.bucket, unique("latency-ops"));
    let ops = |size: &'static str| {
        let mut a = vec!["ops", "--op", "open_read", "--threads", "2", "--iterations", "4", "--repeats", "1"];
        a.extend(["--file-size", size, "--prepare", "-q", &prefix]);
        a
    };
    let slow_ops = run(&ops("64k"), &slow);
    let v = latency(&slow_ops).unwrap_or_else(|| panic!("ops: {:?}", slow_ops.findings));
    eprintln!("ops through the proxy: {v}");
    assert!(slow_ops
        .findings
        .iter()
        .any(|f| f.rule == "latency_bound" && f.evidence[0].contains("means over 8 downloads")));
    // 64 KiB objects are latency-bound even on loopback (a GET's fixed cost is most of it); 16 MiB
    // ones are not (about 3 ms of 18 ms waiting; 4 MiB ones waited 35 %, and 52 % on a loaded CI box).
    let fast_ops = run(&ops("16m"), &s3.endpoint);
    assert_eq!(latency(&fast_ops), None, "loopback ops: {:?}", fast_ops.findings);

    let root = format!("s3://{}/{}/TestDFSIO", s3.bucket, unique("latency-dfsio"));
    let res = tempfile::NamedTempFile::new().unwrap();
    let res = res.path().to_str().unwrap();
    let dfsio = |mode: &str| {
        run(&["dfsio", mode, "-nrFiles", "2", "-fileSize", "256KB", "-rootDir", &root, "-resFile", res, "-q"], &slow)
    };
    dfsio("-write");
    let read = dfsio("-read");
    let v = latency(&read).unwrap_or_else(|| panic!("dfsio: {:?}", read.findings));
    eprintln!("dfsio -read through the proxy: {v}");
    dfsio("-clean");

    let object = format!("s3://{}/{}", s3.bucket, unique("latency-ranges"));
    let ranges =
        run(&["ranges", "--prepare", "2m", "--generate", "6:64k", "--strategy", "sequential", "-q", &object], &slow);
    let v = latency(&ranges).unwrap_or_else(|| panic!("ranges: {:?}", ranges.findings));
    eprintln!("ranges through the proxy: {v}");
}

/// A proxy in front of the S3 server that answers the first request it gets with 503 SlowDown and
/// closes, then forwards every later connection byte for byte: the store's client retries, and the
/// findings say the store pushed back. Without the proxy, nothing is said.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn a_slowdown_answer_is_counted_and_named() {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    let s3 = s3();
    let upstream = s3.endpoint.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for (i, conn) in listener.incoming().enumerate() {
            let Ok(mut client) = conn else { continue };
            let _ = client.set_read_timeout(Some(std::time::Duration::from_secs(10)));
            if i == 0 {
                // Read the request head, refuse it as S3 does when it throttles, close.
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && client.read(&mut b).map(|n| n == 1).unwrap_or(false) {
                    head.extend_from_slice(&b);
                }
                let body = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
                let _ = write!(
                    client,
                    "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                continue;
            }
            let Ok(server) = TcpStream::connect(&upstream) else { continue };
            let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut c1, mut s1) = (client, server);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c1, &mut s1);
                let _ = s1.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    let run = |endpoint: &str| {
        let json = tempfile::NamedTempFile::new().unwrap();
        s3.cmd()
            .args(["bandwidth", "2m", "--block", "1m", "-q", "--endpoint", endpoint, "--json"])
            .arg(json.path())
            .arg(format!("s3://{}/{}/", s3.bucket, unique("pushback")))
            .assert()
            .success();
        report(json.path())
    };
    let r = run(&proxy);
    let f = r.findings.iter().find(|f| f.rule == "pushback").unwrap_or_else(|| panic!("{:?}", r.counters));
    assert!(f.evidence.iter().any(|e| e == "store http_throttled = 1"), "{:?}", f.evidence);
    assert!(f.evidence.iter().any(|e| e == "store http_retries = 1"), "{:?}", f.evidence);
    let r = run(&s3.endpoint);
    assert!(!r.findings.iter().any(|f| f.rule == "pushback"), "{:?}", r.findings);
}

#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn verify_counts_the_bad_blocks_of_an_object_changed_behind_its_back() {
    let s3 = s3();
    let prefix = unique("verify");
    let key = format!("{prefix}/kept.dat");
    let url = format!("s3://{}/{key}", s3.bucket);
    let same = ["--seed", "7", "--block", "256k", "--data", "compressible:30"];
    s3.cmd().args(["bandwidth", "2m", "--keep", "-q"]).args(same).arg(&url).assert().success();
    s3.cmd().args(["bandwidth", "2m", "--read-only", "--verify", "-q"]).args(same).arg(&url).assert().success();
    // The object rewritten with one byte flipped, in its fourth block of eight.
    let t = open_target(&format!("s3://{}/{prefix}", s3.bucket), &s3.config()).unwrap();
    let mut r = t.store.open(&key, &Default::default()).unwrap();
    let mut bytes = vec![0u8; 2 << 20];
    assert_eq!(r.read_at(0, &mut bytes).unwrap().bytes, 2 << 20);
    r.close().unwrap();
    bytes[800_000] ^= 0x04;
    let opts = storebench::store::WriteOptions { overwrite: true, ..Default::default() };
    let mut w = t.store.create(&key, &opts).unwrap();
    w.write(&bytes).unwrap();
    w.close().unwrap();
    s3.cmd()
        .args(["bandwidth", "2m", "--read-only", "--verify", "-q"])
        .args(same)
        .arg(&url)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("1 of 8 block(s)"))
        .stderr(predicate::str::contains("the first wrong byte is at offset 800000"));
    t.store.delete(&key).unwrap();
}
