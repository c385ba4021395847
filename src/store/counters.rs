//! Store counters: one [`Counter`] type and one [`counter_set!`] declaration that gives a store its
//! counters struct and the list it reports, in the order and under the names docs/metrics.md uses.
//! Every store keeps its counters this way, so a new counter is one line.

use std::sync::atomic::{AtomicU64, Ordering};

/// A count shared between threads (relaxed: counters are read once the work they count is done).
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.add(1);
    }
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    /// The count so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Declares a struct of [`Counter`]s, each with the name it is reported under, and its `list()`
/// (those names and counts, in declaration order, as [`super::Counters`]).
macro_rules! counter_set {
    ($(#[$doc:meta])* $vis:vis struct $name:ident { $($field:ident = $label:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        $vis struct $name {
            $(pub(crate) $field: $crate::store::counters::Counter,)*
        }

        impl $name {
            /// Every counter under its reported name, in declaration order.
            pub fn list(&self) -> $crate::store::Counters {
                vec![$(($label.to_string(), self.$field.get()),)*]
            }
        }
    };
}
pub(crate) use counter_set;

#[cfg(test)]
mod tests {
    counter_set! {
        struct Toy { reads = "read_calls", bytes = "bytes_read" }
    }

    #[test]
    fn counts_and_lists_in_declaration_order() {
        let t = Toy::default();
        t.reads.inc();
        t.reads.inc();
        t.bytes.add(4096);
        assert_eq!(t.list(), [("read_calls".to_string(), 2), ("bytes_read".to_string(), 4096)]);
    }
}
