//! The public types that derive `Deserialize` and read indices from their fields: any
//! field values (as a corrupted file deserializes them, or a caller writes them, the
//! fields being public) are harmless to use. (The crate's other such types are plain
//! data: their methods read no index from their fields.)

use gop_mmf::lagrangian::{Affine, Lagrangian, Qualifying};

/// One qualifying constraint `g(x) = x_0 + 0.5` of component 1 and `sample` (`K = 2`).
fn lagrangian(sample: usize) -> Lagrangian {
    Lagrangian {
        constant: 1.0,
        slope: Vec::new(),
        qualifying: vec![Qualifying {
            component: 1,
            sample,
            g: Affine {
                coeffs: vec![(0, 1.0)],
                offset: 0.5,
            },
        }],
    }
}

#[test]
fn a_lagrangian_evaluates_its_qualifying_constraints() {
    // L(x, theta) = 1 + theta_{1,0} (x_0 + 0.5) = 1 + 2 * 1.5.
    assert_eq!(lagrangian(0).eval(&[1.0], &[0.0, 2.0], 2), 4.0);
    assert_eq!(lagrangian(0).lower_bound(&[-1.0]), 0.5);
}

/// A qualifying constraint whose `theta` entry lies past `theta`, or whose index
/// `sample * k + component` overflows, adds nothing (it read past the slice or overflowed).
#[test]
fn a_lagrangian_with_a_sample_past_theta_evaluates_without_panicking() {
    for sample in [1, 7, usize::MAX / 2, usize::MAX] {
        assert_eq!(
            lagrangian(sample).eval(&[1.0], &[0.0, 2.0], 2),
            1.0,
            "sample {sample}"
        );
    }
    // The same for a short theta.
    assert_eq!(lagrangian(0).eval(&[1.0], &[0.0], 2), 1.0);
}
