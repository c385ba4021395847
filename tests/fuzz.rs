//! Keeps "safe to run" fixed: property tests of every parser (no panic, errors on one line), and a
//! fuzz of random argument vectors run through the binary against memory:// and a sandbox directory
//! holding planted hazards (links into a checksummed tree, a FIFO, a device node, files named as
//! storebench's own). Each case must end within its bound (or, a run asked to be long, stop within a
//! grace of SIGINT), without a panic or an abort, and the planted tree must be byte for byte as it was.
//!
//! `FUZZ_CASES` sets the number of CLI cases (default 200; `FUZZ_CASES=100000` for a long run) and
//! `FUZZ_SEED` replays a run (the seed is printed on failure).

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use storebench::store::config::{xml_depth, StoreConfig};
use storebench::units::{parse_size, parse_size_with_default_unit};
use storebench::workload::ops::parse_mix;
use storebench::workload::ranges::{generate, parse_range};

fn one_line(e: &str) {
    assert!(!e.contains('\n'), "a multi-line error: {e:?}");
    assert!(!e.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn sizes_parse_or_say_why(s in "\\PC{0,24}", t in "[0-9]{1,22}(\\.[0-9]{0,4})?[kKmMgGtTpPeEbBiI]{0,3}") {
        for x in [s.as_str(), t.as_str()] {
            if let Err(e) = parse_size(x) { one_line(&e) }
            if let Err(e) = parse_size_with_default_unit(x, 20) { one_line(&e) }
        }
    }

    #[test]
    fn ranges_never_wrap(a in any::<u64>(), b in any::<u64>(), sep in "[-,]", junk in "\\PC{0,12}") {
        match parse_range(&format!("{a}{sep}{b}")) {
            Ok(r) => prop_assert!(r.start < r.end, "{r:?}"),
            Err(e) => one_line(&e),
        }
        if let Err(e) = parse_range(&junk) { one_line(&e) }
    }

    #[test]
    fn generated_ranges_are_bounded(n in any::<u64>(), size in "[0-9]{1,20}[kmg]?", obj in any::<u64>()) {
        match generate(&format!("{n}:{size}"), obj, 7) {
            Ok(v) => {
                prop_assert!(v.len() <= storebench::workload::ranges::MAX_RANGES);
                prop_assert!(v.iter().all(|r| r.start < r.end && r.end <= obj));
            }
            Err(e) => one_line(&e),
        }
    }

    #[test]
    fn mixes_parse_or_say_why(s in "([a-z_]{0,14}(=[0-9]{0,12})?,?){0,5}") {
        if let Err(e) = parse_mix(&s) { one_line(&e) }
    }

    #[test]
    fn timeouts_parse_or_say_why(s in "[0-9]{0,22}(ms|s|m|h|d|x)?", junk in "\\PC{0,10}") {
        for x in [s.as_str(), junk.as_str()] {
            match storebench::store::object::timeout_value("fs.s3a.connection.timeout", x) {
                Ok(d) => prop_assert!(d <= Duration::from_secs(86_400)),
                Err(e) => one_line(&e),
            }
        }
    }

    #[test]
    fn definitions_and_config_files_never_panic(defs in proptest::collection::vec("\\PC{0,30}", 0..4), body in "\\PC{0,300}", xml in "(<[a-z]{1,5}>|</[a-z]{1,5}>|<[a-z]{1,3}/>|[a-z =]{0,5}|<!--|-->|<\\?x\\?>){0,60}") {
        let mut c = StoreConfig::default();
        if let Err(e) = c.add_definitions(&defs) { one_line(&e) }
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("c.conf");
        std::fs::write(&conf, &body).unwrap();
        if let Err(e) = c.add_conf_file(&conf) { one_line(&e) }
        for text in [xml.as_str(), body.as_str()] {
            let f = dir.path().join("c.xml");
            std::fs::write(&f, text).unwrap();
            let _ = xml_depth(text);
            if let Err(e) = c.add_xml_file(&f) { one_line(&e) }
        }
    }

    #[test]
    fn urls_never_panic_and_never_show_secrets(path in "[a-zA-Z0-9/%._ -]{0,24}", scheme in "(memory|file|foo|ftp)", secret in "[A-Z]{8}") {
        let url = format!("{}://u:{}@{}", scheme, secret, path);
        let quoted = format!("GET {} failed", url);
        let (a, b) = (storebench::store::redact_url(&url), storebench::store::redact_text(&quoted));
        prop_assert!(!a.contains(&secret) && !b.contains(&secret));
        let _ = storebench::store::percent_decode(&path);
        for u in [format!("{}://{}", scheme, path), url.clone()] {
            match storebench::store::open_target(&u, &StoreConfig::default()) {
                Ok(_) => {}
                Err(e) => { one_line(&e); prop_assert!(!e.contains(&secret)); }
            }
        }
    }
}

/// A tiny seeded generator, so a failing case can be replayed with FUZZ_SEED.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[(self.next() % v.len() as u64) as usize]
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

/// Every file below `dir` (not following links): its kind, mode and content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let content = if m.file_type().is_file() { std::fs::read(&p).unwrap() } else { Vec::new() };
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p, (m.mode(), content));
        }
    }
    out
}

