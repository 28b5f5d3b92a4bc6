//! The high-level fit: mixing method, then rounding, then local search, and its result.

use bl_core::engine::{FitReport, Observer};
use bl_core::{Fit, Fitted};
use faer::MatRef;
use serde::{Deserialize, Serialize};

use crate::error::{MaxcutError, Result};
use crate::input::{check_len, check_signs};
use crate::mixing::{Mixing, SweepForm};
use crate::params::MixingValidParams;
use crate::problem::Problem;
use crate::rounding::local_search;
use bl_core::error::build::numerical;

/// Diagnostics of a fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixingInfo {
    /// `<C, V^T V>` at the final `V`, recomputed exactly. It approaches the SDP optimum
    /// from below; it bounds `max y^T C y` from above only once the sweeps converged,
    /// see [`MixingInfo::upper_bound`].
    pub sdp_value: f64,
    /// A certified upper bound on the SDP optimum (and so on `max y^T C y`) from weak
    /// duality at the final `V` ([`Problem::dual_bound`]); `None` unless
    /// [`crate::MixingParams::certify`] was on. Valid whether or not the sweeps converged.
    pub certified_bound: Option<f64>,
    /// The run of the sweeps on the engine: sweeps (`iterations`), why they stopped, time,
    /// and the tracked objective, change measure and `"increase"` of every sweep.
    pub report: FitReport,
    /// The rank `k` of `V`.
    pub rank: usize,
    /// How the sweeps accessed `C`.
    pub form: SweepForm,
    /// Best `y^T C y` over the hyperplanes, before the local search.
    pub rounded_value: f64,
    /// Index of the hyperplane that gave `rounded_value`.
    pub best_trial: usize,
    /// Number of sign flips made by the local search.
    pub local_search_flips: usize,
}

impl MixingInfo {
    /// `Some(sdp_value)` when the sweeps converged, `None` otherwise.
    ///
    /// At rank `k >= ceil(sqrt(2 n))` the mixing method reaches the SDP optimum for
    /// almost every `C` (Wang et al. 2017), and the SDP optimum bounds `max y^T C y`
    /// from above. Stopped when one sweep gains at most `tol * |sdp_value|`, the value
    /// still lies below the optimum, by about `tol * |sdp_value| / (1 - rho)` where `rho`
    /// is the (problem-dependent) linear rate of the sweeps: an approximate bound, not a
    /// certificate (use [`MixingInfo::certified_bound`] for that). Without convergence
    /// the value may be far below the optimum and is no bound at all.
    pub fn upper_bound(&self) -> Option<f64> {
        self.report.converged().then_some(self.sdp_value)
    }
}

/// The result of fitting a [`Problem`] with [`crate::MixingParams`]: the signs `y`, their
/// value, the factor `V` and the diagnostics of the run.
///
/// It predicts nothing: `y` answers the problem it was fitted on, and there is no new
/// data to apply it to.
#[derive(Debug, Clone)]
pub struct FittedMixing {
    y: Vec<f64>,
    value: f64,
    rank: usize,
    v: Vec<f64>,
    info: MixingInfo,
}

impl FittedMixing {
    /// The signs `y in {-1, +1}^n` (entries exactly `-1.0` or `+1.0`); for
    /// [`Problem::maxcut`] the cut is `{i : y_i = +1}`.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The value `y^T C y` of [`FittedMixing::y`] (the cut weight for
    /// [`Problem::maxcut`]).
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The vertices on the `+1` side of the cut.
    pub fn cut_side(&self) -> Vec<bool> {
        self.y.iter().map(|&s| s > 0.0).collect()
    }

    /// The SDP value (see [`MixingInfo::sdp_value`]).
    pub fn sdp_value(&self) -> f64 {
        self.info.sdp_value
    }

    /// The SDP value when it is an upper bound (see [`MixingInfo::upper_bound`]).
    pub fn upper_bound(&self) -> Option<f64> {
        self.info.upper_bound()
    }

