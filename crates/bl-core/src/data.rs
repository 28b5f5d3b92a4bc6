//! Data sets of matrix-valued samples, seeded train/test splits and cross-validation.
//!
//! A [`MatrixDataset`] holds `n` labelled samples `X_1, ..., X_n`, each an `s x t` matrix,
//! in one contiguous column-major buffer. The same buffer is viewed as
//!
//! - the `s x (t n)` matrix `[X_1 X_2 ... X_n]` ([`MatrixDataset::stacked`]), and
//! - the `(s t) x n` matrix whose column `i` is `vec(X_i)` ([`MatrixDataset::vectorized`]),
//!
//! without copying. The splitting helpers work on label slices so they serve any data type:
//! [`stratified_split`] (one seeded train/test split), [`KFold`] (plain or stratified
//! k-fold) and [`LeaveOneOut`].
//!
//! # Precision
//!
//! Samples are stored as `f64` (the default, `MatrixDataset` = `MatrixDataset<f64>`) or as
//! `f32` (`MatrixDataset<f32>`, half the memory and half the bytes per data pass). The
//! element type is one parameter of the same type, so every method is the same for both;
//! [`MatrixDataset::to_f32`] and [`MatrixDataset::to_f64`] convert. Solvers that accept
//! either read the samples in their own precision and accumulate in `f64`.

use std::collections::BTreeSet;

use faer::MatRef;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::error::{BlError, Result, ensure_nonempty};

/// The element type of a [`MatrixDataset`]: `f64` or `f32` (the trait is sealed).
pub trait Element:
    Copy
    + Default
    + PartialEq
    + PartialOrd
    + std::fmt::Debug
    + std::fmt::Display
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    + faer::traits::ComplexField
{
    /// `"f64"` or `"f32"`.
    const NAME: &'static str;
    /// The value as `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// The nearest value of this type (`f32` rounds; a finite `f64` beyond the `f32`
    /// range becomes infinite).
    fn from_f64(value: f64) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl Element for f64 {
    const NAME: &'static str = "f64";
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value
    }
}

impl Element for f32 {
    const NAME: &'static str = "f32";
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

/// The first non-finite entry of `values`, as [`BlError::NonFinite`].
fn ensure_finite_elements<T: Element>(what: &'static str, values: &[T]) -> Result<()> {
    match values.iter().position(|v| !v.to_f64().is_finite()) {
        Some(index) => Err(BlError::NonFinite {
            what,
            index,
            value: values[index].to_f64(),
        }),
        None => Ok(()),
    }
}

/// Labelled samples that are `s x t` matrices, stored contiguously.
///
/// Sample `i` occupies `as_slice()[i*s*t .. (i+1)*s*t]` in column-major (faer) order, so
/// entry `(a, b)` of sample `i` is at `i*s*t + b*s + a`.
///
/// Labels are class indices `0..n_classes()`; [`MatrixDataset::class_names`] gives the name
/// of each index. Invariants checked by every constructor: `s, t >= 1`, at least one sample,
/// every value finite, every label below the number of classes, at least two distinct class
/// names.
///
/// # Example
/// ```
/// use bl_core::data::MatrixDataset;
/// // two 2 x 3 samples
/// let data: Vec<f64> = (0..12).map(f64::from).collect();
/// let ds = MatrixDataset::from_label_names(2, 3, data, &["walk", "run"]).unwrap();
/// assert_eq!(ds.class_names(), ["run", "walk"]); // sorted distinct names
/// assert_eq!(ds.labels(), [1, 0]);
/// assert_eq!(ds.sample(1)[(1, 2)], 11.0);
/// assert_eq!(ds.stacked().ncols(), 6);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixDataset<T: Element = f64> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
    labels: Vec<usize>,
    class_names: Vec<String>,
}

impl MatrixDataset {
    /// Builds an `f64` data set from class indices and the names of the classes.
    ///
    /// `data` holds `labels.len()` samples of shape `rows x cols`, each column-major, one
    /// after the other. `labels[i]` is the class index of sample `i` and must be below
    /// `class_names.len()`. Not every class needs to occur (a test set may miss one).
    /// [`MatrixDataset::with_data`] builds a data set of either precision.
    ///
    /// # Errors
    /// - [`BlError::InvalidParameter`] when `rows` or `cols` is zero, a label is out of
    ///   range, or two class names are equal;
    /// - [`BlError::Empty`] when there are no labels;
    /// - [`BlError::ShapeMismatch`] when `data.len() != rows * cols * labels.len()`;
    /// - [`BlError::NonFinite`] at the first NaN or infinite value;
    /// - [`BlError::TooFewClasses`] when fewer than two class names are given.
    pub fn new(
        rows: usize,
        cols: usize,
        data: Vec<f64>,
        labels: Vec<usize>,
        class_names: Vec<String>,
    ) -> Result<Self> {
        Self::with_data(rows, cols, data, labels, class_names)
    }

