//! `storebench compare`: the key figures of two runs of the same command and setting, side by side,
//! with whether each change is larger than the noise. The test depends on what the reports hold:
//! Welch's unequal-variance t-test (two-sided, significant at p < 0.05) over the logarithms of the
//! repeats' values (ops), the runs' (transfer), the tasks' rates (dfsio) or the cold GETs' times
//! (ranges), or over the blocks' latencies (bandwidth, whose means and variances come from the merged
//! histograms); a percentile of a histogram must also move by
//! more than twice the histogram's relative error bound (both values may be off by it). Formulas:
//! docs/metrics.md, "compare".

use super::histogram::{HistogramData, RELATIVE_ERROR_BOUND};
use super::report::{Params, RunReport};
use serde::Serialize;

/// Significance level of the tests.
pub const ALPHA: f64 = 0.05;

/// A sample summarized: count, mean and (n - 1) variance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    /// Values.
    pub n: f64,
    /// Their mean.
    pub mean: f64,
    /// Their sample variance (n - 1).
    pub var: f64,
}

impl Moments {
    /// Of these values.
    pub fn of(values: &[f64]) -> Moments {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n.max(1.0);
        let var = if n > 1.0 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        Moments { n, mean, var }
    }

    /// Of a histogram's values (ns), each bucket's count at its midpoint; the mean is the exact one.
    pub fn of_histogram(h: &HistogramData) -> Moments {
        let n = h.count as f64;
        let mean = if h.count > 0 { h.sum_ns as f64 / n } else { 0.0 };
        let Ok(hist) = super::histogram::Histogram::from_data(h) else { return Moments { n: 0.0, mean, var: 0.0 } };
        let mut ss = 0.0;
        for &(i, c) in &h.buckets {
            let mid = hist.bucket_mid(i as usize) as f64;
            ss += c as f64 * (mid - mean).powi(2);
        }
        Moments { n, mean, var: if n > 1.0 { ss / (n - 1.0) } else { 0.0 } }
    }
}

/// Welch's t-test of two samples: the two-sided p-value, or None when either has fewer than 2 values
/// or neither varies.
pub fn welch(a: Moments, b: Moments) -> Option<f64> {
    if a.n < 2.0 || b.n < 2.0 {
        return None;
    }
    let (va, vb) = (a.var / a.n, b.var / b.n);
    let se2 = va + vb;
    if se2 <= 0.0 {
        return if a.mean == b.mean { Some(1.0) } else { Some(0.0) };
    }
    let t = (a.mean - b.mean) / se2.sqrt();
    let df = se2 * se2 / (va * va / (a.n - 1.0) + vb * vb / (b.n - 1.0));
    Some(student_t_two_sided(t, df))
}

/// P(|T| >= |t|) for Student's t with `df` degrees of freedom: I_x(df / 2, 1 / 2), x = df / (df + t^2).
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, as Numerical Recipes).
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-12 {
            break;
        }
    }
    h
}

/// ln Γ(x) (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// How a change was tested.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "test", rename_all = "snake_case")]
pub enum Test {
    /// Welch's t-test over samples of each run.
    Welch {
        /// What the samples are ("repeats", "task rates").
        over: String,
        /// The two-sided p-value.
        p: f64,
        /// Samples of the base run.
        n_base: usize,
        /// Samples of the new run.
        n_new: usize,
    },
    /// Welch's t-test on the histograms' means, and the percentile error bound.
    Percentile {
        /// The two-sided p-value.
        p: f64,
        /// The smallest change (%) two percentiles of the histograms can resolve.
        bound_pct: f64,
    },
    /// No test possible.
    Untested {
        /// Why.
        why: String,
    },
}

/// One figure of both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The figure, named as in docs/metrics.md ("download mbyte_per_s").
    pub figure: String,
    /// Its unit.
    pub unit: String,
    /// In the base run.
    pub base: f64,
    /// In the new run.
    pub new: f64,
    /// (new - base) / base x 100.
    pub change_pct: f64,
    /// Whether a larger value is better (throughput) or worse (latency, CPU).
    pub higher_is_better: bool,
    /// How the change was tested.
    pub test: Test,
    /// Whether the change is larger than the noise.
    pub significant: bool,
}

