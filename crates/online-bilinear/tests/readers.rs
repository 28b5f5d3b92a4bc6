//! Readers on small files the tests write: round trips, BMES conversion, malformed lines.

use std::path::PathBuf;

use online_bilinear::{
    Corpus, OblError, Sentence, bmes_to_words, parse_char_tagged, parse_conll, read_char_tagged,
    read_conll, read_segmented_words, words_to_bmes,
};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("obl-readers-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn write(&self, file: &str, text: &str) -> PathBuf {
        let path = self.0.join(file);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn conll_file_round_trips() {
    let dir = TempDir::new("conll");
    let text = "Confidence NN B-NP\nin IN B-PP\n\n\nthe DT B-NP\npound NN I-NP\n";
    let corpus = read_conll(dir.write("a.txt", text)).unwrap();
    assert_eq!(corpus.len(), 2);
    assert_eq!(corpus.n_tokens(), 4);
    let s = &corpus.sentences()[1];
    assert_eq!(s.column(0).unwrap(), ["the", "pound"]);
    assert_eq!(s.column(1).unwrap(), ["DT", "NN"]);
    assert_eq!(s.tags(), ["B-NP", "I-NP"]);
    let again = parse_conll(&corpus.to_conll_string(), "<round trip>").unwrap();
    assert_eq!(again, corpus);
}

#[test]
fn conll_missing_column_reports_the_line() {
    let dir = TempDir::new("conll-bad");
    let path = dir.write("bad.txt", "a DT B-NP\nb NN I-NP\n\nc B-NP\n");
    match read_conll(&path) {
        Err(OblError::MissingColumns {
            line,
            expected,
            found,
            path: p,
        }) => {
            assert_eq!((line, expected, found), (4, 3, 2));
            assert_eq!(p, path);
        }
        other => panic!("expected MissingColumns, got {other:?}"),
    }
    assert!(matches!(
        parse_conll("onlyone\n", "<x>"),
        Err(OblError::MissingColumns { line: 1, .. })
    ));
    assert!(matches!(
        parse_conll("\n\n", "<x>"),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
    assert!(matches!(
        read_conll(dir.0.join("does-not-exist.txt")),
        Err(OblError::Io { .. })
    ));
}

#[test]
fn char_tagged_file_round_trips_and_splits_at_the_last_slash() {
    let dir = TempDir::new("chars");
    let text = "\u{feff}迈/b 向/e 新/S\n\n//s 年/s\n";
    let corpus = read_char_tagged(dir.write("c.txt", text)).unwrap();
    assert_eq!(corpus.len(), 2);
    assert_eq!(corpus.sentences()[0].tags(), ["b", "e", "s"]);
    assert_eq!(corpus.sentences()[1].column(0).unwrap(), ["/", "年"]);
    let again = parse_char_tagged(&corpus.to_char_tagged_string(), "<round trip>").unwrap();
    assert_eq!(again, corpus);
}

#[test]
fn char_tagged_malformed_items_report_the_line() {
    for (text, line) in [
        ("迈/b 向/e\n新 年/s\n", 2),
        ("迈/b\n\n向/x\n", 3),
        ("/b\n", 1),
    ] {
        match parse_char_tagged(text, "corpus.txt") {
            Err(OblError::Core(bl_core::BlError::Parse { line: l, path, .. })) => {
                assert_eq!(l, line, "{text:?}");
                assert_eq!(path, PathBuf::from("corpus.txt"));
            }
            other => panic!("{text:?}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn segmented_words_become_bmes() {
    let dir = TempDir::new("words");
    let corpus = read_segmented_words(dir.write("w.txt", "迈向 新 世纪啊\n\n")).unwrap();
    let s = &corpus.sentences()[0];
    assert_eq!(s.column(0).unwrap().concat(), "迈向新世纪啊");
    assert_eq!(s.tags(), ["b", "e", "s", "b", "m", "e"]);
    assert_eq!(
        bmes_to_words(s.column(0).unwrap(), s.tags()),
        ["迈向", "新", "世纪啊"]
    );
    let (chars, tags) = words_to_bmes(&["a"]);
    assert_eq!(
        (chars, tags),
        (vec!["a".to_string()], vec!["s".to_string()])
    );
}

#[test]
fn corpus_splits() {
    let sentences: Vec<Sentence> = (0..25)
        .map(|i| Sentence::from_tokens(&[format!("w{i}")], &["s"]).unwrap())
        .collect();
    let corpus = Corpus::new(sentences);
    let (train, test) = corpus.split_every(10).unwrap();
    assert_eq!((train.len(), test.len()), (23, 2));
    assert_eq!(test.sentences()[0].column(0).unwrap(), ["w9"]);
    assert_eq!(corpus.head_fraction(0.1).unwrap().len(), 3);
    assert!(corpus.head_fraction(0.0).is_err());
    assert!(corpus.split_every(1).is_err());
    assert!(matches!(
        Sentence::from_tokens(&["a", "b"], &["s"]),
        Err(OblError::RaggedSentence { .. })
    ));
}
