//! gs://, az:// and http(s):// against real servers on 127.0.0.1 started by scripts/test.sh (via
//! scripts/object-servers.sh): Azurite, fake-gcs-server and a static web server. A plain `cargo test`
//! lists them as ignored ("needs ..."); the test script runs them with `--include-ignored`.
#![cfg(feature = "s3")]

mod common;

use common::{counter, need, report, sb, unique};
use predicates::prelude::*;
use storebench::stats::report::Status;
use storebench::store::config::{Origin, StoreConfig};
use storebench::store::{conformance, open_target, ReadOptions, StoreError};

const SEED_5M: u64 = 5 * 1024 * 1024 + 123;

// ---- Azure Blob (Azurite) ----

fn azure() -> (String, String) {
    let v = need(&["STOREBENCH_AZ_ENDPOINT", "STOREBENCH_AZ_CONTAINER"]);
    (v[0].clone(), v[1].clone())
}

fn az_cmd(endpoint: &str) -> assert_cmd::Command {
    let mut c = sb();
    c.env("AZURE_STORAGE_USE_EMULATOR", "true").env("AZURE_STORAGE_ENDPOINT", endpoint);
    c
}

#[test]
#[ignore = "needs Azurite: scripts/test.sh starts it"]
fn conformance_suite_on_azure() {
    let (endpoint, container) = azure();
    let mut cfg = StoreConfig::default();
    cfg.set("fs.azure.use.emulator", "true", Origin::Flag);
    cfg.set("fs.azure.endpoint", &endpoint, Origin::Flag);
    cfg.set("storebench.multipart.size", "1m", Origin::Flag);
    let prefix = unique("conformance");
    let t = open_target(&format!("az://{container}/{prefix}"), &cfg).unwrap();
    let done = conformance::run_all(t.store.as_ref(), &prefix);
    eprintln!("Azure conformance:\n  {}", done.join("\n  "));
    assert_eq!(done.len(), conformance::CHECKED.len());
    assert_eq!(conformance::claimed(&done), ["writable", "conditional_create", "vectored_read", "prefetch"]);
}

#[test]
#[ignore = "needs Azurite: scripts/test.sh starts it"]
fn bandwidth_on_azure_every_policy_with_block_uploads() {
    let (endpoint, container) = azure();
    let dir = tempfile::tempdir().unwrap();
    for policy in ["whole-file", "sequential", "random", "prefetch", "vector"] {
        let json = dir.path().join(format!("{policy}.json"));
        az_cmd(&endpoint)
            .args(["bandwidth", "6m", "--block", "1m", "--verify", "--rename", "-q", "--policy", policy])
            .args(["-D", "storebench.multipart.size=2m", "--json"])
            .arg(&json)
            .arg(format!("az://{container}/{}/", unique("bw")))
            .assert()
            .success();
        let r = report(&json);
        assert_eq!(r.outcome.status, Status::Completed, "{policy}");
        assert!(r.phases.iter().all(|p| p.bytes == 6 << 20 && p.blocks.count == 6));
        // 6 MiB in 2 MiB parts: three blocks put, then committed by close().
        assert_eq!(counter(&r, "store", "multipart_parts"), 3);
        assert_eq!(counter(&r, "store", "multipart_completed"), 1);
        assert_eq!(counter(&r, "store", "http_retries"), 0);
        assert!(r.engine.contains("Azure Blob"), "{}", r.engine);
    }
}

