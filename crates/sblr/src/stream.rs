//! Fitting on a `.npy` file larger than memory: [`NpySource`] streams the samples in
//! blocks within a memory budget, for each data pass.
//!
//! Each iteration of Alg. 1 / Alg. 2 reads the samples twice (`X_i V` and `U^T X_i` for
//! every sample), and the spectral starts once more (a weighted mean); everything else
//! works on the `O((s + t) r n)` reduced features, which stay in memory. [`NpySource`]
//! implements [`DataPasses`] by reading the file block after block into one block buffer,
//! and running the same per-sample kernels as the in-memory passes on each block. The
//! block buffer (samples in the file's precision) and the read buffers (one per reader,
//! [`bl_core::io::npy::NpyFile::staging_bytes`] each; one reader per core, at most
//! [`MAX_READERS`], fewer when the budget would leave less than a sample per reader) hold
//! at most `memory_budget` bytes together ([`NpySource::buffer_bytes`]). The readers read
//! contiguous parts of a block in parallel, each with its own file handle. Each sample's products are
//! computed by the same code in the same order, and the weighted mean adds the samples in
//! the same order, so a fit on an [`NpySource`] is bit-identical to the fit on the same
//! values in memory (a `MatrixDataset<f32>` for an `f4` file, `MatrixDataset<f64>` for
//! `f8`; `tests/sblr_tests/streaming.rs`).
//!
//! ```no_run
//! use sblr::stream::NpySource;
//! use sblr::{Fit, OneVsAll, Sblr};
//!
//! // samples.npy: an (n, s, t) array of f4 or f8, C or Fortran order.
//! let labels: Vec<String> = std::fs::read_to_string("labels.txt")?
//!     .lines()
//!     .map(str::to_owned)
//!     .collect();
//! let source = NpySource::open("samples.npy", &labels, 256 << 20)?; // 256 MiB of blocks
//! let model = OneVsAll::new(Sblr::params().rank(2)).fit(&source)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A binary file fits with `Sblr::params().fit(&source)`; one-vs-all fits its classes one
//! after the other over the one buffer (each class's passes run on the params' threads).
//! Reading is not overlapped with computing: a block is read, then its products are
//! computed. One source serves one fit at a time (a second fit using it meanwhile gets
//! `BlError::InvalidParameter`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bl_core::data::Element;
use bl_core::engine::Observer;
use bl_core::io::npy::{ItemOrder, NpyFile, SlabElement};
use bl_core::iteration::Pool;
use faer::MatRef;
use rayon::prelude::*;

use crate::error::{Result, SblrError};
use crate::features::LocalFeatures;
use crate::model::{FittedSblr, fit_solver};
use crate::ova::{FittedOneVsAll, OneVsAllValidParams, Renumbered, assemble};
use crate::params::SblrValidParams;
use crate::passes::{DataPasses, Stacked, ensure_finite_samples};
use crate::{BinarySolverOn, Fit};
use bl_core::error::build::{invalid, shape_mismatch};

/// The samples of an `(n, s, t)` `.npy` file (`f4` or `f8`, either byte order, C or
/// Fortran order) with one label per sample, read in blocks of at most `memory_budget`
/// bytes for each pass (see the [module documentation](self)).
///
/// An `f4` file is read as `f32` samples, an `f8` file as `f64`; the passes accumulate in
/// `f64` either way. Sample `i` is `x[i]` of the NumPy array (`s x t`).
#[derive(Debug)]
pub struct NpySource {
    path: PathBuf,
    s: usize,
    t: usize,
    n: usize,
    labels: Vec<usize>,
    class_names: Vec<String>,
    memory_budget: usize,
    block_samples: usize,
    buffer_bytes: usize,
    is_f32: bool,
    readers: usize,
    state: Mutex<State>,
}

/// The open file (one handle per reader) and the block buffer, locked for each pass.
#[derive(Debug)]
struct State {
    files: Vec<NpyFile>,
    block: Block,
}

/// Most readers (file handles read in parallel) of a source.
pub const MAX_READERS: usize = 8;

/// The block buffer in the file's precision.
#[derive(Debug)]
enum Block {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl NpySource {
    /// The samples of the `.npy` file at `path` with class names `labels` (one per sample;
    /// the classes are the sorted distinct names, as
    /// [`bl_core::data::MatrixDataset::from_label_names`]), read in blocks of at most
    /// `memory_budget` bytes. Reads the header and allocates the block buffer; reads no
    /// data (a non-finite entry is found by the first pass that reads it).
    ///
    /// # Errors
    /// As [`NpySource::with_classes`].
    pub fn open<S: AsRef<str>>(
        path: impl AsRef<Path>,
        labels: &[S],
        memory_budget: usize,
    ) -> Result<Self> {
        let names: BTreeSet<&str> = labels.iter().map(AsRef::as_ref).collect();
        let class_names: Vec<String> = names.iter().map(|&s| s.to_owned()).collect();
        let indices = labels
            .iter()
            .map(|l| names.iter().position(|&c| c == l.as_ref()).unwrap_or(0))
            .collect();
        Self::with_classes(path, indices, class_names, memory_budget)
    }