    /// Builds an `f64` data set from one class name per sample.
    ///
    /// The classes are the distinct names sorted in byte order; a sample's label is the
    /// position of its name in that list. Use [`MatrixDataset::new`] to fix another order
    /// (e.g. so that a train and a test file index their classes the same way).
    /// [`MatrixDataset::with_label_names`] builds a data set of either precision.
    ///
    /// # Errors
    /// As [`MatrixDataset::new`]; [`BlError::TooFewClasses`] when all names are equal.
    pub fn from_label_names<S: AsRef<str>>(
        rows: usize,
        cols: usize,
        data: Vec<f64>,
        names: &[S],
    ) -> Result<Self> {
        Self::with_label_names(rows, cols, data, names)
    }
}

impl<T: Element> MatrixDataset<T> {
    /// [`MatrixDataset::new`] for samples of either precision (`f64` or `f32`).
    ///
    /// # Errors
    /// As [`MatrixDataset::new`].
    pub fn with_data(
        rows: usize,
        cols: usize,
        data: Vec<T>,
        labels: Vec<usize>,
        class_names: Vec<String>,
    ) -> Result<Self> {
        check_shape(rows, cols, data.len(), labels.len())?;
        ensure_finite_elements("MatrixDataset data", &data)?;
        if class_names.len() < 2 {
            return Err(BlError::TooFewClasses {
                found: class_names.len(),
            });
        }
        let mut seen = BTreeSet::new();
        for name in &class_names {
            if !seen.insert(name.as_str()) {
                return Err(BlError::InvalidParameter {
                    name: "class_names",
                    value: format!("{name:?} (repeated)"),
                    expected: "distinct class names".into(),
                });
            }
        }
        if let Some((index, &label)) = labels
            .iter()
            .enumerate()
            .find(|&(_, &l)| l >= class_names.len())
        {
            return Err(BlError::InvalidParameter {
                name: "labels",
                value: format!("{label} at sample {index}"),
                expected: "a class index below the number of class names".into(),
            });
        }
        Ok(Self {
            rows,
            cols,
            data,
            labels,
            class_names,
        })
    }

    /// [`MatrixDataset::from_label_names`] for samples of either precision.
    ///
    /// # Errors
    /// As [`MatrixDataset::from_label_names`].
    pub fn with_label_names<S: AsRef<str>>(
        rows: usize,
        cols: usize,
        data: Vec<T>,
        names: &[S],
    ) -> Result<Self> {
        check_shape(rows, cols, data.len(), names.len())?;
        let class_names: Vec<String> = names
            .iter()
            .map(|s| s.as_ref())
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let labels = names
            .iter()
            .map(|s| {
                class_names
                    .binary_search_by(|c| c.as_str().cmp(s.as_ref()))
                    .unwrap_or_default()
            })
            .collect();
        Self::with_data(rows, cols, data, labels, class_names)
    }

    /// Number of samples `n`.
    pub fn n_samples(&self) -> usize {
        self.labels.len()
    }

    /// Shape `(s, t)` of every sample.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Number of classes (the number of class names, whether or not each occurs).
    pub fn n_classes(&self) -> usize {
        self.class_names.len()
    }

    /// Class index of every sample.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Name of every class; `class_names()[k]` is the name of label `k`.
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// Index of the class called `name`, if there is one.
    pub fn class_index(&self, name: &str) -> Option<usize> {
        self.class_names.iter().position(|c| c == name)
    }

