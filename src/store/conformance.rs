//! The store conformance suite: what every store must do the same way, and a check of every
//! capability a store claims in [`Capabilities`] (and of its refusal where it claims none). Built for
//! tests only (the `conformance` feature, which `cargo test` turns on; a release build never has it).
//!
//! Each store's tests call [`run_all`] with a fresh, empty base path in a writable store, or
//! [`run_reads`] with an object the test server was seeded with (read-only stores: http://, and GCS
//! on fake-gcs-server). Both return what they checked, one line per capability, so a test can say
//! which claims it verified. Failures panic with what was expected.

use super::*;

/// Byte `(offset + i) % 251` at `offset + i`: what the seeded objects and the suite's own files hold.
pub fn pattern(offset: u64, len: usize) -> Vec<u8> {
    (0..len as u64).map(|i| ((offset + i) % 251) as u8).collect()
}

/// Every [`Capabilities`] field the suite checks, in the order it reports them. `in_memory` is not a
/// behaviour but a sizing rule (checked by the plan), so it is not here.
pub const CHECKED: &[&str] = &[
    "writable",
    "direct_io",
    "hflush",
    "append",
    "atomic_rename",
    "directories",
    "conditional_create",
    "vectored_read",
    "prefetch",
    "page_cache",
];

/// Read-stream counters by which a store shows that it read ahead (object stores count the blocks
/// their prefetch served; local files count their readahead advice).
const PREFETCH_EVIDENCE: &[&str] = &["prefetch_hits", "fadvise_willneed_calls"];

/// Runs every check on a writable `store` under `base` (a directory that exists and is empty, or a
/// fresh prefix); returns one line per capability saying what was checked.
pub fn run_all(store: &dyn Store, base: &str) -> Vec<String> {
    let caps = store.capabilities();
    assert!(caps.writable, "run_all needs a writable store; use run_reads for {}", store.url());
    put_get_and_stat(store, base);
    positioned_reads(store, base);
    streaming_read(store, base);
    create_refuses_existing(store, base);
    missing_paths(store, base);
    abort_leaves_nothing(store, base);
    let seeded = join(base, "seeded.bin");
    let len = 300_123u64;
    put(store, &seeded, &pattern(0, len as usize), 65_536);
    let mut done = run_reads(store, &seeded, len);
    store.delete(&seeded).unwrap();
    for line in done.iter_mut() {
        if line.starts_with("writable: claimed") {
            *line = "writable: claimed; create, write, close, overwrite, abort, delete work".into();
        }
    }
    done.push(direct_io(store, base, caps.direct_io));
    done.push(hflush(store, base, caps.hflush));
    done.push(append(store, base, caps.append));
    done.push(rename(store, base, caps.atomic_rename));
    done.push(directories(store, base, caps.directories));
    done.push(conditional_create(store, base, caps.conditional_create));
    assert!(store.list(base).unwrap().is_empty(), "the suite left something under {base}");
    sort_as_checked(done)
}

/// The read checks on `path`, which holds [`pattern`] for `len` bytes (at least 10,000): positioned
/// and end-of-file reads, vectored reads and prefetching reads; on a store that claims no writes,
/// that writes are refused. Returns one line per capability it checked.
pub fn run_reads(store: &dyn Store, path: &str, len: u64) -> Vec<String> {
    assert!(len >= 10_000, "the seeded object must hold at least 10,000 bytes");
    let caps = store.capabilities();
    seeded_reads(store, path, len);
    let mut done = vec![
        vectored_read(store, path, len, caps.vectored_read),
        prefetch(store, path, len, caps.prefetch),
        page_cache(store, path, len, caps.page_cache),
    ];
    if caps.writable {
        done.push("writable: claimed; not checked by the reads (run_all checks writes)".into());
    } else {
        match store.create(&format!("{path}.new"), &WriteOptions::default()) {
            Err(StoreError::Unsupported(m)) => assert!(m.contains("read-only"), "{m}"),
            other => panic!("{} claims no writes but create() gave {:?}", store.url(), other.err()),
        }
        done.push("writable: not claimed; create() refused as read-only".into());
    }
    sort_as_checked(done)
}

