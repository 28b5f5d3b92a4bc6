//! The byte codec of the binary form: the FNV-1a hash, the writer and the reader.

use super::serde_error;
use crate::error::{OblError, Result};
use crate::sparse::SparseRows;

/// 64-bit FNV-1a.
#[derive(Clone, Copy)]
pub(super) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub(super) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub(super) fn finish(self) -> u64 {
        self.0
    }
}

pub(super) fn fnv(bytes: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.write(bytes);
    h.finish()
}

#[derive(Default)]
pub(super) struct Writer {
    pub(super) out: Vec<u8>,
}

impl Writer {
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
    pub(super) fn u8(&mut self, x: u8) {
        self.out.push(x);
    }
    pub(super) fn u16(&mut self, x: u16) {
        self.bytes(&x.to_le_bytes());
    }
    pub(super) fn u64(&mut self, x: u64) {
        self.bytes(&x.to_le_bytes());
    }
    pub(super) fn u32s(&mut self, xs: &[u32]) {
        self.out.reserve(xs.len() * 4);
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }
    pub(super) fn f64s(&mut self, xs: &[f64]) {
        self.out.reserve(xs.len() * 8);
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }
    /// A sparse store: width, averaging, steps, row count, then the non-empty rows' ids
    /// and lengths, their codes, values and (averaging) accumulators.
    pub(super) fn rows(&mut self, rows: &SparseRows) {
        let n_rows = rows.n_rows();
        let ids: Vec<u32> = (0..n_rows as u32)
            .filter(|&k| !rows.row(k as usize).0.is_empty())
            .collect();
        self.u64(rows.width() as u64);
        self.u8(u8::from(rows.averaging()));
        self.u64(rows.steps());
        self.u64(n_rows as u64);
        self.u64(ids.len() as u64);
        self.u32s(&ids);
        let lens: Vec<u32> = ids
            .iter()
            .map(|&k| rows.row(k as usize).0.len() as u32)
            .collect();
        self.u32s(&lens);
        for &k in &ids {
            self.u32s(rows.row(k as usize).0);
        }
        for &k in &ids {
            self.f64s(rows.row(k as usize).1);
        }
        if rows.averaging() {
            for &k in &ids {
                self.f64s(rows.row_acc(k as usize));
            }
        }
    }
    /// A dense vector: its length, then `0` and the values, or `1`, a fill value, and the
    /// increasing positions (`u64`) and values of the entries that differ from it.
    pub(super) fn dense(&mut self, xs: &[f64]) {
        self.u64(xs.len() as u64);
        let candidates = [
            0.0,
            xs.first().copied().unwrap_or(0.0),
            xs.last().copied().unwrap_or(0.0),
        ];
        let (fill, same) = candidates
            .iter()
            .map(|&c| (c, xs.iter().filter(|x| x.to_bits() == c.to_bits()).count()))
            .max_by_key(|&(_, n)| n)
            .unwrap_or((0.0, 0));
        let differ = xs.len() - same;
        if differ * 16 + 16 < xs.len() * 8 {
            self.u8(1);
            self.f64s(&[fill]);
            self.u64(differ as u64);
            for (j, x) in xs.iter().enumerate() {
                if x.to_bits() != fill.to_bits() {
                    self.u64(j as u64);
                }
            }
            for x in xs {
                if x.to_bits() != fill.to_bits() {
                    self.f64s(&[*x]);
                }
            }
        } else {
            self.u8(0);
            self.f64s(xs);
        }
    }
}

pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl Reader<'_> {
    fn bad(&self, detail: impl std::fmt::Display) -> OblError {
        serde_error(
            "distributed weights",
            format!("at byte {}: {detail}", self.at),
        )
    }
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let out = &self.bytes[self.at..end];
                self.at = end;
                Ok(out)
            }
            _ => Err(self.bad(format!("{n} more bytes expected, the data ends"))),
        }
    }
    pub(super) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    }
    /// A count of items of `item` bytes each, which the remaining bytes must be able to
    /// hold (so nothing is reserved beyond the data).
    pub(super) fn len(&mut self, item: usize) -> Result<usize> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n.checked_mul(item as u64).is_none_or(|b| b > left) {
            return Err(self.bad(format!("a count of {n} items beyond the data")));
        }
        Ok(n as usize)
    }
    pub(super) fn u32s(&mut self, n: usize) -> Result<Vec<u32>> {
        let b = self.take(n.checked_mul(4).ok_or_else(|| self.bad("count"))?)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    /// `n` finite values.
    pub(super) fn f64s_exact(&mut self, n: usize) -> Result<Vec<f64>> {
        let b = self.take(n.checked_mul(8).ok_or_else(|| self.bad("count"))?)?;
        let out: Vec<f64> = b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        if let Some(x) = out.iter().find(|x| !x.is_finite()) {
            return Err(self.bad(format!("a non-finite value {x}")));
        }
        Ok(out)
    }
    pub(super) fn rows(
        &mut self,
        n_rows: usize,
        width: usize,
        averaging: bool,
        steps: u64,
    ) -> Result<SparseRows> {
        let found_width = self.u64()?;
        let found_averaging = self.u8()?;
        let found_steps = self.u64()?;
        let found_rows = self.u64()?;
        if found_width != width as u64
            || found_averaging != u8::from(averaging)
            || found_rows != n_rows as u64
            || (averaging && found_steps != steps)
        {
            return Err(self.bad(format!(
                "a sparse store of {found_rows} rows of width {found_width} (averaging {found_averaging}, steps {found_steps}), expected {n_rows} rows of width {width} (averaging {averaging}, steps {steps})"
            )));
        }
        let n = self.len(8)?;
        let ids = self.u32s(n)?;
        let lens = self.u32s(n)?;
        if ids.windows(2).any(|w| w[0] >= w[1]) || ids.last().is_some_and(|&k| k as usize >= n_rows)
        {
            return Err(self.bad("row ids not increasing below the row count"));
        }
        let total = lens.iter().try_fold(0usize, |s, &x| {
            (x > 0 && x as usize <= width)
                .then(|| s.checked_add(x as usize))
                .flatten()
        });
        let total = total.ok_or_else(|| self.bad("row lengths out of range"))?;
        let codes = self.u32s(total)?;
        let values = self.f64s_exact(total)?;
        let acc = if averaging {
            self.f64s_exact(total)?
        } else {
            Vec::new()
        };
        let mut at = 0;
        for &len in &lens {
            let row = &codes[at..at + len as usize];
            if row.windows(2).any(|w| w[0] >= w[1])
                || row.last().is_some_and(|&c| c as usize >= width)
            {
                return Err(self.bad("codes of a row not increasing below the width"));
            }
            at += len as usize;
        }
        SparseRows::from_rows(n_rows, width, averaging, found_steps, |add| {
            let mut at = 0;
            for (&k, &len) in ids.iter().zip(&lens) {
                let r = at..at + len as usize;
                let a = if averaging { &acc[r.clone()] } else { &[][..] };
                add(k as usize, &codes[r.clone()], &values[r], a);
                at += len as usize;
            }
        })
    }
    /// A dense vector of `n` finite values.
    pub(super) fn dense(&mut self, n: usize) -> Result<Vec<f64>> {
        let found = self.u64()?;
        if found != n as u64 {
            return Err(self.bad(format!("a vector of {found} values, expected {n}")));
        }
        match self.u8()? {
            0 => self.f64s_exact(n),
            1 => {
                let fill = self.f64s_exact(1)?[0];
                let m = self.len(16)?;
                let at = self.u32s(m.checked_mul(2).ok_or_else(|| self.bad("count"))?)?;
                let positions: Vec<u64> = at
                    .chunks_exact(2)
                    .map(|c| u64::from(c[0]) | (u64::from(c[1]) << 32))
                    .collect();
                if positions.windows(2).any(|w| w[0] >= w[1])
                    || positions.last().is_some_and(|&j| j >= n as u64)
                {
                    return Err(self.bad("positions not increasing below the length"));
                }
                let values = self.f64s_exact(m)?;
                let mut out: Vec<f64> = bl_core::limits::try_zeroed("dense vector", &[n])?;
                out.fill(fill);
                for (&j, &x) in positions.iter().zip(&values) {
                    out[j as usize] = x;
                }
                Ok(out)
            }
            x => Err(self.bad(format!("dense vector mode {x}"))),
        }
    }
}