    /// The certified dual bound (see [`MixingInfo::certified_bound`]).
    pub fn certified_bound(&self) -> Option<f64> {
        self.info.certified_bound
    }

    /// The final factor `V` (`k x n`, unit columns).
    pub fn v(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.v, self.rank, self.y.len())
    }

    /// All diagnostics.
    pub fn info(&self) -> &MixingInfo {
        &self.info
    }
}

impl Fitted for FittedMixing {
    /// The sweeps of the mixing method (one iteration per sweep).
    fn report(&self) -> &FitReport {
        &self.info.report
    }
}

impl Fit<Problem> for MixingValidParams {
    type Fitted = FittedMixing;
    type Error = MaxcutError;

    /// Solves `max y^T C y` over `y in {-1, +1}^n` approximately: the mixing method on
    /// the SDP relaxation (one engine iteration per sweep, shown to `observers`),
    /// Goemans–Williamson rounding (best of `trials` hyperplanes), then the 1-flip local
    /// search (unless disabled). The sweeps, the rounding and the certificate run on the
    /// `threads` of [`MixingValidParams::iteration`]. Deterministic for a given seed,
    /// whatever the number of threads.
    ///
    /// # Errors
    /// [`bl_core::BlError::InvalidParameter`] for invalid parameters, or for buffers
    /// beyond `2^32` values or that cannot be allocated (`V`, a formed `C`, `W`, as
    /// [`Mixing::new`](crate::Mixing::new); the `trials x rank` directions of the
    /// rounding); [`bl_core::BlError::Numerical`] if the objective overflows;
    /// [`MaxcutError::TooLargeForExact`] with [`crate::MixingParams::certify`] on and
    /// `n > 4096`; [`MaxcutError::InvalidSweepOrder`] for a faulty user sweep order.
    fn fit_observed(
        &self,
        problem: &Problem,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedMixing> {
        let params = self;
        let workers = params.iteration().pool()?;
        let mut mixing = workers.install(|| Mixing::start(problem, params))?;
        let report = mixing.run(params.iteration(), &workers, observers)?;
        let sdp_value = mixing.objective();
        let (rounding, y, flips, certified_bound) = workers.install(|| -> Result<_> {
            let rounding = mixing.round(params.trials(), params.seed())?;
            let mut y = rounding.y.clone();
            let flips = if params.local_search() {
                local_search(mixing.cost_view(), &mut y)
            } else {
                0
            };
            let certified_bound = if params.certify() {
                Some(problem.dual_bound(mixing.v())?)
            } else {
                None
            };
            Ok((rounding, y, flips, certified_bound))
        })?;
        // Evaluate on the problem as given, so that `value == problem.value(y)` exactly.
        let value = problem.view().quad_form(&y);
        if !value.is_finite() {
            return Err(numerical("rounding", format!("y^T C y = {value}")));
        }
        let info = MixingInfo {
            sdp_value,
            certified_bound,
            report,
            rank: mixing.rank(),
            form: mixing.form(),
            rounded_value: rounding.value,
            best_trial: rounding.trial,
            local_search_flips: flips,
        };
        let rank = mixing.rank();
        let v = mixing.v();
        let v = (0..v.ncols())
            .flat_map(|i| (0..rank).map(move |r| v[(r, i)]))
            .collect();
        Ok(FittedMixing {
            y,
            value,
            rank,
            v,
            info,
        })
    }
}

impl Problem {
    /// Improves a sign vector in place by the 1-flip local search (flip `y_i` while that
    /// strictly raises `y^T C y`); returns the number of flips. Never lowers the value.
    ///
    /// # Errors
    /// [`bl_core::BlError::ShapeMismatch`] for a wrong length; [`MaxcutError::NotDiscrete`]
    /// for entries other than `-1.0` or `+1.0`.
    pub fn local_search(&self, y: &mut [f64]) -> Result<usize> {
        check_len("y", self.n(), y.len())?;
        check_signs("y", y)?;
        Ok(local_search(self.view(), y))
    }
}
