//! A small, fast hasher for the lookup-only maps of the analyzer (step ids, flow ids, node ids).
//!
//! The multiply-rotate scheme of rustc's FxHash with MurmurHash3's finalizer. The keys come from the documents being
//! analyzed, but these maps are never iterated (output order never depends on them) and
//! `analyze` only compiles validated documents (at most 500 steps each), so a non-keyed hash
//! costs nothing in determinism or safety, and SipHash was a tenth of the analyzer's time.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash: one multiply and rotate per 8 bytes.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // Shifts rather than a copy into a zeroed buffer: most ids are shorter than 8
            // bytes, and a copy of a variable length is a call to `memcpy`.
            let word = rest
                .iter()
                .rev()
                .fold(0u64, |word, &byte| (word << 8) | u64::from(byte));
            self.add(word);
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply only carries entropy upwards, and hashbrown picks buckets with the low
        // bits: fold the high half down (MurmurHash3's finalizer) so short ids spread.
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

/// A `HashMap` with [`FxHasher`]; never iterate one into output.
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with [`FxHasher`]; never iterate one into output.
pub(crate) type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_short_keys_hash_apart_and_lookups_work() {
        let mut map: FxHashMap<&str, usize> = FxHashMap::default();
        let keys = [
            "a",
            "b",
            "ab",
            "ba",
            "s1",
            "s10",
            "s100",
            "end",
            "end_",
            "x".repeat(17).leak(),
        ];
        for (i, key) in keys.iter().enumerate() {
            map.insert(key, i);
        }
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(map.get(key), Some(&i));
        }
        assert_eq!(map.get("c"), None);
    }
}
