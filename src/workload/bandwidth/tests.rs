use super::*;
use crate::store::memory::MemoryStore;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn plan(size: u64, block: u64, policy: ReadPolicy) -> BandwidthPlan {
    BandwidthPlan {
        size,
        block,
        policy,
        flush: false,
        hflush: false,
        keep: false,
        rename: true,
        verify: true,
        direct: false,
        fsync_on_close: false,
        overwrite: false,
        read_only: false,
        seed: 9,
        data: crate::workload::data::TestData { seed: 9, ..Default::default() },
        drop_cache: None,
        prefetch: 2,
    }
}

#[test]
fn random_order_is_a_seeded_permutation() {
    for n in [1u64, 2, 3, 100, 4096, 5000] {
        let p = plan(n * 4096, 4096, ReadPolicy::Random);
        let o: Vec<u64> = read_order(&p).collect();
        let mut sorted = o.clone();
        sorted.sort();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "{n} blocks: every block exactly once");
        if n >= 100 {
            assert_ne!(o, sorted, "{n} blocks in file order");
            // Not a near-identity: most neighbours in the order are far apart in the file.
            let far = o.windows(2).filter(|w| w[0].abs_diff(w[1]) > n / 16).count();
            assert!(far as u64 > n / 2, "{n} blocks: only {far} far jumps");
        }
        assert_eq!(o, read_order(&p).collect::<Vec<_>>(), "seeded");
        let mut other = plan(n * 4096, 4096, ReadPolicy::Random);
        other.seed ^= 0xABCD;
        if n >= 100 {
            assert_ne!(o, read_order(&other).collect::<Vec<_>>(), "another seed, another order");
        }
    }
    let p = plan(10 * 4096, 4096, ReadPolicy::Sequential);
    assert_eq!(read_order(&p).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
}

#[test]
fn runs_end_to_end_on_memory_with_a_partial_last_block() {
    for policy in [ReadPolicy::WholeFile, ReadPolicy::Sequential, ReadPolicy::Random, ReadPolicy::Prefetch] {
        let p = plan(10_000, 4096, policy);
        let target = MemoryStore::target(&format!("unit-{}/", policy.name()));
        let layout = prepare_layout(&p, &target, 1).unwrap();
        let ctx = RunContext::new(Arc::new(AtomicBool::new(false)));
        let mut rec = Recorder::new().keep_events(32);
        let out = run(&p, &target, &layout, &ctx, &mut rec, &mut || Ok(()));
        assert_eq!(out.failure, None, "{policy:?}");
        assert_eq!(rec.op(OpKind::UploadBlock).ok, 3);
        assert_eq!(rec.op(OpKind::UploadBlock).bytes, 10_000);
        assert_eq!(rec.op(OpKind::DownloadBlock).bytes, 10_000);
        assert_eq!(rec.op(OpKind::Rename).ok, 1);
        assert_eq!(rec.op(OpKind::Delete).ok, 1);
        assert!(!target.store.exists(&format!("{}.renamed", layout.file)).unwrap());
    }
}

/// The worked example of docs/metrics.md: rank 0 uploads 100 MiB from 0 to 2 s, rank 1 from
/// 0.1 s to 4 s (and fails to download). Phase: 4 s, 50 MiB/s; ranks 50 and 100 / 3.9 MiB/s.
#[test]
fn ranks_merge_by_hand() {
    let mib = 1u64 << 20;
    let ms = 1_000_000u64;
    let mut parts = Vec::new();
    for (rank, start, end) in [(0u32, 0, 2_000), (1, 100, 4_000)] {
        let mut rec = Recorder::new();
        let ev = |op, bytes, s: u64, e: u64| Event {
            op,
            bytes,
            offset: 0,
            start_ns: s * ms,
            first_byte_ns: s * ms,
            end_ns: e * ms,
            error: None,
        };
        rec.record(ev(OpKind::CreateFile, 0, start, start + 1));
        rec.record(ev(OpKind::UploadBlock, 100 * mib, start + 1, end - 1));
        rec.record(ev(OpKind::CloseUpload, 0, end - 1, end));
        rec.record(ev(OpKind::Upload, 100 * mib, start, end));
        let mut out = BandwidthRun {
            upload_cpu: CpuTimes { user_s: 0.75, system_s: 0.25 },
            counters: vec![CounterGroup { scope: "store".into(), counters: vec![("create_calls".into(), 1)] }],
            ..Default::default()
        };
        if rank == 1 {
            out.failure = Some(Failure::Failed("open failed: refused".into()));
        }
        let mine = Layout { file: "f".into(), run_dir: None, ranks: 2, rank: 0, reads_from: None }.of_rank(rank, None);
        let part = RankPart::new(&mine, &format!("node{rank}"), &rec, out);
        // Through JSON, as it travels.
        parts.push(serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap());
    }
    let (rec, out, tasks) = merge_ranks(parts).unwrap();
    assert_eq!(out.failure, Some(Failure::Failed("rank 1 (node1): open failed: refused".into())));
    assert_eq!(out.counters[0].counters, [("create_calls".to_string(), 2)]);
    let layout = Layout { file: "f".into(), run_dir: None, ranks: 2, rank: 0, reads_from: None };
    let target = MemoryStore::target("unit-ranks/");
    let r = report(&plan(100 * mib, 100 * mib, ReadPolicy::WholeFile), &target, &layout, &rec, &out, tasks, "t".into());
    let up = &r.phases[0];
    assert!(up.complete && (up.duration_s - 4.0).abs() < 1e-12 && (up.mbyte_per_s - 50.0).abs() < 1e-9);
    assert!((up.cpu.total_s - 2.0).abs() < 1e-12);
    let rates: Vec<(u32, &str, f64)> = r.tasks.iter().map(|t| (t.rank, t.host.as_str(), t.mib_per_s)).collect();
    assert_eq!((rates[0].0, rates[0].1), (0, "node0"));
    assert!((rates[0].2 - 50.0).abs() < 1e-9);
    assert_eq!((rates[1].0, rates[1].1), (1, "node1"));
    assert!((rates[1].2 - 100.0 / 3.9).abs() < 1e-9, "{}", rates[1].2);
    assert_eq!(r.tasks[1].path, "f.rank1");
    assert_eq!(layout.file_of(1), "f.rank1");
}

#[test]
fn interrupted_run_stops_and_cleans_up() {
    let p = plan(1 << 20, 4096, ReadPolicy::Sequential);
    let target = MemoryStore::target("unit-interrupt/");
    let layout = prepare_layout(&p, &target, 1).unwrap();
    let ctx = RunContext::new(Arc::new(AtomicBool::new(true)));
    let mut rec = Recorder::new();
    let out = run(&p, &target, &layout, &ctx, &mut rec, &mut || Ok(()));
    assert_eq!(out.failure, Some(Failure::Interrupted));
    assert_eq!(rec.op(OpKind::UploadBlock).ok, 0);
    assert!(!target.store.exists(&layout.file).unwrap());
}
