//! The distributed fit (`sblr::distributed`) over chunks held in this process equals the
//! fit in memory up to the order of the sums; a chunk that fails makes the fit fail with
//! its error; bad chunks are typed errors naming the chunk.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use bl_core::data::MatrixDataset;
use sblr::distributed::{
    ChunkFeatures, ChunkSamples, RemoteChunks, check_sample_shape, fit_binary, one_vs_all,
    remote_failure,
};
use sblr::features::Side;
use sblr::ova::class_signs;
use sblr::synthetic::{three_classes, two_class};
use sblr::{ExactBlockSolve, Fit, Fitted, OneVsAll, ParamGuard, Sblr, SblrError};

/// Chunks of a data set in this process, as a cluster's workers would hold them; fails
/// every call from call number `fail_at` on.
struct Local {
    s: usize,
    t: usize,
    n: usize,
    rank: usize,
    samples: Vec<Arc<ChunkSamples<f64>>>,
    features: RefCell<Vec<Option<ChunkFeatures<f64>>>>,
    calls: Cell<usize>,
    fail_at: usize,
}

impl Local {
    fn new(data: &MatrixDataset, bounds: &[usize], rank: usize, fail_at: usize) -> Self {
        let (s, t) = data.shape();
        let mut samples = Vec::new();
        for (k, w) in bounds.windows(2).enumerate() {
            let mut c_order = Vec::new();
            for i in w[0]..w[1] {
                let x = data.sample(i);
                for a in 0..s {
                    for j in 0..t {
                        c_order.push(x[(a, j)]);
                    }
                }
            }
            let chunk =
                ChunkSamples::from_c_order(&c_order, (w[1] - w[0], s, t), (s, t), k, w[0]).unwrap();
            samples.push(Arc::new(chunk));
        }
        let features = RefCell::new(samples.iter().map(|_| None).collect());
        Self {
            s,
            t,
            n: data.n_samples(),
            rank,
            samples,
            features,
            calls: Cell::new(0),
            fail_at,
        }
    }

    fn call(&self) -> sblr::Result<()> {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() >= self.fail_at {
            return Err(remote_failure("worker lost"));
        }
        Ok(())
    }
}

impl RemoteChunks for Local {
    fn sample_shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }
    fn n_samples(&self) -> usize {
        self.n
    }
    fn refresh(&self, side: Side, w: &[f64]) -> sblr::Result<()> {
        self.call()?;
        let mut features = self.features.borrow_mut();
        for (f, samples) in features.iter_mut().zip(&self.samples) {
            if f.is_none() {
                *f = Some(ChunkFeatures::new(Arc::clone(samples), self.rank, Some(1))?);
            }
            f.as_mut().unwrap().refresh(side, w)?;
        }
        Ok(())
    }
    fn scores(&self, side: Side, w: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call()?;
        let features = self.features.borrow();
        let mut at = 0;
        for f in features.iter() {
            let part = f.as_ref().unwrap().scores(side, w)?;
            out[at..at + part.len()].copy_from_slice(&part);
            at += part.len();
        }
        Ok(())
    }
    fn weighted_sum(&self, side: Side, c: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call()?;
        out.fill(0.0);
        let (features, mut at) = (self.features.borrow(), 0);
        for (f, samples) in features.iter().zip(&self.samples) {
            let m = samples.n_samples();
            let part = f.as_ref().unwrap().weighted_sum(side, &c[at..at + m])?;
            out.iter_mut().zip(part).for_each(|(o, p)| *o += p);
            at += m;
        }
        Ok(())
    }
    fn refresh_and_scores(
        &self,
        side: Side,
        w: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) -> sblr::Result<()> {
        // One exchange: the two calls count as one (a failure at this call fails both).
        self.refresh(side, w)?;
        self.calls.set(self.calls.get() - 1);
        self.scores(side, x, out)
    }
    fn weighted_sample_sum(&self, weights: &[f64], out: &mut [f64]) -> sblr::Result<()> {
        self.call()?;
        out.fill(0.0);
        let mut at = 0;
        for samples in &self.samples {
            let m = samples.n_samples();
            let part = samples.weighted_sample_sum(&weights[at..at + m])?;
            out.iter_mut().zip(part).for_each(|(o, p)| *o += p);
            at += m;
        }
        Ok(())
    }
}

#[test]
fn distributed_fits_equal_the_in_memory_fits() {
    let data = two_class(37, 7, 6, 0.5, 4).unwrap();
    let y = data.signs().unwrap();
    for alg1 in [false, true] {
        let mut params = Sblr::params().rank(2).max_iter(25).tol(0.0);
        if alg1 {
            params = params.block_update(Arc::new(ExactBlockSolve::default()));
        }
        let params = params.check().unwrap();
        let memory = params.fit(&data).unwrap();
        let chunks = Local::new(&data, &[0, 10, 11, 30, 37], 2, usize::MAX);
        let spread = fit_binary(chunks, y.clone(), &params, &mut []).unwrap();
        let rel = (spread.objective() - memory.objective()).abs() / memory.objective();
        assert!(
            rel <= 1e-10,
            "alg1 {alg1}: {} vs {}",
            spread.objective(),
            memory.objective()
        );
        assert_eq!(spread.report().iterations, 25);
        for (a, b) in spread.u().col_iter().zip(memory.u().col_iter()) {
            for (x, z) in a.iter().zip(b.iter()) {
                assert!((x - z).abs() <= 1e-8, "{x} {z}");
            }
        }
    }
}

