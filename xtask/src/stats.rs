//! The statistics behind a claim's verdict: Wilson intervals for proportions, the paired
//! t-test over seeds or splits, and the exact sign test.
//!
//! A claim that one method "significantly" beats another holds only when a paired test
//! over seeds or splits says so (p < 0.05 two-sided, and the mean difference has the
//! claimed sign); it fails when the test says the opposite; otherwise it is
//! inconclusive, reported with its 95% interval. Written from the textbook definitions
//! (Wilson 1927; Student's t via the regularized incomplete beta function, evaluated by
//! Lentz's continued fraction) and tested against values printed in standard tables.

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
