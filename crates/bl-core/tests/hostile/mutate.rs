//! Random mutations of valid files, as proptest strategies.
//!
//! A case is a seed file and a short list of edits: bit flips, byte overwrites, deletions,
//! duplications of a slice, and insertions of tokens that stress parsers (brackets, huge
//! numbers, separators, line ends, invalid UTF-8). Proptest draws the cases from a fixed
//! seed, so a run is reproducible, and shrinks a failing case to a small one.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// Tokens that hostile files are made of.
const TOKENS: &[&[u8]] = &[
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    b"((((((((((((((((((((((((((((((((((((((((",
    b",",
    b":",
    b"'",
    b"\"",
    b"/",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"\xff",
    b"\xc3",
    b"\x00",
    b"\xef\xbb\xbf",
    b"-",
    b"0",
    b"4294967296",
    b"9223372036854775809",
    b"18446744073709551616",
    b"340282366920938463463374607431768211457",
    b"1e308",
    b"1e400",
    b"-0",
    b"nan",
    b"inf",
    b"?",
    b"True",
    b"None",
    b"'shape': (",
    b"'descr': '",
    b"<f8",
    b"|b1",
    b">i2",
    b"\x93NUMPY\x02\x00",
    b"\xff\xff\xff\xff",
    b"@data\n",
    b"@classLabel true a b\n",
    b"@dimensions 3\n",
    b"@seriesLength 1000000000000\n",
    b"@equalLength false\n",
    b"-DOCSTART-",
    b"/s",
    b"/b",
    b"#",
];

/// One edit of a file.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Flip bit `bit` of the byte at `pos`.
    Flip { pos: usize, bit: u8 },
    /// Overwrite the byte at `pos`.
    Set { pos: usize, byte: u8 },
    /// Remove up to `len` bytes at `pos`.
    Delete { pos: usize, len: usize },
    /// Insert `TOKENS[token]` at `pos`, `times` times.
    Insert {
        pos: usize,
        token: usize,
        times: usize,
    },
    /// Copy up to `len` bytes from `from` and insert them at `to`.
    Duplicate { from: usize, len: usize, to: usize },
    /// Cut the file at `pos`.
    Truncate { pos: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    let pos = any::<usize>();
    prop_oneof![
        3 => (pos, 0u8..8).prop_map(|(pos, bit)| Edit::Flip { pos, bit }),
        2 => (pos, any::<u8>()).prop_map(|(pos, byte)| Edit::Set { pos, byte }),
        2 => (pos, 1usize..16).prop_map(|(pos, len)| Edit::Delete { pos, len }),
        4 => (pos, 0..TOKENS.len(), prop_oneof![9 => Just(1usize), 1 => 2usize..40])
            .prop_map(|(pos, token, times)| Edit::Insert { pos, token, times }),
        2 => (pos, 1usize..64, pos)
            .prop_map(|(from, len, to)| Edit::Duplicate { from, len, to }),
        1 => pos.prop_map(|pos| Edit::Truncate { pos }),
    ]
}

/// Applies `edits` to a copy of `seed`; positions wrap around the current length.
pub fn apply(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for e in edits {
        let n = bytes.len();
        let at = |pos: usize| pos % (n + 1);
        match *e {
            Edit::Flip { pos, bit } if n > 0 => bytes[pos % n] ^= 1 << bit,
            Edit::Set { pos, byte } if n > 0 => bytes[pos % n] = byte,
            Edit::Delete { pos, len } if n > 0 => {
                let start = pos % n;
                bytes.drain(start..(start + len).min(n));
            }
            Edit::Insert { pos, token, times } => {
                let insert = TOKENS[token].repeat(times);
                let p = at(pos);
                bytes.splice(p..p, insert);
            }
            Edit::Duplicate { from, len, to } if n > 0 => {
                let start = from % n;
                let slice = bytes[start..(start + len).min(n)].to_vec();
                let p = at(to);
                bytes.splice(p..p, slice);
            }
            Edit::Truncate { pos } => bytes.truncate(at(pos)),
            _ => {}
        }
    }
    bytes
}

/// A mutated copy of one of `seeds`: `(seed index, edits)`.
pub fn mutation(n_seeds: usize) -> impl Strategy<Value = (usize, Vec<Edit>)> {
    (0..n_seeds, proptest::collection::vec(edit(), 1..6))
}

/// A proptest configuration of `cases` cases from a fixed seed, without failure files.
pub fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}
