//! The binary form of [`IpmWeights`].

use super::codec::{Reader, Writer, fnv};
use super::weights::{Body, Header};
use super::{IpmPlan, IpmWeights, MAGIC, WEIGHTS_FORMAT_VERSION, serde_error};
use crate::error::Result;
use crate::learner::{BuiltIn, DenseParts};
use crate::rank_one::RankOneParts;

impl IpmWeights {
    /// The binary form: the magic `OBLIPM`, [`WEIGHTS_FORMAT_VERSION`], the header (learner,
    /// settings flags, sizes, shard count, the plan's fingerprint, epoch, steps), the state
    /// (sparse rows as row ids, lengths, codes, values and accumulators; bcd's dense
    /// vectors as their values, or as a fill value (0, the first or the last value,
    /// whichever occurs most) and the positions and values differing from it when that is
    /// shorter), and a 64-bit FNV-1a checksum of all that, all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(MAGIC);
        w.u16(WEIGHTS_FORMAT_VERSION);
        let h = &self.header;
        w.u8(match h.learner {
            BuiltIn::Sp => 0,
            BuiltIn::Bol => 1,
            _ => 2,
        });
        w.u8(u8::from(h.averaging) | (u8::from(h.zero_order) << 1));
        for x in [
            h.n_features,
            h.n_tags,
            h.n_shards,
            h.fingerprint,
            h.epoch,
            h.steps,
        ] {
            w.u64(x);
        }
        let zero = match &self.body {
            Body::Sp { w: rows, zero } => {
                w.rows(rows);
                zero
            }
            Body::Bol { rank_one, zero } => {
                w.rows(&rank_one.theta);
                w.u64(rank_one.blocks.len() as u64);
                w.u32s(&rank_one.blocks);
                w.f64s(&rank_one.sigma);
                w.f64s(&rank_one.v);
                w.f64s(&rank_one.alpha);
                if let Some((a, b)) = &rank_one.averages {
                    w.f64s(a);
                    w.f64s(b);
                }
                zero
            }
            Body::Bcd { alpha, beta, zero } => {
                for (x, acc) in [alpha, beta] {
                    w.dense(x);
                    if let Some(acc) = acc {
                        w.dense(acc);
                    }
                }
                zero
            }
        };
        if let Some(z) = zero {
            w.rows(z);
        }
        let sum = fnv(&w.out);
        w.u64(sum);
        w.out
    }

    /// Weights of `plan` from [`to_bytes`](Self::to_bytes)'s form, checked in full: the
    /// magic, the version, the checksum, the header against the plan's (learner, settings,
    /// sizes, shard count, fingerprint) before anything is allocated, every count against
    /// the bytes left, sorted and in-range row ids, codes and block ids, finite values, and
    /// no byte left over.
    ///
    /// # Errors
    /// [`OblError::Serde`](crate::error::OblError::Serde) naming the first fault.
    pub fn from_bytes(plan: &IpmPlan, bytes: &[u8]) -> Result<Self> {
        let bad = |detail: String| serde_error("distributed weights", detail);
        if bytes.len() < MAGIC.len() + 2 + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "not the binary form of IpmWeights (no OBLIPM magic)".into()
            ));
        }
        let version = u16::from_le_bytes([bytes[6], bytes[7]]);
        if version != WEIGHTS_FORMAT_VERSION {
            return Err(bad(format!(
                "format version {version}, this build reads version {WEIGHTS_FORMAT_VERSION}"
            )));
        }
        let (payload, sum) = bytes.split_at(bytes.len() - 8);
        let want = u64::from_le_bytes(sum.try_into().unwrap_or([0; 8]));
        if fnv(payload) != want {
            return Err(bad("checksum mismatch (damaged or truncated bytes)".into()));
        }
        let mut r = Reader {
            bytes: payload,
            at: MAGIC.len() + 2,
        };
        let learner = match r.u8()? {
            0 => BuiltIn::Sp,
            1 => BuiltIn::Bol,
            2 => BuiltIn::Bcd,
            x => return Err(bad(format!("learner code {x}"))),
        };
        let flags = r.u8()?;
        if flags > 3 {
            return Err(bad(format!("flags {flags}")));
        }
        let mut next = || r.u64();
        let header = Header {
            learner,
            averaging: flags & 1 == 1,
            zero_order: flags & 2 == 2,
            n_features: next()?,
            n_tags: next()?,
            n_shards: next()?,
            fingerprint: next()?,
            epoch: next()?,
            steps: next()?,
        };
        if header != plan.header(header.epoch, header.steps) {
            return Err(bad(format!(
                "weights of another plan: {} with {} features, {} tags, {} shards (plan: {} \
                 with {} features, {} tags, {} shards; or other settings, features or tags)",
                header.learner.name(),
                header.n_features,
                header.n_tags,
                header.n_shards,
                plan.learner.name(),
                plan.dict.len(),
                plan.tags.len(),
                plan.n_shards
            )));
        }
        let (k, l) = (plan.dict.len(), plan.tags.len());
        let p = l + 1;
        let averaging = header.averaging;
        let steps = header.steps;
        let body = match learner {
            BuiltIn::Sp => Body::Sp {
                w: r.rows(k, p * l, averaging, steps)?,
                zero: None,
            },
            BuiltIn::Bol => {
                let theta = r.rows(k, l * p, false, 0)?;
                let n = r.len(4)?;
                let blocks = r.u32s(n)?;
                if blocks.windows(2).any(|w| w[0] >= w[1])
                    || blocks.last().is_some_and(|&b| b as usize >= k)
                {
                    return Err(bad("bol blocks not increasing below n_features".into()));
                }
                for b in 0..k {
                    if !theta.row(b).0.is_empty() && blocks.binary_search(&(b as u32)).is_err() {
                        return Err(bad(format!("Theta block {b} stored but not touched")));
                    }
                }
                let sigma = r.f64s_exact(n)?;
                if sigma.iter().any(|&s| s < 0.0) {
                    return Err(bad("a negative sigma".into()));
                }
                let v = r.f64s_exact(n * p)?;
                let alpha = r.f64s_exact(n * l)?;
                let averages = if averaging {
                    Some((r.f64s_exact(n * l)?, r.f64s_exact(n * p)?))
                } else {
                    None
                };
                Body::Bol {
                    rank_one: RankOneParts {
                        theta,
                        blocks,
                        sigma,
                        v,
                        alpha,
                        averages,
                        steps,
                    },
                    zero: None,
                }
            }
            _ => {
                let mut factor = |n: usize| -> Result<DenseParts> {
                    let x = r.dense(n)?;
                    let acc = if averaging { Some(r.dense(n)?) } else { None };
                    Ok((x, acc))
                };
                let alpha = factor(k * l)?;
                let beta = factor(k * p)?;
                Body::Bcd {
                    alpha,
                    beta,
                    zero: None,
                }
            }
        };
        let mut out = Self { header, body };
        if header.zero_order {
            let z = Some(r.rows(k, l, averaging, steps)?);
            match &mut out.body {
                Body::Sp { zero, .. } | Body::Bol { zero, .. } | Body::Bcd { zero, .. } => {
                    *zero = z
                }
            }
        }
        if r.at != payload.len() {
            return Err(bad(format!("{} bytes left over", payload.len() - r.at)));
        }
        Ok(out)
    }
}
