//! What the integration tests share: the binary, unique names, reading a report and its counters, and
//! the servers scripts/test.sh starts. Each test file says `mod common;` and takes what it needs.
//!
//! Tests that need a server are marked `#[ignore = "needs ..."]`: a plain `cargo test` lists them as
//! ignored, and scripts/test.sh, which starts the servers, runs them with `--include-ignored`. Asked
//! for without its server, such a test fails naming the variables that are missing.
#![allow(dead_code)]

use assert_cmd::Command;
use std::time::Duration;
use storebench::stats::report::RunReport;

/// The longest any one storebench run in a test may take before the test fails (every wait bounded).
pub const RUN_LIMIT: Duration = Duration::from_secs(300);

/// The storebench binary, in an environment that cannot reach outside the test: no Hadoop
/// configuration from the machine, no cloud instance metadata; every run bounded by [`RUN_LIMIT`].
pub fn sb() -> Command {
    let mut c = Command::cargo_bin("storebench").unwrap();
    c.env_remove("HADOOP_CONF_DIR")
        .env_remove("HADOOP_HOME")
        .env_remove("HADOOP_USER_NAME")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .timeout(RUN_LIMIT);
    c
}

/// The binary's path, for runs started by something else (mpirun).
pub fn bin() -> String {
    assert_cmd::cargo::cargo_bin("storebench").to_string_lossy().into_owned()
}

/// A name no other test run uses: `prefix-PID-NANOS`.
pub fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    )
}

/// The JSON report a run wrote.
pub fn report(path: &std::path::Path) -> RunReport {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("no report at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not a report: {e}", path.display()))
}

/// One counter of a report: `scope` ("store", "upload stream", ...) and name.
pub fn counter(r: &RunReport, scope: &str, name: &str) -> u64 {
    let g = r.counters.iter().find(|g| g.scope == scope).unwrap_or_else(|| panic!("no {scope} counters"));
    g.counters.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or_else(|| panic!("no {name} in {g:?}"))
}

/// The values of environment variables scripts/test.sh exports for its servers; a test that needs
/// them and finds one missing fails saying which.
pub fn need(keys: &[&str]) -> Vec<String> {
    let missing: Vec<&str> = keys.iter().copied().filter(|k| std::env::var(k).is_err()).collect();
    assert!(
        missing.is_empty(),
        "{missing:?} not set: this test needs the servers scripts/test.sh starts (run it, or run only what \
         plain `cargo test` runs)"
    );
    keys.iter().map(|k| std::env::var(k).unwrap()).collect()
}

/// The S3 server scripts/test.sh started (versitygw), with its bucket and keys.
pub struct S3 {
    pub endpoint: String,
    pub bucket: String,
    pub access: String,
    pub secret: String,
}

/// The S3 server, or a failure naming what is missing.
pub fn s3() -> S3 {
    let v = need(&[
        "STOREBENCH_S3_ENDPOINT",
        "STOREBENCH_S3_BUCKET",
        "STOREBENCH_S3_ACCESS_KEY",
        "STOREBENCH_S3_SECRET_KEY",
    ]);
    S3 { endpoint: v[0].clone(), bucket: v[1].clone(), access: v[2].clone(), secret: v[3].clone() }
}

impl S3 {
    /// The store configuration that reaches it (5 MiB parts).
    pub fn config(&self) -> storebench::store::StoreConfig {
        use storebench::store::config::Origin;
        let mut c = storebench::store::StoreConfig::default();
        c.set("fs.s3a.endpoint", &self.endpoint, Origin::Flag);
        c.set("fs.s3a.access.key", &self.access, Origin::Flag);
        c.set("fs.s3a.secret.key", &self.secret, Origin::Flag);
        c.set("fs.s3a.multipart.size", "5m", Origin::Flag);
        c
    }

    /// The binary, reaching it through the AWS environment variables.
    pub fn cmd(&self) -> Command {
        let mut c = sb();
        c.env("AWS_ACCESS_KEY_ID", &self.access)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret)
            .env("AWS_ENDPOINT_URL", &self.endpoint);
        c
    }

    /// `-D` definitions that reach it, for command lines built by hand (mpirun).
    pub fn defines(&self) -> Vec<String> {
        vec![
            format!("fs.s3a.endpoint={}", self.endpoint),
            format!("fs.s3a.access.key={}", self.access),
            format!("fs.s3a.secret.key={}", self.secret),
        ]
    }
}
