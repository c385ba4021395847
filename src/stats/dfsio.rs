//! Hadoop TestDFSIO's raw aggregates and its exact formulas, in one place.
//!
//! Each task (a map in TestDFSIO) reports its bytes and its time in milliseconds; its IO rate is
//! `(float) size * 1000 / (time * MEGA)` MB/s, in Java `float`. The reducer sums, per key:
//! `l:tasks`, `l:size`, `l:time` as `long` and `f:rate` (rate x 1000) and `f:sqrate` (rate^2 x 1000) as
//! `float`, in task order. The printed figures come from those five numbers alone, with TestDFSIO's
//! own arithmetic (float where Java has float), so they match TestDFSIO digit for digit.
//!
//! TestDFSIO's result model lives here too (its modes, read orders, task records and the run's
//! figures), so reports can carry it; `workload::dfsio` re-exports it.

use serde::{Deserialize, Serialize};

/// TestDFSIO's MEGA: 2^20 bytes.
pub const MEGA: i64 = 1 << 20;

/// The reducer's sums (`part-00000` of TestDFSIO's output, and storebench's `-resFile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Aggregates {
    /// `l:tasks`: tasks (files) that reported.
    pub tasks: i64,
    /// `l:size`: bytes processed by all tasks.
    pub size: i64,
    /// `l:time`: the sum of the tasks' times, milliseconds.
    pub time: i64,
    /// `f:rate`: the sum of each task's IO rate (MB/s) x 1000.
    pub rate: f32,
    /// `f:sqrate`: the sum of each task's squared IO rate x 1000.
    pub sqrate: f32,
}

/// One task's IO rate in MB/s, as TestDFSIO's mapper computes it (Java float).
pub fn task_rate(size: i64, time_ms: i64) -> f32 {
    (size as f32) * 1000.0f32 / ((time_ms * MEGA) as f32)
}

impl Aggregates {
    /// Adds one task, as the mapper emits it and the reducer sums it.
    pub fn add_task(&mut self, size: i64, time_ms: i64) {
        let r = task_rate(size, time_ms);
        self.tasks += 1;
        self.size += size;
        self.time += time_ms;
        self.rate += r * 1000.0f32;
        self.sqrate += r * r * 1000.0f32;
    }

    /// "Total MBytes processed": `toMB(size)`, a float.
    pub fn total_mb(&self) -> f32 {
        self.size as f32 / MEGA as f32
    }

    /// "Throughput mb/sec": `size * 1000.0 / (time * MEGA)`: total bytes over the SUM of the tasks'
    /// times, i.e. the mean per-task throughput weighted by time, not the cluster's bandwidth.
    pub fn throughput(&self) -> f64 {
        self.size as f64 * 1000.0 / ((self.time * MEGA) as f64)
    }

    /// "Average IO rate mb/sec": `rate / 1000 / tasks` in float: the plain mean of the task rates.
    pub fn average_io_rate(&self) -> f32 {
        self.rate / 1000.0f32 / self.tasks as f32
    }

    /// "IO rate std deviation": `Math.sqrt(Math.abs(sqrate / 1000 / tasks - med * med))`, where
    /// `med` is the float average held in a double, so the square is taken in double.
    pub fn io_rate_std_dev(&self) -> f64 {
        let med = self.average_io_rate() as f64;
        ((self.sqrate / 1000.0f32 / self.tasks as f32) as f64 - med * med).abs().sqrt()
    }

    /// TestDFSIO's result lines, as it prints them and appends them to its result file.
    pub fn result_lines(&self, test_type: &str, date: &str, exec_time_ms: i64) -> Vec<String> {
        vec![
            format!("----- TestDFSIO ----- : {test_type}"),
            format!("           Date & time: {date}"),
            format!("       Number of files: {}", self.tasks),
            format!("Total MBytes processed: {}", java_float(self.total_mb())),
            format!("     Throughput mb/sec: {}", java_double(self.throughput())),
            format!("Average IO rate mb/sec: {}", java_double(self.average_io_rate() as f64)),
            format!(" IO rate std deviation: {}", java_double(self.io_rate_std_dev())),
            format!("    Test exec time sec: {}", java_float(exec_time_ms as f32 / 1000.0f32)),
            String::new(),
        ]
    }

