//! "Safe to run on a real system": storebench never touches what the run did not create, stops cleanly
//! on SIGINT, SIGTERM and SIGHUP, bounds every wait and every input. Each test plants the hostile
//! situation for real (device nodes, links, FIFOs, silent servers on 127.0.0.1, signals) and checks
//! what is left on disk afterwards.

mod common;

use common::sb;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[&str], env: &[(&str, &Path)]) -> Child {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("storebench"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// Waits at most `limit` for the child; kills it and fails past that.
fn wait_bounded(mut child: Child, limit: Duration) -> (i32, String, String) {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let code = status.code().unwrap_or(-1);
            return (code, String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into());
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("storebench did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mknod_char(p: &Path) -> bool {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: valid path; makes a /dev/null-like node (1,3) where root may.
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) == 0 }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A server on 127.0.0.1 that accepts every connection and never reads or answers.
fn silent_server() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in listener.incoming().flatten() {
            held.push(c);
        }
    });
    addr
}

fn one_line(err: &str) {
    assert_eq!(err.trim_end().lines().count(), 1, "one line expected: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
}

#[test]
fn overwrite_replaces_regular_files_only_never_a_device_fifo_or_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let victim = d.join("victim");
    std::fs::write(&victim, "user data").unwrap();
    symlink(&victim, d.join("link")).unwrap();
    mkfifo(&d.join("fifo"));
    let mut names = vec!["link", "fifo"];
    if mknod_char(&d.join("dev")) {
        names.push("dev");
    }
    for name in names {
        let p = d.join(name);
        let before = std::fs::symlink_metadata(&p).unwrap();
        let t0 = Instant::now();
        let out = sb().args(["bandwidth", "64k", "--overwrite", "-q"]).arg(&p).assert().failure().get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("regular files only"), "{name}: {err}");
        assert!(t0.elapsed() < Duration::from_secs(20), "{name}: a FIFO must not block");
        let after = std::fs::symlink_metadata(&p).expect("the node is still there");
        assert_eq!((before.ino(), before.mode()), (after.ino(), after.mode()), "{name} untouched");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "user data", "nothing written through the link");
}

#[test]
fn ops_mix_never_overwrites_or_deletes_the_users_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for k in 0..2 {
        std::fs::write(d.join(format!("test_{k}")), format!("mine {k}")).unwrap();
    }
    let out = sb()
        .args(["ops", "--mix", "open_read=50,create_write=30,stat=20", "--threads", "2", "--iterations", "20"])
        .args(["--file-size", "4k", "--repeats", "1", "--prepare"])
        .arg(d)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("create_write will not overwrite it"), "{err}");
    one_line(&err);
    for k in 0..2 {
        assert_eq!(std::fs::read_to_string(d.join(format!("test_{k}"))).unwrap(), format!("mine {k}"));
    }
    // The same mix in an empty directory runs, and leaves the directory as it found it.
    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    sb().args(["ops", "--mix", "open_read=50,create_write=30,stat=20", "--threads", "2", "--iterations", "20"])
        .args(["--file-size", "4k", "--repeats", "2", "--prepare", "-q"])
        .arg(&empty)
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // delete's files already there: the error does not suggest an option ops does not have.
    std::fs::write(d.join("test_0_0"), "mine").unwrap();
    let out = sb()
        .args(["ops", "--op", "delete", "--iterations", "1", "--threads", "1"])
        .arg(d)
        .assert()
        .failure()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("test_0_0 already exists") && !err.contains("--overwrite"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("test_0_0")).unwrap(), "mine");
}

