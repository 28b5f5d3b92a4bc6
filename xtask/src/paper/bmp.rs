//! Numbers and statements printed in S.-E. Chang, X. Zheng, I. E. H. Yen, P. Ravikumar,
//! R. Yu, *Efficient Tensor Decomposition with Boolean Factors* (BMP), used by the
//! experiments `bmp-fig1`, `bmp-fig2` and `bmp-fig4`.
//!
//! The paper has no table. Its Figs. 1, 2 and 4 are plots and images without printed
//! values; what it prints in numbers is the setting of the experiments (Sec. 6.1, 6.2)
//! and one atom count in the text about Fig. 1. Its statements about the figures are the
//! [`Quote`]s below; the experiments check each one on their own run (or say why it
//! cannot be checked on the substitute data). Where we differ from the paper and why:
//! `docs/papers/bmp.md`.
//!
//! Quotes keep the paper's words; mathematical symbols are written in plain text
//! (`X`, `W^`, `x`), and an ellipsis `...` marks an omission.

use super::Quote;

/// Side of the synthetic tensors, Sec. 6.1: "We randomly generate tensors according to
/// model (1) of size (150 x 150 x 150)".
pub const SYN_SIDE: usize = 150;

/// The synthetic data sets and their number of atoms `K-bar`, Sec. 6.1: "We vary the
/// number of atoms: K-bar in {3, 9, 15}, and produce three synthetic datasets Syn0, Syn1,
/// and Syn2." `K-bar` is the total number of atoms over all modes (Sec. 3.2: the atom
/// set's size is `K-bar <= 3R`).
pub const SYN_DATASETS: [(&str, usize); 3] = [("Syn0", 3), ("Syn1", 9), ("Syn2", 15)];

/// Probability of a one in the Boolean factors, Sec. 6.1: "a binary vector ... from a
/// binomial distribution with probability 0.5".
pub const SYN_P_ONE: f64 = 0.5;

/// Standard deviation of the denoising noise, Sec. 6.1: "We synthesize the noise
/// E ~ N(0, 1)". Sec. 6.2 applies "the same setting" to the real tensor.
pub const NOISE_SD: f64 = 1.0;

/// Fraction of entries removed for completion, Sec. 6.1: "randomly remove 10 percent of
/// the entries from the ground truth tensor". Sec. 6.2 applies "the same setting".
pub const MISSING_FRACTION: f64 = 0.1;

/// Atom count after which LFM's and LFMmix's Hamming error stops decreasing on the
/// synthetic data, Sec. 6.1 ("the recovery error stops decreasing after 10 atoms").
pub const LFM_STALL_ATOMS: usize = 10;

/// Approximation ratio of the SDP-based MAXCUT step used in Theorem 1, Sec. 5.1
/// (Remark): "the mu = 3/5 constant-approximation guarantee".
pub const MU: f64 = 0.6;

/// The ECoG recordings of Sec. 6.2 (Yanagawa, Chao, Hasegawa, Fujii, PLoS ONE 8(11),
/// 2013): number of electrodes.
pub const ECOG_ELECTRODES: usize = 128;
/// Sec. 6.2: the recordings are split "into 100 bins to simulate trials".
pub const ECOG_BINS: usize = 100;
/// Sec. 6.2: "Each bin contains measurements over 3000 milliseconds."
pub const ECOG_BIN_MS: f64 = 3000.0;
/// The two atoms whose spatial Boolean factors Fig. 4 shows (its caption: "atom 2 (top
/// row) and atom 4 (bottom row)").
pub const FIG4_ATOMS: [usize; 2] = [2, 4];

/// Fig. 1 caption: what the three rows plot.
pub const FIG1_CAPTION: Quote = Quote {
    place: "Fig. 1 caption",
    text: "Performance comparison w.r.t number of atoms on synthetic datasets. Top: \
           denoising RMSE between the ground truth and the estimated tensor. Middle: \
           Hamming-error of the recovered Boolean factors. Bottom: completion RMSE between \
           the ground truth and the estimated tensor.",
};

