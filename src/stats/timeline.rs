//! A worker's completions over time in constant memory: how many operations and bytes had ended by
//! any instant (for the stonewall figures), per second (for the series), and in all. It replaces a
//! list of every operation (16 bytes each: 1.3 GB for 83 M operations) with at most [`SLOTS`]
//! buckets whose width doubles when the run outgrows them: 1 ms wide for a run of up to 4 s, about
//! 1 s wide for an hour. A count by an instant on a bucket boundary or at or after the last end is
//! exact; inside a bucket its ops are taken in proportion to the part of the bucket before the
//! instant (error: under one bucket's operations).

use super::report::SecondSample;

/// Buckets at most (each 16 bytes).
pub const SLOTS: usize = 4096;
/// The first bucket width, ns.
pub const FIRST_WIDTH_NS: u64 = 1_000_000;

/// Adds per-second samples (another thread's or rank's) to `into`, second by second.
pub fn add_seconds(into: &mut Vec<SecondSample>, from: &[SecondSample]) {
    for x in from {
        while into.len() as u64 <= x.second {
            into.push(SecondSample { second: into.len() as u64, ..Default::default() });
        }
        let s = &mut into[x.second as usize];
        s.ops += x.ops;
        s.bytes += x.bytes;
        s.errors += x.errors;
        for (op, n) in &x.by_op {
            match s.by_op.iter_mut().find(|(o, _)| o == op) {
                Some(c) => c.1 += n,
                None => s.by_op.push((op.clone(), *n)),
            }
        }
    }
}

/// Completions over time. Bucket k holds the operations that ended in ((k - 1) w, k w] ns.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    width_ns: u64,
    buckets: Vec<(u64, u64)>,
    seconds: Vec<SecondSample>,
    /// Operations recorded.
    pub ops: u64,
    /// Bytes recorded.
    pub bytes: u64,
    /// The latest end recorded, ns (0 for none).
    pub last_end_ns: u64,
}

impl Default for Timeline {
    fn default() -> Self {
        Self { width_ns: FIRST_WIDTH_NS, buckets: Vec::new(), seconds: Vec::new(), ops: 0, bytes: 0, last_end_ns: 0 }
    }
}

impl Timeline {
    /// An empty timeline.
    pub fn new() -> Self {
        Self::default()
    }

    /// One operation that ended at `end_ns` (ns since the epoch) and moved `bytes`.
    pub fn record(&mut self, end_ns: u64, bytes: u64) {
        let mut k = end_ns.div_ceil(self.width_ns) as usize;
        while k >= SLOTS {
            self.coarsen();
            k = end_ns.div_ceil(self.width_ns) as usize;
        }
        if self.buckets.len() <= k {
            self.buckets.resize(k + 1, (0, 0));
        }
        self.buckets[k].0 += 1;
        self.buckets[k].1 += bytes;
        add_seconds(
            &mut self.seconds,
            &[SecondSample { second: end_ns / 1_000_000_000, ops: 1, bytes, ..Default::default() }],
        );
        self.ops += 1;
        self.bytes += bytes;
        self.last_end_ns = self.last_end_ns.max(end_ns);
    }

    /// Doubles the bucket width: new bucket j = old buckets 2j - 1 and 2j (bucket 0 holds ends at 0).
    fn coarsen(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        let mut new = vec![(0u64, 0u64); old.len() / 2 + 1];
        for (k, (o, b)) in old.into_iter().enumerate() {
            let j = k.div_ceil(2);
            new[j].0 += o;
            new[j].1 += b;
        }
        self.buckets = new;
        self.width_ns *= 2;
    }

    /// Operations and bytes that had ended by `ns` (see the module's note on exactness).
    pub fn done_by(&self, ns: u64) -> (u64, u64) {
        // The last end is known exactly: by then everything had ended (the stonewall's own thread).
        if ns >= self.last_end_ns {
            return (self.ops, self.bytes);
        }
        let w = self.width_ns;
        let whole = (ns / w) as usize;
        let (mut ops, mut bytes) = self.buckets.iter().take(whole + 1).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let rem = ns % w;
        if let (true, Some(&(o, b))) = (rem > 0, self.buckets.get(whole + 1)) {
            ops += (o as u128 * rem as u128 / w as u128) as u64;
            bytes += (b as u128 * rem as u128 / w as u128) as u64;
        }
        (ops, bytes)
    }

