//! Structural checks of a CRFsuite CRF1d model file before CRFsuite reads it.
//!
//! CRFsuite's reader (`crf1d_model.c`) and the CQDB string databases inside the file
//! (read by the `cqdb` crate) trust every size, offset and index in the bytes: a single
//! edited byte can make them read outside the buffer, loop forever or corrupt the heap.
//! [`check`] walks everything the tagger can touch and accepts the bytes only if every
//! read stays inside them:
//!
//! - the 48-byte header: magic `lCRF`, type `FOMC`, the file size, the section offsets;
//! - the feature table (12-byte chunk header `FEAT, size, count`, then 20 bytes per
//!   feature: type, source, destination label, weight): every destination below the
//!   label count, every weight finite;
//! - the label and attribute reference tables (12-byte chunk header, one offset per label
//!   or attribute, each to a list `count, feature ids...`): every list inside the bytes,
//!   every feature id below the feature count, the lists together no longer than the file
//!   (they are disjoint in a file CRFsuite writes);
//! - the two CQDB databases (labels, attributes): header, the 256 hash tables (each
//!   inside the bytes, with at least one empty bucket so a lookup terminates, the tables
//!   together no longer than the database), every record a bucket or the backward array
//!   points to (inside the bytes, NUL-terminated, with an id below the label or attribute
//!   count), and for the labels a backward link for every label id.
//!
//! The work is linear in the size of the bytes.

/// Bytes read little-endian, with every read bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    what: &'static str,
}

impl Reader<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn u32_at(&self, at: u64) -> Result<u64, String> {
        let start = usize::try_from(at).ok();
        start
            .and_then(|s| self.bytes.get(s..s.checked_add(4)?))
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .ok_or_else(|| {
                format!(
                    "{}: a 4-byte field at offset {at} lies outside its {} bytes",
                    self.what,
                    self.len()
                )
            })
    }

    fn f64_at(&self, at: u64) -> Result<f64, String> {
        let lo = self.u32_at(at)?;
        let hi = self.u32_at(at + 4)?;
        Ok(f64::from_bits(lo | (hi << 32)))
    }

    /// `[start, start + len)` lies inside the bytes.
    fn span(&self, start: u64, len: u64, what: &str) -> Result<(), String> {
        match start.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(format!(
                "{}: {what} ({len} bytes at offset {start}) lies outside its {} bytes",
                self.what,
                self.len()
            )),
        }
    }

    fn sub(&self, start: u64, what: &'static str) -> Result<Reader<'_>, String> {
        self.span(start, 0, what)?;
        Ok(Reader {
            bytes: &self.bytes[start as usize..],
            what,
        })
    }
}

const HEADER: u64 = 48;
const CHUNK: u64 = 12;
const FEATURE: u64 = 20;

/// Checks `model` (see the module documentation); `n_tags` is the tagger's tag count,
/// which must equal the model's label count. The error says what is wrong.
pub(super) fn check(model: &[u8], n_tags: usize) -> Result<(), String> {
    let file = Reader {
        bytes: model,
        what: "CRFsuite model",
    };
    if file.len() <= HEADER || &model[..4] != b"lCRF" || &model[8..12] != b"FOMC" {
        return Err(format!(
            "expected a CRFsuite CRF1d model (magic `lCRF`, type `FOMC`, more than \
             {HEADER} bytes), found {} bytes",
            file.len()
        ));
    }
    let word = |i: u64| file.u32_at(4 * i);
    if word(1)? != file.len() {
        return Err(format!(
            "the header says {} bytes, found {}",
            word(1)?,
            file.len()
        ));
    }
    // The header's feature count is not filled in by CRFsuite's writer: the count is the
    // `num` of the feature table's chunk header.
    let (n_labels, n_attrs) = (word(5)?, word(6)?);
    let (off_features, off_labels, off_attrs) = (word(7)?, word(8)?, word(9)?);
    let (off_labelrefs, off_attrrefs) = (word(10)?, word(11)?);
    if n_labels != n_tags as u64 {
        return Err(format!(
            "expected {n_tags} labels (one per tag), found {n_labels}"
        ));
    }
    for (name, offset) in [
        ("feature table", off_features),
        ("label database", off_labels),
        ("attribute database", off_attrs),
        ("label references", off_labelrefs),
        ("attribute references", off_attrrefs),
    ] {
        if offset < HEADER {
            return Err(format!(
                "the {name} starts at offset {offset}, inside the header"
            ));
        }
    }
    // Features: the destination label and the weight are read when tagging.
    let n_features = file.u32_at(off_features + 8)?;
    file.span(
        off_features,
        CHUNK + FEATURE * n_features,
        "the feature table",
    )?;
    for i in 0..n_features {
        let at = off_features + CHUNK + FEATURE * i;
        let dst = file.u32_at(at + 8)?;
        if dst >= n_labels {
            return Err(format!(
                "feature {i} points to label {dst}, but there are {n_labels} labels"
            ));
        }
        let weight = file.f64_at(at + 12)?;
        if !weight.is_finite() {
            return Err(format!("feature {i} has the weight {weight}"));
        }
    }
    // Reference lists: label -> transition features, attribute -> state features.
    let mut listed = 0_u64;
    for (name, offset, count) in [
        ("label references", off_labelrefs, n_labels),
        ("attribute references", off_attrrefs, n_attrs),
    ] {
        file.span(offset, CHUNK + 4 * count, name)?;
        for j in 0..count {
            let list = file.u32_at(offset + CHUNK + 4 * j)?;
            let len = file.u32_at(list)?;
            file.span(list, 4 + 4 * len, name)?;
            listed += 4 + 4 * len;
            if listed > file.len() {
                return Err(format!(
                    "the reference lists add up to more than the {} bytes of the file",
                    file.len()
                ));
            }
            for r in 0..len {
                let fid = file.u32_at(list + 4 + 4 * r)?;
                if fid >= n_features {
                    return Err(format!(
                        "{name}: entry {j} lists feature {fid}, but there are \
                         {n_features} features"
                    ));
                }
            }
        }
    }
    check_cqdb(&file.sub(off_labels, "label database")?, n_labels, true)?;
    check_cqdb(&file.sub(off_attrs, "attribute database")?, n_attrs, false)?;
    Ok(())
}