    /// The samples of the `.npy` file at `path` with class indices `labels` into
    /// `class_names`.
    ///
    /// # Errors
    /// [`bl_core::BlError::Io`] / [`bl_core::BlError::Npy`] (as `SblrError::Core`) for a
    /// file that cannot be opened, a malformed or truncated file or a dtype other than
    /// `f4`/`f8`; `BlError::ShapeMismatch` for an array that is not `(n, s, t)` with
    /// `n, s, t >= 1`, or a number of labels other than `n`; `BlError::TooFewClasses` /
    /// `BlError::InvalidParameter` for fewer than two class names, repeated names or a
    /// label out of range; [`SblrError::BudgetTooSmall`] when `memory_budget` cannot hold
    /// one sample and the read buffer; `BlError::InvalidParameter` when the block buffer
    /// cannot be allocated.
    pub fn with_classes(
        path: impl AsRef<Path>,
        labels: Vec<usize>,
        class_names: Vec<String>,
        memory_budget: usize,
    ) -> Result<Self> {
        let path = path.as_ref();
        let file = NpyFile::open(path)?;
        let (n, s, t) = match *file.shape() {
            [n, s, t] if n >= 1 && s >= 1 && t >= 1 => (n, s, t),
            _ => {
                return Err(shape_mismatch(
                    "NpySource: array shape",
                    "(n, s, t) with n, s, t >= 1 (n samples of s x t)",
                    format!("{:?}", file.shape()),
                ));
            }
        };
        if labels.len() != n {
            return Err(shape_mismatch(
                "NpySource: labels",
                format!("{n} labels (one per sample of {})", path.display()),
                format!("{} labels", labels.len()),
            ));
        }
        if class_names.len() < 2 {
            return Err(bl_core::BlError::TooFewClasses {
                found: class_names.len(),
            }
            .into());
        }
        if class_names.iter().collect::<BTreeSet<_>>().len() != class_names.len() {
            return Err(invalid(
                "class_names",
                "a repeated name",
                "distinct class names",
            ));
        }
        if let Some((i, &l)) = labels
            .iter()
            .enumerate()
            .find(|&(_, &l)| l >= class_names.len())
        {
            return Err(invalid(
                "labels",
                format!("{l} at sample {i}"),
                "a class index below the number of class names",
            ));
        }
        // The file's size matches its header, so n s t values exist and their product
        // cannot overflow; sizes below are bounded by the file.
        let item = if file.item_size() == 4 {
            size_of::<f32>()
        } else {
            size_of::<f64>()
        };
        let sample = s * t * item;
        let staging = file.staging_bytes();
        let needed = sample.saturating_add(staging);
        if memory_budget < needed {
            return Err(SblrError::BudgetTooSmall {
                budget: memory_budget,
                needed,
                sample,
                staging,
            });
        }
        // Readers: one per core (at most MAX_READERS), each with its own read buffer,
        // as long as the budget leaves at least one sample per reader.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let mut readers = cores.clamp(1, MAX_READERS).min(n);
        while readers > 1 && memory_budget.saturating_sub(readers * staging) / sample < readers {
            readers -= 1;
        }
        let staging = readers * staging;
        // At most n samples, and at most the workspace's largest buffer.
        let block_samples = ((memory_budget - staging) / sample)
            .min(n)
            .min((bl_core::limits::MAX_ELEMENTS / (s * t)).max(1));
        let mut files = vec![file];
        for _ in 1..readers {
            files.push(NpyFile::open(path)?);
        }
        let len = [block_samples, s, t];
        let block = if item == size_of::<f32>() {
            Block::F32(bl_core::limits::try_zeroed("NpySource: block", &len)?)
        } else {
            Block::F64(bl_core::limits::try_zeroed("NpySource: block", &len)?)
        };
        Ok(Self {
            path: path.to_owned(),
            s,
            t,
            n,
            labels,
            class_names,
            memory_budget,
            block_samples,
            buffer_bytes: block_samples * sample + staging,
            is_f32: item == size_of::<f32>(),
            readers,
            state: Mutex::new(State { files, block }),
        })
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The class index of every sample.
    #[must_use]
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The class names.
    #[must_use]
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// The budget given, in bytes.
    #[must_use]
    pub fn memory_budget(&self) -> usize {
        self.memory_budget
    }

    /// Samples per block.
    #[must_use]
    pub fn block_samples(&self) -> usize {
        self.block_samples
    }

    /// Bytes the source holds for reading: the block buffer plus the read buffers of its
    /// [`NpySource::readers`] (at most [`NpySource::memory_budget`]); allocated once, when
    /// the source is opened (the read buffers at the first read).
    #[must_use]
    pub fn buffer_bytes(&self) -> usize {
        self.buffer_bytes
    }

    /// Whether the samples are stored as `f32` (an `f4` file).
    #[must_use]
    pub fn is_f32(&self) -> bool {
        self.is_f32
    }

    /// The buffers, for one pass. A pass that panicked cannot leave them in a state that
    /// matters (every pass reads the blocks it uses before it uses them).
    ///
    /// # Errors
    /// `BlError::InvalidParameter` when another pass holds them: one fit at a time per
    /// source (waiting could deadlock a rayon thread that holds them while it runs another
    /// task).
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(state) => Ok(state),
            Err(std::sync::TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => Err(invalid(
                "source",
                "an NpySource in use by another fit",
                "one fit at a time per source (open one source per concurrent fit)",
            )),
        }
    }