    /// Number of samples in each class, indexed by label.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.class_names.len()];
        for &l in &self.labels {
            counts[l] += 1;
        }
        counts
    }

    /// Sample `i` as an `s x t` matrix view.
    ///
    /// # Panics
    /// When `i >= n_samples()`, like slice indexing; see [`MatrixDataset::get_sample`].
    pub fn sample(&self, i: usize) -> MatRef<'_, T> {
        match self.get_sample(i) {
            Some(m) => m,
            None => panic!(
                "sample index {i} out of range for a data set of {} samples",
                self.n_samples()
            ),
        }
    }

    /// Sample `i` as an `s x t` matrix view, or `None` when `i` is out of range.
    pub fn get_sample(&self, i: usize) -> Option<MatRef<'_, T>> {
        let len = self.rows * self.cols;
        let start = i.checked_mul(len)?;
        let slice = self.data.get(start..start.checked_add(len)?)?;
        Some(MatRef::from_column_major_slice(slice, self.rows, self.cols))
    }

    /// All samples side by side: the `s x (t n)` matrix `[X_1 X_2 ... X_n]`.
    pub fn stacked(&self) -> MatRef<'_, T> {
        MatRef::from_column_major_slice(&self.data, self.rows, self.cols * self.n_samples())
    }

    /// All samples vectorized: the `(s t) x n` matrix whose column `i` is `vec(X_i)`.
    pub fn vectorized(&self) -> MatRef<'_, T> {
        MatRef::from_column_major_slice(&self.data, self.rows * self.cols, self.n_samples())
    }

    /// The raw buffer: `n` column-major `s x t` samples one after the other.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// Labels as `±1` for binary problems: class 1 gives `+1.0`, class 0 gives `-1.0`.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] when the data set does not have exactly two classes.
    pub fn signs(&self) -> Result<Vec<f64>> {
        if self.n_classes() != 2 {
            return Err(BlError::InvalidParameter {
                name: "n_classes",
                value: self.n_classes().to_string(),
                expected: "exactly 2 classes for ±1 labels (use restrict_to_classes first)".into(),
            });
        }
        Ok(self
            .labels
            .iter()
            .map(|&l| if l == 1 { 1.0 } else { -1.0 })
            .collect())
    }

    /// A copy holding the samples at `indices`, in that order (repeats allowed), with the
    /// same class names.
    ///
    /// # Errors
    /// [`BlError::Empty`] when `indices` is empty; [`BlError::InvalidParameter`] when an
    /// index is out of range or the copy would not fit in memory.
    pub fn subset(&self, indices: &[usize]) -> Result<Self> {
        ensure_nonempty("subset indices", indices.len())?;
        let n = self.n_samples();
        if let Some(&bad) = indices.iter().find(|&&i| i >= n) {
            return Err(BlError::InvalidParameter {
                name: "indices",
                value: bad.to_string(),
                expected: "sample indices below the number of samples".into(),
            });
        }
        let len = self.rows * self.cols;
        let mut data = try_buffer(len.checked_mul(indices.len()), "subset size")?;
        for &i in indices {
            data.extend_from_slice(&self.data[i * len..(i + 1) * len]);
        }
        Ok(Self {
            rows: self.rows,
            cols: self.cols,
            data,
            labels: indices.iter().map(|&i| self.labels[i]).collect(),
            class_names: self.class_names.clone(),
        })
    }

    /// A copy holding only the samples of the named classes, relabelled so that
    /// `classes[k]` becomes class `k` (e.g. `["Walking", "Badminton"]` gives a binary
    /// problem with Badminton as the positive class 1).
    ///
    /// # Errors
    /// [`BlError::TooFewClasses`] when fewer than two classes are named;
    /// [`BlError::InvalidParameter`] when a name is unknown or repeated, or the copy would
    /// not fit in memory; [`BlError::Empty`] when no sample belongs to the named classes.
    pub fn restrict_to_classes<S: AsRef<str>>(&self, classes: &[S]) -> Result<Self> {
        if classes.len() < 2 {
            return Err(BlError::TooFewClasses {
                found: classes.len(),
            });
        }
        let mut new_label = vec![None; self.n_classes()];
        for (k, name) in classes.iter().enumerate() {
            let name = name.as_ref();
            let old = self
                .class_index(name)
                .ok_or_else(|| BlError::InvalidParameter {
                    name: "classes",
                    value: format!("{name:?}"),
                    expected: "names of classes of this data set".into(),
                })?;
            if new_label[old].replace(k).is_some() {
                return Err(BlError::InvalidParameter {
                    name: "classes",
                    value: format!("{name:?} (repeated)"),
                    expected: "distinct class names".into(),
                });
            }
        }
        let keep: Vec<usize> = (0..self.n_samples())
            .filter(|&i| new_label[self.labels[i]].is_some())
            .collect();
        ensure_nonempty("samples of the selected classes", keep.len())?;
        let mut out = self.subset(&keep)?;
        for l in &mut out.labels {
            *l = new_label[*l].unwrap_or_default();
        }
        out.class_names = classes.iter().map(|c| c.as_ref().to_owned()).collect();
        Ok(out)
    }

    /// The same data set stored as `f32` (half the memory; each value rounded to the
    /// nearest `f32`).
    ///
    /// # Errors
    /// [`BlError::NonFinite`] at the first value beyond the `f32` range (about
    /// `3.4e38`); [`BlError::InvalidParameter`] when the copy does not fit in memory.
    pub fn to_f32(&self) -> Result<MatrixDataset<f32>> {
        self.convert()
    }

    /// The same data set stored as `f64` (exact).
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] when the copy does not fit in memory.
    pub fn to_f64(&self) -> Result<MatrixDataset<f64>> {
        self.convert()
    }

    fn convert<U: Element>(&self) -> Result<MatrixDataset<U>> {
        let mut data = try_buffer(Some(self.data.len()), "converted data set")?;
        data.extend(self.data.iter().map(|v| U::from_f64(v.to_f64())));
        if let Some(index) = data.iter().position(|v: &U| !v.to_f64().is_finite()) {
            return Err(BlError::NonFinite {
                what: "MatrixDataset data converted to a narrower type",
                index,
                value: self.data[index].to_f64(),
            });
        }
        Ok(MatrixDataset {
            rows: self.rows,
            cols: self.cols,
            data,
            labels: self.labels.clone(),
            class_names: self.class_names.clone(),
        })
    }

    /// Takes the data set apart into `(s, t, data, labels, class_names)`.
    pub fn into_parts(self) -> (usize, usize, Vec<T>, Vec<usize>, Vec<String>) {
        (
            self.rows,
            self.cols,
            self.data,
            self.labels,
            self.class_names,
        )
    }
}

