//! Viterbi decoding on a linear chain (the scores of [`crate::lattice`]).

use bl_core::error::build::shape_mismatch;

/// The best label path of the state scores `state` (`n x L`) and transitions `trans`
/// (`L x L`), written to `path`; returns its score (0 and an empty path when `n = 0`).
/// Ties go to the lower label. `back` is a reusable buffer.
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (in [`crate::CrfError::Core`]) when `trans` does
/// not have `L * L` entries or the length of `state` is not a multiple of `L` (with
/// `L = 0`, when `state` is not empty); checked before `path` or `back` is touched.
pub fn viterbi(
    state: &[f64],
    l: usize,
    trans: &[f64],
    path: &mut Vec<u32>,
    back: &mut Vec<u32>,
) -> crate::Result<f64> {
    check_chain(
        ("viterbi: state (n x L)", "viterbi: trans (L x L)"),
        state.len(),
        l,
        trans.len(),
    )?;
    Ok(viterbi_unchecked(state, l, trans, path, back))
}

/// Checks the shapes of a chain's tables, in O(1): `state` entries make `n x L` (a
/// multiple of `L`; none when `L = 0`) and `trans` entries make `L x L`. The contexts
/// name the state table, then the transitions.
pub(crate) fn check_chain(
    (state_context, trans_context): (&'static str, &'static str),
    state: usize,
    l: usize,
    trans: usize,
) -> crate::Result<()> {
    if l.checked_mul(l) != Some(trans) {
        return Err(shape_mismatch(trans_context, format!("{l} x {l}"), trans));
    }
    if state.checked_rem(l).unwrap_or(state) != 0 {
        let expected = if l == 0 {
            "0 (L = 0)".to_string()
        } else {
            format!("a multiple of L = {l}")
        };
        return Err(shape_mismatch(state_context, expected, state));
    }
    Ok(())
}

/// [`viterbi`] on tables known to have their shapes (the trainers' and the model's).
pub(crate) fn viterbi_unchecked(
    state: &[f64],
    l: usize,
    trans: &[f64],
    path: &mut Vec<u32>,
    back: &mut Vec<u32>,
) -> f64 {
    path.clear();
    if l == 0 || state.is_empty() {
        return 0.0;
    }
    let n = state.len() / l;
    back.clear();
    back.resize(n * l, 0);
    let mut cur: Vec<f64> = state[..l].to_vec();
    let mut next = vec![0.0; l];
    for t in 1..n {
        for a in 0..l {
            let (mut best, mut arg) = (f64::NEG_INFINITY, 0u32);
            for b in 0..l {
                let v = cur[b] + trans[b * l + a];
                if v > best {
                    best = v;
                    arg = b as u32;
                }
            }
            next[a] = best + state[t * l + a];
            back[t * l + a] = arg;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let (mut best, mut arg) = (f64::NEG_INFINITY, 0u32);
    for (a, &v) in cur.iter().enumerate() {
        if v > best {
            best = v;
            arg = a as u32;
        }
    }
    path.resize(n, 0);
    path[n - 1] = arg;
    for t in (1..n).rev() {
        path[t - 1] = back[t * l + path[t] as usize];
    }
    best
}
