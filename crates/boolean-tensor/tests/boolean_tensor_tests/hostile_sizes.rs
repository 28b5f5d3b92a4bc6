//! Sizes, counts and ranks from callers are checked before anything is allocated from
//! them: a hostile value is a typed error, never an abort, a panic inside faer or a run of
//! hours. None of these tests allocates more than about a hundred megabytes.

use bl_core::BlError;
use boolean_tensor::metrics::{MAX_MATCHED_FACTORS, hamming_error};
use boolean_tensor::{
    Atom, Bmp, BooleanFactor, CpAls, Decomposition, Fit, Lfm, Sustain, SyntheticParams, Tensor,
    TensorError, Tucker, atoms_to_tensor, fully_corrective_coefficients, hosvd_start,
};

/// The longest message a hostile input may produce.
const MESSAGE_LIMIT: usize = 600;

/// `result` is `BlError::InvalidParameter` naming `name`, with a bounded message.
fn assert_invalid<T: std::fmt::Debug>(case: &str, name: &str, result: Result<T, TensorError>) {
    match &result {
        Err(TensorError::Core(BlError::InvalidParameter { name: n, .. })) if *n == name => {}
        other => panic!("{case}: expected InvalidParameter for `{name}`, got {other:?}"),
    }
    let message = result.unwrap_err().to_string();
    assert!(message.len() < MESSAGE_LIMIT, "{case}: {message}");
}

/// `result` is `BlError::ShapeMismatch` (a tensor too large), with a bounded message.
fn assert_too_large<T: std::fmt::Debug>(case: &str, result: Result<T, TensorError>) {
    match &result {
        Err(TensorError::Core(BlError::ShapeMismatch { .. })) => {}
        other => panic!("{case}: expected ShapeMismatch, got {other:?}"),
    }
    let message = result.unwrap_err().to_string();
    assert!(message.len() < MESSAGE_LIMIT, "{case}: {message}");
}