/// Sec. 6.1: how the synthetic tensors are drawn.
pub const SYN_DATA: Quote = Quote {
    place: "Sec. 6.1",
    text: "We randomly generate tensors according to model (1) of size (150 x 150 x 150). \
           For every atom r in [K-bar] and mode n, we generate a binary vector z_n^r ... from \
           a binomial distribution with probability 0.5, and vectors u_n^r, w_n^r from \
           Gaussian. We vary the number of atoms: K-bar in {3, 9, 15}, and produce three \
           synthetic datasets Syn0, Syn1, and Syn2.",
};

/// Sec. 6.1: the denoising task.
pub const DENOISE_SETTING: Quote = Quote {
    place: "Sec. 6.1",
    text: "We synthesize the noise E ~ N(0, 1) and evaluate the root-mean-square error \
           (RMSE) between the ground truth tensor W and the estimate W^.",
};

/// Sec. 6.1, about Fig. 1 top row (denoising).
pub const DENOISE_BMP_BEST: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 top row",
    text: "BMP significantly outperforms the baselines.",
};

/// Sec. 6.1, about Fig. 1 top row (denoising).
pub const SUBLINEAR: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 top row",
    text: "We also observe sublinear convergence rate as predicted by Theorem 1.",
};

/// Sec. 6.1, about Fig. 1 middle row (Hamming error).
pub const LFM_STALLS: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 middle row",
    text: "We can see that matrix-based methods LFM and LFMmix get stuck easily, and the \
           recovery error stops decreasing after 10 atoms.",
};

/// Sec. 6.1, about Fig. 1 middle row (Hamming error).
pub const BMP_RECOVERS_MOST: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 middle row",
    text: "In contrast, BMP can successfully recover most of the Boolean factors.",
};

/// Sec. 6.1, about Fig. 1 middle row (Hamming error).
pub const NOT_ALL_RECOVERED: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 middle row",
    text: "Under noise, it is generally not possible to recover all the Boolean factors.",
};

/// Sec. 6.1: the completion task and its metric.
pub const COMPLETION_SETTING: Quote = Quote {
    place: "Sec. 6.1",
    text: "We consider noiseless completion and randomly remove 10 percent of the entries \
           from the ground truth tensor X. Figure 1 bottom row shows the RMSE between the \
           ground truth X and the completed tensor W^ from decomposition.",
};

/// Sec. 6.1, about Fig. 1 bottom row (completion).
pub const COMPLETION_BMP_BEST: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 bottom row",
    text: "We can see that BMP achieves the lowest completion error with only a few numbers \
           of atoms.",
};

/// Sec. 6.1, about Fig. 1 bottom row (completion).
pub const SUSTAIN_POOR: Quote = Quote {
    place: "Sec. 6.1, Fig. 1 bottom row",
    text: "On the other hand, SUSTain performs poorly as the rounding step slows down the \
           convergence.",
};

/// Sec. 6: the baselines, as the paper describes them.
pub const BASELINES: [Quote; 5] = [
    Quote {
        place: "Sec. 6",
        text: "LFM [14]: matrix factorization with Boolean constraints, solved for every mode \
               separately. Results are reported from the best mode.",
    },
    Quote {
        place: "Sec. 6",
        text: "LFMmix: a mixture of latent feature matrix factors from LFM.",
    },
    Quote {
        place: "Sec. 6",
        text: "Tucker: Tucker tensor decomposition solved with Higher Order SVD [34].",
    },
    Quote {
        place: "Sec. 6",
        text: "CP: canonical polyadic tensor decomposition solved with ALS.",
    },
    Quote {
        place: "Sec. 6",
        text: "SUSTain [5]: hierarchical ALS tensor decomposition with Boolean projection.",
    },
];

/// Sec. 6.2: the real data of Figs. 2 and 4 (which we replace, see `docs/papers/bmp.md`).
pub const ECOG_DATA: Quote = Quote {
    place: "Sec. 6.2",
    text: "We study the neural mechanism underlying consciousness using large-scale neural \
           activity data recorded via ECoG at high temporal (>1 KHz) and spatial (3 mm) \
           resolution [35] with 128 electrodes. ... We form the data into a tensor of \
           (space x time x trial). ... We split the spatiotemporal ECoG recordings into 100 \
           bins to simulate trials. Each bin contains measurements over 3000 milliseconds.",
};

