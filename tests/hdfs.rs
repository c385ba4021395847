//! Against a real HDFS on 127.0.0.1: Hadoop's MiniDFSCluster with 1 and with 3 DataNodes, started by
//! scripts/test.sh (scripts/hdfs-cluster.sh), which exports STOREBENCH_HDFS_*. The fault tests start
//! a private 3-DataNode cluster they can stop DataNodes of and put into safe mode. A plain `cargo test` lists these as ignored ("needs an HDFS
//! cluster"); the test script runs them with `--include-ignored`.
#![cfg(feature = "hdfs")]

mod common;

use common::{counter, need, report, sb as cmd, unique};
use predicates::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};
use storebench::stats::report::{RunReport, Status};
use storebench::store::config::{Origin, StoreConfig};
use storebench::store::{conformance, open_target, StoreError, WriteOptions};

struct Hdfs {
    one: String,
    three: String,
    conf: String,
}

fn cluster() -> Hdfs {
    let v = need(&["STOREBENCH_HDFS_URL", "STOREBENCH_HDFS3_URL", "STOREBENCH_HDFS_CONF"]);
    Hdfs { one: v[0].clone(), three: v[1].clone(), conf: v[2].clone() }
}

fn config(defs: &[&str]) -> StoreConfig {
    let mut c = StoreConfig::default();
    for d in defs {
        let (k, v) = d.split_once('=').unwrap();
        c.set(k, v, Origin::Flag);
    }
    c
}

#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn conformance_suite_on_one_and_three_datanodes() {
    let h = cluster();
    for (url, defs) in [(&h.one, vec![]), (&h.three, vec!["dfs.replication=3", "dfs.blocksize=64k"])] {
        let base = format!("/{}", unique("conformance"));
        let t = open_target(&format!("{url}{base}"), &config(&defs)).unwrap();
        assert_eq!(t.path, base);
        t.store.create_dir(&base).unwrap();
        assert!(matches!(t.store.create_dir(&base), Err(StoreError::AlreadyExists { .. })));
        let done = conformance::run_all(t.store.as_ref(), &base);
        eprintln!("HDFS conformance ({url}):\n  {}", done.join("\n  "));
        let want =
            ["writable", "hflush", "append", "atomic_rename", "directories", "conditional_create", "vectored_read"];
        assert_eq!(conformance::claimed(&done), want);
        // hdfs-native, unlike Hadoop's Java reader, does not ask a DataNode for the length of a block
        // still being written: a new reader sees none of the hflushed bytes before close.
        let hflush = done.iter().find(|l| l.starts_with("hflush")).unwrap();
        assert!(hflush.ends_with("saw 0 of 10000 hflushed bytes before close"), "{hflush}");
        // A missing parent is said as such, and nothing is created.
        let e = t.store.create(&format!("{base}/no/such/dir/f"), &WriteOptions::default()).err().unwrap();
        assert!(e.to_string().contains("parent directory does not exist"), "{e}");
        t.store.remove_dir(&base).unwrap();
        assert_eq!(t.store.stat(&base).unwrap(), None);
    }
}

