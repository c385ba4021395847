//! `bandwidth`: upload one file in blocks, optionally rename it, download it with a read policy, delete
//! it. Each block, the create/open and the close() are timed on their own (cloudstore's bandwidth).

mod order;
pub use order::{read_order, ReadOrder};
mod report;
pub use report::*;

use super::data::DataPattern;
use super::Failure;
use crate::run::RunContext;
use crate::stats::aggregate;
use crate::stats::cpu::CpuTimes;
use crate::stats::report::{add_counter_groups, BandwidthParams, CounterGroup, Params, RunReport, TaskReport};
use crate::stats::sample::{AccumulatorData, Event, OpKind, Recorder};
use crate::store::aligned::AlignedBuf;
use crate::store::{join, Prefetch, ReadOptions, StoreError, Target, WriteOptions};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How the file is read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReadPolicy {
    /// One streaming read from start to end, consumed a block at a time.
    WholeFile,
    /// Block-sized positioned reads in file order.
    Sequential,
    /// Block-sized positioned reads in a seeded random order.
    Random,
    /// Block-sized reads in order, with `--prefetch N` blocks fetched ahead in parallel (Hadoop 3.3.6's
    /// S3A prefetching; readahead advice on local files).
    Prefetch,
    /// `--prefetch N` block ranges at a time in one vectored read (Hadoop's readVectored; on object
    /// stores ranges less than 1 MiB apart merge into one GET and merged GETs run in parallel).
    Vector,
}

impl ReadPolicy {
    /// The policy's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            ReadPolicy::WholeFile => "whole-file",
            ReadPolicy::Sequential => "sequential",
            ReadPolicy::Random => "random",
            ReadPolicy::Prefetch => "prefetch",
            ReadPolicy::Vector => "vector",
        }
    }
}

/// A validated bandwidth plan.
#[derive(Clone, Debug)]
pub struct BandwidthPlan {
    /// Bytes to upload and download.
    pub size: u64,
    /// Bytes per block.
    pub block: u64,
    /// Read policy.
    pub policy: ReadPolicy,
    /// Hand each block to the OS after writing it.
    pub flush: bool,
    /// Make each block durable after writing it.
    pub hflush: bool,
    /// Keep the file (and the run directory) at the end.
    pub keep: bool,
    /// Rename the file to `<name>.renamed` between upload and download.
    pub rename: bool,
    /// Check every byte read.
    pub verify: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// fsync inside close().
    pub fsync_on_close: bool,
    /// Replace an existing file.
    pub overwrite: bool,
    /// Only download the first `size` bytes of an existing file; write and delete nothing.
    pub read_only: bool,
    /// Seed of the data pattern and of the random read order.
    pub seed: u64,
    /// The test data written (`--data`).
    pub data: crate::workload::data::TestData,
    /// What to evict from the page cache before each read phase (`--drop-cache`).
    pub drop_cache: Option<crate::workload::DropCache>,
    /// Blocks read ahead with the prefetch policy.
    pub prefetch: usize,
}

impl BandwidthPlan {
    /// Number of blocks: ceil(size / block).
    pub fn blocks(&self) -> u64 {
        self.size.div_ceil(self.block)
    }
}

/// Where the run writes: the file, and the run directory if storebench created one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// The data file's path in the store (with several ranks, each adds `.rank<R>` to it).
    pub file: String,
    /// A directory created for this run, removed at the end unless `--keep`.
    pub run_dir: Option<String>,
    /// Processes, each with its own file.
    pub ranks: u32,
    /// The rank this layout is of (its data is drawn from the run's seed for this rank).
    #[serde(default)]
    pub rank: u32,
    /// With `--reorder`, the rank whose file the download reads instead of this rank's own, and
    /// that file.
    #[serde(default)]
    pub reads_from: Option<(u32, String)>,
}

impl Layout {
    /// The file rank `r` works on: the file itself in a run of one, else `<file>.rank<r>`.
    pub fn file_of(&self, r: u32) -> String {
        if self.ranks <= 1 {
            self.file.clone()
        } else {
            format!("{}.rank{r}", self.file)
        }
    }