/// The capabilities a suite's lines say were claimed (and checked), in the suite's order.
pub fn claimed(lines: &[String]) -> Vec<&str> {
    lines.iter().filter(|l| l.contains(": claimed")).filter_map(|l| l.split(':').next()).collect()
}

fn sort_as_checked(mut done: Vec<String>) -> Vec<String> {
    let rank = |l: &String| CHECKED.iter().position(|c| l.split(':').next() == Some(*c)).unwrap_or(usize::MAX);
    done.sort_by_key(rank);
    done
}

fn put(store: &dyn Store, path: &str, data: &[u8], block: usize) {
    let mut w = store.create(path, &WriteOptions { size_hint: Some(data.len() as u64), ..Default::default() }).unwrap();
    for chunk in data.chunks(block.max(1)) {
        w.write(chunk).unwrap();
    }
    w.close().unwrap();
}

fn read_all(store: &dyn Store, path: &str) -> Vec<u8> {
    let mut r = store.open(path, &ReadOptions::default()).unwrap();
    let mut buf = vec![0u8; r.len() as usize];
    let n = r.read_at(0, &mut buf).unwrap().bytes;
    buf.truncate(n);
    r.close().unwrap();
    buf
}

/// What is written reads back byte for byte, and stat reports its size; empty files too.
fn put_get_and_stat(store: &dyn Store, base: &str) {
    let f = join(base, "a.bin");
    let d = pattern(7, 300_000);
    put(store, &f, &d, 65_536);
    assert_eq!(store.stat(&f).unwrap(), Some(Meta { size: 300_000, is_dir: false }));
    assert!(store.exists(&f).unwrap());
    assert!(read_all(store, &f) == d, "read back differs");
    store.delete(&f).unwrap();
    put(store, &f, &[], 1);
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(0), "empty file");
    store.delete(&f).unwrap();
}

/// Positioned reads anywhere, including a short read at the end and a read past the end.
fn positioned_reads(store: &dyn Store, base: &str) {
    let f = join(base, "r.bin");
    let d = pattern(0, 10_000);
    put(store, &f, &d, 4096);
    let mut r = store.open(&f, &ReadOptions::default()).unwrap();
    for (off, len) in [(0usize, 1usize), (4095, 2), (9_000, 1000), (1234, 5678)] {
        let mut buf = vec![0u8; len];
        assert_eq!(r.read_at(off as u64, &mut buf).unwrap().bytes, len);
        assert!(buf == d[off..off + len], "range {off}+{len}");
    }
    let mut buf = vec![0u8; 500];
    assert_eq!(r.read_at(9_800, &mut buf).unwrap().bytes, 200, "short read at the end");
    assert!(buf[..200] == d[9_800..]);
    assert_eq!(r.read_at(10_000, &mut buf).unwrap().bytes, 0, "read at the end");
    r.close().unwrap();
    store.delete(&f).unwrap();
}

/// One streaming read returns the whole file in order, through `read_next` and through
/// `read_next_with` (the pieces a client holds, never more than the buffer's length) taking turns,
/// so what one leaves over the other picks up.
fn streaming_read(store: &dyn Store, base: &str) {
    let f = join(base, "s.bin");
    let d = pattern(3, 70_000);
    put(store, &f, &d, 7000);
    let mut r = store.open(&f, &ReadOptions { sequential: true, ..Default::default() }).unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 16_384];
    for turn in 0.. {
        let len = [16_384, 5_000, 1][turn % 3];
        let n = if turn % 2 == 0 {
            let n = r.read_next(&mut buf[..len]).unwrap().bytes;
            got.extend_from_slice(&buf[..n]);
            n
        } else {
            let mut handed = 0;
            let n = r
                .read_next_with(&mut buf[..len], &mut |piece: &[u8]| {
                    handed += piece.len();
                    got.extend_from_slice(piece);
                })
                .unwrap()
                .bytes;
            assert_eq!(handed, n, "read_next_with handed {handed} bytes and said {n}");
            n
        };
        assert!(n <= len, "a read of {len} bytes returned {n}");
        if n == 0 {
            break;
        }
    }
    assert!(got == d, "streamed {} bytes, expected {}", got.len(), d.len());
    r.close().unwrap();
    store.delete(&f).unwrap();
}