/// An empty vector with room for exactly `len` values, or a typed error instead of a
/// capacity-overflow panic or an out-of-memory abort (`len` is `None` when its
/// computation overflowed).
pub(crate) fn try_buffer<T>(len: Option<usize>, what: &'static str) -> Result<Vec<T>> {
    let too_large = |len: Option<usize>| BlError::InvalidParameter {
        name: what,
        value: len.map_or_else(|| "more than 2^64".into(), |n| n.to_string()),
        expected: "a number of values that fits in memory".into(),
    };
    let n = len.ok_or_else(|| too_large(len))?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| too_large(len))?;
    Ok(v)
}

/// Shape and value checks shared by the constructors (everything but the classes).
fn check_shape(rows: usize, cols: usize, data_len: usize, n: usize) -> Result<()> {
    if rows == 0 {
        return Err(BlError::InvalidParameter {
            name: "rows",
            value: "0".into(),
            expected: ">= 1".into(),
        });
    }
    if cols == 0 {
        return Err(BlError::InvalidParameter {
            name: "cols",
            value: "0".into(),
            expected: ">= 1".into(),
        });
    }
    ensure_nonempty("labels", n)?;
    let expected = rows
        .checked_mul(cols)
        .and_then(|rc| rc.checked_mul(n))
        .ok_or_else(|| BlError::InvalidParameter {
            name: "rows * cols * n_samples",
            value: format!("{rows} * {cols} * {n}"),
            expected: "a number of values that fits in memory".into(),
        })?;
    if expected != data_len {
        return Err(BlError::ShapeMismatch {
            context: "MatrixDataset data",
            expected: format!("{n} samples of {rows} x {cols} = {expected} values"),
            found: format!("{data_len} values"),
        });
    }
    Ok(())
}

/// Sample indices grouped by label value, groups in increasing label order, empty groups
/// dropped.
fn group_by_label(labels: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &l) in labels.iter().enumerate() {
        groups.entry(l).or_default().push(i);
    }
    groups.into_values().collect()
}

