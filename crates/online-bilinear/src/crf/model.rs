//! The weights of a fitted linear-chain CRF and decoding with the crate's Viterbi.

use serde::{Deserialize, Serialize};

use crate::features::EncodedSentence;
use crate::viterbi::score_index;

/// Dense weights of a first-order linear-chain CRF over `K` features and `L` tags:
/// `state[k * L + a]` for feature `k` active with tag `a`, `transition[b * L + a]` for tag
/// `b` followed by tag `a`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrfWeights {
    /// State weights, `K x L` row-major.
    pub state: Vec<f64>,
    /// Transition weights, `L x L` row-major (previous tag, then current tag).
    pub transition: Vec<f64>,
}

impl CrfWeights {
    /// Number of weights equal to zero (OWL-QN makes many).
    pub fn n_zeros(&self) -> usize {
        self.state
            .iter()
            .chain(&self.transition)
            .filter(|v| **v == 0.0)
            .count()
    }

    /// Fills the flat Viterbi table of [`crate::viterbi`]: `[i][b][a] = sum_{k in F_i}
    /// state[k, a] + transition[b, a]` (`i >= 1`), and the state scores alone from the start
    /// state at `i = 0`.
    pub(crate) fn scores(
        &self,
        enc: &EncodedSentence,
        l: usize,
        out: &mut Vec<f64>,
        row: &mut Vec<f64>,
    ) {
        let n = enc.len();
        out.clear();
        out.resize(n * (l + 1) * l, 0.0);
        super::objective::state_scores(enc, l, &self.state, row);
        for i in 0..n {
            let s = &row[i * l..(i + 1) * l];
            if i == 0 {
                let base = score_index(0, l, 0, l);
                out[base..base + l].copy_from_slice(s);
            } else {
                for b in 0..l {
                    let base = score_index(i, b, 0, l);
                    for a in 0..l {
                        out[base + a] = s[a] + self.transition[b * l + a];
                    }
                }
            }
        }
    }

    /// A bound on `|score|` of one position: the largest state weight of each feature
    /// summed, plus the largest transition.
    pub(crate) fn position_bound(&self, l: usize) -> f64 {
        let states: f64 = self
            .state
            .chunks_exact(l.max(1))
            .map(|r| r.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
            .sum();
        states + self.transition.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
    }
}
