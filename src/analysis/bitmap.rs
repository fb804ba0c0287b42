//! A set of bit positions below `64 × WORDS`, fixed in size: the filters the provenance index
//! and its searches keep (heads, short digit strings, scalars' ends, text past a cap). The size
//! is a constant, so a position masked below it is read without a bounds check in a hot loop.

#[derive(Debug, Clone)]
pub(crate) struct Bitmap<const WORDS: usize>(Box<[u64; WORDS]>);

impl<const WORDS: usize> Bitmap<WORDS> {
    /// No bit set. Built on the heap (a large bitmap never passes through the stack).
    pub(crate) fn new() -> Self {
        let words = vec![0u64; WORDS].into_boxed_slice();
        Bitmap(
            words
                .try_into()
                .unwrap_or_else(|_| unreachable!("{WORDS} words")),
        )
    }

    pub(crate) fn set(&mut self, bit: usize) {
        self.0[bit >> 6] |= 1 << (bit & 63);
    }

    pub(crate) fn has(&self, bit: usize) -> bool {
        self.0[bit >> 6] & (1 << (bit & 63)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_exactly_the_bits_set() {
        let mut bits = Bitmap::<4>::new();
        for b in [0, 63, 64, 200, 255] {
            bits.set(b);
        }
        let set: Vec<usize> = (0..256).filter(|b| bits.has(*b)).collect();
        assert_eq!(set, [0, 63, 64, 200, 255]);
    }
}
