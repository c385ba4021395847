//! Each rule fired on a hand-built report, and kept silent where it should be.

use super::*;
use crate::stats::report::CounterGroup;

fn fixture(name: &str) -> RunReport {
    let text = match name {
        "bandwidth" => include_str!("../../../tests/fixtures/report-v1/bandwidth.json"),
        "ops" => include_str!("../../../tests/fixtures/report-v1/ops.json"),
        "dfsio" => include_str!("../../../tests/fixtures/report-v1/dfsio.json"),
        other => panic!("no fixture {other}"),
    };
    RunReport::from_json(text).unwrap()
}

/// A bandwidth report whose upload and download each moved 1 GiB in `secs` seconds.
fn bandwidth(secs: f64) -> RunReport {
    let mut r = fixture("bandwidth");
    for p in r.phases.iter_mut() {
        p.duration_s = secs;
        p.close_s = Some(0.0);
        p.cpu.total_s = 0.0;
        p.complete = true;
    }
    r
}

fn rules(found: &[Finding]) -> Vec<&str> {
    found.iter().map(|f| f.rule.as_str()).collect()
}

fn resident(pct: u64) -> Residency {
    Residency { phase: "download".into(), rank: 0, resident_bytes: pct, file_bytes: 100, probe_s: 0.001 }
}

#[test]
fn page_cache_at_and_above_half_resident() {
    let mut r = bandwidth(2.0);
    assert!(page_cache(&r).is_empty(), "no probe, no finding");
    r.probes.page_cache = vec![resident(49)];
    assert!(page_cache(&r).is_empty(), "49 % resident is under the threshold");
    r.probes.page_cache = vec![resident(50)];
    let f = page_cache(&r);
    assert_eq!(rules(&f), ["page_cache"]);
    assert!(f[0].verdict.starts_with("50 % of the file was in the page cache before the download"), "{}", f[0].verdict);
    // Two ranks: 100 of 100 and 0 of 100 bytes resident is 50 % of what the phase read.
    r.probes.page_cache = vec![resident(100), Residency { rank: 1, ..resident(0) }];
    assert!(page_cache(&r)[0].evidence[0].contains("= 50 % (100 of 200 bytes"), "{:?}", page_cache(&r));
}

#[test]
fn writes_in_cache_from_half_the_bytes_dirty() {
    let mut r = bandwidth(2.0);
    let dirty = |d: u64| Dirty { phase: "upload".into(), rank: 0, dirty_bytes: d, written_bytes: 100 };
    r.probes.dirty = vec![dirty(49)];
    assert!(writes_in_cache(&r).is_empty());
    r.probes.dirty = vec![dirty(50)];
    let f = writes_in_cache(&r);
    assert_eq!(rules(&f), ["writes_in_cache"]);
    assert!(f[0].verdict.starts_with("50 % of the upload's bytes were still in the page cache"), "{}", f[0].verdict);
}

/// Download requests of 1 MiB, each `wait` s to first byte and `total` s in all, one after the other.
fn with_requests(wait: f64, total: f64) -> RunReport {
    use crate::stats::sample::{Event, OpKind};
    let mut r = bandwidth(1.0);
    let ns = |s: f64| (s * 1e9) as u64;
    r.events = (0..10u64)
        .map(|i| Event {
            op: OpKind::DownloadBlock,
            bytes: 1 << 20,
            offset: i << 20,
            start_ns: i * ns(total),
            first_byte_ns: i * ns(total) + ns(wait),
            end_ns: (i + 1) * ns(total),
            error: None,
        })
        .collect();
    r.phases[1].duration_s = 10.0 * total;
    r.counters = vec![CounterGroup { scope: "store".into(), counters: vec![("get_requests".into(), 10)] }];
    r
}

#[test]
fn latency_bound_when_half_of_each_request_is_waiting() {
    assert!(latency_bound(&with_requests(0.004, 0.010)).is_empty(), "40 % waiting");
    // 50 ms to first byte of 60 ms, one at a time: 1 MiB / (0.05 + 1 MiB / 100 MiB/s) = 16.7 MiB/s.
    let f = latency_bound(&with_requests(0.050, 0.060));
    assert_eq!(rules(&f), ["latency_bound"]);
    assert!(
        f[0].verdict.starts_with("each request waited 50.0 ms before its first byte (83 % of it)"),
        "{}",
        f[0].verdict
    );
    assert!(f[0].verdict.ends_with("1.0 in flight can carry at most 16.7 MiB/s here"), "{}", f[0].verdict);
    // A local file counts no requests: its "first byte" is the read's end, so the rule says nothing.
    let mut r = with_requests(0.050, 0.060);
    r.counters.clear();
    assert!(latency_bound(&r).is_empty());
}

