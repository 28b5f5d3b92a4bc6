//! Linear algebra helpers against independent computations with faer's dense SVD and products.

use bl_core::BlError;
use bl_core::linalg::{
    LinearOperator, PowerIterationParams, frobenius_inner, frobenius_norm, least_squares,
    power_iteration, power_iteration_in_place, symmetric_eigen, symmetric_eigenvalues, thin_svd,
    top_singular_vectors,
};
use bl_core::random::{seeded_rng, standard_normal_mat};
use faer::Mat;

fn col_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn frobenius_inner_equals_trace_of_product() {
    let mut rng = seeded_rng(1);
    let a = standard_normal_mat(&mut rng, 7, 5).unwrap();
    let b = standard_normal_mat(&mut rng, 7, 5).unwrap();
    let product = a.transpose() * &b;
    let trace: f64 = (0..5).map(|i| product[(i, i)]).sum();
    let inner = frobenius_inner(a.as_ref(), b.as_ref()).unwrap();
    assert!((inner - trace).abs() < 1e-12 * (1.0 + trace.abs()));
    let norm = frobenius_norm(a.as_ref());
    let self_inner = frobenius_inner(a.as_ref(), a.as_ref()).unwrap();
    assert!((norm * norm - self_inner).abs() < 1e-12 * self_inner);
    assert!(matches!(
        frobenius_inner(a.as_ref(), a.transpose()),
        Err(BlError::ShapeMismatch { .. })
    ));
}

#[test]
fn power_iteration_matches_dense_svd() {
    let mut rng = seeded_rng(2);
    let a = standard_normal_mat(&mut rng, 40, 25).unwrap();
    let svd = a.thin_svd().unwrap();
    let sigma1 = svd.S()[0];
    let params = PowerIterationParams {
        max_iter: 10_000,
        tol: 1e-14,
        seed: 3,
    };
    let t = power_iteration(&a.as_ref(), None, &params).unwrap();
    assert!(t.converged);
    assert!(
        (t.sigma - sigma1).abs() < 1e-8 * sigma1,
        "{} vs {}",
        t.sigma,
        sigma1
    );
    // Singular vectors agree up to sign.
    let v_ref: Vec<f64> = (0..25).map(|i| svd.V()[(i, 0)]).collect();
    let u_ref: Vec<f64> = (0..40).map(|i| svd.U()[(i, 0)]).collect();
    assert!(col_dot(&t.v, &v_ref).abs() > 1.0 - 1e-6);
    assert!(col_dot(&t.u, &u_ref).abs() > 1.0 - 1e-6);
}

#[test]
fn warm_start_from_the_solution_converges_at_once() {
    let mut rng = seeded_rng(4);
    let a = standard_normal_mat(&mut rng, 30, 30).unwrap();
    let params = PowerIterationParams {
        max_iter: 10_000,
        tol: 1e-12,
        seed: 0,
    };
    let cold = power_iteration(&a, None, &params).unwrap();
    let warm = power_iteration(&a, Some(&cold.v), &params).unwrap();
    assert!(warm.iterations <= 3, "warm start took {}", warm.iterations);
    assert!(cold.iterations > warm.iterations);
    assert!((warm.sigma - cold.sigma).abs() < 1e-9 * cold.sigma);
}

/// A sparse diagonal operator given only through its action.
struct Diagonal(Vec<f64>);

impl LinearOperator for Diagonal {
    fn nrows(&self) -> usize {
        self.0.len()
    }
    fn ncols(&self) -> usize {
        self.0.len()
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] = self.0[i] * x[i];
        }
    }
    fn apply_transpose(&self, y: &[f64], out: &mut [f64]) {
        self.apply(y, out);
    }
}

#[test]
fn power_iteration_on_an_implicit_operator() {
    let op = Diagonal(vec![1.0, -5.0, 2.0, 0.5]);
    let t = power_iteration(&op, None, &PowerIterationParams::default()).unwrap();
    assert!((t.sigma - 5.0).abs() < 1e-8);
    assert!((t.v[1].abs() - 1.0).abs() < 1e-6);
    // Zero operator: sigma = 0 exactly.
    let zero = Diagonal(vec![0.0; 3]);
    let t = power_iteration(&zero, None, &PowerIterationParams::default()).unwrap();
    assert_eq!(t.sigma, 0.0);
}

#[test]
fn power_iteration_bad_input() {
    let a = Mat::<f64>::identity(3, 3);
    let p = PowerIterationParams::default();
    assert!(matches!(
        power_iteration(&a, Some(&[1.0, 0.0]), &p),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        power_iteration(&a, Some(&[0.0, 0.0, 0.0]), &p),
        Err(BlError::InvalidParameter { .. })
    ));
    assert!(matches!(
        power_iteration(&a, Some(&[f64::NAN, 0.0, 0.0]), &p),
        Err(BlError::NonFinite { .. })
    ));
    let bad = PowerIterationParams { tol: 0.0, ..p };
    assert!(power_iteration(&a, None, &bad).is_err());
    let bad = PowerIterationParams { max_iter: 0, ..p };
    assert!(power_iteration(&a, None, &bad).is_err());
    let empty = Mat::<f64>::zeros(0, 3);
    assert!(matches!(
        power_iteration(&empty, None, &p),
        Err(BlError::Empty { .. })
    ));
}

