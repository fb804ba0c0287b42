//! Statistics for the recovery scorecard: the Wilson score interval (95 %) and a tiny seeded
//! random number generator (SplitMix64), so runs are independent samples that a seed reproduces.

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The 95 % Wilson score interval for `successes` out of `n`. `None` when `n == 0` (no
/// measurement, so no interval).
pub fn wilson(successes: u32, n: u32) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let n_f = f64::from(n);
    let p = f64::from(successes.min(n)) / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    Some(((center - half).max(0.0), (center + half).min(1.0)))
}

/// SplitMix64: small, fast, and good enough to draw an agent's choices reproducibly.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        // 53 random mantissa bits.
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A derived generator for a sub-stream (one per run), so adding runs never changes the
    /// earlier ones.
    pub fn fork(&self, stream: u64) -> Rng {
        let mut r = Rng(self.0 ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round3(x: f64) -> f64 {
        (x * 1000.0).round() / 1000.0
    }

    #[test]
    fn wilson_known_value() {
        let (lo, hi) = wilson(8, 10).unwrap();
        assert_eq!((round3(lo), round3(hi)), (0.490, 0.943));
    }

    #[test]
    fn wilson_edges() {
        assert_eq!(wilson(0, 0), None);
        let (lo, hi) = wilson(0, 20).unwrap();
        assert_eq!(lo, 0.0);
        assert!((0.16..0.17).contains(&hi), "{hi}");
        let (lo, hi) = wilson(20, 20).unwrap();
        assert_eq!(hi, 1.0);
        assert!((0.83..0.84).contains(&lo), "{lo}");
        // More runs, narrower interval.
        let w = |n| {
            let (l, h) = wilson(n / 2, n).unwrap();
            h - l
        };
        assert!(w(100) < w(10));
    }

    #[test]
    fn rng_is_reproducible_and_spread() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut r = Rng::new(1);
        let hits = (0..10_000).filter(|_| r.chance(0.3)).count();
        assert!((2_800..3_200).contains(&hits), "{hits}");
        assert_ne!(
            Rng::new(1).fork(1).next_u64(),
            Rng::new(1).fork(2).next_u64()
        );
    }
}