/// A seeded stratified train/test split of sample indices.
///
/// The test set gets `round(n * test_fraction)` samples, raised to 1 and capped at the
/// number of samples the classes can spare (`n` minus the number of classes, by the rule
/// below), shared out among the classes in proportion to their sizes (largest remainders
/// get the leftover places, ties to the smaller label). Every class with at least two samples keeps at least one sample
/// in the training set; a class with a single sample always goes to training. Within each
/// class the test samples are drawn by a shuffle seeded with `seed`, so the split is
/// deterministic for a seed. Both index lists are returned sorted.
///
/// # Errors
/// - [`BlError::Empty`] when `labels` is empty;
/// - [`BlError::InvalidParameter`] when `test_fraction` is not in `(0, 1)`, or when no
///   class has two samples (so no test sample can be drawn while every class keeps one in
///   training).
pub fn stratified_split(
    labels: &[usize],
    test_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    ensure_nonempty("labels", labels.len())?;
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(BlError::InvalidParameter {
            name: "test_fraction",
            value: test_fraction.to_string(),
            expected: "in the open interval (0, 1)".into(),
        });
    }
    let n = labels.len();
    let mut groups = group_by_label(labels);
    let capacity: usize = groups.iter().map(|g| g.len() - 1).sum();
    if capacity == 0 {
        return Err(BlError::InvalidParameter {
            name: "labels",
            value: format!("{n} samples in {} classes", groups.len()),
            expected: "at least one class with 2 or more samples to draw a test set from".into(),
        });
    }
    // n * test_fraction < n, so the cast is in range.
    let target = ((n as f64 * test_fraction).round() as usize).clamp(1, capacity);

    // Proportional shares by largest remainders, capped at size - 1 per class.
    let mut take: Vec<usize> = groups
        .iter()
        .map(|g| (g.len() * target / n).min(g.len() - 1))
        .collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(groups[c].len() * target % n));
    let mut missing = target - take.iter().sum::<usize>();
    while missing > 0 {
        for &c in &order {
            if missing > 0 && take[c] + 1 < groups[c].len() {
                take[c] += 1;
                missing -= 1;
            }
        }
    }

    let mut rng = StdRng::seed_from_u64(seed);
    let mut train = Vec::with_capacity(n - target);
    let mut test = Vec::with_capacity(target);
    for (group, &k) in groups.iter_mut().zip(&take) {
        group.shuffle(&mut rng);
        test.extend_from_slice(&group[..k]);
        train.extend_from_slice(&group[k..]);
    }
    train.sort_unstable();
    test.sort_unstable();
    Ok((train, test))
}

/// Seeded k-fold cross-validation: an iterator over `(train_indices, test_indices)`.
///
/// Every index is in exactly one test fold; fold sizes differ by at most one. The
/// [`KFold::stratified`] variant deals each class's shuffled indices round the folds in
/// turn, so each fold keeps the class proportions (up to one sample per class). Index
/// lists are sorted.
///
/// # Example
/// ```
/// use bl_core::data::KFold;
/// let labels = [0, 0, 0, 1, 1, 1];
/// for (train, test) in KFold::stratified(&labels, 3, 7).unwrap() {
///     assert_eq!((train.len(), test.len()), (4, 2));
/// }
/// ```
#[derive(Debug, Clone)]
pub struct KFold {
    fold_of: Vec<usize>,
    k: usize,
    next: usize,
}

impl KFold {
    /// Plain shuffled k-fold over `n_samples` indices.
    ///
    /// # Errors
    /// [`BlError::Empty`] when `n_samples == 0`; [`BlError::InvalidParameter`] unless
    /// `2 <= k <= n_samples`, or when `n_samples` fold indices do not fit in memory.
    pub fn new(n_samples: usize, k: usize, seed: u64) -> Result<Self> {
        check_k(n_samples, k)?;
        let mut labels = try_buffer(Some(n_samples), "n_samples")?;
        labels.resize(n_samples, 0);
        Self::stratified(&labels, k, seed)
    }

    /// Stratified shuffled k-fold: folds keep the class proportions of `labels`.
    ///
    /// A class with fewer than `k` samples is simply missing from some test folds.
    ///
    /// # Errors
    /// [`BlError::Empty`] when `labels` is empty; [`BlError::InvalidParameter`] unless
    /// `2 <= k <= labels.len()`.
    pub fn stratified(labels: &[usize], k: usize, seed: u64) -> Result<Self> {
        let n = labels.len();
        check_k(n, k)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut fold_of = vec![0; n];
        let mut position = 0;
        for mut group in group_by_label(labels) {
            group.shuffle(&mut rng);
            for i in group {
                fold_of[i] = position % k;
                position += 1;
            }
        }
        Ok(Self {
            fold_of,
            k,
            next: 0,
        })
    }

