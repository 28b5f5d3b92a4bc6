//! The colour classes of [`crate::Colored`]: a greedy colouring of the graph of a sparse
//! `C`, swept one class after the other, the columns of a class in parallel.

use super::kernels::{sparse_field, unit_field};
use crate::cost::SparseSym;

/// Greedy color classes of the graph of a sparse `C` and the workspace of the parallel
/// class update.
#[derive(Debug)]
pub(super) struct Coloring {
    /// The vertices, class after class (increasing index within a class).
    order: Vec<usize>,
    /// Class `c` is `order[ptr[c]..ptr[c + 1]]`.
    ptr: Vec<usize>,
    /// The new columns of one class (`k x` largest class).
    next: Vec<f64>,
    /// The objective increase of each vertex of one class.
    gains: Vec<f64>,
}

impl Coloring {
    pub(super) fn new(s: &SparseSym, k: usize) -> Self {
        let n = s.n;
        let mut color = vec![usize::MAX; n];
        // `stamp[c] == i` marks color c as taken by a neighbor of i.
        let mut stamp = vec![usize::MAX; n + 1];
        let mut count = 0;
        for i in 0..n {
            for &j in &s.col_idx[s.row_ptr[i]..s.row_ptr[i + 1]] {
                if color[j] != usize::MAX {
                    stamp[color[j]] = i;
                }
            }
            let c = (0..).find(|&c| stamp[c] != i).unwrap_or(0);
            color[i] = c;
            count = count.max(c + 1);
        }
        let mut ptr = vec![0; count + 1];
        for &c in &color {
            ptr[c + 1] += 1;
        }
        for c in 0..count {
            ptr[c + 1] += ptr[c];
        }
        let mut fill = ptr.clone();
        let mut order = vec![0; n];
        for (i, &c) in color.iter().enumerate() {
            order[fill[c]] = i;
            fill[c] += 1;
        }
        let largest = (0..count).map(|c| ptr[c + 1] - ptr[c]).max().unwrap_or(0);
        Self {
            order,
            ptr,
            next: vec![0.0; largest * k],
            gains: vec![0.0; largest],
        }
    }

    /// One sweep, class after class; the columns of a class in parallel. The increase is
    /// summed in the order of the classes, so the result does not depend on the threads.
    pub(super) fn sweep(&mut self, s: &SparseSym, v: &mut [f64], k: usize) -> f64 {
        use rayon::prelude::*;
        let mut increase = 0.0;
        for c in 0..self.ptr.len() - 1 {
            let class = &self.order[self.ptr[c]..self.ptr[c + 1]];
            let next = &mut self.next[..class.len() * k];
            let gains = &mut self.gains[..class.len()];
            let current: &[f64] = v;
            next.par_chunks_mut(k)
                .zip(gains.par_iter_mut())
                .zip(class.par_iter())
                .with_min_len(16)
                .for_each(|((g, gain), &i)| {
                    let range = s.row_ptr[i]..s.row_ptr[i + 1];
                    sparse_field(&s.col_idx[range.clone()], &s.values[range], current, k, g);
                    *gain = unit_field(g, &current[i * k..(i + 1) * k]);
                });
            for (t, &i) in class.iter().enumerate() {
                v[i * k..(i + 1) * k].copy_from_slice(&next[t * k..(t + 1) * k]);
                increase += gains[t];
            }
        }
        increase
    }
}