#[test]
fn sender_cpu_bound_names_the_busy_method_and_the_cheapest() {
    use crate::stats::cpu::CpuTimes;
    use crate::stats::transfer::{figures, TransferSection};
    let mut r = bandwidth(1.0);
    r.phases.clear();
    // read-write 4 KiB: 1 GiB in 2 s with 1.9 s of CPU (95 % busy); sendfile: 1 GiB in 0.5 s, 0.1 s.
    let runs = vec![
        figures("read-write", 4096, 1, 1 << 30, 2.0, CpuTimes { user_s: 0.1, system_s: 1.8 }, None),
        figures("sendfile", 1 << 20, 1, 1 << 30, 0.5, CpuTimes { user_s: 0.0, system_s: 0.1 }, None),
    ];
    r.section = Some(Section::Transfer(TransferSection { source: "f".into(), bytes: 1 << 30, to: "x".into(), runs }));
    let f = sender_cpu_bound(&r);
    assert_eq!(rules(&f), ["sender_cpu_bound"]);
    assert!(f[0].verdict.starts_with("read-write 4 KiB kept its sending thread 95 % busy"), "{}", f[0].verdict);
    assert!(f[0].evidence[2].contains("sendfile 1 MiB: 0.100 CPU-s/GiB (19.0x less)"), "{:?}", f[0].evidence);
    assert!(f[0].advice.starts_with("the cheaper method above"), "{}", f[0].advice);
    // At 75 % busy nothing is said.
    let Some(Section::Transfer(t)) = &mut r.section else { unreachable!() };
    t.runs[0].sender = CpuTimes { user_s: 0.1, system_s: 1.4 };
    assert!(sender_cpu_bound(&r).is_empty());
}

#[test]
fn cpu_saturated_at_ninety_percent_of_the_cores() {
    let mut r = bandwidth(2.0);
    r.probes.cores = Some(2);
    r.phases[0].cpu.total_s = 3.5; // 1.75 cores of 2: 87.5 %
    assert!(cpu_saturated(&r).is_empty());
    r.phases[0].cpu.total_s = 3.6; // 1.80 of 2: 90 %
    let f = cpu_saturated(&r);
    assert_eq!(rules(&f), ["cpu_saturated"]);
    assert!(f[0].verdict.starts_with("the client kept 1.80 of 2 cores busy during the upload"), "{}", f[0].verdict);
    // 1.5 s on a CPU and 0.3 s waiting for one is as busy.
    r.phases[0].cpu.total_s = 3.0;
    r.probes.cpu_wait = vec![CpuWait { phase: "upload".into(), rank: 0, wait_s: 0.6 }];
    assert!(cpu_saturated(&r)[0].verdict.starts_with("the client kept 1.80 of 2 cores busy"));
    r.probes.cores = None;
    assert!(cpu_saturated(&r).is_empty(), "without the core count nothing is said");
    // 0.4 s at 2 cores' worth of CPU: too short for tick-counted CPU time to say anything.
    let mut r = bandwidth(0.4);
    r.probes.cores = Some(2);
    r.phases[0].cpu.total_s = 0.8;
    assert!(cpu_saturated(&r).is_empty());
}

#[test]
fn upload_in_close_from_half_the_phase() {
    let mut r = bandwidth(2.0);
    r.phases[0].close_s = Some(0.9);
    assert!(upload_in_close(&r).is_empty(), "45 % in close()");
    r.phases[0].close_s = Some(1.0);
    let f = upload_in_close(&r);
    assert_eq!(rules(&f), ["upload_in_close"]);
    assert!(f[0].verdict.starts_with("close() took 50 % of the upload"), "{}", f[0].verdict);
    assert!(f[0].advice.contains("--fsync-on-close"), "a local upload: {}", f[0].advice);
    r.counters.push(CounterGroup { scope: "upload stream".into(), counters: vec![("multipart_parts".into(), 3)] });
    assert!(upload_in_close(&r)[0].advice.contains("fs.s3a.fast.upload.active.blocks"));
}