    /// Number of folds `k`.
    pub fn n_splits(&self) -> usize {
        self.k
    }

    /// Test fold of every sample.
    pub fn fold_of(&self) -> &[usize] {
        &self.fold_of
    }

    /// `(train, test)` of fold `fold`, or `None` when `fold >= k`.
    pub fn split(&self, fold: usize) -> Option<(Vec<usize>, Vec<usize>)> {
        if fold >= self.k {
            return None;
        }
        let (test, train): (Vec<usize>, Vec<usize>) =
            (0..self.fold_of.len()).partition(|&i| self.fold_of[i] == fold);
        Some((train, test))
    }
}

/// `2 <= k <= n` and `n >= 1`.
fn check_k(n: usize, k: usize) -> Result<()> {
    ensure_nonempty("labels", n)?;
    if k < 2 {
        return Err(BlError::InvalidParameter {
            name: "k",
            value: k.to_string(),
            expected: ">= 2".into(),
        });
    }
    if k > n {
        return Err(BlError::InvalidParameter {
            name: "k",
            value: format!("{k} (with {n} samples)"),
            expected: "<= the number of samples".into(),
        });
    }
    Ok(())
}

impl Iterator for KFold {
    type Item = (Vec<usize>, Vec<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let out = self.split(self.next)?;
        self.next += 1;
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.k.saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for KFold {}

/// Leave-one-out cross-validation: yields `(all other indices, vec![i])` for each `i`.
#[derive(Debug, Clone)]
pub struct LeaveOneOut {
    n: usize,
    next: usize,
}

impl LeaveOneOut {
    /// Leave-one-out over `n_samples` indices.
    ///
    /// # Errors
    /// [`BlError::InvalidParameter`] when `n_samples < 2` (nothing would be left to train
    /// on), or when a training list of `n_samples - 1` indices does not fit in memory (it
    /// is allocated once here as a check, so that iterating cannot abort).
    pub fn new(n_samples: usize) -> Result<Self> {
        if n_samples < 2 {
            return Err(BlError::InvalidParameter {
                name: "n_samples",
                value: n_samples.to_string(),
                expected: ">= 2".into(),
            });
        }
        drop(try_buffer::<usize>(Some(n_samples - 1), "n_samples")?);
        Ok(Self {
            n: n_samples,
            next: 0,
        })
    }
}

impl Iterator for LeaveOneOut {
    type Item = (Vec<usize>, Vec<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.n {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let train = (0..self.n).filter(|&j| j != i).collect();
        Some((train, vec![i]))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.n - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for LeaveOneOut {}

#[cfg(test)]
mod precision_tests {
    use super::*;

    #[test]
    fn f32_data_sets_round_trip_and_refuse_values_beyond_f32() {
        let values = vec![0.1, -2.5, 3.0, 1e-3, 4.0, -1e30, 0.0, 6.5];
        let ds = MatrixDataset::new(
            2,
            2,
            values.clone(),
            vec![0, 1],
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let narrow = ds.to_f32().unwrap();
        assert_eq!(narrow.shape(), (2, 2));
        assert_eq!(narrow.labels(), ds.labels());
        assert_eq!(narrow.class_names(), ds.class_names());
        for (a, b) in narrow.as_slice().iter().zip(&values) {
            assert_eq!(*a, *b as f32);
        }
        assert_eq!(narrow.sample(1)[(1, 1)], 6.5f32);
        // Widening is exact.
        let wide = narrow.to_f64().unwrap();
        for (a, b) in wide.as_slice().iter().zip(narrow.as_slice()) {
            assert_eq!(*a, f64::from(*b));
        }
        let mut huge = values;
        huge[5] = 1e39;
        let ds = MatrixDataset::new(2, 2, huge, vec![0, 1], vec!["a".into(), "b".into()]).unwrap();
        assert!(matches!(
            ds.to_f32(),
            Err(BlError::NonFinite { index: 5, value, .. }) if value == 1e39
        ));
        // f32 constructors check finiteness as the f64 ones do.
        let err = MatrixDataset::<f32>::with_data(
            1,
            1,
            vec![f32::NAN, 1.0],
            vec![0, 1],
            vec!["a".into(), "b".into()],
        );
        assert!(matches!(err, Err(BlError::NonFinite { index: 0, .. })));
    }
}
