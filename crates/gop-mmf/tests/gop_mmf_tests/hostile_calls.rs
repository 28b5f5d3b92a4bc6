//! Public builders called directly with inputs a fit never gives them: each is a typed
//! error.

use bl_core::BlError;
use gop_mmf::GopError;
use gop_mmf::lagrangian::{Lagrangian, Linearization};
use gop_mmf::primal::{PrimalSolution, solve_primal};

/// `M = 3`, `K = 2`, `N = 4`: a point and its primal solution.
fn point() -> (Vec<f64>, PrimalSolution) {
    let (m, k, n) = (3, 2, 4);
    let x = vec![1.0, 0.0, 0.5, 0.0, 1.0, -0.5];
    let y: Vec<f64> = (0..m * n)
        .map(|i| ((i * 5) % 7) as f64 / 7.0 - 0.4)
        .collect();
    let primal = solve_primal(&x, &y, m, k, n).unwrap();
    (x, primal)
}

/// A builder of the Lagrangian at a point.
type Builder = fn(&[f64], &PrimalSolution) -> gop_mmf::Result<Lagrangian>;

/// An edit of a point and its primal solution.
type Edit = fn(&mut Vec<f64>, &mut PrimalSolution);

fn builders() -> [(&'static str, Builder); 3] {
    [
        ("at", Lagrangian::at),
        ("paper_at", Lagrangian::paper_at),
        ("build(Product)", |x, p| {
            Lagrangian::build(Linearization::Product, x, p)
        }),
    ]
}

// Before the fix the builders returned `Lagrangian` and panicked on each of these (index
// out of bounds on `x`, `theta`, `mu` or `lambda`; range end out of range on `residual`),
// or overflowed reserving `K N` qualifying constraints for the huge `n` (capacity overflow).
#[test]
fn lagrangian_builders_check_the_point_against_the_primal() {
    let (x, primal) = point();
    let edits: [(&str, Edit); 6] = [
        ("x short", |x, _| {
            x.pop();
        }),
        ("theta short", |_, p| {
            p.theta.pop();
        }),
        ("mu short", |_, p| {
            p.mu.pop();
        }),
        ("lambda short", |_, p| {
            p.lambda.pop();
        }),
        ("residual short", |_, p| {
            p.residual.pop();
        }),
        ("n larger than the parts", |_, p| p.n += 1),
    ];
    for (name, build) in builders() {
        assert!(build(&x, &primal).is_ok(), "{name}");
        for (case, edit) in edits {
            let (mut x, mut primal) = (x.clone(), primal.clone());
            edit(&mut x, &mut primal);
            let result = build(&x, &primal);
            assert!(
                matches!(result, Err(GopError::Core(BlError::ShapeMismatch { .. }))),
                "{name}, {case}: {result:?}"
            );
        }
        let huge = PrimalSolution {
            n: usize::MAX / 2,
            ..primal.clone()
        };
        let result = build(&x, &huge);
        assert!(
            matches!(
                result,
                Err(GopError::Core(BlError::InvalidParameter { .. }))
            ),
            "{name}, huge n: {result:?}"
        );
    }
}
