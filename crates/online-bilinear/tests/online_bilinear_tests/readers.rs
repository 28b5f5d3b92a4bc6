//! Readers on small files the tests write: round trips, BMES conversion, malformed lines.

use std::path::{Path, PathBuf};

use crate::common;

use online_bilinear::{
    ConllFormat, Corpus, LabelColumn, OblError, Sentence, bmes_to_words, parse_char_tagged,
    parse_conll, parse_word_tagged, read_char_tagged, read_conll, read_segmented_words,
    read_word_tagged, words_to_bmes,
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

/// Writes `text` to a file, reads it with `read`, checks its (sentences, tokens), and that
/// `render` then `parse` gives the same corpus back.
fn read_and_round_trip(
    file: &str,
    text: &str,
    read: impl Fn(&Path) -> online_bilinear::Result<Corpus>,
    shape: (usize, usize),
    render: impl Fn(&Corpus) -> String,
    parse: impl Fn(&str) -> online_bilinear::Result<Corpus>,
) -> Corpus {
    let dir = TempDir::new(file);
    let corpus = read(&dir.write(file, text)).unwrap();
    assert_eq!((corpus.len(), corpus.n_tokens()), shape, "{file}");
    assert_eq!(parse(&render(&corpus)).unwrap(), corpus, "{file}");
    corpus
}

#[test]
fn conll_file_round_trips() {
    let text = "Confidence NN B-NP\nin IN B-PP\n\n\nthe DT B-NP\npound NN I-NP\n";
    let corpus = read_and_round_trip(
        "conll.txt",
        text,
        |p| read_conll(p),
        (2, 4),
        Corpus::to_conll_string,
        |t| parse_conll(t, "<round trip>"),
    );
    let s = &corpus.sentences()[1];
    assert_eq!(s.column(0).unwrap(), ["the", "pound"]);
    assert_eq!(s.column(1).unwrap(), ["DT", "NN"]);
    assert_eq!(s.tags(), ["B-NP", "I-NP"]);
    assert!(corpus.column_names().is_empty());
}

#[test]
fn conll_reader_on_a_word_tagged_file_points_to_read_word_tagged() {
    let dir = TempDir::new("conll-word-tagged");
    // Two sentences of 4 and 6 word/TAG items: the CoNLL reader takes the first line for a
    // token of 4 columns and fails on the second.
    let text = "The/DT dog/NN barked/VBD ./.\nA/DT cat/NN sat/VBD on/IN 1/2/CD mats/NNS\n";
    let path = dir.write("train.pos", text);
    let err = read_conll(&path).unwrap_err();
    match &err {
        OblError::MissingColumns {
            line,
            expected,
            found,
            hint,
            ..
        } => {
            assert_eq!((*line, *expected, *found), (2, 4, 6));
            assert!(hint.contains("read_word_tagged(path, '/')"), "{hint}");
        }
        other => panic!("expected MissingColumns, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("expected 4 whitespace-separated columns")
            && message.contains("found 6")
            && message.contains("word/TAG")
            && message.contains("read_word_tagged"),
        "{message}"
    );
    // The reader it names reads the file.
    let corpus = read_word_tagged(&path, '/').unwrap();
    assert_eq!((corpus.len(), corpus.n_tokens()), (2, 10));
    // `word_TAG` items get the `_` separator; a one-item line is hinted too.
    let message = parse_conll("The_DT dog_NN\nHi_UH\n", "<x>")
        .unwrap_err()
        .to_string();
    assert!(message.contains("read_word_tagged(path, '_')"), "{message}");
    let message = parse_conll("Hello/UH\n", "<x>").unwrap_err().to_string();
    assert!(
        message.contains("found 1") && message.contains("read_word_tagged"),
        "{message}"
    );
    // A CoNLL line that breaks the layout without looking like word/TAG has no hint:
    // an item without a separator, an empty word or tag around it.
    for text in [
        "a DT B-NP\nb/x NN\n",
        "a DT B-NP\n/DT NN/\n",
        "a DT B-NP\nc B-NP\n",
        "1/2 CD B-NP\n3/4 I-NP\n",
    ] {
        match parse_conll(text, "<x>") {
            Err(OblError::MissingColumns { hint, line: 2, .. }) => {
                assert!(hint.is_empty(), "{text:?}: {hint}");
            }
            other => panic!("{text:?}: expected MissingColumns, got {other:?}"),
        }
    }
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
            hint,
        }) => {
            assert_eq!((line, expected, found), (4, 3, 2));
            assert!(hint.is_empty(), "{hint}");
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
        Err(OblError::Core(bl_core::BlError::Io { .. }))
    ));
}

