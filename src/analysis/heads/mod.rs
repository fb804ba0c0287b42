//! A multi-pattern search built for one trace's argument values, cheap to build and a few
//! instructions per byte to run. Each pattern (3 bytes or more, ASCII lower case) is filed under
//! its first three bytes, its *head*; a text is read as its 3-byte windows, lowercased, and a
//! window is looked up only when a bitmap of the heads' hashes has its bit set. The patterns
//! under one head form a compressed trie (a radix tree) of what follows the head, so a window
//! that is a head costs the bytes of the longest pattern prefix it starts, however many
//! patterns share the head (a trace's ids and numbers share a few heads by the hundred). A
//! pattern that the caller says is settled (found where it counts) is retired: a subtree with
//! nothing left to find is not entered, and once every pattern is retired a search returns at
//! once.
//!
//! Comparisons are bounded by a budget the caller gives: self-similar patterns over a
//! self-similar text (every window a head, every walk long) cannot cost more than it.

use std::collections::HashMap;

use super::bitmap::Bitmap;

/// log2 of the bits of the heads' bitmap: 8 KiB, one bit in 400 set for a trace of 160 values.
const FILTER_LOG: u32 = 16;

/// ASCII lower case of every byte, by table (one load in the search's inner loop).
static LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    t
};

/// No node (a root's parent).
const NONE: u32 = u32::MAX;

/// Patterns, filed by head, each head's patterns a radix tree.
#[derive(Debug)]
pub(crate) struct Heads {
    /// One bit per hash of a head (`hash`).
    bits: Bitmap<{ 1 << (FILTER_LOG - 6) }>,
    /// A head → the root of its tree in `nodes`.
    roots: HashMap<u32, u32, foldhash::fast::RandomState>,
    nodes: Vec<Node>,
    /// By node: the byte that leads to it from its parent (0 for a root). A node's children
    /// are `Node::child_count` nodes in a row from `Node::children`, so their bytes are too
    /// (ascending).
    keys: Vec<u8>,
    /// Pattern ids, those ending at a node together (`Node::ends`), the ones not retired first.
    ends: Vec<u32>,
    /// Patterns' bytes (lower case) back to back: the nodes' labels are ranges of it.
    bytes: Vec<u8>,
    /// Patterns not retired.
    live: usize,
    /// By pattern id: retired, and the node it ends at.
    retired: Vec<bool>,
    node_of: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// What a text must hold on entering the node, after the head (a root) or after the byte
    /// that led here (a child): `bytes[label.0..label.1]`.
    label: (u32, u32),
    children: u32,
    child_count: u32,
    /// The patterns that end here: `ends[self.ends..]`, `ends_live` of them not yet taken out
    /// (a pattern retired by `retire` is taken out when a search next passes here).
    ends: u32,
    ends_live: u32,
    /// `NONE` for a root.
    parent: u32,
    /// Patterns not retired here and below.
    live: u32,
}

