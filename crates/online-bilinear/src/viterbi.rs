//! First-order Viterbi decoding.
//!
//! Scores come as one `(L + 1) x L` table per position: entry `[i][b][a]` is the score of
//! tag `a` at position `i` after tag `b` at `i - 1`, where `b = L` is the start state (read
//! only at `i = 0`, and only it is read there). The best path maximizes the sum of the
//! chosen entries. Ties are broken towards the smaller tag index, so decoding is
//! deterministic.
//!
//! A sentence of `n` tokens over `L` tags has a table of `n (L + 1) L` entries. Every
//! table the crate builds (prediction, training with any learner, the CRF's decoding) is
//! checked first by [`score_table_len`]: at most [`MAX_SCORE_TABLE`] entries (1 GiB of
//! `f64`), so a model may have at most [`MAX_TAGS`] tags, and a sentence whose table would
//! be larger is a typed error naming its length and the tag count, before any allocation.

use crate::error::Result;

/// The most entries the score table of one sentence may have: `2^27` (1 GiB of `f64`).
/// With `L` tags, a sentence may have at most `MAX_SCORE_TABLE / ((L + 1) L)` tokens
/// (e.g. 6,710,886 with 4 tags, 13,288 with 100, 134 with 1,000).
pub const MAX_SCORE_TABLE: usize = 1 << 27;

/// The most tags a tagger may have: the largest `L` whose one-token table `(L + 1) L`
/// fits in [`MAX_SCORE_TABLE`]. A saved model with more tags is refused at load, and a fit
/// on a corpus with more is refused before training: it could not tag any sentence.
pub const MAX_TAGS: usize = 11_584;

/// The number of entries `n (n_tags + 1) n_tags` of the score table of a sentence of `n`
/// tokens over `n_tags` tags, computed without overflow.
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) naming `n` and
/// `n_tags` when the table would have more than [`MAX_SCORE_TABLE`] entries (or the
/// product overflows).
pub fn score_table_len(n: usize, n_tags: usize) -> Result<usize> {
    checked_table_len(None, n, n_tags)
}

/// [`score_table_len`], the error naming the 0-based `sentence` when given.
pub(crate) fn checked_table_len(sentence: Option<usize>, n: usize, n_tags: usize) -> Result<usize> {
    match product(n, n_tags) {
        Some(len) if len <= MAX_SCORE_TABLE => Ok(len),
        len => {
            let at = sentence.map_or(String::new(), |s| format!("sentence {s}: "));
            let entries = len.map_or("more than 2^64".to_string(), |len| len.to_string());
            Err(crate::error::invalid(
                "score table",
                format!("{at}{n} tokens x {n_tags} tags need n (L + 1) L = {entries} entries"),
                format!(
                    "at most {MAX_SCORE_TABLE} entries (1 GiB of f64) per sentence: split \
                     the sentence, or use at most {MAX_TAGS} tags"
                ),
            ))
        }
    }
}

/// `n (n_tags + 1) n_tags`, or `None` when it overflows.
fn product(n: usize, n_tags: usize) -> Option<usize> {
    n.checked_mul(n_tags.checked_add(1)?)?.checked_mul(n_tags)
}

/// The table length `n (n_tags + 1) n_tags` that `context` expects, checked against
/// `found`: [`bl_core::BlError::ShapeMismatch`] when they differ,
/// [`bl_core::BlError::InvalidParameter`] when the product overflows.
fn check_table(context: &'static str, found: usize, n: usize, n_tags: usize) -> Result<()> {
    match product(n, n_tags) {
        Some(expected) if expected == found => Ok(()),
        Some(expected) => Err(crate::error::shape(context, expected, found)),
        None => Err(crate::error::invalid(
            "n_tags",
            format!("{n_tags} tags and {n} positions"),
            "sizes whose table n (n_tags + 1) n_tags fits in usize",
        )),
    }
}

/// A table to decode: `n_tags >= 1` ([`bl_core::BlError::InvalidParameter`] otherwise),
/// and the table of [`check_table`].
fn check_decoding(context: &'static str, found: usize, n: usize, n_tags: usize) -> Result<()> {
    if n_tags == 0 {
        return Err(crate::error::invalid("n_tags", 0, ">= 1"));
    }
    check_table(context, found, n, n_tags)
}

/// Index of score `[i][prev][cur]` in the flat table of [`viterbi`], `prev == n_tags` being
/// the start state.
#[inline]
pub fn score_index(i: usize, prev: usize, cur: usize, n_tags: usize) -> usize {
    (i * (n_tags + 1) + prev) * n_tags + cur
}