    /// Rank `r`'s own layout. With several ranks it leaves the run directory to rank 0, which
    /// removes it once every rank is done; with `--reorder N` its download reads rank (r + N) mod
    /// ranks's file.
    pub fn of_rank(&self, r: u32, reorder: Option<u32>) -> Layout {
        let run_dir = if self.ranks <= 1 { self.run_dir.clone() } else { None };
        let reads_from =
            reorder.map(|n| crate::workload::reorder_source(r, self.ranks, n)).map(|w| (w, self.file_of(w)));
        Layout { file: self.file_of(r), run_dir, ranks: 1, rank: r, reads_from }
    }

    fn files(&self) -> Vec<String> {
        (0..self.ranks.max(1)).map(|r| self.file_of(r)).collect()
    }
}

fn parent(path: &str) -> Option<&str> {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&trimmed[..i]),
        None => None,
    }
}

/// A name no other run uses: storebench-<pid>-<nanoseconds since the Unix epoch>.
pub fn unique_name() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("storebench-{}-{nanos}", std::process::id())
}

/// Decides the file to write: inside a fresh run directory when the URL names a directory (or the store's
/// root), else the URL's path itself, which must not exist unless `--overwrite`. Creates the run directory.
/// With several ranks every rank has its own file, `<file>.rank<R>`, and all of them are checked.
pub fn prepare_layout(plan: &BandwidthPlan, target: &Target, ranks: u32) -> Result<Layout, String> {
    let store = &target.store;
    let path = target.path.as_str();
    let meta = store.stat(path).map_err(|e| e.to_string())?;
    let given = Layout { file: path.to_string(), run_dir: None, ranks, rank: 0, reads_from: None };
    if plan.read_only {
        for f in given.files() {
            let m = if f == path { meta } else { store.stat(&f).map_err(|e| e.to_string())? };
            match m {
                Some(m) if !m.is_dir && m.size >= plan.size => {}
                Some(m) if !m.is_dir => {
                    return Err(format!(
                        "--read-only: {f} holds {} bytes, fewer than SIZE {}: give a SIZE of at most {}",
                        m.size, plan.size, m.size
                    ))
                }
                Some(_) => return Err(format!("--read-only needs an existing file or object; {f} is a directory")),
                None => return Err(format!("--read-only needs an existing file or object; {f} does not exist")),
            }
        }
        return Ok(given);
    }
    let need = plan.size.saturating_mul(ranks.max(1) as u64);
    let what = format!("SIZE {}", crate::units::human_bytes(need));
    crate::store::ensure_room(
        store.as_ref(),
        if path.is_empty() { "." } else { path },
        need,
        &what,
        "; give a smaller SIZE",
    )?;
    let is_dir = path.is_empty() || path.ends_with('/') || meta.is_some_and(|m| m.is_dir);
    if is_dir {
        if store.capabilities().directories && meta.is_none() {
            return Err(format!("directory {path} does not exist; create it first or give an existing one"));
        }
        let dir = join(path, &unique_name());
        store.create_dir(&dir).map_err(|e| format!("cannot create the run directory: {e}"))?;
        return Ok(Layout { file: join(&dir, "bandwidth.dat"), run_dir: Some(dir), ranks, rank: 0, reads_from: None });
    }
    for f in given.files() {
        // --overwrite replaces regular files only: never a device, FIFO, socket or link.
        store.check_replaceable(&f).map_err(|e| e.to_string())?;
    }
    if !plan.overwrite {
        for f in given.files() {
            let exists = if f == path { meta.is_some() } else { store.stat(&f).map_err(|e| e.to_string())?.is_some() };
            if exists {
                return Err(StoreError::AlreadyExists { path: f }.to_string());
            }
        }
    }
    if store.capabilities().directories {
        if let Some(p) = parent(path) {
            match store.stat(p).map_err(|e| e.to_string())? {
                Some(m) if m.is_dir => {}
                Some(_) => return Err(format!("{p} is not a directory, so {path} cannot be created in it")),
                None => return Err(format!("parent directory {p} does not exist; create it first")),
            }
        }
    }
    Ok(given)
}

