//! Writes data sets and the Rust crates' results on them as JSON (to stdout or the file
//! given as the first argument), for the Python suite's "same data, same seed, same
//! numbers" tests (`tests/test_rust_equality.py`).
//!
//! ```text
//! cargo run -p bilinear-python --example rust_reference -- target/python-reference.json
//! ```

use bl_core::data::MatrixDataset;
use bl_core::{Fit, Fitted, Predict};
use boolean_tensor::{Atom, Bmp, CpAls, Decomposition, SyntheticParams, Tensor, Tucker};
use faer::MatRef;
use maxcut_sdp::{MixingParams, Problem};
use sblr::{OneVsAll, Sblr};
use serde_json::{Value, json};

type Error = Box<dyn std::error::Error>;

fn mat(m: MatRef<'_, f64>) -> Value {
    json!(
        (0..m.nrows())
            .map(|i| (0..m.ncols()).map(|j| m[(i, j)]).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    )
}

/// Samples as nested `(n, s, t)` lists, labels as class indices.
fn samples(data: &MatrixDataset) -> Value {
    let x: Vec<Value> = (0..data.n_samples()).map(|i| mat(data.sample(i))).collect();
    json!({ "x": x, "y": data.labels() })
}

/// SBLR with the crate's default parameters (seed 0): binary, one-vs-all, multinomial.
fn sblr_cases() -> Result<Value, Error> {
    let params = Sblr::params();
    let binary = sblr::synthetic::planted(60, 8, 6, &[0, 1], &[0, 2], 3)?;
    let fitted = params.fit(&binary)?;
    let three = sblr::synthetic::three_classes(45, 5, 4, 1)?;
    let ova = OneVsAll::new(params.clone()).fit(&three)?;
    let multi = params.clone().multinomial().fit(&three)?;
    Ok(json!({
        "params": {
            "rank": 1, "mu1": 0.01, "mu2": 0.5, "nu1": 0.01, "nu2": 0.5, "solver": "alg2",
            "tol": 1e-3, "max_iter": 500, "init": "mean_svd", "random_state": 0,
        },
        "binary": {
            "data": samples(&binary),
            "u": mat(fitted.u()),
            "v": mat(fitted.v()),
            "intercept": fitted.intercept(),
            "decision": fitted.decision_function(&binary)?,
            "n_iter": fitted.report().iterations,
        },
        "three": {
            "data": samples(&three),
            "ovr_decision": ova.decision_function(&three)?,
            "ovr_n_iter": ova.report().iterations,
            "multinomial_decision": multi.decision_function(&three)?,
            "multinomial_proba": multi.predict_proba(&three)?,
            "multinomial_n_iter": multi.report().iterations,
        },
    }))
}

/// A tensor as nested `(d0, d1, d2)` lists, `null` at missing entries.
fn tensor(t: &Tensor) -> Value {
    let [d0, d1, d2] = t.shape();
    json!(
        (0..d0)
            .map(|i| (0..d1)
                .map(|j| (0..d2)
                    .map(|k| t.is_observed(t.index(i, j, k)).then(|| t.get(i, j, k)))
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>())
            .collect::<Vec<_>>()
    )
}

/// BMP, CP-ALS and Tucker with the crate's defaults except the sizes, on a synthetic
/// tensor with 20% missing entries.
fn tensor_cases() -> Result<Value, Error> {
    let data = SyntheticParams::default()
        .shape([9, 8, 7])
        .n_atoms(3)
        .missing_fraction(0.2)
        .noise_std(0.01)
        .seed(3)
        .generate()?;
    let x = data.observed();
    let bmp = Bmp::params().max_iter(3).fit(x)?;
    let cp = CpAls::params().rank(3).fit(x)?;
    let tucker = Tucker::params().ranks([3, 3, 3]).fit(x)?;
    Ok(json!({
        "x": tensor(x),
        "bmp": {
            "params": { "n_atoms": 3 },
            "modes": bmp.atoms().iter().map(Atom::mode).collect::<Vec<_>>(),
            "z": bmp.atoms().iter().map(Atom::z).collect::<Vec<_>>(),
            "coefficients": bmp.coefficients(),
            "rmse_path": bmp.rmse_path(),
            "reconstruction": tensor(&bmp.reconstruct()?),
        },
        "cp": {
            "params": { "rank": 3 },
            "factors": cp.factors().iter().map(|f| mat(*f)).collect::<Vec<_>>(),
            "loss": cp.loss(),
            "reconstruction": tensor(&cp.reconstruct()?),
        },
        "tucker": {
            "params": { "ranks": [3, 3, 3] },
            "core": tucker.core(),
            "loss": tucker.loss(),
            "reconstruction": tensor(&tucker.reconstruct()?),
        },
    }))
}

/// Max-cut of a seeded random weighted graph with the max-cut preset (the defaults and
/// the certificate on).
fn maxcut_cases() -> Result<Value, Error> {
    let n = 30;
    let edges = maxcut_sdp::synthetic::gnp_weighted(n, 0.3, 4)?;
    let solution = MixingParams::max_cut().fit(&Problem::maxcut(n, &edges)?)?;
    Ok(json!({
        "n": n,
        "edges": edges.iter().map(|&(i, j, w)| json!([i, j, w])).collect::<Vec<_>>(),
        "y": solution.y(),
        "value": solution.value(),
        "sdp_value": solution.sdp_value(),
        "certified_bound": solution.certified_bound(),
    }))
}

/// GOP on one small fixed `3 x 4` data matrix (`K = 2`, `P = 1`, `eps = 0.01`, seed 7, one
/// thread).
fn gop_cases() -> Result<Value, Error> {
    let y = faer::Mat::from_fn(3, 4, |i, j| [0.1, -0.4, 0.3, 0.0][(i + 2 * j) % 4]);
    let fit = gop_mmf::GopParams::default()
        .k(2)
        .budget(1.0)
        .tol(0.01)
        .seed(7)
        .threads(Some(1))
        .fit(&y.as_ref())?;
    let c = fit.certificate();
    Ok(json!({
        "y": mat(y.as_ref()),
        "x": mat(fit.x()),
        "theta": mat(fit.theta()),
        "lower_bound": c.lower_bound,
        "upper_bound": c.upper_bound,
        "certified": c.certified,
        "n_iter": fit.report().iterations,
    }))
}

/// bol (the crate's defaults but 10 epochs) on a three-sentence segmentation corpus.
fn tagger_cases() -> Result<Value, Error> {
    let text = "我/s 爱/s 北/b 京/e\n北/b 京/e 很/s 大/s\n我/s 在/s 北/b 京/e\n";
    let corpus = online_bilinear::parse_char_tagged(text, "<reference>")?;
    let model = online_bilinear::TaggerParams::bol()
        .max_iter(10)
        .fit(&corpus)?;
    let sentences: Vec<Vec<&str>> = corpus
        .sentences()
        .iter()
        .map(|s| s.columns()[0].iter().map(String::as_str).collect())
        .collect();
    Ok(json!({
        "x": sentences,
        "y": corpus.sentences().iter().map(|s| s.tags()).collect::<Vec<_>>(),
        "alpha": model.alpha(),
        "beta": model.beta(),
        "predicted": Predict::<_, Vec<Vec<String>>>::predict(&model, &corpus)?,
    }))
}

fn main() -> Result<(), Error> {
    let out = json!({
        "sblr": sblr_cases()?,
        "tensor": tensor_cases()?,
        "maxcut": maxcut_cases()?,
        "gop": gop_cases()?,
        "tagger": tagger_cases()?,
    })
    .to_string();
    match std::env::args().nth(1) {
        Some(path) => std::fs::write(path, out)?,
        None => println!("{out}"),
    }
    Ok(())
}
