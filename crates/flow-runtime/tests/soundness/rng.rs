//! A seeded generator of numbers (SplitMix64): the harness's own, so a seed names the same flow
//! set, replies and mocks on every platform and in every version of the dependencies.

/// The random source of one flow set and its runs.
pub(crate) struct Rng(u64);

impl Rng {
    /// The generator of `seed` (consecutive seeds give unrelated streams).
    pub(crate) fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        rng.next();
        rng
    }

    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `low..=high`.
    pub(crate) fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// True `percent` times in a hundred.
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One item of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// One string of a non-empty slice.
    pub(crate) fn word<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }

    /// The index of an item chosen by weight (`weights` not all zero).
    pub(crate) fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut at = self.below(total);
        for (index, &weight) in weights.iter().enumerate() {
            if at < weight {
                return index;
            }
            at -= weight;
        }
        weights.len() - 1
    }
}
