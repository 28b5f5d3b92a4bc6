//! Viterbi decoding on a linear chain (the scores of [`crate::lattice`]).

/// The best label path of the state scores `state` (`n x L`) and transitions `trans`
/// (`L x L`), written to `path`; returns its score. Ties go to the lower label. `back`
/// is a reusable buffer.
pub fn viterbi(
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
