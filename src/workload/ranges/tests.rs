use super::*;

#[test]
fn parses_inclusive_ends_and_lengths() {
    // The seed's setRange(21013289, 21078824) is 65536 bytes.
    assert_eq!(parse_range("21013289-21078824").unwrap(), 21013289..21078825);
    assert_eq!(parse_range(" 100,50 ").unwrap(), 100..150);
    assert_eq!(parse_range("7-7").unwrap(), 7..8);
    for (bad, needle) in
        [("9-3", "start > end"), ("x-3", "'x' is not a byte offset"), ("5,0", "length 0"), ("12", "neither")]
    {
        let e = parse_range(bad).unwrap_err();
        assert!(e.contains(needle), "{bad}: {e}");
    }
}

#[test]
fn ranges_file_errors_name_the_line() {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), "# seed\n0-9\n\n10,5  # a comment\n20-1\n").unwrap();
    let e = parse_ranges_file(f.path()).unwrap_err();
    assert!(e.ends_with("line 5: range '20-1' starts after it ends (start > end)"), "{e}");
    std::fs::write(f.path(), "0-9\n10,5\n").unwrap();
    assert_eq!(parse_ranges_file(f.path()).unwrap(), vec![0..10, 10..15]);
}

#[test]
fn splitting_and_coalescing() {
    // split: 25 bytes in pieces of 10 -> 10, 10, 5; a 3-byte range stays whole.
    assert_eq!(split(&[0..25, 100..103], 10), vec![0..10, 10..20, 20..25, 100..103]);
    // coalesce: unsorted, overlapping (0..10, 5..12), adjacent (12..20), within the gap (23..30 is
    // 3 past 20), beyond it (40..50).
    let r = [40..50, 5..12, 0..10, 12..20, 23..30];
    assert_eq!(coalesce(&r, 3), vec![0..30, 40..50]);
    assert_eq!(coalesce(&r, 0), vec![0..20, 23..30, 40..50]);
    // whole: the span.
    assert_eq!(fetches(Strategy::Whole, &r, 0, 0), std::iter::once(0..50).collect::<Vec<_>>());
    // The seed's overlapping pairs coalesce to one GET per pair.
    let seed = [parse_range("21013289-21078824").unwrap(), parse_range("21013289-23375593").unwrap()];
    assert_eq!(coalesce(&seed, 0), vec![21013289..23375594]);
}

#[test]
fn link_latency_and_bandwidth_by_hand() {
    // GETs of 1 MiB in 30 ms and 3 MiB in 50 ms: time = 20 ms + bytes / (100 MiB/s).
    let (lat, mib) = link_fit(&[(1 << 20, 0.030, 0.0), (3 << 20, 0.050, 0.0), (1 << 20, 0.030, 0.0)]);
    assert!((lat - 0.020).abs() < 1e-9 && (mib - 100.0).abs() < 1e-6, "{lat} {mib}");
    // One size only: median first byte, bytes over transfer time (2 MiB in 2 x 10 ms).
    let (lat, mib) = link_fit(&[(1 << 20, 0.015, 0.005), (1 << 20, 0.016, 0.006)]);
    assert!((lat - 0.005).abs() < 1e-12 && (mib - 100.0).abs() < 1e-6, "{lat} {mib}");
}

#[test]
fn past_the_end_and_empty_are_refused() {
    let e = check_ranges(&[0..10, 95..101], 100, "obj").unwrap_err();
    assert!(e.contains("range 95-100 ends past the end of obj, which holds 100 bytes (last byte 99)"), "{e}");
    assert!(check_ranges(&[], 100, "obj").unwrap_err().contains("no ranges"));
    assert!(check_ranges(&[0..50, 50..100], 100, "obj").is_ok());
}

#[test]
fn generated_pairs_are_seeded_and_inside() {
    let a = generate("6:64k,6:2m", 48 << 20, 7).unwrap();
    assert_eq!(a, generate("6:64k,6:2m", 48 << 20, 7).unwrap());
    assert_eq!(a.len(), 12);
    // Pairs share their start: 64 KiB then 2 MiB.
    for p in a.chunks(2) {
        assert_eq!((p[0].start, p[0].end - p[0].start, p[1].end - p[1].start), (p[1].start, 64 << 10, 2 << 20));
    }
    assert!(a.iter().all(|r| r.end <= 48 << 20));
    assert!(generate("1:1g", 1 << 20, 1).unwrap_err().contains("do not fit"));
    assert!(generate("0:1k", 1 << 20, 1).is_err());
}

#[test]
fn every_strategy_reads_the_right_bytes_on_memory() {
    let target = crate::store::memory::MemoryStore::target("rangestest/obj");
    prepare_object(&target, 3 << 20, crate::workload::data::TestData { seed: 5, ..Default::default() }).unwrap();
    let plan = RangesPlan {
        ranges: vec![0..1000, 500..70_000, (3 << 20) - 10..3 << 20],
        strategies: Strategy::EACH.to_vec(),
        split_size: 10_000,
        coalesce_gap: 1 << 20,
        concurrency: 4,
        warm: 2,
        verify: true,
        seed: 5,
        data: crate::workload::data::TestData { seed: 5, ..Default::default() },
        drop_cache: None,
        prepare: Some(3 << 20),
    };
    let reference = reference(&target, &plan).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (run, failure) = run(&target, &plan, reference.as_ref(), &stop, &mut Vec::new());
    assert!(failure.is_none(), "{failure:?}");
    let by = |n: &str| run.strategies.iter().find(|s| s.name == n).unwrap();
    assert_eq!(by("sequential").requests, 3);
    assert_eq!(by("split").requests, 1 + 7 + 1);
    // The first two overlap; the last is 3 MiB away, beyond the 1 MiB gap.
    assert_eq!(by("coalesce").requests, 2);
    assert_eq!(by("whole").bytes_fetched, 3 << 20);
    assert!(run
        .strategies
        .iter()
        .all(|s| s.verified && s.warm_mean_s.is_some() && s.cold_requests.len() as u64 == s.requests));
    assert_eq!(run.verdict.len(), 5);
    target.store.delete("rangestest/obj").unwrap();
}

#[test]
fn beyond_the_listed_count_gets_are_counted_not_listed() {
    // 10,003 one-byte ranges: the first 10,000 GETs are listed in order, 3 are counted, and the
    // statistics cover all 10,003.
    let target = crate::store::memory::MemoryStore::target("rangestest/many");
    prepare_object(&target, 20_000, crate::workload::data::TestData { seed: 5, ..Default::default() }).unwrap();
    let plan = RangesPlan {
        ranges: (0..10_003u64).map(|i| i..i + 1).collect(),
        strategies: vec![Strategy::Sequential],
        split_size: 1,
        coalesce_gap: 0,
        concurrency: 1,
        warm: 0,
        verify: false,
        seed: 5,
        data: crate::workload::data::TestData { seed: 5, ..Default::default() },
        drop_cache: None,
        prepare: Some(20_000),
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (run, failure) = run(&target, &plan, None, &stop, &mut Vec::new());
    assert!(failure.is_none(), "{failure:?}");
    let s = &run.strategies[0];
    assert_eq!((s.requests, s.cold_requests.len(), s.cold_requests_omitted), (10_003, LISTED_REQUESTS, 3));
    assert_eq!(s.cold_requests.last().map(|q| q.start), Some(9_999));
    assert_eq!(s.request_latency.count, 10_003);
    target.store.delete("rangestest/many").unwrap();
}
