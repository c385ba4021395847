//! `storebench transfer`: every method moves the exact bytes (CRC32 on the receiver), unsupported
//! methods are reported, CPU figures are plausible, the two-process mode works, bad input is refused.

mod common;

use common::sb;
use predicates::prelude::*;
use std::io::{Read, Write};

fn runs(json: &std::path::Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    v["transfer"]["runs"].as_array().unwrap().clone()
}

fn cpu(r: &serde_json::Value, who: &str) -> f64 {
    r[who]["user_s"].as_f64().unwrap() + r[who]["system_s"].as_f64().unwrap()
}

#[test]
fn every_method_over_loopback_with_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("t.json");
    sb().args(["transfer", "--size", "48m", "--runs", "2", "--verify", "--buffer", "4k,128k", "--json"])
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("less CPU per GiB than read-write 4 KiB"));
    let rs = runs(&json);
    // (2 buffers of read-write + sendfile, splice, mmap, io-uring) x 2 runs.
    assert_eq!(rs.len(), 12);
    let ok: Vec<_> = rs.iter().filter(|r| r["status"] == "ok").collect();
    assert!(ok.iter().any(|r| r["method"] == "sendfile") && ok.iter().any(|r| r["method"] == "splice"));
    for r in &rs {
        let status = r["status"].as_str().unwrap();
        assert!(status == "ok" || status.starts_with("unsupported: "), "{r}");
    }
    let source_crc = ok[0]["crc32"].as_u64().unwrap();
    for r in &ok {
        assert_eq!(r["bytes"], 48 << 20, "{r}");
        assert_eq!(r["crc32"].as_u64(), Some(source_crc), "every method delivers the same bytes: {r}");
        let (s, wall) = (cpu(r, "sender"), r["wall_s"].as_f64().unwrap());
        // rusage ticks are a few ms: allow for them. One sending thread uses at most one core.
        assert!(s <= wall + 0.02, "{r}");
        assert!(r["receiver"]["system_s"].as_f64().unwrap() >= 0.0);
    }
    // Copying 48 MiB through a 4 KiB buffer costs measurable CPU; it is the baseline (100 %).
    let base: Vec<_> = ok.iter().filter(|r| r["method"] == "read-write" && r["buffer"] == 4096).collect();
    assert!(base.iter().all(|r| cpu(r, "sender") > 0.0));
    let pct: f64 = base.iter().map(|r| r["cpu_vs_baseline_pct"].as_f64().unwrap()).sum::<f64>() / base.len() as f64;
    assert!((pct - 100.0).abs() < 1e-6, "{pct}");
}

#[test]
fn file_to_file_and_unsupported_methods() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src.bin");
    std::fs::write(&src, (0..3_000_123u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>()).unwrap();
    let dest = tmp.path().join("copy.bin");
    let json = tmp.path().join("t.json");
    sb().arg("transfer")
        .arg(&src)
        .args(["--runs", "1", "--verify", "--buffer", "64k", "-q", "--method", "all", "--to-file"])
        .arg(&dest)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let rs = runs(&json);
    let names: Vec<&str> = rs.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(names, ["read-write", "copy-file-range", "splice", "mmap"]);
    assert!(rs.iter().filter(|r| r["status"] == "ok").all(|r| r["bytes"] == 3_000_123));
    assert!(!dest.exists(), "the copy is removed after each run");
    // Methods that do not apply are reported as unsupported, not run: sendfile and io-uring to a file,
    // copy-file-range to a socket, and everything but read-write with --direct.
    sb().arg("transfer")
        .arg(&src)
        .args(["--runs", "1", "--method", "sendfile,io-uring", "--to-file"])
        .arg(&dest)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("sendfile")
                .and(predicate::str::contains("unsupported: sendfile sends to sockets")),
        );
    sb().args([
        "transfer",
        "--size",
        "1m",
        "--runs",
        "1",
        "--method",
        "copy-file-range,sendfile",
        "--direct",
        "--buffer",
        "64k",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains("unsupported: copy_file_range copies between files only"))
    .stdout(predicate::str::contains("unsupported: only read-write reads with --direct"));
}

#[test]
fn two_processes_with_serve() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = std::process::Command::new(assert_cmd::cargo::cargo_bin("storebench"))
        .args(["transfer", "--serve", &format!("127.0.0.1:{port}"), "--max-connections", "2"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it listens.
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed().as_secs() < 20, "the receiver did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // That probe counted as one connection; one transfer remains.
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("t.json");
    sb().args(["transfer", "--size", "8m", "--runs", "1", "--method", "sendfile", "--verify", "--to"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let rs = runs(&json);
    assert_eq!((rs.len(), rs[0]["status"].as_str()), (1, Some("ok")));
    assert!(rs[0]["receiver"].is_object(), "the receiver reports its own CPU");
    assert!(server.wait().unwrap().success(), "the receiver stops after --max-connections");
}

#[test]
fn bad_input_and_broken_peers() {
    sb().args(["transfer", "/no/such/file"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open /no/such/file"));
    sb().args(["transfer", "--size", "1m", "--buffer", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid --buffer 0"));
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap();
    sb().args(["transfer", "--serve", &addr.to_string()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("cannot listen on {addr}")));
    drop(busy);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    sb().args(["transfer", "--size", "1m", "--runs", "1", "--to", &closed.to_string()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("cannot connect to the receiver at {closed}")));
    // A peer that takes the header and 64 KiB, then hangs up.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let a = l.local_addr().unwrap();
    let peer = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = vec![0u8; 13 + 65536];
        s.read_exact(&mut buf).unwrap();
        let _ = s.flush();
    });
    let out = sb()
        .args([
            "transfer",
            "--size",
            "64m",
            "--runs",
            "1",
            "--method",
            "read-write",
            "--buffer",
            "64k",
            "--to",
            &a.to_string(),
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    peer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dropped the connection after") && err.contains("of 67108864 bytes"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
