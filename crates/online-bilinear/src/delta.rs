//! `DeltaPhi = Phi(x, y) - Phi(x, y_hat)`: the positions and features where a predicted
//! tag path differs from the gold one (read by every online update).

use crate::features::EncodedSentence;

/// Calls `f(position, feature, (gold tag, gold previous), (predicted tag, predicted
/// previous))` for every active feature at positions where the local transition differs.
pub(crate) fn for_each_difference(
    enc: &EncodedSentence,
    gold: &[usize],
    pred: &[usize],
    start: usize,
    mut f: impl FnMut(usize, usize, (usize, usize), (usize, usize)),
) {
    for i in 0..enc.len() {
        let bg = if i == 0 { start } else { gold[i - 1] };
        let bp = if i == 0 { start } else { pred[i - 1] };
        if gold[i] == pred[i] && bg == bp {
            continue;
        }
        for &k in enc.at(i) {
            f(i, k as usize, (gold[i], bg), (pred[i], bp));
        }
    }
}
