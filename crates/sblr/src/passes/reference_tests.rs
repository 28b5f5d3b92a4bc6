//! The two data passes against plain reference loops, bit for bit: the vectorized kernels
//! (run through runtime SIMD dispatch, on 1, 2 or 3 threads) must round exactly as the
//! scalar loops below, which add the terms in the documented order.

use bl_core::data::{Element, MatrixDataset};
use bl_core::random::{fill_standard_normal, seeded_rng};

use super::{Stacked, pool};

/// `n` samples of `s x t` standard normals (labels alternate), stored as `T`.
fn samples<T: Element>(n: usize, s: usize, t: usize, seed: u64) -> MatrixDataset<T> {
    let mut rng = seeded_rng(seed);
    let mut x = vec![0.0; n * s * t];
    fill_standard_normal(&mut rng, &mut x);
    let values: Vec<T> = x.into_iter().map(T::from_f64).collect();
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    MatrixDataset::with_data(s, t, values, labels, vec!["a".into(), "b".into()]).unwrap()
}

/// Pass 1 by the scalar loop: `z[c][a] = ((0 + x_0[a] w_0c) + x_1[a] w_1c) + ...`.
fn reference_times_v<T: Element>(data: &MatrixDataset<T>, vt: &[f64], k: usize) -> Vec<f64> {
    let (s, t) = data.shape();
    let x = data.as_slice();
    let mut out = vec![0.0; s * k * data.n_samples()];
    for (i, zi) in out.chunks_exact_mut(s * k).enumerate() {
        for c in 0..k {
            for a in 0..s {
                let mut acc = 0.0;
                for j in 0..t {
                    acc += x[i * s * t + j * s + a].to_f64() * vt[j * k + c];
                }
                zi[c * s + a] = acc;
            }
        }
    }
    out
}

/// Pass 2 by the scalar loop: eight partial sums `p_l = sum_{a = l mod 8} x_a u_a` over the
/// full blocks of eight rows, a tail sum over the rest, combined as
/// `((p0 + p4) + (p1 + p5)) + ((p2 + p6) + (p3 + p7)) + tail`.
fn reference_u_times<T: Element>(data: &MatrixDataset<T>, u: &[f64], k: usize) -> Vec<f64> {
    let (s, t) = data.shape();
    let x = data.as_slice();
    let full = s - s % 8;
    let mut out = vec![0.0; k * t * data.n_samples()];
    for (i, zi) in out.chunks_exact_mut(k * t).enumerate() {
        for j in 0..t {
            let col = |a: usize| x[i * s * t + j * s + a].to_f64();
            for c in 0..k {
                let uc = &u[c * s..(c + 1) * s];
                let mut p = [0.0; 8];
                for a in 0..full {
                    p[a % 8] += col(a) * uc[a];
                }
                let mut tail = 0.0;
                for a in full..s {
                    tail += col(a) * uc[a];
                }
                zi[j * k + c] =
                    ((p[0] + p[4]) + (p[1] + p[5])) + ((p[2] + p[6]) + (p[3] + p[7])) + tail;
            }
        }
    }
    out
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn check_bit_identical<T: Element>(s: usize, t: usize, n: usize, seed: u64) {
    let data = samples::<T>(n, s, t, seed);
    let mut rng = seeded_rng(seed + 1);
    for k in 1..=5 {
        let mut vt = vec![0.0; k * t];
        let mut u = vec![0.0; s * k];
        fill_standard_normal(&mut rng, &mut vt);
        fill_standard_normal(&mut rng, &mut u);
        // Exact zeros, as the l1 penalty leaves in the factors.
        vt.iter_mut().step_by(3).for_each(|w| *w = 0.0);
        u.iter_mut().step_by(4).for_each(|w| *w = 0.0);
        let want_zu = bits(&reference_times_v(&data, &vt, k));
        let want_zv = bits(&reference_u_times(&data, &u, k));
        let stacked = Stacked::new(data.stacked(), s, t, n).unwrap();
        for threads in [Some(1), Some(2), Some(3)] {
            let pool = pool(threads).unwrap();
            let mut zu = vec![f64::NAN; s * k * n];
            let mut zv = vec![f64::NAN; k * t * n];
            stacked.times_v(&vt, k, &mut zu, &pool);
            stacked.u_times(&u, k, &mut zv, &pool);
            let ctx = format!("{} s={s} t={t} n={n} k={k} threads={threads:?}", T::NAME);
            assert_eq!(bits(&zu), want_zu, "pass 1, {ctx}");
            assert_eq!(bits(&zv), want_zv, "pass 2, {ctx}");
        }
    }
}

#[test]
fn passes_are_bit_identical_to_scalar_reference_loops() {
    // Odd sizes: rows not a multiple of any vector width, a single row, a single column.
    for (s, t, n) in [
        (13, 7, 5),
        (37, 11, 4),
        (1, 9, 3),
        (9, 1, 3),
        (64, 3, 2),
        (101, 5, 7),
    ] {
        check_bit_identical::<f64>(s, t, n, 17 + s as u64);
        check_bit_identical::<f32>(s, t, n, 29 + s as u64);
    }
}
