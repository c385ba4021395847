//! gs://, az:// and http(s):// against real servers on 127.0.0.1 started by scripts/test.sh (via
//! scripts/object-servers.sh): Azurite, fake-gcs-server and a static web server. Under the test script
//! (STOREBENCH_REQUIRE_S3=1) a missing server is a failure; run alone, the tests say they were skipped.
#![cfg(feature = "s3")]

use assert_cmd::Command;
use predicates::prelude::*;
use storebench::stats::report::{RunReport, Status};
use storebench::store::config::{Origin, StoreConfig};
use storebench::store::{conformance, open_target, ReadOptions, Store, StoreError};

fn env(keys: &[&str]) -> Option<Vec<String>> {
    let vals: Option<Vec<String>> = keys.iter().map(|k| std::env::var(k).ok()).collect();
    if vals.is_none() {
        assert!(
            std::env::var("STOREBENCH_REQUIRE_S3").is_err(),
            "STOREBENCH_REQUIRE_S3 is set but {keys:?} are not: scripts/object-servers.sh did not start them"
        );
        eprintln!("SKIPPED: no server for {keys:?}; run ./scripts/test.sh");
    }
    vals
}

fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    )
}

fn report(path: &std::path::Path) -> RunReport {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn counter(r: &RunReport, scope: &str, name: &str) -> u64 {
    let g = r.counters.iter().find(|g| g.scope == scope).unwrap();
    g.counters.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or_else(|| panic!("no {name} in {g:?}"))
}

/// The seeded objects hold byte i % 251 at offset i.
fn check_seeded(store: &dyn Store, path: &str, len: u64) {
    assert_eq!(store.stat(path).unwrap().map(|m| (m.size, m.is_dir)), Some((len, false)));
    let mut r = store.open(path, &ReadOptions::default()).unwrap();
    let mut buf = vec![0u8; 1000];
    for offset in [0, 251 * 1000 + 7, len - 1000] {
        assert_eq!(r.read_at(offset, &mut buf).unwrap().bytes, 1000);
        assert!(buf.iter().enumerate().all(|(i, &b)| b as u64 == (offset + i as u64) % 251), "at {offset}");
    }
    // A read past the end gets nothing; one across it gets what is there.
    assert_eq!(r.read_at(len, &mut buf).unwrap().bytes, 0);
    assert_eq!(r.read_at(len - 10, &mut buf).unwrap().bytes, 10);
    // Vectored: three ranges, two of them adjacent.
    let (mut a, mut b, mut c) = (vec![0u8; 100], vec![0u8; 100], vec![0u8; 50]);
    let got = r.read_vector(&[0, 100, len - 50], &mut [&mut a, &mut b, &mut c]).unwrap();
    assert_eq!(got, [100, 100, 50]);
    assert!(b.iter().enumerate().all(|(i, &x)| x as u64 == (100 + i as u64) % 251));
    assert!(c.iter().enumerate().all(|(i, &x)| x as u64 == (len - 50 + i as u64) % 251));
    r.close().unwrap();
}

const SEED_5M: u64 = 5 * 1024 * 1024 + 123;

// ---- Azure Blob (Azurite) ----

fn azure() -> Option<(String, String)> {
    env(&["STOREBENCH_AZ_ENDPOINT", "STOREBENCH_AZ_CONTAINER"]).map(|v| (v[0].clone(), v[1].clone()))
}

fn az_cmd(endpoint: &str) -> Command {
    let mut c = Command::cargo_bin("storebench").unwrap();
    c.env("AZURE_STORAGE_USE_EMULATOR", "true").env("AZURE_STORAGE_ENDPOINT", endpoint);
    c
}

#[test]
fn conformance_suite_on_azure() {
    let Some((endpoint, container)) = azure() else { return };
    let mut cfg = StoreConfig::default();
    cfg.set("fs.azure.use.emulator", "true", Origin::Flag);
    cfg.set("fs.azure.endpoint", &endpoint, Origin::Flag);
    cfg.set("storebench.multipart.size", "1m", Origin::Flag);
    let prefix = unique("conformance");
    let t = open_target(&format!("az://{container}/{prefix}"), &cfg).unwrap();
    conformance::run_all(t.store.as_ref(), &prefix);
    conformance::create_race_keeps_the_other_writer(t.store.as_ref(), &prefix);
}

#[test]
fn bandwidth_on_azure_every_policy_with_block_uploads() {
    let Some((endpoint, container)) = azure() else { return };
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
fn azure_errors_are_one_line() {
    let Some((endpoint, _)) = azure() else { return };
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

fn gcs() -> Option<(String, String)> {
    env(&["STOREBENCH_GCS_ENDPOINT", "STOREBENCH_GCS_BUCKET"]).map(|v| (v[0].clone(), v[1].clone()))
}

#[test]
fn gcs_reads_stat_list_and_ranges() {
    let Some((endpoint, bucket)) = gcs() else { return };
    let mut cfg = StoreConfig::default();
    cfg.set("fs.gs.storage.root.url", &endpoint, Origin::Flag);
    let t = open_target(&format!("gs://{bucket}/"), &cfg).unwrap();
    check_seeded(t.store.as_ref(), "seed-5m.bin", SEED_5M);
    let names = t.store.list("").unwrap();
    assert!(names.contains(&"seed-5m.bin".to_string()) && names.contains(&"seed-1k.bin".to_string()), "{names:?}");
    assert_eq!(t.store.stat("no-such-object").unwrap(), None);
    assert!(matches!(t.store.open("no-such-object", &ReadOptions::default()), Err(StoreError::NotFound { .. })));
}

#[test]
fn bandwidth_read_only_on_gcs_every_policy() {
    let Some((endpoint, bucket)) = gcs() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (policy, gets) in [("whole-file", 1), ("sequential", 5), ("random", 5), ("prefetch", 5), ("vector", 2)] {
        let json = dir.path().join(format!("{policy}.json"));
        Command::cargo_bin("storebench")
            .unwrap()
            .args(["bandwidth", "5m", "--block", "1m", "--read-only", "-q", "--policy", policy])
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

fn http() -> Option<String> {
    env(&["STOREBENCH_HTTP_URL"]).map(|v| v[0].clone())
}

#[test]
fn http_reads_ranges_and_refuses_writes() {
    let Some(base) = http() else { return };
    let t = open_target(&format!("{base}/"), &StoreConfig::default()).unwrap();
    check_seeded(t.store.as_ref(), "seed-5m.bin", SEED_5M);
    assert_eq!(t.store.stat("no-such-object").unwrap(), None);
    match t.store.create("x", &Default::default()) {
        Err(StoreError::Unsupported(m)) => assert!(m.contains("read-only"), "{m}"),
        other => panic!("create on http:// should be refused, got {:?}", other.err()),
    }
    // bandwidth without --read-only says why it cannot write.
    Command::cargo_bin("storebench")
        .unwrap()
        .args(["bandwidth", "1m", "-q", &format!("{base}/new.bin")])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read-only"));
}

#[test]
fn bandwidth_read_only_over_http() {
    let Some(base) = http() else { return };
    let json = tempfile::NamedTempFile::new().unwrap();
    Command::cargo_bin("storebench")
        .unwrap()
        .args(["bandwidth", "4m", "--block", "1m", "--read-only", "--policy", "random", "-v", "--json"])
        .arg(json.path())
        .arg(format!("{base}/seed-5m.bin"))
        .assert()
        .success()
        .stdout(predicate::str::contains("http_get=4"));
    let r = report(json.path());
    assert_eq!(r.phases[0].bytes, 4 << 20);
    assert_eq!(counter(&r, "store", "http_4xx") + counter(&r, "store", "http_5xx"), 0);
    // A missing object: one line naming it.
    Command::cargo_bin("storebench")
        .unwrap()
        .args(["bandwidth", "1m", "--read-only", "-q", &format!("{base}/missing.bin")])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.bin does not exist"));
}