fn atom(mode: usize, shape: [usize; 3]) -> Atom {
    let (a, b) = match mode {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    Atom::new(
        mode,
        vec![1.0; shape[mode]],
        vec![0.5; shape[a]],
        vec![-0.25; shape[b]],
    )
    .unwrap()
}

fn small() -> Tensor {
    SyntheticParams::default()
        .shape([6, 5, 4])
        .n_atoms(2)
        .seed(1)
        .generate()
        .unwrap()
        .observed()
        .clone()
}

/// `atoms_to_tensor` checks the tensor's size before allocating it: 2^36 entries (512
/// GiB) aborted, 2^64 overflowed.
#[test]
fn atoms_to_tensor_refuses_tensors_past_the_limit() {
    for shape in [[4096, 4096, 4096], [1 << 22, 1 << 21, 1 << 21]] {
        let a = atom(0, shape);
        assert_too_large(
            &format!("{shape:?}"),
            atoms_to_tensor(std::slice::from_ref(&a), &[1.0]),
        );
        assert_too_large(&format!("to_tensor {shape:?}"), a.to_tensor(2.0));
    }
}

/// More atoms than the first mode's length are added in blocks (the workspace of one
/// product was `d1 d2 x K`, larger than the tensor): the sum is still exact.
#[test]
fn atoms_to_tensor_with_more_atoms_than_the_first_mode_is_the_sum() {
    let shape = [2, 3, 4];
    let atoms: Vec<Atom> = (0..7)
        .map(|r| {
            let mode = r % 3;
            let (a, b) = match mode {
                0 => (1, 2),
                1 => (0, 2),
                _ => (0, 1),
            };
            let z: Vec<f64> = (0..shape[mode])
                .map(|i| f64::from(u8::from((i + r) % 2 == 0)))
                .collect();
            let u: Vec<f64> = (0..shape[a]).map(|i| (i as f64) - 0.5 * r as f64).collect();
            let w: Vec<f64> = (0..shape[b]).map(|i| 1.0 + (i * r) as f64 / 3.0).collect();
            Atom::new(mode, z, u, w).unwrap()
        })
        .collect();
    let c: Vec<f64> = (0..7).map(|r| 0.5 + r as f64).collect();
    let t = atoms_to_tensor(&atoms, &c).unwrap();
    for k in 0..4 {
        for j in 0..3 {
            for i in 0..2 {
                let want: f64 = atoms
                    .iter()
                    .zip(&c)
                    .map(|(a, c)| c * a.factor(0)[i] * a.factor(1)[j] * a.factor(2)[k])
                    .sum();
                assert!((t.get(i, j, k) - want).abs() < 1e-12, "({i}, {j}, {k})");
            }
        }
    }
}

/// The generator checks its sizes before drawing anything; a `p_one` so small that a
/// nonzero Boolean factor takes millions of redraws (it hung) is refused.
#[test]
fn synthetic_parameters_past_the_limits_are_refused() {
    let base = SyntheticParams::default();
    let cases: Vec<(&str, &str, SyntheticParams)> = vec![
        ("shape overflows", "shape", base.clone().shape([1 << 21; 3])),
        ("shape 2^36", "shape", base.clone().shape([4096; 3])),
        ("n_atoms 2^40", "n_atoms", base.clone().n_atoms(1 << 40)),
        (
            "n_atoms usize::MAX",
            "n_atoms",
            base.clone().n_atoms(usize::MAX),
        ),
        ("p_one 1e-300", "p_one", base.clone().p_one(1e-300)),
        (
            "p_one 1e-9 on a mode of 2",
            "p_one",
            base.clone().shape([2, 30, 30]).p_one(1e-9),
        ),
    ];
    for (case, name, params) in cases {
        assert_invalid(case, name, params.check());
        assert_invalid(case, name, params.generate().map(drop));
    }
    // A small p_one on long modes is fine.
    assert!(base.clone().p_one(0.01).check().is_ok());
}

/// Every method checks the rank (or atom count) against the data before sizing anything
/// from it: rank 2^40 panicked inside faer (`bl_core::random::standard_normal_mat`).
#[test]
fn fits_refuse_ranks_and_atom_counts_past_the_limit() {
    let x = small();
    let huge = 1usize << 40;
    assert_invalid("CP-ALS", "rank", CpAls::params().rank(huge).fit(&x));
    assert_invalid(
        "CP-ALS usize::MAX",
        "rank",
        CpAls::params().rank(usize::MAX).fit(&x),
    );
    assert_invalid("hosvd_start", "rank", hosvd_start(&x, huge, 0));
    assert_invalid("SUSTain", "rank", Sustain::params().rank(huge).fit(&x));
    assert_invalid("LFM", "max_iter", Lfm::params().max_iter(huge).fit(&x));
    assert_invalid(
        "LFM one mode",
        "max_iter",
        Lfm::params().max_iter(huge).mode(Some(1)).fit(&x),
    );
    assert_invalid(
        "LFMmix",
        "max_iter",
        Lfm::params().max_iter(huge).mix().fit(&x),
    );
    assert_invalid("BMP", "max_iter", Bmp::params().max_iter(huge).fit(&x));
    // Tucker caps its ranks at the shape: a huge rank is the full HOSVD.
    let tucker = Tucker::params().ranks([huge; 3]).fit(&x).unwrap();
    assert_eq!(tucker.ranks(), x.shape());
    // Ranks within the limits still fit.
    assert!(
        CpAls::params()
            .rank(3)
            .max_iter(2)
            .n_starts(1)
            .fit(&x)
            .is_ok()
    );
}

/// A mode of 70,000 with short other modes asks the exact HOSVD for a 70,000 x 70,000
/// Gram matrix (39 GB, aborted): refused before allocating it.
#[test]
fn hosvd_gram_matrices_past_the_limit_are_refused() {
    let x = Tensor::from_fn([70_000, 1, 1], |i, _, _| (i % 7) as f64 - 3.0).unwrap();
    let name = "mode length x mode length (HOSVD Gram matrix)";
    assert_invalid("Tucker", name, Tucker::params().fit(&x));
    assert_invalid("CP-ALS", name, CpAls::params().rank(1).fit(&x));
    assert_invalid("hosvd_start", name, hosvd_start(&x, 1, 0));
}

/// The fully corrective solve with 65,537 atoms needs a Gram matrix of 2^32 + 2^17 + 1
/// values: refused before it is built.
#[test]
fn fully_corrective_coefficients_refuse_too_many_atoms() {
    let x = Tensor::from_vec([1, 1, 1], vec![1.0]).unwrap();
    let atoms = vec![atom(0, [1, 1, 1]); (1 << 16) + 1];
    assert_invalid(
        "65,537 atoms",
        "atoms",
        fully_corrective_coefficients(&x, &atoms),
    );
    assert!(fully_corrective_coefficients(&x, &atoms[..1]).is_ok());
}

/// The Hamming matching of 100,000 factors along one mode would build a 1e10-entry cost
/// matrix (80 GB) and run for days: refused above `MAX_MATCHED_FACTORS` per mode.
#[test]
fn hamming_matching_refuses_more_factors_than_the_limit() {
    let one = BooleanFactor {
        mode: 0,
        z: vec![1.0],
    };
    let many = vec![one.clone(); 100_000];
    assert_invalid(
        "truth",
        "truth",
        hamming_error(&many, std::slice::from_ref(&one)),
    );
    assert_invalid(
        "learned",
        "learned",
        hamming_error(std::slice::from_ref(&one), &many),
    );
    let at_limit = vec![one.clone(); MAX_MATCHED_FACTORS + 1];
    assert_invalid("limit + 1", "truth", hamming_error(&at_limit, &[]));
    // Exactly the limit along one mode is accepted (here with no true factor along that
    // mode, so nothing is matched there and the test stays fast).
    let mut learned = vec![one.clone(); MAX_MATCHED_FACTORS];
    let along_1 = BooleanFactor {
        mode: 1,
        z: vec![1.0],
    };
    learned.push(along_1.clone());
    let m = hamming_error(std::slice::from_ref(&along_1), &learned).unwrap();
    assert_eq!(
        (m.errors, m.assignment),
        (0, vec![Some(MAX_MATCHED_FACTORS)])
    );
}

/// A Boolean mode listed many times is tried once: 10,000 copies of mode 0 ran 10,000
/// identical fits.
#[test]
fn repeated_sustain_modes_are_tried_once() {
    let x = small();
    let params = Sustain::params().rank(2).max_iter(3).n_starts(1);
    let once = params.clone().boolean_modes(&[0]).fit(&x).unwrap();
    let repeated = params.boolean_modes(&[0; 10_000]).fit(&x).unwrap();
    assert_eq!(
        bl_core::Fitted::report(&repeated).iterations,
        bl_core::Fitted::report(&once).iterations
    );
    assert_eq!(repeated.reconstruct().unwrap(), once.reconstruct().unwrap());
}
