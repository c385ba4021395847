//! `storebench transfer`'s section of the report: one row per method, buffer and run, with the
//! sender's CPU per GiB and its ratio to the baseline (read-write with the smallest buffer).

use crate::stats::cpu::CpuTimes;
use serde::{Deserialize, Serialize};

/// What a transfer run moved, from where to where, and every run's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TransferSection {
    /// The file sent.
    pub source: String,
    /// Its length, bytes.
    pub bytes: u64,
    /// Where it went: a socket address or a file, in words.
    pub to: String,
    /// Every run, in the order run.
    pub runs: Vec<TransferRun>,
}

/// Parameters of a transfer run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TransferParams {
    /// The methods, in order.
    pub methods: Vec<String>,
    /// read-write's buffer sizes, bytes.
    pub buffers: Vec<u64>,
    /// Runs of each method and buffer.
    pub runs: u32,
    /// The source was read with O_DIRECT.
    pub direct: bool,
    /// The receiver checked a CRC32 of what it got.
    pub verify: bool,
}

/// What one run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransferRun {
    /// The method.
    pub method: String,
    /// read-write's buffer size; for the others the bytes per call ([`CHUNK`]).
    pub buffer: u64,
    /// Run number, from 1.
    pub run: u32,
    /// "ok", or "unsupported: why".
    pub status: String,
    /// Bytes moved.
    pub bytes: u64,
    /// Wall time of the sending side, from the first call to the receiver's answer, seconds.
    pub wall_s: f64,
    /// The sending thread's CPU.
    pub sender: CpuTimes,
    /// The receiving thread's CPU (as the receiver reports it); none for file to file.
    pub receiver: Option<CpuTimes>,
    /// MB/s (2^20 bytes).
    pub mb_s: f64,
    /// Sender CPU seconds (user + kernel) per GiB moved; None when nothing moved.
    pub cpu_s_per_gib: Option<f64>,
    /// Sender CPU per GiB relative to the baseline (read-write with the smallest buffer), percent.
    pub cpu_vs_baseline_pct: Option<f64>,
    /// CRC32 of what the receiver got, when it checked.
    pub crc32: Option<u32>,
    /// Seconds the sending thread was runnable but waiting for a CPU (schedstat), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_wait_s: Option<f64>,
}

/// Figures of a finished run; the baseline percentage is filled in afterwards.
pub fn figures(
    method: &str,
    buffer: u64,
    run: u32,
    bytes: u64,
    wall_s: f64,
    sender: CpuTimes,
    receiver: Option<CpuTimes>,
) -> TransferRun {
    TransferRun {
        method: method.into(),
        buffer,
        run,
        status: "ok".into(),
        bytes,
        wall_s,
        sender,
        receiver,
        mb_s: crate::units::mib_per_s(bytes as f64, wall_s),
        cpu_s_per_gib: sender.per_gib(bytes),
        cpu_vs_baseline_pct: None,
        crc32: None,
        sender_wait_s: None,
    }
}

/// The (method, buffer) pairs of the runs that completed, in the order they first ran.
pub fn completed_pairs(runs: &[TransferRun]) -> Vec<(String, u64)> {
    let mut pairs: Vec<(String, u64)> = Vec::new();
    for r in runs.iter().filter(|r| r.status == "ok") {
        if !pairs.iter().any(|(m, b)| *m == r.method && *b == r.buffer) {
            pairs.push((r.method.clone(), r.buffer));
        }
    }
    pairs
}

/// The mean of `f` over the completed runs of `method` with `buffer` (0 when there are none).
pub fn mean_over(runs: &[TransferRun], method: &str, buffer: u64, f: impl Fn(&TransferRun) -> f64) -> f64 {
    let v: Vec<f64> =
        runs.iter().filter(|r| r.status == "ok" && r.method == method && r.buffer == buffer).map(f).collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Fills `cpu_vs_baseline_pct`: each run's CPU per GiB over the mean of the baseline's runs
/// (read-write with the smallest buffer), in percent.
pub fn relate_to_baseline(runs: &mut [TransferRun]) {
    let base_buf = runs.iter().filter(|r| r.method == "read-write" && r.status == "ok").map(|r| r.buffer).min();
    let Some(b) = base_buf else { return };
    let base: Vec<f64> = runs
        .iter()
        .filter(|r| r.method == "read-write" && r.buffer == b && r.status == "ok")
        .filter_map(|r| r.cpu_s_per_gib)
        .collect();
    let mean = base.iter().sum::<f64>() / base.len().max(1) as f64;
    if mean <= 0.0 {
        return;
    }
    for r in runs.iter_mut().filter(|r| r.status == "ok") {
        r.cpu_vs_baseline_pct = r.cpu_s_per_gib.map(|c| c / mean * 100.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::cpu::CpuTimes;

    /// 1 GiB in 2 s with 0.5 s user and 0.25 s kernel: 512 MB/s, 0.75 CPU-s/GiB; a run at 0.15
    /// CPU-s/GiB against a baseline whose two runs average 0.75 is at 20 %.
    #[test]
    fn figures_by_hand() {
        let cpu = CpuTimes { user_s: 0.5, system_s: 0.25 };
        let r = figures("read-write", 4096, 1, 1 << 30, 2.0, cpu, None);
        assert_eq!((r.mb_s, r.cpu_s_per_gib), (512.0, Some(0.75)));
        // Nothing moved: no CPU per GiB (the same rule as every phase's CPU figures).
        assert_eq!(figures("read-write", 4096, 3, 0, 0.5, cpu, None).cpu_s_per_gib, None);
        let mut runs = vec![
            r.clone(),
            figures("read-write", 4096, 2, 1 << 30, 2.0, CpuTimes { user_s: 0.5, system_s: 0.25 }, None),
            figures("read-write", 65536, 1, 1 << 30, 1.0, CpuTimes { user_s: 0.1, system_s: 0.2 }, None),
            figures("sendfile", 1 << 20, 1, 1 << 29, 1.0, CpuTimes { user_s: 0.0, system_s: 0.075 }, None),
        ];
        relate_to_baseline(&mut runs);
        assert_eq!(runs[0].cpu_vs_baseline_pct, Some(100.0));
        assert!((runs[2].cpu_vs_baseline_pct.unwrap() - 40.0).abs() < 1e-9);
        assert!((runs[3].cpu_vs_baseline_pct.unwrap() - 20.0).abs() < 1e-9);
    }
}
