//! Unit tests of the ops workload, worked out by hand.

use super::*;

/// One process's aggregate figures, as the run computes them for a rank of one.
fn summarize(plan: &OpsPlan, rec: &Recorder, threads: &[ThreadRun], cpu: CpuTimes) -> OpsSummary {
    let ends = thread_ends(threads);
    let stonewall = done_by(threads, ends.iter().copied().min().unwrap_or(0));
    summarize_parts(plan, rec, &ends, stonewall, cpu)
}

fn thread(done: &[(u64, u64)]) -> ThreadRun {
    let mut t = ThreadRun::default();
    for &(end, bytes) in done {
        t.done.record(end, bytes);
    }
    t
}

fn plan(mix: Vec<(Op, u32)>) -> OpsPlan {
    OpsPlan {
        mix,
        threads: 2,
        iterations: None,
        duration: None,
        repeats: 1,
        rate: None,
        file_size: 1 << 20,
        buffer_size: 1 << 20,
        file_path: None,
        random: false,
        prefetch: 4,
        prepare: false,
        fail_fast: false,
        keep: false,
        seed: 1,
        data: crate::workload::data::TestData { seed: 1, ..Default::default() },
        drop_cache: None,
        reorder: None,
        ranks: 1,
    }
}

#[test]
fn reorder_reads_the_same_thread_of_another_rank() {
    // 2 threads on each of 4 ranks: thread 1 of rank 0 (global 1) reads thread 1 of rank 1 (global 3)
    // with --reorder 1; the last rank wraps to rank 0; --reorder 6 is 2 mod 4.
    let mut p = plan(vec![(Op::OpenRead, 1)]);
    p.ranks = 4;
    assert_eq!((p.reads_of(1), p.writer_of(1)), (1, None));
    p.reorder = Some(1);
    assert_eq!((p.reads_of(1), p.writer_of(1)), (3, Some(1)));
    assert_eq!((p.reads_of(6), p.writer_of(6)), (0, Some(0)));
    assert_eq!((p.reads_of(7), p.writer_of(7)), (1, Some(0)));
    p.reorder = Some(6);
    assert_eq!((p.reads_of(0), p.writer_of(0)), (4, Some(2)));
    assert_eq!((p.reads_of(5), p.writer_of(5)), (1, Some(0)));
}

#[test]
fn throughput_until_last_and_until_first_thread_done() {
    // Two threads, 1 MiB per op. Thread 0: ops ending at 1 s and 2 s. Thread 1: 0.5, 1.5, 2.5, 4 s.
    let plan = plan(vec![(Op::CreateWrite, 1)]);
    let s = |x: f64| (x * 1e9) as u64;
    let t = [
        thread(&[(s(1.0), 1 << 20), (s(2.0), 1 << 20)]),
        thread(&[(s(0.5), 1 << 20), (s(1.5), 1 << 20), (s(2.5), 1 << 20), (s(4.0), 1 << 20)]),
    ];
    let mut rec = Recorder::new();
    for (start, end) in [(0.0, 1.0), (1.0, 2.0), (0.0, 0.5), (0.5, 1.5), (1.5, 2.5), (2.5, 4.0)] {
        rec.record(Event {
            op: OpKind::Upload,
            bytes: 1 << 20,
            offset: 0,
            start_ns: s(start),
            first_byte_ns: s(end),
            end_ns: s(end),
            error: None,
        });
    }
    let sum = summarize(&plan, &rec, &t, CpuTimes::default());
    // Until the last thread ends: 6 ops, 6 MiB in 4 s.
    assert_eq!((sum.ops, sum.bytes), (6, 6 << 20));
    assert_eq!(sum.wall_s, 4.0);
    assert!((sum.ops_per_s - 1.5).abs() < 1e-12 && (sum.mib_per_s - 1.5).abs() < 1e-12);
    // Until the first thread is done (thread 0 at 2 s): ops ended by then are 1.0, 2.0, 0.5, 1.5 s.
    assert_eq!(sum.stonewall_s, 2.0);
    assert_eq!((sum.stonewall_ops, sum.stonewall_bytes), (4, 4 << 20));
    assert!((sum.stonewall_mib_per_s - 2.0).abs() < 1e-12);
    // Latency: 1, 1, 0.5, 1, 1, 1.5 s: mean 1 s, max 1.5 s, min 0.5 s.
    assert!((sum.latency.mean_s - 1.0).abs() < 1e-9);
    assert_eq!((sum.latency.min_s, sum.latency.max_s), (0.5, 1.5));
    // Per second: ends at 0.5 | 1.0, 1.5 | 2.0, 2.5 | - | 4.0.
    let ps: Vec<u64> = per_second(&t).iter().map(|x| x.ops).collect();
    assert_eq!(ps, [1, 2, 2, 0, 1]);
    // The seed's figures for create_write: WriteRate = 6 MiB / 4 s, WriteTime = 4 s, WriteTotal.
    let figs = figures(&plan, &rec, &sum);
    let get = |n: &str| figs.iter().find(|f| f.name == n).unwrap().value;
    assert_eq!(get("WriteRate(B/S)"), (6 << 20) as f64 / 4.0);
    assert_eq!((get("WriteTime(S)"), get("WriteTotal(B)")), (4.0, (6 << 20) as f64));
}

