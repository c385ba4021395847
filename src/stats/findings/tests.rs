//! Each rule fired on a hand-built report, and kept silent where it should be.

use super::*;
use crate::stats::report::CounterGroup;

fn fixture(name: &str) -> RunReport {
    let text = match name {
        "bandwidth" => include_str!("../../../tests/fixtures/report-v1/bandwidth.json"),
        "ops" => include_str!("../../../tests/fixtures/report-v1/ops.json"),
        "dfsio" => include_str!("../../../tests/fixtures/report-v1/dfsio.json"),
        "ranges" => include_str!("../../../tests/fixtures/report-v1/ranges.json"),
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
    Residency {
        phase: "download".into(),
        rank: 0,
        resident_bytes: pct,
        file_bytes: 100,
        probe_s: 0.001,
        evicted: false,
    }
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

fn gets() -> Vec<CounterGroup> {
    vec![CounterGroup { scope: "store".into(), counters: vec![("get_requests".into(), 10)] }]
}

#[test]
fn latency_bound_from_ops_downloads_means() {
    // 10 downloads of 1 MiB, 50 ms to first byte of 60 ms each, one at a time over 0.6 s of repeats.
    let mut r = fixture("ops");
    r.counters = gets();
    let Some(Section::Ops(run)) = &mut r.section else { panic!("ops fixture") };
    for (i, p) in run.repeats.iter_mut().enumerate() {
        p.summary.wall_s = [0.2, 0.2, 0.2][i];
    }
    let mut download = r.ops[0].clone();
    download.op = "download".into();
    download.bytes = 10 << 20;
    download.latency.count = 10;
    download.latency.mean_s = 0.06;
    download.latency.first_byte_mean_s = 0.05;
    download.latency.total_s = 0.6;
    r.ops.push(download.clone());
    let f = latency_bound(&r);
    assert_eq!(rules(&f), ["latency_bound"]);
    // 1 MiB / (0.05 + 1 MiB / (1 MiB / 0.01 s)) = 16.7 MiB/s with 1.0 in flight.
    assert!(
        f[0].verdict.ends_with("(83 % of it): 1.0 in flight can carry at most 16.7 MiB/s here"),
        "{}",
        f[0].verdict
    );
    assert!(f[0].evidence[0].contains("means over 10 downloads"), "{:?}", f[0].evidence);
    r.ops.last_mut().unwrap().latency.first_byte_mean_s = 0.02;
    assert!(latency_bound(&r).is_empty(), "20 ms of 60 ms waiting is a third");
}

#[test]
fn latency_bound_from_dfsio_read_tasks() {
    // Four 8 MiB reads, two at a time: 0.4 s to the first byte of 0.5 s each.
    let mut r = fixture("dfsio");
    r.counters = vec![CounterGroup { scope: "store".into(), counters: vec![("datanode_reads".into(), 4)] }];
    let Some(Section::Dfsio(d)) = &mut r.section else { panic!("dfsio fixture") };
    let proto = d.tasks[0].clone();
    d.tasks = (0..4u64)
        .map(|k| {
            let start = (k / 2) as f64 * 0.5;
            crate::stats::dfsio::TaskRecord {
                task: k,
                bytes: 8 << 20,
                start_s: start,
                end_s: start + 0.5,
                first_byte_s: Some(start + 0.4),
                ..proto.clone()
            }
        })
        .collect();
    let f = latency_bound(&r);
    assert_eq!(rules(&f), ["latency_bound"]);
    // Same sizes: latency is the median wait (0.4 s), the stream 8 MiB / 0.1 s; 2 in flight over 1 s:
    // 2 x 8 MiB / (0.4 + 0.1) = 32 MiB/s.
    assert!(f[0].verdict.contains("waited 400.0 ms"), "{}", f[0].verdict);
    assert!(f[0].verdict.ends_with("2.0 in flight can carry at most 32.0 MiB/s here"), "{}", f[0].verdict);
    // A write has no first bytes: nothing to say.
    let Some(Section::Dfsio(d)) = &mut r.section else { unreachable!() };
    d.tasks.iter_mut().for_each(|t| t.first_byte_s = None);
    assert!(latency_bound(&r).is_empty());
}

#[test]
fn latency_bound_from_ranges_cold_gets() {
    use crate::stats::report::RequestReport;
    let mut r = fixture("ranges");
    r.counters = gets();
    let Some(Section::Ranges(run)) = &mut r.section else { panic!("ranges fixture") };
    run.request_latency_s = 0.03;
    run.stream_mib_per_s = 50.0;
    let s = run.strategies.iter_mut().find(|s| s.name == "sequential").expect("sequential in the fixture");
    // Five GETs of 512 KiB one after the other, 30 ms waiting of 40 ms each.
    s.cold_requests = (0..5)
        .map(|i| RequestReport {
            length: 512 << 10,
            at_s: i as f64 * 0.04,
            first_byte_s: 0.03,
            transfer_s: 0.01,
            total_s: 0.04,
            ..Default::default()
        })
        .collect();
    s.cold_s = 0.2;
    let f = latency_bound(&r);
    assert_eq!(rules(&f), ["latency_bound"]);
    // 1 in flight: 0.5 MiB / (0.03 + 0.5 / 50) = 12.5 MiB/s.
    assert!(
        f[0].verdict.ends_with("(75 % of it): 1.0 in flight can carry at most 12.5 MiB/s here"),
        "{}",
        f[0].verdict
    );
    r.counters.clear();
    assert!(latency_bound(&r).is_empty(), "a local file's reads are no requests");
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
    assert!(f[0].verdict.contains("50 % below the stonewall rate"), "{}", f[0].verdict);
    // The median of two ends is the lower (nearest rank): the task ending at 3 s is named.
    assert!(f[0].evidence.iter().any(|e| e.contains("ended at 3.000 s")), "{:?}", f[0].evidence);
    // The whole-run rate above the stonewall rate: no task held the run up.
    let Some(Section::Dfsio(d)) = &mut r.section else { unreachable!() };
    d.aggregate_mb_s = 200.0;
    assert!(stragglers(&r).is_empty(), "aggregate above stonewall");
    // Far apart, but every task ended together: nobody to name, nothing said.
    let Some(Section::Dfsio(d)) = &mut r.section else { unreachable!() };
    d.aggregate_mb_s = 50.0;
    d.tasks[0].end_s = 3.0;
    assert!(stragglers(&r).is_empty(), "no task after the median");
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

#[test]
fn impossible_above_one_and_a_half_times_the_memory_probe() {
    use crate::stats::probes::MemoryProbe;
    // Each phase moved 1 GiB in 0.1 s: 10,240 MiB/s.
    let mut r = bandwidth(0.1);
    for p in r.phases.iter_mut() {
        p.mbyte_per_s = 10_240.0;
    }
    assert!(impossible(&r).is_empty(), "no probe, no ceiling");
    r.probes.memory = Some(MemoryProbe { mib_per_s: 8_000.0, threads: 2, probe_s: 0.03 });
    assert!(impossible(&r).is_empty(), "1.28x the probe is within its noise");
    r.probes.memory = Some(MemoryProbe { mib_per_s: 6_000.0, threads: 2, probe_s: 0.03 });
    let f = impossible(&r);
    assert_eq!(rules(&f), ["impossible"]);
    assert_eq!(f[0].suspect, ["upload mbyte_per_s", "download mbyte_per_s"]);
    assert!(
        f[0].verdict.starts_with("upload mbyte_per_s = 10240 MiB/s is 1.7x what this host's memory"),
        "{}",
        f[0].verdict
    );
    // Two hosts carry twice as much.
    r.tasks = r
        .tasks
        .iter()
        .cloned()
        .chain(r.tasks.iter().cloned().map(|mut t| {
            t.host = "other".into();
            t
        }))
        .collect();
    assert!(r.tasks.iter().any(|t| t.host != "other"), "the fixture has tasks on its own host");
    assert!(impossible(&r).is_empty(), "{:?}", impossible(&r));
}

#[test]
fn impossible_above_the_link_to_a_remote_store() {
    use crate::stats::probes::LinkProbe;
    let mut r = bandwidth(1.0);
    r.tasks.clear();
    // 1 Gbit/s = 119.2 MiB/s; x 1.1 = 131.1 MiB/s.
    r.probes.link =
        Some(LinkProbe { endpoint: "s3.example:443".into(), interface: "eth0".into(), mbit_per_s: 1000, probe_s: 0.0 });
    r.phases[0].mbyte_per_s = 130.0;
    r.phases[1].mbyte_per_s = 140.0;
    let f = impossible(&r);
    assert_eq!(rules(&f), ["impossible"]);
    assert_eq!(f[0].suspect, ["download mbyte_per_s"]);
    assert!(
        f[0].verdict.contains("more than the 1000 Mbit/s link to s3.example:443 carries (119 MiB/s)"),
        "{}",
        f[0].verdict
    );
    // The figure is marked for every exporter.
    r.findings = f;
    assert!(suspect(&r, "download mbyte_per_s") && !suspect(&r, "upload mbyte_per_s"));
}

#[test]
fn reorder_same_host_when_a_reader_shares_its_writers_host() {
    use crate::stats::report::TaskReport;
    // Four ranks, two per host (ranks 0, 1 on a; 2, 3 on b), each reading rank r + 1's download.
    let task = |rank: u32, host: &str, written_by: u32| TaskReport {
        rank,
        host: host.into(),
        task: "download".into(),
        written_by: Some(written_by),
        ..Default::default()
    };
    let mut r = bandwidth(2.0);
    r.reorder = Some(1);
    r.tasks = vec![task(0, "a", 1), task(1, "a", 2), task(2, "b", 3), task(3, "b", 0)];
    // Rank 0 reads rank 1 (both on a), rank 2 reads rank 3 (both on b): 2 of 4 on their own host.
    let f = reorder_same_host(&r);
    assert_eq!(rules(&f), ["reorder_same_host"]);
    assert!(f[0].verdict.starts_with("--reorder 1: 2 of 4 reads were of data written on the reader's own host (a, b)"));
    assert_eq!(f[0].evidence, ["rank 0 on a read what rank 1 wrote, and rank 1 ran on a"]);
    // --reorder 2 (the ranks per host): every read crosses hosts.
    r.reorder = Some(2);
    r.tasks = vec![task(0, "a", 2), task(1, "a", 3), task(2, "b", 0), task(3, "b", 1)];
    assert!(reorder_same_host(&r).is_empty());
    // Without --reorder nothing is said, whatever the tasks.
    r.reorder = None;
    r.tasks = vec![task(0, "a", 1), task(1, "a", 0)];
    assert!(reorder_same_host(&r).is_empty());
}
