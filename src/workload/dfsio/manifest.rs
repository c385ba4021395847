//! The ledger of what `dfsio -write` created: `ROOT/storebench-dfsio.manifest`, a text file in the
//! store that lists the task files (names in `io_data`) and the directories the runs made. `-write`
//! replaces and `-append` extends only files it lists, and `-clean` deletes only what it lists, so no
//! file storebench did not create is ever written to or deleted, whatever its name.

use super::DfsioPlan;
use crate::store::{join, ReadOptions, StoreError, Target, WriteOptions};
use std::collections::BTreeSet;

/// The manifest's file name, in the benchmark's root.
pub const NAME: &str = "storebench-dfsio.manifest";
/// Its first line: a file without it is not storebench's and is never replaced.
const HEADER: &str = "# storebench dfsio manifest v1";
/// The largest manifest read.
const MAX_BYTES: u64 = 64 << 20;

/// What earlier `-write` runs created under one root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Task file names in `io_data` (test_io_K).
    pub files: BTreeSet<String>,
    /// Directories the runs made, full store paths.
    pub dirs: BTreeSet<String>,
    /// The MPI ranks of the last -write (task K was written by rank K mod ranks).
    pub ranks: Option<u32>,
}

/// Where the manifest of `plan`'s root lives.
pub fn path(plan: &DfsioPlan) -> String {
    join(&plan.root, NAME)
}

impl Manifest {
    /// The manifest as text.
    pub fn render(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(r) = self.ranks {
            out.push_str(&format!("ranks {r}\n"));
        }
        for d in &self.dirs {
            out.push_str(&format!("dir {d}\n"));
        }
        for f in &self.files {
            out.push_str(&format!("file {f}\n"));
        }
        out
    }

    /// Parses a manifest's text; `None` when it is not a storebench manifest.
    pub fn parse(text: &str) -> Option<Manifest> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut m = Manifest::default();
        for l in lines {
            match l.split_once(' ') {
                Some(("dir", d)) => m.dirs.insert(d.to_string()),
                Some(("ranks", r)) => {
                    m.ranks = Some(r.parse().ok().filter(|&r| r >= 1)?);
                    true
                }
                // Only plain names: never a path that could point outside io_data.
                Some(("file", f)) if !f.is_empty() && !f.contains('/') && f != ".." && f != "." => {
                    m.files.insert(f.to_string())
                }
                _ => return None,
            };
        }
        Some(m)
    }
}

/// Reads the manifest of `plan`'s root: `Ok(None)` when there is none; an error when a file of that
/// name is not a storebench manifest.
pub fn read(target: &Target, plan: &DfsioPlan) -> Result<Option<Manifest>, String> {
    let p = path(plan);
    let mut r = match target.store.open(&p, &ReadOptions::default()) {
        Ok(r) => r,
        Err(StoreError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(format!("reading the manifest {p}: {e}")),
    };
    if r.len() > MAX_BYTES {
        return Err(format!("{p} holds {} bytes: it is not a storebench manifest (at most 64 MiB)", r.len()));
    }
    let mut buf = vec![0u8; r.len() as usize];
    let got = r.read_at(0, &mut buf).map_err(|e| format!("reading the manifest {p}: {e}"))?;
    let _ = r.close();
    buf.truncate(got.bytes);
    let text = String::from_utf8_lossy(&buf);
    Manifest::parse(&text)
        .map(Some)
        .ok_or_else(|| format!("{p} exists but is not a storebench manifest: storebench will not touch it or the files beside it; give another -rootDir"))
}

/// Writes the manifest (replacing the one `read` found, which is storebench's own).
pub fn write(target: &Target, plan: &DfsioPlan, m: &Manifest, replace: bool) -> Result<(), String> {
    let p = path(plan);
    let text = m.render();
    let opts = WriteOptions { overwrite: replace, size_hint: Some(text.len() as u64), ..Default::default() };
    let fail = |e: StoreError| format!("writing the manifest {p}: {e}");
    let mut w = target.store.create(&p, &opts).map_err(fail)?;
    if let Err(e) = w.write(text.as_bytes()) {
        let _ = w.abort();
        return Err(fail(e));
    }
    w.close().map(|_| ()).map_err(fail)
}

/// Deletes the manifest.
pub fn remove(target: &Target, plan: &DfsioPlan) -> Result<(), String> {
    match target.store.delete(&path(plan)) {
        Ok(()) | Err(StoreError::NotFound { .. }) => Ok(()),
        Err(e) => Err(format!("deleting the manifest {}: {e}", path(plan))),
    }
}

/// Whether `dir` is `data` itself or one of its parents: the only directories `-write` makes, and so
/// the only ones `-clean` may remove, whatever a manifest lists.
pub fn on_the_way_to(dir: &str, data: &str) -> bool {
    let d = dir.trim_end_matches('/');
    !d.is_empty() && (data == d || data.strip_prefix(d).is_some_and(|rest| rest.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_only_the_directories_on_the_way_to_io_data() {
        assert!(on_the_way_to("/r/T/io_data", "/r/T/io_data"));
        assert!(on_the_way_to("/r/T", "/r/T/io_data"));
        assert!(on_the_way_to("/r", "/r/T/io_data"));
        assert!(!on_the_way_to("/r/T2", "/r/T/io_data"), "a sibling sharing a prefix");
        assert!(!on_the_way_to("/elsewhere", "/r/T/io_data"));
        assert!(!on_the_way_to("/r/T/io_data/x", "/r/T/io_data"));
        assert!(!on_the_way_to("", "/r/T/io_data"));
    }

    #[test]
    fn a_planted_manifest_cannot_make_clean_remove_another_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("T");
        let other = tmp.path().join("other");
        std::fs::create_dir_all(root.join("io_data")).unwrap();
        std::fs::create_dir(&other).unwrap();
        let text = format!("{HEADER}\ndir {}\ndir {}/io_data\n", other.display(), root.display());
        std::fs::write(root.join(NAME), text).unwrap();
        let target = crate::store::local::LocalStore::target(root.to_str().unwrap());
        let plan = DfsioPlan {
            mode: super::super::Mode::Clean,
            order: super::super::ReadOrder::Sequential,
            nr_files: 1,
            file_size: 1,
            buffer_size: 1,
            threads: 1,
            root: root.display().to_string(),
            seed: 1,
            data: crate::workload::data::TestData { seed: 1, ..Default::default() },
            drop_cache: None,
            reorder: None,
            ranks: 1,
        };
        super::super::clean(&target, &plan).unwrap();
        assert!(other.is_dir(), "an empty directory the manifest named but -write never makes");
        assert!(!root.join("io_data").exists(), "io_data, listed and empty, is removed");
    }

    #[test]
    fn round_trip_and_foreign_files() {
        let mut m = Manifest::default();
        m.files.insert("test_io_0".into());
        m.files.insert("test_io_1".into());
        m.dirs.insert("/r/io_data".into());
        m.ranks = Some(4);
        assert_eq!(Manifest::parse(&m.render()), Some(m));
        assert_eq!(Manifest::parse(&format!("{HEADER}\nranks 0\n")), None);
        assert_eq!(Manifest::parse("hello\n"), None);
        assert_eq!(Manifest::parse(&format!("{HEADER}\nfile ../etc/passwd\n")), None);
        assert_eq!(Manifest::parse(&format!("{HEADER}\nrm -rf /\n")), None);
    }
}
