//! `storebench report` and `--html`: one self-contained page per run, from every command's report of
//! every schema version (tests/fixtures/report-v1, report-v2), its structure snapshotted; rendered in a
//! real browser (headless Chromium, which scripts/test.sh installs) with no console error and no
//! network request, the charts counted and a screenshot kept in the artifacts folder.

mod common;

use common::sb;
use std::path::{Path, PathBuf};

const COMMANDS: [&str; 5] = ["bandwidth", "ops", "ranges", "dfsio", "transfer"];

/// The charts each command's page must have (their `data-chart` names).
fn expected(command: &str) -> &'static [&'static str] {
    match command {
        "bandwidth" => &["block-latency", "throughput", "latency-percentiles"],
        "ops" => &["repeats", "per-second", "latency-percentiles", "failures"],
        "ranges" => &["strategies", "waterfall-sequential", "waterfall-parallel", "fit"],
        "dfsio" => &["tasks", "task-rates", "latency-percentiles"],
        "transfer" => &["cpu-per-gib"],
        _ => unreachable!(),
    }
}

fn fixture(version: u32, command: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/report-v{version}/{command}.json"))
}

/// `storebench report` of these files into `out`; the page's text.
fn render(files: &[PathBuf], out: &Path) -> String {
    let mut c = sb();
    c.arg("report").args(files).arg("-o").arg(out);
    c.assert().success();
    std::fs::read_to_string(out).unwrap()
}

/// What a page is made of, in order: headings, table captions, charts (with their titles), findings.
fn skeleton(html: &str) -> String {
    let marks: [(&str, &str); 6] = [
        ("<h2>", "h2"),
        ("<h3>", "h3"),
        ("<caption>", "table"),
        ("data-chart=\"", "chart"),
        ("<figcaption>", "  title"),
        ("<span class=\"rule\">", "finding"),
    ];
    let mut found: Vec<(usize, String)> = Vec::new();
    for (mark, name) in marks {
        for (at, _) in html.match_indices(mark) {
            let rest = &html[at + mark.len()..];
            let end = rest.find(['<', '"']).unwrap_or(rest.len());
            found.push((at, format!("{name}: {}", rest[..end].trim())));
        }
    }
    found.sort();
    let svgs = html.matches("<svg").count();
    found.into_iter().map(|(_, l)| l + "\n").collect::<String>() + &format!("svg elements: {svgs}\n")
}

/// Self-contained: nothing is loaded from anywhere (the only URL is SVG's namespace), no script, and
/// a Content-Security-Policy that forbids loading anything.
fn check_self_contained(html: &str) {
    assert!(html.contains("default-src 'none'"), "no CSP");
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for bad in ["http://", "https://", "src=", "<link", "<script", "@import", "url("] {
        assert!(!without_ns.contains(bad), "the page has {bad}");
    }
}

#[test]
fn every_command_of_every_schema_version_renders_its_charts() {
    let tmp = tempfile::tempdir().unwrap();
    for version in [1, 2] {
        for command in COMMANDS {
            let out = tmp.path().join(format!("{command}-v{version}.html"));
            let html = render(&[fixture(version, command)], &out);
            check_self_contained(&html);
            for chart in expected(command) {
                assert!(
                    html.contains(&format!("class=\"chart\" data-chart=\"{chart}\"")),
                    "v{version} {command}: no {chart}"
                );
            }
            // Every chart drew an SVG (none fell back to "nothing to draw" on these real reports).
            let charts = html.matches("class=\"chart\"").count();
            assert_eq!(html.matches("<svg").count(), charts, "v{version} {command}");
            assert!(!html.contains("chart failed"), "v{version} {command}");
            if version == 2 {
                insta::assert_snapshot!(format!("{command}-structure"), skeleton(&html));
            }
        }
    }
    // Several runs in one page, in order.
    let all: Vec<PathBuf> = COMMANDS.iter().map(|c| fixture(2, c)).collect();
    let html = render(&all, &tmp.path().join("all.html"));
    let order: Vec<usize> = COMMANDS.iter().map(|c| html.find(&format!("data-command=\"{c}\"")).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
}

#[test]
fn html_is_written_at_the_end_of_a_run_and_bad_inputs_are_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let html = tmp.path().join("run.html");
    sb().args(["bandwidth", "4m", "--block", "1m", "-q"]).arg(tmp.path()).arg("--html").arg(&html).assert().success();
    let text = std::fs::read_to_string(&html).unwrap();
    check_self_contained(&text);
    assert!(text.contains("data-chart=\"block-latency\"") && text.contains("<h3>Findings</h3>"));
    // A page of the run's own figures: the block count is in its parameters.
    assert!(text.contains("&quot;blocks&quot;: 4"), "parameters at the end");
    // A mix draws each operation's per-second series.
    let mix = tmp.path().join("mix.html");
    sb().args(["ops", "--mix", "stat=1,exists=1", "--threads", "2", "--duration", "1s", "--repeats", "1", "--prepare"])
        .arg(format!("memory://{}/", common::unique("mix")))
        .args(["-q", "--html"])
        .arg(&mix)
        .assert()
        .success();
    let text = std::fs::read_to_string(&mix).unwrap();
    assert!(text.contains("repeat 1 stat") && text.contains("repeat 1 exists"), "per-operation series");
    let one_line = |args: &[&str], says: &str| {
        let out = sb().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says) && err.lines().count() == 1, "{args:?}: {err}");
    };
    let missing = tmp.path().join("missing.json");
    let out = tmp.path().join("o.html");
    let (m, o) = (missing.to_str().unwrap(), out.to_str().unwrap());
    one_line(&["report", m, "-o", o], "cannot read the report");
    std::fs::write(&missing, "{\"not\": 1}").unwrap();
    one_line(&["report", m, "-o", o], "not a storebench report");
    one_line(&["report", "/dev/zero", "-o", o], "is not a regular file");
    let fifo = tmp.path().join("fifo.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    one_line(&["report", fifo.to_str().unwrap(), "-o", o], "is not a regular file");
    one_line(&["report", "-o", o], "RUN.json");
    assert!(!out.exists(), "nothing written for a refused report");
}