/// The same two threads as above, on two ranks (one each): merging the ranks' parts and counting
/// each rank's operations by the first end gives the one-process figures exactly.
#[test]
fn two_ranks_give_the_one_process_figures() {
    let plan = plan(vec![(Op::CreateWrite, 1)]);
    let s = |x: f64| (x * 1e9) as u64;
    let ranks = [
        (thread(&[(s(1.0), 1 << 20), (s(2.0), 1 << 20)]), vec![(0.0, 1.0), (1.0, 2.0)]),
        (
            thread(&[(s(0.5), 1 << 20), (s(1.5), 1 << 20), (s(2.5), 1 << 20), (s(4.0), 1 << 20)]),
            vec![(0.0, 0.5), (0.5, 1.5), (1.5, 2.5), (2.5, 4.0)],
        ),
    ];
    let mut merged = RepeatPart::default();
    let mut rec = Recorder::new();
    for (r, (t, ops)) in ranks.iter().enumerate() {
        let mut own = Recorder::new();
        for &(a, b) in ops {
            own.record(Event {
                op: OpKind::Upload,
                bytes: 1 << 20,
                offset: 0,
                start_ns: s(a),
                first_byte_ns: s(b),
                end_ns: s(b),
                error: None,
            });
        }
        let threads = std::slice::from_ref(t);
        let part = RepeatPart {
            rank: r as u32,
            stats: own.to_data(),
            ends: thread_ends(threads),
            per_second: per_second(threads),
            cpu: CpuTimes { user_s: 0.5, system_s: 0.0 },
            tasks: thread_tasks(&plan, threads, r, 1, "d", r as u32, "h"),
            ..Default::default()
        };
        merged.absorb(&mut rec, part, 2).unwrap();
    }
    // Rank 0 announces F = 2 s; each rank counts its own operations by then: 2 + 2.
    let first = merged.ends.iter().copied().min().unwrap();
    assert_eq!(first, s(2.0));
    let (a, b) = (done_by(std::slice::from_ref(&ranks[0].0), first), done_by(std::slice::from_ref(&ranks[1].0), first));
    let sum = summarize_parts(&plan, &rec, &merged.ends, (a.0 + b.0, a.1 + b.1), merged.cpu);
    assert_eq!((sum.ops, sum.bytes, sum.wall_s, sum.stonewall_s), (6, 6 << 20, 4.0, 2.0));
    assert_eq!((sum.stonewall_ops, sum.stonewall_bytes), (4, 4 << 20));
    assert!((sum.ops_per_s - 1.5).abs() < 1e-12 && (sum.stonewall_mib_per_s - 2.0).abs() < 1e-12);
    assert_eq!(sum.cpu.total_s, 1.0);
    let ps: Vec<u64> = merged.per_second.iter().map(|x| x.ops).collect();
    assert_eq!(ps, [1, 2, 2, 0, 1]);
    // Thread 1 is rank 1's: 4 MiB by 4 s = 1 MiB/s.
    let t1 = &merged.tasks[1];
    assert_eq!((t1.task.as_str(), t1.rank, t1.ops, t1.path.as_str()), ("thread 1", 1, 4, "d/test_1"));
    assert!((t1.seconds - 4.0).abs() < 1e-12 && (t1.mib_per_s - 1.0).abs() < 1e-12);
}