#[test]
fn stragglers_past_a_fifth_apart() {
    let mut r = fixture("dfsio");
    let Some(Section::Dfsio(d)) = &mut r.section else { panic!("dfsio fixture") };
    d.stonewall_mb_s = 100.0;
    d.aggregate_mb_s = 81.0;
    assert!(stragglers(&r).is_empty(), "19 % apart");
    let Some(Section::Dfsio(d)) = &mut r.section else { unreachable!() };
    d.aggregate_mb_s = 50.0;
    d.tasks[0].end_s = 1.0;
    d.tasks[1].end_s = 3.0;
    let f = stragglers(&r);
    assert_eq!(rules(&f), ["stragglers"]);
    assert!(f[0].verdict.contains("50 % off the stonewall rate"), "{}", f[0].verdict);
    // The median of two ends is the lower (nearest rank): the task ending at 3 s is named.
    assert!(f[0].evidence.iter().any(|e| e.contains("ended at 3.000 s")), "{:?}", f[0].evidence);
}

#[test]
fn pushback_from_retries_and_throttling() {
    let mut r = bandwidth(2.0);
    r.counters = vec![CounterGroup { scope: "store".into(), counters: vec![("http_retries".into(), 0)] }];
    assert!(pushback(&r).is_empty());
    r.counters[0].counters.push(("http_throttled".into(), 4));
    let f = pushback(&r);
    assert_eq!(rules(&f), ["pushback"]);
    assert_eq!(f[0].evidence, ["store http_throttled = 4"]);
}

#[test]
fn unstable_over_ten_percent_cv() {
    let mut r = fixture("ops");
    let Some(Section::Ops(run)) = &mut r.section else { panic!("ops fixture") };
    run.statistics.iter_mut().find(|s| s.name == "ops_per_s").unwrap().cv = 0.10;
    assert!(unstable(&r).is_empty(), "10 % is the limit, not over it");
    let Some(Section::Ops(run)) = &mut r.section else { unreachable!() };
    run.statistics.iter_mut().find(|s| s.name == "ops_per_s").unwrap().cv = 0.15;
    let f = unstable(&r);
    assert_eq!(rules(&f), ["unstable"]);
    assert!(f[0].verdict.contains("cv 15 % > 10 %"), "{}", f[0].verdict);
}

#[test]
fn cold_first_below_four_fifths_of_the_others() {
    let mut r = fixture("ops");
    let set = |r: &mut RunReport, first: f64, warm: f64| {
        let Some(Section::Ops(run)) = &mut r.section else { panic!("ops fixture") };
        run.repeats[0].summary.ops_per_s = first;
        run.warm_statistics.iter_mut().find(|s| s.name == "ops_per_s").unwrap().mean = warm;
    };
    set(&mut r, 80.0, 100.0);
    assert!(cold_first(&r).is_empty(), "80 % is the limit");
    set(&mut r, 50.0, 100.0);
    let f = cold_first(&r);
    assert_eq!(rules(&f), ["cold_first"]);
    assert!(f[0].verdict.starts_with("the first repeat ran at 50 % of the others' rate"), "{}", f[0].verdict);
}

#[test]
fn few_ops_under_a_hundred_per_repeat() {
    let mut r = fixture("ops");
    let Some(Section::Ops(run)) = &mut r.section else { panic!("ops fixture") };
    for x in run.repeats.iter_mut() {
        x.summary.ops = 100;
    }
    assert!(few_ops(&r).is_empty());
    let Some(Section::Ops(run)) = &mut r.section else { unreachable!() };
    run.repeats[1].summary.ops = 99;
    let f = few_ops(&r);
    assert_eq!(rules(&f), ["few_ops"]);
    assert_eq!(f[0].evidence, ["repeat 2 ops = 99"]);
}

#[test]
fn short_phases_under_half_a_second() {
    let r = bandwidth(0.5);
    assert!(short_phases(&r).is_empty());
    let mut r = bandwidth(0.1);
    assert_eq!(rules(&short_phases(&r)), ["short_run"]);
    for p in r.phases.iter_mut() {
        p.complete = false;
    }
    assert!(short_phases(&r).is_empty(), "a phase cut short says nothing about timers");
}

#[test]
fn most_important_first_and_nothing_when_nothing() {
    let r = bandwidth(2.0);
    assert!(of(&r).is_empty(), "{:?}", of(&r));
    let mut r = bandwidth(0.1);
    r.probes.page_cache = vec![resident(100)];
    assert_eq!(rules(&of(&r)), ["page_cache", "short_run"]);
}
