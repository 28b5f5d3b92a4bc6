//! The workspace's limits on what callers and files may ask for, in one place.
//!
//! Every public entry that takes a size, a count, a thread count or a list of names goes
//! through these checks before it allocates or compares (the draw helpers of
//! [`crate::random`] too):
//!
//! - [`threads`]: a thread count is `1 ..=` [`MAX_THREADS`], in every crate;
//! - [`buffer_len`] / [`try_zeroed`] / [`try_with_capacity`] / [`reservable`]: a buffer
//!   whose length comes from caller-given sizes is sized by a checked product, refused
//!   above [`MAX_ELEMENTS`] values, and reserved with `try_reserve_exact`, so an
//!   impossible request is a typed error, not an abort;
//! - [`first_duplicate`]: duplicate names are found in one hashed pass (linear, not
//!   pairwise);
//! - [`quote`]: an error message quotes at most [`QUOTE_CHARS`] characters of an offending
//!   input, with its length, never the whole input.
//!
//! All errors are [`BlError::InvalidParameter`], naming the argument and the limit.
//!
//! ```
//! use bl_core::limits;
//!
//! assert_eq!(limits::buffer_len("table", &[3, 4, 5]).unwrap(), 60);
//! assert!(limits::buffer_len("table", &[1 << 40, 1 << 40]).is_err());
//! assert_eq!(limits::first_duplicate(&["a", "b", "a"]), Some((2, &"a")));
//! assert!(limits::threads("threads", 0).is_err());
//! ```

use std::collections::HashMap;
use std::hash::Hash;

use crate::error::{BlError, Result};

/// The largest thread count any fit accepts. A larger request is refused by [`threads`]
/// before a pool is built (building a pool of `usize::MAX` threads hangs).
pub const MAX_THREADS: usize = 1024;

/// The largest number of values one buffer sized from caller-given numbers may hold:
/// `2^32` (32 GiB of `f64`). Buffers sized by the input itself (a file's values, a data
/// set's samples) are bounded by that input instead.
pub const MAX_ELEMENTS: usize = 1 << 32;

/// How many characters of an offending input an error message quotes.
pub const QUOTE_CHARS: usize = 48;

/// A thread count must lie in `1 ..=` [`MAX_THREADS`].
///
/// # Errors
/// [`BlError::InvalidParameter`] otherwise.
pub fn threads(name: &'static str, n: usize) -> Result<()> {
    crate::params::count_in(name, n, 1, MAX_THREADS)
}

/// The product of `dims` as a buffer length: at most [`MAX_ELEMENTS`].
///
/// # Errors
/// [`BlError::InvalidParameter`] naming `what` when the product overflows or exceeds
/// [`MAX_ELEMENTS`].
pub fn buffer_len(what: &'static str, dims: &[usize]) -> Result<usize> {
    match dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)) {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        product => Err(too_large(what, dims, product)),
    }
}

/// A zeroed buffer of `product(dims)` values, checked by [`buffer_len`] and reserved
/// with `try_reserve_exact`.
///
/// # Errors
/// [`BlError::InvalidParameter`] naming `what` when the length is refused by
/// [`buffer_len`] or the memory cannot be reserved.
pub fn try_zeroed<T: Clone + Default>(what: &'static str, dims: &[usize]) -> Result<Vec<T>> {
    try_filled(what, dims, T::default())
}

/// A buffer of `product(dims)` copies of `value`, checked by [`buffer_len`] and
/// reserved with `try_reserve_exact`.
///
/// # Errors
/// As [`try_zeroed`].
pub fn try_filled<T: Clone>(what: &'static str, dims: &[usize], value: T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(what, dims)?;
    v.resize(buffer_len(what, dims)?, value);
    Ok(v)
}

/// An empty buffer with room for exactly `product(dims)` values, checked by
/// [`buffer_len`] and reserved with `try_reserve_exact`.
///
/// # Errors
/// As [`try_zeroed`].
pub fn try_with_capacity<T>(what: &'static str, dims: &[usize]) -> Result<Vec<T>> {
    let n = buffer_len(what, dims)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| too_large(what, dims, Some(n)))?;
    Ok(v)
}

/// Checks that `product(dims)` values of `T` pass [`buffer_len`] and can be reserved
/// now, and releases them at once: for a buffer that a dependency allocates (a
/// `faer::Mat`, whose refused allocation aborts). Returns the length.
///
/// # Errors
/// As [`try_zeroed`].
pub fn reservable<T>(what: &'static str, dims: &[usize]) -> Result<usize> {
    drop(try_with_capacity::<T>(what, dims)?);
    buffer_len(what, dims)
}

/// The error of a per-iteration record (`what`: a trace, a training log) that memory
/// refused at `iteration` of a run whose budget is `max_iter`:
/// [`BlError::InvalidParameter`] naming `max_iter`, the budget that let the records grow;
/// `remedy` (e.g. `"; turn the trace off or lower max_iter"`) ends the message.
pub fn record_refused(what: &str, max_iter: usize, iteration: usize, remedy: &str) -> BlError {
    BlError::InvalidParameter {
        name: "max_iter",
        value: max_iter.to_string(),
        expected: format!(
            "a budget whose {what} fits in memory: the {what} could not keep the record of \
             iteration {iteration} (memory refused){remedy}"
        )
        .into(),
    }
}

