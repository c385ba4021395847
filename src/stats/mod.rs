//! Statistics: per-operation samples, mergeable histograms, and the [`report::RunReport`] built from them.

pub mod aggregate;
pub mod dfsio;
pub mod histogram;
pub mod report;
pub mod sample;
