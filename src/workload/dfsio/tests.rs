//! TestDFSIO's formulas and merges, worked by hand.

use super::*;

fn task(k: u64, bytes: u64, start: f64, end: f64) -> TaskRecord {
    let time_ms = ((end - start) * 1000.0).round() as i64;
    TaskRecord {
        task: k,
        file: format!("io_data/test_io_{k}"),
        rank: 0,
        host: "h".into(),
        bytes,
        start_s: start,
        end_s: end,
        first_byte_s: None,
        time_ms,
        rate_mb_s: crate::stats::dfsio::task_rate(bytes as i64, time_ms) as f64,
        written_by: None,
    }
}

/// Eight files on four ranks: rank r runs tasks r and r + 4; with --reorder 1 it runs rank r + 1's
/// (which that rank's -write wrote), the last rank wrapping to rank 0's.
#[test]
fn reorder_hands_each_rank_another_ranks_files() {
    let mut plan = tests_plan();
    plan.nr_files = 8;
    plan.ranks = 4;
    assert_eq!(plan.tasks_of(1), vec![1, 5]);
    assert_eq!(plan.writer_of(5), None);
    plan.reorder = Some(1);
    assert_eq!(plan.tasks_of(1), vec![2, 6]);
    assert_eq!(plan.tasks_of(3), vec![0, 4]);
    assert_eq!(plan.writer_of(6), Some(2));
    plan.reorder = Some(3);
    assert_eq!(plan.tasks_of(0), vec![3, 7]);
    let all: Vec<u64> =
        (0..4).flat_map(|r| plan.tasks_of(r)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    assert_eq!(all, (0..8).collect::<Vec<_>>(), "every file is read once");
}

/// Two tasks of 100 MiB started together, done after 1 s and 2 s; the first ended when the
/// second had moved 50 MiB: aggregate 200 MiB / 2 s = 100, stonewall 150 MiB / 1 s = 150, while
/// TestDFSIO's Throughput says 200 MiB / (1 + 2) s = 66.67.
fn tests_plan() -> DfsioPlan {
    DfsioPlan {
        mode: Mode::Write,
        order: ReadOrder::Sequential,
        nr_files: 2,
        file_size: 100 << 20,
        buffer_size: 1 << 20,
        threads: 2,
        root: "r".into(),
        seed: 1,
        data: crate::workload::data::TestData { seed: 1, ..Default::default() },
        drop_cache: None,
        reorder: None,
        ranks: 1,
    }
}

#[test]
fn figures_by_hand() {
    let plan = tests_plan();
    let out = Outcome {
        tasks: vec![task(0, 100 << 20, 0.0, 1.0), task(1, 100 << 20, 0.0, 2.0)],
        stonewall: Some((150 << 20, 1.0)),
        ..Default::default()
    };
    let r = summarize(&plan, &out, 2.5);
    assert!((r.throughput_mb_s - 200.0 / 3.0).abs() < 1e-9);
    assert_eq!((r.average_io_rate_mb_s, r.io_rate_std_dev), (75.0, 25.0));
    assert_eq!((r.aggregate_mb_s, r.stonewall_mb_s), (100.0, 150.0));
    assert_eq!((r.task_rate_min, r.task_rate_p50, r.task_rate_p90, r.task_rate_max), (50.0, 50.0, 100.0, 100.0));
    assert_eq!(plan.file(1), "r/io_data/test_io_1");
}

/// Two ranks: one task 0-1 s (100 MiB), one 0-2 s (100 MiB) and one 1-2 s (50 MiB). At 1 s the
/// first is done, the second is half way, the third has not started: 150 MiB at 1 s.
#[test]
fn merge_across_ranks_by_hand() {
    let hist = |v: &[u64]| {
        let mut h = Histogram::new();
        v.iter().for_each(|&x| h.record(x));
        Some(h.to_data())
    };
    let mut a = RankResult {
        rank: 0,
        host: "a".into(),
        tasks: vec![task(0, 100 << 20, 0.0, 1.0)],
        calls: hist(&[1_000_000]),
        counters: vec![("create_calls".into(), 2)],
        ..Default::default()
    };
    a.bytes_moved = 100 << 20;
    let b = RankResult {
        rank: 1,
        host: "b".into(),
        tasks: vec![task(1, 100 << 20, 0.0, 2.0), task(3, 50 << 20, 1.0, 2.0)],
        error: Some("task 2: boom".into()),
        bytes_moved: 150 << 20,
        calls: hist(&[2_000_000, 3_000_000]),
        counters: vec![("create_calls".into(), 3)],
        ..Default::default()
    };
    let m = merge(vec![a, b]);
    assert_eq!(m.tasks.iter().map(|t| t.task).collect::<Vec<_>>(), [0, 1, 3]);
    assert_eq!(m.bytes_moved, 250 << 20);
    assert_eq!(m.stonewall, Some((150 << 20, 1.0)));
    assert_eq!(m.error.as_deref(), Some("rank 1 (b): task 2: boom"));
    assert_eq!(aggregates(&m.tasks).tasks, 3);
    assert_eq!(m.counters, [("create_calls".to_string(), 5)]);
    assert_eq!((m.calls.count(), m.calls.max()), (3, Some(3_000_000)));
}
