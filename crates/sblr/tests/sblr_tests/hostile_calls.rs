//! Public entry points called directly, outside a fit, with arguments a fit never gives:
//! settings their `check()` refuses and buffers that do not fit the block. Each is a typed
//! error, and the state is left as it was.

use bl_core::BlError;
use faer::MatRef;
use sblr::block::{BlockState, BlockWork, LinearBlock};
use sblr::{BlockUpdate, ExactBlockSolve, ProxLinearStep, SblrError};

const D: usize = 3;
const N: usize = 6;

/// A `D x N` block with both classes.
fn features() -> (Vec<f64>, Vec<f64>) {
    let z = (0..D * N).map(|i| ((i * 7) % 5) as f64 - 2.0).collect();
    let y = (0..N)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    (z, y)
}

/// Runs `update` on a state with `x_len` variables and `scores_len` decision values, `y_len`
/// labels and scratch for `work_dim` features and `work_n` samples.
fn run(
    update: &dyn BlockUpdate,
    (x_len, scores_len, y_len): (usize, usize, usize),
    (work_dim, work_n): (usize, usize),
) -> (sblr::Result<sblr::block::BlockStepInfo>, Vec<f64>) {
    let (z, y) = features();
    let block = LinearBlock {
        z: MatRef::from_column_major_slice(&z, D, N).into(),
        y: &y[..y_len.min(N)],
        l1: 0.01,
        l2: 0.01,
    };
    let mut x = vec![0.25; x_len];
    let mut scores = vec![0.25; scores_len];
    let mut lipschitz = 1e-3;
    let mut work = BlockWork::new(work_dim, work_n).unwrap();
    let mut state = BlockState {
        x: &mut x,
        scores: &mut scores,
        lipschitz: &mut lipschitz,
    };
    let result = update.update(&block, &mut state, &mut work);
    (result, x)
}

fn updates() -> Vec<Box<dyn BlockUpdate>> {
    vec![
        Box::new(ProxLinearStep::default()),
        Box::new(ExactBlockSolve::default()),
    ]
}

// Before the fix: `l_min = NaN`, `eta` below its range and `l_min = 0` ran and returned
// `Ok` (NaN and 0 lost to `max` against the previous step parameter).
#[test]
fn built_in_updates_check_their_settings_when_called_directly() {
    let prox = |l_min, eta| ProxLinearStep { l_min, eta };
    let exact = |l_min, eta, tol, max_iter| ExactBlockSolve {
        l_min,
        eta,
        tol,
        max_iter,
    };
    let cases: Vec<(&str, Box<dyn BlockUpdate>)> = vec![
        ("l_min", Box::new(prox(f64::NAN, 2.0))),
        ("l_min", Box::new(prox(0.0, 2.0))),
        ("eta", Box::new(prox(1e-3, 0.5))),
        ("eta", Box::new(prox(1e-3, f64::INFINITY))),
        ("l_min", Box::new(exact(f64::NAN, 2.0, 1e-6, 10))),
        ("eta", Box::new(exact(1e-3, 1.0, 1e-6, 10))),
        ("inner_tol", Box::new(exact(1e-3, 2.0, f64::NAN, 10))),
        ("inner_max_iter", Box::new(exact(1e-3, 2.0, 1e-6, 0))),
    ];
    for (name, update) in cases {
        let (result, x) = run(update.as_ref(), (D + 1, N, N), (D, N));
        assert!(
            matches!(&result, Err(SblrError::Core(BlError::InvalidParameter { name: n, .. })) if *n == name),
            "{name}: {result:?}"
        );
        assert_eq!(x, vec![0.25; D + 1], "{name}: state changed");
    }
}