#[test]
fn one_vs_all_of_distributed_class_fits_equals_the_in_memory_one_vs_all() {
    let data = three_classes(30, 4, 5, 8).unwrap();
    let params = Sblr::params().rank(1).max_iter(30).check().unwrap();
    let memory = OneVsAll::new(Sblr::params().rank(1).max_iter(30))
        .fit(&data)
        .unwrap();
    let models = (0..3)
        .map(|c| {
            fit_binary(
                Local::new(&data, &[0, 12, 30], 1, usize::MAX),
                class_signs(data.labels(), c),
                &params,
                &mut [],
            )
            .unwrap()
        })
        .collect();
    let spread = one_vs_all(models, data.class_names().to_vec()).unwrap();
    let (a, b) = (
        spread.decision_function(&data).unwrap(),
        memory.decision_function(&data).unwrap(),
    );
    for (ra, rb) in a.iter().zip(&b) {
        for (x, z) in ra.iter().zip(rb) {
            assert!((x - z).abs() <= 1e-8 * (1.0 + z.abs()), "{x} {z}");
        }
    }
    assert!(matches!(
        one_vs_all(vec![], vec![]),
        Err(SblrError::Core(bl_core::BlError::TooFewClasses { .. }))
    ));
}

#[test]
fn a_failing_chunk_fails_the_fit_with_its_error_at_any_call() {
    let data = two_class(20, 4, 4, 0.5, 1).unwrap();
    let y = data.signs().unwrap();
    let params = Sblr::params().max_iter(5).tol(0.0).check().unwrap();
    for fail_at in [1, 2, 3, 5, 8, 13] {
        let chunks = Local::new(&data, &[0, 7, 20], 1, fail_at);
        let e = fit_binary(chunks, y.clone(), &params, &mut []).unwrap_err();
        assert!(
            e.to_string().contains("worker lost"),
            "fail at {fail_at}: {e}"
        );
    }
}

/// `result` is a `NonFiniteSample` error at `(sample, row, col) == at` whose origin names
/// `chunk`.
#[track_caller]
fn assert_non_finite_at<T: std::fmt::Debug>(
    result: sblr::Result<T>,
    at: (usize, usize, usize),
    chunk: &str,
) {
    let Err(SblrError::NonFiniteSample {
        sample,
        row,
        col,
        origin,
        ..
    }) = result
    else {
        panic!("{result:?}");
    };
    assert_eq!((sample, row, col), at);
    assert!(origin.contains(chunk));
}

#[test]
fn bad_chunks_are_typed_errors_naming_the_chunk() {
    let e = ChunkSamples::<f64>::from_c_order(&[0.0; 12], (2, 3, 2), (2, 3), 4, 10).unwrap_err();
    assert!(e.to_string().contains("chunk 4"), "{e}");
    let e = ChunkSamples::<f64>::from_c_order(&[0.0; 11], (2, 2, 3), (2, 3), 1, 10).unwrap_err();
    assert!(e.to_string().contains("chunk 1"), "{e}");
    let mut values = vec![0.0; 12];
    values[6 + 4] = f64::INFINITY; // sample 1 of the chunk, entry (1, 1) of a 2 x 3
    let checked = ChunkSamples::<f64>::from_c_order(&values, (2, 2, 3), (2, 3), 3, 10);
    assert_non_finite_at(checked, (11, 1, 1), "chunk 3");
    // A chunk without samples: named.
    let e = ChunkSamples::<f64>::from_c_order::<f64>(&[], (0, 2, 3), (2, 3), 5, 0).unwrap_err();
    assert!(e.to_string().contains("chunk 5"), "{e}");
    // Labels of another length, a rank too large.
    let data = two_class(10, 3, 3, 0.5, 1).unwrap();
    let params = Sblr::params().check().unwrap();
    let e = fit_binary(
        Local::new(&data, &[0, 10], 1, usize::MAX),
        vec![1.0; 3],
        &params,
        &mut [],
    )
    .unwrap_err();
    assert!(
        matches!(e, SblrError::Core(bl_core::BlError::ShapeMismatch { .. })),
        "{e}"
    );
    let e = fit_binary(
        Local::new(&data, &[0, 10], 4, usize::MAX),
        data.signs().unwrap(),
        &Sblr::params().rank(4).check().unwrap(),
        &mut [],
    )
    .unwrap_err();
    assert!(matches!(e, SblrError::InvalidRank { .. }), "{e}");
}

/// Chunks that claim absurd sizes and hold nothing.
struct Claims((usize, usize), usize);