#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn bandwidth_every_policy_with_hflush_and_hsync() {
    let h = cluster();
    let base = format!("/{}", unique("bw"));
    let t = open_target(&h.three, &StoreConfig::default()).unwrap();
    t.store.create_dir(&base).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (policy, extra) in [
        ("whole-file", vec!["--hflush"]),
        ("sequential", vec!["--fsync-on-close"]),
        ("random", vec![]),
        ("prefetch", vec![]),
        ("vector", vec![]),
    ] {
        let json = dir.path().join(format!("{policy}.json"));
        cmd()
            .args(["bandwidth", "6m", "--block", "1m", "--verify", "--rename", "-q", "--policy", policy])
            .args(["-D", "dfs.replication=2", "-D", "dfs.blocksize=2m", "--json"])
            .arg(&json)
            .args(&extra)
            .arg(format!("{}{base}/", h.three))
            .assert()
            .success();
        let r = report(&json);
        assert_eq!(r.outcome.status, Status::Completed, "{policy}");
        assert!(r.phases.iter().all(|p| p.bytes == 6 << 20 && p.blocks.count == 6), "{policy}");
        assert!(r.engine.contains("replication 2, block size 2 MiB"), "{}", r.engine);
        // 6 MiB in 2 MiB blocks; --hflush syncs after each of the 6 writes, --fsync-on-close once.
        assert_eq!(counter(&r, "store", "blocks_written"), 3);
        let hsyncs = match policy {
            "whole-file" => 6,
            "sequential" => 1,
            _ => 0,
        };
        assert_eq!(counter(&r, "upload stream", "hsync_calls"), hsyncs, "{policy}");
        assert_eq!(counter(&r, "store", "namenode_rename"), 1);
        assert_eq!(counter(&r, "store", "bytes_read"), 6 << 20, "{policy}");
    }
    // Every run removed its file, and only its file.
    assert!(t.store.list(&base).unwrap().is_empty());
    t.store.remove_dir(&base).unwrap();
}

/// The Doris seed's hdfs.conf, as written there (an HA nameservice with hadoop.username and base_dir),
/// pointing at the mini-cluster: nn1 is a dead address, so the client fails over to nn2.
#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn ops_every_operation_through_the_doris_conf_and_an_ha_nameservice() {
    let h = cluster();
    let nn = h.three.trim_start_matches("hdfs://").to_string();
    let prefix = unique("ops");
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("hdfs.conf");
    std::fs::write(
        &conf,
        format!(
            "fs.defaultFS=hdfs://sbns\nhadoop.username=root\ndfs.nameservices=sbns\ndfs.ha.namenodes.sbns=nn1,nn2\n\
             dfs.namenode.rpc-address.sbns.nn1=127.0.0.1:1\ndfs.namenode.rpc-address.sbns.nn2={nn}\n\
             dfs.client.failover.proxy.provider.sbns=org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider\n\
             base_dir=hdfs://sbns/{prefix}/\n"
        ),
    )
    .unwrap();
    let run = |op: &str, extra: &[&str]| -> RunReport {
        let json = dir.path().join(format!("{op}.json"));
        cmd()
            .args(["ops", "--operation", op, "--threads", "3", "--repeats", "1", "-q", "--fs_type=hdfs"])
            .arg(format!("--conf={}", conf.display()))
            .arg("--json")
            .arg(&json)
            .args(extra)
            .assert()
            .success();
        let r = report(&json);
        assert_eq!(r.outcome.status, Status::Completed, "{op}");
        r
    };
    // ops works in an existing directory, as the Doris tool does.
    let t = open_target(&format!("{}/{prefix}", h.three), &StoreConfig::default()).unwrap();
    t.store.create_dir(&t.path).unwrap();
    // The seed's own example: create_write, 1 MB per operation, 3 threads, 5 iterations; kept.
    let r = run("create_write", &["--file_size=1024000", "--iterations", "5", "--keep"]);
    let s = &r.ops_run().unwrap().repeats[0].summary;
    assert_eq!((s.ops, s.bytes), (15, 15 * 1_024_000));
    assert_eq!(counter(&r, "store", "namenode_create"), 15);
    let (f0, f1) = (format!("--file_path=hdfs://sbns/{prefix}/test_0"), format!("--file-path=/{prefix}/test_1"));
    for (op, extra) in [
        ("open_read", vec!["--duration", "300ms", "--file_size=1024000"]),
        ("exists", vec![]),
        ("stat", vec![]),
        ("list", vec![]),
        ("rename", vec!["--iterations", "2"]),
        ("prefetch_read", vec![f0.as_str(), "--buffer-size", "256k"]),
        ("single_read", vec![f1.as_str(), "--random", "--file-size", "64k", "--iterations", "5"]),
        ("delete", vec!["--iterations", "2"]),
    ] {
        let r = run(op, &extra);
        let s = &r.ops_run().unwrap().repeats[0].summary;
        assert!(s.ops >= 3 && s.errors == 0, "{op}: {s:?}");
        if op == "open_read" {
            assert_eq!(s.bytes, s.ops * 1_024_000);
        }
        if op == "single_read" {
            assert_eq!((s.ops, s.bytes), (15, 15 * (64 << 10)));
        }
    }
    assert_eq!(t.store.list(&t.path).unwrap(), ["test_0", "test_1", "test_2"]);
    for n in ["test_0", "test_1", "test_2"] {
        t.store.delete(&format!("{}/{n}", t.path)).unwrap();
    }
    t.store.remove_dir(&t.path).unwrap();
}

