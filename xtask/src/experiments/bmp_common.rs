//! Shared code of the BMP experiments (`bmp-fig1`, `bmp-fig2`, `bmp-fig4`): the six
//! methods at a given number of atoms, their budgets per scale, the real tensor.
//!
//! "k atoms" per method (see each method's module docs in `boolean-tensor`):
//! BMP = its first `k` greedy atoms (one run to the largest `k`, models along the path);
//! CP-ALS = rank `k`; Tucker = HOSVD of multilinear rank `(k, k, k)` (capped);
//! LFM = `k` Boolean columns of the best mode (chosen by training loss);
//! LFMmix = `k` Boolean columns over all modes; SUSTain = rank `k` with one Boolean mode.

use anyhow::Context as _;
use boolean_tensor::{
    Bmp, BooleanFactor, CpAls, Decomposition, Fit, FittedBmp, FittedCp, Lfm, Sustain, Tensor,
    Tucker, metrics,
};

use super::{Ctx, Scale, format_number};
use crate::stats::{self, Interval, Verdict};

/// The methods, in the order of the plots and tables.
pub const METHODS: [&str; 6] = ["BMP", "CP-ALS", "Tucker", "LFM", "LFMmix", "SUSTain"];

/// Iteration budgets of the baselines per scale (the same for every data set).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub cp_starts: usize,
    pub cp_iter: usize,
    pub sustain_starts: usize,
    pub sustain_iter: usize,
    pub bmp_refit: usize,
    pub bmp_refit_tol: f64,
}

impl Budget {
    pub fn for_scale(scale: Scale) -> Self {
        Self {
            // Paper scale as quick: with 2 starts and 150 sweeps CP-ALS stopped short on
            // the Syn1 completion at 150^3 (RMSE 0.69; 3 starts and 300 sweeps: 3e-11).
            cp_starts: scale.pick(2, 3, 3),
            cp_iter: scale.pick(100, 300, 300),
            sustain_starts: 1,
            sustain_iter: scale.pick(30, 60, 60),
            // 30 at every scale: with 10% missing the refit is an EM iteration that
            // converges linearly; 5 sweeps left the paper-scale completions at 1e-7..1e-3
            // RMSE, 30 reach the rounding level (docs/papers/bmp.md, "Speed").
            bmp_refit: 30,
            bmp_refit_tol: 1e-9,
        }
    }

    /// The budget for the real tensor: it has no exact low-rank structure, so the BMP refit
    /// sweeps would run to their cap at every step; fewer, with a looser tolerance.
    pub fn for_real_data(scale: Scale) -> Self {
        Self {
            bmp_refit: scale.pick(5, 3, 2),
            bmp_refit_tol: 1e-6,
            ..Self::for_scale(scale)
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "CP-ALS: {} starts (HOSVD + Gaussian), at most {} sweeps, tol 1e-9; Tucker: HOSVD \
             (EM, at most 30 rounds, with missing entries); LFM / LFMmix: greedy Boolean \
             columns, mixing-method QP, 10 alternations, 5 EM rounds per solve; SUSTain: each \
             mode tried as the Boolean mode, {} start(s) each, at most {} sweeps, the Boolean \
             factor updated column by column (hierarchical); BMP: \
             mixing-method QP (tol 1e-4, 32 roundings), 10 alternations, at most {} refit \
             sweeps per step (until a sweep gains less than a fraction {:e} of the loss).",
            self.cp_starts,
            self.cp_iter,
            self.sustain_starts,
            self.sustain_iter,
            self.bmp_refit,
            self.bmp_refit_tol
        )
    }
}

/// One method at one number of atoms: the fitted tensor and its Boolean factors
/// (`None` for a method without any).
pub struct Evaluated {
    pub method: usize,
    pub atoms: usize,
    pub tensor: Tensor,
    pub factors: Option<Vec<BooleanFactor>>,
    /// CP-ALS only: [`cp_boolean_residual`] of its factors.
    pub boolean_residual: Option<f64>,
    /// BMP only: the loss `F(W^j) = 1/2 ||P_Omega(X - W^j)||^2` for `j = 0, 1, ...,` up
    /// to the largest number of atoms of the run (`F(W^0) = F(0)`).
    pub loss_path: Option<Vec<f64>>,
    pub seconds: f64,
}

