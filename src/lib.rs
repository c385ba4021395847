//! storebench: a storage benchmark. One pipeline for every command (docs/architecture.md):
//! cli -> app -> driver (plan, prepare, run, conclude) -> workload -> store; stats -> RunReport -> export.
#![warn(missing_docs)]

pub mod app;
pub mod cli;
pub mod driver;
pub mod error;
pub mod export;
pub mod plan;
pub mod run;
pub mod stats;
pub mod store;
pub mod units;
pub mod workload;
