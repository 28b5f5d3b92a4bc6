//! Optional Python keywords onto the crates' parameter builders.

/// `params` with `set(params, value)` applied when the keyword was given (`Some`); left as
/// it is, with the crate's default, for `None`. `set` is the builder's setter, e.g.
/// `TaggerParams::max_iter`.
pub fn set_if_given<P, T>(params: P, value: Option<T>, set: fn(P, T) -> P) -> P {
    match value {
        Some(value) => set(params, value),
        None => params,
    }
}
