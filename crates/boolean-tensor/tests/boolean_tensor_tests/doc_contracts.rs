//! Contracts the rustdoc states that once failed: a QP solver's answer of the wrong
//! length or with entries other than 0 and 1 is an error of the fit (it panicked), and
//! `Tensor::get` panics on any index past its mode's length (it read another entry when
//! the flat index was still in range).

use std::sync::Arc;

use bl_core::{BlError, Extension, Fit};
use boolean_tensor::qp::QpSolver;
use boolean_tensor::{Bmp, Lfm, SyntheticData, SyntheticParams, Tensor, TensorError, search_atom};
use faer::MatRef;

/// Answers a fixed vector, whatever `G`.
#[derive(Debug)]
struct Fixed(Vec<f64>);

impl Extension for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
}

impl QpSolver for Fixed {
    fn maximize(&self, _g: MatRef<'_, f64>, _seed: u64) -> boolean_tensor::Result<Vec<f64>> {
        Ok(self.0.clone())
    }
}

fn is_invalid_solver(result: boolean_tensor::Result<impl std::fmt::Debug>) -> bool {
    matches!(
        result,
        Err(TensorError::Core(BlError::InvalidParameter {
            name: "solver",
            ..
        }))
    )
}

/// A noiseless one-atom tensor of shape `[8, 7, 6]`.
fn one_atom() -> SyntheticData {
    SyntheticParams::default()
        .shape([8, 7, 6])
        .n_atoms(1)
        .seed(4)
        .generate()
        .unwrap()
}

#[test]
fn a_solver_answer_that_breaks_the_contract_is_an_error_not_a_panic() {
    let data = one_atom();
    let x = data.observed();
    // Empty, too short, too long, and of the right length (8, 7 or 6) but not Boolean.
    let answers = [
        vec![],
        vec![1.0],
        vec![1.0; 9],
        vec![0.5; 8],
        vec![0.5; 7],
        vec![0.5; 6],
    ];
    for answer in answers {
        let solver: Arc<dyn QpSolver> = Arc::new(Fixed(answer.clone()));
        let bmp = Bmp::params()
            .max_iter(1)
            .solver(Arc::clone(&solver))
            .fit(x)
            .map(|_| ());
        assert!(is_invalid_solver(bmp), "BMP, {answer:?}");
        for mode in [0, 1, 2] {
            let lfm = Lfm::params()
                .max_iter(1)
                .mode(Some(mode))
                .solver(Arc::clone(&solver))
                .fit(x);
            if answer.len() == x.shape()[mode] && answer.iter().all(|&v| v == 0.0 || v == 1.0) {
                continue;
            }
            assert!(
                is_invalid_solver(lfm.map(|_| ())),
                "LFM mode {mode}, {answer:?}"
            );
        }
        let mix = Lfm::params()
            .max_iter(1)
            .solver(Arc::clone(&solver))
            .mix()
            .fit(x);
        assert!(is_invalid_solver(mix.map(|_| ())), "LFMmix, {answer:?}");
        let search = search_atom(x, 0, solver.as_ref(), 2, 0);
        assert!(
            is_invalid_solver(search.map(|_| ())),
            "search_atom, {answer:?}"
        );
    }
}

#[test]
fn a_valid_fixed_answer_still_fits() {
    let data = one_atom();
    let mut z = vec![0.0; 8];
    z[0] = 1.0;
    let fitted = Bmp::params()
        .max_iter(1)
        .modes(&[0])
        .solver(Arc::new(Fixed(z)))
        .fit(data.observed())
        .unwrap();
    assert_eq!(fitted.n_atoms(), 1);
}

#[test]
fn get_reads_every_entry_in_range() {
    let t = Tensor::from_fn([2, 3, 4], |i, j, k| (i + 10 * j + 100 * k) as f64).unwrap();
    for k in 0..4 {
        for j in 0..3 {
            for i in 0..2 {
                assert_eq!(
                    t.get(i, j, k),
                    (i + 10 * j + 100 * k) as f64,
                    "({i}, {j}, {k})"
                );
            }
        }
    }
}

#[test]
#[should_panic(expected = "out of range for shape")]
fn get_panics_past_the_first_mode_with_the_flat_index_in_range() {
    let t = Tensor::from_fn([2, 3, 4], |i, j, k| (i + 10 * j + 100 * k) as f64).unwrap();
    // Flat index 2 + 2 * 0 = 2 < 24: entry (0, 1, 0) before the fix.
    let _ = t.get(2, 0, 0);
}

#[test]
#[should_panic(expected = "out of range for shape")]
fn get_panics_past_the_second_mode_with_the_flat_index_in_range() {
    let t = Tensor::from_fn([2, 3, 4], |i, j, k| (i + 10 * j + 100 * k) as f64).unwrap();
    let _ = t.get(0, 3, 0);
}