#[test]
fn a_mix_counts_each_recorded_kind_once() {
    // open_read and single_read both record as download, apart in the mix: 2 downloads + 1 stat.
    let plan = plan(vec![(Op::OpenRead, 1), (Op::Stat, 1), (Op::SingleRead, 1)]);
    let mut rec = Recorder::new();
    for op in [OpKind::Download, OpKind::Download, OpKind::Stat] {
        rec.record(Event { op, bytes: 10, offset: 0, start_ns: 0, first_byte_ns: 1, end_ns: 2, error: None });
    }
    let sum = summarize(&plan, &rec, &[thread(&[(2, 10), (2, 10), (2, 10)])], CpuTimes::default());
    assert_eq!((sum.ops, sum.bytes), (3, 30));
}

#[test]
fn statistics_across_repeats_by_hand() {
    // 10, 12, 14, 20: mean 14, median 13, sample variance (16 + 4 + 0 + 36) / 3 = 56/3.
    let s = stats_of("x", "1/s", &[10.0, 20.0, 12.0, 14.0]);
    assert_eq!((s.n, s.mean, s.median, s.min, s.max), (4, 14.0, 13.0, 10.0, 20.0));
    assert!((s.stddev - (56.0f64 / 3.0).sqrt()).abs() < 1e-12);
    assert!((s.cv - (56.0f64 / 3.0).sqrt() / 14.0).abs() < 1e-12);
    // The seed's three repeats of ReadTime (s): 13.642, 3.91824, 3.68479 -> mean 7.08166,
    // median 3.91824, stddev 5.68258, cv 80.24 %.
    let s = stats_of("ReadTime(S)", "s", &[13.642, 3.91824, 3.68479]);
    // (the seed printed figures rounded to 6 digits from unrounded repeats, hence 1e-4)
    assert!((s.mean - 7.08166).abs() < 1e-4 && s.median == 3.91824, "{}", s.mean);
    assert!((s.stddev - 5.68258).abs() < 1e-4, "{}", s.stddev);
    assert!((s.cv - 0.8024).abs() < 1e-4);
    // One repeat: no spread.
    let s = stats_of("x", "s", &[3.0]);
    assert_eq!((s.stddev, s.cv, s.median), (0.0, 0.0, 3.0));
}

#[test]
fn mix_parsing_and_weighted_choice() {
    assert_eq!(parse_mix("open_read=3, stat=1").unwrap(), vec![(Op::OpenRead, 3), (Op::Stat, 1)]);
    for (bad, needle) in [
        ("open_read", "expected op=weight"),
        ("teleport=1", "unknown operation 'teleport'"),
        ("stat=0", "weight '0'"),
        ("rename=1", "cannot hold rename"),
        ("stat=1,stat=2", "twice"),
        ("", "empty"),
    ] {
        let e = parse_mix(bad).unwrap_err();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    // Weighted draws follow the weights: 3:1 over 4000 draws, within 5 %.
    let p = plan(vec![(Op::OpenRead, 3), (Op::Stat, 1)]);
    let target = crate::store::memory::MemoryStore::target("mixtest");
    let prepared = Prepared::default();
    let ctx = RunContext::new(std::sync::Arc::new(AtomicBool::new(false)));
    let mut w = Worker {
        plan: &p,
        target: &target,
        prepared: &prepared,
        k: 0,
        repeat: 1,
        ctx: &ctx,
        data: DataPattern::new(16, 1).buffer(),
        pattern: DataPattern::new(16, 1),
        buf: Vec::new(),
        rng: 12345,
        renamed: false,
        reader: None,
    };
    let reads = (0..4000).filter(|_| w.choose() == Op::OpenRead).count();
    assert!((2850..3150).contains(&reads), "{reads}");
}