/// Reusable buffers of [`viterbi_into`].
#[derive(Debug, Clone, Default)]
pub struct ViterbiWorkspace {
    delta: Vec<f64>,
    back: Vec<u32>,
    /// The best previous tag of each tag during a step, as `f64` (so that the step's
    /// comparisons and selections run on vectors of one width).
    arg: Vec<f64>,
    /// Feature ids a learner's decoding keeps between positions.
    pub(crate) features: Vec<u32>,
}

/// The highest-scoring tag sequence for a flat score table (see the module docs).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `n_tags == 0`
/// or `n * (n_tags + 1) * n_tags` overflows; [`bl_core::BlError::ShapeMismatch`] when the
/// table does not have `n * (n_tags + 1) * n_tags` entries; `bl_core::BlError::NonFinite`
/// (through [`crate::OblError::Core`]) when an entry of the table is NaN (any entry, also
/// one the recursion does not read).
pub fn viterbi(scores: &[f64], n: usize, n_tags: usize) -> Result<Vec<usize>> {
    check_decoding(
        "viterbi: score table (n * (n_tags + 1) * n_tags entries)",
        scores.len(),
        n,
        n_tags,
    )?;
    if let Some(index) = scores.iter().position(|s| s.is_nan()) {
        return Err(bl_core::BlError::NonFinite {
            what: "viterbi scores",
            index,
            value: scores[index],
        }
        .into());
    }
    let mut out = vec![0; n];
    viterbi_into(
        scores,
        n,
        n_tags,
        &mut ViterbiWorkspace::default(),
        &mut out,
    )?;
    Ok(out)
}

/// Low-level [`viterbi`], writing the path into `out` and reusing the buffers of `ws`:
/// only the sizes are checked (in constant time), not the scores (a NaN score gives some
/// path, not an error).
///
/// # Errors
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) when `n_tags == 0`
/// or `n * (n_tags + 1) * n_tags` overflows; [`bl_core::BlError::ShapeMismatch`] when the
/// table does not have `n * (n_tags + 1) * n_tags` entries or `out` does not have `n`.
pub fn viterbi_into(
    scores: &[f64],
    n: usize,
    n_tags: usize,
    ws: &mut ViterbiWorkspace,
    out: &mut [usize],
) -> Result<()> {
    check_decoding(
        "viterbi_into: score table (n * (n_tags + 1) * n_tags entries)",
        scores.len(),
        n,
        n_tags,
    )?;
    if out.len() != n {
        return Err(crate::error::shape("viterbi_into: out", n, out.len()));
    }
    if n == 0 {
        return Ok(());
    }
    let l = n_tags;
    let block = (l + 1) * l;
    ws.start(n, l, &scores[l * l..block], None);
    for i in 1..n {
        ws.step(i, l, &scores[i * block..i * block + l * l], None);
    }
    ws.finish(n, l, out);
    Ok(())
}

/// The recursion of [`viterbi_into`], one position at a time, for a learner that builds
/// each position's scores as they are read (without the whole table): [`start`] with
/// position 0's row, [`step`] with each next position's `L x L` block, [`finish`] for the
/// path. A block may come with 0-order sums `z` (`L` values): the score of `(b, a)` is then
/// `block[b L + a] + z[a]`, the sum the table's entry holds, so the path is the table's
/// bit for bit.
///
/// [`start`]: ViterbiWorkspace::start
/// [`step`]: ViterbiWorkspace::step
/// [`finish`]: ViterbiWorkspace::finish
impl ViterbiWorkspace {
    /// Starts a path of `n >= 1` positions over `l >= 1` tags: `first[a]` (`+ z[a]`) is
    /// the score of tag `a` at position 0 (after the start state).
    #[inline(always)]
    pub(crate) fn start(&mut self, n: usize, l: usize, first: &[f64], z: Option<&[f64]>) {
        self.delta.clear();
        self.delta.resize(n * l, f64::NEG_INFINITY);
        self.back.clear();
        self.back.resize(n * l, 0);
        let first = &first[..l];
        match z {
            Some(z) => {
                for ((d, &f), &z) in self.delta[..l].iter_mut().zip(first).zip(&z[..l]) {
                    *d = f + z;
                }
            }
            None => self.delta[..l].copy_from_slice(first),
        }
    }

    /// Position `i >= 1`: `block[b L + a]` (`+ z[a]`) is the score of tag `a` after tag
    /// `b`. For each `a`, the best previous tag, ties to the smaller `b` (the previous tags
    /// are visited in increasing order and only a strictly larger score replaces the best).
    #[inline(always)]
    pub(crate) fn step(&mut self, i: usize, l: usize, block: &[f64], z: Option<&[f64]>) {
        let (done, rest) = self.delta.split_at_mut(i * l);
        let (previous, current) = (&done[(i - 1) * l..], &mut rest[..l]);
        // `current` starts at -inf (from `start`), the best previous tag at 0.
        self.arg.clear();
        self.arg.resize(l, 0.0);
        let block = &block[..l * l];
        match z {
            Some(z) => step_rows(previous, current, &mut self.arg, block, &z[..l]),
            None => step_rows(previous, current, &mut self.arg, block, &[]),
        }
        for (back, &b) in self.back[i * l..(i + 1) * l].iter_mut().zip(&self.arg) {
            *back = b as u32;
        }
    }