/// A CQDB record at `offset`: `id, size, size bytes ending in NUL`; returns the id.
fn check_record(db: &Reader<'_>, offset: u64) -> Result<u64, String> {
    let id = db.u32_at(offset)?;
    let size = db.u32_at(offset + 4)?;
    if size == 0 {
        return Err(format!(
            "{}: a record at offset {offset} has size 0",
            db.what
        ));
    }
    db.span(offset + 8, size, "a record")?;
    if db.bytes[(offset + 8 + size - 1) as usize] != 0 {
        return Err(format!(
            "{}: the record at offset {offset} does not end in NUL",
            db.what
        ));
    }
    Ok(id)
}

/// A CQDB database whose ids must be below `n_ids`; `backward` requires an id -> string
/// link for every id (the labels, which the tagger turns back into strings).
fn check_cqdb(db: &Reader<'_>, n_ids: u64, backward: bool) -> Result<(), String> {
    const TABLES: u64 = 256;
    const DB_HEADER: u64 = 24;
    db.span(0, DB_HEADER + 8 * TABLES, "the database header")?;
    if &db.bytes[..4] != b"CQDB" || db.u32_at(12)? != 0x6244_5371 {
        return Err(format!("{}: not a CQDB database", db.what));
    }
    let (bwd_size, bwd_offset) = (db.u32_at(16)?, db.u32_at(20)?);
    let check_id = |id: u64| {
        if id < n_ids {
            Ok(())
        } else {
            Err(format!(
                "{}: a record has id {id}, but there are {n_ids}",
                db.what
            ))
        }
    };
    let mut n_records = 0_u64;
    let mut table_bytes = 0_u64;
    for i in 0..TABLES {
        let offset = db.u32_at(DB_HEADER + 8 * i)?;
        let n = db.u32_at(DB_HEADER + 8 * i + 4)?;
        if offset == 0 {
            if n > 0 {
                return Err(format!(
                    "{}: hash table {i} has {n} buckets but no offset",
                    db.what
                ));
            }
            continue;
        }
        n_records += n / 2;
        db.span(offset, 8 * n, "a hash table")?;
        table_bytes += 8 * n;
        if table_bytes > db.len() {
            return Err(format!(
                "{}: the hash tables add up to more than its {} bytes",
                db.what,
                db.len()
            ));
        }
        let mut empty = false;
        for b in 0..n {
            let record = db.u32_at(offset + 8 * b + 4)?;
            if record == 0 {
                empty = true;
            } else {
                check_id(check_record(db, record)?)?;
            }
        }
        if !empty {
            return Err(format!(
                "{}: hash table {i} has no empty bucket (a lookup would not end)",
                db.what
            ));
        }
    }
    if bwd_offset > 0 {
        db.span(bwd_offset, 4 * n_records, "the backward links")?;
        if bwd_size > n_records {
            return Err(format!(
                "{}: {bwd_size} backward links declared, {n_records} stored",
                db.what
            ));
        }
        for id in 0..bwd_size {
            let record = db.u32_at(bwd_offset + 4 * id)?;
            if record > 0 {
                check_id(check_record(db, record)?)?;
            } else if backward && id < n_ids {
                return Err(format!("{}: label {id} has no name", db.what));
            }
        }
    }
    if backward && (bwd_offset == 0 || bwd_size < n_ids) {
        return Err(format!(
            "{}: expected a name for each of the {n_ids} labels, found {}",
            db.what,
            if bwd_offset == 0 { 0 } else { bwd_size }
        ));
    }
    Ok(())
}
