//! The statistics behind a claim's verdict: Wilson intervals for proportions, the paired
//! t-test over seeds or splits, the exact sign test, and the paired percentile bootstrap
//! over test items ([`Resamples`], [`Replicated`]).
//!
//! A claim that one method "significantly" beats another holds only when a paired test
//! over seeds or splits says so (p < 0.05 two-sided, and the mean difference has the
//! claimed sign); it fails when the test says the opposite; otherwise it is
//! inconclusive, reported with its 95% interval. Where the test set's own noise is
//! modelled (the bol claims), the interval is the bootstrap's over the test items, or,
//! where a side has several seeds, the smallest interval covering both the bootstrap's
//! and the t-test's; two runs that are each deterministic are judged by the bootstrap
//! alone. Written from the textbook definitions
//! (Wilson 1927; Student's t via the regularized incomplete beta function, evaluated by
//! Lentz's continued fraction) and tested against values printed in standard tables. The
//! bootstrap is Efron's (Efron and Tibshirani 1993, ch. 13: the percentile interval),
//! tested against the exact distribution of every resample of a small sample.

use serde::{Deserialize, Serialize};

/// The significance level of every test of the reports.
pub const ALPHA: f64 = 0.05;

/// What a run says about a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The run supports the statement (by the claim's own test).
    Holds,
    /// The run contradicts it.
    Fails,
    /// The data cannot decide (a tie, an interval that contains both answers).
    Inconclusive,
}

impl Verdict {
    /// A plain yes/no check (for statements that are not about noisy quantities).
    #[must_use]
    pub fn of(holds: bool) -> Self {
        if holds { Self::Holds } else { Self::Fails }
    }

    /// `"holds"`, `"fails"` or `"inconclusive"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Holds => "holds",
            Self::Fails => "fails",
            Self::Inconclusive => "inconclusive",
        }
    }
}

/// The verdict of several tests that must all hold: `Fails` if one fails, `Holds` if all
/// hold, `Inconclusive` otherwise (and for none).
pub fn all_of<V: std::borrow::Borrow<Verdict>>(verdicts: impl IntoIterator<Item = V>) -> Verdict {
    let mut any = false;
    let mut all_hold = true;
    for v in verdicts {
        any = true;
        match *v.borrow() {
            Verdict::Fails => return Verdict::Fails,
            Verdict::Inconclusive => all_hold = false,
            Verdict::Holds => {}
        }
    }
    if any && all_hold {
        Verdict::Holds
    } else {
        Verdict::Inconclusive
    }
}

/// A two-sided 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Whether `x` lies in the closed interval.
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The Wilson score interval (95%) of `successes` out of `n` trials; `[0, 1]` for `n = 0`.
#[must_use]
pub fn wilson(successes: usize, n: usize) -> Interval {
    if n == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = successes.min(n as usize) as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    Interval {
        lo: (centre - half).max(0.0),
        hi: (centre + half).min(1.0),
    }
}

/// "More than a share `p` of the `n`": `Holds` when the Wilson interval of `k / n` lies
/// above `p`, `Fails` when it lies below, `Inconclusive` otherwise. Returns the verdict and
/// the interval (e.g. `share_above(k, n, 0.5)` for "most of the runs").
#[must_use]
pub fn share_above(k: usize, n: usize, p: f64) -> (Verdict, Interval) {
    let i = wilson(k, n);
    let verdict = if i.lo > p {
        Verdict::Holds
    } else if i.hi < p {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    };
    (verdict, i)
}

/// Two proportions on their own samples: `Holds` when `a`'s Wilson interval lies wholly
/// above `b`'s, `Fails` when wholly below, `Inconclusive` when they overlap. Returns the
/// verdict and the interval of `a`.
#[must_use]
pub fn proportion_greater(a: (usize, usize), b: (usize, usize)) -> (Verdict, Interval) {
    let (ia, ib) = (wilson(a.0, a.1), wilson(b.0, b.1));
    let verdict = if ia.lo > ib.hi {
        Verdict::Holds
    } else if ia.hi < ib.lo {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    };
    (verdict, ia)
}

