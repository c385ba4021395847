//! `--format text|markdown|json` and `--json` mean the same on every command: the JSON on standard
//! output is the report `--json` writes (the envelope of docs/report-schema.md), and markdown is a table.

mod common;

use common::sb;
use storebench::stats::report::{RunReport, Status, SCHEMA_VERSION};

/// Each command, small, on a target that needs no server.
fn commands(dir: &std::path::Path) -> Vec<Vec<String>> {
    let d = |p: &str| dir.join(p).display().to_string();
    std::fs::create_dir_all(dir.join("ops")).unwrap();
    vec![
        vec!["bandwidth".into(), "256k".into(), "--block".into(), "64k".into(), "memory://f/".into()],
        vec![
            "ops".into(),
            "--op".into(),
            "create_write".into(),
            "--iterations".into(),
            "2".into(),
            "--file-size".into(),
            "4k".into(),
            d("ops"),
        ],
        vec![
            "ranges".into(),
            "--prepare".into(),
            "256k".into(),
            "--range".into(),
            "0-4095".into(),
            "memory://f/o".into(),
        ],
        vec![
            "dfsio".into(),
            "--write".into(),
            "--nr-files".into(),
            "2".into(),
            "--file-size".into(),
            "64KB".into(),
            "--res-file".into(),
            d("res"),
            "--root-dir".into(),
            d("dfsio"),
        ],
        vec![
            "transfer".into(),
            "--size".into(),
            "256k".into(),
            "--runs".into(),
            "1".into(),
            "--buffer".into(),
            "64k".into(),
            "--method".into(),
            "read-write".into(),
        ],
    ]
}

#[test]
fn every_command_prints_its_report_as_json_and_markdown_and_writes_the_same_json_file() {
    let dir = tempfile::tempdir().unwrap();
    for args in commands(dir.path()) {
        let json = dir.path().join(format!("{}.json", args[0]));
        let out = sb()
            .env("TMPDIR", dir.path())
            .args(&args)
            .args(["--format", "json", "--json"])
            .arg(&json)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let printed = RunReport::from_json(&String::from_utf8_lossy(&out.stdout)).unwrap();
        let written = RunReport::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(printed, written, "{args:?}: stdout and --json agree");
        assert_eq!(written.schema_version, SCHEMA_VERSION);
        assert_eq!((written.command.as_str(), written.tool.as_str()), (args[0].as_str(), "storebench"));
        assert_eq!(written.outcome.status, Status::Completed);
        assert!(!written.started_at.is_empty() && !written.host.is_empty(), "{args:?}");

        let md = sb().env("TMPDIR", dir.path()).args(&args).args(["--format", "markdown"]).output().unwrap();
        assert!(md.status.success(), "{args:?}: {}", String::from_utf8_lossy(&md.stderr));
        let text = String::from_utf8_lossy(&md.stdout);
        assert!(text.starts_with("### "), "{args:?}: {text}");
        assert!(text.lines().any(|l| l.starts_with("|---|")), "{args:?}: {text}");
    }
    // The transfer's own figures are in its section.
    let t = RunReport::from_json(&std::fs::read_to_string(dir.path().join("transfer.json")).unwrap()).unwrap();
    let s = t.transfer().unwrap();
    assert_eq!((s.bytes, s.runs.len(), s.runs[0].method.as_str()), (256 << 10, 1, "read-write"));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!names.iter().any(|n| n.to_string_lossy().ends_with(".transfer")), "the test file is removed: {names:?}");
}

#[test]
fn a_bad_format_names_the_valid_ones() {
    let out = sb().args(["ranges", "--format", "xml", "memory://f/o"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("xml") && err.contains("markdown") && err.contains("json"), "{err}");
}