    /// One successful operation of a mix, named `op` (counted in its second's `by_op` as well).
    /// Allocates only for an operation's first end in a second.
    pub fn record_op(&mut self, end_ns: u64, bytes: u64, op: &str) {
        self.record(end_ns, bytes);
        let s = &mut self.seconds[(end_ns / 1_000_000_000) as usize];
        match s.by_op.iter_mut().find(|(o, _)| o == op) {
            Some(c) => c.1 += 1,
            None => s.by_op.push((op.to_string(), 1)),
        }
    }

    /// One failed operation that ended at `end_ns` (counted per second only).
    pub fn record_error(&mut self, end_ns: u64) {
        let second = end_ns / 1_000_000_000;
        add_seconds(&mut self.seconds, &[SecondSample { second, ..Default::default() }]);
        self.seconds[second as usize].errors += 1;
    }

    /// Operations and bytes that ended in each second since the epoch.
    pub fn per_second(&self) -> &[SecondSample] {
        &self.seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_second_counts_each_operation_of_a_mix_and_the_failures() {
        let mut t = Timeline::new();
        let s = 1_000_000_000;
        t.record_op(s / 2, 10, "stat");
        t.record_op(s / 2 + 1, 20, "open_read");
        t.record_op(s + 5, 30, "stat");
        t.record_error(s + 6);
        t.record_error(3 * s);
        let p = t.per_second();
        assert_eq!(p.len(), 4);
        assert_eq!((p[0].ops, p[0].bytes, p[0].errors), (2, 30, 0));
        assert_eq!(p[0].by_op, [("stat".to_string(), 1), ("open_read".to_string(), 1)]);
        assert_eq!((p[1].ops, p[1].errors, p[1].by_op.clone()), (1, 1, vec![("stat".to_string(), 1)]));
        assert_eq!((p[2].ops, p[3].ops, p[3].errors), (0, 0, 1));
        // Merged with another thread's seconds: counts add up, names are matched.
        let mut into = p.to_vec();
        add_seconds(&mut into, &p[..2]);
        assert_eq!(into[0].by_op, [("stat".to_string(), 2), ("open_read".to_string(), 2)]);
        assert_eq!((into[1].errors, t.ops), (2, 3));
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn counts_by_an_instant_exactly_on_bucket_boundaries() {
        let mut t = Timeline::new();
        for (end, bytes) in [(0, 1), (MS, 10), (2 * MS, 100), (2 * MS, 1000)] {
            t.record(end, bytes);
        }
        assert_eq!(t.done_by(0), (1, 1));
        assert_eq!(t.done_by(MS), (2, 11));
        assert_eq!(t.done_by(2 * MS), (4, 1111));
        // Half way into the bucket that holds the two 2 ms ends: half of them.
        assert_eq!(t.done_by(MS + MS / 2), (3, 11 + 1100 / 2));
        assert_eq!((t.ops, t.bytes, t.last_end_ns), (4, 1111, 2 * MS));
    }

    #[test]
    fn by_its_own_last_end_a_thread_has_done_everything() {
        // Ends inside a bucket: proportional counting alone would leave the last operation out.
        let mut t = Timeline::new();
        t.record(MS / 3, 5);
        t.record(MS + MS / 3, 7);
        assert_eq!(t.done_by(MS + MS / 3), (2, 12));
        assert_eq!(t.done_by(MS + MS / 3 - 1).0, 1, "just before the last end: the first only");
    }

    #[test]
    fn a_long_run_coarsens_and_stays_within_its_slots() {
        let mut t = Timeline::new();
        // One operation every 10 ms for 100 s: 10,000 operations, more buckets than SLOTS at 1 ms.
        for i in 1..=10_000u64 {
            t.record(i * 10 * MS, 1);
        }
        assert!(t.buckets.len() <= SLOTS, "{} buckets", t.buckets.len());
        assert_eq!(t.width_ns, 32 * MS, "1 ms doubled until 100 s fits in 4,096 buckets");
        // 50 s is no bucket boundary of 32 ms (50,000 / 32 = 1562.5): 5,000 ends by then, within one
        // bucket's operations (at most 4).
        let (ops, _) = t.done_by(50_000 * MS);
        assert!(ops.abs_diff(5_000) <= 4, "{ops}");
        // On a boundary (1,600 x 32 ms = 51.2 s): exact.
        assert_eq!(t.done_by(51_200 * MS).0, 5_120);
        assert_eq!(t.done_by(u64::MAX / 2).0, 10_000);
        assert_eq!(t.per_second().len(), 101);
        assert_eq!(t.per_second()[1].ops, 100);
    }
}
