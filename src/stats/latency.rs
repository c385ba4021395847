//! The latency figures of a set of operations, shared by the report and its sections.

use serde::{Deserialize, Serialize};

/// Latency figures of a set of operations, in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// Successful operations.
    pub count: u64,
    /// Failed operations.
    pub errors: u64,
    /// Exact minimum.
    pub min_s: f64,
    /// Exact arithmetic mean.
    pub mean_s: f64,
    /// Nearest-rank median, within the histogram's error bound.
    pub p50_s: f64,
    /// Nearest-rank 90th percentile.
    pub p90_s: f64,
    /// Nearest-rank 99th percentile.
    pub p99_s: f64,
    /// Nearest-rank 99.9th percentile.
    pub p999_s: f64,
    /// Exact maximum.
    pub max_s: f64,
    /// Exact sum of the latencies.
    pub total_s: f64,
    /// Mean time to first byte (reads; equals the mean latency where a store cannot tell).
    pub first_byte_mean_s: f64,
}