    /// Whether the figures are complete numbers: at least one task, and finite rates.
    pub fn is_finite(&self) -> bool {
        self.tasks > 0 && self.rate.is_finite() && self.sqrate.is_finite()
    }

    /// The raw aggregates as TestDFSIO's reducer writes them (`key<TAB>value`).
    pub fn raw_lines(&self) -> Vec<String> {
        vec![
            format!("f:rate\t{}", java_float(self.rate)),
            format!("f:sqrate\t{}", java_float(self.sqrate)),
            format!("l:size\t{}", self.size),
            format!("l:tasks\t{}", self.tasks),
            format!("l:time\t{}", self.time),
        ]
    }
}

/// Java's `Double.toString`: the shortest digits that read back, at least one decimal
/// (`1048576.0`), and `d.dddE±n` below 10^-3 or from 10^7 on.
pub fn java_double(x: f64) -> String {
    java_number(x, format!("{x}"), format!("{x:e}"))
}

/// Java's `Float.toString` (same layout, float digits): `1481181.8`, `3.4433252E7`.
pub fn java_float(x: f32) -> String {
    java_number(x as f64, format!("{x}"), format!("{x:e}"))
}

fn java_number(x: f64, plain: String, sci: String) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let a = x.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        // Rust writes 3.4433252e7; Java 3.4433252E7, with ".0" on a bare mantissa.
        let (m, e) = sci.split_once('e').unwrap_or((&sci, "0"));
        let m = if m.contains('.') { m.to_string() } else { format!("{m}.0") };
        format!("{m}E{e}")
    }
}

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// TestDFSIO -write.
    Write,
    /// TestDFSIO -read (and its -random, -backward, -skip variants).
    Read,
    /// TestDFSIO -append.
    Append,
    /// TestDFSIO -clean.
    Clean,
}

/// In which order -read visits a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadOrder {
    /// From start to end.
    Sequential,
    /// `bufferSize` reads at random offsets until fileSize bytes are read.
    Random,
    /// From the end towards the start.
    Backward,
    /// A buffer, then `skip` bytes skipped, to the end.
    Skip {
        /// Bytes skipped after each buffer.
        skip: u64,
    },
}

/// One task's result, with where it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Task index (the K of test_io_K).
    pub task: u64,
    /// The file, relative to the store's root.
    pub file: String,
    /// MPI rank of the process that ran it (0 without MPI).
    pub rank: u32,
    /// Host that ran it.
    pub host: String,
    /// Bytes read or written.
    pub bytes: u64,
    /// Start and end, seconds from the common start.
    pub start_s: f64,
    /// End of the task (close done), seconds from the common start.
    pub end_s: f64,
    /// When a read task's first byte arrived (open and the first call's wait), seconds from the common
    /// start; absent for writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_s: Option<f64>,
    /// Time in milliseconds, as TestDFSIO counts it (at least 1).
    pub time_ms: i64,
    /// IO rate, MB/s (2^20 bytes), as TestDFSIO's mapper computes it.
    pub rate_mb_s: f64,
    /// With `--reorder`, the rank of the -write that wrote this file (another rank than `rank`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_by: Option<u32>,
}

