//! The matching algorithms behind trajectory expectations, over plain cost matrices: an optimal
//! assignment (Hungarian, O(n³)) so the reported diff is the smallest one, a maximum bipartite
//! matching (augmenting paths) that still decides the verdict exactly past the Hungarian's size
//! bound, and an optimal sequence alignment for `strict` order. Knows nothing of traces.

/// Largest square matrix (expected + actual calls of one tool) the Hungarian solves: n³ steps,
/// about 17 M at the bound. Past it the verdict comes from `max_matching` and the finding says
/// its diff was not minimised.
pub const HUNGARIAN_MAX: usize = 256;

/// Largest expected × actual grid `align` fills (one byte per cell for the way back).
pub const ALIGN_MAX_CELLS: usize = 4_000_000;

/// A minimum-cost perfect assignment of a square `n × n` matrix (`cost[row][col]`): the column
/// given to each row. Costs must be finite and small enough that n of them sum in an `i64`.
pub fn hungarian(cost: &[Vec<i64>]) -> Vec<usize> {
    let n = cost.len();
    if n == 0 {
        return Vec::new();
    }
    // Potentials u (rows) and v (columns), 1-based with a virtual column 0 (e-maxx's form).
    let inf = i64::MAX / 4;
    let mut u = vec![0i64; n + 1];
    let mut v = vec![0i64; n + 1];
    let mut owner = vec![0usize; n + 1]; // owner[col] = row (1-based), 0 = free
    let mut way = vec![0usize; n + 1];
    for row in 1..=n {
        owner[0] = row;
        let mut col0 = 0usize;
        let mut minv = vec![inf; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[col0] = true;
            let r = owner[col0];
            let mut delta = inf;
            let mut next = 0usize;
            for col in 1..=n {
                if used[col] {
                    continue;
                }
                let cur = cost[r - 1][col - 1] - u[r] - v[col];
                if cur < minv[col] {
                    minv[col] = cur;
                    way[col] = col0;
                }
                if minv[col] < delta {
                    delta = minv[col];
                    next = col;
                }
            }
            for col in 0..=n {
                if used[col] {
                    u[owner[col]] += delta;
                    v[col] -= delta;
                } else {
                    minv[col] -= delta;
                }
            }
            col0 = next;
            if owner[col0] == 0 {
                break;
            }
        }
        loop {
            let prev = way[col0];
            owner[col0] = owner[prev];
            col0 = prev;
            if col0 == 0 {
                break;
            }
        }
    }
    let mut of_row = vec![0usize; n];
    for col in 1..=n {
        if owner[col] > 0 {
            of_row[owner[col] - 1] = col - 1;
        }
    }
    of_row
}

/// A maximum matching of a bipartite graph given as each left node's acceptable right nodes:
/// the right node matched to each left node, if any (Kuhn's augmenting paths, iterative so a
/// long path cannot overflow the stack).
pub fn max_matching(adj: &[Vec<usize>], right: usize) -> Vec<Option<usize>> {
    let mut match_right: Vec<Option<usize>> = vec![None; right];
    let mut match_left: Vec<Option<usize>> = vec![None; adj.len()];
    for start in 0..adj.len() {
        let mut seen = vec![false; right];
        // Depth-first search for an augmenting path: (left node, next edge to try).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut via: Vec<usize> = Vec::new(); // right node chosen at each level
        let mut found = false;
        while let Some(&mut (l, ref mut edge)) = stack.last_mut() {
            if *edge >= adj[l].len() {
                stack.pop();
                via.pop();
                continue;
            }
            let r = adj[l][*edge];
            *edge += 1;
            if seen[r] {
                continue;
            }
            seen[r] = true;
            via.push(r);
            match match_right[r] {
                None => {
                    found = true;
                    break;
                }
                Some(next) => stack.push((next, 0)),
            }
        }
        if found {
            // stack[k].0 takes via[k].
            for (k, &(l, _)) in stack.iter().enumerate() {
                let r = via[k];
                match_right[r] = Some(l);
                match_left[l] = Some(r);
            }
        }
    }
    match_left
}

/// One step of an alignment of an expected sequence against an actual one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Expected `e` lines up with actual `a` (their pair cost says whether they agree).
    Pair(usize, usize),
    /// Expected `e` has no actual counterpart.
    Missing(usize),
    /// Actual `a` has no expected counterpart.
    Extra(usize),
}