impl Heads {
    /// The search for `patterns` (pattern `id` is `patterns[id]`), each at least 3 bytes.
    pub(crate) fn new(patterns: &[&str]) -> Self {
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(patterns.len());
        for p in patterns {
            assert!(p.len() >= 3, "pattern {p:?} shorter than a head");
            let from = bytes.len();
            bytes.extend(p.bytes().map(|b| b.to_ascii_lowercase()));
            spans.push((from, bytes.len()));
        }
        let text = |id: u32| &bytes[spans[id as usize].0..spans[id as usize].1];
        // Sorted, a pattern comes before the patterns it is a prefix of, and the patterns
        // under any prefix are a range: each node of the tree is built from one range.
        let mut order: Vec<u32> = (0u32..).take(patterns.len()).collect();
        order.sort_unstable_by(|a, b| text(*a).cmp(text(*b)).then(a.cmp(b)));
        let mut search = Heads {
            bits: Bitmap::new(),
            roots: HashMap::default(),
            nodes: Vec::new(),
            keys: Vec::new(),
            ends: Vec::with_capacity(patterns.len()),
            bytes: Vec::new(),
            live: patterns.len(),
            retired: vec![false; patterns.len()],
            node_of: vec![0; patterns.len()],
        };
        // (range of `order`, bytes every pattern of it shares, the node to build from it)
        let mut work: Vec<(usize, usize, usize, u32)> = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let head = &text(order[i])[..3];
            let j = i + order[i..].partition_point(|id| &text(*id)[..3] == head);
            let head = head.iter().fold(0u32, |w, b| w << 8 | u32::from(*b));
            search.bits.set(hash(head));
            let root = search.new_node(NONE, 0);
            search.roots.insert(head, root);
            work.push((i, j, 3, root));
            i = j;
        }
        while let Some((from, to, depth, node)) = work.pop() {
            let (first, last) = (text(order[from]), text(order[to - 1]));
            // The range's common prefix: its first and last patterns' (they are sorted).
            let common = depth
                + first[depth..]
                    .iter()
                    .zip(&last[depth..])
                    .take_while(|(a, b)| a == b)
                    .count();
            let at = spans[order[from] as usize].0;
            let ends = order[from..to].partition_point(|id| text(*id).len() == common);
            let mut n = Node {
                label: ((at + depth) as u32, (at + common) as u32),
                children: search.nodes.len() as u32,
                child_count: 0,
                ends: search.ends.len() as u32,
                ends_live: ends as u32,
                parent: search.nodes[node as usize].parent,
                live: (to - from) as u32,
            };
            for id in &order[from..from + ends] {
                search.ends.push(*id);
                search.node_of[*id as usize] = node;
            }
            let mut k = from + ends;
            while k < to {
                let key = text(order[k])[common];
                let end = k + order[k..to].partition_point(|id| text(*id)[common] == key);
                // Children are made one after the other: they sit in a row.
                let child = search.new_node(node, key);
                debug_assert_eq!(child, n.children + n.child_count);
                n.child_count += 1;
                work.push((k, end, common + 1, child));
                k = end;
            }
            search.nodes[node as usize] = n;
        }
        search.bytes = bytes;
        search
    }

    fn new_node(&mut self, parent: u32, key: u8) -> u32 {
        self.keys.push(key);
        self.nodes.push(Node {
            label: (0, 0),
            children: 0,
            child_count: 0,
            ends: 0,
            ends_live: 0,
            parent,
            live: 0,
        });
        self.nodes.len() as u32 - 1
    }

    /// Retire pattern `id` (no search reports it again): the caller knows it no longer matters.
    pub(crate) fn retire(&mut self, id: usize) {
        if std::mem::replace(&mut self.retired[id], true) {
            return;
        }
        self.live -= 1;
        let mut node = self.node_of[id];
        while node != NONE {
            let n = &mut self.nodes[node as usize];
            n.live -= 1;
            node = n.parent;
        }
    }

    /// The first offset from `at` whose window (the 3 bytes ending there, lower case, after
    /// `window`: the bytes before `at`) may be a head, and that window; the text's length when
    /// none is. The inner loop of `search`, kept apart so that it keeps its state in registers.
    fn next_window(&self, text: &[u8], mut at: usize, mut window: u32) -> (usize, u32) {
        while let Some(b) = text.get(at) {
            window = window << 8 | u32::from(LOWER[usize::from(*b)]);
            if self.bits.has(hash(window)) {
                return (at, window & 0x00FF_FFFF);
            }
            at += 1;
        }
        (at, window)
    }

    /// True when every pattern is retired: no search can find anything.
    #[cfg(test)]
    pub(crate) fn done(&self) -> bool {
        self.live == 0
    }

    /// Every occurrence in `text` (ignoring ASCII case) of a pattern not retired, overlapping
    /// ones too, handed to `found(id, start, end)`, which returns true to retire the pattern.
    /// Each node a walk enters costs the bytes of its label compared plus one from `budget`;
    /// false when the budget ran out before the end of the text (what was not searched is
    /// unknown).
    pub(crate) fn search(
        &mut self,
        text: &[u8],
        budget: &mut usize,
        mut found: impl FnMut(usize, usize, usize) -> bool,
    ) -> bool {
        if text.len() < 3 || self.live == 0 {
            return true;
        }
        let mut window =
            u32::from(LOWER[usize::from(text[0])]) << 8 | u32::from(LOWER[usize::from(text[1])]);
        let mut at = 2;
        loop {
            let last;
            (last, window) = self.next_window(text, at, window);
            if last >= text.len() {
                return true;
            }
            at = last + 1;
            let Some(&root) = self.roots.get(&window) else {
                continue;
            };
            let start = last - 2;
            // Walk down from the head's root as far as the text follows a live pattern.
            let mut node = root;
            let mut pos = start + 3;
            loop {
                let n = self.nodes[node as usize];
                if n.live == 0 {
                    break;
                }
                let label = &self.bytes[n.label.0 as usize..n.label.1 as usize];
                let same = label
                    .iter()
                    .zip(&text[pos..])
                    .take_while(|(p, t)| **p == LOWER[usize::from(**t)])
                    .count();
                *budget = match budget.checked_sub(same + 1) {
                    Some(b) => b,
                    None => return false,
                };
                if same < label.len() {
                    break;
                }
                pos += same;
                let mut k = 0;
                while k < self.nodes[node as usize].ends_live {
                    let slot = (n.ends + k) as usize;
                    let id = self.ends[slot] as usize;
                    if !self.retired[id] && found(id, start, pos) {
                        self.retire(id);
                    }
                    if self.retired[id] {
                        let here = &mut self.nodes[node as usize];
                        here.ends_live -= 1;
                        self.ends.swap(slot, (n.ends + here.ends_live) as usize);
                        if self.live == 0 {
                            return true;
                        }
                    } else {
                        k += 1;
                    }
                }
                let Some(b) = text.get(pos) else {
                    break;
                };
                let b = LOWER[usize::from(*b)];
                let from = n.children as usize;
                let keys = &self.keys[from..from + n.child_count as usize];
                let Some(i) = keys.iter().position(|k| *k == b) else {
                    break;
                };
                node = n.children + i as u32;
                pos += 1;
            }
        }
    }
}

/// Where a window's head (its low 3 bytes) falls in the bitmap.
fn hash(window: u32) -> usize {
    ((window << 8).wrapping_mul(0x9E37_79B1) >> (32 - FILTER_LOG)) as usize
}

#[cfg(test)]
mod tests;