#[test]
fn dfsio_writes_and_cleans_only_what_its_manifest_lists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("dfs");
    let data = root.join("io_data");
    std::fs::create_dir_all(&data).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    symlink(&victim, data.join("test_io_0")).unwrap();
    std::fs::write(data.join("test_io_00"), "mine").unwrap();
    let res = dir.path().join("res.log");
    let dfsio = |mode: &str| {
        let mut c = sb();
        c.args(["dfsio", mode, "-nrFiles", "2", "-fileSize", "64KB", "-resFile"]).arg(&res).arg("-rootDir").arg(&root);
        c
    };
    // A link planted at a task's name: refused, the victim untouched.
    let out = dfsio("-write").assert().failure().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no storebench manifest"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    std::fs::remove_file(data.join("test_io_0")).unwrap();
    // Two writes in a row: the second replaces the first's files (listed), then clean removes them.
    dfsio("-write").assert().success();
    dfsio("-write").assert().success();
    dfsio("-read").assert().success();
    assert!(root.join("storebench-dfsio.manifest").exists());
    dfsio("-clean").assert().success();
    assert!(!data.join("test_io_0").exists() && !data.join("test_io_1").exists());
    assert!(!root.join("storebench-dfsio.manifest").exists());
    assert_eq!(std::fs::read_to_string(data.join("test_io_00")).unwrap(), "mine", "a name it never made");
    // Without a manifest, -clean deletes nothing.
    std::fs::write(data.join("test_io_1"), "mine too").unwrap();
    dfsio("-clean").assert().success();
    assert_eq!(std::fs::read_to_string(data.join("test_io_1")).unwrap(), "mine too");
    // -append writes only to files a manifest lists.
    std::fs::write(data.join("test_io_0"), vec![0u8; 65536]).unwrap();
    std::fs::write(data.join("test_io_1"), vec![0u8; 65536]).unwrap();
    dfsio("-append").assert().failure();
    assert_eq!(std::fs::metadata(data.join("test_io_0")).unwrap().len(), 65536);
}

#[test]
fn dfsio_refuses_a_default_root_another_user_owns() {
    let tmp = tempfile::tempdir().unwrap();
    let bench = tmp.path().join("benchmarks");
    std::fs::create_dir(&bench).unwrap();
    // Another user's directory (root may chown; elsewhere, a link planted instead).
    let c = std::ffi::CString::new(bench.to_str().unwrap()).unwrap();
    // SAFETY: valid path.
    if unsafe { libc::chown(c.as_ptr(), 65534, 65534) } != 0 {
        std::fs::remove_dir(&bench).unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, &bench).unwrap();
    }
    let out = sb()
        .env("TMPDIR", tmp.path())
        .args(["dfsio", "-write", "-nrFiles", "1", "-fileSize", "4KB", "-resFile"])
        .arg(tmp.path().join("r.log"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give -rootDir"), "{err}");
    one_line(&err);
    assert!(!bench.join("TestDFSIO").exists());
}

#[test]
fn sigterm_and_sighup_stop_clean_up_and_keep_a_report() {
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129), (libc::SIGINT, 130)] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let child = spawn(
            &[
                "bandwidth",
                "4g",
                "--block",
                "1m",
                "--fsync-on-close",
                "--json",
                json.to_str().unwrap(),
                work.to_str().unwrap(),
            ],
            &[],
        );
        std::thread::sleep(Duration::from_millis(700));
        signal(&child, sig);
        let (rc, _, err) = wait_bounded(child, Duration::from_secs(60));
        assert_eq!(rc, code, "signal {sig}: {err}");
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "signal {sig}: the run directory is removed");
        let text = std::fs::read_to_string(&json).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["outcome"]["status"], "interrupted", "{text}");
    }
}

#[test]
fn sigterm_removes_ops_files_and_transfers_test_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let runs: [(&[&str], &Path); 2] = [
        (
            &[
                "ops",
                "--op",
                "create_write",
                "--threads",
                "2",
                "--duration",
                "60s",
                "--file-size",
                "1m",
                work.to_str().unwrap(),
            ],
            &work,
        ),
        (&["transfer", "--size", "3g", "--method", "read-write", "--buffer", "4k", "--runs", "50"], &tmp),
    ];
    for (args, left) in runs {
        let child = spawn(args, &[("TMPDIR", &tmp)]);
        std::thread::sleep(Duration::from_millis(1500));
        signal(&child, libc::SIGTERM);
        let (rc, _, err) = wait_bounded(child, Duration::from_secs(90));
        assert_eq!(rc, 143, "{args:?}: {err}");
        let names: Vec<_> = std::fs::read_dir(left).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(names.is_empty(), "{args:?} left {names:?}");
    }
}

