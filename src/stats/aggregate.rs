//! Turns recorded operations into the figures of the report. Every formula of docs/metrics.md that
//! is computed from samples lives here, so exporters only format.

use super::report::{CpuReport, LatencyStats, OpStats, PhaseReport};
use super::sample::{OpAccumulator, OpKind, Recorder};
use crate::stats::cpu::CpuTimes;
use crate::units::mib_per_s;

fn s(ns: f64) -> f64 {
    ns / 1e9
}

/// Latency figures of one accumulator.
pub fn latency_stats(acc: &OpAccumulator) -> LatencyStats {
    let h = &acc.latency;
    if h.count() == 0 {
        return LatencyStats { errors: acc.errors, ..Default::default() };
    }
    let p = |q| s(h.percentile(q).unwrap_or(0) as f64);
    LatencyStats {
        count: h.count(),
        errors: acc.errors,
        min_s: s(h.min().unwrap_or(0) as f64),
        mean_s: s(h.mean().unwrap_or(0.0)),
        p50_s: p(0.5),
        p90_s: p(0.9),
        p99_s: p(0.99),
        p999_s: p(0.999),
        max_s: s(h.max().unwrap_or(0) as f64),
        total_s: s(h.sum() as f64),
        first_byte_mean_s: s(acc.first_byte.mean().unwrap_or(0.0)),
    }
}

/// Statistics of every operation kind that occurred.
pub fn op_stats(rec: &Recorder) -> Vec<OpStats> {
    OpKind::ALL
        .iter()
        .map(|&k| (k, rec.op(k)))
        .filter(|(_, a)| a.ok + a.errors > 0)
        .map(|(k, a)| OpStats {
            op: k.name().to_string(),
            bytes: a.bytes,
            latency: latency_stats(a),
            histogram: a.latency.to_data(),
        })
        .collect()
}

/// CPU figures for `bytes` moved with `cpu` spent.
pub fn cpu_report(cpu: CpuTimes, bytes: u64) -> CpuReport {
    let total = cpu.total_s();
    CpuReport { user_s: cpu.user_s, system_s: cpu.system_s, total_s: total, s_per_gib: cpu.per_gib(bytes) }
}

/// The operation kinds that make up one phase.
pub struct PhaseOps {
    /// The phase's name.
    pub name: &'static str,
    /// Opening operation (create-file, open-for-download).
    pub open: OpKind,
    /// Per-block operation.
    pub block: OpKind,
    /// close().
    pub close: OpKind,
    /// The whole phase, recorded when it completed.
    pub total: OpKind,
}

/// The upload phase's operations.
pub const UPLOAD: PhaseOps = PhaseOps {
    name: "upload",
    open: OpKind::CreateFile,
    block: OpKind::UploadBlock,
    close: OpKind::CloseUpload,
    total: OpKind::Upload,
};

/// The download phase's operations.
pub const DOWNLOAD: PhaseOps = PhaseOps {
    name: "download",
    open: OpKind::OpenForDownload,
    block: OpKind::DownloadBlock,
    close: OpKind::CloseDownload,
    total: OpKind::Download,
};

/// The figures of a phase, or None if it never started. `expected` is how many processes ran the phase
/// (MPI ranks, each on its own file); their phases started together after a barrier, so the phase lasts
/// from the first one's start to the last one's end.
pub fn phase_report(rec: &Recorder, ops: &PhaseOps, cpu: CpuTimes, expected: u32) -> Option<PhaseReport> {
    let open = rec.op(ops.open);
    let blocks = rec.op(ops.block);
    let close = rec.op(ops.close);
    let total = rec.op(ops.total);
    if open.ok + open.errors == 0 {
        return None;
    }
    let complete = total.ok >= u64::from(expected.max(1));
    let duration_ns = if let (true, Some(first), Some(last)) = (complete, total.first_start_ns, total.last_end_ns) {
        // From the first rank's start to the last one's end; for one process, exactly its phase's duration.
        last.saturating_sub(first) as f64
    } else {
        // An unfinished phase: from its first start to its last end.
        let first = [open, blocks, close].iter().filter_map(|a| a.first_start_ns).min().unwrap_or(0);
        let last = [open, blocks, close].iter().filter_map(|a| a.last_end_ns).max().unwrap_or(first);
        (last - first) as f64
    };
    let duration_s = s(duration_ns);
    let bytes = blocks.bytes;
    let rate = |scale: f64| mib_per_s(bytes as f64 * scale, duration_s);
    let block_stats = latency_stats(blocks);
    let close_s = (close.ok > 0).then(|| s(close.latency.sum() as f64));
    let mean_incl = match close_s {
        Some(c) if block_stats.count > 0 => Some((block_stats.total_s + c) / block_stats.count as f64),
        _ => None,
    };
    Some(PhaseReport {
        name: ops.name.to_string(),
        bytes,
        duration_s,
        mbyte_per_s: rate(1.0),
        mbit_per_s: rate(8.0),
        blocks: block_stats,
        open_s: (open.ok > 0).then(|| s(open.latency.sum() as f64)),
        close_s,
        mean_per_block_incl_close_s: mean_incl,
        cpu: cpu_report(cpu, bytes),
        complete,
    })
}

