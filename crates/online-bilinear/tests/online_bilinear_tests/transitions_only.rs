//! sp with `transitions_only`: first-order weights for the bias feature alone, i.e. a
//! linear-chain CRF's feature set (a weight per feature and tag, a weight per tag pair),
//! checked against a plain dense perceptron on that feature set written here and run
//! through the same fit as a custom learner.

use std::sync::Arc;

use crate::common;

use online_bilinear::learner::{
    Learner, LearnerShape, OnlineLearner, OnlineWeights, Snapshot, Training,
};
use online_bilinear::viterbi::score_index;
use online_bilinear::{
    EncodedSentence, Extension, Fit as _, FittedTagger, LearnerSettings, OblError, Setting,
    TaggerParams, Template, Templates,
};

/// State weights `state[k L + a]` for every feature and transition weights
/// `trans[b L + a]` (`b = L` the start state), dense.
struct CrfFeaturePerceptron {
    l: usize,
    bias: usize,
    state: Vec<f64>,
    trans: Vec<f64>,
}

impl OnlineLearner for CrfFeaturePerceptron {
    fn scores(&self, s: &EncodedSentence, out: &mut Vec<f64>) -> online_bilinear::Result<()> {
        let (l, p) = (self.l, self.l + 1);
        out.clear();
        out.resize(s.len() * p * l, 0.0);
        for i in 0..s.len() {
            let previous = if i == 0 { l..p } else { 0..l };
            for a in 0..l {
                let state: f64 = s
                    .at(i)
                    .iter()
                    .map(|&k| self.state[k as usize * l + a])
                    .sum();
                for b in previous.clone() {
                    out[score_index(i, b, a, l)] = state + self.trans[b * l + a];
                }
            }
        }
        Ok(())
    }

    fn update(
        &mut self,
        s: &EncodedSentence,
        gold: &[usize],
        pred: &[usize],
    ) -> online_bilinear::Result<()> {
        let l = self.l;
        for i in 0..s.len() {
            let (bg, bp) = if i == 0 {
                (l, l)
            } else {
                (gold[i - 1], pred[i - 1])
            };
            for &k in s.at(i) {
                self.state[k as usize * l + gold[i]] += 1.0;
                self.state[k as usize * l + pred[i]] -= 1.0;
            }
            self.trans[bg * l + gold[i]] += 1.0;
            self.trans[bp * l + pred[i]] -= 1.0;
        }
        Ok(())
    }

    fn snapshot(&self) -> Snapshot {
        // The transitions are the bias feature's first-order weights `w[k L P + a P + b]`.
        let (l, p) = (self.l, self.l + 1);
        let n_features = self.state.len() / l;
        let mut w = vec![0.0; n_features * l * p];
        for a in 0..l {
            for b in 0..p {
                w[self.bias * l * p + a * p + b] = self.trans[b * l + a];
            }
        }
        Snapshot {
            weights: OnlineWeights::Linear { w },
            zero_order: Some(self.state.clone()),
        }
    }
}

#[derive(Debug)]
struct Factory;

impl Extension for Factory {
    fn name(&self) -> &str {
        "dense perceptron on a linear-chain CRF's features"
    }
}

impl Learner for Factory {
    fn reads(&self) -> &[Setting] {
        &[]
    }

    fn start(&self, shape: LearnerShape, _: &LearnerSettings) -> online_bilinear::Result<Training> {
        let l = shape.n_tags;
        Ok(Training::Online(Box::new(CrfFeaturePerceptron {
            l,
            bias: shape.bias_feature.ok_or(OblError::Learner {
                check: "bias feature",
                message: "the templates have no bias".into(),
            })?,
            state: vec![0.0; shape.n_features * l],
            trans: vec![0.0; (l + 1) * l],
        })))
    }
}

fn templates_with_bias() -> Templates {
    let mut list = Templates::segmentation().as_slice().to_vec();
    list.push(Template::Bias);
    Templates::new(list).unwrap()
}