const VALUES: &[&str] = &[
    "0",
    "1",
    "4k",
    "64k",
    "1m",
    "-1",
    "x",
    "1e-20",
    "18446744073709551615",
    "99999999999999999999",
    "1.5",
    "0.001",
    "",
    "4096",
    "3",
    "2",
    "1t",
];

const BANDWIDTH: &[&str] = &[
    "--block",
    "--policy",
    "--prefetch",
    "--seed",
    "--overwrite",
    "--keep",
    "--rename",
    "--verify",
    "--flush",
    "--hflush",
    "--fsync-on-close",
    "--direct",
    "--read-only",
    "-q",
    "--verbose",
    "-D",
    "--xmlfile",
    "--json",
    "--csv",
    "--data",
    "--drop-cache",
    "--reorder",
    "--html",
];
const OPS: &[&str] = &[
    "--op",
    "--mix",
    "--threads",
    "--iterations",
    "--duration",
    "--repeats",
    "--rate",
    "--file-size",
    "--buffer-size",
    "--file-path",
    "--random",
    "--prefetch",
    "--prepare",
    "--fail-fast",
    "--keep",
    "--seed",
    "--json",
    "--csv",
    "--conf",
    "-q",
    "--data",
    "--drop-cache",
    "--reorder",
    "--html",
];
const RANGES: &[&str] = &[
    "--range",
    "--ranges",
    "--generate",
    "--strategy",
    "--split-size",
    "--coalesce-gap",
    "--concurrency",
    "--warm",
    "--verify",
    "--prepare",
    "--seed",
    "--json",
    "-q",
    "--data",
    "--drop-cache",
    "--reorder",
    "--html",
];
const DFSIO: &[&str] = &[
    "-write",
    "-read",
    "-append",
    "-clean",
    "-nrFiles",
    "-fileSize",
    "-bufferSize",
    "-resFile",
    "-rootDir",
    "-random",
    "-backward",
    "-skip",
    "-skipSize",
    "--threads",
    "--json",
    "-q",
    "--data",
    "--drop-cache",
    "--reorder",
    "--html",
];
const TRANSFER: &[&str] = &[
    "--size",
    "--method",
    "--buffer",
    "--runs",
    "--to-file",
    "--drop-cache",
    "--verify",
    "--json",
    "--html",
    "-q",
    "--timeout",
];