/// The two-sided p-value of the exact sign test with `wins` and `losses` (ties dropped).
#[must_use]
pub fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses);
    // P(X <= k) for X ~ Bin(n, 1/2), in logs to stay finite for large n.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0_f64;
    let mut tail = 0.0_f64;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// The result of a paired comparison `a - b` over seeds or splits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// Number of pairs.
    pub n: usize,
    /// Mean of `a - b`.
    pub mean: f64,
    /// 95% interval of the mean difference (Student's t); the point itself when every
    /// difference is the same, everything for one pair.
    pub interval: Interval,
    /// Two-sided p-value of the paired t-test (1 when it cannot be computed).
    pub p: f64,
}

impl Paired {
    /// The verdict on "`a` is greater than `b`": `Holds` if `p < ALPHA` and the mean is
    /// positive, `Fails` if `p < ALPHA` and it is negative, `Inconclusive` otherwise.
    #[must_use]
    pub fn greater(&self) -> Verdict {
        if self.p < ALPHA && self.mean > 0.0 {
            Verdict::Holds
        } else if self.p < ALPHA && self.mean < 0.0 {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        }
    }

    /// The verdict on "`a` is at least `b`" (not worse): `Fails` only if `a` is
    /// significantly smaller, `Holds` if significantly greater, `Inconclusive` for a
    /// difference the data cannot tell from zero (a tie included).
    #[must_use]
    pub fn at_least(&self) -> Verdict {
        self.greater()
    }
}

/// The paired t-test of `a - b` (pairs in order; the shorter length is used).
#[must_use]
pub fn paired(a: &[f64], b: &[f64]) -> Paired {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len();
    if n == 0 {
        return Paired {
            n,
            mean: f64::NAN,
            interval: Interval {
                lo: f64::NEG_INFINITY,
                hi: f64::INFINITY,
            },
            p: 1.0,
        };
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Paired {
            n,
            mean,
            interval: Interval {
                lo: f64::NEG_INFINITY,
                hi: f64::INFINITY,
            },
            p: 1.0,
        };
    }
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let se = (var / n as f64).sqrt();
    let df = (n - 1) as f64;
    if se == 0.0 || !se.is_finite() {
        // Every difference is the same: no spread to test against.
        let p = if mean == 0.0 || !mean.is_finite() {
            1.0
        } else {
            0.0
        };
        return Paired {
            n,
            mean,
            interval: Interval { lo: mean, hi: mean },
            p,
        };
    }
    let t = mean / se;
    let p = 2.0 * student_t_upper(t.abs(), df);
    let q = student_t_quantile(0.975, df);
    Paired {
        n,
        mean,
        interval: Interval {
            lo: mean - q * se,
            hi: mean + q * se,
        },
        p: p.min(1.0),
    }
}

/// The number of resamples of the bootstrap intervals of the reports.
pub const BOOTSTRAP_REPLICATES: usize = 2000;

/// SplitMix64 (Steele, Lea and Flood 2014), the bootstrap's generator: a few lines, so the
/// resamples of a seed do not depend on any crate's version.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A draw from `0..n` (`n >= 1`) by the multiply-shift map, whose bias, at most
    /// `n / 2^64`, is far below anything a bootstrap of a few thousand replicates sees.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Resamples of `n` items (test sentences) drawn with replacement, the nonparametric
/// bootstrap's: each replicate draws `n` items uniformly with replacement and is stored as
/// the multiplicity of every item (how many times it was drawn; they sum to `n`).
/// Deterministic for a seed. Every statistic computed on the same `Resamples` sees the
/// same replicates, which is what makes a difference between two sides paired: both are
/// scored on the same resampled items ([`Replicated`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resamples {
    n: usize,
    replicates: usize,
    /// `replicates * n` multiplicities, replicate by replicate.
    weights: Vec<u32>,
}

