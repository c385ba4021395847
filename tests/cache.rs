//! `--drop-cache` on every command that reads local files: before each read phase (each repeat for
//! ops) the files about to be read are evicted, outside the timed phase, and their residency is probed
//! after; a file that stays resident is a finding with the figure, never silence. The files live under
//! Cargo's target directory: a tmpfs /tmp keeps its pages whatever one asks.

mod common;
use common::{report, sb};
use predicates::prelude::*;

fn workdir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn resident_share(r: &storebench::stats::report::RunReport) -> Vec<(String, bool, f64)> {
    r.probes
        .page_cache
        .iter()
        .map(|p| (p.phase.clone(), p.evicted, p.resident_bytes as f64 / p.file_bytes.max(1) as f64))
        .collect()
}

#[test]
fn bandwidth_reads_a_file_the_cache_no_longer_holds() {
    let dir = workdir();
    let json = dir.path().join("r.json");
    // Without --drop-cache the download reads back what the upload left in the cache.
    sb().args(["bandwidth", "8m", dir.path().to_str().unwrap(), "-q", "--json", json.to_str().unwrap()])
        .assert()
        .success();
    let cached = resident_share(&report(&json));
    assert!(cached.len() == 1 && !cached[0].1 && cached[0].2 > 0.9, "{cached:?}");
    sb().args(["bandwidth", "8m", dir.path().to_str().unwrap(), "--drop-cache", "--json", json.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("Page cache: the files read evicted before each read"));
    let r = report(&json);
    let dropped = resident_share(&r);
    assert!(dropped.len() == 1 && dropped[0].1 && dropped[0].2 < 0.05, "{dropped:?}");
    assert_eq!(r.drop_cache.as_deref(), Some("files"));
    assert!(r.findings.iter().all(|f| f.rule != "page_cache"), "{:?}", r.findings);
}

#[test]
fn ops_evicts_before_every_repeat_and_dfsio_before_its_read() {
    let dir = workdir();
    let base = dir.path().join("ops");
    std::fs::create_dir(&base).unwrap();
    let json = dir.path().join("ops.json");
    sb().args(["ops", "--op", "open_read", "--threads", "2", "--file-size", "4m", "--repeats", "3", "--prepare"])
        .args(["--drop-cache", "-q", "--json", json.to_str().unwrap(), base.to_str().unwrap()])
        .assert()
        .success();
    let shares = resident_share(&report(&json));
    assert_eq!(shares.len(), 3, "one probe per repeat: {shares:?}");
    assert!(shares.iter().all(|s| s.1 && s.2 < 0.05), "{shares:?}");

    let root = dir.path().join("dfsio");
    let res = dir.path().join("res.txt");
    let dfsio = |mode: &str, extra: &[&str]| {
        sb().args(["dfsio", mode, "-nrFiles", "2", "-fileSize", "4MB", "-q", "-resFile", res.to_str().unwrap()])
            .args(["-rootDir", root.to_str().unwrap()])
            .args(extra)
            .assert()
            .success();
    };
    dfsio("-write", &[]);
    let json = dir.path().join("dfsio.json");
    dfsio("-read", &["--drop-cache", "--json", json.to_str().unwrap()]);
    let shares = resident_share(&report(&json));
    assert!(!shares.is_empty() && shares.iter().all(|s| s.1 && s.2 < 0.05), "{shares:?}");
    dfsio("-clean", &[]);
}

#[test]
fn what_stays_resident_after_the_eviction_is_a_finding() {
    let dir = workdir();
    let f = dir.path().join("pinned.bin");
    std::fs::write(&f, vec![7u8; 4 << 20]).unwrap();
    // Mapped by this process: no eviction can drop those pages.
    let file = std::fs::File::open(&f).unwrap();
    let len = 4usize << 20;
    // SAFETY: a read-only shared mapping of a file this test owns, unmapped below.
    let addr = unsafe {
        use std::os::fd::AsRawFd;
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0)
    };
    assert_ne!(addr, libc::MAP_FAILED);
    // Touched through the mapping, the pages are mapped into this process, and eviction skips mapped
    // pages; mlock, where RLIMIT_MEMLOCK allows it, pins them as well.
    let mut sum = 0u64;
    for at in (0..len).step_by(4096) {
        // SAFETY: within the mapping above.
        sum += unsafe { *(addr as *const u8).add(at) } as u64;
    }
    assert_eq!(sum, 7 * (len as u64 / 4096));
    // SAFETY: the mapping above, len bytes.
    let _ = unsafe { libc::mlock(addr, len) };
    let json = dir.path().join("r.json");
    let run = sb()
        .args(["bandwidth", "4m", f.to_str().unwrap(), "--read-only", "--drop-cache", "--json"])
        .arg(&json)
        .assert()
        .success();
    // SAFETY: the mapping above.
    unsafe { libc::munmap(addr, len) };
    run.stdout(predicate::str::contains("--drop-cache evicted the files, yet 100.0 % of them was in the page cache"));
    let r = report(&json);
    let f = r.findings.iter().find(|f| f.rule == "page_cache").expect("a page_cache finding");
    assert!(f.evidence[0].contains("mincore after the eviction"), "{:?}", f.evidence);
}

#[test]
fn drop_cache_is_refused_where_this_host_caches_nothing_and_all_needs_root() {
    sb().args(["bandwidth", "1m", "memory://x/", "--drop-cache"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--drop-cache evicts files from this host's page cache"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    sb().args(["ops", "--op", "stat", "--drop-cache=some"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid --drop-cache 'some'"));
    let dir = workdir();
    let all = sb().args(["bandwidth", "1m", dir.path().to_str().unwrap(), "--drop-cache=all", "-q"]).assert();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        all.success();
    } else {
        all.code(1).stderr(predicate::str::contains("needs root"));
    }
}
