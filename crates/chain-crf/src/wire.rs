//! The byte form of the messages of [`crate::distributed`]: a header (the magic
//! `b"CRFD"`, the format version as a little-endian `u32`, one byte naming the kind of
//! message), then the message's fields, little-endian: integers as `u64` (but the
//! elements of id arrays as `u32`, and flags and small codes as one byte), reals as `f64`,
//! arrays and strings as a `u64` length followed by their elements. A reader checks the
//! header, every length against the bytes that remain (so a corrupt length is an error,
//! never a large allocation), every value the message constrains, and that nothing
//! follows the last field.

use crate::error::{CrfError, Result};

/// The first bytes of every message.
const MAGIC: [u8; 4] = *b"CRFD";
/// The version written; a reader accepts only this one.
pub(crate) const VERSION: u32 = 1;

/// The kinds of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// [`crate::distributed::ShardSummary`].
    Summary = 1,
    /// [`crate::distributed::Remap`].
    Remap = 2,
    /// A [`crate::FeatureSet`].
    Features = 3,
    /// A vector of reals (weights or a gradient with its loss).
    Vector = 4,
    /// [`crate::distributed::OnlineState`].
    OnlineState = 5,
    /// [`crate::distributed::EpochResult`].
    EpochResult = 6,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Summary => "shard summary",
            Self::Remap => "id remapping",
            Self::Features => "feature set",
            Self::Vector => "vector",
            Self::OnlineState => "online trainer state",
            Self::EpochResult => "epoch result",
        }
    }

    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            1 => Self::Summary,
            2 => Self::Remap,
            3 => Self::Features,
            4 => Self::Vector,
            5 => Self::OnlineState,
            6 => Self::EpochResult,
            _ => return None,
        })
    }
}

/// A [`CrfError::Serialized`].
pub(crate) fn bad(message: impl Into<String>) -> CrfError {
    CrfError::Serialized(message.into())
}

/// Writes one message.
#[derive(Debug)]
pub(crate) struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn new(kind: Kind) -> Self {
        let mut buf = Vec::new();
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&VERSION.to_le_bytes());
        buf.push(kind as u8);
        Self { buf }
    }

    pub(crate) fn byte(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        self.buf.reserve(4 * v.len());
        for x in v {
            self.buf.extend_from_slice(&x.to_le_bytes());
        }
    }

    pub(crate) fn f64s(&mut self, v: &[f64]) {
        self.u64(v.len() as u64);
        self.buf.reserve(8 * v.len());
        for x in v {
            self.buf.extend_from_slice(&x.to_le_bytes());
        }
    }

    pub(crate) fn strings(&mut self, v: &[String]) {
        self.u64(v.len() as u64);
        for s in v {
            self.u64(s.len() as u64);
            self.buf.extend_from_slice(s.as_bytes());
        }
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads one message, checking as it goes (module docs).
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    kind: Kind,
}

impl<'a> Reader<'a> {
    /// Checks the header: magic, version, and that the message is a `kind`.
    pub(crate) fn new(bytes: &'a [u8], kind: Kind) -> Result<Self> {
        if bytes.len() < 9 || bytes[..4] != MAGIC {
            return Err(bad(format!(
                "expected a {} and found {} bytes without the header of chain-crf's \
                 distributed messages",
                kind.name(),
                bytes.len()
            )));
        }
        let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        if version != VERSION {
            return Err(bad(format!(
                "format version {version} (this library reads version {VERSION})"
            )));
        }
        match Kind::from_byte(bytes[8]) {
            Some(k) if k == kind => Ok(Self {
                bytes,
                pos: 9,
                kind,
            }),
            Some(k) => Err(bad(format!(
                "expected a {} and found a {}",
                kind.name(),
                k.name()
            ))),
            None => Err(bad(format!("unknown message kind {}", bytes[8]))),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                bad(format!(
                    "{}: truncated at byte {} (needs {n} more, {} left)",
                    self.kind.name(),
                    self.pos,
                    self.bytes.len() - self.pos
                ))
            })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    pub(crate) fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn flag(&mut self, what: &str) -> Result<bool> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(bad(format!(
                "{}: {what} is {b}, not 0 or 1",
                self.kind.name()
            ))),
        }
    }

    pub(crate) fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().map_err(|_| bad("short"))?))
    }

    /// A `u64` that fits a `usize`.
    pub(crate) fn count(&mut self, what: &str) -> Result<usize> {
        let v = self.u64()?;
        usize::try_from(v)
            .map_err(|_| bad(format!("{}: {what} {v} is too large", self.kind.name())))
    }

    /// A finite `f64`.
    pub(crate) fn f64(&mut self, what: &str) -> Result<f64> {
        let b = self.take(8)?;
        let v = f64::from_le_bytes(b.try_into().map_err(|_| bad("short"))?);
        if !v.is_finite() {
            return Err(bad(format!("{}: {what} is {v}", self.kind.name())));
        }
        Ok(v)
    }

    /// A length of elements of `size` bytes, checked against the bytes left.
    fn len(&mut self, size: usize, what: &str) -> Result<usize> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.pos) / size;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| {
                bad(format!(
                    "{}: {what} claims {n} elements but only {left} fit in the bytes left",
                    self.kind.name()
                ))
            })
    }

    pub(crate) fn u32s(&mut self, what: &str) -> Result<Vec<u32>> {
        let n = self.len(4, what)?;
        let b = self.take(4 * n)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Finite reals.
    pub(crate) fn f64s(&mut self, what: &str) -> Result<Vec<f64>> {
        let n = self.len(8, what)?;
        let b = self.take(8 * n)?;
        let v: Vec<f64> = b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        if let Some(j) = v.iter().position(|x| !x.is_finite()) {
            return Err(bad(format!(
                "{}: {what}[{j}] is {}",
                self.kind.name(),
                v[j]
            )));
        }
        Ok(v)
    }

    pub(crate) fn strings(&mut self, what: &str) -> Result<Vec<String>> {
        let n = self.len(8, what)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let len = self.len(1, what)?;
            let b = self.take(len)?;
            let s = std::str::from_utf8(b).map_err(|e| {
                bad(format!(
                    "{}: {what}[{i}] is not UTF-8: {e}",
                    self.kind.name()
                ))
            })?;
            out.push(s.to_owned());
        }
        Ok(out)
    }

    /// Checks that the message ends here.
    pub(crate) fn finish(self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(bad(format!(
                "{}: {} bytes follow the end of the message",
                self.kind.name(),
                self.bytes.len() - self.pos
            )));
        }
        Ok(())
    }
}