/// The link's request latency and per-stream bandwidth from a set of GETs: the least-squares line
/// time = latency + bytes / bandwidth through (bytes, total time) of each GET. When every GET has the
/// same size (no line to fit), the median time to first byte and bytes over transfer time.
pub fn link_fit(points: &[(u64, f64, f64)]) -> (f64, f64) {
    // points: (bytes, total seconds, time to first byte seconds)
    if points.is_empty() {
        return (0.0, 0.0);
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 as f64 - mx) * (p.1 - my)).sum();
    if sxx > 0.0 && sxy > 0.0 {
        let slope = sxy / sxx;
        let latency = (my - slope * mx).max(0.0);
        return (latency, 1.0 / slope / (1u64 << 20) as f64);
    }
    let mut firsts: Vec<f64> = points.iter().map(|p| p.2).collect();
    firsts.sort_by(|a, b| a.total_cmp(b));
    let bytes: f64 = points.iter().map(|p| p.0 as f64).sum();
    let transfer: f64 = points.iter().map(|p| p.1 - p.2).sum();
    let mib = crate::units::mib_per_s(bytes, transfer);
    (super::percentile_of_sorted(&firsts, 0.5), mib)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sample::Event;

    const MS: u64 = 1_000_000;

    fn ev(op: OpKind, bytes: u64, start_ms: u64, dur_ms: u64) -> Event {
        Event {
            op,
            bytes,
            offset: 0,
            start_ns: start_ms * MS,
            first_byte_ns: start_ms * MS,
            end_ns: (start_ms + dur_ms) * MS,
            error: None,
        }
    }

    /// The seed's first upload, worked by hand: 16 blocks of 8 MiB whose times (ms) sum to 19,470;
    /// close() 11,706 ms; upload 31,598 ms. Expected figures: 134,217,728 B / 31.598 s = 4.051 MiB/s =
    /// 32.407 Mbit/s; blocks min 0.002 s, max 11.093 s, mean 19.470/16 = 1.217 s; mean per block
    /// including close (19.470 + 11.706) / 16 = 1.9485 s.
    #[test]
    fn seed_upload_worked_by_hand() {
        let blocks = [2, 2, 2, 99, 2, 2, 3, 2, 2, 2, 2, 11093, 4, 3, 2, 8248];
        assert_eq!(blocks.iter().sum::<u64>(), 19_470);
        let mut r = Recorder::new();
        r.record(ev(OpKind::CreateFile, 0, 0, 397));
        let mut t = 397;
        for b in blocks {
            r.record(ev(OpKind::UploadBlock, 8_388_608, t, b));
            t += b;
        }
        r.record(ev(OpKind::CloseUpload, 0, t, 11_706));
        r.record(ev(OpKind::Upload, 134_217_728, 0, 31_598));
        let cpu = CpuTimes { user_s: 0.75, system_s: 0.25 };
        let p = phase_report(&r, &UPLOAD, cpu, 1).unwrap();
        assert!(p.complete);
        assert_eq!(p.bytes, 134_217_728);
        assert!((p.duration_s - 31.598).abs() < 1e-9);
        assert_eq!(format!("{:.3}", p.mbyte_per_s), "4.051");
        assert_eq!(format!("{:.3}", p.mbit_per_s), "32.407");
        assert_eq!(p.blocks.count, 16);
        assert!((p.blocks.min_s - 0.002).abs() < 1e-12);
        assert!((p.blocks.max_s - 11.093).abs() < 1e-12);
        assert_eq!(format!("{:.3}", p.blocks.mean_s), "1.217");
        assert!((p.close_s.unwrap() - 11.706).abs() < 1e-12);
        assert!((p.mean_per_block_incl_close_s.unwrap() - 1.9485).abs() < 1e-9);
        assert!((p.open_s.unwrap() - 0.397).abs() < 1e-12);
        // p50 of the 16 block times: rank 8 of the sorted list = 2 ms; p90: rank 15 = 8,248 ms.
        assert!((p.blocks.p50_s - 0.002).abs() <= 0.002 / 128.0);
        assert!((p.blocks.p90_s - 8.248).abs() <= 8.248 / 128.0);
        // CPU: 1.0 s for 0.125 GiB -> 8 s/GiB.
        assert!((p.cpu.s_per_gib.unwrap() - 8.0).abs() < 1e-9);
        assert_eq!(p.cpu.total_s, 1.0);
    }

    /// The seed's first download: 134,217,728 B in 69.531 s = 1.841 MiB/s = 14.727 Mbit/s.
    #[test]
    fn seed_download_rates() {
        let mut r = Recorder::new();
        r.record(ev(OpKind::OpenForDownload, 0, 0, 47));
        r.record(ev(OpKind::DownloadBlock, 134_217_728, 47, 69_000));
        r.record(ev(OpKind::Download, 134_217_728, 0, 69_531));
        let p = phase_report(&r, &DOWNLOAD, CpuTimes::default(), 1).unwrap();
        assert_eq!(format!("{:.3}", p.mbyte_per_s), "1.841");
        assert_eq!(format!("{:.3}", p.mbit_per_s), "14.727");
        assert_eq!(p.close_s, None);
        assert_eq!(p.mean_per_block_incl_close_s, None);
    }

    #[test]
    fn unfinished_phase_spans_its_operations() {
        let mut r = Recorder::new();
        r.record(ev(OpKind::CreateFile, 0, 10, 5));
        r.record(ev(OpKind::UploadBlock, 100, 15, 20));
        r.record(Event { error: Some("disk full".into()), ..ev(OpKind::UploadBlock, 100, 35, 5) });
        let p = phase_report(&r, &UPLOAD, CpuTimes::default(), 1).unwrap();
        assert!(!p.complete);
        assert!((p.duration_s - 0.030).abs() < 1e-12);
        assert_eq!(p.bytes, 100);
        assert_eq!((p.blocks.count, p.blocks.errors), (1, 1));
        assert!(phase_report(&r, &DOWNLOAD, CpuTimes::default(), 1).is_none());
    }

    /// Two ranks, each uploading 100 MiB to its own file after a common barrier: rank 0 from 0 to 2 s,
    /// rank 1 from 0.1 s to 4 s. The phase lasts from 0 to 4 s: 200 MiB / 4 s = 50 MiB/s, 400 Mbit/s.
    /// CPU 1.5 + 0.5 s over 200 MiB (0.1953125 GiB) = 10.24 s/GiB.
    #[test]
    fn phase_across_two_ranks_by_hand() {
        let mib = 1u64 << 20;
        let mut ranks = Vec::new();
        for (start, dur) in [(0, 2_000), (100, 3_900)] {
            let mut r = Recorder::new();
            r.record(ev(OpKind::CreateFile, 0, start, 1));
            r.record(ev(OpKind::UploadBlock, 100 * mib, start + 1, dur - 2));
            r.record(ev(OpKind::CloseUpload, 0, start + dur - 1, 1));
            r.record(ev(OpKind::Upload, 100 * mib, start, dur));
            ranks.push(r);
        }
        let mut merged = Recorder::new();
        for r in ranks {
            merged.merge_data(&r.to_data()).unwrap();
        }
        let cpu = CpuTimes { user_s: 1.5, system_s: 0.5 };
        let p = phase_report(&merged, &UPLOAD, cpu, 2).unwrap();
        assert!(p.complete);
        assert_eq!(p.bytes, 200 * mib);
        assert!((p.duration_s - 4.0).abs() < 1e-12);
        assert!((p.mbyte_per_s - 50.0).abs() < 1e-9 && (p.mbit_per_s - 400.0).abs() < 1e-9);
        assert!((p.cpu.s_per_gib.unwrap() - 10.24).abs() < 1e-9);
        // A rank whose upload did not finish leaves the phase incomplete.
        assert!(!phase_report(&merged, &UPLOAD, cpu, 3).unwrap().complete);
    }

    #[test]
    fn no_bytes_no_cpu_per_gib() {
        assert_eq!(cpu_report(CpuTimes { user_s: 1.0, system_s: 0.0 }, 0).s_per_gib, None);
    }
}