/// A fitted model as [`run_methods`] hands it on.
struct Model {
    tensor: Tensor,
    factors: Option<Vec<BooleanFactor>>,
    boolean_residual: Option<f64>,
}

impl Model {
    fn new(tensor: Tensor, factors: Option<Vec<BooleanFactor>>) -> Self {
        Self {
            tensor,
            factors,
            boolean_residual: None,
        }
    }
}

/// How Boolean a tensor's CP factors are: for each component, the smallest
/// `metrics::boolean_residual` (`||f - c 1_S|| / ||f||`) of its three factor columns,
/// averaged over the components. Near 0 when every component has a (scaled) Boolean factor
/// along some mode, as on data of model (1); up to 1 otherwise.
pub fn cp_boolean_residual(fit: &FittedCp) -> f64 {
    let f = fit.factors();
    let rank = f[0].ncols();
    let per_component = (0..rank).map(|r| {
        f.iter()
            .map(|fm| {
                let col: Vec<f64> = (0..fm.nrows()).map(|i| fm[(i, r)]).collect();
                metrics::boolean_residual(&col)
            })
            .fold(f64::INFINITY, f64::min)
    });
    per_component.sum::<f64>() / rank.max(1) as f64
}

/// Fits the six methods to `x` at every number of atoms in `grid` (increasing) and hands
/// each result to `sink`.
pub fn run_methods(
    x: &Tensor,
    grid: &[usize],
    budget: Budget,
    seed: u64,
    mut sink: impl FnMut(Evaluated) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let kmax = *grid.iter().max().context("empty grid of atom counts")?;
    // BMP: one run to kmax, models along the path.
    let t = std::time::Instant::now();
    let bmp = Bmp::params()
        .max_iter(kmax)
        .tol(0.0)
        .refit_sweeps(budget.bmp_refit)
        .refit_tol(budget.bmp_refit_tol)
        .seed(seed)
        .fit(x)?;
    let bmp_time = t.elapsed().as_secs_f64();
    let loss_path = loss_path(x, &bmp);
    for &k in grid {
        let kk = k.min(bmp.n_atoms());
        sink(Evaluated {
            method: 0,
            atoms: k,
            tensor: bmp.reconstruct_first(kk)?,
            factors: Some(bmp.boolean_factors_at(kk)),
            boolean_residual: None,
            loss_path: Some(loss_path.clone()),
            seconds: bmp_time * kk as f64 / kmax as f64,
        })?;
    }
    for &k in grid {
        let timed = |f: &dyn Fn() -> Fitted| {
            let t = std::time::Instant::now();
            let r = f()?;
            Ok::<_, anyhow::Error>((r, t.elapsed().as_secs_f64()))
        };
        let fits: [&dyn Fn() -> Fitted; 5] = [
            &|| {
                let f = CpAls::params()
                    .rank(k)
                    .n_starts(budget.cp_starts)
                    .max_iter(budget.cp_iter)
                    .seed(seed)
                    .fit(x)?;
                Ok(Model {
                    boolean_residual: Some(cp_boolean_residual(&f)),
                    ..Model::new(f.reconstruct()?, Some(f.boolean_factors()))
                })
            },
            &|| {
                let f = Tucker::params().for_atoms(k).fit(x)?;
                Ok(Model::new(f.reconstruct()?, None))
            },
            &|| {
                let f = Lfm::params().max_iter(k).seed(seed).fit(x)?;
                Ok(Model::new(f.reconstruct()?, Some(f.boolean_factors())))
            },
            &|| {
                let f = Lfm::params().max_iter(k).seed(seed).mix().fit(x)?;
                Ok(Model::new(f.reconstruct()?, Some(f.boolean_factors())))
            },
            &|| {
                let f = Sustain::params()
                    .rank(k)
                    .n_starts(budget.sustain_starts)
                    .max_iter(budget.sustain_iter)
                    .seed(seed)
                    .fit(x)?;
                Ok(Model::new(f.reconstruct()?, Some(f.boolean_factors())))
            },
        ];
        for (i, fit) in fits.iter().enumerate() {
            let (model, seconds) =
                timed(*fit).with_context(|| format!("{} with {k} atoms", METHODS[i + 1]))?;
            sink(Evaluated {
                method: i + 1,
                atoms: k,
                tensor: model.tensor,
                factors: model.factors,
                boolean_residual: model.boolean_residual,
                loss_path: None,
                seconds,
            })?;
        }
    }
    Ok(())
}

