//! How `storebench ranges` fetches its ranges.

use clap::ValueEnum;

/// How the ranges are fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Strategy {
    /// One GET per range, one after the other.
    Sequential,
    /// One GET per range, at most --concurrency in flight.
    Parallel,
    /// Every range cut into pieces of at most --split-size, at most --concurrency in flight.
    Split,
    /// Ranges closer than --coalesce-gap merged into one GET (vectored IO), --concurrency in flight.
    Coalesce,
    /// One GET of the span covering every range.
    Whole,
    /// Every strategy above, one after the other.
    All,
}

impl Strategy {
    /// The strategies `all` stands for, in report order.
    pub const EACH: [Strategy; 5] =
        [Strategy::Sequential, Strategy::Parallel, Strategy::Split, Strategy::Coalesce, Strategy::Whole];

    /// The strategy's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Sequential => "sequential",
            Strategy::Parallel => "parallel",
            Strategy::Split => "split",
            Strategy::Coalesce => "coalesce",
            Strategy::Whole => "whole",
            Strategy::All => "all",
        }
    }
}
