//! What an ops run makes before it starts (the files --prepare writes, the base directory) and
//! removes at its end: only what it made, from its ledger.

use super::*;

/// The file thread `k` works on.
pub fn file_of(dir: &str, k: usize) -> String {
    join(dir, &format!("test_{k}"))
}

/// Before a repeat, outside its timing: --drop-cache's eviction of what this rank's threads are about
/// to read (each thread's test_K for open_read, the single file for single_read and prefetch_read),
/// then how much of it is in the page cache. None when nothing is read or the store cannot tell.
pub fn before_read(
    plan: &OpsPlan,
    target: &Target,
    prepared: &Prepared,
    first: usize,
    rank: u32,
) -> Result<Option<crate::stats::findings::Residency>, String> {
    let mut files: Vec<String> = Vec::new();
    if plan.has(Op::OpenRead) {
        files.extend((0..plan.threads).map(|k| file_of(&prepared.base, plan.reads_of(first + k))));
    }
    if plan.has(Op::SingleRead) || plan.has(Op::PrefetchRead) {
        files.extend(prepared.single.clone());
    }
    if files.is_empty() {
        return Ok(None);
    }
    let sized: Option<Vec<(String, u64)>> =
        files.into_iter().map(|f| target.store.stat(&f).ok().flatten().map(|m| (f, m.size))).collect();
    match sized {
        Some(files) => crate::workload::before_read(target, &files, "read", rank, plan.drop_cache),
        None => Ok(None),
    }
}

/// The files a run made and must remove, and the base directory it made, if any.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Prepared {
    /// The base directory or prefix the operations work in.
    pub base: String,
    /// storebench made `base` itself (a fresh temporary directory).
    pub made_base: bool,
    /// Files storebench created before the run.
    pub files: Vec<String>,
    /// The file single_read and prefetch_read read.
    pub single: Option<String>,
    /// The threads (K of test_K) whose create_write has created their file in this process: a file
    /// is created exclusively until then, and replaced only after.
    #[serde(skip)]
    pub written: std::sync::Mutex<std::collections::BTreeSet<usize>>,
}

pub(super) fn write_file(
    target: &Target,
    path: &str,
    size: u64,
    buffer: u64,
    (data, pattern): (&mut [u8], &DataPattern),
    overwrite: bool,
) -> Result<(), StoreError> {
    let opts = WriteOptions { overwrite, size_hint: Some(size), ..Default::default() };
    let mut w = target.store.create(path, &opts)?;
    let mut left = size;
    while left > 0 {
        let n = left.min(buffer) as usize;
        pattern.stamp(&mut data[..n], (size - left) / buffer);
        if let Err(e) = w.write(&data[..n]) {
            let _ = w.abort();
            return Err(e);
        }
        left -= n as u64;
    }
    w.close().map(|_| ())
}

/// Checks and creates what the operations need before the first repeat: the base directory, the
/// threads' files (with --prepare, or checks they exist), delete's files, the single-read file.
/// `reuse`: what an earlier point of a sweep prepared for the same files (this run makes only what
/// is missing, and owns all of it).
pub fn prepare(
    target: &Target,
    plan: &OpsPlan,
    default_base: bool,
    reuse: Option<Prepared>,
) -> Result<Prepared, String> {
    let reused = reuse.is_some();
    let mut p =
        reuse.unwrap_or_else(|| Prepared { base: target.path.trim_end_matches('/').to_string(), ..Default::default() });
    match prepare_into(target, plan, default_base && !reused, &mut p) {
        Ok(()) => Ok(p),
        Err(e) => {
            // Nothing runs: take back what was made so far.
            let _ = remove_made(target, &p, Vec::new());
            Err(e)
        }
    }
}

