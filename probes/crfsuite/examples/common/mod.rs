//! The corpora of the examples (the parts of online-bilinear's example module `common` they
//! use): CoNLL-2000 as part-of-speech tagging (the word column as the observation, the POS
//! column as the label), and the command-line helpers.

use std::path::Path;

use online_bilinear::{Corpus, OblError, Sentence};

/// CoNLL-2000 `chtrain.txt` and `chtest.txt` of `dir` (word, POS; chunk tags).
pub fn conll_chunking(dir: &Path) -> Result<(Corpus, Corpus), OblError> {
    Ok((
        online_bilinear::read_conll(dir.join("chtrain.txt"))?,
        online_bilinear::read_conll(dir.join("chtest.txt"))?,
    ))
}

/// A chunking corpus as part-of-speech tagging: the word column as the observation, the
/// POS column as the label (about 45 tags).
pub fn as_pos_tagging(corpus: &Corpus) -> Result<Corpus, OblError> {
    let sentences = corpus
        .sentences()
        .iter()
        .map(|s| Sentence::new(vec![s.columns()[0].clone()], s.columns()[1].clone()))
        .collect::<Result<_, _>>()?;
    Ok(Corpus::new(sentences))
}

/// CoNLL-2000 of `dir` as part-of-speech tagging ([`as_pos_tagging`]).
pub fn conll_pos(dir: &Path) -> Result<(Corpus, Corpus), OblError> {
    let (train, test) = conll_chunking(dir)?;
    Ok((as_pos_tagging(&train)?, as_pos_tagging(&test)?))
}

/// The `index`-th command-line argument parsed, or `default` when absent.
pub fn arg_or<T: std::str::FromStr>(
    args: &[String],
    index: usize,
    default: T,
) -> Result<T, Box<dyn std::error::Error>>
where
    T::Err: std::error::Error + 'static,
{
    Ok(match args.get(index) {
        Some(v) => v.parse()?,
        None => default,
    })
}

/// The command-line arguments (program name first), or an error with `usage` when fewer
/// than `required` follow the program name.
pub fn args(required: usize, usage: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() <= required {
        return Err(format!("usage: {usage}").into());
    }
    Ok(args)
}
