//! The runner: worker threads that start together behind a barrier, each with its own recorder;
//! a stop flag for Ctrl-C; a progress display that reads atomics only.

pub mod dist;
pub mod probe;
pub mod progress;
pub mod signal;
pub mod sweep;

use crate::stats::sample::Recorder;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// Shared state of one run: the common epoch, the stop flag, progress counters.
#[derive(Clone)]
pub struct RunContext {
    /// The instant every event's times are measured from.
    pub epoch: Instant,
    /// Set when the run must stop early (Ctrl-C); workers check it between operations.
    pub stop: Arc<AtomicBool>,
    /// Bytes moved so far, for the progress display.
    pub bytes_done: Arc<AtomicU64>,
}

impl RunContext {
    /// A context whose epoch is now, with the given stop flag.
    pub fn new(stop: Arc<AtomicBool>) -> Self {
        Self { epoch: Instant::now(), stop, bytes_done: Arc::new(AtomicU64::new(0)) }
    }

    /// Nanoseconds since the epoch.
    #[inline]
    pub fn ns(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_nanos() as u64
    }

    /// Whether the run was asked to stop.
    #[inline]
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs `n` workers on dedicated threads. They start together after a barrier; each gets its index
/// and returns its recorder and a result. The recorders are merged in worker order.
pub fn run_workers<T, F>(n: usize, work: F) -> (Recorder, Vec<T>)
where
    T: Send,
    F: Fn(usize) -> (Recorder, T) + Sync,
{
    let barrier = Barrier::new(n);
    let results: Vec<(Recorder, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let barrier = &barrier;
                let work = &work;
                std::thread::Builder::new()
                    .name(format!("storebench-worker-{i}"))
                    .spawn_scoped(s, move || {
                        barrier.wait();
                        work(i)
                    })
                    .expect("cannot spawn a worker thread")
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut merged = Recorder::new();
    let mut outs = Vec::with_capacity(n);
    for (r, t) in results {
        merged.merge(r);
        outs.push(t);
    }
    (merged, outs)
}

/// Bytes the kernel holds dirty or under writeback, host-wide (Dirty + Writeback in /proc/meminfo),
/// or None where there is no such file.
pub fn dirty_bytes() -> Option<u64> {
    crate::store::memory::meminfo_bytes(&["Dirty", "Writeback"])
}

/// Seconds this process's threads have spent runnable but waiting for a CPU (the run delay of
/// /proc/self/task/*/schedstat), or None where the kernel does not keep it.
pub fn cpu_wait_s() -> Option<f64> {
    let mut s = 0.0;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        // A thread that ended between the listing and the read has nothing left to count.
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else { continue };
        s += run_delay_s(&text)?;
    }
    Some(s)
}

/// The process's CPU wait since `before` (a [`cpu_wait_s`] reading), when both are known.
pub fn cpu_wait_since(before: Option<f64>) -> Option<f64> {
    Some((cpu_wait_s()? - before?).max(0.0))
}

/// Seconds the calling thread has spent runnable but waiting for a CPU (/proc/thread-self/schedstat).
pub fn thread_cpu_wait_s() -> Option<f64> {
    run_delay_s(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// The calling thread's CPU wait since `before` (a [`thread_cpu_wait_s`] reading), when both are known.
pub fn thread_cpu_wait_since(before: Option<f64>) -> Option<f64> {
    Some((thread_cpu_wait_s()? - before?).max(0.0))
}

/// The run delay (second field) of a schedstat file's text, in seconds.
fn run_delay_s(schedstat: &str) -> Option<f64> {
    Some(schedstat.split_whitespace().nth(1)?.parse::<u64>().ok()? as f64 / 1e9)
}

/// The CPUs this process may run on (sched_getaffinity), or None when the kernel does not say.
pub fn usable_cores() -> Option<u32> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it for this process.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some(libc::CPU_COUNT(&set) as u32)
    }
}

/// The host's name, for reports.
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length.
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sample::{Event, OpKind};

    #[test]
    fn workers_start_together_and_merge() {
        let ctx = RunContext::new(Arc::new(AtomicBool::new(false)));
        let (merged, idx) = run_workers(4, |i| {
            let mut r = Recorder::new();
            let t = ctx.ns(Instant::now());
            for _ in 0..=i {
                r.record(Event {
                    op: OpKind::Delete,
                    bytes: 1,
                    offset: 0,
                    start_ns: t,
                    first_byte_ns: t,
                    end_ns: t + 5,
                    error: None,
                });
            }
            (r, i)
        });
        assert_eq!(idx, vec![0, 1, 2, 3]);
        // 1 + 2 + 3 + 4 operations
        assert_eq!(merged.op(OpKind::Delete).ok, 10);
        assert_eq!(merged.op(OpKind::Delete).bytes, 10);
    }
}
