//! The order in which a download reads its blocks, computed as it goes.

use super::{BandwidthPlan, ReadPolicy};

/// The order in which blocks are read: file order, or a seeded shuffle for the random policy.
///
/// Computed as it goes, in constant memory (a list of 20 million blocks was 160 MB): the random order
/// is a seeded bijection of the block indexes, a keyed mix on the next power of two walked back into
/// range (cycle walking), so every block is read exactly once.
pub fn read_order(plan: &BandwidthPlan) -> ReadOrder {
    let n = plan.blocks();
    let bits = (64 - n.saturating_sub(1).leading_zeros()).max(1);
    let mut state = plan.seed | 1;
    let keys = [0; 3].map(|_: u8| crate::workload::data::xorshift(&mut state));
    ReadOrder { next: 0, n, bits, keys, random: plan.policy == ReadPolicy::Random }
}

/// The block indexes of a download, in order: an iterator over a permutation of 0..n.
#[derive(Clone, Debug)]
pub struct ReadOrder {
    next: u64,
    n: u64,
    /// The permutation works on 0..2^bits, the smallest power of two holding n.
    bits: u32,
    keys: [u64; 3],
    random: bool,
}

impl ReadOrder {
    /// A keyed bijection of 0..2^bits: xorshifts and odd multiplications, each invertible there.
    fn mix(&self, mut x: u64) -> u64 {
        let mask = if self.bits == 64 { u64::MAX } else { (1u64 << self.bits) - 1 };
        let half = self.bits.div_ceil(2);
        for k in self.keys {
            x = (x ^ (k & mask)) & mask;
            x ^= x >> half;
            x = x.wrapping_mul(k | 1) & mask;
        }
        x ^ (x >> half)
    }
}

impl Iterator for ReadOrder {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        if self.next >= self.n {
            return None;
        }
        let i = self.next;
        self.next += 1;
        if !self.random {
            return Some(i);
        }
        // Cycle walking: apply the bijection until the value falls in 0..n (fewer than 2 steps on
        // average, as n > 2^bits / 2); the walk restricted to 0..n is itself a bijection.
        let mut x = self.mix(i);
        while x >= self.n {
            x = self.mix(x);
        }
        Some(x)
    }
}
