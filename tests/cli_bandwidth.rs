//! `storebench bandwidth` end to end: the real binary on real local files.

mod common;

use common::sb;
use predicates::prelude::*;
use std::path::Path;
use storebench::export::{exporter, Format};
use storebench::stats::report::{RunReport, Status};

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn default_target_is_a_fresh_temp_dir_that_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    sb().env("TMPDIR", tmp.path())
        .args(["bandwidth", "1m", "--block", "256k", "--verify", "-q"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Upload Summary"))
        .stdout(predicate::str::contains("Download Summary"))
        .stdout(predicate::str::contains("Data size 1,048,576 bytes"))
        .stdout(predicate::str::contains("Blocks uploaded (ignoring close() overhead): 4:"));
    assert!(entries(tmp.path()).is_empty(), "left behind: {:?}", entries(tmp.path()));
}

#[test]
fn cloudstore_spellings_csv_and_json_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("data.bin");
    let csv = tmp.path().join("log.csv");
    let json = tmp.path().join("report.json");
    sb().args(["bandwidth", "-csv"])
        .arg(&csv)
        .args(["-block", "1", "-keep", "-verbose", "-policy", "sequential", "--json"])
        .arg(&json)
        .arg("4m")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("Write block 3 in"))
        .stdout(predicate::str::contains("Read block 3 (offset 3,145,728)"))
        .stdout(predicate::str::contains("CSV formatted data saved to"));
    // -keep: the file stays, whole.
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 4 << 20);
    let log = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "\"operation\",\"bytes\",\"total\",\"duration\"");
    let ops: Vec<&str> = lines[1..].iter().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(
        ops,
        [
            "\"create-file\"",
            "\"upload-block\"",
            "\"upload-block\"",
            "\"upload-block\"",
            "\"upload-block\"",
            "\"close-upload\"",
            "\"upload\"",
            "\"open-for-download\"",
            "\"download-block\"",
            "\"download-block\"",
            "\"download-block\"",
            "\"download-block\"",
            "\"download\""
        ]
    );
    // -block 1 means 1 MiB; totals run up to the size.
    assert!(lines[5].starts_with("\"upload-block\",1048576,4194304,"), "{}", lines[5]);
    assert!(lines[7].starts_with("\"upload\",4194304,4194304,"), "{}", lines[7]);
    // The streamed CSV equals the exporter's rendering of the JSON report's events.
    let report: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(exporter(Format::Csv, false, false).render(&report), log);
    assert_eq!(report.schema_version, 2);
    assert_eq!(report.outcome.status, Status::Completed);
    assert_eq!(report.phases.len(), 2);
    assert!(report.phases.iter().all(|p| p.bytes == 4 << 20 && p.blocks.count == 4 && p.complete));
    // The one process's phases as tasks, with its rank and host; the same figures as the phases.
    assert_eq!(report.tasks.len(), 2);
    for (t, p) in report.tasks.iter().zip(&report.phases) {
        assert_eq!((t.task.as_str(), t.rank, t.bytes, t.ops), (p.name.as_str(), 0, p.bytes, 4));
        assert!((t.seconds - p.duration_s).abs() < 1e-12 && (t.mib_per_s - p.mbyte_per_s).abs() < 1e-9);
        assert_eq!(t.host, report.host);
    }
    // The phase duration covers its parts: open + blocks + close <= duration.
    for p in &report.phases {
        let parts = p.open_s.unwrap() + p.blocks.total_s + p.close_s.unwrap();
        assert!(parts <= p.duration_s + 1e-6, "{} parts {parts} > duration {}", p.name, p.duration_s);
        let mb = (4u64 << 20) as f64 / 1_048_576.0 / p.duration_s;
        assert!((p.mbyte_per_s - mb).abs() / mb < 1e-9);
        assert!((p.mbit_per_s - 8.0 * mb).abs() / mb < 1e-9);
    }
}

#[test]
fn directory_target_gets_a_run_dir_and_neighbours_survive() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("precious.txt"), "keep me").unwrap();
    std::fs::write(tmp.path().join("bandwidth.dat"), "not storebench's").unwrap();
    for policy in ["whole-file", "sequential", "random", "prefetch"] {
        sb().args(["bandwidth", "3m", "--block", "1m", "--rename", "--verify", "-q", "--policy", policy])
            .arg(tmp.path())
            .assert()
            .success()
            .stdout(predicate::str::contains("rename duration"));
    }
    assert_eq!(entries(tmp.path()), ["bandwidth.dat", "precious.txt"]);
    assert_eq!(std::fs::read_to_string(tmp.path().join("bandwidth.dat")).unwrap(), "not storebench's");
}

