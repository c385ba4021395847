//! Snapshots of every export format from one fixed report: the seed's first cloudstore example
//! (16 blocks of 8 MiB uploaded to S3), rebuilt from its CSV log.

use storebench::export::{exporter, Format};
use storebench::stats::aggregate::{op_stats, phase_report, DOWNLOAD, UPLOAD};
use storebench::stats::cpu::CpuTimes;
use storebench::stats::report::*;
use storebench::stats::sample::{Event, OpKind, Recorder};

const MS: u64 = 1_000_000;

fn seed_report() -> RunReport {
    let up = [2, 2, 2, 99, 2, 2, 3, 2, 2, 2, 2, 11093, 4, 3, 2, 8248];
    let down = [1773, 3491, 4255, 4929, 5030, 4648, 3951, 5080, 3548, 5085, 4298, 3824, 3883, 5594, 5318, 4743];
    let mut rec = Recorder::new().keep_events(64);
    let mut t = 0u64;
    let push = |rec: &mut Recorder, op, bytes, offset, dur: u64, t: &mut u64| {
        rec.record(Event {
            op,
            bytes,
            offset,
            start_ns: *t * MS,
            first_byte_ns: *t * MS,
            end_ns: (*t + dur) * MS,
            error: None,
        });
        *t += dur;
    };
    push(&mut rec, OpKind::CreateFile, 0, 0, 397, &mut t);
    for (i, d) in up.iter().enumerate() {
        push(&mut rec, OpKind::UploadBlock, 8_388_608, i as u64 * 8_388_608, *d, &mut t);
    }
    push(&mut rec, OpKind::CloseUpload, 0, 0, 11_706, &mut t);
    rec.record(Event {
        op: OpKind::Upload,
        bytes: 134_217_728,
        offset: 0,
        start_ns: 0,
        first_byte_ns: 0,
        end_ns: 31_598 * MS,
        error: None,
    });
    t = 40_000;
    let dl_start = t;
    push(&mut rec, OpKind::OpenForDownload, 0, 0, 47, &mut t);
    for (i, d) in down.iter().enumerate() {
        push(&mut rec, OpKind::DownloadBlock, 8_388_608, i as u64 * 8_388_608, *d, &mut t);
    }
    push(&mut rec, OpKind::CloseDownload, 0, 0, 3, &mut t);
    rec.record(Event {
        op: OpKind::Download,
        bytes: 134_217_728,
        offset: 0,
        start_ns: dl_start * MS,
        first_byte_ns: dl_start * MS,
        end_ns: (dl_start + 69_531) * MS,
        error: None,
    });
    push(&mut rec, OpKind::Delete, 0, 0, 161, &mut t);
    let cpu = CpuTimes { user_s: 0.5, system_s: 0.25 };
    RunReport {
        schema_version: SCHEMA_VERSION,
        tool: "storebench".into(),
        version: "0.0.0-snapshot".into(),
        command: "bandwidth".into(),
        started_at: "2023-09-14T13:57:00.959Z".into(),
        host: "snapshot-host".into(),
        target: "memory://stevel-london/tmp".into(),
        engine: "memcpy into process memory".into(),
        params: Params::Bandwidth(BandwidthParams {
            size: 134_217_728,
            block: 8_388_608,
            blocks: 16,
            policy: "whole-file".into(),
            path: "stevel-london/tmp".into(),
            flush: false,
            hflush: false,
            direct: false,
            fsync_on_close: false,
            read_only: false,
            rename: false,
            keep: false,
            verify: false,
            seed: 42,
            prefetch: 4,
            ranks: 1,
        }),
        phases: vec![phase_report(&rec, &UPLOAD, cpu, 1).unwrap(), phase_report(&rec, &DOWNLOAD, cpu, 1).unwrap()],
        ops: op_stats(&rec),
        events: rec.events().to_vec(),
        event_sampling: None,
        counters: vec![CounterGroup {
            scope: "upload stream".into(),
            counters: vec![("bytes_written".into(), 134_217_728)],
        }],
        warnings: vec![],
        outcome: Outcome { status: Status::Completed, error: None },
        section: None,
        probes: Default::default(),
        findings: Vec::new(),
        tasks: vec![],
        data: Some(DataChoice { pattern: "random".into(), seed: 42 }),
        drop_cache: None,
        reorder: None,
    }
}

#[test]
fn text_summary() {
    insta::assert_snapshot!(exporter(Format::Text, false, false).render(&seed_report()));
}

#[test]
fn text_verbose() {
    insta::assert_snapshot!(exporter(Format::Text, true, false).render(&seed_report()));
}

#[test]
fn csv_log() {
    insta::assert_snapshot!(exporter(Format::Csv, false, false).render(&seed_report()));
}

#[test]
fn json_report() {
    let json = exporter(Format::Json, false, false).render(&seed_report());
    // The JSON is the report itself: it reads back into an equal value.
    let back: RunReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, seed_report());
    insta::assert_snapshot!(json);
}

#[test]
fn failed_run_says_so() {
    let mut r = seed_report();
    r.outcome = Outcome {
        status: Status::Failed,
        error: Some("no space left on the device holding /x (write at offset 0)".into()),
    };
    r.phases[1].complete = false;
    let text = exporter(Format::Text, false, true).render(&r);
    assert!(text.contains("RUN FAILED: no space left"), "{text}");
    assert!(text.contains("INCOMPLETE: the download did not finish"), "{text}");
    assert!(!text.contains("Bandwidth test against"), "quiet drops the preamble");
}