/// create() refuses an existing path unless overwrite, and overwrite replaces it.
fn create_refuses_existing(store: &dyn Store, base: &str) {
    let f = join(base, "x.bin");
    put(store, &f, b"first", 5);
    let refused = store.create(&f, &WriteOptions::default()).and_then(|w| w.close());
    assert!(matches!(refused, Err(StoreError::AlreadyExists { .. })), "{:?}", refused.err());
    let mut w = store.create(&f, &WriteOptions { overwrite: true, ..Default::default() }).unwrap();
    w.write(b"second!").unwrap();
    w.close().unwrap();
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(7));
    store.delete(&f).unwrap();
}

/// Missing paths are reported as such.
fn missing_paths(store: &dyn Store, base: &str) {
    let f = join(base, "missing");
    assert_eq!(store.stat(&f).unwrap(), None);
    assert!(!store.exists(&f).unwrap());
    assert!(matches!(store.open(&f, &ReadOptions::default()).err(), Some(StoreError::NotFound { .. })));
    assert!(matches!(store.delete(&f), Err(StoreError::NotFound { .. })));
    assert!(store.rename(&f, &join(base, "other")).is_err());
}

/// An aborted write leaves nothing behind.
fn abort_leaves_nothing(store: &dyn Store, base: &str) {
    let f = join(base, "aborted");
    let mut w = store.create(&f, &WriteOptions::default()).unwrap();
    w.write(&pattern(0, 100_000)).unwrap();
    w.abort().unwrap();
    assert!(!store.exists(&f).unwrap());
    assert!(store.list(base).unwrap().is_empty());
}

/// Reads of a [`pattern`] object: stat, positioned reads, across and past the end.
fn seeded_reads(store: &dyn Store, path: &str, len: u64) {
    assert_eq!(store.stat(path).unwrap().map(|m| (m.size, m.is_dir)), Some((len, false)), "{path}");
    let mut r = store.open(path, &ReadOptions::default()).unwrap();
    assert_eq!(r.len(), len);
    let mut buf = vec![0u8; 1000];
    for offset in [0, len / 2 + 7, len - 1000] {
        assert_eq!(r.read_at(offset, &mut buf).unwrap().bytes, 1000);
        assert!(buf == pattern(offset, 1000), "at {offset}");
    }
    assert_eq!(r.read_at(len, &mut buf).unwrap().bytes, 0, "a read at the end gets nothing");
    assert_eq!(r.read_at(len - 10, &mut buf).unwrap().bytes, 10, "a read across the end gets what is there");
    r.close().unwrap();
}

/// Every store returns the right bytes for a vector of ranges given out of order, neighbouring,
/// overlapping, across the end and at the end. A store that claims concurrent vectored reads and
/// counts its GETs shows it merged the neighbours.
fn vectored_read(store: &dyn Store, path: &str, len: u64, claimed: bool) -> String {
    let ranges: [(u64, usize); 7] =
        [(5_000, 3_000), (0, 100), (100, 100), (150, 100), (len - 50, 50), (len - 10, 100), (len, 10)];
    let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|&(_, n)| vec![0u8; n]).collect();
    let offsets: Vec<u64> = ranges.iter().map(|&(o, _)| o).collect();
    let mut r = store.open(path, &ReadOptions::default()).unwrap();
    let mut slices: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.as_mut_slice()).collect();
    let got = r.read_vector(&offsets, &mut slices).unwrap();
    let want: Vec<usize> = ranges.iter().map(|&(o, n)| (n as u64).min(len.saturating_sub(o)) as usize).collect();
    assert_eq!(got, want, "bytes per range");
    for ((&(o, _), b), &n) in ranges.iter().zip(&bufs).zip(&got) {
        assert!(b[..n] == pattern(o, n), "vectored range at {o}");
    }
    let counters = r.close().unwrap();
    if !claimed {
        return "vectored_read: not claimed; the one-by-one default returns the right bytes".into();
    }
    match counters.iter().find(|(k, _)| k == "get_requests") {
        Some(&(_, gets)) => {
            assert!(gets < ranges.len() as u64, "{gets} GETs for {} ranges: neighbours were not merged", ranges.len());
            format!("vectored_read: claimed; right bytes, {} ranges in {gets} GETs", ranges.len())
        }
        None => "vectored_read: claimed; right bytes from concurrent reads".into(),
    }
}