#[test]
fn existing_file_is_refused_unless_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("existing");
    std::fs::write(&f, "user data").unwrap();
    let (json, csv) = (tmp.path().join("r.json"), tmp.path().join("r.csv"));
    sb().args(["bandwidth", "64k", "--block", "16k", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already exists; pass --overwrite"))
        .stdout(predicate::str::is_empty());
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "user data");
    // Nothing ran: no empty CSV is left behind, and the JSON report says why the run stopped.
    assert!(!csv.exists());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["outcome"]["status"], "failed");
    assert!(v["outcome"]["error"].as_str().unwrap().contains("already exists"), "{v}");
    sb().args(["bandwidth", "64k", "--block", "16k", "--overwrite", "--keep", "-q"]).arg(&f).assert().success();
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 65536);
}

#[test]
fn rename_never_replaces_an_existing_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("d");
    std::fs::write(tmp.path().join("d.renamed"), "theirs").unwrap();
    sb().args(["bandwidth", "64k", "--block", "16k", "--rename", "-q"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("will not replace it"));
    assert_eq!(std::fs::read_to_string(tmp.path().join("d.renamed")).unwrap(), "theirs");
    assert!(!f.exists(), "storebench's own file is cleaned up");
}

fn usage_error(args: &[&str], needle: &str) {
    let out = sb().args(args).assert().code(2).stdout(predicate::str::is_empty()).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "expected {needle:?} in {err:?}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"));
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    usage_error(&["bandwidth", "12x"], "invalid size '12x'");
    usage_error(&["bandwidth", "0"], "invalid SIZE '0'");
    usage_error(&["bandwidth", "1m", "--block", "0"], "invalid --block '0'");
    usage_error(&["bandwidth", "1m", "--block", "2m"], "is larger than SIZE");
    usage_error(&["bandwidth", "1m", "--block", "-3"], "-3");
    usage_error(&["bandwidth", "1m", "foo://x/y"], "unknown URL scheme 'foo://'");
    usage_error(&["bandwidth", "1m", "hdfs:///x"], "fs.defaultFS is not set");
    usage_error(&["bandwidth", "1m", "az://c/x"], "no Azure storage account");
    usage_error(&["bandwidth", "1m", "memory://x/", "--direct"], "--direct is not possible on memory://");
    usage_error(&["bandwidth", "1m", "memory://x/", "--hflush"], "--hflush is not possible on memory://");
    usage_error(&["bandwidth", "10000", "--block", "4096", "--direct"], "multiple of 4096");
    usage_error(&["bandwidth", "1m", "--policy", "backwards"], "backwards");
    usage_error(&["bandwidth", "1m", "--policy", "prefetch", "--prefetch", "0"], "invalid --prefetch '0'");
    usage_error(&["bandwidth", "1m", "-D", "novalue"], "expected key=value");
    usage_error(&["bandwidth"], "SIZE");
    usage_error(&["frobnicate"], "frobnicate");
    usage_error(&["bandwidth", "1m", "--xmlfile", "/nonexistent/core-site.xml"], "/nonexistent/core-site.xml");
    usage_error(&["bandwidth", "1m", "--csv", "/nonexistent/dir/x.csv"], "cannot create the CSV file");
}

