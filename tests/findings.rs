//! The findings fired for real (a cached file, a CPU-bound run on one core) and kept silent where they
//! should be (O_DIRECT writes leave nothing in the cache; the same run on every core).

mod common;

use common::{report, sb};
use std::sync::Mutex;

/// These tests measure the machine (CPU shares, dirty pages): one at a time, so they do not load it
/// for each other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

fn rules(r: &storebench::stats::report::RunReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.rule.as_str()).collect()
}

/// The README's first command: the file just written is still in the page cache when it is read back,
/// and the text says so under "Findings".
#[test]
fn the_first_command_is_told_its_download_came_from_the_page_cache() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = sb().args(["bandwidth", "8m", "--json"]).arg(&json).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\nFindings\n"), "{stdout}");
    assert!(stdout.contains("of the file was in the page cache before the download"), "{stdout}");
    let r = report(&json);
    assert_eq!(rules(&r)[0], "page_cache");
    // A page-cache read copies from memory: it is fast, not impossible.
    assert!(r.probes.memory.is_some_and(|m| m.mib_per_s > 0.0), "{:?}", r.probes);
    assert!(!rules(&r).contains(&"impossible"), "{:?}", r.findings);
    assert!(!stdout.contains("SUSPECT"), "{stdout}");
    let p = &r.probes.page_cache[0];
    assert_eq!((p.phase.as_str(), p.file_bytes), ("download", 8 << 20));
    assert!(p.resident_bytes * 2 >= p.file_bytes, "{p:?}");
    // --quiet keeps them.
    let quiet = sb().args(["bandwidth", "8m", "-q"]).arg(dir.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&quiet.stdout).contains("in the page cache before the download"));
}

/// Written with O_DIRECT, the file is not in the page cache: the probe says so and the rule is silent.
/// (Under the build directory: a tmpfs /tmp refuses O_DIRECT.)
#[test]
fn direct_io_leaves_the_cache_cold_and_the_rule_silent() {
    let _alone = alone();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let json = dir.path().join("r.json");
    let out = sb().args(["bandwidth", "8m", "--direct", "-q", "--json"]).arg(&json).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = report(&json);
    let p = &r.probes.page_cache[0];
    assert!(p.resident_bytes * 2 < p.file_bytes, "{p:?}");
    assert!(!rules(&r).contains(&"page_cache"), "{:?}", r.findings);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("page cache before"));
}

/// The first CPU this process may run on (Cpus_allowed_list in /proc/self/status: "0-1", "2,5").
fn first_allowed_cpu() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim();
    list.split([',', '-']).next().unwrap().to_string()
}

/// A file written without a durability option ends dirty in the page cache, and the finding says the
/// upload figure is memory's; with --fsync-on-close it is silent. (Under the build directory, on a
/// disk: a tmpfs keeps no dirty pages.)
#[test]
fn an_upload_left_in_the_page_cache_is_named_and_fsync_silences_it() {
    let _alone = alone();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let run = |extra: &[&str]| {
        let json = dir.path().join("r.json");
        let _ = std::fs::remove_file(&json);
        sb().args(["bandwidth", "32m", "-q", "--json"]).arg(&json).args(extra).arg(dir.path()).assert().success();
        report(&json)
    };
    let r = run(&[]);
    let d = &r.probes.dirty[0];
    assert_eq!((d.phase.as_str(), d.written_bytes), ("upload", 32 << 20));
    assert!(rules(&r).contains(&"writes_in_cache"), "{:?} {:?}", r.probes.dirty, r.findings);
    let r = run(&["--fsync-on-close"]);
    assert!(r.probes.dirty.is_empty(), "no probe when the upload is made durable");
    assert!(!rules(&r).contains(&"writes_in_cache"));
}

