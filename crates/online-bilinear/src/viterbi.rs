//! First-order Viterbi decoding.
//!
//! Scores come as one `(L + 1) x L` table per position: entry `[i][b][a]` is the score of
//! tag `a` at position `i` after tag `b` at `i - 1`, where `b = L` is the start state (read
//! only at `i = 0`, and only it is read there). The best path maximizes the sum of the
//! chosen entries. Ties are broken towards the smaller tag index, so decoding is
//! deterministic.

use crate::error::Result;

/// Index of score `[i][prev][cur]` in the flat table of [`viterbi`], `prev == n_tags` being
/// the start state.
#[inline]
pub fn score_index(i: usize, prev: usize, cur: usize, n_tags: usize) -> usize {
    (i * (n_tags + 1) + prev) * n_tags + cur
}

/// Reusable buffers of [`viterbi_into`].
#[derive(Debug, Clone, Default)]
pub struct ViterbiWorkspace {
    delta: Vec<f64>,
    back: Vec<u32>,
}

/// The highest-scoring tag sequence for a flat score table (see the module docs).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `n_tags == 0` or the table does not have
/// `n * (n_tags + 1) * n_tags` entries; `bl_core::BlError::NonFinite` (through
/// [`crate::OblError::Core`]) when a score read is NaN.
pub fn viterbi(scores: &[f64], n: usize, n_tags: usize) -> Result<Vec<usize>> {
    if n_tags == 0 {
        return Err(crate::error::invalid("n_tags", 0, ">= 1"));
    }
    if scores.len() != n * (n_tags + 1) * n_tags {
        return Err(crate::error::shape(
            "viterbi: score table (n * (n_tags + 1) * n_tags entries)",
            n * (n_tags + 1) * n_tags,
            scores.len(),
        ));
    }
    if let Some(index) = scores.iter().position(|s| s.is_nan()) {
        return Err(bl_core::BlError::NonFinite {
            what: "viterbi scores",
            index,
            value: scores[index],
        }
        .into());
    }
    let mut out = vec![0; n];
    viterbi_into(
        scores,
        n,
        n_tags,
        &mut ViterbiWorkspace::default(),
        &mut out,
    );
    Ok(out)
}

/// Low-level [`viterbi`] without checks, writing the path into `out` (`out.len() == n`).
/// The caller guarantees the table's length and `n_tags >= 1`.
pub fn viterbi_into(
    scores: &[f64],
    n: usize,
    n_tags: usize,
    ws: &mut ViterbiWorkspace,
    out: &mut [usize],
) {
    if n == 0 {
        return;
    }
    let l = n_tags;
    ws.delta.clear();
    ws.delta.resize(n * l, f64::NEG_INFINITY);
    ws.back.clear();
    ws.back.resize(n * l, 0);
    for a in 0..l {
        ws.delta[a] = scores[score_index(0, l, a, l)];
    }
    for i in 1..n {
        for a in 0..l {
            let mut best = f64::NEG_INFINITY;
            let mut arg = 0u32;
            for b in 0..l {
                let s = ws.delta[(i - 1) * l + b] + scores[score_index(i, b, a, l)];
                if s > best {
                    best = s;
                    arg = b as u32;
                }
            }
            ws.delta[i * l + a] = best;
            ws.back[i * l + a] = arg;
        }
    }
    let mut best = f64::NEG_INFINITY;
    let mut arg = 0;
    for a in 0..l {
        if ws.delta[(n - 1) * l + a] > best {
            best = ws.delta[(n - 1) * l + a];
            arg = a;
        }
    }
    out[n - 1] = arg;
    for i in (1..n).rev() {
        out[i - 1] = ws.back[i * l + out[i]] as usize;
    }
}

/// The score of a tag path under a flat table (the quantity [`viterbi`] maximizes).
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (in [`crate::OblError::Core`]) when the path or the table has the wrong length;
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a tag `>= n_tags`.
pub fn path_score(scores: &[f64], path: &[usize], n_tags: usize) -> Result<f64> {
    let n = path.len();
    if scores.len() != n * (n_tags + 1) * n_tags {
        return Err(crate::error::shape(
            "path_score: score table (n * (n_tags + 1) * n_tags entries)",
            n * (n_tags + 1) * n_tags,
            scores.len(),
        ));
    }
    let mut total = 0.0;
    for (i, &a) in path.iter().enumerate() {
        if a >= n_tags {
            return Err(crate::error::invalid("path", a, "tags below n_tags"));
        }
        let b = if i == 0 { n_tags } else { path[i - 1] };
        total += scores[score_index(i, b, a, n_tags)];
    }
    Ok(total)
}
