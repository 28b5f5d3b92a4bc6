//! Sizes, counts, ranks and thread counts from callers, and saved taggers with large tag
//! sets: the first byte picks an entry point, the next bytes its sizes. Each size byte is
//! either small (`0..64`, bit 7 clear) or huge (bit 7 set: `2^33 ..= 2^63`, or
//! `usize::MAX` for `0xff`), so every call either does a little work or must refuse the
//! request with a typed error before allocating; an abort, a panic, a hang or an
//! allocation over libFuzzer's `-malloc_limit_mb` is a failure.
#![no_main]

use std::sync::OnceLock;

use boolean_tensor::{Atom, CpAls, Decomposition as _, Fit as _, SyntheticParams, atoms_to_tensor};
use libfuzzer_sys::fuzz_target;
use online_bilinear::{FittedTagger, Predict as _, Sentence, TaggerParams};

/// The size a byte stands for (see the module docs).
fn size(b: u8) -> usize {
    match b {
        0xff => usize::MAX,
        b if b & 0x80 != 0 => 1usize << (33 + usize::from(b & 0x7f) % 31),
        b => usize::from(b & 0x3f),
    }
}

/// A small bol tagger (one sentence, one epoch) as JSON and its feature count: the base
/// whose tag set and weights are resized to the fuzzer's tag count.
fn base_tagger() -> &'static (serde_json::Value, usize) {
    static BASE: OnceLock<(serde_json::Value, usize)> = OnceLock::new();
    BASE.get_or_init(|| {
        let train = online_bilinear::Corpus::new(vec![
            Sentence::from_tokens(&["a", "b"], &["x", "y"]).unwrap(),
        ]);
        let model = TaggerParams::bol().max_iter(1).fit(&train).unwrap();
        let k = model.n_features();
        (serde_json::from_str(&model.to_json().unwrap()).unwrap(), k)
    })
}

/// The base tagger with `l` tags and zero weights.
fn tagger_with_tags(l: usize) -> String {
    let (base, k) = base_tagger();
    let mut v = base.clone();
    v["tags"] = serde_json::json!((0..l).map(|i| format!("t{i}")).collect::<Vec<_>>());
    v["weights"]["Bilinear"]["alpha"] = serde_json::json!(vec![0.0; k * l]);
    v["weights"]["Bilinear"]["beta"] = serde_json::json!(vec![0.0; k * (l + 1)]);
    v.to_string()
}

fn untagged(n: usize) -> Sentence {
    let tokens: Vec<&str> = ["a", "b", "c"].iter().cycle().take(n).copied().collect();
    Sentence::untagged(&tokens)
}

fuzz_target!(|input: &[u8]| {
    let Some((&which, rest)) = input.split_first() else {
        return;
    };
    let mut bytes = [0u8; 6];
    for (b, r) in bytes.iter_mut().zip(rest) {
        *b = *r;
    }
    let s: Vec<usize> = bytes.iter().map(|&b| size(b)).collect();
    match which % 10 {
        0 => {
            // atoms_to_tensor: a small shape, or 4096^3 (2^36 entries, to be refused), or
            // 4096^2 x 0 (empty).
            let shape = if bytes[..3].iter().any(|b| b & 0x80 != 0) {
                [4096, 4096, if bytes[4] & 1 == 0 { 4096 } else { 0 }]
            } else {
                [
                    usize::from(bytes[0] % 8),
                    usize::from(bytes[1] % 8),
                    usize::from(bytes[2] % 8),
                ]
            };
            let mode = usize::from(bytes[3] % 3);
            let (a, b) = [(1, 2), (0, 2), (0, 1)][mode];
            if let Ok(atom) = Atom::new(
                mode,
                vec![1.0; shape[mode]],
                vec![0.5; shape[a]],
                vec![-0.25; shape[b]],
            ) {
                let _ = atoms_to_tensor(std::slice::from_ref(&atom), &[1.0]);
                let _ = atom.to_tensor(2.0);
            }
        }
        1 => {
            let params = SyntheticParams::default()
                .shape([s[0], s[1], s[2]])
                .n_atoms(s[3]);
            if params.check().is_ok() && s[..4].iter().all(|&x| x < 64) {
                let _ = params.generate();
            }
        }
        2 => {
            // CP-ALS on a tiny tensor with a fuzzer rank.
            let shape = [1 + s[0] % 4, 1 + s[1] % 4, 1 + s[2] % 4];
            if let Ok(x) = boolean_tensor::Tensor::from_fn(shape, |i, j, k| (i + j + k) as f64)
                && let Ok(fit) = CpAls::params().rank(s[3]).max_iter(3).n_starts(1).fit(&x)
            {
                let _ = fit.reconstruct();
            }
        }
        3 => {
            let _ = maxcut_sdp::Problem::maxcut(s[0], &[(0, 1, 1.0)]);
            let _ = maxcut_sdp::Problem::sparse_from_edges(s[1], &[]);
            let _ = maxcut_sdp::Problem::sparse_from_csr(s[2], &[0], &[], &[]);
        }
        4 => {
            // A small problem fitted with a fuzzer rank and rounding trials.
            if let Ok(problem) = maxcut_sdp::Problem::maxcut(4, &[(0, 1, 1.0), (1, 2, 1.0)]) {
                let params = maxcut_sdp::MixingParams::default()
                    .rank(s[0])
                    .trials(s[1].max(1))
                    .max_iter(5);
                let _ = maxcut_sdp::Fit::fit(&params, &problem);
                let _ = maxcut_sdp::Mixing::new(&problem, &params);
            }
        }
        5 => {
            let _ = sblr::synthetic::two_class(s[0], s[1], s[2], 1.0, 0);
        }
        6 => {
            let _ = online_bilinear::synthetic::segmentation(s[0], s[1], 1 + s[2], 0);
            let _ = online_bilinear::synthetic::cyclic(s[3], s[4]);
        }
        7 => {
            // Viterbi with a table of at most 64 values and fuzzer sizes.
            let scores = vec![0.5; usize::from(bytes[5] % 64)];
            let _ = online_bilinear::viterbi::viterbi(&scores, s[0], s[1]);
        }
        8 => {
            let _ = gop_mmf::ParamGuard::check(&gop_mmf::GopParams::default().threads(Some(s[0])));
            let _ = sblr::ParamGuard::check(&sblr::SblrParams::default().threads(Some(s[1])));
        }
        _ => {
            // Saved taggers with large tag sets: few tags and short sentences, about 1,000
            // tags and sentences whose table is above the bound, or more tags than the bound.
            let wide = u16::from_le_bytes([bytes[1], bytes[2]]);
            let (tags, tokens) = match bytes[0] % 3 {
                0 => (1 + usize::from(bytes[1]), usize::from(bytes[2] % 64)),
                1 => (1000 + usize::from(bytes[1]), 135 + usize::from(bytes[2])),
                _ => (
                    online_bilinear::viterbi::MAX_TAGS + 1 + usize::from(wide % 16_384),
                    1,
                ),
            };
            if let Ok(model) = FittedTagger::from_json(&tagger_with_tags(tags)) {
                let _: Result<Vec<String>, _> = model.predict(&untagged(tokens));
            }
        }
    }
});