/// BMP as the paper prints it (Algorithms 1-2), as far as the crate's parameters reach:
/// the atom search's `z` from the Boolean QP alone (`alternations(0)`: no exact `z`
/// update, no single-row starts) and only the coefficients corrected after each atom
/// (`refit_sweeps(0)`: no refit sweeps, hence no EM imputation of missing entries). Kept
/// from our reading: the sign of the atom search (the printed sign picks `z = 0`), the
/// rank-1 atom of eq. (5) (the leading singular pair of Algorithm 2's `v`) and the choice
/// among modes by `<R, M> / ||M||_F` (Algorithm 2's line 10 is defined and runs, but `Bmp`
/// has no switch for it; `docs/papers/bmp.md`, "BMP as printed" and "Where we differ").
pub const AS_PRINTED: &str = "Algorithms 1-2 as printed with the sign of the atom search \
     fixed: the Boolean QP's z with the rank-1 atom of eq. (5), coefficients-only fully \
     corrective step (alternations 0, refit sweeps 0; no EM imputation); the choice among \
     modes is ours, the largest `<R, M> / ||M||_F`, not Algorithm 2's most negative \
     unnormalized `<grad F(W), M_n>` (BMP has no switch for it)";

/// The two readings of BMP the reports run, as their claims name them (`judges`): ours
/// and [`AS_PRINTED`].
pub const READINGS: [&str; 2] = ["ours", "as printed"];

/// Fits [`AS_PRINTED`] BMP with `kmax` atoms; returns the fit and its seconds.
pub fn bmp_as_printed(x: &Tensor, kmax: usize, seed: u64) -> anyhow::Result<(FittedBmp, f64)> {
    let t = std::time::Instant::now();
    let fit = Bmp::params()
        .max_iter(kmax)
        .tol(0.0)
        .alternations(0)
        .refit_sweeps(0)
        .seed(seed)
        .fit(x)?;
    Ok((fit, t.elapsed().as_secs_f64()))
}

/// The loss path `F(W^j)`, `j = 0, 1, ...`, of a BMP fit (see [`Evaluated::loss_path`]).
pub fn loss_path(x: &Tensor, fit: &FittedBmp) -> Vec<f64> {
    let n_obs = x.n_observed() as f64;
    std::iter::once(fit.initial_loss())
        .chain(fit.rmse_path().iter().map(|r| 0.5 * n_obs * r * r))
        .collect()
}

/// A fitted model or the error of its fit.
type Fitted = anyhow::Result<Model>;

/// `n` atom counts spread evenly over `1..=kmax` (always including `kmax`).
pub fn atom_grid(kmax: usize, n: usize) -> Vec<usize> {
    let mut g: Vec<usize> = (1..=n)
        .map(|i| ((i as f64 * kmax as f64 / n as f64).round() as usize).max(1))
        .collect();
    g.dedup();
    g
}

/// RMSE against `truth` of the model `w`.
pub fn rmse(w: &Tensor, truth: &Tensor) -> anyhow::Result<f64> {
    Ok(metrics::rmse(w, truth)?)
}

/// The Indian Pines tensor (`145 x 145 x 200`), subsampled by `(spatial, band)`
/// strides, scaled to unit root-mean-square.
pub fn indian_pines(ctx: &Ctx, spatial: usize, band: usize) -> anyhow::Result<Tensor> {
    let dir = ctx.data("indian-pines")?;
    let path = dir.join("Indian_pines_corrected.npy");
    let arr =
        bl_core::io::read_npy(&path).with_context(|| format!("reading {}", path.display()))?;
    let [h, w, b] = match arr.shape[..] {
        [h, w, b] => [h, w, b],
        _ => anyhow::bail!("Indian Pines: expected 3 axes, found {:?}", arr.shape),
    };
    let shape = [h.div_ceil(spatial), w.div_ceil(spatial), b.div_ceil(band)];
    // `read_npy` returns C order (the file itself is in Fortran order): entry (i, j, k)
    // at (i w + j) b + k.
    let mut t = Tensor::from_fn(shape, |i, j, k| {
        arr.data[(i * spatial * w + j * spatial) * b + k * band]
    })?;
    let rms = (t.data().iter().map(|v| v * v).sum::<f64>() / t.len() as f64).sqrt();
    anyhow::ensure!(rms > 0.0, "Indian Pines: all-zero tensor");
    t.map_observed(|_, v| v / rms)?;
    Ok(t)
}