#[test]
fn an_interrupted_dfsio_appends_nothing_to_the_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("res.log");
    let root = dir.path().join("r");
    let child = spawn(
        &[
            "dfsio",
            "-write",
            "-nrFiles",
            "2",
            "-fileSize",
            "3GB",
            "--threads",
            "1",
            "-resFile",
            res.to_str().unwrap(),
            "-rootDir",
            root.to_str().unwrap(),
        ],
        &[],
    );
    std::thread::sleep(Duration::from_millis(700));
    signal(&child, libc::SIGTERM);
    let (rc, _, err) = wait_bounded(child, Duration::from_secs(60));
    assert_eq!(rc, 143, "{err}");
    assert!(!res.exists() || !std::fs::read_to_string(&res).unwrap().contains("NaN"));
    assert!(!res.exists(), "nothing appended");
    assert!(err.contains("nothing was appended"), "{err}");
}

#[test]
fn a_slow_rate_notices_a_signal_at_once() {
    let child =
        spawn(&["ops", "--op", "stat", "--rate", "0.001", "--iterations", "5", "--prepare", "memory://rate/"], &[]);
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    signal(&child, libc::SIGINT);
    let (rc, _, err) = wait_bounded(child, Duration::from_secs(20));
    assert_eq!(rc, 130, "{err}");
    assert!(t0.elapsed() < Duration::from_secs(5), "stopped in {:?}", t0.elapsed());
}

#[test]
fn bad_numbers_and_huge_inputs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep.xml");
    std::fs::write(&deep, "<a>".repeat(20_000) + &"</a>".repeat(20_000)).unwrap();
    let big = dir.path().join("big.conf");
    std::fs::write(&big, "k=v\n".repeat(300_000)).unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let cases: Vec<Vec<String>> = vec![
        vec!["ops", "--op", "stat", "--rate", "1e-20", "memory://x/"],
        vec!["ops", "--op", "stat", "--duration", "18446744073709551615s", "memory://x/"],
        vec!["ranges", "--prepare", "1m", "--range", "5,18446744073709551615", "memory://r/o"],
        vec!["ranges", "--prepare", "1m", "--range", "0-18446744073709551615", "memory://r/o"],
        vec!["ranges", "--prepare", "1m", "--range", "18446744073709551615,2", "memory://r/o"],
        vec!["ranges", "--prepare", "1m", "--generate", "1000000000:1", "memory://r/o"],
        vec!["ranges", "--prepare", "1m", "--range", "0-9", "--concurrency", "100000000", "memory://r/o"],
        vec!["bandwidth", "1t", "memory://b/"],
        vec!["bandwidth", "1m", "--xmlfile", "/dev/zero", "memory://b/"],
        vec!["bandwidth", "1m", "--xmlfile", deep.to_str().unwrap(), "memory://b/"],
        vec!["bandwidth", "1m", "--xmlfile", fifo.to_str().unwrap(), "memory://b/"],
        vec!["ops", "--op", "stat", "--conf", big.to_str().unwrap(), "memory://x/"],
        vec!["ranges", "--ranges", "/dev/zero", "--prepare", "1m", "memory://r/o"],
        vec!["transfer", "--size", "0"],
        vec!["transfer", "/proc/self/status"],
        vec!["transfer", "--serve", "0", "--max-connections", "0"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect();
    for args in cases {
        let t0 = Instant::now();
        let out = sb().args(&args).assert().code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        one_line(&err);
        assert!(t0.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", t0.elapsed());
    }
}

#[test]
fn a_silent_endpoint_is_given_up_on_naming_the_key() {
    let addr = silent_server();
    let endpoint = format!("http://user:SECRETPASS@{addr}");
    for args in [vec!["bandwidth", "1m", "s3://bucket/x"], vec!["ranges", "--range", "0-9", "s3://bucket/x"]] {
        let t0 = Instant::now();
        let out = sb()
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .args(&args)
            .args(["--endpoint", &endpoint, "-D", "fs.s3a.connection.timeout=1s", "-D", "fs.s3a.attempts.maximum=0"])
            .assert()
            .failure()
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("no answer from {addr} in 1 s (set by fs.s3a.connection.timeout)")), "{err}");
        assert!(!err.contains("SECRETPASS"), "{err}");
        assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    }
}

