//! The synthetic instances of the paper's Table 1 (Sec. 5): `K = 2`, `y = x* theta*`.
//!
//! `x*` (`M x 2`): the first quarter of the rows is `(1, 0)`, the second quarter `(0, -1)`,
//! and every entry of the second half is `N(0, 0.5^2)` (drawn column by column from a
//! seeded generator). `theta*` (`2 x N`): component 1 is evenly spaced on `[0, 1]`,
//! component 2 its complement, so every column lies on the simplex. The l1 budget `P` is
//! `||x*||_1`, so `x*` is feasible.

use faer::Mat;

use crate::error::{GopError, Result};

/// A Table 1 instance: the data and the planted factors.
#[derive(Debug, Clone)]
pub struct Table1Instance {
    /// `y = x* theta*` (`M x N`).
    pub y: Mat<f64>,
    /// The planted `x*` (`M x 2`).
    pub x_star: Mat<f64>,
    /// The planted `theta*` (`2 x N`).
    pub theta_star: Mat<f64>,
    /// `P = ||x*||_1`.
    pub budget: f64,
}

/// The Table 1 instance with `m` features and `n` samples, drawn with `seed`.
///
/// # Errors
/// [`GopError::InvalidParameter`] for `m < 4` (the quarters would be empty) or `n < 2`
/// (`theta*` is evenly spaced over at least two samples).
pub fn table1_instance(m: usize, n: usize, seed: u64) -> Result<Table1Instance> {
    if m < 4 {
        return Err(GopError::InvalidParameter {
            name: "M",
            value: m.to_string(),
            expected: ">= 4",
        });
    }
    if n < 2 {
        return Err(GopError::InvalidParameter {
            name: "N",
            value: n.to_string(),
            expected: ">= 2",
        });
    }
    let mut rng = bl_core::random::seeded_rng(seed);
    let x_star = Mat::from_fn(m, 2, |j, k| {
        if j < m / 4 {
            if k == 0 { 1.0 } else { 0.0 }
        } else if j < m / 2 {
            if k == 1 { -1.0 } else { 0.0 }
        } else {
            0.5 * bl_core::random::standard_normal(&mut rng)
        }
    });
    let theta_star = Mat::from_fn(2, n, |k, s| {
        let t = s as f64 / (n - 1) as f64;
        if k == 0 { t } else { 1.0 - t }
    });
    let budget = (0..m)
        .map(|j| x_star[(j, 0)].abs() + x_star[(j, 1)].abs())
        .sum();
    Ok(Table1Instance {
        y: &x_star * &theta_star,
        x_star,
        theta_star,
        budget,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table1_instance_matches_its_definition() {
        let (m, n) = (20, 5);
        let inst = table1_instance(m, n, 3).unwrap();
        assert_eq!(inst.y.shape(), (m, n));
        for s in 0..n {
            let (a, b) = (inst.theta_star[(0, s)], inst.theta_star[(1, s)]);
            assert!(a >= 0.0 && b >= 0.0 && (a + b - 1.0).abs() < 1e-15);
            for j in 0..m {
                let direct = inst.x_star[(j, 0)] * a + inst.x_star[(j, 1)] * b;
                assert!((inst.y[(j, s)] - direct).abs() < 1e-15);
            }
        }
        assert_eq!(inst.x_star[(0, 0)], 1.0);
        assert_eq!(inst.x_star[(m / 4, 1)], -1.0);
        assert_eq!(inst.x_star[(m / 4, 0)], 0.0);
        let l1: f64 = (0..m)
            .map(|j| inst.x_star[(j, 0)].abs() + inst.x_star[(j, 1)].abs())
            .sum();
        assert_eq!(inst.budget, l1);
        // Seeded: the same seed gives the same data, another seed other noise.
        assert_eq!(table1_instance(m, n, 3).unwrap().y, inst.y);
        assert_ne!(table1_instance(m, n, 4).unwrap().y, inst.y);
        assert!(matches!(
            table1_instance(3, n, 0),
            Err(GopError::InvalidParameter { name: "M", .. })
        ));
        assert!(matches!(
            table1_instance(m, 1, 0),
            Err(GopError::InvalidParameter { name: "N", .. })
        ));
    }
}
