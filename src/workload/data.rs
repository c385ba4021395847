//! Test data: generated once per run, verifiable at any offset, of the kind `--data` asks for.
//!
//! The data of a file is a pattern of one block, repeated, with the block's index stamped (8 bytes,
//! little-endian, xored with the run's seed) at the start of every 4 KiB of each block. So blocks
//! differ from each other (no dedup at 4 KiB granularity or above), the buffer is written once and
//! only the stamps change per block, and any byte of the file can be recomputed for `--verify`.
//!
//! The kinds (`--data`, docs/metrics.md "Test data"): `random` (the pattern pseudo-random: nothing
//! compresses or repeats), `zeros` (all zero, no stamps: every byte is checkable, but a misplaced
//! block is not caught), `compressible:PCT` (the last PCT % of every 4 KiB of the pattern zero, as
//! fio's buffer_compress_percentage), `dedupe:PCT` (PCT % of blocks, chosen by the seed, carry the
//! stamps of an earlier block, so they repeat it byte for byte, as fio's dedupe_percentage); `seed:N`
//! sets the seed (reproducible content across runs).

use crate::store::aligned::AlignedBuf;

/// Distance between stamps, in bytes.
pub const STAMP_EVERY: usize = 4096;
const STAMP_LEN: usize = 8;

/// xorshift64*: small, fast and good enough to defeat compression.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// xorshift64 (13, 7, 17): the seeded choices of the workloads (random read order, mixes, offsets).
/// The state must not be 0; callers start from `seed | 1`.
pub fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// What the test data is made of (`--data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "pct")]
pub enum DataKind {
    /// Pseudo-random: incompressible, no block repeats another.
    #[default]
    Random,
    /// All zero bytes.
    Zeros,
    /// The last PCT % of every 4 KiB is zero (1 to 99).
    Compressible(u8),
    /// PCT % of blocks repeat an earlier block (1 to 99).
    Dedupe(u8),
}

/// `--data` as given: the kind, and the seed when `seed:N` fixed it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataSpec {
    /// What the blocks are made of.
    pub kind: DataKind,
    /// The seed `seed:N` gave; the run's own seed otherwise.
    pub seed: Option<u64>,
}

/// The values `--data` takes, for messages.
pub const DATA_HELP: &str =
    "random, zeros, compressible:PCT, dedupe:PCT or seed:N (joined with commas, e.g. compressible:50,seed:7)";

/// Parses `--data`: comma-separated parts, at most one kind and one seed.
pub fn parse_data(s: &str) -> Result<DataSpec, String> {
    let bad = |why: &str| format!("invalid --data '{s}': {why}; valid are {DATA_HELP}");
    let mut spec = DataSpec::default();
    let mut kind_given = false;
    for part in s.split(',').map(str::trim) {
        let (name, value) = part.split_once(':').map_or((part, None), |(n, v)| (n, Some(v)));
        let pct = |v: Option<&str>| -> Result<u8, String> {
            match v.map(|v| v.trim_end_matches('%').parse::<u8>()) {
                Some(Ok(p)) if (1..=99).contains(&p) => Ok(p),
                _ => Err(bad(&format!("{name} takes a percentage from 1 to 99"))),
            }
        };
        let kind = match (name, value) {
            ("random", None) => DataKind::Random,
            ("zeros", None) => DataKind::Zeros,
            ("compressible", v) => DataKind::Compressible(pct(v)?),
            ("dedupe", v) => DataKind::Dedupe(pct(v)?),
            ("seed", Some(v)) => {
                if spec.seed.is_some() {
                    return Err(bad("one seed"));
                }
                spec.seed = Some(v.parse().map_err(|_| bad("seed takes a whole number"))?);
                continue;
            }
            _ => return Err(bad(&format!("unknown part '{part}'"))),
        };
        if kind_given {
            return Err(bad("one kind of data"));
        }
        (spec.kind, kind_given) = (kind, true);
    }
    Ok(spec)
}