    /// The best path, into `out` (`n` tags).
    pub(crate) fn finish(&self, n: usize, l: usize, out: &mut [usize]) {
        let mut best = f64::NEG_INFINITY;
        let mut arg = 0;
        for a in 0..l {
            if self.delta[(n - 1) * l + a] > best {
                best = self.delta[(n - 1) * l + a];
                arg = a;
            }
        }
        out[n - 1] = arg;
        for i in (1..n).rev() {
            out[i - 1] = self.back[i * l + out[i]] as usize;
        }
    }
}

/// One Viterbi step over the rows `b` of `block`: `current[a] = max_b previous[b] +
/// (block[b L + a] + z[a])` (without `z` when it is empty) with the first maximizing `b`
/// in `arg[a]`. Branch-free (a comparison selects the score and the tag), so that the loop
/// over `a` runs on vectors; `a` is taken 16 tags at a time (then 8, 4, 1), whose scores
/// and tags stay in registers while `b` runs over all previous tags.
#[inline(always)]
fn step_rows(previous: &[f64], current: &mut [f64], arg: &mut [f64], block: &[f64], z: &[f64]) {
    let mut a0 = 0;
    a0 = step_chunks::<16>(a0, previous, current, arg, block, z);
    a0 = step_chunks::<8>(a0, previous, current, arg, block, z);
    a0 = step_chunks::<4>(a0, previous, current, arg, block, z);
    step_chunks::<1>(a0, previous, current, arg, block, z);
}

/// [`step_rows`] for the tags from `a0` on, `N` at a time while `N` remain; returns the
/// first tag left.
#[inline(always)]
fn step_chunks<const N: usize>(
    mut a0: usize,
    previous: &[f64],
    current: &mut [f64],
    arg: &mut [f64],
    block: &[f64],
    z: &[f64],
) -> usize {
    let l = current.len();
    while a0 + N <= l {
        let c: &mut [f64; N] = (&mut current[a0..a0 + N]).try_into().unwrap();
        let t: &mut [f64; N] = (&mut arg[a0..a0 + N]).try_into().unwrap();
        let (mut best, mut tag) = (*c, *t);
        match z.get(a0..a0 + N) {
            Some(z) => {
                let z: &[f64; N] = z.try_into().unwrap();
                for (b, &d) in previous.iter().enumerate() {
                    let row: &[f64; N] = block[b * l + a0..][..N].try_into().unwrap();
                    select_chunk(&mut best, &mut tag, d, b as f64, |j| row[j] + z[j]);
                }
            }
            None => {
                for (b, &d) in previous.iter().enumerate() {
                    let row: &[f64; N] = block[b * l + a0..][..N].try_into().unwrap();
                    select_chunk(&mut best, &mut tag, d, b as f64, |j| row[j]);
                }
            }
        }
        (*c, *t) = (best, tag);
        a0 += N;
    }
    a0
}

/// `best[j] = max(best[j], d + x(j))` with `tag[j] = b` where it grew (strictly), for a
/// chunk of tags.
#[inline(always)]
fn select_chunk<const N: usize>(
    best: &mut [f64; N],
    tag: &mut [f64; N],
    d: f64,
    b: f64,
    x: impl Fn(usize) -> f64,
) {
    for j in 0..N {
        let s = d + x(j);
        let better = s > best[j];
        best[j] = if better { s } else { best[j] };
        tag[j] = if better { b } else { tag[j] };
    }
}

/// The score of a tag path under a flat table (the quantity [`viterbi`] maximizes).
///
/// # Errors
/// [`bl_core::BlError::ShapeMismatch`] (in [`crate::OblError::Core`]) when the path or the table has the wrong length;
/// [`bl_core::BlError::InvalidParameter`] (in [`crate::OblError::Core`]) for a tag `>= n_tags`,
/// or when `n * (n_tags + 1) * n_tags` overflows.
pub fn path_score(scores: &[f64], path: &[usize], n_tags: usize) -> Result<f64> {
    let n = path.len();
    check_table(
        "path_score: score table (n * (n_tags + 1) * n_tags entries)",
        scores.len(),
        n,
        n_tags,
    )?;
    let mut total = 0.0;
    for (i, &a) in path.iter().enumerate() {
        if a >= n_tags {
            return Err(crate::error::invalid("path", a, "tags below n_tags"));
        }
        let b = if i == 0 { n_tags } else { path[i - 1] };
        total += scores[score_index(i, b, a, n_tags)];
    }
    Ok(total)
}
