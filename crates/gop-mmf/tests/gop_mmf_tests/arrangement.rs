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
    let (mut checked, mut dependent) = (0, 0);
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
        // d = 2 exactly when seed % 3 == 0: every other such seed (3, 9, 15, 21) also
        // gets dependent normals.
        if d == 2 && seed % 2 == 1 {
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
            dependent += 1;
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
                local: seed % 3 != 0,
                parallel: seed % 2 == 0,
                ..CellOptions::default()
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
    assert_eq!(dependent, 4, "seeds with dependent normals");
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

/// The lines `x1 = 1` and `x2 = 0`, which meet at the vertex `(1, 0)` of the unit l1 ball.
fn lines_through_vertex() -> Vec<Affine> {
    vec![
        Affine {
            coeffs: vec![(0, 1.0)],
            offset: -1.0,
        },
        Affine {
            coeffs: vec![(1, 1.0)],
            offset: 0.0,
        },
    ]
}

#[test]
fn center_on_the_ball_boundary_loses_cells() {
    // Center at the vertex (1, 0) of the unit l1 ball; the lines x1 = 1 and x2 = 0 cut it:
    // only the cells with x1 < 1 meet the ball's interior (2 of 4).
    let solver = Microlp;
    let hyperplanes = lines_through_vertex();
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

/// A hyperplane through `center` whose normal is random on the variables `block` only.
fn through_on(center: &[f64], block: &[usize], rng: &mut bl_core::random::Rng) -> Affine {
    let coeffs: Vec<(usize, f64)> = block.iter().map(|&i| (i, standard_normal(rng))).collect();
    let offset = -coeffs.iter().map(|&(i, a)| a * center[i]).sum::<f64>();
    unit(&Affine { coeffs, offset })
}

#[test]
fn tangent_cone_cells_match_brute_force_with_active_rows_and_blocks() {
    // Central arrangements whose hyperplanes each live on one block of variables, inside
    // regions cut by rows through the center (active there) and rows through other points:
    // the tangent-cone enumeration (block by block, in the span of the normals) must find
    // exactly the cells the brute-force test of all sign vectors finds on the whole region.
    let solver = Microlp;
    let (mut checked, mut with_active, mut multi_block) = (0, 0, 0);
    for seed in 0..40u64 {
        let mut rng = seeded_rng(1000 + seed);
        let d = 2 + (seed as usize) % 6;
        // At least two variables per block: hyperplanes through the center on a single
        // variable would coincide, and the arrangement must have distinct hyperplanes.
        let nblocks = (1 + (seed as usize) % 3).min(d / 2);
        // Variables dealt round-robin to the blocks.
        let blocks: Vec<Vec<usize>> = (0..nblocks)
            .map(|b| (0..d).filter(|i| i % nblocks == b).collect())
            .collect();
        let budget = 1.0;
        let mut center: Vec<f64> = (0..d).map(|_| standard_normal(&mut rng)).collect();
        let l1: f64 = center.iter().map(|v| v.abs()).sum();
        let r = rng.random_range(0.0..0.9);
        center.iter_mut().for_each(|v| *v *= r * budget / l1);
        let h = 2 + (seed as usize) % 4;
        let mut hyperplanes: Vec<Affine> = (0..h)
            .map(|i| through_on(&center, &blocks[i % nblocks], &mut rng))
            .collect();
        if seed % 4 == 3 && blocks[0].len() >= 2 {
            // A dependent normal in block 0: the sum of block 0's first two hyperplanes.
            let mut g = through_on(&center, &blocks[0], &mut rng);
            let (a, b) = (&hyperplanes[0], &hyperplanes[nblocks.min(h - 1)]);
            if b.coeffs.iter().all(|&(i, _)| blocks[0].contains(&i)) {
                g = Affine {
                    coeffs: a
                        .coeffs
                        .iter()
                        .zip(&b.coeffs)
                        .map(|(&(i, u), &(_, v))| (i, u + 0.5 * v))
                        .collect(),
                    offset: a.offset + 0.5 * b.offset,
                };
            }
            hyperplanes.push(unit(&g));
        }
        // Region rows: some through the center (active), some through other points.
        let mut region: Vec<SignedHyperplane> = Vec::new();
        for i in 0..(seed as usize) % 3 {
            let g = through_on(&center, &blocks[(i + 1) % nblocks], &mut rng);
            let sign = if rng.random_bool(0.5) { 1 } else { -1 };
            region.push(SignedHyperplane { g, sign });
        }
        for _ in 0..(seed as usize / 3) % 2 {
            let other: Vec<f64> = (0..d).map(|_| 0.3 * standard_normal(&mut rng)).collect();
            let g = unit(&through(&other, &mut rng));
            let sign = if g.eval(&center) >= 0.0 { 1 } else { -1 };
            region.push(SignedHyperplane { g, sign });
        }
        let brute = brute_force_cells(&solver, d, budget, &region, &hyperplanes, 1e-9).unwrap();
        let options = CellOptions {
            min_slack: 1e-9,
            rank_shortcut: false,
            local: true,
            parallel: seed % 2 == 0,
            ..CellOptions::default()
        };
        let local =
            enumerate_cells(&solver, d, budget, &region, &center, &hyperplanes, &options).unwrap();
        let global = enumerate_cells(
            &solver,
            d,
            budget,
            &region,
            &center,
            &hyperplanes,
            &CellOptions {
                local: false,
                ..options
            },
        )
        .unwrap();
        let label = format!(
            "seed {seed} (d = {d}, blocks = {nblocks}, h = {}, rows = {})",
            hyperplanes.len(),
            region.len()
        );
        assert!(local.local, "{label}: the tangent-cone path must apply");
        assert!(!global.local);
        assert_eq!(as_set(&local.signs), as_set(&brute.signs), "{label}");
        assert_eq!(as_set(&global.signs), as_set(&brute.signs), "{label}");
        assert_eq!(local.signs.len(), as_set(&local.signs).len(), "{label}");
        checked += brute.signs.len();
        with_active += usize::from(region.iter().any(|r| r.g.eval(&center).abs() < 1e-12));
        multi_block += usize::from(nblocks > 1);
    }
    assert!(checked > 200, "{checked}");
    assert!(
        with_active >= 10 && multi_block >= 10,
        "{with_active} {multi_block}"
    );
}

#[test]
fn tangent_cone_cells_with_the_center_on_the_ball_boundary_match_brute_force() {
    // Centers on the boundary of the l1 ball (some on a lower-dimensional face, with zero
    // coordinates), hyperplanes through them spanning fewer dimensions than the space, and
    // active region rows: when a direction orthogonal to all normals points into the ball,
    // the tangent-cone path applies and must find exactly the brute-force cells; when it
    // steps aside, the walk must.
    let solver = Microlp;
    let (mut local_used, mut checked, mut vertices) = (0, 0, 0);
    for seed in 0..30u64 {
        let mut rng = seeded_rng(4000 + seed);
        let d = 4 + (seed as usize) % 5;
        let budget = 1.0;
        let mut center: Vec<f64> = (0..d).map(|_| standard_normal(&mut rng)).collect();
        // A face of the ball: zero out a coordinate on every third seed; a vertex (one
        // nonzero coordinate) on every fifth, where the projection test misses the inward
        // directions and the LP has to find them.
        if seed % 3 == 0 {
            center[0] = 0.0;
        }
        if seed % 5 == 4 {
            let keep = center[1];
            center.iter_mut().for_each(|v| *v = 0.0);
            center[1] = keep;
        }
        let l1: f64 = center.iter().map(|v| v.abs()).sum();
        center.iter_mut().for_each(|v| *v *= budget / l1);
        let blocks: Vec<Vec<usize>> = (0..2)
            .map(|b| (0..d).filter(|i| i % 2 == b).collect())
            .collect();
        let h = 2 + (seed as usize) % (d - 2);
        let hyperplanes: Vec<Affine> = (0..h)
            .map(|i| through_on(&center, &blocks[i % 2], &mut rng))
            .collect();
        let mut region = Vec::new();
        if seed % 2 == 1 {
            let g = through_on(&center, &blocks[1], &mut rng);
            region.push(SignedHyperplane { g, sign: 1 });
        }
        let brute = brute_force_cells(&solver, d, budget, &region, &hyperplanes, 1e-9).unwrap();
        let options = CellOptions {
            min_slack: 1e-9,
            rank_shortcut: false,
            local: true,
            parallel: false,
            ..CellOptions::default()
        };
        let cells =
            enumerate_cells(&solver, d, budget, &region, &center, &hyperplanes, &options).unwrap();
        assert_eq!(
            as_set(&cells.signs),
            as_set(&brute.signs),
            "seed {seed} (d = {d}, h = {h}, local = {})",
            cells.local
        );
        local_used += usize::from(cells.local);
        vertices += usize::from(cells.local && seed % 5 == 4);
        checked += brute.signs.len();
    }
    assert!(
        local_used >= 15 && vertices >= 2 && checked > 100,
        "{local_used} {vertices} {checked}"
    );
}

#[test]
fn tangent_cone_cells_step_aside_when_the_center_is_not_inside() {
    // Center on the ball's boundary, or a hyperplane that misses the center: the walk on
    // the whole region decides, with the same answer as brute force.
    let solver = Microlp;
    let hyperplanes = lines_through_vertex();
    let options = CellOptions {
        rank_shortcut: false,
        ..CellOptions::default()
    };
    let on_boundary =
        enumerate_cells(&solver, 2, 1.0, &[], &[1.0, 0.0], &hyperplanes, &options).unwrap();
    assert!(!on_boundary.local);
    let missing =
        enumerate_cells(&solver, 2, 1.0, &[], &[0.2, 0.0], &hyperplanes, &options).unwrap();
    assert!(!missing.local);
    let brute = brute_force_cells(&solver, 2, 1.0, &[], &hyperplanes, 1e-9).unwrap();
    assert_eq!(as_set(&missing.signs), as_set(&brute.signs));
}

#[test]
fn cell_lagrangian_rows_match_the_filtered_bound_and_are_sorted() {
    // On the cell that contains x, the affine row phi(x; s) equals the filtered bound
    // constant + sum_i min(0, c_i g_rep(x)) computed term by term; the LP rows built from it
    // list their variables in increasing order (the LP backend relies on it to skip sorts).
    use gop_mmf::Linearization;
    use gop_mmf::dual::{DualLayout, Level};
    use gop_mmf::lagrangian::Lagrangian;
    use gop_mmf::primal::solve_primal;
    let increasing = |row: &lp_backend::Row| row.coeffs.windows(2).all(|w| w[0].0 < w[1].0);
    for seed in 0..12u64 {
        let mut rng = seeded_rng(500 + seed);
        let (m, k, n) = (1 + seed as usize % 3, 2, 2 + seed as usize % 3);
        let budget = 2.0;
        let y: Vec<f64> = (0..m * n).map(|_| standard_normal(&mut rng)).collect();
        let ball_point = |rng: &mut bl_core::random::Rng| {
            let mut x: Vec<f64> = (0..m * k).map(|_| standard_normal(rng)).collect();
            let l1: f64 = x.iter().map(|v| v.abs()).sum();
            let r = budget * rng.random_range(0.05..0.95) / l1;
            x.iter_mut().for_each(|v| *v *= r);
            x
        };
        let x0 = ball_point(&mut rng);
        let primal = solve_primal(&x0, &y, m, k, n).unwrap();
        // Both linearizations: the paper's adds an x-dependent constant (its slope).
        let linearization = if seed % 2 == 0 {
            Linearization::Product
        } else {
            Linearization::Paper
        };
        let level = Level::new(
            &Lagrangian::build(linearization, &x0, &primal).unwrap(),
            budget,
            1e-9,
        );
        let layout = DualLayout { mk: m * k };
        for _ in 0..20 {
            let x = ball_point(&mut rng);
            let signs: Vec<i8> = level
                .filtered
                .reps
                .iter()
                .map(|g| if g.eval(&x) < 0.0 { -1 } else { 1 })
                .collect();
            let slope: f64 = level.slope.iter().map(|&(i, a)| a * x[i]).sum();
            let expected = level.constant
                + slope
                + level
                    .filtered
                    .terms
                    .iter()
                    .map(|t| match *t {
                        Term::Rep { rep, factor, .. } => {
                            (factor * level.filtered.reps[rep].eval(&x)).min(0.0)
                        }
                        Term::Zero { .. } => 0.0,
                    })
                    .sum::<f64>();
            let phi = level.lagrangian_row(&signs).unwrap();
            let scale = 1.0 + expected.abs();
            assert!(
                (phi.eval(&x) - expected).abs() <= 1e-10 * scale,
                "seed {seed}: {} vs {expected}",
                phi.eval(&x)
            );
            assert!(phi.coeffs.windows(2).all(|w| w[0].0 < w[1].0));
            for row in layout.cell_rows(&level, &signs).unwrap() {
                assert!(increasing(&row), "seed {seed}: {row:?}");
            }
        }
    }
}
