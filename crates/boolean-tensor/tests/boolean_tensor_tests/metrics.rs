//! Metrics: Hamming error after optimal matching (vs brute force), RMSE, completion RMSE,
//! the synthetic generator.

use boolean_tensor::metrics::{
    best_boolean_fit, boolean_residual, completion_rmse, hamming_error, rmse,
};
use boolean_tensor::{BooleanFactor, SyntheticParams, Tensor};
use rand::{RngExt, SeedableRng};

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            out.push(q);
        }
    }
    out
}

fn brute_force(truth: &[BooleanFactor], learned: &[BooleanFactor]) -> usize {
    // All factors along mode 0 here; pad learned with zero vectors up to max(len).
    let d = truth[0].z.len();
    let n = truth.len().max(learned.len());
    let mut padded: Vec<Vec<f64>> = learned.iter().map(|f| f.z.clone()).collect();
    padded.resize(n, vec![0.0; d]);
    permutations(n)
        .into_iter()
        .map(|p| {
            truth
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    t.z.iter()
                        .zip(&padded[p[i]])
                        .filter(|(a, b)| a != b)
                        .count()
                })
                .sum::<usize>()
        })
        .min()
        .unwrap()
}

#[test]
fn hamming_matching_equals_brute_force_over_permutations() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for trial in 0..40 {
        let kt = 1 + trial % 5;
        let kl = 1 + (trial / 5) % 5;
        let d = 7;
        let mut draw = |k: usize| -> Vec<BooleanFactor> {
            (0..k)
                .map(|_| BooleanFactor {
                    mode: 0,
                    z: (0..d)
                        .map(|_| f64::from(u8::from(rng.random_bool(0.5))))
                        .collect(),
                })
                .collect()
        };
        let truth = draw(kt);
        let learned = draw(kl);
        let m = hamming_error(&truth, &learned).unwrap();
        assert_eq!(m.errors, brute_force(&truth, &learned), "trial {trial}");
        assert_eq!(m.total, kt * d);
        // The assignment is a matching that realizes the cost.
        let mut used = vec![false; kl];
        let mut cost = 0;
        for (i, a) in m.assignment.iter().enumerate() {
            let z = match a {
                Some(j) => {
                    assert!(!used[*j]);
                    used[*j] = true;
                    learned[*j].z.clone()
                }
                None => vec![0.0; d],
            };
            cost += truth[i].z.iter().zip(&z).filter(|(a, b)| a != b).count();
        }
        assert_eq!(cost, m.errors);
    }
}

#[test]
fn hamming_only_matches_within_a_mode() {
    let factor = |mode: usize, z: &[f64]| BooleanFactor {
        mode,
        z: z.to_vec(),
    };
    let truth = vec![factor(0, &[1.0, 1.0, 0.0]), factor(2, &[0.0, 1.0])];
    let learned = vec![factor(2, &[1.0, 1.0, 0.0]), factor(0, &[0.0, 1.0, 0.0])];
    // Wrong mode lengths are caught.
    assert!(hamming_error(&truth, &learned).is_err());
    let learned = vec![factor(0, &[1.0, 1.0, 0.0])];
    let m = hamming_error(&truth, &learned).unwrap();
    // Mode-2 truth unmatched: compared with zero, one error.
    assert_eq!(m.errors, 1);
    assert_eq!(m.assignment, vec![Some(0), None]);
    assert!(hamming_error(&[], &learned).is_err());
    let not_boolean = vec![BooleanFactor {
        mode: 0,
        z: vec![0.5, 1.0, 0.0],
    }];
    assert!(hamming_error(&truth, &not_boolean).is_err());
}