/// The cheapest alignment of `e_len` expected items against `a_len` actual ones, in order:
/// `pair(e, a)` is the cost of lining them up (`None`: they cannot be), `gap` the cost of an
/// item left without a counterpart. `None` when the grid is past `ALIGN_MAX_CELLS`.
pub fn align(
    e_len: usize,
    a_len: usize,
    pair: impl Fn(usize, usize) -> Option<i64>,
    gap: i64,
) -> Option<Vec<Op>> {
    let cells = (e_len + 1).checked_mul(a_len + 1)?;
    if cells > ALIGN_MAX_CELLS {
        return None;
    }
    let w = a_len + 1;
    // 0 = pair, 1 = missing (up), 2 = extra (left).
    let mut back = vec![0u8; cells];
    let mut prev: Vec<i64> = (0..=a_len).map(|a| gap * a as i64).collect();
    back[1..=a_len].fill(2);
    for e in 1..=e_len {
        let mut row = vec![0i64; w];
        row[0] = gap * e as i64;
        back[e * w] = 1;
        for a in 1..=a_len {
            let mut best = prev[a] + gap;
            let mut how = 1u8;
            if row[a - 1] + gap < best {
                best = row[a - 1] + gap;
                how = 2;
            }
            if let Some(c) = pair(e - 1, a - 1)
                && prev[a - 1] + c <= best
            {
                best = prev[a - 1] + c;
                how = 0;
            }
            row[a] = best;
            back[e * w + a] = how;
        }
        prev = row;
    }
    let (mut e, mut a) = (e_len, a_len);
    let mut ops = Vec::new();
    while e > 0 || a > 0 {
        match back[e * w + a] {
            0 if e > 0 && a > 0 => {
                ops.push(Op::Pair(e - 1, a - 1));
                e -= 1;
                a -= 1;
            }
            1 if e > 0 => {
                ops.push(Op::Missing(e - 1));
                e -= 1;
            }
            _ => {
                ops.push(Op::Extra(a - 1));
                a -= 1;
            }
        }
    }
    ops.reverse();
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(cost: &[Vec<i64>], a: &[usize]) -> i64 {
        a.iter().enumerate().map(|(r, &c)| cost[r][c]).sum()
    }

    /// Every permutation's cost, for small matrices.
    fn brute(cost: &[Vec<i64>]) -> i64 {
        fn go(cost: &[Vec<i64>], row: usize, used: &mut Vec<bool>) -> i64 {
            if row == cost.len() {
                return 0;
            }
            let mut best = i64::MAX;
            for c in 0..cost.len() {
                if !used[c] {
                    used[c] = true;
                    best = best.min(cost[row][c] + go(cost, row + 1, used));
                    used[c] = false;
                }
            }
            best
        }
        go(cost, 0, &mut vec![false; cost.len()])
    }

    #[test]
    fn hungarian_is_optimal_on_every_small_matrix_of_a_seeded_family() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 1..=6 {
            for _ in 0..40 {
                let cost: Vec<Vec<i64>> = (0..n)
                    .map(|_| {
                        (0..n)
                            .map(|_| {
                                x ^= x << 13;
                                x ^= x >> 7;
                                x ^= x << 17;
                                (x % 50) as i64
                            })
                            .collect()
                    })
                    .collect();
                let a = hungarian(&cost);
                let mut seen = a.clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "a permutation");
                assert_eq!(total(&cost, &a), brute(&cost), "{cost:?}");
            }
        }
    }

    #[test]
    fn max_matching_finds_the_augmenting_path_greedy_misses() {
        // Left 0 accepts {0, 1}, left 1 accepts {0}: greedy gives 0→0 and strands left 1.
        let m = max_matching(&[vec![0, 1], vec![0]], 2);
        assert_eq!(m, [Some(1), Some(0)]);
    }

    #[test]
    fn alignment_prefers_one_gap_to_two_mismatches() {
        // expected a b c, actual a c: one missing `b`, not b≠c plus a missing c.
        let e = ["a", "b", "c"];
        let a = ["a", "c"];
        let ops = align(3, 2, |i, j| (e[i] == a[j]).then_some(0), 10).unwrap();
        assert_eq!(ops, [Op::Pair(0, 0), Op::Missing(1), Op::Pair(2, 1)]);
    }
}