#[test]
fn transfer_bounds_its_waits_and_listens_on_loopback() {
    // A receiver that accepts and never reads: the sender gives up after --timeout.
    let addr = silent_server();
    let tmp = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let out = sb()
        .env("TMPDIR", tmp.path())
        .args([
            "transfer",
            "--size",
            "64m",
            "--method",
            "read-write",
            "--buffer",
            "1m",
            "--runs",
            "1",
            "--timeout",
            "2",
        ])
        .args(["--to", &addr.to_string()])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no answer from the receiver"), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(40));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "the test file is removed");

    // --serve listens on 127.0.0.1 by default; an idle client does not hold up a sender; SIGINT ends it.
    let server = spawn(&["transfer", "--serve", "0", "--timeout", "30"], &[]);
    let mut server = server;
    let mut line = String::new();
    // The reader stays open until the server ends: it still writes its last line on SIGINT.
    let mut stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    assert!(line.contains("receiving on 127.0.0.1:"), "{line}");
    let port = line.trim().rsplit(':').next().unwrap().to_string();
    let _idle = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    sb().env("TMPDIR", tmp.path())
        .args(["transfer", "--size", "4m", "--method", "sendfile", "--runs", "1", "--verify", "-q"])
        .args(["--to", &format!("127.0.0.1:{port}")])
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    signal(&server, libc::SIGINT);
    let (rc, _, _) = wait_bounded(server, Duration::from_secs(40));
    drop(stderr);
    assert_eq!(rc, 130);
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn wrong_or_empty_inputs_are_refused_not_reported_as_fine() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("six");
    std::fs::write(&small, "6bytes").unwrap();
    // A file shorter than one read is an error, not "CPU 255730 s/GiB".
    let out = sb()
        .args(["ops", "--op", "single_read", "--random", "--file-size", "4k", "--iterations", "3", "--repeats", "1"])
        .arg("--file-path")
        .arg(&small)
        .arg(dir.path())
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("fewer than one --file-size read"), "{out:?}");
    // A directory, an empty file: refused as such.
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    for (f, needle) in [(dir.path(), "is a directory"), (empty.as_path(), "is empty")] {
        let out = sb().arg("transfer").arg(f).assert().code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && !err.contains("receiver"), "{err}");
    }
    // file:// URLs are percent-decoded.
    let url = format!("file://{}/a%20b", dir.path().display());
    sb().args(["bandwidth", "64k", "--keep", "-q", &url]).assert().success();
    assert_eq!(std::fs::metadata(dir.path().join("a b")).unwrap().len(), 65536);
    // A run refused at its first check still writes its --json report, with the error.
    let json = dir.path().join("r.json");
    sb().args(["bandwidth", "64k", "-q", "--json"]).arg(&json).arg(dir.path().join("a b")).assert().code(1);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["outcome"]["status"], "failed");
    assert!(v["outcome"]["error"].as_str().unwrap().contains("already exists"));
}

#[test]
fn no_credentials_says_where_it_looked_without_asking_the_network() {
    // Instance metadata is turned off here, so nothing leaves the machine; the errors say where
    // storebench looked.
    let home = tempfile::tempdir().unwrap();
    for (url, needle) in [
        ("s3://bucket/x", "no credentials found (looked in: env, profile"),
        ("gs://bucket/x", "no GCS credentials found"),
        ("az://container/x", "no Azure credentials found"),
    ] {
        let mut c = sb();
        for v in [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT",
            "AWS_PROFILE",
            "STORAGE_EMULATOR_HOST",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AZURE_STORAGE_ACCOUNT_KEY",
            "AZURE_STORAGE_SAS_TOKEN",
            "AZURE_STORAGE_ENDPOINT",
            "AZURE_STORAGE_USE_EMULATOR",
        ] {
            c.env_remove(v);
        }
        let out = c
            .env("HOME", home.path())
            .env("STOREBENCH_NO_INSTANCE_METADATA", "true")
            .env("AZURE_STORAGE_ACCOUNT_NAME", "acct")
            .args(["bandwidth", "1m", url])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && err.contains("instance metadata is disabled"), "{url}: {err}");
        one_line(&err);
    }
}