/// What a bandwidth run leaves besides its recorded operations.
#[derive(Debug, Default)]
pub struct BandwidthRun {
    /// Process CPU time during the upload phase.
    pub upload_cpu: CpuTimes,
    /// Process CPU time during the download phase.
    pub download_cpu: CpuTimes,
    /// Counters of the streams and the store.
    pub counters: Vec<CounterGroup>,
    /// Why the run stopped early, if it did.
    pub failure: Option<Failure>,
    /// Problems met while cleaning up (they do not change the figures).
    pub cleanup_errors: Vec<String>,
    /// Page-cache residency of the file just before the download (local files).
    pub residency: Vec<crate::stats::findings::Residency>,
    /// What the upload left dirty in the page cache (local files without a durability option).
    pub dirty: Vec<crate::stats::findings::Dirty>,
    /// Time the threads waited for a CPU in each phase.
    pub cpu_wait: Vec<crate::stats::findings::CpuWait>,
}

impl BandwidthRun {
    /// Records how long the threads waited for a CPU since `before` (a schedstat reading).
    fn waited(&mut self, phase: &str, before: Option<f64>) {
        if let Some(wait_s) = crate::run::cpu_wait_since(before) {
            self.cpu_wait.push(crate::stats::findings::CpuWait { phase: phase.into(), rank: 0, wait_s });
        }
    }
}

struct Bw<'a> {
    plan: &'a BandwidthPlan,
    target: &'a Target,
    ctx: &'a RunContext,
    rec: &'a mut Recorder,
    pattern: DataPattern,
    /// --verify: blocks that differed from what was written, and the first wrong byte's offset.
    bad: (u64, Option<u64>),
}