/// Without averaging every weight is an integer, so the two learners' scores are equal
/// exactly, whatever the order of the sums: the same mistakes, the same updates, the same
/// predictions.
#[test]
fn sp_with_transitions_only_is_the_perceptron_on_crf_features() {
    let train = online_bilinear::synthetic::segmentation(60, 40, 20, 3).unwrap();
    let test = online_bilinear::synthetic::segmentation(20, 40, 20, 4).unwrap();
    let sp = TaggerParams::sp()
        .templates(templates_with_bias())
        .zero_order(true)
        .transitions_only(true)
        .max_iter(4)
        .fit(&train)
        .unwrap();
    let dense = TaggerParams::new(Arc::new(Factory))
        .templates(templates_with_bias())
        .max_iter(4)
        .fit(&train)
        .unwrap();
    common::assert_same_tags(&sp, &dense, &test);
    assert_eq!(
        sp.zero_order_weights().unwrap(),
        dense.zero_order_weights().unwrap()
    );
    // Only the bias feature keeps first-order weights.
    let w = sp.sparse_weights().unwrap();
    let nonempty: Vec<usize> = (0..w.n_rows())
        .filter(|&k| !w.row(k).0.is_empty())
        .collect();
    assert_eq!(nonempty.len(), 1, "{nonempty:?}");
    // The transition weights too: sp's row of the bias feature, cell `b L + a`, is the
    // dense perceptron's `trans[b L + a]` (saved at `w[bias, a, b]`).
    let l = sp.tags().len();
    let json: serde_json::Value = serde_json::from_str(&dense.to_json().unwrap()).unwrap();
    let dense_w = json["weights"]["Linear"]["w"].as_array().unwrap();
    let k = nonempty[0];
    let mut nonzero = 0;
    for b in 0..=l {
        for a in 0..l {
            let x = dense_w[(k * l + a) * (l + 1) + b].as_f64().unwrap();
            assert_eq!(w.get(k, (b * l + a) as u32), x, "transition ({b}, {a})");
            nonzero += usize::from(x != 0.0);
        }
    }
    assert!(nonzero > 0);
    // The full first-order model is a different one.
    let full = TaggerParams::sp()
        .templates(templates_with_bias())
        .zero_order(true)
        .max_iter(4)
        .fit(&train)
        .unwrap();
    let full_rows = full.sparse_weights().unwrap();
    assert!(
        (0..full_rows.n_rows())
            .filter(|&k| !full_rows.row(k).0.is_empty())
            .count()
            > 1
    );
}

fn fit_error(params: TaggerParams) -> OblError {
    let train = online_bilinear::synthetic::segmentation(10, 20, 10, 1).unwrap();
    match params.fit(&train) {
        Ok(_) => panic!("the fit should fail"),
        Err(err) => err,
    }
}

fn assert_names_transitions(err: &OblError) {
    assert!(err.to_string().contains("transitions_only"), "{err}");
}

#[test]
fn transitions_only_is_refused_where_it_cannot_apply() {
    // Without 0-order features, or without a bias template.
    assert_names_transitions(&fit_error(
        TaggerParams::sp()
            .templates(templates_with_bias())
            .transitions_only(true),
    ));
    assert_names_transitions(&fit_error(
        TaggerParams::sp().zero_order(true).transitions_only(true),
    ));
    // On another online learner (which reads `zero_order` but not this).
    for learner in [TaggerParams::bol(), TaggerParams::bcd()] {
        let err = fit_error(
            learner
                .templates(templates_with_bias())
                .zero_order(true)
                .transitions_only(true),
        );
        assert_names_transitions(&err);
        assert!(err.to_string().contains("only sp"), "{err}");
    }
}

/// A saved model written before the option existed has no `transitions_only` field: it
/// loads as `false`.
#[test]
fn saved_parameters_without_the_field_load_as_false() {
    let train = online_bilinear::synthetic::segmentation(10, 20, 10, 1).unwrap();
    let model = TaggerParams::sp().max_iter(1).fit(&train).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
    let params = value
        .pointer_mut("/params")
        .and_then(serde_json::Value::as_object_mut)
        .expect("saved parameters");
    assert!(params.remove("transitions_only").is_some());
    let back = FittedTagger::from_json(&value.to_string()).unwrap();
    assert!(!back.settings().transitions_only);
}