#[test]
fn missing_parent_and_missing_dir() {
    sb().args(["bandwidth", "64k", "--block", "16k", "/nonexistent-dir/file"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("parent directory /nonexistent-dir does not exist"));
    sb().args(["bandwidth", "64k", "--block", "16k", "/nonexistent-dir/"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("directory /nonexistent-dir/ does not exist"));
}

#[test]
fn help_and_version() {
    sb().arg("--help").assert().success().stdout(predicate::str::contains("bandwidth"));
    sb().args(["bandwidth", "--help"]).assert().success().stdout(predicate::str::contains("binary suffixes"));
    sb().arg("--version").assert().success().stdout(predicate::str::contains("storebench"));
}

#[test]
fn memory_store_runs() {
    for policy in ["whole-file", "prefetch"] {
        sb().args(["bandwidth", "8m", "--block", "1m", "--verify", "memory://bench/", "--policy", policy])
            .assert()
            .success()
            .stdout(predicate::str::contains("Engine: memcpy into process memory"));
    }
}

#[test]
fn secrets_never_appear() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("s.csv");
    let json = tmp.path().join("s.json");
    let xml = tmp.path().join("core-site.xml");
    std::fs::write(
        &xml,
        "<configuration><property><name>fs.s3a.access.key</name><value>XmlSecretValue987</value></property></configuration>",
    )
    .unwrap();
    let out = sb()
        .args(["bandwidth", "64k", "--block", "16k", "-v", "-D", "fs.s3a.secret.key=SuperSecret123", "--xmlfile"])
        .arg(&xml)
        .arg("--csv")
        .arg(&csv)
        .arg("--json")
        .arg(&json)
        .arg(tmp.path())
        .assert()
        .success()
        .stderr(predicate::str::contains("fs.s3a.secret.key"))
        .get_output()
        .clone();
    let everything = [out.stdout, out.stderr, std::fs::read(&csv).unwrap(), std::fs::read(&json).unwrap()].concat();
    let text = String::from_utf8_lossy(&everything);
    assert!(!text.contains("SuperSecret123") && !text.contains("XmlSecretValue987"));
    // Also in the error path.
    sb().args(["bandwidth", "64k", "-D", "fs.s3a.secret.key"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("fs.s3a.secret.key"));
}

/// A file-size limit (RLIMIT_FSIZE) makes writes fail midway, as a full disk does, without root.
#[test]
fn write_failure_midway_keeps_partial_results_and_removes_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("partial.csv");
    let json = tmp.path().join("partial.json");
    let bin = assert_cmd::cargo::cargo_bin("storebench");
    let script = format!(
        "trap '' XFSZ; ulimit -f 2048; exec '{}' bandwidth 4m --block 256k --csv '{}' --json '{}' '{}'",
        bin.display(),
        csv.display(),
        json.display(),
        tmp.path().join("data").display()
    );
    let out = assert_cmd::Command::new("sh").args(["-c", &script]).assert().code(1).get_output().clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("upload failed after 1048576 bytes"), "{stderr}");
    assert!(stdout.contains("INCOMPLETE: the upload did not finish"), "{stdout}");
    assert!(stdout.contains("Data size 1,048,576 bytes"), "{stdout}");
    assert!(stdout.contains("RUN FAILED"), "{stdout}");
    let log = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("\"upload-block\"")).count(), 4, "{log}");
    let report: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.outcome.status, Status::Failed);
    assert_eq!(report.phases[0].blocks.errors, 1);
    assert!(!tmp.path().join("data").exists(), "the partial file is removed");
}

/// A really full disk: a 1 MiB tmpfs (needs root and mount; said so when skipped).
#[test]
fn disk_full_on_a_small_tmpfs() {
    if !is_root() {
        eprintln!("SKIPPED disk_full_on_a_small_tmpfs: needs root to mount a tmpfs");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&mnt)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED disk_full_on_a_small_tmpfs: mount -t tmpfs is not permitted here");
        return;
    }
    // A SIZE larger than the free space is refused before a byte is written (the disk is never
    // filled to find out).
    let out = sb().args(["bandwidth", "4m", "--block", "256k", "--keep"]).arg(mnt.join("f")).output().unwrap();
    let f_exists = mnt.join("f").exists();
    // Space taken by someone else during the run: the write hits ENOSPC and says so. A writer fills
    // the tmpfs while storebench writes slowly (--fsync-on-close keeps the blocks small and timed).
    let filler = mnt.join("filler");
    let out2 = {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("storebench"))
            .args(["bandwidth", "900k", "--block", "4k", "--flush"])
            .arg(mnt.join("g"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let _ = std::fs::write(&filler, vec![1u8; 900 << 10]);
        child.wait_with_output().unwrap()
    };
    let g_exists = mnt.join("g").exists();
    let _ = std::process::Command::new("umount").arg(&mnt).status();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not fit") && err.contains("free"), "{err}");
    assert!(!f_exists, "nothing written");
    if out2.status.code() == Some(1) {
        let err = String::from_utf8_lossy(&out2.stderr);
        assert!(err.contains("no space left on the device") || err.contains("does not fit"), "{err}");
    }
    assert!(!g_exists, "without --keep the partial file is removed");
}