    /// Readers (file handles read in parallel, each with its own read buffer).
    #[must_use]
    pub fn readers(&self) -> usize {
        self.readers
    }

    /// `±1` labels of a two-class source (class 1 is `+1`).
    fn binary_signs(&self) -> Result<Vec<f64>> {
        if self.class_names.len() != 2 {
            return Err(SblrError::NotBinary {
                found: self.class_names.len(),
            });
        }
        self.signs_of(1)
    }

    /// `+1` for class `c`, `-1` for the others.
    fn signs_of(&self, c: usize) -> Result<Vec<f64>> {
        for (k, name) in self.class_names.iter().enumerate() {
            if !self.labels.contains(&k) {
                return Err(SblrError::MissingClass {
                    class: name.clone(),
                });
            }
        }
        Ok(crate::ova::class_signs(&self.labels, c))
    }

    /// Runs `each(first, stacked block)` over the blocks in order, each read (its
    /// samples split over the readers, read in parallel on `threads`), checked for
    /// non-finite entries and viewed as stacked samples.
    fn for_each_block(
        &self,
        threads: &Pool,
        mut each: impl FnMut(usize, BlockView<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut state = self.lock()?;
        let State { files, block } = &mut *state;
        let (s, t) = (self.s, self.t);
        let mut first = 0;
        while first < self.n {
            let count = self.block_samples.min(self.n - first);
            let len = count * s * t;
            let view = match block {
                Block::F32(buf) => {
                    BlockView::F32(self.read_block(files, &mut buf[..len], first, threads)?)
                }
                Block::F64(buf) => {
                    BlockView::F64(self.read_block(files, &mut buf[..len], first, threads)?)
                }
            };
            each(first, view)?;
            first += count;
        }
        Ok(())
    }

    /// Reads the samples `first..` filling `buf` (column-major per sample), split in
    /// contiguous parts over the readers; checks them; views them as stacked samples.
    /// The first error in sample order is returned.
    fn read_block<'b, T: Element + SlabElement>(
        &self,
        files: &mut [NpyFile],
        buf: &'b mut [T],
        first: usize,
        threads: &Pool,
    ) -> Result<Stacked<'b, T>> {
        let (s, t) = (self.s, self.t);
        let st = s * t;
        let count = buf.len() / st;
        let per_reader = count.div_ceil(files.len()).max(1);
        let read = |(k, (file, part)): (usize, (&mut NpyFile, &mut [T]))| -> Result<()> {
            let from = first + k * per_reader;
            file.read_slab(from, part.len() / st, ItemOrder::ColumnMajor, part)?;
            ensure_finite_samples(part, s, t, from, || format!(" of {}", self.path.display()))
        };
        let results: Vec<Result<()>> = if files.len() == 1 {
            vec![read((0, (&mut files[0], &mut *buf)))]
        } else {
            threads.install(|| {
                files
                    .par_iter_mut()
                    .zip(buf.par_chunks_mut(per_reader * st))
                    .enumerate()
                    .map(read)
                    .collect()
            })
        };
        results.into_iter().collect::<Result<()>>()?;
        let buf: &'b [T] = buf;
        Stacked::new(
            MatRef::from_column_major_slice(buf, s, t * count),
            s,
            t,
            count,
        )
    }
}

