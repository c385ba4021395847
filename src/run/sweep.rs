//! `--sweep KEY=V1,V2,...`: the settings a sweep varies, each over a list of values or a range of
//! powers of two (`threads=1..64`, `block=64k..64m`); the grid is their product.

use serde::{Deserialize, Serialize};

/// The keys a sweep may vary (each command takes those that shape its load).
pub const KEYS: [&str; 9] = [
    "threads",
    "block",
    "file-size",
    "buffer-size",
    "prefetch",
    "concurrency",
    "multipart.size",
    "active.blocks",
    "nrFiles",
];

/// A grid larger than this is refused unless `--yes`.
pub const MAX_POINTS: usize = 1_000;

/// Values per key at most (a range of powers of two never exceeds 64).
const MAX_VALUES: usize = 256;

/// One swept setting and its values, as typed (sizes keep their suffix: "64k").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    /// The key ("threads").
    pub key: String,
    /// Its values, in order.
    pub values: Vec<String>,
}

/// Whether a key's values are sizes (suffixes allowed).
fn is_size(key: &str) -> bool {
    matches!(key, "block" | "file-size" | "buffer-size" | "multipart.size")
}

fn number(key: &str, v: &str) -> Result<u64, String> {
    let n = if is_size(key) { crate::units::parse_size(v) } else { v.parse::<u64>().map_err(|e| e.to_string()) };
    match n {
        Ok(n) if n > 0 => Ok(n),
        Ok(_) => Err(format!("invalid --sweep value '{v}' for {key}: it must be more than 0")),
        Err(e) => Err(format!(
            "invalid --sweep value '{v}' for {key}: {e} ({})",
            if is_size(key) { "a size such as 64k or 8m" } else { "a whole number" }
        )),
    }
}

/// A power-of-two size as typed: 4k, 1m, 2g (bytes below 1 KiB).
fn short_size(v: u64) -> String {
    match v {
        v if v >= 1 << 30 && v % (1 << 30) == 0 => format!("{}g", v >> 30),
        v if v >= 1 << 20 && v % (1 << 20) == 0 => format!("{}m", v >> 20),
        v if v >= 1 << 10 && v % (1 << 10) == 0 => format!("{}k", v >> 10),
        v => v.to_string(),
    }
}

/// Parses one `--sweep KEY=V1,V2,...` (or `KEY=LOW..HIGH`, every power of two from LOW to HIGH).
pub fn parse_axis(s: &str) -> Result<Axis, String> {
    let (key, values) = s
        .split_once('=')
        .ok_or_else(|| format!("invalid --sweep '{s}': KEY=V1,V2,... or KEY=LOW..HIGH (e.g. threads=1..64)"))?;
    if !KEYS.contains(&key) {
        return Err(format!("invalid --sweep key '{key}': valid keys are {}", KEYS.join(", ")));
    }
    let values: Vec<String> = match values.split_once("..") {
        Some((lo, hi)) => {
            let (lo, hi) = (number(key, lo)?, number(key, hi)?);
            if lo > hi || !lo.is_power_of_two() || !hi.is_power_of_two() {
                return Err(format!(
                    "invalid --sweep range '{values}' for {key}: LOW..HIGH takes powers of two, LOW <= HIGH (e.g. 1..64)"
                ));
            }
            let show = |v: u64| if is_size(key) { short_size(v) } else { v.to_string() };
            std::iter::successors(Some(lo), |v| v.checked_mul(2)).take_while(|v| *v <= hi).map(show).collect()
        }
        None => {
            let vs: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
            for v in &vs {
                number(key, v)?;
            }
            vs
        }
    };
    if values.len() > MAX_VALUES {
        return Err(format!("invalid --sweep '{s}': {} values, at most {MAX_VALUES} per key", values.len()));
    }
    Ok(Axis { key: key.to_string(), values })
}

/// Checks the axes against the keys a command takes, and the grid's size; returns the points, each a
/// (key, value) per axis, the first axis varying slowest.
pub fn grid(axes: &[Axis], command: &str, takes: &[&str], yes: bool) -> Result<Vec<Vec<(String, String)>>, String> {
    for (i, a) in axes.iter().enumerate() {
        if !takes.contains(&a.key.as_str()) {
            return Err(format!("--sweep {}: {command} does not take it; it sweeps {}", a.key, takes.join(", ")));
        }
        if axes[..i].iter().any(|b| b.key == a.key) {
            return Err(format!("--sweep {} is given twice: give each key once, with all its values", a.key));
        }
    }
    let size = axes.iter().map(|a| a.values.len()).try_fold(1usize, |n, k| n.checked_mul(k)).unwrap_or(usize::MAX);
    if size > MAX_POINTS && !yes {
        return Err(format!(
            "--sweep makes a grid of {size} points, more than {MAX_POINTS}: narrow it, or add --yes to run them all"
        ));
    }
    let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for a in axes {
        points = points
            .into_iter()
            .flat_map(|p| a.values.iter().map(move |v| [p.clone(), vec![(a.key.clone(), v.clone())]].concat()))
            .collect();
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_lists_and_power_of_two_ranges() {
        assert_eq!(parse_axis("threads=1..16").unwrap().values, ["1", "2", "4", "8", "16"]);
        let block = parse_axis("block=512..2m").unwrap().values;
        assert_eq!(block, ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m"]);
        assert_eq!(parse_axis("file-size=1m,4m").unwrap().values, ["1m", "4m"]);
        for (bad, says) in [
            ("threads", "KEY=V1,V2"),
            ("thread=1,2", "valid keys are threads, block"),
            ("threads=3..64", "powers of two"),
            ("threads=8..2", "powers of two"),
            ("threads=0,1", "more than 0"),
            ("block=x", "a size such as 64k"),
        ] {
            let e = parse_axis(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn the_grid_is_the_product_first_axis_slowest() {
        let axes = [parse_axis("threads=1,2").unwrap(), parse_axis("block=1k,2k,4k").unwrap()];
        let g = grid(&axes, "ops", &["threads", "block"], false).unwrap();
        assert_eq!(g.len(), 6);
        assert_eq!(g[1], [("threads".to_string(), "1".to_string()), ("block".to_string(), "2k".to_string())]);
        assert!(grid(&axes, "bandwidth", &["block"], false).unwrap_err().contains("bandwidth does not take it"));
        let twenty: Vec<String> = (1..=20).map(|v| v.to_string()).collect();
        let huge = [
            parse_axis("threads=1..128").unwrap(),
            parse_axis("block=1..128").unwrap(),
            parse_axis(&format!("prefetch={}", twenty.join(","))).unwrap(),
        ];
        let keys = ["threads", "block", "prefetch"];
        let refused = grid(&huge, "x", &keys, false).err().unwrap_or_default();
        assert!(refused.contains("grid of 1280 points, more than 1000"), "{refused}");
        assert_eq!(grid(&huge, "x", &keys, true).map(|g| g.len()), Ok(1280));
    }
}
