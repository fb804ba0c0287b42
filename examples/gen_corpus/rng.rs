//! The generator's randomness and vocabulary, shared with `benches/rules.rs` (which includes
//! this file by path): a seed always gives the same corpus and the same benchmark trace.
#![allow(dead_code)]

/// xorshift64: small, fast and the same everywhere, so a seed always gives the same corpus.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// True with probability `per_mille / 1000`.
    pub(crate) fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The words results are made of: the first 24 are an order desk's, the rest a build's.
pub(crate) const WORDS: &[&str] = &[
    "order",
    "shipped",
    "processing",
    "customer",
    "refund",
    "warehouse",
    "invoice",
    "carrier",
    "delayed",
    "payment",
    "address",
    "street",
    "parcel",
    "return",
    "label",
    "status",
    "note",
    "priority",
    "express",
    "standard",
    "region",
    "north",
    "south",
    "tracking",
    "error",
    "retry",
    "build",
    "test",
    "passed",
    "failed",
    "module",
    "function",
    "config",
    "value",
    "request",
];