/// The in-place variant is the same iteration: same start, same iterates, same result;
/// its buffers are checked.
#[test]
fn power_iteration_in_place_equals_the_allocating_one() {
    let mut rng = seeded_rng(9);
    let a = standard_normal_mat(&mut rng, 6, 4).unwrap();
    let start = [0.3, -1.0, 2.0, 0.5];
    for max_iter in [1, 3, 50] {
        let params = PowerIterationParams {
            max_iter,
            tol: 1e-12,
            seed: 0,
        };
        let t = power_iteration(&a, Some(&start), &params).unwrap();
        let (mut u, mut v) = (vec![f64::NAN; 6], start.to_vec());
        let info = power_iteration_in_place(&a, &mut u, &mut v, &params).unwrap();
        assert_eq!(info.sigma, t.sigma);
        assert_eq!(info.iterations, t.iterations);
        assert_eq!(info.converged, t.converged);
        assert_eq!(u, t.u);
        assert_eq!(v, t.v);
    }
    let p = PowerIterationParams::default();
    let mut v = start.to_vec();
    assert!(matches!(
        power_iteration_in_place(&a, &mut [0.0; 5], &mut v, &p),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        power_iteration_in_place(&a, &mut [0.0; 6], &mut [1.0; 3], &p),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        power_iteration_in_place(&a, &mut [0.0; 6], &mut [0.0; 4], &p),
        Err(BlError::InvalidParameter { .. })
    ));
}

fn check_top_svd(rows: usize, cols: usize, r: usize) {
    let mut rng = seeded_rng(rows as u64 * 31 + cols as u64);
    // A matrix with a clear spectral gap after r: low rank plus small noise.
    let left = standard_normal_mat(&mut rng, rows, r).unwrap();
    let right = standard_normal_mat(&mut rng, cols, r).unwrap();
    let noise = standard_normal_mat(&mut rng, rows, cols).unwrap();
    let a = &left * right.transpose() * 10.0 + noise * 0.01;
    let top = top_singular_vectors(a.as_ref(), r).unwrap();
    let full = a.thin_svd().unwrap();
    for i in 0..r {
        let s_ref = full.S()[i];
        assert!((top.s[i] - s_ref).abs() < 1e-8 * s_ref, "s[{i}]");
        let u: Vec<f64> = (0..rows).map(|k| top.u[(k, i)]).collect();
        let u_ref: Vec<f64> = (0..rows).map(|k| full.U()[(k, i)]).collect();
        assert!(col_dot(&u, &u_ref).abs() > 1.0 - 1e-8);
        let v: Vec<f64> = (0..cols).map(|k| top.v[(k, i)]).collect();
        let v_ref: Vec<f64> = (0..cols).map(|k| full.V()[(k, i)]).collect();
        assert!(col_dot(&v, &v_ref).abs() > 1.0 - 1e-8);
    }
}

#[test]
fn top_singular_vectors_small_dense_path() {
    check_top_svd(20, 12, 3);
}

#[test]
fn top_singular_vectors_partial_svd_path() {
    check_top_svd(700, 600, 2);
}

#[test]
fn top_singular_vectors_bad_input() {
    let a = Mat::<f64>::identity(4, 3);
    assert!(top_singular_vectors(a.as_ref(), 0).is_err());
    assert!(top_singular_vectors(a.as_ref(), 4).is_err());
    let mut b = a.clone();
    b[(1, 1)] = f64::INFINITY;
    assert!(matches!(
        top_singular_vectors(b.as_ref(), 1),
        Err(BlError::NonFinite { .. })
    ));
}

#[test]
fn least_squares_matches_normal_equations() {
    let mut rng = seeded_rng(9);
    let a = standard_normal_mat(&mut rng, 50, 6).unwrap();
    let b = standard_normal_mat(&mut rng, 50, 2).unwrap();
    let x = least_squares(a.as_ref(), b.as_ref()).unwrap();
    // Normal equations: A^T (A x - b) = 0.
    let residual = &a * &x - &b;
    let grad = a.transpose() * residual;
    assert!(grad.norm_l2() < 1e-10 * a.norm_l2() * b.norm_l2());
    // Consistent system: exact recovery.
    let x_true = standard_normal_mat(&mut rng, 6, 1).unwrap();
    let rhs = &a * &x_true;
    let x = least_squares(a.as_ref(), rhs.as_ref()).unwrap();
    assert!((&x - &x_true).norm_l2() < 1e-10);
}