/// Everything a dfsio run reports beyond the Hadoop block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DfsioRun {
    /// TestDFSIO's test type ("write", "read", "random read", ...).
    pub test_type: String,
    /// The raw aggregates.
    pub aggregates: Aggregates,
    /// "Throughput mb/sec".
    pub throughput_mb_s: f64,
    /// "Average IO rate mb/sec".
    pub average_io_rate_mb_s: f64,
    /// "IO rate std deviation".
    pub io_rate_std_dev: f64,
    /// "Test exec time sec": the whole command, plan to report.
    pub exec_time_s: f64,
    /// Bytes of all tasks / time from the common start to the last task's end, MB/s (2^20).
    pub aggregate_mb_s: f64,
    /// Bytes moved by all tasks until the first task finished / that time, MB/s (2^20).
    pub stonewall_mb_s: f64,
    /// Per-task IO rates, MB/s: min, p50, p90, max (nearest rank).
    pub task_rate_min: f64,
    /// Median task rate.
    pub task_rate_p50: f64,
    /// 90th percentile task rate.
    pub task_rate_p90: f64,
    /// Fastest task.
    pub task_rate_max: f64,
    /// Latency of the read or write calls of bufferSize, over every task of every rank.
    pub calls: super::latency::LatencyStats,
    /// Every task, in task order.
    pub tasks: Vec<TaskRecord>,
    /// -clean: files removed, and files left in io_data that the benchmark did not make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleaned: Option<(u64, Vec<String>)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's worked example, 64 files of 16 GB, from its raw aggregates alone.
    #[test]
    fn seed_64_files_digit_for_digit() {
        let f = |t: &str| t.parse::<f32>().unwrap();
        let a = Aggregates {
            tasks: 64,
            size: 1099511627776,
            time: 45497635,
            rate: f("1481181.8"),
            sqrate: f("3.4433252E7"),
        };
        let lines = a.result_lines("write", "Wed Aug 21 10:56:45 PDT 2013", 796676);
        assert_eq!(
            lines,
            [
                "----- TestDFSIO ----- : write",
                "           Date & time: Wed Aug 21 10:56:45 PDT 2013",
                "       Number of files: 64",
                "Total MBytes processed: 1048576.0",
                "     Throughput mb/sec: 23.046824301966463",
                "Average IO rate mb/sec: 23.143465042114258",
                " IO rate std deviation: 1.5490700854356283",
                "    Test exec time sec: 796.676",
                "",
            ]
        );
        assert_eq!(
            a.raw_lines(),
            ["f:rate\t1481181.8", "f:sqrate\t3.4433252E7", "l:size\t1099511627776", "l:tasks\t64", "l:time\t45497635"]
        );
    }

    /// The seed's 4 files of 250 GB: write and read.
    #[test]
    fn seed_4_files_digit_for_digit() {
        // The seed's text, parsed as TestDFSIO parses it (Float.parseFloat).
        let f = |t: &str| t.parse::<f32>().unwrap();
        let a = Aggregates {
            tasks: 4,
            size: 1073741824000,
            time: 6331377,
            rate: f("647024.94"),
            sqrate: f("1.04674768E8"),
        };
        let lines = a.result_lines("write", "d", 1603932);
        assert_eq!(lines[3], "Total MBytes processed: 1024000.0");
        assert_eq!(lines[4], "     Throughput mb/sec: 161.73416935999862");
        assert_eq!(lines[5], "Average IO rate mb/sec: 161.75624084472656");
        assert_eq!(lines[6], " IO rate std deviation: 1.8999879033336318");
        assert_eq!(lines[7], "    Test exec time sec: 1603.932");
    }

    /// Tasks summed the mapper's way: two tasks of 100 MiB in 1 s and 2 s are 100 and 50 MB/s;
    /// Throughput is 200 MiB / 3 s = 66.67, the average rate 75, the deviation 25.
    #[test]
    fn tasks_by_hand() {
        let mut a = Aggregates::default();
        a.add_task(100 * MEGA, 1000);
        a.add_task(100 * MEGA, 2000);
        assert_eq!((a.tasks, a.size, a.time), (2, 200 * MEGA, 3000));
        assert_eq!((a.rate, a.sqrate), (150_000.0, 12_500_000.0));
        assert!((a.throughput() - 200.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.average_io_rate(), 75.0);
        assert_eq!(a.io_rate_std_dev(), 25.0);
    }

    #[test]
    fn java_number_layout() {
        assert_eq!(java_double(1048576.0), "1048576.0");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(0.0005), "5.0E-4");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_float(796.676), "796.676");
        assert_eq!(java_float(f32::INFINITY), "Infinity");
    }
}