fn prepare_into(target: &Target, plan: &OpsPlan, default_base: bool, p: &mut Prepared) -> Result<(), String> {
    let store = &target.store;
    if default_base {
        p.base = join(&p.base, &crate::workload::bandwidth::unique_name());
        store.create_dir(&p.base).map_err(|e| format!("cannot create the run directory: {e}"))?;
        p.made_base = true;
    } else if !p.base.is_empty() && store.capabilities().directories {
        match store.stat(&p.base).map_err(|e| e.to_string())? {
            Some(m) if m.is_dir => {}
            Some(_) => return Err(format!("{} is a file; ops needs a directory or prefix to work in", p.base)),
            None => {
                return Err(format!("directory {} does not exist; create it first or give an existing one", p.base))
            }
        }
    }
    let size = if plan.file_size == 0 { 10 << 20 } else { plan.file_size };
    let pattern = plan.data.pattern(plan.buffer_size as usize);
    let data = std::cell::RefCell::new(pattern.buffer());
    // Every file made here is created exclusively and goes into the ledger (`p.files`) that the
    // clean-up deletes from: nothing that was there before the run is replaced or removed.
    let make = |p: &mut Prepared, path: String, size: u64| -> Result<(), String> {
        write_file(target, &path, size, plan.buffer_size, (&mut data.borrow_mut(), &pattern), false).map_err(|e| {
            match e {
                StoreError::AlreadyExists { .. } => format!(
                "{path} already exists: storebench creates only files of its own; remove it or use another directory"
            ),
                e => format!("preparing {path}: {e}"),
            }
        })?;
        p.files.push(path);
        Ok(())
    };
    let exists = |f: &str| store.exists(f).map_err(|e| e.to_string());
    if plan.has(Op::CreateWrite) {
        // create_write writes test_K itself, alone or in a mix: it must never take over a file that is
        // already there (whoever made it), so a run that writes starts from none of them.
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if exists(&f)? {
                return Err(format!(
                    "{f} already exists (left by an earlier --keep run?): create_write will not overwrite it; remove it or use another directory"
                ));
            }
        }
    }
    if plan.has(Op::Rename) && !store.capabilities().atomic_rename {
        // rename goes to test_K_new and back. Where rename is a copy that would replace test_K_new
        // (object stores), that name must be free before the run; elsewhere a rename onto an existing
        // name fails on its own, without replacing it, and counts as a failed operation.
        for k in 0..plan.threads {
            let f = format!("{}_new", file_of(&p.base, k));
            if exists(&f)? {
                return Err(format!("{f} already exists: rename would replace it; remove it or use another directory"));
            }
        }
    }
    let thread_files = plan.needs_thread_files() || (plan.mix.len() > 1 && plan.has(Op::CreateWrite));
    if thread_files {
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if exists(&f)? {
                continue;
            }
            if !plan.prepare {
                return Err(format!(
                    "{f} does not exist: {} reads the files `storebench ops --op create_write --keep` leaves in {}; run that first (same --threads), or add --prepare",
                    plan.name(),
                    if p.base.is_empty() { "the store's root" } else { &p.base }
                ));
            }
            make(p, f, size)?;
        }
    }
    if plan.has(Op::Delete) {
        let n = plan.iterations.unwrap_or(0);
        for k in 0..plan.threads {
            for i in 0..n * plan.repeats as u64 {
                let f = join(&p.base, &format!("test_{k}_{i}"));
                make(p, f, 0)?;
            }
        }
    }
    if plan.has(Op::List) && plan.prepare && !thread_files {
        for k in 0..plan.threads {
            let f = file_of(&p.base, k);
            if !exists(&f)? {
                make(p, f, 0)?;
            }
        }
    }
    if plan.needs_single_file() && p.single.is_none() {
        match &plan.file_path {
            Some(f) => match store.stat(f).map_err(|e| e.to_string())? {
                Some(m) if !m.is_dir => p.single = Some(f.clone()),
                _ => {
                    return Err(format!(
                        "--file-path {f} does not exist (or is a directory): give an existing file to read"
                    ))
                }
            },
            None if plan.prepare => {
                // Random reads need room to land in: at least 64 MiB.
                let f = join(&p.base, "single_read.dat");
                make(p, f.clone(), if plan.random { size.max(64 << 20) } else { size })?;
                p.single = Some(f);
            }
            None => {
                return Err(format!(
                    "{} reads one given file: pass --file-path (conf: file_path), or add --prepare to make one",
                    plan.name()
                ))
            }
        }
    }
    Ok(())
}

/// Removes what the run created unless `--keep`: the files --prepare made, create_write's files (none
/// existed before the run: `prepare` refuses to start otherwise), and a base directory storebench made.
/// Returns what could not be removed.
pub fn cleanup(plan: &OpsPlan, target: &Target, prepared: &Prepared) -> Vec<String> {
    if plan.keep {
        return Vec::new();
    }
    let written = if plan.has(Op::CreateWrite) {
        (0..plan.threads).map(|k| file_of(&prepared.base, k)).collect()
    } else {
        Vec::new()
    };
    remove_made(target, prepared, written)
}

/// Removes the files `prepare` made plus `more`, and the base directory if storebench made it.
fn remove_made(target: &Target, prepared: &Prepared, more: Vec<String>) -> Vec<String> {
    let mut errors = Vec::new();
    let store = &target.store;
    let mut files = prepared.files.clone();
    files.extend(more);
    files.sort();
    files.dedup();
    for f in files {
        match store.delete(&f) {
            Ok(()) | Err(StoreError::NotFound { .. }) => {}
            Err(e) => errors.push(format!("deleting {f}: {e}")),
        }
    }
    if prepared.made_base {
        if let Err(e) = store.remove_dir(&prepared.base) {
            errors.push(format!("removing the run directory {}: {e}", prepared.base));
        }
    }
    errors
}