#[test]
#[ignore = "needs Azurite: scripts/test.sh starts it"]
fn azure_errors_are_one_line() {
    let (endpoint, _) = azure();
    // A container that does not exist.
    az_cmd(&endpoint)
        .args(["bandwidth", "1m", "-q", "az://no-such-container/x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no-such-container"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    // A wrong account key: refused, the account named, the key never shown.
    let wrong = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleQ==";
    az_cmd(&endpoint)
        .env("AZURE_STORAGE_ACCOUNT_KEY", wrong)
        .args(["bandwidth", "1m", "-q", "az://storebench-test/x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("account devstoreaccount1"))
        .stderr(predicate::str::contains(wrong).not());
}

// ---- GCS (fake-gcs-server) ----

fn gcs() -> (String, String) {
    let v = need(&["STOREBENCH_GCS_ENDPOINT", "STOREBENCH_GCS_BUCKET"]);
    (v[0].clone(), v[1].clone())
}

#[test]
#[ignore = "needs fake-gcs-server: scripts/test.sh starts it"]
fn conformance_reads_on_gcs_and_list() {
    let (endpoint, bucket) = gcs();
    let mut cfg = StoreConfig::default();
    cfg.set("fs.gs.storage.root.url", &endpoint, Origin::Flag);
    let t = open_target(&format!("gs://{bucket}/"), &cfg).unwrap();
    // Reads only: fake-gcs-server refuses the uploads object_store's GCS client makes ("invalid
    // uploadType"), so the write half of the suite cannot run against it.
    let done = conformance::run_reads(t.store.as_ref(), "seed-5m.bin", SEED_5M);
    eprintln!("GCS conformance (reads):\n  {}", done.join("\n  "));
    assert_eq!(conformance::claimed(&done), ["writable", "vectored_read", "prefetch"]);
    let names = t.store.list("").unwrap();
    assert!(names.contains(&"seed-5m.bin".to_string()) && names.contains(&"seed-1k.bin".to_string()), "{names:?}");
    assert_eq!(t.store.stat("no-such-object").unwrap(), None);
    assert!(matches!(t.store.open("no-such-object", &ReadOptions::default()), Err(StoreError::NotFound { .. })));
}

#[test]
#[ignore = "needs fake-gcs-server: scripts/test.sh starts it"]
fn bandwidth_read_only_on_gcs_every_policy() {
    let (endpoint, bucket) = gcs();
    let dir = tempfile::tempdir().unwrap();
    for (policy, gets) in [("whole-file", 1), ("sequential", 5), ("random", 5), ("prefetch", 5), ("vector", 2)] {
        let json = dir.path().join(format!("{policy}.json"));
        sb().args(["bandwidth", "5m", "--block", "1m", "--read-only", "-q", "--policy", policy])
            .args(["--endpoint", &endpoint, "--json"])
            .arg(&json)
            .arg(format!("gs://{bucket}/seed-5m.bin"))
            .assert()
            .success();
        let r = report(&json);
        assert_eq!((r.phases.len(), r.phases[0].bytes), (1, 5 << 20), "{policy}");
        assert_eq!(counter(&r, "download stream", "get_requests"), gets, "{policy}");
        assert_eq!(counter(&r, "store", "put_requests") + counter(&r, "store", "delete_requests"), 0);
    }
}

// ---- HTTP (a static web server) ----

fn http() -> String {
    need(&["STOREBENCH_HTTP_URL"]).remove(0)
}

#[test]
#[ignore = "needs a web server: scripts/test.sh starts one"]
fn conformance_reads_on_http_and_writes_refused() {
    let base = http();
    let t = open_target(&format!("{base}/"), &StoreConfig::default()).unwrap();
    let done = conformance::run_reads(t.store.as_ref(), "seed-5m.bin", SEED_5M);
    eprintln!("HTTP conformance (reads):\n  {}", done.join("\n  "));
    assert_eq!(conformance::claimed(&done), ["vectored_read", "prefetch"]);
    assert!(done.contains(&"writable: not claimed; create() refused as read-only".to_string()), "{done:?}");
    assert_eq!(t.store.stat("no-such-object").unwrap(), None);
    // bandwidth without --read-only says why it cannot write.
    sb().args(["bandwidth", "1m", "-q", &format!("{base}/new.bin")])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read-only"));
}

#[test]
#[ignore = "needs a web server: scripts/test.sh starts one"]
fn bandwidth_read_only_over_http() {
    let base = http();
    let json = tempfile::NamedTempFile::new().unwrap();
    sb().args(["bandwidth", "4m", "--block", "1m", "--read-only", "--policy", "random", "-v", "--json"])
        .arg(json.path())
        .arg(format!("{base}/seed-5m.bin"))
        .assert()
        .success()
        .stdout(predicate::str::contains("http_get=4"));
    let r = report(json.path());
    assert_eq!(r.phases[0].bytes, 4 << 20);
    assert_eq!(counter(&r, "store", "http_4xx") + counter(&r, "store", "http_5xx"), 0);
    // A missing object: one line naming it.
    sb().args(["bandwidth", "1m", "--read-only", "-q", &format!("{base}/missing.bin")])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.bin does not exist"));
}