/// Values an option may take, hostile ones included. `sand` is the case's own directory.
fn value(r: &mut Rng, opt: &str, sand: &Path) -> String {
    // Report files the user names are theirs to replace: never the planted user files here.
    let output = matches!(opt, "--json" | "--csv" | "--html" | "-resFile" | "--to-file");
    let path = |r: &mut Rng| -> String {
        let name = if output {
            r.pick(&["new", "link", "dirlink", "fifo", "dev", "sub/", "", "missing/x"])
        } else {
            r.pick(&["new", "link", "fifo", "dev", "test_0", "existing", "sub/", "", "missing/x"])
        };
        sand.join(name).display().to_string()
    };
    match opt {
        "--op" => r
            .pick(&[
                "create_write",
                "open_read",
                "single_read",
                "prefetch_read",
                "exists",
                "stat",
                "rename",
                "list",
                "delete",
                "nope",
            ])
            .into(),
        "--mix" => r
            .pick(&[
                "open_read=50,create_write=30,stat=20",
                "stat=1,list=1",
                "delete=1",
                "x=1",
                "stat=0",
                "rename=5,exists=5",
            ])
            .into(),
        "--policy" => r.pick(&["whole-file", "sequential", "random", "prefetch", "vector", "bad"]).into(),
        "--strategy" => r.pick(&["all", "sequential", "parallel", "split", "coalesce", "whole", "bad"]).into(),
        "--method" => {
            r.pick(&["read-write", "sendfile", "splice", "mmap", "io-uring", "copy-file-range", "all", "bad"]).into()
        }
        "--range" => r
            .pick(&["0-9", "5,18446744073709551615", "0-18446744073709551615", "18446744073709551615,2", "9-1", "x"])
            .into(),
        "--generate" => r.pick(&["4:1k", "1000000000:1", "0:1", "2:9m", "x"]).into(),
        "--duration" => r.pick(&["1s", "18446744073709551615s", "0s", "x", "200ms"]).into(),
        "--data" => r
            .pick(&[
                "random",
                "zeros",
                "compressible:50",
                "dedupe:30,seed:7",
                "compressible:0",
                "x",
                "seed:18446744073709551615",
            ])
            .into(),
        "-D" => r.pick(&["fs.s3a.connection.timeout=1s", "k=v", "=x", "novalue", "dfs.replication=2"]).into(),
        "--json" | "--csv" | "--html" | "-resFile" | "--to-file" | "--file-path" | "--xmlfile" | "--conf"
        | "--ranges" | "-rootDir" => {
            if r.chance(15) {
                r.pick(&["/dev/zero", "/dev/null", "/proc/self/status"]).into()
            } else {
                path(r)
            }
        }
        _ => r.pick(VALUES).into(),
    }
}

fn case(r: &mut Rng, sand: &Path) -> Vec<String> {
    let (cmd, opts) = match r.next() % 5 {
        0 => ("bandwidth", BANDWIDTH),
        1 => ("ops", OPS),
        2 => ("ranges", RANGES),
        3 => ("dfsio", DFSIO),
        _ => ("transfer", TRANSFER),
    };
    let mut v = vec![cmd.to_string()];
    let flags = [
        "--overwrite",
        "--keep",
        "--rename",
        "--verify",
        "--flush",
        "--hflush",
        "--fsync-on-close",
        "--direct",
        "--read-only",
        "-q",
        "--verbose",
        "--random",
        "--prepare",
        "--fail-fast",
        "--drop-cache",
        "-write",
        "-read",
        "-append",
        "-clean",
        "-random",
        "-backward",
        "-skip",
    ];
    for _ in 0..(r.next() % 6) {
        let o = r.pick(opts);
        v.push(o.to_string());
        if !flags.contains(&o) || (o == "--prepare" && cmd == "ranges") {
            v.push(value(r, o, sand));
        }
    }
    match cmd {
        "bandwidth" => {
            v.push(r.pick(&["64k", "1m", "0", "1t", "x", "4m"]).into());
            let t = r.pick(&["memory://fz/", "memory://fz/obj", "DIR", "NEW", "link", "fifo", "dev", "existing"]);
            v.push(target(t, sand));
        }
        "ops" | "ranges" => {
            let t = r.pick(&["memory://fz/", "memory://fz/obj", "DIR", "NEW", "link", "fifo", "existing"]);
            v.push(target(t, sand));
        }
        "transfer" => {
            if r.chance(50) {
                v.push(target(r.pick(&["existing", "fifo", "dev", "link", "DIR", "NEW"]), sand));
            } else {
                v.push("--size".into());
                v.push(r.pick(&["0", "64k", "1m", "x"]).into());
            }
        }
        _ => {}
    }
    v
}

fn target(t: &str, sand: &Path) -> String {
    match t {
        "DIR" => sand.display().to_string(),
        "NEW" => sand.join("new").display().to_string(),
        t if t.starts_with("memory://") => t.to_string(),
        t => sand.join(t).display().to_string(),
    }
}

