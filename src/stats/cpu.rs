//! CPU time of the process (getrusage RUSAGE_SELF) and of one thread (RUSAGE_THREAD).

use serde::{Deserialize, Serialize};

/// User and kernel CPU time, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTimes {
    /// CPU seconds spent in user mode.
    pub user_s: f64,
    /// CPU seconds spent in the kernel on the process's behalf.
    pub system_s: f64,
}

impl CpuTimes {
    fn read(who: libc::c_int) -> Self {
        // SAFETY: a zeroed rusage is a valid out-parameter.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: ru is writable; `who` is RUSAGE_SELF or RUSAGE_THREAD.
        if unsafe { libc::getrusage(who, &mut ru) } != 0 {
            return Self::default();
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Self { user_s: secs(ru.ru_utime), system_s: secs(ru.ru_stime) }
    }

    /// CPU time of the whole process so far (every thread).
    pub fn process() -> Self {
        Self::read(libc::RUSAGE_SELF)
    }

    /// CPU time of the calling thread so far.
    pub fn thread() -> Self {
        Self::read(libc::RUSAGE_THREAD)
    }

    /// The CPU time spent between `earlier` and `self`.
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes {
            user_s: (self.user_s - earlier.user_s).max(0.0),
            system_s: (self.system_s - earlier.system_s).max(0.0),
        }
    }

    /// CPU seconds per GiB for `bytes` moved: total_s / (bytes / 2^30); None when nothing moved. The
    /// one CPU-per-GiB rule of every report (docs/metrics.md).
    pub fn per_gib(self, bytes: u64) -> Option<f64> {
        (bytes > 0).then(|| self.total_s() / (bytes as f64 / crate::units::GIB))
    }

    /// User plus kernel seconds.
    pub fn total_s(self) -> f64 {
        self.user_s + self.system_s
    }
}

/// The CPU time of two processes (or two parts of a run) together.
impl std::ops::Add for CpuTimes {
    type Output = CpuTimes;
    fn add(self, other: CpuTimes) -> CpuTimes {
        CpuTimes { user_s: self.user_s + other.user_s, system_s: self.system_s + other.system_s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burning_cpu_shows_up_and_is_bounded_by_wall_time() {
        let start = std::time::Instant::now();
        let p0 = CpuTimes::process();
        let t0 = CpuTimes::thread();
        let mut x = 0u64;
        while start.elapsed().as_millis() < 200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let wall = start.elapsed().as_secs_f64();
        let t = CpuTimes::thread().since(t0);
        let p = CpuTimes::process().since(p0);
        assert!(t.total_s() > 0.05, "{t:?}");
        // rusage has 1-4 ms granularity: allow for it.
        assert!(t.total_s() <= wall + 0.01, "{t:?} wall {wall}");
        assert!(p.total_s() + 0.01 >= t.total_s());
    }
}