impl Bw<'_> {
    /// --verify of one block read at `offset`: a bad block is counted and the run reads on, so the
    /// report says how many blocks were bad, not only the first.
    fn verify_block(&mut self, offset: u64, data: &[u8]) {
        if let Err(at) = self.pattern.verify(offset, data) {
            self.bad = (self.bad.0 + 1, self.bad.1.or(Some(at)));
        }
    }

    /// Records one operation; `at` is (start, first byte, end).
    fn record(&mut self, op: OpKind, bytes: u64, offset: u64, at: [Instant; 3], err: Option<&StoreError>) {
        let [t0, first, t1] = at;
        self.rec.record(Event {
            op,
            bytes,
            offset,
            start_ns: self.ctx.ns(t0),
            first_byte_ns: self.ctx.ns(first),
            end_ns: self.ctx.ns(t1),
            error: err.map(|e| e.to_string()),
        });
    }

    fn timed<T>(
        &mut self,
        op: OpKind,
        offset: u64,
        f: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let t0 = Instant::now();
        let r = f();
        let t1 = Instant::now();
        self.record(op, 0, offset, [t0, t1, t1], r.as_ref().err());
        r
    }

    fn upload(&mut self, file: &str, out: &mut BandwidthRun) -> Result<(), Failure> {
        let plan = self.plan;
        let store = self.target.store.clone();
        let opts = WriteOptions {
            direct: plan.direct,
            fsync_on_close: plan.fsync_on_close,
            overwrite: plan.overwrite,
            size_hint: Some(plan.size),
        };
        let mut buf = self.pattern.buffer();
        let start = Instant::now();
        let mut stream = self
            .timed(OpKind::CreateFile, 0, || store.create(file, &opts))
            .map_err(|e| Failure::Failed(e.to_string()))?;
        let mut written = 0u64;
        for i in 0..plan.blocks() {
            if self.ctx.stopping() {
                self.give_up(stream, file, out);
                return Err(Failure::Interrupted);
            }
            let len = plan.block.min(plan.size - written) as usize;
            let data = &mut buf[..len];
            self.pattern.stamp(data, i);
            let t0 = Instant::now();
            let mut r = stream.write(data);
            if r.is_ok() && plan.flush {
                r = stream.flush();
            }
            if r.is_ok() && plan.hflush {
                r = stream.hflush();
            }
            let t1 = Instant::now();
            self.record(OpKind::UploadBlock, len as u64, written, [t0, t1, t1], r.as_ref().err());
            if let Err(e) = r {
                self.give_up(stream, file, out);
                return Err(Failure::Failed(format!("upload failed after {written} bytes: {e}")));
            }
            written += len as u64;
            self.ctx.bytes_done.fetch_add(len as u64, Ordering::Relaxed);
        }
        let closed = self.timed(OpKind::CloseUpload, written, || stream.close()).map_err(|e| {
            // close() failed: the file may or may not exist; remove it unless kept (it is ours).
            if !plan.keep {
                let _ = store.delete(file);
            }
            Failure::Failed(format!("close() of the upload failed: {e}"))
        })?;
        let end = Instant::now();
        for p in &closed.parts {
            self.record(OpKind::UploadPart, p.bytes, p.offset, [p.start, p.end, p.end], None);
        }
        out.counters.push(CounterGroup { scope: "upload stream".into(), counters: closed.counters });
        self.record(OpKind::Upload, written, 0, [start, end, end], None);
        Ok(())
    }

    /// Ends a failed or interrupted upload: keeps what was written with --keep, else removes it.
    fn give_up(&mut self, stream: Box<dyn crate::store::WriteStream>, file: &str, out: &mut BandwidthRun) {
        let r = if self.plan.keep { stream.close().map(drop) } else { stream.abort() };
        if let Err(e) = r {
            out.cleanup_errors.push(format!("cleaning up the partial file {file}: {e}"));
        }
    }

    /// Reads the blocks `indexes` in one vectored call; each block is recorded with the call's start
    /// and end (a vectored read delivers them together). Returns the time --verify took.
    fn read_vector(
        &mut self,
        stream: &mut dyn crate::store::ReadStream,
        file: &str,
        indexes: &[u64],
        buf: &mut [u8],
    ) -> Result<std::time::Duration, Failure> {
        let plan = self.plan;
        let offsets: Vec<u64> = indexes.iter().map(|i| i * plan.block).collect();
        let lens: Vec<usize> = offsets.iter().map(|&o| plan.block.min(plan.size - o) as usize).collect();
        let mut bufs: Vec<&mut [u8]> =
            buf.chunks_mut(plan.block as usize).zip(&lens).map(|(b, &n)| &mut b[..n]).collect();
        let t0 = Instant::now();
        let r = stream.read_vector(&offsets, &mut bufs);
        let t1 = Instant::now();
        let got = match r {
            Ok(got) => got,
            Err(e) => {
                self.record(OpKind::DownloadBlock, lens[0] as u64, offsets[0], [t0, t1, t1], Some(&e));
                return Err(Failure::Failed(format!("vectored read at offset {} failed: {e}", offsets[0])));
            }
        };
        for ((&offset, &len), &n) in offsets.iter().zip(&lens).zip(&got) {
            if n != len {
                let e = StoreError::Failed {
                    op: "read",
                    path: file.to_string(),
                    detail: format!("got {n} bytes at offset {offset}, expected {len}: the file ended early"),
                };
                self.record(OpKind::DownloadBlock, len as u64, offset, [t0, t1, t1], Some(&e));
                return Err(Failure::Failed(format!("download failed at offset {offset}: {e}")));
            }
            self.record(OpKind::DownloadBlock, len as u64, offset, [t0, t1, t1], None);
        }
        let v0 = Instant::now();
        if plan.verify {
            for (b, &offset) in bufs.iter().zip(&offsets) {
                self.verify_block(offset, b);
            }
        }
        self.ctx.bytes_done.fetch_add(lens.iter().sum::<usize>() as u64, Ordering::Relaxed);
        Ok(v0.elapsed())
    }

    fn download(&mut self, file: &str, order: ReadOrder, out: &mut BandwidthRun) -> Result<(), Failure> {
        let plan = self.plan;
        let store = self.target.store.clone();
        let prefetch = (plan.policy == ReadPolicy::Prefetch).then_some(Prefetch {
            block: plan.block,
            depth: plan.prefetch,
            end: plan.size,
        });
        let opts = ReadOptions { direct: plan.direct, sequential: plan.policy != ReadPolicy::Random, prefetch };
        let batch = if plan.policy == ReadPolicy::Vector { plan.prefetch.max(1) } else { 1 };
        let mut buf = AlignedBuf::new(plan.block as usize * batch);
        let start = Instant::now();
        let failed = |e: StoreError| Failure::Failed(e.to_string());
        let mut stream = self.timed(OpKind::OpenForDownload, 0, || store.open(file, &opts)).map_err(failed)?;
        let mut verify_time = std::time::Duration::ZERO;
        if stream.len() != plan.size && !(plan.read_only && stream.len() > plan.size) {
            return Err(Failure::Failed(format!(
                "{file} is {} bytes, expected {}: was it changed during the run?",
                stream.len(),
                plan.size
            )));
        }
        let mut order = order.peekable();
        let mut indexes = Vec::with_capacity(batch);
        while order.peek().is_some() {
            indexes.clear();
            indexes.extend(order.by_ref().take(batch));
            let indexes = &indexes[..];
            if self.ctx.stopping() {
                let _ = stream.close();
                return Err(Failure::Interrupted);
            }
            if plan.policy == ReadPolicy::Vector {
                verify_time += self.read_vector(&mut *stream, file, indexes, &mut buf)?;
                continue;
            }
            let offset = indexes[0] * plan.block;
            let len = plan.block.min(plan.size - offset) as usize;
            let data = &mut buf[..len];
            let t0 = Instant::now();
            let r = match plan.policy {
                ReadPolicy::WholeFile => stream.read_next(data),
                ReadPolicy::Sequential | ReadPolicy::Random | ReadPolicy::Prefetch | ReadPolicy::Vector => {
                    stream.read_at(offset, data)
                }
            };
            let t1 = Instant::now();
            let r = r.and_then(|info| {
                if info.bytes == len {
                    Ok(info)
                } else {
                    Err(StoreError::Failed {
                        op: "read",
                        path: file.to_string(),
                        detail: format!(
                            "got {} bytes at offset {offset}, expected {len}: the file ended early",
                            info.bytes
                        ),
                    })
                }
            });
            let first = r.as_ref().map_or(t1, |i| i.first_byte);
            self.record(OpKind::DownloadBlock, len as u64, offset, [t0, first, t1], r.as_ref().err());
            if let Err(e) = r {
                let _ = stream.close();
                return Err(Failure::Failed(format!("download failed at offset {offset}: {e}")));
            }
            if plan.verify {
                let v0 = Instant::now();
                self.verify_block(offset, &buf[..len]);
                verify_time += v0.elapsed();
            }
            self.ctx.bytes_done.fetch_add(len as u64, Ordering::Relaxed);
        }
        let counters = self.timed(OpKind::CloseDownload, plan.size, || stream.close()).map_err(failed)?;
        out.counters.push(CounterGroup { scope: "download stream".into(), counters });
        let end = Instant::now();
        // The download's duration leaves out the time --verify spent checking bytes.
        let start = (start + verify_time).min(end);
        self.record(OpKind::Download, plan.size, 0, [start, end, end], None);
        if let (n, Some(at)) = self.bad {
            return Err(Failure::Failed(format!(
                "--verify: {n} of {} block(s) of {file} differ from what was written; the first wrong byte is at offset {at}",
                plan.blocks()
            )));
        }
        Ok(())
    }
}