/// Whether BMP (method 0) has the lowest value, and the evidence text. Values at or
/// below `floor` count as exact (equal): differences at the rounding level of a
/// noiseless fit are not a ranking. Ties within 1e-9 relative count as lowest.
pub fn bmp_lowest(label: &str, values: &[(usize, f64)], floor: f64) -> (bool, String) {
    let clamp = |v: f64| v.max(floor);
    let bmp = values
        .iter()
        .find(|(m, _)| *m == 0)
        .map_or(f64::NAN, |v| clamp(v.1));
    let best_other = values
        .iter()
        .filter(|(m, v)| *m != 0 && v.is_finite())
        .map(|&(m, v)| (m, clamp(v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let holds = match best_other {
        Some((_, o)) => bmp <= o * (1.0 + 1e-9),
        None => bmp.is_finite(),
    };
    let list = values
        .iter()
        .map(|(m, v)| format!("{} {}", METHODS[*m], super::format_number(*v)))
        .collect::<Vec<_>>()
        .join(", ");
    let note = if floor > 0.0 {
        format!(
            " (values <= {} count as exact)",
            super::format_number(floor)
        )
    } else {
        String::new()
    };
    (holds, format!("{label}: {list}{note}"))
}

/// RMSEs at or below this count as exact fits (rounding level; the tensors of the BMP
/// experiments have RMS of order 1).
pub const EXACT: f64 = 1e-8;

/// `ln max(v, EXACT)`: RMSEs compared on a log scale, rounding-level values equal.
pub fn ln_rmse(v: f64) -> f64 {
    v.max(EXACT).ln()
}

/// "BMP is lower than every baseline": a paired t-test over the runs of
/// `ln(baseline) - ln(BMP)` per baseline. Holds when every baseline is significantly
/// higher, fails when one is significantly lower, inconclusive otherwise; the interval
/// is that of the deciding baseline (the failing one, else the closest one).
pub fn lower_than_all(bmp: &[f64], baselines: &[(&str, Vec<f64>)]) -> (Verdict, Interval, String) {
    let tests: Vec<(&str, stats::Paired)> = baselines
        .iter()
        .map(|(name, v)| {
            let a: Vec<f64> = v.iter().map(|&x| ln_rmse(x)).collect();
            let b: Vec<f64> = bmp.iter().map(|&x| ln_rmse(x)).collect();
            (*name, stats::paired(&a, &b))
        })
        .collect();
    let verdicts: Vec<Verdict> = tests.iter().map(|t| t.1.greater()).collect();
    let verdict = stats::all_of(&verdicts);
    let deciding = tests
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| verdict != Verdict::Fails || **v == Verdict::Fails)
        .map(|(t, _)| t)
        .min_by(|a, b| a.1.interval.lo.total_cmp(&b.1.interval.lo))
        .map_or(
            Interval {
                lo: f64::NEG_INFINITY,
                hi: f64::INFINITY,
            },
            |t| t.1.interval,
        );
    let ev = tests
        .iter()
        .map(|(name, t)| format!("{name}: {}", fmt_ln_ratio(name, "BMP", t)))
        .collect::<Vec<_>>()
        .join("; ");
    (verdict, deciding, format!("n = {} runs; {ev}", bmp.len()))
}

/// A paired t-test of `ln(a) - ln(b)` as text: `mean ln(a / b) = m [lo, hi], p = p`.
pub fn fmt_ln_ratio(a: &str, b: &str, t: &stats::Paired) -> String {
    format!(
        "mean ln({a} / {b}) = {} [{}, {}], p = {}",
        format_number(t.mean),
        format_number(t.interval.lo),
        format_number(t.interval.hi),
        format_number(t.p)
    )
}