/// `--drop-cache` and the residency probe: a store whose files sit in this host's page cache says how
/// much of a file is resident and evicts it (what stays is not asserted: tmpfs keeps its pages); the
/// others cannot tell and refuse to evict, naming --drop-cache.
fn page_cache(store: &dyn Store, path: &str, len: u64, claimed: bool) -> String {
    let resident = store.resident_bytes(path, len);
    if !claimed {
        assert_eq!(resident, None, "{} claims no page cache but reports residency", store.url());
        match store.evict(path) {
            Err(StoreError::Unsupported(m)) => assert!(m.contains("--drop-cache"), "{m}"),
            other => panic!("{} claims no page cache but evict gave {:?}", store.url(), other.err()),
        }
        return "page_cache: not claimed; evict refused, residency unknown".into();
    }
    let before = resident.unwrap_or_else(|| panic!("{} claims a page cache but cannot tell residency", store.url()));
    store.evict(path).unwrap();
    let after = store.resident_bytes(path, len).expect("residency after evict");
    assert!(before <= len && after <= len, "residency {before} / {after} of {len} bytes");
    assert!(read_all(store, path) == pattern(0, len as usize), "evicting changed the file");
    format!("page_cache: claimed; {before} of {len} bytes resident, {after} after evict; the bytes unchanged")
}

/// Reading block by block with prefetch gives the right bytes on every store; a store that claims
/// prefetch shows in its read counters that it read ahead.
fn prefetch(store: &dyn Store, path: &str, len: u64, claimed: bool) -> String {
    let block = 4096u64;
    let p = Prefetch { block, depth: 2, end: len };
    let mut r = store.open(path, &ReadOptions { prefetch: Some(p), ..Default::default() }).unwrap();
    let mut buf = vec![0u8; block as usize];
    let mut offset = 0;
    while offset < len {
        let n = r.read_at(offset, &mut buf).unwrap().bytes;
        assert_eq!(n as u64, block.min(len - offset), "block at {offset}");
        assert!(buf[..n] == pattern(offset, n), "prefetched block at {offset}");
        offset += block;
    }
    // A jump back is still served right.
    assert_eq!(r.read_at(block, &mut buf).unwrap().bytes, block as usize);
    assert!(buf == pattern(block, block as usize), "a block read again after the prefetch window moved on");
    let counters = r.close().unwrap();
    if !claimed {
        return "prefetch: not claimed; the option is harmless and reads are right".into();
    }
    let evidence: Vec<String> = counters
        .iter()
        .filter(|(k, v)| PREFETCH_EVIDENCE.contains(&k.as_str()) && *v > 0)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    assert!(!evidence.is_empty(), "{} claims prefetch but its read counters show none: {counters:?}", store.url());
    format!("prefetch: claimed; right bytes, {}", evidence.join(", "))
}

/// O_DIRECT writes and reads of aligned buffers work where claimed, and are refused elsewhere.
fn direct_io(store: &dyn Store, base: &str, claimed: bool) -> String {
    let f = join(base, "direct.bin");
    let opts = WriteOptions { direct: true, ..Default::default() };
    if !claimed {
        let r = store.create(&f, &opts);
        assert!(matches!(r, Err(StoreError::Unsupported(_))), "direct create gave {:?}", r.err());
        assert!(!store.exists(&f).unwrap());
        return "direct_io: not claimed; create(direct) refused".into();
    }
    let n = 2 * aligned::ALIGN;
    let mut data = aligned::AlignedBuf::new(n);
    data.copy_from_slice(&pattern(0, n));
    let mut w = store.create(&f, &opts).unwrap();
    w.write(&data).unwrap();
    w.close().unwrap();
    let mut r = store.open(&f, &ReadOptions { direct: true, ..Default::default() }).unwrap();
    let mut back = aligned::AlignedBuf::new(n);
    assert_eq!(r.read_at(0, &mut back).unwrap().bytes, n);
    assert!(*back == *data, "O_DIRECT read back differs");
    r.close().unwrap();
    store.delete(&f).unwrap();
    "direct_io: claimed; aligned O_DIRECT write and read back".into()
}

