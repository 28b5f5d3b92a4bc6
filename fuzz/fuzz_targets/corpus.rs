//! The corpus readers of online-bilinear. The first byte picks the reader (mod 5): CoNLL
//! columns, `char/tag` lines, segmented words, `word/TAG` lines, or a `ConllFormat`; its
//! top bit picks a variant (the `_` separator; column names given by the reader with an
//! indexed label instead of a header with a named one). The rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use online_bilinear::data::{
    ConllFormat, LabelColumn, parse_char_tagged, parse_conll, parse_segmented_words,
    parse_word_tagged,
};

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let variant = which & 0x80 != 0;
    let result = match which % 5 {
        0 => parse_conll(&text, "<fuzz>"),
        1 => parse_char_tagged(&text, "<fuzz>"),
        2 => parse_segmented_words(&text, "<fuzz>"),
        3 => parse_word_tagged(&text, if variant { '_' } else { '/' }, "<fuzz>"),
        _ if variant => ConllFormat::new()
            .columns(&["word", "pos", "chunk"])
            .label(LabelColumn::Index(1))
            .parse(&text, "<fuzz>"),
        _ => ConllFormat::new()
            .header(true)
            .label(LabelColumn::Named("CHUNK".into()))
            .parse(&text, "<fuzz>"),
    };
    if let Ok(corpus) = result {
        assert!(!corpus.is_empty());
        let names = corpus.column_names();
        for s in corpus.sentences() {
            assert!(s.columns().iter().all(|c| c.len() == s.len()));
            assert!(names.is_empty() || names.len() == s.n_columns());
        }
        let _ = corpus.to_conll_string();
    }
});
