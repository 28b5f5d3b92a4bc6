//! The serde model loaders: the first byte picks the model type, the rest is its JSON.
//! A model that loads must predict on a small data set of the shape it was fitted on
//! (2 x 3 samples, or a 3-token sentence) and on one of another shape without panicking:
//! either predictions or a typed error. A chain-crf `Model` that loads must tag, give
//! marginals and score a labelling of a 2-item sequence (one known attribute, one not)
//! and of an empty one.
#![no_main]

use std::sync::OnceLock;

use bl_core::data::MatrixDataset;
use libfuzzer_sys::fuzz_target;
use online_bilinear::{FittedTagger, Predict as _, Sentence};
use sblr::{FittedLogisticRegression, FittedMultinomialSblr, FittedSblr};

/// Two data sets of 2 x 3 samples (two and three classes) and one of 3 x 2 samples.
fn data() -> &'static [MatrixDataset; 3] {
    static DATA: OnceLock<[MatrixDataset; 3]> = OnceLock::new();
    DATA.get_or_init(|| {
        let values: Vec<f64> = (0..18).map(|i| f64::from(i % 7) - 3.0).collect();
        [
            MatrixDataset::from_label_names(2, 3, values.clone(), &["a", "b", "a"]).unwrap(),
            MatrixDataset::from_label_names(2, 3, values.clone(), &["a", "b", "c"]).unwrap(),
            MatrixDataset::from_label_names(3, 2, values, &["a", "b", "a"]).unwrap(),
        ]
    })
}

fuzz_target!(|input: &[u8]| {
    let Some((&which, json)) = input.split_first() else {
        return;
    };
    let data = data();
    match which % 5 {
        0 => {
            if let Ok(model) = serde_json::from_slice::<FittedSblr>(json) {
                for ds in data {
                    let _ = model.predict(ds);
                    let _ = model.predict_proba(ds);
                }
            }
        }
        1 => {
            if let Ok(model) = serde_json::from_slice::<FittedMultinomialSblr>(json) {
                for ds in data {
                    let _ = model.predict(ds);
                    let _ = model.predict_proba(ds);
                }
            }
        }
        2 => {
            if let Ok(model) = serde_json::from_slice::<FittedLogisticRegression>(json) {
                for ds in data {
                    let _ = model.predict(ds);
                    let _ = model.predict_proba(ds);
                }
            }
        }
        4 => {
            if let Ok(model) = chain_crf::Model::from_bytes(json) {
                let items: [&[(&str, f64)]; 2] = [&[("a", 1.0)], &[("unseen", 2.0)]];
                for n in [2, 0] {
                    if let Ok(x) = model.encode(items[..n].iter().map(|i| i.iter().copied())) {
                        let (path, _) = model.tag(x.items());
                        let _ = model.tag_names(x.items());
                        let _ = model.marginals(x.items());
                        let _ = model.log_probability(x.items(), &path);
                        let _ = model.log_probability(x.items(), &[0, u32::MAX]);
                    }
                }
            }
        }
        _ => {
            let Ok(text) = std::str::from_utf8(json) else {
                return;
            };
            if let Ok(model) = FittedTagger::from_json(text) {
                let _: Result<Vec<String>, _> =
                    model.predict(&Sentence::untagged(&["a", "b", "c"]));
                let _: Result<Vec<String>, _> = model.predict(&Sentence::untagged::<&str>(&[]));
            }
        }
    }
});