impl RemoteChunks for Claims {
    fn sample_shape(&self) -> (usize, usize) {
        self.0
    }
    fn n_samples(&self) -> usize {
        self.1
    }
    fn refresh(&self, _: Side, _: &[f64]) -> sblr::Result<()> {
        unreachable!("never reached: the sizes are refused first")
    }
    fn scores(&self, _: Side, _: &[f64], _: &mut [f64]) -> sblr::Result<()> {
        unreachable!()
    }
    fn weighted_sum(&self, _: Side, _: &[f64], _: &mut [f64]) -> sblr::Result<()> {
        unreachable!()
    }
    fn weighted_sample_sum(&self, _: &[f64], _: &mut [f64]) -> sblr::Result<()> {
        unreachable!()
    }
}

#[test]
fn absurd_sizes_claimed_by_the_chunks_are_typed_errors() {
    let y = vec![1.0, -1.0, 1.0, -1.0];
    for (shape, rank) in [
        ((1 << 40, 1 << 40), 1),
        ((usize::MAX, 3), 2),
        ((3, usize::MAX), 3),
    ] {
        let params = Sblr::params().rank(rank).check().unwrap();
        let e = fit_binary(Claims(shape, 4), y.clone(), &params, &mut []).unwrap_err();
        assert!(
            matches!(
                e,
                SblrError::Core(bl_core::BlError::InvalidParameter { .. })
            ),
            "{e}"
        );
    }
    let params = Sblr::params().check().unwrap();
    let e = fit_binary(Claims((3, 3), 0), vec![], &params, &mut []).unwrap_err();
    assert!(matches!(e, SblrError::Core(_)), "{e}");
}

#[test]
fn a_chunk_of_f32_values_is_the_chunk_of_their_f64_values() {
    // 2 samples of 2 x 3, C order, exactly representable in f32.
    let values: Vec<f64> = (0..12).map(|v| f64::from(v) * 0.25 - 1.0).collect();
    let narrow: Vec<f32> = (0..12u8).map(|v| f32::from(v) * 0.25 - 1.0).collect();
    let weights = [0.5, -2.0];
    let wide = ChunkSamples::<f64>::from_c_order(&values, (2, 2, 3), (2, 3), 0, 0).unwrap();
    for chunk in [
        ChunkSamples::<f64>::from_c_order(&narrow, (2, 2, 3), (2, 3), 0, 0).unwrap(),
        ChunkSamples::<f64>::transposed(&values, (2, 2, 3), (2, 3), 0).unwrap(),
    ] {
        assert_eq!(
            chunk.weighted_sample_sum(&weights).unwrap(),
            wide.weighted_sample_sum(&weights).unwrap()
        );
    }
    let single = ChunkSamples::<f32>::from_c_order(&narrow, (2, 2, 3), (2, 3), 0, 0).unwrap();
    assert_eq!(
        single.weighted_sample_sum(&weights).unwrap(),
        wide.weighted_sample_sum(&weights).unwrap()
    );
    // Column-major per sample: entry (a, j) of sample 0 is values[a * 3 + j].
    let unit = ChunkSamples::<f64>::from_c_order(&values, (2, 2, 3), (2, 3), 0, 0).unwrap();
    let first = unit.weighted_sample_sum(&[1.0, 0.0]).unwrap();
    assert_eq!(first, vec![-1.0, -0.25, -0.75, 0.0, -0.5, 0.25]);
    assert_eq!((wide.nbytes(), single.nbytes()), (96, 48));
}

#[test]
fn an_unchecked_chunk_names_its_non_finite_sample_once_its_first_is_known() {
    let mut values = vec![0.0; 12];
    values[6 + 5] = f64::NAN; // sample 1 of the chunk, entry (1, 2)
    let chunk = ChunkSamples::<f64>::transposed(&values, (2, 2, 3), (2, 3), 2).unwrap();
    assert_non_finite_at(chunk.ensure_finite(2, 40), (41, 1, 2), "chunk 2");
    // An f64 beyond the f32 range is infinite in an f32 chunk.
    let e = ChunkSamples::<f32>::from_c_order(&[1e300, 0.0], (1, 1, 2), (1, 2), 0, 7).unwrap_err();
    assert!(
        matches!(e, SblrError::NonFiniteSample { sample: 7, .. }),
        "{e}"
    );
}

#[test]
fn the_sample_shape_is_checked_without_data() {
    check_sample_shape(2, (3, 4)).unwrap();
    assert!(matches!(
        check_sample_shape(4, (3, 4)),
        Err(SblrError::InvalidRank {
            rank: 4,
            s: 3,
            t: 4
        })
    ));
    assert!(matches!(
        check_sample_shape(0, (3, 4)),
        Err(SblrError::InvalidRank { .. })
    ));
    assert!(matches!(
        check_sample_shape(1, (1 << 40, 1 << 40)),
        Err(SblrError::Core(bl_core::BlError::InvalidParameter { .. }))
    ));
}
