//! Mixing the shards' weights ([`IpmPlan::mix`]) and its arithmetic.

use bl_core::error::build::invalid;

use super::weights::Body;
use super::{IpmPlan, IpmWeights};
use crate::error::{OblError, Result};
use crate::learner::DenseParts;
use crate::rank_one::RankOneParts;
use crate::sparse::SparseRows;

impl IpmPlan {
    /// The mixed weights of an epoch: `start` are the weights every shard started the
    /// epoch from, `shards` what each returned
    /// ([`Shard::run_epoch`](super::Shard::run_epoch)), one per shard in shard order.
    /// Uniform mixing, as the [module docs](super) say; mixing one state returns it
    /// unchanged.
    ///
    /// # Errors
    /// Invalid-parameter errors for a number of weights other than the plan's shard count,
    /// weights of another plan, or shards that did not run the epoch after `start`;
    /// [`bl_core::BlError::Numerical`] (in [`OblError::Core`]) when sp's scaled weights
    /// leave the integers exactly representable (`2^53`).
    pub fn mix(&self, start: &IpmWeights, shards: &[IpmWeights]) -> Result<IpmWeights> {
        self.check_weights(start, "start")?;
        if shards.len() != self.n_shards {
            return Err(invalid(
                "shards",
                format!("{} weights", shards.len()),
                format!("one per shard ({})", self.n_shards),
            ));
        }
        for (i, s) in shards.iter().enumerate() {
            self.check_weights(s, "shard weights")?;
            if s.header.epoch != start.header.epoch + 1 || s.header.steps < start.header.steps {
                return Err(invalid(
                    "shards",
                    format!(
                        "shard {i}'s weights of epoch {} (steps {}) after a start of epoch {} (steps {})",
                        s.header.epoch, s.header.steps, start.header.epoch, start.header.steps
                    ),
                    "the weights of the epoch after the start",
                ));
            }
        }
        if let [only] = shards {
            return Ok(only.clone());
        }
        let t0 = start.header.steps;
        let mut t_new = t0;
        for s in shards {
            t_new = t_new
                .checked_add(s.header.steps - t0)
                .ok_or_else(|| invalid::<OblError>("steps", "beyond u64", "fewer steps"))?;
        }
        let steps = Steps {
            t0: t0 as f64,
            t: shards.iter().map(|s| s.header.steps as f64).collect(),
            t_new: t_new as f64,
        };
        let zeros = |f: &dyn Fn(&Body) -> Option<&SparseRows>| -> Result<Option<SparseRows>> {
            let Some(z0) = f(&start.body) else {
                return Ok(None);
            };
            mix_rows(z0, &parts(shards, f), &steps, t_new).map(Some)
        };
        let body = match &start.body {
            Body::Sp { w: w0, .. } => {
                let ws = parts(shards, |b| match b {
                    Body::Sp { w, .. } => Some(w),
                    _ => None,
                });
                let w = mix_rows(w0, &ws, &steps, t_new)?;
                let zero = zeros(&|b| match b {
                    Body::Sp { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                check_integral(&w)?;
                if let Some(z) = &zero {
                    check_integral(z)?;
                }
                Body::Sp { w, zero }
            }
            Body::Bol { rank_one: r0, .. } => {
                let rank_ones = parts(shards, |b| match b {
                    Body::Bol { rank_one, .. } => Some(rank_one),
                    _ => None,
                });
                let rank_one = self.mix_rank_one(r0, &rank_ones, &steps, t_new)?;
                let zero = zeros(&|b| match b {
                    Body::Bol { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                Body::Bol { rank_one, zero }
            }
            Body::Bcd {
                alpha: a0,
                beta: b0,
                ..
            } => {
                let alphas = parts(shards, |b| match b {
                    Body::Bcd { alpha, .. } => Some(alpha),
                    _ => None,
                });
                let betas = parts(shards, |b| match b {
                    Body::Bcd { beta, .. } => Some(beta),
                    _ => None,
                });
                let zero = zeros(&|b| match b {
                    Body::Bcd { zero, .. } => zero.as_ref(),
                    _ => None,
                })?;
                Body::Bcd {
                    alpha: mix_dense(a0, &alphas, &steps),
                    beta: mix_dense(b0, &betas, &steps),
                    zero,
                }
            }
        };
        Ok(IpmWeights {
            header: self.header(start.header.epoch + 1, t_new),
            body,
        })
    }

    /// bol's mixed state: `Theta` the mean, each block's factors the rank-one projection of
    /// the mean of the shards' primal blocks (see the module docs), the averages of the
    /// factors as every averaged value.
    fn mix_rank_one(
        &self,
        start: &RankOneParts,
        shards: &[&RankOneParts],
        steps: &Steps,
        t_new: u64,
    ) -> Result<RankOneParts> {
        let (l, p) = (self.tags.len(), self.tags.len() + 1);
        let thetas: Vec<&SparseRows> = shards.iter().map(|s| &s.theta).collect();
        let theta = mix_rows(&start.theta, &thetas, steps, 0)?;
        let mut blocks: Vec<u32> = shards
            .iter()
            .flat_map(|s| s.blocks.iter().copied())
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        let n = blocks.len();
        let averaging = start.averages.is_some();
        let mut out = RankOneParts {
            theta,
            blocks: Vec::with_capacity(n),
            sigma: Vec::with_capacity(n),
            v: Vec::with_capacity(n * p),
            alpha: Vec::with_capacity(n * l),
            averages: averaging.then(|| (Vec::with_capacity(n * l), Vec::with_capacity(n * p))),
            steps: t_new,
        };
        let uniform = 1.0 / (p as f64).sqrt();
        let slot = |r: &RankOneParts, k: u32| r.blocks.binary_search(&k).ok();
        let (mut u, mut v) = (vec![0.0; l], vec![0.0; p]);
        let mut xs = vec![0.0; shards.len()];
        let mut accs = vec![0.0; shards.len()];
        // Reused for every block: a mix touches millions of blocks on a tagging corpus.
        let mut slots: Vec<Option<usize>> = Vec::with_capacity(shards.len());
        let mut held: Vec<PrimalBlock<'_>> = Vec::with_capacity(shards.len());
        let mut scratch = MeanRankOne::default();
        for &k in &blocks {
            slots.clear();
            slots.extend(shards.iter().map(|s| slot(s, k)));
            let same = slots.iter().all(Option::is_some)
                && shards.windows(2).zip(slots.windows(2)).all(|(r, s)| {
                    let (a, b, sa, sb) = (r[0], r[1], s[0].unwrap_or(0), s[1].unwrap_or(0));
                    fn row(x: &RankOneParts, k: u32) -> (&[u32], &[f64]) {
                        x.theta.row(k as usize)
                    }
                    bits_eq(row(a, k).1, row(b, k).1)
                        && row(a, k).0 == row(b, k).0
                        && a.sigma[sa].to_bits() == b.sigma[sb].to_bits()
                        && bits_eq(&a.v[sa * p..(sa + 1) * p], &b.v[sb * p..(sb + 1) * p])
                        && bits_eq(
                            &a.alpha[sa * l..(sa + 1) * l],
                            &b.alpha[sb * l..(sb + 1) * l],
                        )
                });
            let sigma = if same {
                let s0 = slots[0].unwrap_or(0);
                v.copy_from_slice(&shards[0].v[s0 * p..(s0 + 1) * p]);
                u.copy_from_slice(&shards[0].alpha[s0 * l..(s0 + 1) * l]);
                shards[0].sigma[s0]
            } else {
                // The sign reference of the warm start: the block's v_k at the start of the
                // epoch, else the first shard's that holds the block.
                let reference = match slot(start, k) {
                    Some(j) => &start.v[j * p..(j + 1) * p],
                    None => shards
                        .iter()
                        .zip(&slots)
                        .find_map(|(s, sl)| sl.map(|j| &s.v[j * p..(j + 1) * p]))
                        .unwrap_or(&[]),
                };
                held.clear();
                held.extend(shards.iter().zip(&slots).filter_map(|(s, sl)| {
                    let j = (*sl)?;
                    let root_sigma = s.sigma[j].sqrt();
                    // Blocks with beta_i = 0 add nothing to W.
                    (root_sigma > 0.0 && root_sigma.is_finite()).then(|| PrimalBlock {
                        alpha: &s.alpha[j * l..(j + 1) * l],
                        root_sigma,
                        v: &s.v[j * p..(j + 1) * p],
                    })
                }));
                let sigma = scratch.solve(&held, shards.len(), reference, &mut u, &mut v);
                if sigma == 0.0 {
                    v.fill(uniform);
                }
                sigma
            };
            // `u` now holds alpha_k, `v` the unit v_k.
            let s0 = slot(start, k);
            if let Some((acc_alpha, acc_beta)) = out.averages.as_mut() {
                let (start_alpha, start_beta) = start
                    .averages
                    .as_ref()
                    .map_or((&[][..], &[][..]), |(a, b)| (a, b));
                for a in 0..l {
                    let x0 = s0.map_or(0.0, |j| start.alpha[j * l + a]);
                    let a0 = s0.map_or(0.0, |j| start_alpha[j * l + a]);
                    for (i, (s, sl)) in shards.iter().zip(&slots).enumerate() {
                        let acc = s.averages.as_ref().map_or(&[][..], |(a, _)| a);
                        (xs[i], accs[i]) =
                            sl.map_or((x0, a0), |j| (s.alpha[j * l + a], acc[j * l + a]));
                    }
                    acc_alpha.push(mixed_acc(x0, a0, &xs, &accs, u[a], steps));
                }
                let beta_of =
                    |r: &RankOneParts, j: usize, b: usize| r.sigma[j].sqrt() * r.v[j * p + b];
                for b in 0..p {
                    let x0 = s0.map_or(0.0, |j| beta_of(start, j, b));
                    let a0 = s0.map_or(0.0, |j| start_beta[j * p + b]);
                    for (i, (s, sl)) in shards.iter().zip(&slots).enumerate() {
                        let acc = s.averages.as_ref().map_or(&[][..], |(_, b)| b);
                        (xs[i], accs[i]) =
                            sl.map_or((x0, a0), |j| (beta_of(s, j, b), acc[j * p + b]));
                    }
                    acc_beta.push(mixed_acc(x0, a0, &xs, &accs, sigma.sqrt() * v[b], steps));
                }
            }
            out.blocks.push(k);
            out.sigma.push(sigma);
            out.v.extend_from_slice(&v);
            out.alpha.extend_from_slice(&u);
        }
        Ok(out)
    }
}

/// The part `f` picks out of each shard's body, in shard order (a body of another kind
/// has none).
fn parts<'a, T>(shards: &'a [IpmWeights], f: impl Fn(&'a Body) -> Option<&'a T>) -> Vec<&'a T> {
    shards.iter().filter_map(|s| f(&s.body)).collect()
}

/// The recorded steps of a mix: of the start, of each shard, and of the mixed state.
struct Steps {
    t0: f64,
    t: Vec<f64>,
    t_new: f64,
}

/// One shard's primal block `alpha_k beta_k^T` with `beta_k = sqrt(sigma_k) v_k`.
struct PrimalBlock<'a> {
    alpha: &'a [f64],
    root_sigma: f64,
    v: &'a [f64],
}

/// The workspace of the mean primal block's leading pair, reused across the blocks of a
/// mix so that the mix allocates nothing per block.
#[derive(Default)]
struct MeanRankOne {
    /// Gram matrix of `A` (columns `alpha_i`), `m x m` row-major.
    ga: Vec<f64>,
    /// Gram matrix of `B` (columns `beta_i`).
    gb: Vec<f64>,
    /// The coordinates `c` of `v = B c`.
    c: Vec<f64>,
    t: Vec<f64>,
    next: Vec<f64>,
}

impl MeanRankOne {
    /// The leading singular pair of the mean primal block
    /// `W = (1/k) sum_i alpha_i beta_i^T` over `k` shards, of which `held` hold the block
    /// with `beta_i != 0` (the others count 0): bol's mixed factors. Leaves
    /// `alpha = sqrt(sigma) u` in `u` and the unit `v` in `v`; returns `sigma` (0 when
    /// `W = 0`, with `u` zero and `v` unspecified).
    ///
    /// `W = A B^T / k` has rank at most `m = held.len()`, so the pair is found in the
    /// coordinates `c` of `v = B c`: `W^T W v = B (A^T A)(B^T B) c / k^2`, power steps on
    /// the `m x m` matrix `(A^T A)(B^T B)` (`O(m^2 (L + P))` for the two Gram matrices,
    /// `O(m^2)` a step), warm-started at the mean of the shards' `v_i`, each turned to the
    /// side of `reference` (`(u, v)` and `(-u, -v)` are the same block).
    fn solve(
        &mut self,
        held: &[PrimalBlock<'_>],
        k: usize,
        reference: &[f64],
        u: &mut [f64],
        v: &mut [f64],
    ) -> f64 {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let m = held.len();
        u.fill(0.0);
        if m == 0 {
            return 0.0;
        }
        let Self { ga, gb, c, t, next } = self;
        for x in [&mut *ga, &mut *gb] {
            x.clear();
            x.resize(m * m, 0.0);
        }
        for x in [&mut *t, &mut *next] {
            x.clear();
            x.resize(m, 0.0);
        }
        for i in 0..m {
            for j in 0..=i {
                let a = dot(held[i].alpha, held[j].alpha);
                let b = held[i].root_sigma * held[j].root_sigma * dot(held[i].v, held[j].v);
                (ga[i * m + j], ga[j * m + i]) = (a, a);
                (gb[i * m + j], gb[j * m + i]) = (b, b);
            }
        }
        // Warm start: v = sum_i s_i v_i = B c with c_i = s_i / sqrt(sigma_i).
        c.clear();
        c.extend(held.iter().map(|b| {
            let side = if dot(b.v, reference) < 0.0 { -1.0 } else { 1.0 };
            side / b.root_sigma
        }));
        let gb = &*gb;
        let norm_v = |c: &[f64]| {
            let mut q = 0.0;
            for i in 0..m {
                q += c[i] * dot(&gb[i * m..(i + 1) * m], c);
            }
            q.max(0.0).sqrt()
        };
        for _ in 0..MEAN_RANK_ONE_STEPS {
            let n = norm_v(c);
            if n == 0.0 || !n.is_finite() {
                break;
            }
            c.iter_mut().for_each(|x| *x /= n);
            for i in 0..m {
                t[i] = dot(&gb[i * m..(i + 1) * m], c);
            }
            for i in 0..m {
                next[i] = dot(&ga[i * m..(i + 1) * m], t);
            }
            // Converged when the direction of v no longer moves: compare the normalized
            // coordinates.
            let n_next = norm_v(next);
            if n_next == 0.0 || !n_next.is_finite() {
                break;
            }
            let moved = c
                .iter()
                .zip(next.iter())
                .map(|(a, b)| (a - b / n_next).abs())
                .fold(0.0, f64::max);
            c.iter_mut()
                .zip(next.iter())
                .for_each(|(a, b)| *a = b / n_next);
            if moved <= 1e-14 * c.iter().fold(0.0_f64, |m, x| m.max(x.abs())) {
                break;
            }
        }
        let n = norm_v(c);
        if n == 0.0 || !n.is_finite() {
            return 0.0;
        }
        // v = B c / |B c|; z = W v = A (B^T v) / k; sigma = |z|.
        v.fill(0.0);
        for (b, &ci) in held.iter().zip(c.iter()) {
            let w = ci * b.root_sigma / n;
            v.iter_mut().zip(b.v).for_each(|(x, y)| *x += w * y);
        }
        for b in held {
            let w = b.root_sigma * dot(b.v, v) / k as f64;
            u.iter_mut().zip(b.alpha).for_each(|(x, y)| *x += w * y);
        }
        let sigma = dot(u, u).sqrt();
        if sigma == 0.0 || !sigma.is_finite() {
            u.fill(0.0);
            return 0.0;
        }
        // alpha = sqrt(sigma) u_unit = z / sqrt(sigma).
        let root = sigma.sqrt();
        u.iter_mut().for_each(|x| *x /= root);
        sigma
    }
}

/// Power steps of [`MeanRankOne::solve`] at most (each `O(m^2)` for `m` shards).
const MEAN_RANK_ONE_STEPS: usize = 200;

fn bits_eq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The mean of `xs`: the value itself when all are equal (bit for bit), else their sum in
/// order divided by their count.
fn mean(xs: &[f64]) -> f64 {
    let first = xs[0];
    if xs.iter().all(|x| x.to_bits() == first.to_bits()) {
        return first;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The mixed accumulator of a value that was `x0` (accumulator `a0`) at the start, `xs[i]`
/// (`accs[i]`) in shard `i`, and is `x` mixed: `T' x - (S_0 + sum_i (S_i - S_0))` with
/// `S = T x - acc` (module docs).
fn mixed_acc(x0: f64, a0: f64, xs: &[f64], accs: &[f64], x: f64, steps: &Steps) -> f64 {
    let s0 = steps.t0 * x0 - a0;
    let mut s = s0;
    for ((&xi, &ai), &ti) in xs.iter().zip(accs).zip(&steps.t) {
        s += (ti * xi - ai) - s0;
    }
    steps.t_new * x - s
}

/// The mixed sparse store: per cell the mean of the shards' values (0 where a shard has
/// no cell) and, when averaging, the mixed accumulator; `t_new` recorded steps.
fn mix_rows(
    start: &SparseRows,
    shards: &[&SparseRows],
    steps: &Steps,
    t_new: u64,
) -> Result<SparseRows> {
    let n_rows = start.n_rows();
    let averaging = start.averaging();
    let k = shards.len();
    let (mut ids, mut lens, mut codes, mut w, mut acc) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut cells: Vec<(u32, usize, f64, f64)> = Vec::new();
    let (mut xs, mut accs) = (vec![0.0; k], vec![0.0; k]);
    for row in 0..n_rows {
        cells.clear();
        for (i, s) in shards.iter().enumerate() {
            let (c, v) = s.row(row);
            let a = s.row_acc(row);
            for (j, (&c, &v)) in c.iter().zip(v).enumerate() {
                cells.push((c, i, v, a.get(j).copied().unwrap_or(0.0)));
            }
        }
        if cells.is_empty() {
            continue;
        }
        cells.sort_unstable_by_key(|&(c, i, _, _)| (c, i));
        let (c0, v0) = start.row(row);
        let a0s = start.row_acc(row);
        let before = codes.len();
        let mut at = 0;
        while at < cells.len() {
            let code = cells[at].0;
            xs.fill(0.0);
            accs.fill(0.0);
            while at < cells.len() && cells[at].0 == code {
                let (_, i, v, a) = cells[at];
                (xs[i], accs[i]) = (v, a);
                at += 1;
            }
            let x = mean(&xs);
            codes.push(code);
            w.push(x);
            if averaging {
                let (x0, a0) = c0
                    .binary_search(&code)
                    .map_or((0.0, 0.0), |j| (v0[j], a0s.get(j).copied().unwrap_or(0.0)));
                acc.push(mixed_acc(x0, a0, &xs, &accs, x, steps));
            }
        }
        ids.push(row);
        lens.push(codes.len() - before);
    }
    let width = start.width();
    SparseRows::from_rows(n_rows, width, averaging, t_new, |add| {
        let mut at = 0;
        for (&row, &n) in ids.iter().zip(&lens) {
            let a = if averaging { &acc[at..at + n] } else { &[][..] };
            add(row, &codes[at..at + n], &w[at..at + n], a);
            at += n;
        }
    })
}

/// The mixed dense factor of bcd: per entry the mean and, when averaging, the mixed
/// accumulator.
fn mix_dense(start: &DenseParts, shards: &[&DenseParts], steps: &Steps) -> DenseParts {
    let n = start.0.len();
    let mut xs = vec![0.0; shards.len()];
    let mut accs = vec![0.0; shards.len()];
    let mut x = Vec::with_capacity(n);
    let mut acc = start.1.as_ref().map(|_| Vec::with_capacity(n));
    for j in 0..n {
        for (i, s) in shards.iter().enumerate() {
            xs[i] = s.0[j];
            accs[i] = s.1.as_ref().map_or(0.0, |a| a[j]);
        }
        let m = mean(&xs);
        x.push(m);
        if let (Some(out), Some(a0)) = (acc.as_mut(), start.1.as_ref()) {
            out.push(mixed_acc(start.0[j], a0[j], &xs, &accs, m, steps));
        }
    }
    (x, acc)
}

/// sp's scaled weights must stay integers below `2^53` (exact in `f64`).
fn check_integral(rows: &SparseRows) -> Result<()> {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    for k in 0..rows.n_rows() {
        let (_, w) = rows.row(k);
        for &x in w.iter().chain(rows.row_acc(k)) {
            if x.fract() != 0.0 || x.abs() >= LIMIT {
                return Err(OblError::Core(bl_core::BlError::Numerical {
                    context: "distributed sp",
                    message: format!(
                        "a scaled weight or accumulator {x} is not an integer below 2^53"
                    ),
                }));
            }
        }
    }
    Ok(())
}