/// Runs the workload on the calling thread. Every operation goes to `rec`; the run stops at the first
/// failure or at Ctrl-C, and always cleans up what it created unless `--keep`. `between` runs after
/// the upload (and rename), whatever their outcome: with several ranks it is the barrier that starts
/// every rank's download together; with `--reorder` it runs again after the download, so no rank
/// deletes its file while another still reads it.
pub fn run(
    plan: &BandwidthPlan,
    target: &Target,
    layout: &Layout,
    ctx: &RunContext,
    rec: &mut Recorder,
    between: &mut dyn FnMut() -> Result<(), String>,
) -> BandwidthRun {
    let mut out = BandwidthRun::default();
    let order = read_order(plan);
    let data = plan.data.for_rank(layout.rank);
    let mut bw = Bw { plan, target, ctx, rec, pattern: data.pattern(plan.block as usize), bad: (0, None) };
    let mut file = layout.file.clone();
    let mut wrote = false;

    let mut result = Ok(());
    if !plan.read_only {
        // Local files written with no durability option end in the page cache: how much, host-wide.
        let cached = target.store.capabilities().direct_io && !plan.direct && !plan.fsync_on_close && !plan.hflush;
        let dirty0 = if cached { crate::run::dirty_bytes() } else { None };
        let (cpu0, wait0) = (CpuTimes::process(), crate::run::cpu_wait_s());
        let up = bw.upload(&file, &mut out);
        out.upload_cpu = CpuTimes::process().since(cpu0);
        out.waited("upload", wait0);
        if let (Some(before), Some(after), true) = (dirty0, crate::run::dirty_bytes(), up.is_ok()) {
            out.dirty.push(crate::stats::findings::Dirty {
                phase: "upload".into(),
                rank: 0,
                dirty_bytes: after.saturating_sub(before).min(plan.size),
                written_bytes: plan.size,
            });
        }
        result = up.map(|_| wrote = true);
    }

    if result.is_ok() && plan.rename {
        let to = format!("{file}.renamed");
        let store = target.store.clone();
        match bw.timed(OpKind::Rename, 0, || store.rename(&file, &to)) {
            Ok(()) => file = to,
            Err(e) => result = Err(Failure::Failed(format!("rename failed: {e}"))),
        }
    }

    if let Err(e) = between() {
        result = result.and(Err(Failure::Failed(e)));
    }
    // With --reorder the download reads the file another rank wrote (renamed as this rank's was),
    // checked against that rank's data.
    let read = match &layout.reads_from {
        Some((w, theirs)) => {
            bw.pattern = plan.data.for_rank(*w).pattern(plan.block as usize);
            if plan.rename {
                format!("{theirs}.renamed")
            } else {
                theirs.clone()
            }
        }
        None => file.clone(),
    };
    if result.is_ok() {
        // Outside the timed phase: --drop-cache's eviction, then how much of what the download reads
        // is already in memory.
        match super::before_read(target, &[(read.clone(), plan.size)], "download", 0, plan.drop_cache) {
            Ok(r) => out.residency.extend(r),
            Err(e) => result = Err(Failure::Failed(e)),
        }
    }
    if result.is_ok() {
        let (cpu0, wait0) = (CpuTimes::process(), crate::run::cpu_wait_s());
        result = bw.download(&read, order, &mut out);
        out.download_cpu = CpuTimes::process().since(cpu0);
        out.waited("download", wait0);
    }
    if layout.reads_from.is_some() {
        // Every rank has finished reading before any rank deletes the file it wrote.
        if let Err(e) = between() {
            result = result.and(Err(Failure::Failed(e)));
        }
    }

    if wrote && !plan.keep {
        let store = target.store.clone();
        if let Err(e) = bw.timed(OpKind::Delete, 0, || store.delete(&file)) {
            out.cleanup_errors.push(format!("deleting {file}: {e}"));
        }
    }
    if let (Some(dir), false) = (&layout.run_dir, plan.keep) {
        if let Err(e) = target.store.remove_dir(dir) {
            out.cleanup_errors.push(format!("removing the run directory {dir}: {e}"));
        }
    }
    out.counters.push(CounterGroup { scope: "store".into(), counters: target.store.counters() });
    out.failure = result.err();
    out
}

#[cfg(test)]
mod tests;