/// One block of samples as stacked views.
enum BlockView<'a> {
    F32(Stacked<'a, f32>),
    F64(Stacked<'a, f64>),
}

impl DataPasses for NpySource {
    fn sample_shape(&self) -> (usize, usize) {
        (self.s, self.t)
    }

    fn n_samples(&self) -> usize {
        self.n
    }

    fn times_v(&self, vt: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        let per = self.s * k;
        self.for_each_block(threads, |first, view| {
            match view {
                BlockView::F32(b) => {
                    b.times_v(vt, k, &mut out[first * per..][..b.n * per], threads)
                }
                BlockView::F64(b) => {
                    b.times_v(vt, k, &mut out[first * per..][..b.n * per], threads)
                }
            }
            Ok(())
        })
    }

    fn u_times(&self, u: &[f64], k: usize, out: &mut [f64], threads: &Pool) -> Result<()> {
        let per = k * self.t;
        self.for_each_block(threads, |first, view| {
            match view {
                BlockView::F32(b) => b.u_times(u, k, &mut out[first * per..][..b.n * per], threads),
                BlockView::F64(b) => b.u_times(u, k, &mut out[first * per..][..b.n * per], threads),
            }
            Ok(())
        })
    }

    fn add_weighted_sum(&self, weights: &[f64], acc: &mut [f64], threads: &Pool) -> Result<()> {
        self.for_each_block(threads, |first, view| {
            match view {
                BlockView::F32(b) => b.add_weighted_sum(&weights[first..first + b.n], acc),
                BlockView::F64(b) => b.add_weighted_sum(&weights[first..first + b.n], acc),
            }
            Ok(())
        })
    }
}

/// The binary solver over a streamed source (features of the params' rank, passes on the
/// params' threads).
fn solver_on<'a>(
    source: &'a NpySource,
    y: Vec<f64>,
    params: &SblrValidParams,
) -> Result<BinarySolverOn<LocalFeatures<&'a NpySource>>> {
    let (s, t) = (source.s, source.t);
    crate::bilinear::check_rank(params.rank(), s, t)?;
    let features = LocalFeatures::new(source, params.rank(), params.iteration().threads)?;
    BinarySolverOn::with_features(features, y, params)
}

impl Fit<NpySource> for SblrValidParams {
    type Fitted = FittedSblr;
    type Error = SblrError;

    /// Fits the binary model on a two-class source (class 1 is `+1`), streaming the
    /// samples for every pass; the same fit, bit for bit, as on the samples in memory.
    ///
    /// # Errors
    /// As the fit on a data set in memory, plus the source's read errors (a file
    /// truncated after it was opened) and [`SblrError::NonFiniteSample`].
    fn fit_observed(
        &self,
        data: &NpySource,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedSblr> {
        let y = data.binary_signs()?;
        let mut model = fit_solver(solver_on(data, y, self)?, self, observers)?;
        model.set_class_names(data.class_names.clone());
        Ok(model)
    }
}

impl Fit<NpySource> for OneVsAllValidParams<SblrValidParams> {
    type Fitted = FittedOneVsAll<FittedSblr>;
    type Error = SblrError;

    /// Fits one binary model per class, one class after the other over the source's one
    /// block buffer (unlike the fit in memory, which fits the classes in parallel); each
    /// equals, bit for bit, the class model of the fit on the samples in memory. As there,
    /// the report's `elapsed` is the wall-clock time of the whole fit and observers see
    /// every iteration of every class (whatever the trace setting), numbered on across the
    /// classes, here as it happens.
    ///
    /// # Errors
    /// [`SblrError::MissingClass`] when a class has no sample; any binary fit's error.
    fn fit_observed(
        &self,
        data: &NpySource,
        observers: &mut [&mut dyn Observer],
    ) -> Result<FittedOneVsAll<FittedSblr>> {
        let started = std::time::Instant::now();
        let n = data.class_names.len();
        let (mut models, mut starts) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut before = 0_usize;
        for c in 0..n {
            let start = started.elapsed();
            let y = data.signs_of(c)?;
            let solver = solver_on(data, y, self.estimator())?;
            let model = if observers.is_empty() {
                fit_solver(solver, self.estimator(), &mut [])?
            } else {
                let mut shown = Renumbered {
                    observers: &mut *observers,
                    before,
                    start,
                };
                fit_solver(solver, self.estimator(), &mut [&mut shown])?
            };
            before = before.saturating_add(bl_core::Fitted::report(&model).iterations);
            models.push(model);
            starts.push(start);
        }
        let elapsed = started.elapsed();
        Ok(assemble(
            models,
            data.class_names.clone(),
            Some((&starts, elapsed)),
        ))
    }
}