#[test]
fn least_squares_bad_input() {
    let mut nan = Mat::<f64>::identity(3, 2);
    nan[(0, 0)] = f64::NAN;
    let b3 = Mat::<f64>::from_fn(3, 1, |i, _| i as f64);
    // (label, a, b, the expected error)
    type Case = (&'static str, Mat<f64>, Mat<f64>, fn(&BlError) -> bool);
    let cases: [Case; 4] = [
        ("wide a", Mat::zeros(2, 3), Mat::zeros(2, 1), |e| {
            matches!(e, BlError::ShapeMismatch { .. })
        }),
        (
            "b with other rows than a",
            Mat::identity(3, 2),
            Mat::zeros(2, 1),
            |e| matches!(e, BlError::ShapeMismatch { .. }),
        ),
        ("rank-deficient a", Mat::zeros(3, 2), b3.clone(), |e| {
            matches!(e, BlError::Numerical { .. })
        }),
        ("NaN in a", nan, b3, |e| {
            matches!(e, BlError::NonFinite { .. })
        }),
    ];
    for (label, a, b, expected) in cases {
        let err = least_squares(a.as_ref(), b.as_ref()).expect_err(label);
        assert!(expected(&err), "{label}: {err:?}");
    }
}

/// Exactly low-rank input (rank 1, asked for r = 2 > rank) on the Krylov path: the leading
/// value is exact and the second singular value is zero.
#[test]
fn top_singular_vectors_exactly_low_rank() {
    let mut rng = seeded_rng(11);
    let left = standard_normal_mat(&mut rng, 700, 1).unwrap();
    let right = standard_normal_mat(&mut rng, 600, 1).unwrap();
    let a = &left * right.transpose();
    let top = top_singular_vectors(a.as_ref(), 2).unwrap();
    let sigma = left.norm_l2() * right.norm_l2();
    assert!((top.s[0] - sigma).abs() < 1e-8 * sigma);
    assert!(top.s[1].abs() < 1e-8 * sigma);
}

/// `f` run inside a rayon pool of `threads` threads.
fn on_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// How many entries of `a` and `b` (of one shape) differ in their bits.
fn bit_differences(a: &Mat<f64>, b: &Mat<f64>) -> usize {
    let a = (0..a.ncols()).flat_map(|j| a.col(j).iter().copied().collect::<Vec<_>>());
    let b = (0..b.ncols()).flat_map(|j| b.col(j).iter().copied().collect::<Vec<_>>());
    a.zip(b).filter(|(x, y)| x.to_bits() != y.to_bits()).count()
}

#[test]
fn thin_svd_decomposes_and_is_the_same_on_every_pool() {
    let mut rng = seeded_rng(11);
    // Large enough that faer's own thin SVD changes with the pool's size.
    let a = standard_normal_mat(&mut rng, 400, 360).unwrap();
    let svd = on_pool(1, || thin_svd(a.as_ref(), "test").unwrap());
    assert_eq!(
        (svd.u.shape(), svd.v.shape(), svd.s.len()),
        ((400, 360), (360, 360), 360)
    );
    assert!(svd.s.windows(2).all(|w| w[0] >= w[1]) && svd.s[359] > 0.0);
    let rebuilt = &svd.u
        * Mat::from_fn(360, 360, |i, j| if i == j { svd.s[i] } else { 0.0 })
        * svd.v.transpose();
    assert!((&rebuilt - &a).norm_l2() < 1e-10 * a.norm_l2());
    let gram = svd.u.transpose() * &svd.u - Mat::<f64>::identity(360, 360);
    assert!(gram.norm_l2() < 1e-10);
    for threads in [2, 3] {
        let other = on_pool(threads, || thin_svd(a.as_ref(), "test").unwrap());
        assert_eq!(bit_differences(&other.u, &svd.u), 0, "u, {threads} threads");
        assert_eq!(bit_differences(&other.v, &svd.v), 0, "v, {threads} threads");
        assert!(
            other
                .s
                .iter()
                .zip(&svd.s)
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
    }
}

#[test]
fn symmetric_eigen_decomposes_and_is_the_same_on_every_pool() {
    let mut rng = seeded_rng(12);
    // A size at which faer's own eigensolver splits its sums by thread.
    let b = standard_normal_mat(&mut rng, 400, 400).unwrap();
    let a = &b + b.transpose();
    let (values, u) = on_pool(1, || symmetric_eigen(a.as_ref(), "test").unwrap());
    assert!(values.windows(2).all(|w| w[0] <= w[1]));
    let residual =
        &a * &u - &u * Mat::from_fn(400, 400, |i, j| if i == j { values[i] } else { 0.0 });
    assert!(residual.norm_l2() < 1e-10 * a.norm_l2());
    let alone = symmetric_eigenvalues(a.as_ref(), "test").unwrap();
    for (x, y) in alone.iter().zip(&values) {
        assert!((x - y).abs() <= 1e-10 * a.norm_l2());
    }
    for threads in [2, 3] {
        let (v, w) = on_pool(threads, || symmetric_eigen(a.as_ref(), "test").unwrap());
        let same = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same(&v, &values), "values, {threads} threads");
        assert_eq!(bit_differences(&w, &u), 0, "{threads} threads");
        let w = on_pool(threads, || {
            symmetric_eigenvalues(a.as_ref(), "test").unwrap()
        });
        assert!(same(&w, &alone), "values alone, {threads} threads");
    }
}
