//! Stopping on a signal. SIGINT (Ctrl-C), SIGTERM (what `timeout`, systemd and Slurm send) and SIGHUP
//! (a closed terminal) are handled alike: the first sets the process-wide stop flag, so the run stops
//! between operations, cleans up what it created and reports what it measured; the exit code is then
//! 128 + the signal (130, 143, 129). A second signal ends the process at once with that code.
//!
//! Waits that could outlast a signal go through [`sleep`], which notices the flag within
//! [`POLL`].

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How soon a wait notices the stop flag.
pub const POLL: Duration = Duration::from_millis(50);

/// The signals that stop a run.
pub const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The first stopping signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The stop flag, leaked so the handler can reach it without locking.
static FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe work here: atomics and _exit.
    if SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst).is_err() {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
    let flag = FLAG.load(Ordering::SeqCst);
    if !flag.is_null() {
        // SAFETY: the flag is leaked in `stop_flag` and never freed.
        unsafe { (*flag).store(true, Ordering::SeqCst) };
    }
}

/// The process-wide stop flag, with the handlers installed on first use.
pub fn stop_flag() -> Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        // One reference is leaked for the handler: the flag lives as long as the process.
        FLAG.store(Arc::into_raw(flag.clone()) as *mut AtomicBool, Ordering::SeqCst);
        for sig in SIGNALS {
            // SAFETY: a zeroed sigaction with a plain handler and an empty mask is valid.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                sa.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
        flag
    })
    .clone()
}

/// The signal that stopped the run, if one did.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The exit code of a run stopped by a signal: 128 + the signal (130 when none was recorded).
pub fn exit_code() -> i32 {
    128 + received().unwrap_or(libc::SIGINT)
}

/// The signal's name, for messages.
pub fn name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// How a stopped run is described in messages and reports: "interrupted by SIGTERM".
pub fn describe() -> String {
    format!("interrupted by {}", name(received().unwrap_or(libc::SIGINT)))
}

/// Sleeps for `d`, or less when `stop` is set: it is checked every [`POLL`]. Returns false when the
/// sleep was cut short.
pub fn sleep(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(POLL));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_ends_soon_after_the_flag_is_set() {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            s.store(true, Ordering::SeqCst);
        });
        let t0 = Instant::now();
        assert!(!sleep(Duration::from_secs(30), &stop));
        assert!(t0.elapsed() < Duration::from_secs(5), "the sleep did not notice the flag");
        t.join().unwrap();
        assert!(sleep(Duration::from_millis(1), &AtomicBool::new(false)));
    }

    #[test]
    fn names_and_codes() {
        assert_eq!(name(libc::SIGTERM), "SIGTERM");
        assert_eq!(128 + libc::SIGHUP, 129);
        assert_eq!(128 + libc::SIGTERM, 143);
    }
}