impl Resamples {
    /// `replicates` resamples of `n` items from the generator seeded with `seed`.
    #[must_use]
    pub fn new(n: usize, replicates: usize, seed: u64) -> Self {
        let mut rng = SplitMix64(seed);
        let mut weights = vec![0u32; n * replicates];
        for row in weights.chunks_exact_mut(n.max(1)).take(replicates) {
            for _ in 0..n {
                row[rng.below(n)] += 1;
            }
        }
        Self {
            n,
            replicates,
            weights,
        }
    }

    /// The number of items.
    #[must_use]
    pub fn n_items(&self) -> usize {
        self.n
    }

    /// The number of replicates.
    #[must_use]
    pub fn replicates(&self) -> usize {
        self.replicates
    }

    /// The multiplicities of the items in replicate `r` (`r < replicates()`).
    #[must_use]
    pub fn weights(&self, r: usize) -> &[u32] {
        &self.weights[r * self.n..(r + 1) * self.n]
    }

    /// A statistic of weighted items, on the original sample (every weight 1: the
    /// estimate) and on every replicate.
    pub fn replicate(&self, mut statistic: impl FnMut(&[u32]) -> f64) -> Replicated {
        let estimate = statistic(&vec![1; self.n]);
        let values = (0..self.replicates)
            .map(|r| statistic(self.weights(r)))
            .collect();
        Replicated { estimate, values }
    }
}

/// A statistic on the original sample and on each replicate of one [`Resamples`]: combine
/// several with [`zip`](Self::zip) or [`mean`](Self::mean) (replicate by replicate, so
/// sides stay paired) and read the percentile interval with
/// [`interval`](Self::interval).
#[derive(Debug, Clone, PartialEq)]
pub struct Replicated {
    /// The statistic on the original sample.
    pub estimate: f64,
    /// The statistic on each replicate, in the order of the resamples.
    pub values: Vec<f64>,
}

impl Replicated {
    /// A value that does not depend on the sample (e.g. 0 or a margin), for `replicates`
    /// replicates.
    #[must_use]
    pub fn constant(value: f64, replicates: usize) -> Self {
        Self {
            estimate: value,
            values: vec![value; replicates],
        }
    }

    /// `f(self, other)` replicate by replicate (the same resample on both sides) and on
    /// the estimates.
    ///
    /// # Panics
    /// If the two have different numbers of replicates: they were not computed on the same
    /// [`Resamples`], so they are not paired (an error in the experiment's code).
    #[must_use]
    pub fn zip(&self, other: &Self, f: impl Fn(f64, f64) -> f64) -> Self {
        assert_eq!(
            self.values.len(),
            other.values.len(),
            "paired statistics with different numbers of replicates"
        );
        Self {
            estimate: f(self.estimate, other.estimate),
            values: self
                .values
                .iter()
                .zip(&other.values)
                .map(|(&a, &b)| f(a, b))
                .collect(),
        }
    }

    /// `self - other`, paired.
    #[must_use]
    pub fn minus(&self, other: &Self) -> Self {
        self.zip(other, |a, b| a - b)
    }

    /// The mean of `items`, replicate by replicate (NaN and no replicate for none).
    ///
    /// # Panics
    /// If the items have different numbers of replicates (as [`zip`](Self::zip)).
    #[must_use]
    pub fn mean(items: &[Self]) -> Self {
        let k = items.len() as f64;
        let n = items.first().map_or(0, |i| i.values.len());
        assert!(
            items.iter().all(|i| i.values.len() == n),
            "averaged statistics with different numbers of replicates"
        );
        Self {
            estimate: items.iter().map(|i| i.estimate).sum::<f64>() / k,
            values: (0..n)
                .map(|r| items.iter().map(|i| i.values[r]).sum::<f64>() / k)
                .collect(),
        }
    }

    /// The percentile interval ([`percentile_interval`] of the replicates).
    #[must_use]
    pub fn interval(&self) -> Interval {
        percentile_interval(&self.values)
    }
}

