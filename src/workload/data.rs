//! Test data: incompressible, generated once per run, verifiable at any offset.
//!
//! The data of a file is a pseudo-random pattern of one block, repeated, with the block's index
//! stamped (8 bytes, little-endian, xored with the run's seed) at the start of every 4 KiB of each block.
//! So blocks differ from each other (no dedup at 4 KiB granularity or above), the buffer is written once
//! and only the stamps change per block, and any byte of the file can be recomputed for `--verify`.

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

/// The pattern of a run and the rule that says what every byte of a file must be.
pub struct DataPattern {
    pattern: Vec<u8>,
    seed: u64,
}

impl DataPattern {
    /// A pattern of `block` bytes drawn from `seed`.
    pub fn new(block: usize, seed: u64) -> Self {
        let mut state = seed | 1;
        let mut pattern = vec![0u8; block];
        for chunk in pattern.chunks_mut(8) {
            let v = next(&mut state).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Self { pattern, seed }
    }

    /// The block size the pattern was made for.
    pub fn block(&self) -> usize {
        self.pattern.len()
    }

    fn stamp_value(&self, block_index: u64) -> [u8; STAMP_LEN] {
        (block_index ^ self.seed).to_le_bytes()
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
        if in_stamp < STAMP_LEN {
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
            if got != want {
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
