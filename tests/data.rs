//! `--data` on every command that writes test data: what each run wrote compresses and repeats as its
//! pattern says (measured on the files with deflate and by hashing blocks), the report records the
//! choice, and `--verify` names the first wrong byte and counts the bad blocks of a file changed
//! behind storebench's back.

mod common;
use common::{report, sb};
use predicates::prelude::*;
use std::io::Write;

fn deflate_ratio(data: &[u8]) -> f64 {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    data.len() as f64 / e.finish().unwrap().len() as f64
}

fn repeated_share(data: &[u8], block: usize) -> f64 {
    let mut seen = std::collections::HashSet::new();
    let blocks = data.chunks(block).filter(|b| b.len() == block);
    let (mut n, mut repeats) = (0, 0);
    for b in blocks {
        n += 1;
        if !seen.insert(b.to_vec()) {
            repeats += 1;
        }
    }
    repeats as f64 / n as f64
}

#[test]
fn each_command_writes_the_data_it_is_asked_for_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // bandwidth: half of every 4 KiB compresses away.
    let f = d.join("half.dat");
    sb().args(["bandwidth", "4m", f.to_str().unwrap(), "--keep", "--block", "1m", "--data", "compressible:50,seed:7"])
        .args(["--json", d.join("bw.json").to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("Data: compressible 50 % (the last 50 % of every 4 KiB is zero), seed 7"));
    let ratio = deflate_ratio(&std::fs::read(&f).unwrap());
    assert!((ratio - 2.0).abs() < 0.2, "bandwidth --data compressible:50 wrote data deflating {ratio:.3}x");
    let data = report(&d.join("bw.json")).data.unwrap();
    assert_eq!((data.pattern.as_str(), data.seed), ("compressible:50", 7));

    // ops create_write: zeros.
    let ops_dir = d.join("ops");
    std::fs::create_dir(&ops_dir).unwrap();
    sb().args(["ops", "--op", "create_write", "--file-size", "1m", "--keep", "-q", "--data", "zeros"])
        .args(["--json", d.join("ops.json").to_str().unwrap(), ops_dir.to_str().unwrap()])
        .assert()
        .success();
    let written = std::fs::read(ops_dir.join("test_0")).unwrap();
    assert_eq!(written.len(), 1 << 20);
    assert!(written.iter().all(|&b| b == 0), "ops --data zeros wrote a non-zero byte");
    assert!(deflate_ratio(&written) > 100.0);
    assert_eq!(report(&d.join("ops.json")).data.unwrap().pattern, "zeros");

    // dfsio -write: half of the 64 KiB buffers repeat an earlier one.
    let root = d.join("dfsio");
    sb().args(["dfsio", "-write", "-nrFiles", "1", "-fileSize", "32MB", "-bufferSize", "65536", "--data", "dedupe:50"])
        .args(["-rootDir", root.to_str().unwrap(), "-resFile", d.join("res.txt").to_str().unwrap(), "-q"])
        .args(["--json", d.join("dfsio.json").to_str().unwrap()])
        .assert()
        .success();
    let file = std::fs::read_dir(root.join("io_data")).unwrap().next().unwrap().unwrap().path();
    let share = repeated_share(&std::fs::read(file).unwrap(), 65536);
    assert!((share - 0.5).abs() < 0.1, "dfsio --data dedupe:50 repeated {:.0} % of its blocks", share * 100.0);
    assert_eq!(report(&d.join("dfsio.json")).data.unwrap().pattern, "dedupe:50");

    // ranges --prepare: the object it writes, and the default (random) recorded.
    let obj = d.join("obj");
    sb().args(["ranges", obj.to_str().unwrap(), "--prepare", "2m", "--range", "0-9", "--verify", "-q"])
        .args(["--data", "compressible:90", "--json", d.join("ranges.json").to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(report(&d.join("ranges.json")).data.unwrap().pattern, "compressible:90");
    let obj_dir = d.join("plain");
    std::fs::create_dir(&obj_dir).unwrap();
    sb().args(["ops", "--op", "create_write", "-q", "--json", d.join("plain.json").to_str().unwrap()])
        .arg(obj_dir.to_str().unwrap())
        .assert()
        .success();
    assert_eq!(report(&d.join("plain.json")).data.unwrap().pattern, "random");
}

#[test]
fn a_read_of_somebody_elses_data_records_no_test_data() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("theirs.bin");
    std::fs::write(&f, vec![3u8; 1 << 20]).unwrap();
    sb().args(["bandwidth", "1m", f.to_str().unwrap(), "--read-only", "--json"])
        .arg(dir.path().join("r.json"))
        .assert()
        .success()
        .stdout(predicate::str::contains("Data:").not());
    assert!(report(&dir.path().join("r.json")).data.is_none());
}

#[test]
fn verify_counts_the_bad_blocks_of_a_file_changed_behind_its_back() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("kept.dat");
    let fs = f.to_str().unwrap();
    let same = ["--seed", "7", "--block", "64k", "--data", "compressible:30"];
    sb().args(["bandwidth", "1m", fs, "--keep", "-q"]).args(same).assert().success();
    // Unchanged, it verifies.
    sb().args(["bandwidth", "1m", fs, "--read-only", "--verify", "-q"]).args(same).assert().success();
    // Two bytes in two blocks (1 and 4 of 16) flipped.
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[100_000] ^= 0x01;
    bytes[300_000] ^= 0x80;
    std::fs::write(&f, &bytes).unwrap();
    sb().args(["bandwidth", "1m", fs, "--read-only", "--verify", "-q"])
        .args(same)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2 of 16 block(s)"))
        .stderr(predicate::str::contains("the first wrong byte is at offset 100000"));
    // Without the seed it wrote with, the reader cannot know what each byte must be.
    sb().args(["bandwidth", "1m", fs, "--read-only", "--verify"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give the --seed"))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn bad_data_options_are_one_line_naming_what_is_valid() {
    for (cmd, extra) in [("bandwidth", vec!["1m"]), ("ops", vec!["--op", "create_write"]), ("dfsio", vec!["-write"])] {
        sb().arg(cmd)
            .args(&extra)
            .args(["--data", "compressible:150"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("invalid --data 'compressible:150'"))
            .stderr(predicate::str::contains("random, zeros, compressible:PCT, dedupe:PCT or seed:N"));
    }
}

/// --reorder needs MPI ranks, a command whose reads can come from another rank, and N >= 1: each
/// refusal is one line that names the value and what would do (4-rank runs are in tests/mpi.rs).
#[test]
fn reorder_is_refused_where_no_rank_can_read_anothers_data() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    let refused = |args: &[&str], says: &str| {
        sb().args(args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(says))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1 && !s.contains("panicked")));
    };
    let one_rank = "--reorder 1 needs several MPI ranks";
    refused(&["bandwidth", "1m", d, "--reorder", "1"], one_rank);
    refused(&["ops", "--op", "open_read", d, "--reorder", "1"], one_rank);
    refused(&["dfsio", "-read", "-rootDir", d, "--reorder", "1"], one_rank);
    refused(&["bandwidth", "1m", d, "--reorder", "0"], "invalid --reorder '0': a whole number from 1 up");
    refused(&["ranges", d, "--reorder", "1"], "--reorder 1: ranges runs in one process");
    // Said before the number of ranks is: what the command could not do under mpirun either.
    refused(&["dfsio", "-write", "-rootDir", d, "--reorder", "1"], "--reorder 1 applies to -read");
    refused(&["ops", "--op", "stat", d, "--reorder", "1"], "--reorder 1 applies to open_read");
    refused(
        &["ops", "--mix", "open_read=1,create_write=1", d, "--reorder", "1"],
        "create_write and rename change the test_K files",
    );
    refused(&["ops", "--op", "open_read", "--prepare", d, "--reorder", "1"], "has rank 0 make them all");
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "a refused run makes nothing");
}
