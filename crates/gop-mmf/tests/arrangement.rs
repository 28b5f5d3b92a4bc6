//! Hyperplane filtering and cell enumeration against a brute-force sign-vector check.

use std::collections::BTreeSet;

use bl_core::random::{seeded_rng, standard_normal};
use gop_mmf::arrangement::{
    CellOptions, SignedHyperplane, Term, brute_force_cells, enumerate_cells, filter,
};
use gop_mmf::lagrangian::Affine;
use lp_backend::Microlp;
use rand::RngExt;

/// A hyperplane through `center` with a random normal.
fn through(center: &[f64], rng: &mut bl_core::random::Rng) -> Affine {
    let a: Vec<f64> = (0..center.len()).map(|_| standard_normal(rng)).collect();
    let offset = -a.iter().zip(center).map(|(u, v)| u * v).sum::<f64>();
    Affine {
        coeffs: a.into_iter().enumerate().collect(),
        offset,
    }
}

fn unit(g: &Affine) -> Affine {
    let n = g.norm();
    Affine {
        coeffs: g.coeffs.iter().map(|&(i, a)| (i, a / n)).collect(),
        offset: g.offset / n,
    }
}

fn as_set(signs: &[Vec<i8>]) -> BTreeSet<Vec<i8>> {
    signs.iter().cloned().collect()
}

#[test]
fn walk_finds_the_cells_brute_force_finds() {
    let solver = Microlp;
    let mut checked = 0;
    for seed in 0..24u64 {
        let mut rng = seeded_rng(seed);
        let d = 2 + (seed as usize) % 3;
        let budget = 1.0;
        // The arrangement's center, inside or on the boundary of the ball.
        let mut center: Vec<f64> = (0..d).map(|_| standard_normal(&mut rng)).collect();
        let l1: f64 = center.iter().map(|v| v.abs()).sum();
        let r = if seed % 4 == 0 {
            1.0
        } else {
            rng.random_range(0.0..0.9)
        };
        for v in &mut center {
            *v *= r * budget / l1;
        }
        let h = 2 + (seed as usize) % 4;
        let mut hyperplanes: Vec<Affine> =
            (0..h).map(|_| unit(&through(&center, &mut rng))).collect();
        if seed % 3 == 1 && d == 2 {
            // Dependent normals: a third line through the center in the plane.
            let sum = Affine {
                coeffs: (0..d)
                    .map(|i| {
                        (
                            i,
                            hyperplanes[0].coeffs[i].1 + 0.5 * hyperplanes[1].coeffs[i].1,
                        )
                    })
                    .collect(),
                offset: hyperplanes[0].offset + 0.5 * hyperplanes[1].offset,
            };
            hyperplanes.push(unit(&sum));
        }
        // A region cut by one or two signed hyperplanes through other points, chosen to
        // contain the center (so the region is non-empty near it).
        let region: Vec<SignedHyperplane> = (0..seed as usize % 3)
            .map(|_| {
                let other: Vec<f64> = (0..d).map(|_| 0.3 * standard_normal(&mut rng)).collect();
                let g = unit(&through(&other, &mut rng));
                let sign = if g.eval(&center) >= 0.0 { 1 } else { -1 };
                SignedHyperplane { g, sign }
            })
            .collect();
        let brute = brute_force_cells(&solver, d, budget, &region, &hyperplanes, 1e-9).unwrap();
        for shortcut in [false, true] {
            let options = CellOptions {
                min_slack: 1e-9,
                rank_shortcut: shortcut,
                parallel: seed % 2 == 0,
            };
            let walk =
                enumerate_cells(&solver, d, budget, &region, &center, &hyperplanes, &options)
                    .unwrap();
            assert_eq!(
                as_set(&walk.signs),
                as_set(&brute.signs),
                "seed {seed} (d = {d}, h = {}, shortcut {shortcut})",
                hyperplanes.len()
            );
            assert_eq!(
                walk.signs.len(),
                as_set(&walk.signs).len(),
                "duplicates in the walk"
            );
            if !shortcut {
                // The walk tests each candidate once: never more LPs than brute force.
                assert!(walk.lp_solves <= brute.lp_solves + 1, "seed {seed}");
            }
        }
        checked += brute.signs.len();
    }
    assert!(checked > 100);
}

