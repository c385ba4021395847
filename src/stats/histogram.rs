//! A mergeable log-linear latency histogram (HDR-style) over nanoseconds.
//!
//! Values below 128 ns are kept exactly. Above, every power of two is split into 64 equal buckets, so a
//! bucket's width is at most 1/64 of its lower bound. A percentile is reported as the middle of its
//! bucket, clamped to the exact minimum and maximum, so it is within **1/128 (0.79 %)** of a value that
//! was really recorded at that rank. Merging two histograms adds their counts: the result is exactly
//! the histogram of all the values, whatever the order or the number of threads or ranks.

use serde::{Deserialize, Serialize};

/// Sub-buckets per power of two (6 bits of precision).
const SUB: u64 = 64;
/// Values below this are recorded in exact, 1 ns wide buckets.
const EXACT: u64 = 2 * SUB;
/// Number of buckets: 128 exact ones, then 64 for each power of two from 2^7 to 2^63.
pub const BUCKETS: usize = (EXACT + (64 - 7) * SUB) as usize;
/// The stated bound on the relative error of a reported percentile.
pub const RELATIVE_ERROR_BOUND: f64 = 1.0 / 128.0;

/// A latency histogram with exact count, sum, minimum and maximum.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Bucket index of a value.
fn index_of(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as u64; // floor(log2 v), >= 7
    let shift = e - 6; // v >> shift is in [64, 128)
    (EXACT + (e - 7) * SUB + ((v >> shift) - SUB)) as usize
}

/// Lowest value and width of a bucket.
fn bucket_bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, 1);
    }
    let e = (i - EXACT) / SUB + 7;
    let mantissa = (i - EXACT) % SUB + SUB;
    let shift = e - 6;
    (mantissa << shift, 1u64 << shift)
}