fn too_large(what: &'static str, dims: &[usize], product: Option<usize>) -> BlError {
    let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
    let value = match product {
        Some(n) => format!("{} = {n} values", dims.join(" x ")),
        None => format!("{} (more than 2^64 values)", dims.join(" x ")),
    };
    BlError::InvalidParameter {
        name: what,
        value,
        expected: format!("a size of at most {MAX_ELEMENTS} values that fits in memory").into(),
    }
}

/// The first item that repeats an earlier one, as `(index of the repeat, item)`, found
/// with one hashed pass (time and memory linear in the number of items).
pub fn first_duplicate<'a, T, I>(items: I) -> Option<(usize, &'a T)>
where
    T: Hash + Eq + ?Sized + 'a,
    I: IntoIterator<Item = &'a T>,
{
    let items = items.into_iter();
    let mut seen: HashMap<&T, ()> = HashMap::with_capacity(items.size_hint().0);
    for (i, item) in items.enumerate() {
        if seen.insert(item, ()).is_some() {
            return Some((i, item));
        }
    }
    None
}

/// `text` for an error message: whole when it has at most [`QUOTE_CHARS`] characters,
/// otherwise its first [`QUOTE_CHARS`] characters followed by `...` and its length in
/// bytes. Control characters are escaped (`{:?}` style), so a quote is one line.
///
/// ```
/// use bl_core::limits::quote;
/// assert_eq!(quote("NN"), "\"NN\"");
/// let long = "x".repeat(1 << 20);
/// assert!(quote(&long).len() < 100);
/// assert!(quote(&long).ends_with("(1048576 bytes)"));
/// ```
#[must_use]
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => {
            let head = format!("{:?}", &text[..cut]);
            format!("{}...\" ({} bytes)", &head[..head.len() - 1], text.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_len_refuses_overflow_and_the_cap() {
        assert_eq!(buffer_len("x", &[]).unwrap(), 1);
        assert_eq!(buffer_len("x", &[0, usize::MAX]).unwrap(), 0);
        assert!(buffer_len("x", &[MAX_ELEMENTS]).is_ok());
        let err = buffer_len("x", &[MAX_ELEMENTS, 2]).unwrap_err();
        assert!(err.to_string().contains("x"), "{err}");
        let err = buffer_len("x", &[usize::MAX, 2]).unwrap_err();
        assert!(err.to_string().contains("more than 2^64"), "{err}");
    }

    #[test]
    fn try_zeroed_gives_zeros_or_an_error() {
        let v: Vec<f64> = try_zeroed("x", &[2, 3]).unwrap();
        assert_eq!(v, vec![0.0; 6]);
        assert!(try_zeroed::<f64>("x", &[1 << 20, 1 << 20]).is_err());
    }

    #[test]
    fn duplicates_are_found_at_their_second_occurrence() {
        let names: Vec<String> = ["a", "b", "c", "b", "a"].map(String::from).into();
        assert_eq!(first_duplicate(&names), Some((3, &names[1])));
        assert_eq!(first_duplicate(&names[..3]), None);
        assert_eq!(first_duplicate::<str, _>(["x", "y"]), None);
    }

    #[test]
    fn duplicates_among_many_names_take_linear_time() {
        // 200,000 names: a pairwise check would make 2e10 comparisons (tens of seconds),
        // the hashed pass takes milliseconds. The fastest of three runs is timed, so that a
        // busy machine does not fail the bound.
        let fastest = |names: &[String]| {
            (0..3)
                .map(|_| {
                    let started = std::time::Instant::now();
                    let found = first_duplicate(names).map(|(i, name)| (i, name.clone()));
                    (started.elapsed(), found)
                })
                .min()
                .expect("three runs")
        };
        let mut names: Vec<String> = (0..200_000).map(|i| format!("n{i}")).collect();
        let (elapsed, found) = fastest(&names);
        assert_eq!(found, None);
        assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
        // A repeat of an early name at the very end: found there, as fast.
        names.push("n7".into());
        let (elapsed, found) = fastest(&names);
        assert_eq!(found, Some((200_000, "n7".to_string())));
        assert!(elapsed.as_secs_f64() < 2.0, "{elapsed:?}");
    }

    #[test]
    fn quotes_are_bounded_and_escaped() {
        assert_eq!(quote("a\tb"), "\"a\\tb\"");
        let long = "\0".repeat(1 << 16);
        let q = quote(&long);
        assert!(q.len() < 6 * QUOTE_CHARS + 40, "{q}");
        assert!(q.contains("(65536 bytes)"), "{q}");
        let exact = "y".repeat(QUOTE_CHARS);
        assert_eq!(quote(&exact), format!("\"{exact}\""));
        let multibyte = "é".repeat(QUOTE_CHARS + 1);
        assert!(quote(&multibyte).ends_with(&format!("({} bytes)", 2 * (QUOTE_CHARS + 1))));
    }

    #[test]
    fn thread_counts_are_bounded() {
        assert!(threads("threads", 1).is_ok());
        assert!(threads("threads", MAX_THREADS).is_ok());
        assert!(threads("threads", MAX_THREADS + 1).is_err());
        assert!(threads("threads", usize::MAX).is_err());
    }
}