impl std::fmt::Display for DataKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataKind::Random => write!(f, "random"),
            DataKind::Zeros => write!(f, "zeros"),
            DataKind::Compressible(p) => write!(f, "compressible:{p}"),
            DataKind::Dedupe(p) => write!(f, "dedupe:{p}"),
        }
    }
}

/// The test data of a run: `--data`'s kind with the seed resolved (its `seed:N`, else the run's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestData {
    /// What the blocks are made of.
    pub kind: DataKind,
    /// The seed the pattern and the stamps are drawn from.
    pub seed: u64,
}

impl TestData {
    /// `--data` (or its default, random) with the run's seed where it set none.
    pub fn resolve(spec: Option<DataSpec>, run_seed: u64) -> TestData {
        let spec = spec.unwrap_or_default();
        TestData { kind: spec.kind, seed: spec.seed.unwrap_or(run_seed) }
    }

    /// The pattern of `block` bytes every writer of the run stamps its blocks from.
    pub fn pattern(&self, block: usize) -> DataPattern {
        DataPattern::of(block, self.seed, self.kind)
    }

    /// The data MPI rank `rank` writes: rank 0 the run's seed itself, every other rank its own seed
    /// drawn from it (seed xor rank x 0x9E3779B97F4A7C15), so ranks write different bytes (a
    /// deduplicating store cannot fold one rank's files into another's) and a reader that knows the
    /// writer's rank knows what every byte must be.
    pub fn for_rank(&self, rank: u32) -> TestData {
        TestData { kind: self.kind, seed: self.seed ^ (rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) }
    }

    /// The report's record of it.
    pub fn choice(&self) -> crate::stats::report::DataChoice {
        crate::stats::report::DataChoice { pattern: self.kind.to_string(), seed: self.seed }
    }
}

/// The pattern of a run and the rule that says what every byte of a file must be.
pub struct DataPattern {
    pattern: Vec<u8>,
    seed: u64,
    kind: DataKind,
}

impl DataPattern {
    /// A random pattern of `block` bytes drawn from `seed`.
    pub fn new(block: usize, seed: u64) -> Self {
        Self::of(block, seed, DataKind::Random)
    }

