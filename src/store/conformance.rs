//! The shared store conformance suite: what every backend must do the same way. Each backend's tests
//! call [`run_all`] with a fresh, empty base path in its store. Failures panic with what was expected.

use super::*;

fn p(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{}/{name}", base.trim_end_matches('/'))
    }
}

fn put(store: &dyn Store, path: &str, data: &[u8], block: usize) {
    let mut w = store.create(path, &WriteOptions { size_hint: Some(data.len() as u64), ..Default::default() }).unwrap();
    for chunk in data.chunks(block.max(1)) {
        w.write(chunk).unwrap();
    }
    w.close().unwrap();
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// Runs every check on `store` under `base` (a directory that exists and is empty, or a fresh prefix).
pub fn run_all(store: &dyn Store, base: &str) {
    put_get_and_stat(store, base);
    ranges(store, base);
    streaming_read(store, base);
    create_refuses_existing(store, base);
    list_rename_delete(store, base);
    missing_paths(store, base);
    abort_leaves_nothing(store, base);
}

/// What is written reads back byte for byte, and stat reports its size.
pub fn put_get_and_stat(store: &dyn Store, base: &str) {
    let f = p(base, "a.bin");
    let d = data(300_000);
    put(store, &f, &d, 65_536);
    assert_eq!(store.stat(&f).unwrap(), Some(Meta { size: 300_000, is_dir: false }));
    assert!(store.exists(&f).unwrap());
    let mut r = store.open(&f, &ReadOptions::default()).unwrap();
    assert_eq!(r.len(), 300_000);
    let mut buf = vec![0u8; 300_000];
    let info = r.read_at(0, &mut buf).unwrap();
    assert_eq!(info.bytes, 300_000);
    assert!(buf == d, "read back differs");
    r.close().unwrap();
    store.delete(&f).unwrap();
    put(store, &f, &[], 1);
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(0), "empty file");
    store.delete(&f).unwrap();
}

/// Positioned reads anywhere, including a short read at the end and a read past the end.
pub fn ranges(store: &dyn Store, base: &str) {
    let f = p(base, "r.bin");
    let d = data(10_000);
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

/// One streaming read returns the whole file in order.
pub fn streaming_read(store: &dyn Store, base: &str) {
    let f = p(base, "s.bin");
    let d = data(70_000);
    put(store, &f, &d, 7000);
    let mut r = store.open(&f, &ReadOptions { sequential: true, ..Default::default() }).unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 16_384];
    loop {
        let n = r.read_next(&mut buf).unwrap().bytes;
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    assert!(got == d, "streamed {} bytes, expected {}", got.len(), d.len());
    r.close().unwrap();
    store.delete(&f).unwrap();
}

/// create() refuses an existing path unless overwrite, and overwrite replaces it.
pub fn create_refuses_existing(store: &dyn Store, base: &str) {
    let f = p(base, "x.bin");
    put(store, &f, b"first", 5);
    let refused = store.create(&f, &WriteOptions::default()).and_then(|w| w.close());
    assert!(matches!(refused, Err(StoreError::AlreadyExists { .. })), "{:?}", refused.err());
    let mut w = store.create(&f, &WriteOptions { overwrite: true, ..Default::default() }).unwrap();
    w.write(b"second!").unwrap();
    w.close().unwrap();
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(7));
    store.delete(&f).unwrap();
}

/// Object stores: an object another writer creates between create() and close() of a stream without
/// `overwrite` survives, and the stream's close() fails saying so (a conditional PUT). Local files need
/// no such check: create() itself makes the file exclusively.
pub fn create_race_keeps_the_other_writer(store: &dyn Store, base: &str) {
    let f = p(base, "race.bin");
    let mut mine = store.create(&f, &WriteOptions::default()).unwrap();
    mine.write(b"mine").unwrap();
    put(store, &f, b"theirs!", 7);
    let r = mine.close();
    assert!(r.is_err(), "close() replaced an object another writer created");
    let msg = r.err().unwrap().to_string();
    assert!(msg.contains("another writer"), "{msg}");
    assert_eq!(store.stat(&f).unwrap().map(|m| m.size), Some(7), "the other writer's object must survive");
    store.delete(&f).unwrap();
}

/// list shows direct children; rename moves without replacing; delete removes.
pub fn list_rename_delete(store: &dyn Store, base: &str) {
    let (a, b, c) = (p(base, "l1"), p(base, "l2"), p(base, "l3"));
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
    assert!(store.list(base).unwrap().is_empty());
}

/// Missing paths are reported as such.
pub fn missing_paths(store: &dyn Store, base: &str) {
    let f = p(base, "missing");
    assert_eq!(store.stat(&f).unwrap(), None);
    assert!(!store.exists(&f).unwrap());
    assert!(matches!(store.open(&f, &ReadOptions::default()).err(), Some(StoreError::NotFound { .. })));
    assert!(matches!(store.delete(&f), Err(StoreError::NotFound { .. })));
    assert!(store.rename(&f, &p(base, "other")).is_err());
}

/// An aborted write leaves nothing behind.
pub fn abort_leaves_nothing(store: &dyn Store, base: &str) {
    let f = p(base, "aborted");
    let mut w = store.create(&f, &WriteOptions::default()).unwrap();
    w.write(&data(100_000)).unwrap();
    w.abort().unwrap();
    assert!(!store.exists(&f).unwrap());
    assert!(store.list(base).unwrap().is_empty());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_store_conforms() {
        let t = memory::MemoryStore::target("conformance/");
        run_all(t.store.as_ref(), "conformance");
    }

    #[test]
    fn local_store_conforms() {
        let dir = tempfile::tempdir().unwrap();
        let t = local::LocalStore::target(dir.path().to_str().unwrap());
        run_all(t.store.as_ref(), dir.path().to_str().unwrap());
    }
}
