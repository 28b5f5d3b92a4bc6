//! The feature strings of one position: each template's index, `\u{1}`, and what it reads
//! there; and the column checks that come first.

use std::fmt::Write as _;

use super::template::Templates;
use super::transform::TransformChain;
use crate::data::{Corpus, Sentence};
use crate::error::{OblError, Result};

/// The reused strings of feature extraction: the feature being written and the
/// intermediate output of a transform chain.
#[derive(Default)]
pub(super) struct Scratch {
    feature: String,
    step: String,
}

/// Writes the observation at `i + offset`, transformed (or a padding symbol), into `out`.
fn push_observation(
    out: &mut String,
    step: &mut String,
    column: &[String],
    i: usize,
    offset: isize,
    transform: Option<&TransformChain>,
) {
    let j = i as isize + offset;
    if j < 0 {
        let _ = write!(out, "\u{2}<{}", -j);
    } else if j as usize >= column.len() {
        let _ = write!(out, "\u{2}>{}", j as usize - column.len() + 1);
    } else if let Some(transform) = transform {
        transform.write_with(&column[j as usize], out, step);
    } else {
        out.push_str(&column[j as usize]);
    }
}

/// Writes a template index in decimal without the formatting machinery.
pub(super) fn push_index(out: &mut String, mut t: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (t % 10) as u8;
        n += 1;
        t /= 10;
        if t == 0 {
            break;
        }
    }
    for &d in digits[..n].iter().rev() {
        out.push(d as char);
    }
}

/// Calls `f` with each feature string of position `i`.
pub(super) fn for_each_feature(
    templates: &Templates,
    sentence: &Sentence,
    i: usize,
    scratch: &mut Scratch,
    mut f: impl FnMut(&str),
) {
    let Scratch { feature: out, step } = scratch;
    for (t, template) in templates.list.iter().enumerate() {
        out.clear();
        push_index(out, t);
        out.push('\u{1}');
        if let Some(column) = template.column() {
            let col = &sentence.columns()[column];
            let (first, second) = template.positions();
            push_observation(out, step, col, i, first, template.transform());
            if let Some(second) = second {
                out.push('\u{1}');
                push_observation(out, step, col, i, second, template.transform());
            }
        }
        f(out);
    }
}

/// A sentence has the columns the templates read.
pub(super) fn check_columns(
    templates: &Templates,
    sentence: &Sentence,
    index: usize,
) -> Result<()> {
    let needed = templates.columns_needed();
    if sentence.n_columns() < needed && !sentence.is_empty() {
        let column = match templates.column_names.get(needed - 1) {
            Some(name) if !name.is_empty() => format!("`{name}`"),
            _ => "unnamed".to_string(),
        };
        return Err(OblError::TooFewColumns {
            column,
            sentence: index,
            token: 0,
            found: sentence.n_columns(),
            needed: needed - 1,
        });
    }
    Ok(())
}

/// A corpus with named columns has the columns the templates name, at their places.
pub(super) fn check_column_names(templates: &Templates, corpus: &Corpus) -> Result<()> {
    let have = corpus.column_names();
    if have.is_empty() {
        return Ok(());
    }
    for (c, want) in templates.column_names.iter().enumerate() {
        let found = have.get(c).map_or("", String::as_str);
        if !want.is_empty() && !found.eq_ignore_ascii_case(want) {
            return Err(OblError::MissingColumn {
                name: want.clone(),
                index: c,
                columns: have.to_vec(),
            });
        }
    }
    Ok(())
}
