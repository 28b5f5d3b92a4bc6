//! The corpus readers of online-bilinear: the first byte picks CoNLL columns, `char/tag`
//! lines or segmented words; the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use online_bilinear::data::{parse_char_tagged, parse_conll, parse_segmented_words};

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let result = match which % 3 {
        0 => parse_conll(&text, "<fuzz>"),
        1 => parse_char_tagged(&text, "<fuzz>"),
        _ => parse_segmented_words(&text, "<fuzz>"),
    };
    if let Ok(corpus) = result {
        assert!(!corpus.is_empty());
        for s in corpus.sentences() {
            assert!(s.columns().iter().all(|c| c.len() == s.len()));
        }
        let _ = corpus.to_conll_string();
    }
});