/// A memory:// upload in 1 KiB blocks is CPU-bound: pinned to one core it uses all of it, and the
/// finding says the figure is the client's limit. On every core of the machine (at least 2), the
/// single worker uses one: silent. 1 GiB keeps the upload well past the 0.5 s under which the rule
/// says nothing (512 MiB took 0.53 s on an idle machine); three tries for a busy one.
#[test]
fn one_pinned_core_saturates_and_two_do_not() {
    let _alone = alone();
    // The text, not --json: the report would hold every one of the 2 M block events (380 MB).
    let run = |pinned: bool| {
        let mut c = if pinned {
            let mut c = assert_cmd::Command::new("taskset");
            c.args(["-c", &first_allowed_cpu()]).arg(assert_cmd::cargo::cargo_bin("storebench"));
            c
        } else {
            sb()
        };
        let out = c.args(["bandwidth", "1g", "--block", "1k", "-q", "memory://f/"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = (0..3).map(|_| run(true)).find(|t| t.contains("busy during the upload"));
    let text = text.expect("three runs pinned to one core and none was CPU-bound");
    assert!(text.contains("evidence: cores usable (sched_getaffinity) = 1\n"), "{text}");
    assert!(text.contains("of 1 core busy during the upload"), "{text}");
    if storebench::run::usable_cores().unwrap_or(1) >= 2 {
        let text = run(false);
        assert!(!text.contains("busy during"), "one worker on several cores: {text}");
    }
}

/// dfsio -read of two files, one of them evicted from the page cache: that task reads from the disk
/// while the other reads memory, the whole-run rate falls far below the stonewall rate, and the
/// finding names the slow task. (Under the build directory, on a disk.)
#[test]
fn dfsio_names_the_task_that_read_from_the_disk() {
    let _alone = alone();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().join("T");
    let dfsio = |mode: &str, json: Option<&std::path::Path>| {
        let mut c = sb();
        c.args(["dfsio", mode, "-nrFiles", "2", "-fileSize", "64MB", "-rootDir"]).arg(&root);
        if let Some(j) = json {
            c.arg("--json").arg(j);
        }
        c.assert().success();
    };
    dfsio("-write", None);
    let slow = root.join("io_data/test_io_1");
    let f = std::fs::File::open(&slow).unwrap();
    f.sync_all().unwrap();
    // SAFETY: advisory call on an open descriptor.
    let r = unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&f), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(r, 0);
    let json = dir.path().join("read.json");
    dfsio("-read", Some(&json));
    dfsio("-clean", None);
    let r = report(&json);
    // The probe before the read saw one of the two files resident: at the threshold, so said too.
    let p = &r.probes.page_cache[0];
    assert_eq!((p.phase.as_str(), p.file_bytes), ("read", 128 << 20));
    assert!(p.resident_bytes >= 60 << 20 && p.resident_bytes <= 68 << 20, "{p:?}");
    let f = r.findings.iter().find(|f| f.rule == "stragglers").unwrap_or_else(|| panic!("{:?}", r.findings));
    assert!(f.evidence.iter().any(|e| e.starts_with("task 1 (rank 0,")), "{:?}", f.evidence);
}

/// transfer read-write with 4 KiB buffers keeps its sending thread busy (a read and a write per 4 KiB):
/// the finding says the sender's CPU bound it and names sendfile's cost per GiB against it. (On
/// loopback sendfile's sender can be CPU-bound too: the kernel's copy is the whole path.) A loaded
/// machine can steal the core: three tries.
#[test]
fn transfer_read_write_4k_is_bound_by_the_senders_cpu() {
    let _alone = alone();
    let run = || {
        let json = tempfile::NamedTempFile::new().unwrap();
        sb().args(["transfer", "--size", "256m", "--method", "read-write,sendfile", "--buffer", "4k", "-q", "--json"])
            .arg(json.path())
            .assert()
            .success();
        report(json.path())
    };
    let read_write = |r: storebench::stats::report::RunReport| {
        r.findings.into_iter().find(|f| f.verdict.starts_with("read-write 4 KiB kept its sending thread"))
    };
    let f = (0..3).find_map(|_| read_write(run())).expect("read-write 4 KiB was never CPU-bound");
    assert_eq!(f.rule, "sender_cpu_bound");
    assert!(f.evidence.iter().any(|e| e.starts_with("sendfile") && e.ends_with("x less)")), "{:?}", f.evidence);
}

/// ops with 10 operations per repeat: the finding says its percentiles are single operations; with
/// 200 it is silent.
#[test]
fn ops_with_too_few_operations_is_told_so() {
    let _alone = alone();
    let run = |n: &str| {
        let json = tempfile::NamedTempFile::new().unwrap();
        sb().args(["ops", "--op", "stat", "--threads", "1", "--iterations", n, "--repeats", "1", "--prepare", "-q"])
            .arg("--json")
            .arg(json.path())
            .arg("memory://few/")
            .assert()
            .success();
        report(json.path())
    };
    let r = run("10");
    let f = r.findings.iter().find(|f| f.rule == "few_ops").unwrap_or_else(|| panic!("{:?}", r.findings));
    assert_eq!(f.evidence, ["repeat 1 ops = 10"]);
    assert!(!rules(&run("200")).contains(&"few_ops"));
}

/// ops open_read on files --prepare just wrote: the probe before each repeat finds them resident and
/// the finding says so.
#[test]
fn ops_reads_of_freshly_prepared_files_are_from_the_page_cache() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    std::fs::create_dir(dir.path().join("base")).unwrap();
    sb().args(["ops", "--op", "open_read", "--threads", "2", "--iterations", "5", "--file-size", "1m", "--prepare"])
        .args(["--repeats", "2", "-q", "--json"])
        .arg(&json)
        .arg(dir.path().join("base"))
        .assert()
        .success();
    let r = report(&json);
    assert_eq!(r.probes.page_cache.len(), 2, "one probe per repeat: {:?}", r.probes);
    assert!(r.probes.page_cache.iter().all(|p| p.phase == "read" && p.file_bytes == 2 << 20));
    let f = r.findings.iter().find(|f| f.rule == "page_cache").unwrap_or_else(|| panic!("{:?}", r.findings));
    assert!(f.verdict.contains("of the files were in the page cache before the read"), "{}", f.verdict);
}

/// Two threads rereading their own 256 KiB memory:// file copy it from the CPU's caches, several times
/// faster than this host's memory delivered to the probe: the figures are marked suspect in text,
/// Markdown and JSON.
#[test]
fn rereading_a_cache_sized_file_is_marked_impossible() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = sb()
        .args(["ops", "--op", "open_read", "--threads", "2", "--file-size", "256k", "--duration", "1s"])
        .args(["--repeats", "1", "--prepare", "--json"])
        .arg(&json)
        .arg("memory://impossible/")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let r = report(&json);
    let f = r.findings.iter().find(|f| f.rule == "impossible").unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(rules(&r)[0], "impossible", "most important first");
    assert!(f.suspect.contains(&"repeat 1 mib_per_s".to_string()), "{f:?}");
    assert!(f.evidence[0].starts_with("memory_mib_per_s = "), "{f:?}");
    assert!(stdout.contains("  ^ SUSPECT: repeat 1 mib_per_s"), "{stdout}");
    assert!(stdout.contains("(suspect)"), "{stdout}");
    let md = sb()
        .args(["ops", "--op", "open_read", "--threads", "2", "--file-size", "256k", "--duration", "1s"])
        .args(["--repeats", "1", "--prepare", "--format", "markdown", "memory://impossible-md/"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&md.stdout).contains(" (suspect) |"), "{}", String::from_utf8_lossy(&md.stdout));
}