impl Change {
    /// How much worse the new run is, in % (negative when it is better).
    pub fn worse_pct(&self) -> f64 {
        if self.higher_is_better {
            -self.change_pct
        } else {
            self.change_pct
        }
    }
}

fn change(figure: String, unit: &str, (base, new): (f64, f64), higher: bool, test: Test) -> Change {
    let change_pct = if base != 0.0 { (new - base) / base.abs() * 100.0 } else { 0.0 };
    let significant = match &test {
        Test::Welch { p, .. } => *p < ALPHA,
        Test::Percentile { p, bound_pct } => *p < ALPHA && change_pct.abs() > *bound_pct,
        Test::Untested { .. } => false,
    };
    Change { figure, unit: unit.into(), base, new, change_pct, higher_is_better: higher, test, significant }
}

/// Welch's t-test over two samples of a figure, on the logarithms of the values when all are
/// positive: performance changes are ratios (a run twice as fast), and the noise of rates and times
/// grows with their size, so the logarithms are closer to the test's normal, equal-shape assumption.
fn welch_over(over: &str, a: &[f64], b: &[f64]) -> Test {
    let positive = a.iter().chain(b).all(|v| *v > 0.0);
    let ln = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
    let (a, b) = if positive { (ln(a), ln(b)) } else { (a.to_vec(), b.to_vec()) };
    let over = if positive { format!("log {over}") } else { over.to_string() };
    let (a, b, over) = (&a[..], &b[..], over.as_str());
    match welch(Moments::of(a), Moments::of(b)) {
        Some(p) => Test::Welch { over: over.into(), p, n_base: a.len(), n_new: b.len() },
        None => Test::Untested { why: format!("fewer than 2 {over} in a run") },
    }
}

/// The keys of a command's parameters that must agree for its figures to be compared.
fn shape(p: &Params) -> Vec<(&'static str, String)> {
    match p {
        Params::Bandwidth(b) => vec![
            ("block", b.block.to_string()),
            ("policy", b.policy.clone()),
            ("direct", b.direct.to_string()),
            ("read_only", b.read_only.to_string()),
        ],
        Params::Ops(o) => vec![
            ("op", o.op.clone()),
            ("mix", format!("{:?}", o.mix)),
            ("file_size", o.file_size.to_string()),
            ("buffer_size", o.buffer_size.to_string()),
            ("threads", o.threads.to_string()),
        ],
        Params::Dfsio(d) => vec![
            ("mode", format!("{:?}", d.mode)),
            ("order", format!("{:?}", d.order)),
            ("file_size", d.file_size.to_string()),
            ("buffer_size", d.buffer_size.to_string()),
        ],
        Params::Ranges(r) => {
            vec![("object_size", r.object_size.to_string()), ("ranges", format!("{} ranges", r.ranges.len()))]
        }
        _ => Vec::new(),
    }
}

/// Checks that two reports can be compared: the same command and the parameters that shape the
/// figures; the error is one line saying what differs.
pub fn comparable(base: &RunReport, new: &RunReport) -> Result<(), String> {
    if base.command != new.command {
        return Err(format!(
            "the runs are of different commands: {} and {}; compare runs of one command",
            base.command, new.command
        ));
    }
    for ((k, a), (_, b)) in shape(&base.params).iter().zip(shape(&new.params).iter()) {
        if a != b {
            return Err(format!(
                "the {} runs differ in {k}: {a} in the base, {b} in the new one; compare runs of one setting",
                base.command
            ));
        }
    }
    Ok(())
}

