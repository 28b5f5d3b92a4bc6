//! One-vs-all runs its class fits on the estimator's `threads`: `Some(n)` bounds them to a
//! pool of `n` (`Some(1)`: one class after the other), `None` leaves them on rayon's global
//! pool. Seen from inside the class fits by a recording estimator around SBLR. And a
//! binary fit on its own threads gives the same bits whatever pool its caller runs in.

use std::sync::{Arc, Mutex};

use bl_core::data::{Element, MatrixDataset};
use sblr::synthetic::three_classes;
use sblr::{BinaryEstimator, FittedSblr, OneVsAll, Sblr, SblrParams, SblrValidParams};
use sblr::{Fit as _, ParamGuard};

/// SBLR's builder, whose checked form records the rayon pool size each class fit runs in.
struct Recording {
    params: SblrParams,
    seen: Arc<Mutex<Vec<usize>>>,
}

struct RecordingValid {
    params: SblrValidParams,
    seen: Arc<Mutex<Vec<usize>>>,
}

impl ParamGuard for Recording {
    type Checked = RecordingValid;
    type Error = sblr::SblrError;

    fn check(&self) -> sblr::Result<RecordingValid> {
        Ok(RecordingValid {
            params: self.params.check()?,
            seen: Arc::clone(&self.seen),
        })
    }
}

impl BinaryEstimator for RecordingValid {
    type Fitted = FittedSblr;

    fn fit_signs<T: Element>(
        &self,
        data: &MatrixDataset<T>,
        y: Vec<f64>,
    ) -> sblr::Result<FittedSblr> {
        self.seen.lock().unwrap().push(rayon::current_num_threads());
        self.params.fit_signs(data, y)
    }

    fn threads(&self) -> Option<usize> {
        self.params.threads()
    }
}

fn pool_sizes(threads: Option<usize>) -> Vec<usize> {
    let data = three_classes(30, 4, 3, 2).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let builder = Recording {
        params: Sblr::params().rank(1).max_iter(3).threads(threads),
        seen: Arc::clone(&seen),
    };
    let fitted = OneVsAll::new(builder).fit(&data).unwrap();
    assert_eq!(fitted.models().len(), 3);
    seen.lock().unwrap().clone()
}

#[test]
fn class_fits_run_on_the_estimators_threads() {
    assert_eq!(pool_sizes(Some(1)), [1, 1, 1]);
    assert_eq!(pool_sizes(Some(3)), [3, 3, 3]);
    let global = rayon::current_num_threads();
    assert_eq!(pool_sizes(None), [global; 3]);
}

/// The bits of a binary fit's `U`, `V` and intercept.
fn model_bits(fitted: &FittedSblr) -> Vec<u64> {
    let (u, v) = (fitted.u(), fitted.v());
    let cols = |m: faer::MatRef<'_, f64>| {
        (0..m.ncols())
            .flat_map(|j| m.col(j).iter().map(|x| x.to_bits()).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    let mut bits = cols(u);
    bits.extend(cols(v));
    bits.push(fitted.intercept().to_bits());
    bits
}

#[test]
fn a_fit_on_its_own_threads_does_not_depend_on_the_callers_pool() {
    // 100 x 100 samples: faer's own thin SVD (the starts) would change with the size of
    // the pool it runs on; the fit computes its start on one thread.
    let data = sblr::synthetic::two_class(40, 100, 100, 0.5, 3).unwrap();
    for init in [sblr::Init::MeanSvd, sblr::Init::LabelWeightedSvd] {
        let params = Sblr::params()
            .rank(2)
            .max_iter(3)
            .init(init.clone())
            .threads(Some(1));
        let on = |pool: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(pool)
                .build()
                .unwrap()
                .install(|| params.fit(&data).unwrap())
        };
        let one = model_bits(&on(1));
        for pool in [2, 3] {
            assert!(model_bits(&on(pool)) == one, "{init:?}, pool of {pool}");
        }
    }
}
