//! The ops workload's text, Markdown and CSV: one column per repeat and the statistics across them,
//! as the Doris seed's Google Benchmark table, with the first (cold) repeat flagged.

use crate::stats::findings::repeat_figure;
use crate::stats::report::{FigureStats, OpsParams, OpsRun, Params, RunReport, Status};
use crate::units::{human_bytes, with_commas};
use std::fmt::Write;

/// Repeats whose cv of ops/s stays below this agree.
pub const AGREE_CV: f64 = 0.10;

/// A number with as many decimals as its size needs.
pub fn num(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".into()
    } else if a >= 1e4 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.6}")
    }
}

fn params(r: &RunReport) -> Option<&OpsParams> {
    match &r.params {
        Params::Ops(p) => Some(p),
        _ => None,
    }
}

fn title(r: &RunReport, p: &OpsParams) -> String {
    let bound = match (p.iterations, p.duration_s) {
        (Some(n), _) => format!("{n} iterations"),
        (None, Some(d)) => format!("{d} s"),
        (None, None) => String::new(),
    };
    let op = if p.mix.len() > 1 {
        let m: Vec<String> = p.mix.iter().map(|(o, w)| format!("{o}={w}")).collect();
        format!("mix {}", m.join(","))
    } else {
        p.op.clone()
    };
    let ranks = if p.ranks > 1 { format!(" x {} MPI ranks", p.ranks) } else { String::new() };
    format!("{op} x {} threads{ranks} x {bound} x {} repeats against {}", p.threads, p.repeats, r.target)
}

/// The table as cells: a header, then per figure its name, unit, one value per repeat and the
/// statistics across repeats.
fn cells(r: &RunReport, run: &OpsRun) -> Vec<Vec<String>> {
    let n = run.repeats.len();
    let mut header = vec!["figure".to_string(), "unit".to_string()];
    header.extend((1..=n).map(|i| if i == 1 && n > 1 { "1 (cold)".to_string() } else { i.to_string() }));
    header.extend(["mean", "median", "stddev", "cv %", "min", "max"].map(String::from));
    let mut table = vec![header];
    let Some(first) = run.repeats.first() else { return table };
    for (i, f) in first.figures.iter().enumerate() {
        let mut row = vec![f.name.clone(), f.unit.clone()];
        row.extend(
            run.repeats
                .iter()
                .filter_map(|p| p.figures.get(i).map(|g| (p.repeat, g)))
                .map(|(n, g)| super::findings::cell(r, &repeat_figure(n, &g.name), num(g.value))),
        );
        if let Some(s) = run.statistics.get(i) {
            row.extend([
                num(s.mean),
                num(s.median),
                num(s.stddev),
                format!("{:.2}", s.cv * 100.0),
                num(s.min),
                num(s.max),
            ]);
        }
        table.push(row);
    }
    table
}

/// What the repeats say about each other: the first one's distance from the rest, and the rest's cv.
pub fn agreement(run: &OpsRun) -> Vec<String> {
    let mut out = Vec::new();
    let n = run.repeats.len();
    if n < 2 {
        return out;
    }
    let ops: Vec<f64> = run.repeats.iter().map(|r| r.summary.ops_per_s).collect();
    let rest = &ops[1..];
    let rest_mean = rest.iter().sum::<f64>() / rest.len() as f64;
    if rest_mean > 0.0 {
        let d = (ops[0] - rest_mean) / rest_mean * 100.0;
        out.push(format!(
            "Repeat 1 is flagged cold (the first contact with the store): its ops/s is {d:+.1} % from the mean of repeats 2..{n}."
        ));
    }
    if let Some(s) = run.warm_statistics.iter().find(|s| s.name == "ops_per_s") {
        let verdict = if s.cv < AGREE_CV { "agree" } else { "do not agree" };
        out.push(format!(
            "Repeats 2..{n} {verdict}: cv of ops/s {:.1} % ({} 10 %).",
            s.cv * 100.0,
            if s.cv < AGREE_CV { "below" } else { "at or above" }
        ));
    }
    out
}

