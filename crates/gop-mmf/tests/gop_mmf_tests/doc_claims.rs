//! Checks of statements the rustdoc of `gop-mmf` makes.

use gop_mmf::arrangement::{SignedHyperplane, brute_force_cells};
use gop_mmf::lagrangian::Affine;
use gop_mmf::{Fit, Fitted};

/// `brute_force_cells` "tests every one of the `2^H` sign vectors": with more hyperplanes
/// than it can try it refuses, instead of testing the first 20 and returning sign vectors
/// that miss the others.
#[test]
fn brute_force_refuses_more_hyperplanes_than_it_can_test() {
    let solver = lp_backend::Microlp;
    let h = 21;
    let hyperplanes: Vec<Affine> = (0..h)
        .map(|i| Affine {
            coeffs: vec![(i, 1.0)],
            offset: 0.0,
        })
        .collect();
    // An empty region (the row `-1 >= 0`): every extension is infeasible at once.
    let empty = [SignedHyperplane {
        g: Affine {
            coeffs: Vec::new(),
            offset: -1.0,
        },
        sign: 1,
    }];
    let err = brute_force_cells(&solver, h, 1.0, &empty, &hyperplanes, 1e-9).unwrap_err();
    assert_eq!(err.invalid_parameter(), Some("hyperplanes"), "{err}");
    // Up to 20 hyperplanes every sign vector has one sign per hyperplane.
    let cells = brute_force_cells(&solver, 3, 1.0, &[], &hyperplanes[..3], 1e-9).unwrap();
    assert_eq!(cells.signs.len(), 8);
    assert!(cells.signs.iter().all(|s| s.len() == 3));
}

/// `max_nodes`: the fit stops expanding once the tree holds that many nodes; the expansion
/// that reaches it adds all its children, so the tree can end larger.
#[test]
fn max_nodes_stops_expansion_but_the_last_expansion_may_overshoot() {
    let (y, params) = gop_mmf::synthetic::illustrative();
    let fit = params.seed(3).max_nodes(1).fit(&y.as_ref()).unwrap();
    assert_eq!(fit.report().iterations, 1);
    assert!(fit.tree().len() > 1, "{} nodes", fit.tree().len());
}