#[test]
fn char_tagged_file_round_trips_and_splits_at_the_last_slash() {
    let corpus = read_and_round_trip(
        "chars.txt",
        "\u{feff}迈/b 向/e 新/S\n\n//s 年/s\n",
        |p| read_char_tagged(p),
        (2, 5),
        Corpus::to_char_tagged_string,
        |t| parse_char_tagged(t, "<round trip>"),
    );
    assert_eq!(corpus.sentences()[0].tags(), ["b", "e", "s"]);
    assert_eq!(corpus.sentences()[1].column(0).unwrap(), ["/", "年"]);
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

/// The 1-based line of a parse error, or a panic naming what came instead.
fn parse_error_line(result: online_bilinear::Result<Corpus>) -> usize {
    match result {
        Err(OblError::Core(bl_core::BlError::Parse { line, .. })) => line,
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn word_tagged_files_split_at_the_last_separator_and_round_trip() {
    let text = "The/DT 1/2/CD share/NN ./.\r\n\r\nHe/PRP left/VBD\r";
    let corpus = read_and_round_trip(
        "words-slash.txt",
        text,
        |p| read_word_tagged(p, '/'),
        (2, 6),
        |c| c.to_word_tagged_string('/'),
        |t| parse_word_tagged(t, '/', "<round trip>"),
    );
    let s = &corpus.sentences()[0];
    assert_eq!(s.column(0).unwrap(), ["The", "1/2", "share", "."]);
    assert_eq!(s.tags(), ["DT", "CD", "NN", "."]);
    assert_eq!(s.n_columns(), 1);
    // The same corpus written with `_` reads the same with that separator.
    let underscore = read_and_round_trip(
        "words-underscore.txt",
        &corpus.to_word_tagged_string('_'),
        |p| read_word_tagged(p, '_'),
        (2, 6),
        |c| c.to_word_tagged_string('_'),
        |t| parse_word_tagged(t, '_', "<round trip>"),
    );
    assert_eq!(underscore, corpus);
    // `a_b_NN` is the word `a_b`; tags keep their case.
    let c = parse_word_tagged("a_b_NN x_nn\n", '_', "<x>").unwrap();
    assert_eq!(c.sentences()[0].column(0).unwrap(), ["a_b", "x"]);
    assert_eq!(c.sentences()[0].tags(), ["NN", "nn"]);
}

#[test]
fn word_tagged_malformed_items_report_the_line() {
    for (text, line) in [
        ("a/DT b/NN\nc d/NN\n", 2),     // no separator
        ("a/DT\n\n/NN\n", 3),           // empty word
        ("a/DT\rb/\r", 2),              // empty tag
        ("ok/A\r\nok/B\r\nx_y\r\n", 3), // the other separator
    ] {
        assert_eq!(
            parse_error_line(parse_word_tagged(text, '/', "<x>")),
            line,
            "{text:?}"
        );
    }
    assert!(common::is_invalid_parameter(&parse_word_tagged(
        "a b", ' ', "<x>"
    )));
    assert!(matches!(
        parse_word_tagged("\n \n", '/', "<x>"),
        Err(OblError::Core(bl_core::BlError::Empty { .. }))
    ));
}

#[test]
fn conll_format_picks_the_label_column_by_index_or_name() {
    let text = "1 Confidence NN B-NP\n2 in IN B-PP\n\n1 the DT B-NP\n";
    // By index: the POS column is the tag, the others are observations in file order.
    let by_index = ConllFormat::new()
        .label(LabelColumn::Index(2))
        .parse(text, "<x>")
        .unwrap();
    let s = &by_index.sentences()[0];
    assert_eq!(s.tags(), ["NN", "IN"]);
    assert_eq!(s.n_columns(), 3);
    assert_eq!(s.column(2).unwrap(), ["B-NP", "B-PP"]);
    assert!(by_index.column_names().is_empty());
    // By name, names given by the reader.
    let named = ConllFormat::new()
        .columns(&["id", "word", "pos", "chunk"])
        .label(LabelColumn::Named("pos".into()))
        .parse(text, "<x>")
        .unwrap();
    assert_eq!(named.column_names(), ["id", "word", "chunk"]);
    assert_eq!(named.sentences(), by_index.sentences());
    // By name, names from a header line; the file read through `read`.
    let dir = TempDir::new("conll-header");
    let path = dir.write("h.txt", &format!("ID WORD POS CHUNK\n{text}"));
    let header = ConllFormat::new()
        .header(true)
        .label(LabelColumn::Named("POS".into()))
        .read(&path)
        .unwrap();
    assert_eq!(header.column_names(), ["ID", "WORD", "CHUNK"]);
    assert_eq!(header.sentences(), by_index.sentences());
    // The default layout is parse_conll's.
    assert_eq!(
        ConllFormat::new().parse(text, "<x>").unwrap(),
        parse_conll(text, "<x>").unwrap()
    );
    // Names travel with the corpus's slices.
    assert_eq!(named.head(1).column_names(), named.column_names());
    assert_eq!(
        named.split_every(2).unwrap().1.column_names(),
        named.column_names()
    );
}

#[test]
fn conll_format_refuses_contradictory_options_and_bad_files() {
    let text = "a NN B-NP\nb NN I-NP\n";
    let names = ["word", "pos", "chunk"];
    for format in [
        ConllFormat::new().columns(&names).header(true),
        ConllFormat::new().label(LabelColumn::Named("chunk".into())),
        ConllFormat::new()
            .columns(&names)
            .label(LabelColumn::Named("ne".into())),
        ConllFormat::new()
            .columns(&names)
            .label(LabelColumn::Index(3)),
        ConllFormat::new().columns(&["word", "word", "chunk"]),
        ConllFormat::new().columns(&["word", "", "chunk"]),
    ] {
        assert!(
            common::is_invalid_parameter(&format.parse(text, "<x>")),
            "{format:?}"
        );
    }
    // A header without the label's name, or repeating a name: a parse error at its line.
    let named_label = ConllFormat::new()
        .header(true)
        .label(LabelColumn::Named("chunk".into()));
    assert_eq!(
        parse_error_line(named_label.parse("\n-DOCSTART- x\nword pos ne\na b c\n", "<x>")),
        3
    );
    let header = ConllFormat::new().header(true);
    assert_eq!(parse_error_line(header.parse("w w t\na b c\n", "<x>")), 1);
    // A label index beyond the unnamed columns: a parse error at the first token line.
    let index = ConllFormat::new().label(LabelColumn::Index(5));
    assert_eq!(parse_error_line(index.parse("\n\na b c\n", "<x>")), 3);
    // Lines must have as many columns as there are names.
    match ConllFormat::new()
        .columns(&names)
        .parse("a NN B-NP\nb I-NP\n", "<x>")
    {
        Err(OblError::MissingColumns {
            line,
            expected,
            found,
            ..
        }) => assert_eq!((line, expected, found), (2, 3, 2)),
        other => panic!("expected MissingColumns, got {other:?}"),
    }
    assert!(matches!(
        ConllFormat::new()
            .columns(&["word", "chunk"])
            .parse("a B-NP O\n", "<x>"),
        Err(OblError::MissingColumns { line: 1, .. })
    ));
}

#[test]
fn column_names_and_untagged_sentences_are_checked() {
    let corpus = parse_conll("a NN B-NP\n", "<x>").unwrap();
    assert_eq!(
        corpus
            .clone()
            .with_column_names(&["word", "pos"])
            .unwrap()
            .column_names(),
        ["word", "pos"]
    );
    for names in [
        &["word"][..],
        &["word", "pos", "x"],
        &["w", "w"],
        &["", "p"],
    ] {
        assert!(
            common::is_invalid_parameter(&corpus.clone().with_column_names(names)),
            "{names:?}"
        );
    }
    let columns = |rows: &[&[&str]]| -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    let s = Sentence::untagged_columns(columns(&[&["a", "b"], &["DT", "NN"]])).unwrap();
    assert_eq!((s.len(), s.n_columns()), (2, 2));
    assert!(s.tags().iter().all(String::is_empty));
    assert!(matches!(
        Sentence::untagged_columns(columns(&[&["a", "b"], &["DT"]])),
        Err(OblError::RaggedSentence { .. })
    ));
    assert!(common::is_invalid_parameter(&Sentence::untagged_columns(
        Vec::new()
    )));
}