/// The percentile 95% interval of bootstrap replicates (Efron and Tibshirani 1993,
/// sec. 13.3): with `B` replicates sorted, the `ceil(0.025 B)`-th and the
/// `ceil(0.975 B)`-th (the 50th and 1950th of 2000). Everything for no replicate or a
/// NaN among them (nothing is decided).
#[must_use]
pub fn percentile_interval(values: &[f64]) -> Interval {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return Interval {
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
        };
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let b = sorted.len() as f64;
    let at = |q: f64| sorted[((q * b).ceil() as usize).clamp(1, sorted.len()) - 1];
    Interval {
        lo: at(0.025),
        hi: at(0.975),
    }
}

/// `P(T > t)` for Student's t with `df` degrees of freedom, `t >= 0`.
#[must_use]
pub fn student_t_upper(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    0.5 * incomplete_beta(0.5 * df, 0.5, x)
}

/// The `prob` quantile of Student's t with `df` degrees of freedom (`prob` in (0.5, 1)),
/// by bisection on [`student_t_upper`].
#[must_use]
pub fn student_t_quantile(prob: f64, df: f64) -> f64 {
    let target = 1.0 - prob;
    let (mut lo, mut hi) = (0.0_f64, 1.0e6_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_upper(mid, df) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The regularized incomplete beta function `I_x(a, b)`.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function, by the modified Lentz method.
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1.0e-300;
    let mut c = 1.0_f64;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        for numerator in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1.0e-15 {
            break;
        }
    }
    h
}

