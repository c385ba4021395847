//! `storebench compare`: two runs of one setting are within the noise (a fixed pair of reports); a
//! real injected difference (25 ms each way through toxiproxy in front of the S3 server) is found
//! significant and fails `--fail-if-slower`; runs that cannot be compared are refused in one line.

mod common;

use common::{s3, sb, unique};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

#[test]
fn two_runs_of_one_setting_are_within_the_noise() {
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("cmp.html");
    let out = sb()
        .arg("compare")
        .arg(fixture("compare/same-1.json"))
        .arg(fixture("compare/same-2.json"))
        .args(["--fail-if-slower", "5", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // ops_per_s moved 15 % between these two runs, yet over 5 repeats each that is noise (p = 0.108, Welch on the logarithms).
    let ops = text.lines().find(|l| l.starts_with("ops_per_s")).unwrap();
    assert!(ops.contains("-15.2 %") && ops.contains("within noise") && ops.contains("p = 0.1079"), "{ops}");
    assert!(!text.contains("worse") && !text.contains("better"), "{text}");
    // A figure neither run moved (MiB/s of stat) is left out.
    assert!(!text.contains("mib_per_s"), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<table class=\"compare\">") && html.contains("data-chart=\"compare-percentiles\""));
    assert!(html.matches("<section class=\"run\"").count() == 2 && !html.contains("<script"));
    let md = sb()
        .arg("compare")
        .arg(fixture("compare/same-1.json"))
        .arg(fixture("compare/same-2.json"))
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("| figure | base | new | change | verdict | test |") && md.contains("| ops_per_s (1/s) |"),
        "{md}"
    );
}

#[test]
fn runs_that_cannot_be_compared_are_refused_in_one_line() {
    let refused = |a: &str, b: &str, says: &str| {
        let out = sb().arg("compare").arg(fixture(a)).arg(fixture(b)).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(2) && err.contains(says) && err.lines().count() == 1, "{a} {b}: {err}");
    };
    refused("compare/same-1.json", "report-v2/bandwidth.json", "different commands: ops and bandwidth");
    refused("compare/same-1.json", "report-v2/ops.json", "differ in op: stat in the base, create_write in the new one");
    let out = sb().args(["compare", "a.json", "b.json", "--fail-if-slower", "-3"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid --fail-if-slower '-3'"));
}

/// ops stat on the S3 server directly, then through toxiproxy's 25 ms each way: compare says the
/// proxied run is worse, significantly, and --fail-if-slower 10 fails.
#[test]
#[ignore = "needs an S3 server: scripts/test.sh starts one"]
fn an_injected_latency_is_significant_and_fails_the_gate() {
    let s3 = s3();
    let slow = common::need(&["STOREBENCH_S3_SLOW_ENDPOINT"]).remove(0);
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("s3://{}/{}/", s3.bucket, unique("compare"));
    let run = |endpoint: &str, json: &Path| {
        s3.cmd()
            .args(["ops", "--op", "stat", "--threads", "2", "--iterations", "20", "--repeats", "3", "--prepare"])
            .args(["--file-size", "1k", "-q", "--endpoint", endpoint, "--json"])
            .arg(json)
            .arg(&url)
            .assert()
            .success();
    };
    let (base, new) = (tmp.path().join("base.json"), tmp.path().join("slow.json"));
    run(&s3.endpoint, &base);
    run(&slow, &new);
    let out = sb().arg("compare").arg(&base).arg(&new).args(["--fail-if-slower", "10"]).output().unwrap();
    let (text, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let ops = text.lines().find(|l| l.starts_with("ops_per_s")).unwrap();
    assert!(ops.contains(" worse ") && ops.contains("Welch over log repeats (3 vs 3)"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--fail-if-slower 10") && err.contains("ops_per_s"), "{err}");
    // The other way round it is better, and nothing fails.
    let out = sb().arg("compare").arg(&new).arg(&base).args(["--fail-if-slower", "10"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.lines().any(|l| l.starts_with("ops_per_s") && l.contains(" better ")),
        "{text}"
    );
}