#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn ranges_every_strategy_with_verify() {
    let h = cluster();
    let json = tempfile::NamedTempFile::new().unwrap();
    let url = format!("{}/{}", h.one, unique("ranges"));
    cmd()
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
    assert!(run.strategies.iter().all(|s| s.verified), "{:?}", run.strategies);
    let t = open_target(&url, &StoreConfig::default()).unwrap();
    assert_eq!(t.store.stat(&t.path).unwrap(), None, "the test file went again");
}

/// hdfs:/// takes the NameNode from fs.defaultFS: from HADOOP_CONF_DIR, or from --xmlfile.
#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn default_fs_from_hadoop_conf_dir_and_xmlfile() {
    let h = cluster();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&h.conf, dir.path().join("core-site.xml")).unwrap();
    let path = format!("hdfs:///{}", unique("confdir"));
    cmd()
        .env("HADOOP_CONF_DIR", dir.path())
        .args(["bandwidth", "2m", "-q", &path])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning").not());
    cmd().args(["bandwidth", "2m", "-q", "--xmlfile", &h.conf, &path]).assert().success();
    // Without either, it says what is missing.
    cmd().args(["bandwidth", "2m", &path]).assert().code(2).stderr(predicate::str::contains("fs.defaultFS is not set"));
}

#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn unreachable_namenode_and_refused_user_fail_clearly() {
    let h = cluster();
    let started = Instant::now();
    cmd()
        .args(["bandwidth", "1m", "hdfs://127.0.0.1:1/x", "-D", "ipc.client.connect.retry.interval=100"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot reach the NameNode at 127.0.0.1:1"))
        .stderr(predicate::str::contains("tried 3 times"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    assert!(started.elapsed() < Duration::from_secs(20), "bounded retries took {:?}", started.elapsed());
    // A user without write permission on / is refused by the NameNode, in one line, exit 1.
    cmd()
        .env("HADOOP_USER_NAME", "nobody")
        .args(["bandwidth", "1m", &format!("{}/{}", h.one, unique("denied"))])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("permission denied"))
        .stderr(predicate::str::contains("user=nobody"));
}

/// A private 3-DataNode cluster the test controls (scripts/hdfs/HdfsCluster.java --control).
struct Private {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    url: String,
    _dir: tempfile::TempDir,
}

impl Private {
    fn start() -> Private {
        let v = need(&["STOREBENCH_HDFS_CLASSPATH", "STOREBENCH_HDFS_LOG4J"]);
        let (cp, log4j) = (&v[0], &v[1]);
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("java")
            .arg("-Xmx768m")
            .arg(format!("-Dlog4j.configuration=file:{log4j}"))
            .args(["-cp", cp, "HdfsCluster", "--datanodes", "3", "--control", "--dir"])
            .arg(dir.path().join("data"))
            .arg("--conf-out")
            .arg(dir.path().join("core-site.xml"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut p = Private { child, stdin, stdout, url: String::new(), _dir: dir };
        p.url = p.answer("ready ");
        p
    }

    /// The next line that starts with `prefix`, without the prefix.
    fn answer(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the private HDFS cluster exited");
            if let Some(rest) = line.trim().strip_prefix(prefix) {
                return rest.to_string();
            }
            assert!(!line.starts_with("error"), "cluster: {line}");
        }
    }

    fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        self.answer("ok ")
    }
}

impl Drop for Private {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Safe mode refuses writes with a one-line error; a DataNode dying mid-write (3 DataNodes,
/// replication 2) either leaves a complete, verified file or a one-line error saying why, never a hang
/// or a panic. What happened and what it cost is printed for the closing note.
#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn safe_mode_and_a_datanode_dying_mid_write() {
    let _ = cluster();
    let mut p = Private::start();
    p.send("safemode enter");
    cmd()
        .args(["bandwidth", "1m", &format!("{}/safe", p.url)])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("safe mode"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    p.send("safemode leave");

    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("dying.json");
    let started = Instant::now();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storebench"))
        .args(["bandwidth", "192m", "--block", "1m", "--verify", "-D", "dfs.replication=2", "-D", "dfs.blocksize=4m"])
        .arg("--json")
        .arg(&json)
        .arg(format!("{}/dying", p.url))
        .env_remove("HADOOP_CONF_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let stopped = p.send("stop-datanode 1");
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{stderr}");
    let r = report(&json);
    let upload = r.phases.iter().find(|ph| ph.name == "upload").unwrap();
    eprintln!(
        "DataNode death mid-write ({stopped}): exit {:?} after {:.2} s; upload {:.1} MB/s; {}",
        out.status.code(),
        started.elapsed().as_secs_f64(),
        upload.bytes as f64 / 1e6 / upload.duration_s.max(1e-9),
        stderr.lines().next().unwrap_or("no error")
    );
    match out.status.code() {
        // The write survived: every byte reads back as written.
        Some(0) => {
            assert_eq!(r.outcome.status, Status::Completed);
            assert!(stdout.contains("Download Summary"), "{stdout}");
            assert_eq!(r.phases.iter().find(|ph| ph.name == "download").unwrap().bytes, 192 << 20);
        }
        // Or it failed, said why in one line, kept its partial figures and removed its file.
        Some(1) => {
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert_ne!(r.outcome.status, Status::Completed);
            let t = open_target(&p.url, &StoreConfig::default()).unwrap();
            assert_eq!(t.store.stat("/dying").unwrap(), None);
        }
        other => panic!("exit {other:?}: {stderr}"),
    }
}

/// TestDFSIO's cycle on HDFS: -write, -read, -append, -clean, with the files checked in between.
#[test]
#[ignore = "needs an HDFS cluster: scripts/test.sh starts one"]
fn dfsio_write_read_append_clean() {
    let h = cluster();
    let root = format!("/{}/TestDFSIO", unique("dfsio"));
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("res.txt");
    let run = |mode: &str| {
        cmd()
            .args(["dfsio", mode, "-nrFiles", "4", "-fileSize", "2MB", "-bufferSize", "131072", "-q", "-resFile"])
            .arg(&res)
            .args(["-D", "dfs.replication=2", "-rootDir", &format!("{}{root}", h.three)])
            .assert()
            .success()
    };
    run("-write").stdout(predicate::str::contains("Total MBytes processed: 8.0"));
    let t = open_target(&h.three, &StoreConfig::default()).unwrap();
    for k in 0..4 {
        assert_eq!(t.store.stat(&format!("{root}/io_data/test_io_{k}")).unwrap().map(|m| m.size), Some(2 << 20));
    }
    run("-read").stdout(predicate::str::contains("----- TestDFSIO ----- : read"));
    run("-append");
    assert_eq!(t.store.stat(&format!("{root}/io_data/test_io_3")).unwrap().map(|m| m.size), Some(4 << 20));
    cmd().args(["dfsio", "-clean", "-rootDir", &format!("{}{root}", h.three)]).assert().success();
    assert_eq!(t.store.stat(&root).unwrap(), None);
    // -write made the root's parent too (it was missing), so its manifest lists it and -clean removes it.
    let parent = root.trim_end_matches("/TestDFSIO");
    assert_eq!(t.store.stat(parent).unwrap(), None);
}