// Before the fix: scratch made for a smaller block panicked (`work.c[..n]`, `work.g[..d + 1]`:
// range end out of range) in both updates; a variable or decision values of the wrong
// length panicked in `ExactBlockSolve` (`copy_from_slice`: lengths differ); in
// `ProxLinearStep` short decision values or labels were read short, silently, and `Ok`
// returned (a variable of the wrong length was already `prox_point`'s `ShapeMismatch`).
#[test]
fn built_in_updates_check_their_buffers_when_called_directly() {
    let cases = [
        ("x short", (D, N, N), (D, N)),
        ("x long", (D + 2, N, N), (D, N)),
        ("scores short", (D + 1, N - 1, N), (D, N)),
        ("y short", (D + 1, N, N - 1), (D, N)),
        ("work: too few features", (D + 1, N, N), (D - 1, N)),
        ("work: too few samples", (D + 1, N, N), (D, N - 1)),
    ];
    for update in updates() {
        for (case, state, work) in cases {
            let (result, _) = run(update.as_ref(), state, work);
            assert!(
                matches!(result, Err(SblrError::Core(BlError::ShapeMismatch { .. }))),
                "{}, {case}: {result:?}",
                update.name()
            );
        }
        // Scratch for a larger block is fine (a fit sizes it for the larger of its two).
        let (result, _) = run(update.as_ref(), (D + 1, N, N), (D + 4, N + 2));
        assert!(result.is_ok(), "{}: {result:?}", update.name());
    }
}

// Before the fix these returned plain values: `scores` and `penalty` with a short `x`
// panicked (index out of bounds, range end out of range), `gradient` with a short `g`
// (index out of bounds on the intercept) or a short `c` (faer's dimension assertion),
// `stationarity_residual` with a short `g`; `loss`, `loss_and_dscores` and `loss_change`
// read short decision values or labels short and returned a wrong value.
#[test]
fn linear_block_methods_check_their_lengths() {
    let (z, y) = features();
    let block: LinearBlock<'_> = LinearBlock {
        z: MatRef::from_column_major_slice(&z, D, N).into(),
        y: &y,
        l1: 0.01,
        l2: 0.01,
    };
    let short_labels = LinearBlock {
        y: &y[..N - 1],
        ..block
    };
    let (x, short_x) = (vec![0.5; D + 1], vec![0.5; D]);
    let (f, short_f) = (vec![0.5; N], vec![0.5; N - 1]);
    let mut out_n = vec![0.0; N];
    let mut out_short = vec![0.0; N - 1];
    let mut g = vec![0.0; D + 1];
    let mut short_g = vec![0.0; D];
    let shape = |case: &str, result: sblr::Result<()>| {
        assert!(
            matches!(result, Err(SblrError::Core(BlError::ShapeMismatch { .. }))),
            "{case}: {result:?}"
        );
    };
    shape("scores: x short", block.scores(&short_x, &mut out_n));
    shape("scores: out short", block.scores(&x, &mut out_short));
    shape("loss: f short", block.loss(&short_f).map(drop));
    shape("loss: y short", short_labels.loss(&f).map(drop));
    shape(
        "loss_and_dscores: c short",
        block.loss_and_dscores(&f, &mut out_short).map(drop),
    );
    shape(
        "loss_and_dscores: y short",
        short_labels.loss_and_dscores(&f, &mut out_n).map(drop),
    );
    shape(
        "loss_change: df short",
        block.loss_change(&f, &short_f).map(drop),
    );
    shape("gradient: c short", block.gradient(&short_f, &mut g));
    shape("gradient: g short", block.gradient(&f, &mut short_g));
    shape("penalty: x short", block.penalty(&short_x).map(drop));
    shape(
        "stationarity_residual: g short",
        block.stationarity_residual(&x, &short_g).map(drop),
    );
    shape(
        "stationarity_residual: x short",
        block.stationarity_residual(&short_x, &g).map(drop),
    );
    // Buffers refused are left as they were; the right lengths work.
    assert!(out_short.iter().chain(&short_g).all(|&v| v == 0.0));
    block.scores(&x, &mut out_n).unwrap();
    let loss = block.loss_and_dscores(&out_n, &mut f.clone()).unwrap();
    assert_eq!(loss, block.loss(&out_n).unwrap());
    block.gradient(&f, &mut g).unwrap();
    assert!(block.stationarity_residual(&x, &g).unwrap().is_finite());
}