/// hflush is accepted between writes and the file is whole after close where claimed, and it is
/// refused elsewhere. Whether a new reader sees the hflushed bytes before close depends on the client
/// as much as the store (a Java HDFS reader asks a DataNode for the visible length; hdfs-native does
/// not), so the line says how many it saw and each store's test asserts its own figure.
fn hflush(store: &dyn Store, base: &str, claimed: bool) -> String {
    let f = join(base, "hflush.bin");
    let mut w = store.create(&f, &WriteOptions::default()).unwrap();
    w.write(&pattern(0, 10_000)).unwrap();
    if !claimed {
        let r = w.hflush();
        assert!(matches!(r, Err(StoreError::Unsupported(_))), "hflush gave {:?}", r.err());
        w.abort().unwrap();
        return "hflush: not claimed; hflush() refused".into();
    }
    w.hflush().unwrap();
    let mut r = store.open(&f, &ReadOptions::default()).unwrap();
    let mut buf = vec![0u8; 10_000];
    let seen = r.read_at(0, &mut buf).unwrap().bytes;
    assert!(buf[..seen] == pattern(0, seen), "what a reader saw before close differs");
    r.close().unwrap();
    w.write(&pattern(10_000, 5_000)).unwrap();
    w.hflush().unwrap();
    w.write(&pattern(15_000, 1_000)).unwrap();
    w.close().unwrap();
    assert!(read_all(store, &f) == pattern(0, 16_000), "the file after hflush, write, hflush, write, close");
    store.delete(&f).unwrap();
    format!("hflush: claimed; accepted between writes, file whole after close; a new reader saw {seen} of 10000 hflushed bytes before close")
}

/// append() adds to the end of an existing file where claimed (and refuses a missing one); it is
/// refused elsewhere.
fn append(store: &dyn Store, base: &str, claimed: bool) -> String {
    let f = join(base, "append.bin");
    put(store, &f, &pattern(0, 1_000), 1_000);
    if !claimed {
        let r = store.append(&f);
        assert!(matches!(r, Err(StoreError::Unsupported(_))), "append gave {:?}", r.err());
        assert!(read_all(store, &f) == pattern(0, 1_000), "a refused append changed the file");
        store.delete(&f).unwrap();
        return "append: not claimed; append() refused, the file unchanged".into();
    }
    let mut w = store.append(&f).unwrap();
    w.write(&pattern(1_000, 500)).unwrap();
    w.close().unwrap();
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(1_500));
    assert!(read_all(store, &f) == pattern(0, 1_500), "appended file differs");
    store.delete(&f).unwrap();
    assert!(store.append(&f).is_err(), "append() to a missing file must fail");
    assert!(!store.exists(&f).unwrap(), "append() to a missing file created it");
    "append: claimed; 1,000 + 500 bytes read back, a missing file refused".into()
}

/// rename moves a file and never replaces an existing one, atomic or not; list shows the result.
fn rename(store: &dyn Store, base: &str, claimed: bool) -> String {
    let (a, b, c) = (join(base, "l1"), join(base, "l2"), join(base, "l3"));
    put(store, &a, b"1", 1);
    put(store, &b, b"22", 2);
    assert_eq!(store.list(base).unwrap(), ["l1", "l2"]);
    store.rename(&a, &c).unwrap();
    assert!(!store.exists(&a).unwrap());
    assert_eq!(store.stat(&c).unwrap().map(|m| m.size), Some(1));
    assert!(store.rename(&b, &c).is_err(), "rename must not replace an existing file");
    assert_eq!(store.stat(&c).unwrap().map(|m| m.size), Some(1), "the existing file is untouched");
    assert_eq!(store.list(base).unwrap(), ["l2", "l3"]);
    store.delete(&b).unwrap();
    store.delete(&c).unwrap();
    if claimed {
        "atomic_rename: claimed; rename moves and never replaces".into()
    } else {
        "atomic_rename: not claimed; rename (copy + delete) moves and never replaces".into()
    }
}