/// The text of an ops run.
pub fn text(r: &RunReport, quiet: bool) -> String {
    let mut out = String::new();
    let (Some(p), Some(run)) = (params(r), r.ops_run()) else { return out };
    if !quiet {
        let t = title(r, p);
        let _ = writeln!(out, "{t}\n{}\n", "=".repeat(t.chars().count()));
        let size = if p.file_size == 0 {
            "the whole file".to_string()
        } else {
            format!("{} bytes ({})", with_commas(p.file_size), human_bytes(p.file_size))
        };
        let _ = writeln!(
            out,
            "File size {size}, buffer {} bytes ({})",
            with_commas(p.buffer_size),
            human_bytes(p.buffer_size)
        );
        if let Some(f) = &p.file_path {
            let _ = writeln!(out, "File read: {f}{}", if p.random { " (random offsets)" } else { "" });
        }
        if let Some(rate) = p.rate {
            let _ = writeln!(out, "Rate limit {rate} ops/s (latency counted from each operation's intended start)");
        }
        for line in super::controls(r) {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "Engine: {}\n", r.engine);
        for rep in &run.repeats {
            let s = &rep.summary;
            let cold = if rep.repeat == 1 && run.repeats.len() > 1 { " (cold)" } else { "" };
            let _ = writeln!(
                out,
                "Repeat {}{cold}: {} ok, {} failed, {} bytes; until the last thread ended {} s, {} ops/s, {} MiB/s; until the first ended (stonewall) {} s, {} MiB/s; CPU {} s/GiB",
                rep.repeat,
                s.ops,
                s.errors,
                with_commas(s.bytes),
                num(s.wall_s),
                num(s.ops_per_s),
                num(s.mib_per_s),
                num(s.stonewall_s),
                num(s.stonewall_mib_per_s),
                s.cpu.s_per_gib.map_or("n/a".into(), num)
            );
            let names = [repeat_figure(rep.repeat, "mib_per_s"), repeat_figure(rep.repeat, "stonewall_mib_per_s")];
            out.push_str(&super::findings::suspect_line(r, &[&names[0], &names[1]]));
        }
        let _ = writeln!(out);
    }
    let table = cells(r, run);
    let widths: Vec<usize> =
        (0..table[0].len()).map(|c| table.iter().map(|r| r.get(c).map_or(0, |x| x.len())).max().unwrap_or(0)).collect();
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, x)| if c < 2 { format!("{x:<w$}", w = widths[c]) } else { format!("{x:>w$}", w = widths[c]) })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    for line in agreement(run) {
        let _ = writeln!(out, "{line}");
    }
    if !run.first_errors.is_empty() {
        let _ = writeln!(out, "First failures:");
        for e in &run.first_errors {
            let _ = writeln!(out, "  {e}");
        }
    }
    if let Some(e) = &r.outcome.error {
        let word = if r.outcome.status == Status::Interrupted { "INTERRUPTED" } else { "FAILED" };
        let _ = writeln!(out, "RUN {word}: {e}");
    }
    out
}

/// The same table in Markdown.
pub fn markdown(r: &RunReport) -> String {
    let mut out = String::new();
    let (Some(p), Some(run)) = (params(r), r.ops_run()) else { return out };
    let _ = writeln!(out, "### {}\n", title(r, p));
    let table = cells(r, run);
    let _ = writeln!(out, "| {} |", table[0].join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(table[0].len()));
    for row in &table[1..] {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(out);
    for line in agreement(run) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// One row per repeat and one per statistic; a column per figure (values unrounded).
pub fn csv(r: &RunReport) -> String {
    let mut out = String::new();
    let Some(run) = r.ops_run() else { return out };
    let Some(first) = run.repeats.first() else { return out };
    let names: Vec<String> = first.figures.iter().map(|f| format!("\"{}\"", f.name)).collect();
    let _ = writeln!(out, "\"row\",\"ops\",\"errors\",\"bytes\",{}", names.join(","));
    for rep in &run.repeats {
        let vals: Vec<String> = rep.figures.iter().map(|f| f.value.to_string()).collect();
        let s = &rep.summary;
        let _ = writeln!(out, "\"{}\",{},{},{},{}", rep.repeat, s.ops, s.errors, s.bytes, vals.join(","));
    }
    type Get = fn(&FigureStats) -> f64;
    let stat_rows: [(&str, Get); 6] = [
        ("mean", |s| s.mean),
        ("median", |s| s.median),
        ("stddev", |s| s.stddev),
        ("cv", |s| s.cv),
        ("min", |s| s.min),
        ("max", |s| s.max),
    ];
    for (label, get) in stat_rows {
        let vals: Vec<String> = run.statistics.iter().map(|s| get(s).to_string()).collect();
        let _ = writeln!(out, "\"{label}\",,,,{}", vals.join(","));
    }
    out
}