/// Sec. 6.2: the setting of Fig. 2.
pub const FIG2_SETTING: Quote = Quote {
    place: "Sec. 6.2",
    text: "We conduct tensor denoising and completion experiments on the ECoG recordings \
           following the same setting as the synthetic experiments.",
};

/// Fig. 2 caption.
pub const FIG2_CAPTION: Quote = Quote {
    place: "Fig. 2 caption",
    text: "Performance comparison w.r.t number of atoms on real-world ECoG datasets for \
           different methods. Top: denoising RMSE. Bottom: completion RMSE.",
};

/// Sec. 6.2, about Fig. 2.
pub const FIG2_BMP_BEST: Quote = Quote {
    place: "Sec. 6.2, Fig. 2",
    text: "BMP demonstrates clear advantages in these tasks, especially with only a few \
           number atoms.",
};

/// Sec. 6.2, about Fig. 4.
pub const FIG4_ANATOMY: Quote = Quote {
    place: "Sec. 6.2, Fig. 4",
    text: "We visualize the learned Boolean factors (yellow for 1, blue for 0) on the \
           spatial mode in Figure 4. Interestingly, the learned factors have direct \
           correspondence with brain anatomy.",
};

/// Sec. 6.2, about Fig. 4, atom 2.
pub const FIG4_ATOM2: Quote = Quote {
    place: "Sec. 6.2, Fig. 4",
    text: "For example, In atom 2, Lower visual cortex (LV) is active in rest and \
           deactivated under anesthetic, demonstrating visual consciousness.",
};

/// Sec. 6.2, about Fig. 4, atom 4.
pub const FIG4_ATOM4: Quote = Quote {
    place: "Sec. 6.2, Fig. 4",
    text: "In atom 4, Temporal cortex (TC) and Higher visual cortex (HV) is deactivated \
           while the monkey is resting. Low-anesthesia and recover share similar patterns. \
           Deep anesthesia deactivates Lateral Prefrontal cortex which is critically \
           involved in broad aspects of executive behavioral control.",
};

/// Fig. 4 caption.
pub const FIG4_CAPTION: Quote = Quote {
    place: "Fig. 4 caption",
    text: "Boolean factors of two atoms: atom 2 (top row) and atom 4 (bottom row) learn \
           from BCI datasets corresponding to different monkey brain consciousness \
           conditions. Factors are color coded (Yellow for 1 and blue for 0), indicating \
           the presence or absence of certain latent features.",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_match_the_quoted_text() {
        // Each number above is the one its quote prints.
        assert!(
            SYN_DATA
                .text
                .contains(&format!("{SYN_SIDE} x {SYN_SIDE} x {SYN_SIDE}"))
        );
        let ks: Vec<String> = SYN_DATASETS.iter().map(|(_, k)| k.to_string()).collect();
        assert!(SYN_DATA.text.contains(&format!("{{{}}}", ks.join(", "))));
        for (name, _) in SYN_DATASETS {
            assert!(SYN_DATA.text.contains(name));
        }
        assert!(SYN_DATA.text.contains(&format!("probability {SYN_P_ONE}")));
        assert!(
            DENOISE_SETTING
                .text
                .contains(&format!("N(0, {})", NOISE_SD as u32))
        );
        assert!(COMPLETION_SETTING.text.contains(&format!(
            "remove {} percent",
            (MISSING_FRACTION * 100.0).round() as u32
        )));
        assert!(
            LFM_STALLS
                .text
                .contains(&format!("after {LFM_STALL_ATOMS} atoms"))
        );
        assert!(
            ECOG_DATA
                .text
                .contains(&format!("{ECOG_ELECTRODES} electrodes"))
        );
        assert!(ECOG_DATA.text.contains(&format!("{ECOG_BINS} bins")));
        assert!(
            ECOG_DATA
                .text
                .contains(&format!("{} milliseconds", ECOG_BIN_MS as u32))
        );
        for a in FIG4_ATOMS {
            assert!(FIG4_CAPTION.text.contains(&format!("atom {a}")));
        }
        assert!((MU - 3.0 / 5.0).abs() < 1e-15);
    }
}