/// Directories are made, seen, refused twice, kept while not empty and removed where claimed;
/// create_dir and remove_dir leave nothing elsewhere.
fn directories(store: &dyn Store, base: &str, claimed: bool) -> String {
    let d = join(base, "dir1");
    if !claimed {
        store.create_dir(&d).unwrap();
        store.remove_dir(&d).unwrap();
        assert!(store.list(base).unwrap().is_empty(), "create_dir left something on a store without directories");
        return "directories: not claimed; create_dir and remove_dir are no-ops".into();
    }
    store.create_dir(&d).unwrap();
    assert_eq!(store.stat(&d).unwrap(), Some(Meta { size: 0, is_dir: true }));
    assert!(store.create_dir(&d).is_err(), "create_dir of an existing directory must fail");
    let f = join(&d, "f");
    put(store, &f, b"x", 1);
    assert_eq!(store.list(&d).unwrap(), ["f"]);
    assert!(store.remove_dir(&d).is_err(), "remove_dir of a directory that is not empty must fail");
    assert!(store.exists(&f).unwrap());
    store.delete(&f).unwrap();
    store.remove_dir(&d).unwrap();
    assert_eq!(store.stat(&d).unwrap(), None);
    "directories: claimed; made, refused twice, kept while not empty, removed".into()
}

/// Another writer that creates the same name while this stream is open is never replaced: either its
/// create is refused (the name was taken at create) or this stream's close is (a conditional PUT).
fn conditional_create(store: &dyn Store, base: &str, claimed: bool) -> String {
    if !claimed {
        return "conditional_create: not claimed; not checked".into();
    }
    let f = join(base, "race.bin");
    let mut mine = store.create(&f, &WriteOptions::default()).unwrap();
    mine.write(b"mine").unwrap();
    let how = match store.create(&f, &WriteOptions::default()) {
        Ok(mut theirs) => {
            theirs.write(b"theirs!").unwrap();
            theirs.close().unwrap();
            let r = mine.close();
            assert!(r.is_err(), "close() replaced an object another writer created");
            let msg = r.err().unwrap().to_string();
            assert!(msg.contains("another writer") || msg.contains("already exists"), "{msg}");
            assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(7), "the other writer's object must survive");
            "the last close was refused".to_string()
        }
        Err(e) => {
            // Refused as existing (files, memory) or as being written by another client (HDFS's lease).
            let why = e.to_string();
            assert!(
                matches!(e, StoreError::AlreadyExists { .. }) || why.contains("writing it"),
                "the second create failed for another reason: {why}"
            );
            mine.close().unwrap();
            assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(4));
            if matches!(e, StoreError::AlreadyExists { .. }) {
                "the second create was refused (exists)".to_string()
            } else {
                "the second create was refused (being written)".to_string()
            }
        }
    };
    store.delete(&f).unwrap();
    format!("conditional_create: claimed; {how}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every capability a store can claim is checked by the suite (or named as not a behaviour).
    #[test]
    fn every_capability_has_a_check() {
        let fields = serde_json::to_value(Capabilities::default()).unwrap();
        let fields: Vec<&str> = fields.as_object().unwrap().keys().map(String::as_str).collect();
        for f in &fields {
            assert!(CHECKED.contains(f) || *f == "in_memory", "capability {f} has no conformance check");
        }
        assert_eq!(CHECKED.len() + 1, fields.len());
    }

    #[test]
    fn memory_store_conforms() {
        let t = memory::MemoryStore::target("conformance/");
        let done = run_all(t.store.as_ref(), "conformance");
        assert_eq!(done.len(), CHECKED.len(), "{done:#?}");
        assert_eq!(claimed(&done), ["writable", "append", "atomic_rename", "conditional_create"], "{done:#?}");
    }

    #[test]
    fn local_store_conforms() {
        // Under the package, not /tmp: a tmpfs /tmp refuses O_DIRECT, which the local store claims.
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let t = local::LocalStore::target(dir.path().to_str().unwrap());
        let done = run_all(t.store.as_ref(), dir.path().to_str().unwrap());
        assert_eq!(done.len(), CHECKED.len(), "{done:#?}");
        let want = [
            "writable",
            "direct_io",
            "hflush",
            "append",
            "atomic_rename",
            "directories",
            "conditional_create",
            "prefetch",
            "page_cache",
        ];
        assert_eq!(claimed(&done), want, "{done:#?}");
        assert!(done[2].ends_with("saw 10000 of 10000 hflushed bytes before close"), "{}", done[2]);
    }
}