/// Where a test run keeps what CI shows but the repository does not (screenshots).
fn artifacts() -> PathBuf {
    let dir = std::env::var_os("STOREBENCH_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/artifacts"))
        .join("html");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Headless Chromium with a bounded run; its stdout and stderr (through files: a page's DOM is more
/// than a pipe holds while the run is being waited for).
fn chromium(args: &[&str]) -> (String, String) {
    let logs = tempfile::tempdir().unwrap();
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut c = std::process::Command::new("chromium");
    c.args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]);
    c.args(["--disable-background-networking", "--enable-logging=stderr", "--v=0"]);
    c.args(args).stdout(std::fs::File::create(&out).unwrap()).stderr(std::fs::File::create(&err).unwrap());
    let mut child = c.spawn().expect("chromium is needed: scripts/test.sh installs it");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium {args:?} ran past 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    (read(&out), read(&err))
}

#[test]
#[ignore = "needs chromium: scripts/test.sh installs it"]
fn each_page_renders_in_chromium_with_no_errors_and_no_requests() {
    let tmp = tempfile::tempdir().unwrap();
    let shots = artifacts();
    for command in COMMANDS {
        let page = tmp.path().join(format!("{command}.html"));
        render(&[fixture(2, command)], &page);
        let url = format!("file://{}", page.display());
        // The DOM after loading: every expected chart drawn as SVG.
        let (dom, log) = chromium(&["--dump-dom", &url]);
        for chart in expected(command) {
            assert!(dom.contains(&format!("data-chart=\"{chart}\"")), "{command}: {chart} not in the DOM");
        }
        let charts = dom.matches("class=\"chart\"").count();
        assert!(charts >= expected(command).len() && dom.matches("<svg").count() == charts, "{command}");
        // No console message (a script error, a CSP refusal of a load) and no request for anything.
        for bad in ["CONSOLE", "Uncaught", "Refused to", "net::ERR", "Content Security Policy"] {
            assert!(!log.contains(bad), "{command}: {bad} in Chromium's log:\n{log}");
        }
        let png = shots.join(format!("{command}.png"));
        let _ = std::fs::remove_file(&png);
        chromium(&["--window-size=1200,2400", &format!("--screenshot={}", png.display()), &url]);
        let bytes = std::fs::read(&png).unwrap_or_default();
        assert!(bytes.starts_with(b"\x89PNG"), "{command}: no screenshot");
        // A blank 1200 x 2400 page compresses to a few KiB; charts and text take far more.
        assert!(bytes.len() > 40_000, "{command}: the screenshot looks blank ({} bytes)", bytes.len());
    }
}

/// An hour-long ops run (3 repeats of 3,600 per-second samples each, and the bandwidth run's 65,536
/// events at most) stays far under 5 MB of HTML: long series are thinned to at most 2,000 points per
/// line, histograms are drawn whole.
#[test]
fn an_hour_of_per_second_series_stays_under_five_megabytes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture(2, "ops")).unwrap()).unwrap();
    for r in v["ops_run"]["repeats"].as_array_mut().unwrap() {
        let seconds: Vec<serde_json::Value> = (0..3600u64)
            .map(|s| serde_json::json!({"second": s, "ops": 1000 + s % 97, "bytes": (1000 + s % 97) << 16}))
            .collect();
        r["per_second"] = serde_json::Value::Array(seconds);
    }
    let long = tmp.path().join("hour.json");
    std::fs::write(&long, serde_json::to_string(&v).unwrap()).unwrap();
    let html = render(&[long], &tmp.path().join("hour.html"));
    println!("1-hour ops page: {} bytes", html.len());
    assert!(html.len() < 5 << 20, "{} bytes", html.len());
    assert!(html.contains("class=\"chart\" data-chart=\"per-second\""));
}