#[test]
fn central_lines_in_the_plane_make_two_cells_each() {
    // H distinct lines through an interior point of the ball: 2 H cells.
    let solver = Microlp;
    let center = [0.1, -0.2];
    for h in 1..=5usize {
        let hyperplanes: Vec<Affine> = (0..h)
            .map(|i| {
                let angle = std::f64::consts::PI * (i as f64 + 0.3) / h as f64;
                let a = [angle.cos(), angle.sin()];
                Affine {
                    coeffs: vec![(0, a[0]), (1, a[1])],
                    offset: -(a[0] * center[0] + a[1] * center[1]),
                }
            })
            .collect();
        let options = CellOptions {
            rank_shortcut: false,
            ..CellOptions::default()
        };
        let cells = enumerate_cells(&solver, 2, 1.0, &[], &center, &hyperplanes, &options).unwrap();
        assert_eq!(cells.signs.len(), 2 * h, "h = {h}");
        let shortcut = enumerate_cells(
            &solver,
            2,
            1.0,
            &[],
            &center,
            &hyperplanes,
            &CellOptions::default(),
        )
        .unwrap();
        assert_eq!(shortcut.signs.len(), 2 * h);
        assert_eq!(shortcut.shortcut, h <= 2);
    }
}

#[test]
fn center_on_the_ball_boundary_loses_cells() {
    // Center at the vertex (1, 0) of the unit l1 ball; the lines x1 = 1 and x2 = 0 cut it:
    // only the cells with x1 < 1 meet the ball's interior (2 of 4).
    let solver = Microlp;
    let hyperplanes = vec![
        Affine {
            coeffs: vec![(0, 1.0)],
            offset: -1.0,
        },
        Affine {
            coeffs: vec![(1, 1.0)],
            offset: 0.0,
        },
    ];
    let cells = enumerate_cells(
        &solver,
        2,
        1.0,
        &[],
        &[1.0, 0.0],
        &hyperplanes,
        &CellOptions::default(),
    )
    .unwrap();
    assert!(!cells.shortcut);
    assert_eq!(as_set(&cells.signs), as_set(&[vec![-1, 1], vec![-1, -1]]));
}

#[test]
fn filtering_merges_duplicates_and_drops_zeros_with_valid_bounds() {
    let budget = 2.0;
    let base = Affine {
        coeffs: vec![(0, 3.0), (2, -1.0)],
        offset: 0.5,
    };
    let scaled = |c: f64, noise: f64| Affine {
        coeffs: vec![(0, 3.0 * c + noise), (2, -c)],
        offset: 0.5 * c,
    };
    let hyperplanes = vec![
        base.clone(),
        scaled(2.0, 0.0),
        scaled(-0.5, 0.0),
        Affine {
            coeffs: vec![(1, 1e-14)],
            offset: -0.25,
        },
        Affine {
            coeffs: vec![(1, 1.0)],
            offset: 0.0,
        },
        scaled(1.0, 1e-7),
    ];
    let f = filter(&hyperplanes, budget, 1e-9);
    assert_eq!(f.reps.len(), 2, "{f:?}");
    assert_eq!(f.zeros(), 1);
    match f.terms[2] {
        Term::Rep { rep: 0, factor, .. } => assert!(factor < 0.0),
        ref t => panic!("{t:?}"),
    }
    assert!(matches!(f.terms[3], Term::Zero { bound } if bound <= -0.25));
    // |g_i(x) - c_i g_rep(x)| <= error_i everywhere on the ball; zero bound below min(0, g).
    let mut rng = seeded_rng(5);
    for _ in 0..2000 {
        let mut x: Vec<f64> = (0..3).map(|_| standard_normal(&mut rng)).collect();
        let l1: f64 = x.iter().map(|v| v.abs()).sum();
        let r = budget * rng.random_range(0.0..1.0) / l1;
        x.iter_mut().for_each(|v| *v *= r);
        for (g, t) in hyperplanes.iter().zip(&f.terms) {
            match *t {
                Term::Rep { rep, factor, error } => {
                    let e = g.eval(&x) - factor * f.reps[rep].eval(&x);
                    assert!(e.abs() <= error + 1e-12, "{e} > {error}");
                }
                Term::Zero { bound } => assert!(bound <= g.eval(&x).min(0.0) + 1e-15),
            }
        }
    }
}