impl Histogram {
    /// An empty histogram. Allocates its buckets once; recording never allocates.
    pub fn new() -> Self {
        Self { counts: vec![0; BUCKETS].into_boxed_slice(), count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    /// Records one value in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[index_of(ns)] += 1;
        self.count += 1;
        self.sum += ns as u128;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Adds every value of `other` to this histogram.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact sum of the values, in nanoseconds.
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact smallest value, or None when empty.
    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    /// Exact largest value, or None when empty.
    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// Exact arithmetic mean in nanoseconds, or None when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// The nearest-rank percentile `q` in [0, 1]: the value at rank ceil(q * count), within
    /// [`RELATIVE_ERROR_BOUND`]. q = 1 gives the exact maximum, q = 0 the exact minimum.
    pub fn percentile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        if q <= 0.0 {
            return Some(self.min);
        }
        if q >= 1.0 {
            return Some(self.max);
        }
        let rank = super::nearest_rank(q, self.count);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bucket_bounds(i);
                let mid = low + (width - 1) / 2;
                return Some(mid.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// The middle value of bucket `i` (what a percentile in it reports).
    pub fn bucket_mid(&self, i: usize) -> u64 {
        let (low, width) = bucket_bounds(i);
        low + (width - 1) / 2
    }

    /// The non-empty buckets as a compact, serializable form.
    pub fn to_data(&self) -> HistogramData {
        let buckets = self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (i as u32, c)).collect();
        HistogramData {
            count: self.count,
            sum_ns: self.sum,
            min_ns: self.min().unwrap_or(0),
            max_ns: self.max,
            buckets,
        }
    }

    /// Rebuilds a histogram from its serialized form (as gathered from another thread, rank or file).
    pub fn from_data(d: &HistogramData) -> Result<Self, String> {
        let mut h = Self::new();
        let mut total = 0u64;
        for &(i, c) in &d.buckets {
            let slot = h.counts.get_mut(i as usize).ok_or_else(|| format!("histogram bucket {i} out of range"))?;
            *slot += c;
            total += c;
        }
        if total != d.count {
            return Err(format!("histogram buckets add up to {total}, not its count {}", d.count));
        }
        h.count = d.count;
        h.sum = d.sum_ns;
        if d.count > 0 {
            h.min = d.min_ns;
            h.max = d.max_ns;
        }
        Ok(h)
    }
}

/// The serialized form of a [`Histogram`]: exact count, sum, min and max, and the non-empty buckets
/// as (bucket index, count) pairs. A few KiB at most, whatever the number of operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistogramData {
    /// Number of values.
    pub count: u64,
    /// Exact sum of the values in nanoseconds: a JSON number while it fits 64 bits (584 years), a
    /// decimal string beyond.
    #[serde(with = "wide")]
    pub sum_ns: u128,
    /// Exact smallest value in nanoseconds (0 when empty).
    pub min_ns: u64,
    /// Exact largest value in nanoseconds (0 when empty).
    pub max_ns: u64,
    /// Non-empty buckets: (index, count). Bucket i covers the values of `storebench::stats::histogram` index i.
    pub buckets: Vec<(u32, u64)>,
}

/// A u128 in JSON as a plain number when it fits a u64, else as a decimal string: every JSON reader
/// gets an exact integer, and a report section holding it can be read through serde's buffering (as
/// `RunReport`'s flattened section is), which has no 128-bit numbers.
mod wide {
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        match u64::try_from(*v) {
            Ok(small) => s.serialize_u64(small),
            Err(_) => s.serialize_str(&v.to_string()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        struct Wide;
        impl de::Visitor<'_> for Wide {
            type Value = u128;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative integer, as a number or a decimal string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<u128, E> {
                Ok(v.into())
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<u128, E> {
                Ok(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<u128, E> {
                u128::try_from(v).map_err(|_| E::custom(format!("negative sum {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<u128, E> {
                v.parse().map_err(|_| E::custom(format!("'{v}' is not a non-negative integer")))
            }
        }
        d.deserialize_any(Wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_beyond_64_bits_survive_json() {
        let mut d = Histogram::new().to_data();
        for sum in [0u128, 150, u64::MAX as u128, u64::MAX as u128 + 1, u128::MAX] {
            d.sum_ns = sum;
            let text = serde_json::to_string(&d).unwrap();
            // A string only beyond 64 bits.
            assert_eq!(text.contains(&format!("\"{sum}\"")), sum > u64::MAX as u128, "{text}");
            let back: HistogramData = serde_json::from_str(&text).unwrap();
            assert_eq!(back.sum_ns, sum);
        }
    }

    #[test]
    fn bucket_layout_round_trips() {
        for v in [0u64, 1, 127, 128, 129, 200, 1000, 4096, 1_000_000, 123_456_789, u64::MAX / 3, u64::MAX] {
            let i = index_of(v);
            assert!(i < BUCKETS);
            let (low, width) = bucket_bounds(i);
            assert!(low <= v && v - low < width, "v={v} low={low} width={width}");
            if v >= EXACT {
                assert!(width as f64 / low as f64 <= 1.0 / 64.0 + 1e-12);
            }
        }
        assert_eq!(index_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn hand_worked_small_case_is_exact() {
        // Values below 128 ns are exact: 10, 20, 30, 40, 50.
        let mut h = Histogram::new();
        for v in [50, 10, 40, 20, 30] {
            h.record(v);
        }
        assert_eq!(h.count(), 5);
        assert_eq!(h.sum(), 150);
        assert_eq!(h.mean(), Some(30.0));
        // nearest rank: p50 -> rank ceil(2.5)=3 -> 30; p90 -> rank ceil(4.5)=5 -> 50; p20 -> rank 1 -> 10
        assert_eq!(h.percentile(0.5), Some(30));
        assert_eq!(h.percentile(0.9), Some(50));
        assert_eq!(h.percentile(0.2), Some(10));
        assert_eq!(h.percentile(0.0), Some(10));
        assert_eq!(h.percentile(1.0), Some(50));
    }

    #[test]
    fn percentiles_within_stated_bound() {
        // 1..=100_000 microseconds: the true nearest-rank p-th value is p * 100_000 us.
        let mut h = Histogram::new();
        for us in 1..=100_000u64 {
            h.record(us * 1000);
        }
        for q in [0.5, 0.9, 0.99, 0.999] {
            let truth = (q * 100_000.0f64).ceil() * 1000.0;
            let got = h.percentile(q).unwrap() as f64;
            assert!((got - truth).abs() / truth <= RELATIVE_ERROR_BOUND, "q={q} got={got} truth={truth}");
        }
        assert_eq!(h.max(), Some(100_000_000));
        assert_eq!(h.min(), Some(1000));
    }

    #[test]
    fn merge_equals_recording_everything() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        let mut all = Histogram::new();
        for v in 0..5000u64 {
            let x = v * v * 37 + 11;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        let mut merged = a.clone();
        merged.merge(&b);
        assert_eq!(merged, all);
        let mut other_order = b.clone();
        other_order.merge(&a);
        assert_eq!(other_order, all);
    }

    #[test]
    fn serialized_form_round_trips_and_is_small() {
        let mut h = Histogram::new();
        for v in 0..100_000u64 {
            h.record(1000 + v * 17);
        }
        let d = h.to_data();
        let json = serde_json::to_string(&d).unwrap();
        assert!(json.len() < 16 * 1024, "{}", json.len());
        let back = Histogram::from_data(&serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back, h);
        let mut broken = d.clone();
        broken.count += 1;
        assert!(Histogram::from_data(&broken).is_err());
    }

    #[test]
    fn empty_histogram_has_no_figures() {
        let h = Histogram::new();
        assert_eq!(h.percentile(0.5), None);
        assert_eq!(h.min(), None);
        assert_eq!(h.mean(), None);
        assert_eq!(Histogram::from_data(&h.to_data()).unwrap(), h);
    }
}