#[test]
fn boolean_residual_matches_enumeration_and_vanishes_on_scaled_boolean_vectors() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    for _ in 0..30 {
        let r: Vec<f64> = (0..7).map(|_| rng.random_range(-2.0..3.0)).collect();
        // Every support S with its best scale (the mean over S); S = {} gives ||r||.
        let norm_sq: f64 = r.iter().map(|v| v * v).sum();
        let mut best = norm_sq;
        for bits in 1u32..(1 << r.len()) {
            let s: Vec<usize> = (0..r.len()).filter(|&i| bits >> i & 1 == 1).collect();
            let c = s.iter().map(|&i| r[i]).sum::<f64>() / s.len() as f64;
            let res: f64 = (0..r.len())
                .map(|i| {
                    let fit = if bits >> i & 1 == 1 { c } else { 0.0 };
                    (r[i] - fit).powi(2)
                })
                .sum();
            best = best.min(res);
        }
        let expected = (best / norm_sq).sqrt();
        let ours = boolean_residual(&r);
        assert!((ours - expected).abs() <= 1e-12, "{ours} vs {expected}");
    }
    assert_eq!(boolean_residual(&[0.0, -2.5, -2.5, 0.0]), 0.0);
    assert_eq!(boolean_residual(&[0.0; 3]), 0.0);
}

#[test]
fn best_boolean_fit_is_exact_by_enumeration() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for _ in 0..50 {
        let r: Vec<f64> = (0..8).map(|_| rng.random_range(-2.0..3.0)).collect();
        let (z, c) = best_boolean_fit(&r);
        let loss = |z: &[f64], c: f64| {
            r.iter()
                .zip(z)
                .map(|(x, b)| (x - c * b).powi(2))
                .sum::<f64>()
        };
        let ours = loss(&z, c);
        for mask in 1u32..256 {
            let zz: Vec<f64> = (0..8).map(|i| f64::from((mask >> i) & 1)).collect();
            let k = zz.iter().sum::<f64>();
            let cc = r.iter().zip(&zz).map(|(x, b)| x * b).sum::<f64>() / k;
            assert!(ours <= loss(&zz, cc) + 1e-12);
        }
    }
    assert_eq!(best_boolean_fit(&[0.0, 0.0]).1, 0.0);
}

#[test]
fn rmse_and_completion_rmse() {
    let a = Tensor::from_fn([2, 2, 2], |i, j, k| (i + j + k) as f64).unwrap();
    let b = Tensor::from_fn([2, 2, 2], |i, j, k| {
        (i + j + k) as f64 + if i == 0 { 1.0 } else { 0.0 }
    })
    .unwrap();
    assert!((rmse(&a, &b).unwrap() - 0.5f64.sqrt()).abs() < 1e-15);
    let mask: Vec<bool> = (0..8).map(|i| i % 2 == 1).collect(); // entries with i = 0 missing
    assert!((completion_rmse(&a, &b, &mask).unwrap() - 1.0).abs() < 1e-15);
    assert!(completion_rmse(&a, &b, &[true; 8]).is_err());
    assert!(completion_rmse(&a, &b, &[true; 7]).is_err());
    let c = Tensor::zeros([2, 2, 3]).unwrap();
    assert!(rmse(&a, &c).is_err());
}

#[test]
fn synthetic_data_follows_model_one_and_is_seeded() {
    let p = SyntheticParams::default()
        .shape([9, 8, 7])
        .n_atoms(5)
        .noise_std(0.1)
        .missing_fraction(0.25)
        .seed(3);
    let a = p.generate().unwrap();
    let b = p.generate().unwrap();
    assert_eq!(a.observed(), b.observed());
    let c = p.clone().seed(4).generate().unwrap();
    assert_ne!(a.observed().data(), c.observed().data());
    let modes: Vec<usize> = a.atoms().iter().map(|x| x.mode()).collect();
    assert_eq!(modes, vec![0, 1, 2, 0, 1]);
    let missing = a.observed().mask().unwrap().iter().filter(|m| !**m).count();
    assert_eq!(missing, (0.25f64 * 504.0).round() as usize);
    // Noise level: observed minus clean on the observed entries has std close to 0.1.
    let (mut s, mut n) = (0.0, 0.0);
    for i in 0..a.clean().len() {
        if a.observed().is_observed(i) {
            s += (a.observed().data()[i] - a.clean().data()[i]).powi(2);
            n += 1.0;
        }
    }
    let std = (s / n).sqrt();
    assert!((std - 0.1).abs() < 0.02, "noise std {std}");
    for atom in a.atoms() {
        assert!(atom.z().iter().all(|&v| v == 0.0 || v == 1.0));
        assert!(atom.z().contains(&1.0));
    }
}