/// O_DIRECT on a filesystem that refuses it (ramfs) is a clear error, never a silent fallback.
#[test]
fn direct_refused_by_the_filesystem() {
    if !is_root() {
        eprintln!("SKIPPED direct_refused_by_the_filesystem: needs root to mount a ramfs");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mnt = tmp.path().join("ram");
    std::fs::create_dir(&mnt).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(&mnt)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED direct_refused_by_the_filesystem: mount -t ramfs is not permitted here");
        return;
    }
    let out = sb().args(["bandwidth", "64k", "--block", "16k", "--direct"]).arg(&mnt).output().unwrap();
    let left = entries(&mnt);
    let _ = std::process::Command::new("umount").arg(&mnt).status();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refuses O_DIRECT") && err.contains("drop --direct"), "{err}");
    assert!(left.is_empty(), "nothing left behind: {left:?}");
}

#[test]
fn direct_io_works_where_supported() {
    let tmp = tempfile::tempdir_in(".").unwrap();
    sb().args([
        "bandwidth",
        "1m",
        "--block",
        "64k",
        "--direct",
        "--verify",
        "--flush",
        "--hflush",
        "--fsync-on-close",
        "-v",
    ])
    .arg(tmp.path())
    .assert()
    .success()
    .stdout(predicate::str::contains("O_DIRECT"))
    .stdout(predicate::str::contains("fdatasync_calls=16"))
    .stdout(predicate::str::contains("fsync_calls=1"));
}

#[test]
fn unwritable_directory() {
    let tmp = tempfile::tempdir().unwrap();
    if is_root() {
        // Root ignores permission bits; a read-only bind is what stops it.
        let ro = tmp.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"])
            .arg(&ro)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("SKIPPED unwritable_directory: root and no mount permission");
            return;
        }
        let out = sb().args(["bandwidth", "64k", "--block", "16k"]).arg(&ro).output().unwrap();
        let _ = std::process::Command::new("umount").arg(&ro).status();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("permission denied"), "{out:?}");
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        sb().args(["bandwidth", "64k", "--block", "16k"])
            .arg(tmp.path())
            .assert()
            .code(1)
            .stderr(predicate::str::contains("permission denied"));
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Bytes free for an unprivileged user on the filesystem holding `dir`.
fn free_bytes(dir: &Path) -> u64 {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statvfs fills the zeroed struct; the path is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
    st.f_bavail as u64 * st.f_frsize as u64
}

#[test]
fn ctrl_c_stops_reports_and_cleans_up() {
    let tmp = tempfile::tempdir_in(".").unwrap();
    let json = tmp.path().join("r.json");
    let bin = assert_cmd::cargo::cargo_bin("storebench");
    // fdatasync after every 64 KiB block keeps the upload busy far longer than the test waits. The
    // size is half the free space (at most 64 GiB): storebench refuses a SIZE that cannot fit.
    let size = (free_bytes(tmp.path()) / 2).min(64 << 30) / (64 << 10) * (64 << 10);
    let child = std::process::Command::new(bin)
        .args(["bandwidth", &size.to_string(), "--block", "64k", "--hflush", "--json"])
        .arg(&json)
        .arg(tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    // SAFETY: plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("RUN INTERRUPTED"), "{stdout}");
    assert!(stdout.contains("INCOMPLETE: the upload did not finish"), "{stdout}");
    let report: RunReport = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report.outcome.status, Status::Interrupted);
    assert!(report.phases[0].blocks.count > 0);
    assert_eq!(entries(tmp.path()), ["r.json"], "partial file and run dir removed");
}

/// A run of more blocks than the report's event cap keeps an even sample of them and says so, while
/// its statistics still count every block; the CSV log still has every block.
#[test]
fn the_event_list_is_capped_and_says_how_it_was_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let (json, csv) = (dir.path().join("r.json"), dir.path().join("r.csv"));
    let out = common::sb()
        .args(["bandwidth", "70000k", "--block", "1k", "-q", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .arg("memory://capped/")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = common::report(&json);
    let s = r.event_sampling.expect("event_sampling in the report");
    assert_eq!(s.cap, storebench::stats::sample::EVENT_CAP as u64);
    assert!(s.total > s.cap && s.stride == 4 && s.kept == r.events.len() as u64, "{s:?}");
    assert!(r.events.len() <= storebench::stats::sample::EVENT_CAP);
    assert_eq!(r.phases[0].blocks.count + r.phases[1].blocks.count, 140_000, "statistics count every block");
    let rows = std::fs::read_to_string(&csv).unwrap().lines().filter(|l| l.contains("block")).count();
    assert!(rows >= 140_000, "{rows} block rows in the CSV log");
}
