//! Workloads decide WHAT operations happen and in which order; they talk only to the `Store` trait.

pub mod bandwidth;
pub mod data;
pub mod ops;

/// Why a workload stopped before its end.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// An operation failed; the message says which and why.
    Failed(String),
    /// The user asked to stop (Ctrl-C).
    Interrupted,
}