/// `ln Gamma(x)` for `x > 0` (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_printed_table() {
        // Two-sided 95% critical values of Student's t (any statistics table).
        for (df, q) in [(1.0, 12.706), (4.0, 2.776), (9.0, 2.262), (29.0, 2.045)] {
            let got = student_t_quantile(0.975, df);
            assert!((got - q).abs() < 5e-4, "df {df}: {got} vs {q}");
        }
        // t = 2.0 with 10 df: two-sided p = 0.0734 (tables).
        assert!((2.0 * student_t_upper(2.0, 10.0) - 0.0734).abs() < 5e-4);
    }

    #[test]
    fn wilson_matches_the_closed_form_cases() {
        // 0 of 20: [0, 0.161]; 20 of 20: [0.839, 1] (Wilson 1927, z = 1.96).
        let i = wilson(0, 20);
        assert!(i.lo == 0.0 && (i.hi - 0.1611).abs() < 5e-4, "{i:?}");
        let i = wilson(20, 20);
        assert!((i.lo - 0.8389).abs() < 5e-4 && i.hi == 1.0, "{i:?}");
        // 19 of 20 against 18 of 20 cannot be told apart.
        assert_eq!(
            proportion_greater((19, 20), (18, 20)).0,
            Verdict::Inconclusive
        );
        assert_eq!(
            proportion_greater((990, 1000), (900, 1000)).0,
            Verdict::Holds
        );
        assert_eq!(
            proportion_greater((900, 1000), (990, 1000)).0,
            Verdict::Fails
        );
    }

    #[test]
    fn all_of_needs_every_test() {
        assert_eq!(all_of([Verdict::Holds, Verdict::Holds]), Verdict::Holds);
        assert_eq!(
            all_of([Verdict::Holds, Verdict::Inconclusive]),
            Verdict::Inconclusive
        );
        assert_eq!(
            all_of([Verdict::Inconclusive, Verdict::Fails].iter()),
            Verdict::Fails
        );
        assert_eq!(all_of::<Verdict>([]), Verdict::Inconclusive);
    }

    #[test]
    fn sign_test_is_the_binomial_tail() {
        assert!((sign_test(6, 0) - 2.0 / 64.0).abs() < 1e-12);
        assert!((sign_test(5, 0) - 2.0 / 32.0).abs() < 1e-12);
        assert_eq!(sign_test(3, 3), 1.0);
        assert!(sign_test(900, 100) < 1e-100);
    }

    /// A ratio of weighted sums, the shape of a corpus-level score (F1, error rate).
    fn ratio(w: &[u32], num: &[f64], den: &[f64]) -> f64 {
        let dot = |x: &[f64]| x.iter().zip(w).map(|(a, &b)| a * f64::from(b)).sum::<f64>();
        dot(num) / dot(den)
    }

    #[test]
    fn bootstrap_matches_the_exhaustive_resampling_distribution() {
        // Four items: all 4^4 = 256 ordered resamples are equally likely. Their exact
        // distribution of a paired difference of two ratio statistics gives the exact
        // 2.5% and 97.5% quantiles; the bootstrap's percentile interval with many
        // replicates must find the same values.
        let (num_a, den_a) = ([3.0, 1.0, 4.0, 1.0], [5.0, 2.0, 6.0, 3.0]);
        let (num_b, den_b) = ([2.0, 1.0, 5.0, 0.0], [5.0, 2.0, 6.0, 3.0]);
        let diff = |w: &[u32]| ratio(w, &num_a, &den_a) - ratio(w, &num_b, &den_b);
        let mut exact = Vec::new();
        for code in 0..256usize {
            let mut w = [0u32; 4];
            for k in 0..4 {
                w[(code >> (2 * k)) & 3] += 1;
            }
            exact.push(diff(&w));
        }
        exact.sort_by(f64::total_cmp);
        let cdf = |v: f64| exact.iter().filter(|&&x| x <= v + 1e-12).count() as f64 / 256.0;
        let quantile = |q: f64| exact.iter().copied().find(|&v| cdf(v) >= q).unwrap();
        // The exact CDF stays away from 2.5% and 97.5% at every jump, so the sampling
        // error of 20,000 replicates (sd about 0.1%) cannot move the quantiles.
        for &v in &exact {
            for q in [0.025, 0.975] {
                assert!((cdf(v) - q).abs() > 0.005, "{v}: {}", cdf(v));
            }
        }
        let resamples = Resamples::new(4, 20_000, 7);
        let d = resamples.replicate(diff);
        let i = d.interval();
        assert_eq!((i.lo, i.hi), (quantile(0.025), quantile(0.975)));
        assert!(i.lo < 0.0 && i.hi > 0.0, "{i:?}");
        assert_eq!(d.estimate, diff(&[1, 1, 1, 1]));
        // Each replicate draws 4 items: the multiplicities sum to 4, each item is drawn
        // once on average, and the all-in-one resamples come at their rate 4/256.
        let mut mean_weight = [0.0; 4];
        let mut all_one_item = 0;
        for r in 0..resamples.replicates() {
            let w = resamples.weights(r);
            assert_eq!(w.iter().sum::<u32>(), 4);
            for k in 0..4 {
                mean_weight[k] += f64::from(w[k]) / 20_000.0;
            }
            all_one_item += usize::from(w.contains(&4));
        }
        for m in mean_weight {
            assert!((m - 1.0).abs() < 0.03, "{mean_weight:?}");
        }
        let rate = all_one_item as f64 / 20_000.0;
        assert!((rate - 4.0 / 256.0).abs() < 0.004, "{rate}");
    }

    #[test]
    fn bootstrap_is_paired_and_deterministic() {
        let n = 30;
        let num: Vec<f64> = (0..n).map(|i| f64::from(i % 7)).collect();
        let den: Vec<f64> = (0..n).map(|i| 7.0 + f64::from(i % 3)).collect();
        let resamples = Resamples::new(n as usize, BOOTSTRAP_REPLICATES, 11);
        let a = resamples.replicate(|w| ratio(w, &num, &den));
        // Identical sides: every replicate's difference is 0, the interval [0, 0]. Sides
        // resampled independently would spread (the check below: a itself is not
        // constant across replicates).
        let same = a.minus(&resamples.replicate(|w| ratio(w, &num, &den)));
        assert_eq!(same.interval(), Interval { lo: 0.0, hi: 0.0 });
        let spread = a.interval();
        assert!(spread.hi - spread.lo > 0.05, "{spread:?}");
        // A constant difference per item (b = a + 0.5 in every item, a mean statistic):
        // the interval is that constant, with no width.
        let x: Vec<f64> = (0..n).map(|i| f64::from(i * i % 11)).collect();
        let mean_of = |w: &[u32], shift: f64| {
            let total: f64 = w.iter().map(|&k| f64::from(k)).sum();
            x.iter()
                .zip(w)
                .map(|(v, &k)| (v + shift) * f64::from(k))
                .sum::<f64>()
                / total
        };
        let d = resamples
            .replicate(|w| mean_of(w, 0.5))
            .minus(&resamples.replicate(|w| mean_of(w, 0.0)));
        let i = d.interval();
        assert!(
            (i.lo - 0.5).abs() < 1e-12 && (i.hi - 0.5).abs() < 1e-12,
            "{i:?}"
        );
        // The same seed gives the same replicates, another seed others.
        let again = Resamples::new(n as usize, BOOTSTRAP_REPLICATES, 11);
        assert_eq!(again.replicate(|w| ratio(w, &num, &den)), a);
        let other = Resamples::new(n as usize, BOOTSTRAP_REPLICATES, 12);
        assert_ne!(other.replicate(|w| ratio(w, &num, &den)).values, a.values);
        // Means and constants combine replicate by replicate.
        let m = Replicated::mean(&[a.clone(), Replicated::constant(1.0, a.values.len())]);
        assert_eq!(m.values[3], (a.values[3] + 1.0) / 2.0);
        assert_eq!(m.estimate, (a.estimate + 1.0) / 2.0);
    }

    #[test]
    #[should_panic(expected = "different numbers of replicates")]
    fn statistics_of_different_resamples_are_not_paired() {
        // A difference of a statistic on 10 replicates and one on 9 pairs nothing: it must
        // not drop the 10th replicate and go on.
        let _ = Replicated::constant(1.0, 10).minus(&Replicated::constant(0.0, 9));
    }

    #[test]
    #[should_panic(expected = "different numbers of replicates")]
    fn a_mean_of_different_resamples_is_refused() {
        let _ = Replicated::mean(&[Replicated::constant(1.0, 10), Replicated::constant(0.0, 9)]);
    }

    #[test]
    fn percentile_interval_picks_the_order_statistics() {
        // 2000 values 1..=2000: the 50th and the 1950th.
        let v: Vec<f64> = (1..=2000).rev().map(f64::from).collect();
        assert_eq!(
            percentile_interval(&v),
            Interval {
                lo: 50.0,
                hi: 1950.0
            }
        );
        assert_eq!(percentile_interval(&[3.0]), Interval { lo: 3.0, hi: 3.0 });
        let none = percentile_interval(&[]);
        assert!(none.lo.is_infinite() && none.hi.is_infinite());
        let nan = percentile_interval(&[1.0, f64::NAN]);
        assert!(nan.contains(0.0));
    }

    #[test]
    fn paired_verdicts() {
        let a = [0.91, 0.92, 0.90, 0.93, 0.92];
        let b = [0.88, 0.89, 0.88, 0.90, 0.89];
        assert_eq!(paired(&a, &b).greater(), Verdict::Holds);
        assert_eq!(paired(&b, &a).greater(), Verdict::Fails);
        // A tie decides nothing; neither does noise around zero.
        assert_eq!(paired(&a, &a).greater(), Verdict::Inconclusive);
        let c = [0.92, 0.91, 0.91, 0.92, 0.92];
        let r = paired(&a, &c);
        assert_eq!(r.greater(), Verdict::Inconclusive, "{r:?}");
        assert!(r.interval.contains(0.0));
        // One run has no spread to test against.
        assert_eq!(paired(&[0.99], &[0.5]).greater(), Verdict::Inconclusive);
    }
}
