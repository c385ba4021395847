//! Reports written by earlier versions stay readable: one `--json` file per command as version 1 of
//! the schema wrote it (tests/fixtures/report-v1), read into today's `RunReport`.

use storebench::stats::report::{Params, RunReport, Status, SCHEMA_VERSION};

fn fixture(name: &str) -> RunReport {
    let path = format!("{}/tests/fixtures/report-v1/{name}.json", env!("CARGO_MANIFEST_DIR"));
    RunReport::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn version_1_reports_of_every_command_are_read() {
    assert_eq!(SCHEMA_VERSION, 2);
    let b = fixture("bandwidth");
    assert_eq!((b.schema_version, b.command.as_str(), b.outcome.status), (1, "bandwidth", Status::Completed));
    assert!(matches!(b.params, Params::Bandwidth(_)));
    assert_eq!(b.phases.len(), 2);
    assert_eq!(b.phases[0].bytes, 256 << 10);

    let o = fixture("ops");
    let run = o.ops_run().unwrap();
    assert_eq!(run.repeats.len(), 3, "the default 3 repeats");
    assert!(run.repeats.iter().all(|r| r.summary.ops == 6), "2 threads x 3 iterations");

    let r = fixture("ranges");
    assert!(!r.ranges_run().unwrap().verdict.is_empty());

    let d = fixture("dfsio");
    assert_eq!(d.dfsio_run().unwrap().aggregates.tasks, 2);

    // Version 1's transfer file had no envelope: its fields land in the transfer section.
    let t = fixture("transfer");
    assert_eq!((t.command.as_str(), t.outcome.status), ("transfer", Status::Completed));
    let s = t.transfer().unwrap();
    assert_eq!((s.bytes, s.runs.len()), (1 << 20, 1));
    assert_eq!(s.runs[0].method, "read-write");
    assert_eq!(t.host, "fixture-host");
}

#[test]
fn what_is_not_a_report_is_refused_in_one_line() {
    let e = RunReport::from_json("{\"tool\": \"fio\"}").unwrap_err();
    assert!(e.starts_with("not a storebench report"), "{e}");
    assert!(RunReport::from_json("not json").unwrap_err().starts_with("not a report"));
}