/// A fresh case directory with planted hazards pointing into `planted`.
fn sandbox(root: &Path, planted: &Path, i: u64) -> PathBuf {
    let sand = root.join(format!("case{i}"));
    std::fs::create_dir_all(sand.join("tmp")).unwrap();
    symlink(planted.join("precious"), sand.join("link")).unwrap();
    symlink(planted, sand.join("dirlink")).unwrap();
    std::fs::write(sand.join("existing"), vec![7u8; 70_000]).unwrap();
    std::fs::write(sand.join("test_0"), "a user's test_0").unwrap();
    let c = |p: PathBuf| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: valid paths.
    unsafe {
        libc::mkfifo(c(sand.join("fifo")).as_ptr(), 0o644);
        libc::mknod(c(sand.join("dev")).as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3));
    }
    sand
}

#[test]
fn random_command_lines_never_panic_hang_or_touch_foreign_files() {
    let cases: u64 = std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let seed: u64 = std::env::var("FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    }) | 1;
    let root = tempfile::tempdir().unwrap();
    let planted = root.path().join("planted");
    std::fs::create_dir_all(planted.join("deep")).unwrap();
    std::fs::write(planted.join("precious"), "not yours").unwrap();
    std::fs::write(planted.join("deep/test_0"), "not yours either").unwrap();
    std::fs::write(planted.join("test_io_0"), "nor this").unwrap();
    let before = snapshot(&planted);
    let bin = assert_cmd::cargo::cargo_bin("storebench");
    let mut r = Rng(seed);
    for i in 0..cases {
        let sand = sandbox(root.path(), &planted, i);
        let args = case(&mut r, &sand);
        let t0 = Instant::now();
        let mut child = Command::new(&bin)
            .args(&args)
            .current_dir(&sand)
            .env("TMPDIR", sand.join("tmp"))
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env_remove("HADOOP_CONF_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Drained as it comes, so a long message cannot block the child on a full pipe.
        let mut pipe = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut pipe, &mut s);
            s
        });
        // A case may ask for a run of any length (2^64 - 1 iterations of `exists` on a file that is
        // there): past the bound it gets SIGINT, as a user would send, and must stop within a grace,
        // leaving the same untouched tree. Hanging is not answering that.
        let bound = Duration::from_secs(30);
        let grace = Duration::from_secs(10);
        let mut interrupted = None;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            match interrupted {
                None if t0.elapsed() > bound => {
                    // SAFETY: the child's pid, still ours (not yet reaped).
                    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
                    interrupted = Some(Instant::now());
                }
                Some(at) if at.elapsed() > grace => {
                    let _ = child.kill();
                    panic!("FUZZ_SEED={seed} case {i}: {args:?} ran past {bound:?} and did not stop within {grace:?} of SIGINT");
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let err = reader.join().unwrap_or_default();
        assert!(err.len() < 4096, "FUZZ_SEED={seed} case {i}: {args:?} wrote {} bytes of errors", err.len());
        let code = status.code();
        assert!(
            code.is_some() && code != Some(101) && !err.contains("panicked") && !err.contains("internal error"),
            "FUZZ_SEED={seed} case {i}: {args:?} crashed ({status}): {err}"
        );
        if interrupted.is_some() {
            assert!(
                matches!(code, Some(0 | 1 | 2 | 130)),
                "FUZZ_SEED={seed} case {i}: {args:?} answered SIGINT with {status} (an interrupted run exits 130): {err}"
            );
        }
        assert_eq!(snapshot(&planted), before, "FUZZ_SEED={seed} case {i}: {args:?} touched the planted tree");
        for (name, kind) in [("fifo", libc::S_IFIFO), ("link", libc::S_IFLNK), ("dirlink", libc::S_IFLNK)] {
            let m = std::fs::symlink_metadata(sand.join(name));
            assert!(
                m.is_ok_and(|m| m.mode() & libc::S_IFMT == kind),
                "FUZZ_SEED={seed} case {i}: {args:?} replaced or removed {name}"
            );
        }
        if std::fs::symlink_metadata(sand.join("dev")).is_ok_and(|m| m.mode() & libc::S_IFMT == libc::S_IFCHR) {
            // (where the node could be made at all)
        } else if unsafe { libc::geteuid() } == 0 {
            panic!("FUZZ_SEED={seed} case {i}: {args:?} removed the device node");
        }
        assert_eq!(
            std::fs::read_to_string(sand.join("test_0")).unwrap_or_default(),
            "a user's test_0",
            "FUZZ_SEED={seed} case {i}: {args:?} wrote or removed the user's test_0"
        );
        let _ = std::fs::remove_dir_all(&sand);
    }
}
