//! Readers (and an `.npy` writer) for the file formats the experiments use.
//!
//! | format | module | entry points |
//! |---|---|---|
//! | NumPy `.npy` | [`npy`] | [`read_npy`], [`read_npy_from`], [`write_npy`], [`write_npy_to`] |
//! | numeric CSV / TSV | [`csv`](mod@csv) | [`read_csv`], [`read_csv_from`] |
//! | UCR/UEA `.ts` time series | [`ts`] | [`read_ts`], [`parse_ts`] |
//!
//! Library code never fetches files: these functions read paths or readers they are given.
//! The `*_from` variants take any [`std::io::Read`], so callers can wrap a decompressor.
//!
//! Every reader is written for untrusted input: malformed files give typed errors (with
//! the line for the text formats), sizes taken from a file or a caller are checked before
//! anything is allocated from them, and parsing is linear in the input (see
//! `docs/reliability.md`). [`text`] holds the line splitting and UTF-8 checks the text
//! readers share.

pub mod csv;
pub mod npy;
pub mod text;
pub mod ts;

pub use self::csv::{CsvOptions, NumericTable, read_csv, read_csv_from};
pub use self::npy::{NpyArray, read_npy, read_npy_from, write_npy, write_npy_to};
pub use self::ts::{LengthPolicy, parse_ts, read_ts};
