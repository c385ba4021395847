//! Statistics: per-operation samples, CPU times, mergeable histograms, the nearest-rank percentile,
//! the [`report::RunReport`] built from them, and the findings read from it.

pub mod aggregate;
pub mod compare;
pub mod cpu;
pub mod dfsio;
pub mod findings;
pub mod histogram;
pub mod latency;
pub mod params;
pub mod probes;
pub mod report;
pub mod sample;
pub mod sweep;
pub mod timeline;
pub mod transfer;

/// The 1-based nearest rank of quantile `q` (0..=1) among `n` values: `ceil(q * n)`, at least 1 and at
/// most `n`. The one percentile rule of storebench (histograms and sorted lists alike).
pub fn nearest_rank(q: f64, n: u64) -> u64 {
    ((q * n as f64).ceil() as u64).clamp(1, n.max(1))
}

/// The nearest-rank percentile `q` (0..=1) of sorted values; 0 for none.
pub fn percentile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[nearest_rank(q, sorted.len() as u64) as usize - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_ranks_by_hand() {
        // 10 values: p50 is the 5th, p90 the 9th, p99 and p100 the 10th, p0 the 1st.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile_of_sorted(&v, 0.5), 5.0);
        assert_eq!(percentile_of_sorted(&v, 0.9), 9.0);
        assert_eq!(percentile_of_sorted(&v, 0.99), 10.0);
        assert_eq!(percentile_of_sorted(&v, 0.0), 1.0);
        // An even count's median is the lower middle value; an odd count's the middle one.
        assert_eq!(percentile_of_sorted(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.0);
        assert_eq!(percentile_of_sorted(&[1.0, 2.0, 3.0], 0.5), 2.0);
        assert_eq!(percentile_of_sorted(&[], 0.5), 0.0);
    }
}