    /// A pattern of `block` bytes of `kind`, drawn from `seed`.
    pub fn of(block: usize, seed: u64, kind: DataKind) -> Self {
        let mut state = seed | 1;
        let mut pattern = vec![0u8; block];
        if kind != DataKind::Zeros {
            for chunk in pattern.chunks_mut(8) {
                let v = next(&mut state).to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
        }
        if let DataKind::Compressible(pct) = kind {
            for seg in pattern.chunks_mut(STAMP_EVERY) {
                // The zero tail of each 4 KiB; the stamp at its start stays in the random head.
                let zero = (seg.len() * pct as usize / 100).min(seg.len().saturating_sub(STAMP_LEN));
                let at = seg.len() - zero;
                seg[at..].fill(0);
            }
        }
        Self { pattern, seed, kind }
    }

    /// The block whose bytes block `index` repeats: itself, except for dedupe's chosen blocks, which
    /// repeat an earlier original.
    fn origin(&self, mut index: u64) -> u64 {
        let DataKind::Dedupe(pct) = self.kind else { return index };
        loop {
            let mut h = (index ^ self.seed.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            if index == 0 || next(&mut h) % 100 >= pct as u64 {
                return index;
            }
            index = next(&mut h) % index;
        }
    }

    /// The block size the pattern was made for.
    pub fn block(&self) -> usize {
        self.pattern.len()
    }

    fn stamp_value(&self, block_index: u64) -> [u8; STAMP_LEN] {
        (self.origin(block_index) ^ self.seed).to_le_bytes()
    }

    /// Whether blocks carry stamps (all kinds but zeros).
    fn stamped(&self) -> bool {
        self.kind != DataKind::Zeros
    }

    /// An aligned buffer holding the pattern, ready for [`DataPattern::stamp`].
    pub fn buffer(&self) -> AlignedBuf {
        let mut b = AlignedBuf::new(self.pattern.len());
        b.copy_from_slice(&self.pattern);
        b
    }

    /// Writes block `block_index`'s stamps into a buffer made by [`DataPattern::buffer`].
    #[inline]
    pub fn stamp(&self, buf: &mut [u8], block_index: u64) {
        if !self.stamped() {
            return;
        }
        let v = self.stamp_value(block_index);
        let mut at = 0;
        while at < buf.len() {
            let n = STAMP_LEN.min(buf.len() - at);
            buf[at..at + n].copy_from_slice(&v[..n]);
            at += STAMP_EVERY;
        }
    }

    /// The byte at `offset` of a file written with this pattern.
    pub fn byte_at(&self, offset: u64) -> u8 {
        let block = self.pattern.len() as u64;
        let in_block = (offset % block) as usize;
        let in_stamp = in_block % STAMP_EVERY;
        if in_stamp < STAMP_LEN && self.stamped() {
            self.stamp_value(offset / block)[in_stamp]
        } else {
            self.pattern[in_block]
        }
    }

    /// Checks that `data` is what the file holds at `offset`; returns the offset of the first wrong byte.
    pub fn verify(&self, offset: u64, data: &[u8]) -> Result<(), u64> {
        let block = self.pattern.len() as u64;
        let mut pos = 0usize;
        while pos < data.len() {
            let file_off = offset + pos as u64;
            let in_block = (file_off % block) as usize;
            let n = (self.pattern.len() - in_block).min(data.len() - pos);
            let got = &data[pos..pos + n];
            let want = &self.pattern[in_block..in_block + n];
            if !self.stamped() {
                if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
                    return Err(file_off + i as u64);
                }
            } else if got != want {
                // Differences are allowed only at stamps, and must match the stamp.
                for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
                    if g != w || (in_block + i) % STAMP_EVERY < STAMP_LEN {
                        let at = file_off + i as u64;
                        if g != self.byte_at(at) {
                            return Err(at);
                        }
                    }
                }
            } else {
                // Same as the pattern: the stamps inside must also equal the pattern's bytes there.
                let mut s = in_block.next_multiple_of(STAMP_EVERY);
                if in_block % STAMP_EVERY < STAMP_LEN {
                    s = in_block - in_block % STAMP_EVERY;
                }
                while s < in_block + n {
                    for k in s.max(in_block)..(s + STAMP_LEN).min(in_block + n) {
                        let at = file_off + (k - in_block) as u64;
                        if got[k - in_block] != self.byte_at(at) {
                            return Err(at);
                        }
                    }
                    s += STAMP_EVERY;
                }
            }
            pos += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &DataPattern, blocks: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = p.buffer();
        for i in 0..blocks {
            p.stamp(&mut buf, i);
            out.extend_from_slice(&buf);
        }
        out
    }

    #[test]
    fn every_byte_is_predictable() {
        let p = DataPattern::new(3 * 4096 + 100, 42);
        let f = file(&p, 4);
        for (i, &b) in f.iter().enumerate() {
            assert_eq!(b, p.byte_at(i as u64), "offset {i}");
        }
        assert_eq!(p.verify(0, &f), Ok(()));
        assert_eq!(p.verify(5000, &f[5000..20000]), Ok(()));
        assert_eq!(p.verify(3, &f[3..9]), Ok(()));
    }

    #[test]
    fn detects_a_flipped_byte_and_a_misplaced_block() {
        let p = DataPattern::new(8192, 7);
        let mut f = file(&p, 3);
        f[10_000] ^= 1;
        assert_eq!(p.verify(0, &f), Err(10_000));
        let f = file(&p, 3);
        // Block 2's bytes presented as block 1: only the stamps differ, and they are caught.
        assert_eq!(p.verify(8192, &f[16384..24576]), Err(8192));
    }

    fn deflate_ratio(data: &[u8]) -> f64 {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        data.len() as f64 / e.finish().unwrap().len() as f64
    }

    fn kind_file(kind: DataKind, block: usize, blocks: u64) -> (DataPattern, Vec<u8>) {
        let p = DataPattern::of(block, 99, kind);
        let f = file(&p, blocks);
        (p, f)
    }

    #[test]
    fn each_kind_compresses_as_it_says_measured_by_deflate() {
        let ratio = |k| deflate_ratio(&kind_file(k, 1 << 20, 4).1);
        let (random, zeros, half) =
            (ratio(DataKind::Random), ratio(DataKind::Zeros), ratio(DataKind::Compressible(50)));
        assert!(random < 1.01, "random compressed {random:.3}x");
        assert!(zeros > 100.0, "zeros compressed only {zeros:.1}x");
        assert!((half - 2.0).abs() < 0.2, "compressible:50 compressed {half:.3}x, not within 10 % of 2x");
        let quarter = ratio(DataKind::Compressible(25));
        assert!((quarter - 4.0 / 3.0).abs() < 0.134, "compressible:25 compressed {quarter:.3}x, not about 1.33x");
    }

    #[test]
    fn dedupe_repeats_the_share_of_blocks_it_names_measured_by_hashing() {
        use std::collections::HashSet;
        for pct in [0u8, 30, 70] {
            let kind = if pct == 0 { DataKind::Random } else { DataKind::Dedupe(pct) };
            let (_, f) = kind_file(kind, 4096, 2000);
            let mut seen = HashSet::new();
            let repeats = f.chunks(4096).filter(|b| !seen.insert(b.to_vec())).count();
            let share = repeats as f64 / 2000.0 * 100.0;
            assert!((share - pct as f64).abs() < 5.0, "dedupe:{pct} repeated {share:.1} % of blocks");
        }
    }

    #[test]
    fn verify_knows_every_byte_of_every_kind_and_catches_a_flip() {
        for kind in [DataKind::Random, DataKind::Zeros, DataKind::Compressible(60), DataKind::Dedupe(50)] {
            let (p, mut f) = kind_file(kind, 3 * 4096 + 100, 40);
            for (i, &b) in f.iter().enumerate().step_by(7) {
                assert_eq!(b, p.byte_at(i as u64), "{kind}: offset {i}");
            }
            assert_eq!(p.verify(0, &f), Ok(()), "{kind}");
            assert_eq!(p.verify(5000, &f[5000..20000]), Ok(()), "{kind}");
            f[77_777] ^= 0x10;
            assert_eq!(p.verify(0, &f), Err(77_777), "{kind}");
        }
    }

    #[test]
    fn data_options_parse_or_name_what_is_valid() {
        let ok = |s: &str| parse_data(s).unwrap();
        assert_eq!(ok("random"), DataSpec { kind: DataKind::Random, seed: None });
        assert_eq!(ok("zeros").kind, DataKind::Zeros);
        assert_eq!(ok("compressible:50,seed:7"), DataSpec { kind: DataKind::Compressible(50), seed: Some(7) });
        assert_eq!(ok("seed:3"), DataSpec { kind: DataKind::Random, seed: Some(3) });
        assert_eq!(ok("dedupe:30%").kind, DataKind::Dedupe(30));
        for bad in ["compressible:0", "compressible:100", "dedupe", "zeros,random", "seed:x", "ones", ""] {
            let e = parse_data(bad).unwrap_err();
            assert!(e.starts_with(&format!("invalid --data '{bad}'")) && e.contains("compressible:PCT"), "{e}");
            assert!(!e.contains('\n'));
        }
        assert_eq!(DataKind::Compressible(50).to_string(), "compressible:50");
    }

    #[test]
    fn blocks_differ_and_do_not_compress() {
        let p = DataPattern::new(65536, 1);
        let f = file(&p, 2);
        assert_ne!(&f[..65536], &f[65536..]);
        let mut counts = [0u32; 256];
        f.iter().for_each(|&b| counts[b as usize] += 1);
        // A uniform byte distribution: no value is more than twice as common as average.
        assert!(counts.iter().all(|&c| c < 2 * (f.len() as u32 / 256)));
    }
}