/// The key figures of both runs, with their tests (see the module's notes).
pub fn compare(base: &RunReport, new: &RunReport) -> Result<Vec<Change>, String> {
    comparable(base, new)?;
    let mut out = Vec::new();
    let bound_pct = 2.0 * RELATIVE_ERROR_BOUND * 100.0;
    match base.command.as_str() {
        "bandwidth" => {
            for p in &base.phases {
                let Some(q) = new.phases.iter().find(|q| q.name == p.name) else { continue };
                let block = format!("{}-block", p.name);
                let hist =
                    |r: &RunReport| r.ops.iter().find(|o| o.op == block).map(|o| Moments::of_histogram(&o.histogram));
                let (hb, hn) = (hist(base), hist(new));
                let test = match (hb, hn) {
                    (Some(a), Some(b)) => match welch(a, b) {
                        Some(pv) => Test::Welch {
                            over: "block latencies".into(),
                            p: pv,
                            n_base: a.n as usize,
                            n_new: b.n as usize,
                        },
                        None => Test::Untested { why: "fewer than 2 blocks in a run".into() },
                    },
                    _ => Test::Untested { why: "no block histogram".into() },
                };
                out.push(change(
                    format!("{} mbyte_per_s", p.name),
                    "MiB/s",
                    (p.mbyte_per_s, q.mbyte_per_s),
                    true,
                    test,
                ));
                let pct = |t: &Test| match t {
                    Test::Welch { p, .. } => Test::Percentile { p: *p, bound_pct },
                    other => other.clone(),
                };
                let t = out.last().map(|c| pct(&c.test)).unwrap_or(Test::Untested { why: String::new() });
                out.push(change(
                    format!("{} blocks p50_s", p.name),
                    "s",
                    (p.blocks.p50_s, q.blocks.p50_s),
                    false,
                    t.clone(),
                ));
                out.push(change(format!("{} blocks p99_s", p.name), "s", (p.blocks.p99_s, q.blocks.p99_s), false, t));
                if let (Some(a), Some(b)) = (p.cpu.s_per_gib, q.cpu.s_per_gib) {
                    out.push(change(
                        format!("{} cpu s_per_gib", p.name),
                        "s/GiB",
                        (a, b),
                        false,
                        Test::Untested { why: "one CPU reading per phase".into() },
                    ));
                }
            }
        }
        "ops" => {
            let (Some(a), Some(b)) = (base.ops_run(), new.ops_run()) else {
                return Err("an ops report without its ops_run section".into());
            };
            for s in &a.statistics {
                let values = |run: &super::report::OpsRun| -> Vec<f64> {
                    run.repeats
                        .iter()
                        .filter_map(|r| r.figures.iter().find(|f| f.name == s.name).map(|f| f.value))
                        .collect()
                };
                let (va, vb) = (values(a), values(b));
                // A figure no run moved (MiB/s of stat) says nothing.
                if vb.is_empty() || va.iter().chain(&vb).all(|v| *v == 0.0) {
                    continue;
                }
                let higher = s.unit.ends_with("/s") && !s.name.contains("Time");
                let m = |v: &[f64]| Moments::of(v).mean;
                out.push(change(s.name.clone(), &s.unit, (m(&va), m(&vb)), higher, welch_over("repeats", &va, &vb)));
            }
        }
        "dfsio" => {
            let (Some(a), Some(b)) = (base.dfsio_run(), new.dfsio_run()) else {
                return Err("a dfsio report without its dfsio_run section".into());
            };
            let rates = |d: &super::dfsio::DfsioRun| d.tasks.iter().map(|t| t.rate_mb_s).collect::<Vec<_>>();
            let t = welch_over("task rates", &rates(a), &rates(b));
            for (name, x, y) in [
                ("throughput_mb_s", a.throughput_mb_s, b.throughput_mb_s),
                ("average_io_rate_mb_s", a.average_io_rate_mb_s, b.average_io_rate_mb_s),
                ("aggregate_mb_s", a.aggregate_mb_s, b.aggregate_mb_s),
                ("stonewall_mb_s", a.stonewall_mb_s, b.stonewall_mb_s),
            ] {
                out.push(change(name.into(), "MB/s", (x, y), true, t.clone()));
            }
        }
        "ranges" => {
            let (Some(a), Some(b)) = (base.ranges_run(), new.ranges_run()) else {
                return Err("a ranges report without its ranges_run section".into());
            };
            for s in &a.strategies {
                let Some(t) = b.strategies.iter().find(|t| t.name == s.name) else { continue };
                let totals =
                    |x: &super::report::StrategyReport| x.cold_requests.iter().map(|q| q.total_s).collect::<Vec<_>>();
                let test = welch_over("cold GETs", &totals(s), &totals(t));
                out.push(change(format!("{} cold_s", s.name), "s", (s.cold_s, t.cold_s), false, test));
            }
        }
        "transfer" => {
            let (Some(a), Some(b)) = (base.transfer(), new.transfer()) else {
                return Err("a transfer report without its transfer section".into());
            };
            for (m, buf) in super::transfer::completed_pairs(&a.runs) {
                let of = |s: &super::transfer::TransferSection,
                          f: fn(&super::transfer::TransferRun) -> Option<f64>|
                 -> Vec<f64> {
                    s.runs
                        .iter()
                        .filter(|r| r.method == m && r.buffer == buf && r.status == "ok")
                        .filter_map(f)
                        .collect()
                };
                let name = format!("{m} {}", crate::units::human_bytes(buf));
                for (fig, unit, higher, f) in [
                    ("mb_s", "MB/s", true, (|r: &super::transfer::TransferRun| Some(r.mb_s)) as fn(&_) -> _),
                    ("cpu_s_per_gib", "s/GiB", false, |r: &super::transfer::TransferRun| r.cpu_s_per_gib),
                ] {
                    let (va, vb) = (of(a, f), of(b, f));
                    if va.is_empty() || vb.is_empty() {
                        continue;
                    }
                    let m = |v: &[f64]| Moments::of(v).mean;
                    out.push(change(
                        format!("{name} {fig}"),
                        unit,
                        (m(&va), m(&vb)),
                        higher,
                        welch_over("runs", &va, &vb),
                    ));
                }
            }
        }
        other => return Err(format!("storebench compare does not know the command '{other}'")),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_against_tables() {
        // Two-sided critical values: t = 2.776 at df 4 and 1.96 at df inf are p = 0.05; t = 0 is 1.
        assert!((student_t_two_sided(2.776, 4.0) - 0.05).abs() < 1e-3);
        assert!((student_t_two_sided(12.706, 1.0) - 0.05).abs() < 1e-3);
        assert!((student_t_two_sided(1.96, 1e6) - 0.05).abs() < 1e-3);
        assert!((student_t_two_sided(0.0, 10.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn welch_by_hand() {
        // a = 1, 2, 3 (mean 2, var 1), b = 4, 5, 6 (mean 5, var 1): t = -3 / sqrt(2/3) = -3.674,
        // df = (2/3)^2 / (2 x (1/3)^2 / 2) = 4: p = 0.0213 (two-sided, from the t table's formula).
        let p = welch(Moments::of(&[1.0, 2.0, 3.0]), Moments::of(&[4.0, 5.0, 6.0])).unwrap();
        assert!((p - 0.0213).abs() < 5e-4, "{p}");
        // The same sample twice: no difference.
        let same = welch(Moments::of(&[1.0, 2.0, 3.0]), Moments::of(&[1.0, 2.0, 3.0])).unwrap();
        assert!((same - 1.0).abs() < 1e-9);
        assert_eq!(welch(Moments::of(&[1.0]), Moments::of(&[4.0, 5.0])), None);
    }

    #[test]
    fn histogram_moments_by_hand() {
        // 1,000 values of 10 us and 1,000 of 30 us: mean 20 us, variance 100 us^2 x 2000 / 1999.
        let mut h = crate::stats::histogram::Histogram::new();
        for _ in 0..1000 {
            h.record(10_000);
            h.record(30_000);
        }
        let m = Moments::of_histogram(&h.to_data());
        assert_eq!((m.n, m.mean), (2000.0, 20_000.0));
        let truth = 1e8 * 2000.0 / 1999.0;
        assert!((m.var - truth).abs() / truth < 2.0 * RELATIVE_ERROR_BOUND, "{}", m.var);
    }
}
