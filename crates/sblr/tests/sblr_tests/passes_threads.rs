//! Every data pass of a fit, the spectral start's weighted sum among them, runs on the
//! params' `threads`: the solver hands each [`DataPasses`] call the pool of
//! `SblrParams::threads`. Seen from inside the passes by a recording source around the
//! samples in memory.

use std::sync::Mutex;

use bl_core::iteration::Pool;
use sblr::features::LocalFeatures;
use sblr::passes::{DataPasses, InMemory};
use sblr::synthetic::two_class;
use sblr::{BinarySolverOn, Init, ParamGuard, Sblr};

/// The samples in memory, recording the name of every pass and the size of its pool.
struct Recording<P> {
    inner: P,
    seen: Mutex<Vec<(&'static str, usize)>>,
}

impl<P> Recording<P> {
    fn record(&self, pass: &'static str, threads: &Pool) {
        self.seen.lock().unwrap().push((pass, threads.threads()));
    }
}

impl<P: DataPasses> DataPasses for Recording<P> {
    fn sample_shape(&self) -> (usize, usize) {
        self.inner.sample_shape()
    }

    fn n_samples(&self) -> usize {
        self.inner.n_samples()
    }

    fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> sblr::Result<()> {
        self.record("times_v", threads);
        self.inner.times_v(vt, k, out, threads)
    }

    fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> sblr::Result<()> {
        self.record("u_times", threads);
        self.inner.u_times(u, k, out, threads)
    }

    fn add_weighted_sum(&self, w: &[f64], acc: &mut [f64], threads: &Pool) -> sblr::Result<()> {
        self.record("add_weighted_sum", threads);
        self.inner.add_weighted_sum(w, acc, threads)
    }
}

/// The passes of a spectral start and two iterations on `threads`, in call order.
fn passes_seen(threads: Option<usize>) -> sblr::Result<Vec<(&'static str, usize)>> {
    let data = two_class(40, 4, 3, 1.0, 3)?;
    let y: Vec<f64> = data
        .labels()
        .iter()
        .map(|&l| if l == 1 { 1.0 } else { -1.0 })
        .collect();
    let params = Sblr::params()
        .init(Init::LabelWeightedSvd)
        .threads(threads)
        .check()?;
    let source = Recording {
        inner: InMemory::new(&data)?,
        seen: Mutex::new(Vec::new()),
    };
    let features = LocalFeatures::new(source, 1, threads)?;
    let mut solver = BinarySolverOn::with_features(features, y, &params)?;
    solver.step()?;
    solver.step()?;
    let seen = solver.features().passes().seen.lock().unwrap().clone();
    Ok(seen)
}

#[test]
fn every_pass_runs_on_the_params_threads() -> sblr::Result<()> {
    for threads in [1, 3] {
        let seen = passes_seen(Some(threads))?;
        // The start's weighted sum, then the passes of the start's features and two steps.
        assert_eq!(
            seen.first().map(|p| p.0),
            Some("add_weighted_sum"),
            "{seen:?}"
        );
        assert!(seen.iter().any(|p| p.0 == "times_v"), "{seen:?}");
        assert!(seen.iter().any(|p| p.0 == "u_times"), "{seen:?}");
        assert!(seen.iter().all(|p| p.1 == threads), "{threads}: {seen:?}");
    }
    let global = rayon::current_num_threads();
    assert!(passes_seen(None)?.iter().all(|p| p.1 == global));
    Ok(())
}
