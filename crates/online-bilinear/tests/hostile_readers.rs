//! Hostile input for the corpus readers (CoNLL columns, also with a named or indexed
//! label column, `word/TAG` lines, `char/tag` lines, segmented words): regression tests of hand-made files and a mutation suite of a few thousand
//! mutated files per reader, each call checked for no panic, at most 100 ms and at most
//! 64 MiB requested. The guard and the mutation strategies are those of `bl-core`'s
//! reader suite.

#[path = "../../bl-core/tests/hostile/guard.rs"]
mod guard;
#[path = "../../bl-core/tests/hostile/mutate.rs"]
mod mutate;

use online_bilinear::data::{
    parse_char_tagged, parse_conll, parse_segmented_words, parse_word_tagged, read_char_tagged,
    read_conll, read_segmented_words, read_word_tagged,
};
use online_bilinear::{ConllFormat, Corpus, LabelColumn, OblError};
use proptest::prop_assert;
use proptest::test_runner::{TestCaseError, TestRunner};

/// Cases per reader.
const CASES: u32 = 3000;

fn mutation_suite<F>(name: &str, seeds: &[&str], seed: u64, read: F)
where
    F: Fn(&str) -> Option<String> + Send + Sync + Clone + 'static,
{
    let seeds: Vec<Vec<u8>> = seeds.iter().map(|s| s.as_bytes().to_vec()).collect();
    let mut runner = TestRunner::new(mutate::config(CASES, seed));
    let start = std::time::Instant::now();
    let result = runner.run(&mutate::mutation(seeds.len()), |(index, edits)| {
        let text = String::from_utf8_lossy(&mutate::apply(&seeds[index], &edits)).into_owned();
        let (t, read) = (std::sync::Arc::new(text.clone()), read.clone());
        let measured = guard::guarded(guard::ALLOC_LIMIT, move || read(&t))
            .map_err(|e| TestCaseError::fail(format!("{name}: {e} on {text:?}")))?;
        // every outcome is Ok or a typed error with a message
        if let Some(message) = measured.value {
            prop_assert!(!message.is_empty());
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    eprintln!("{name}: {CASES} mutated files in {:?}", start.elapsed());
}

fn outcome<T: std::fmt::Debug>(r: online_bilinear::Result<T>) -> Option<String> {
    r.err().map(|e| e.to_string())
}

/// A text parser under test.
type Parse = fn(&str) -> online_bilinear::Result<Corpus>;

/// Each reader: its name, valid files to mutate, the proptest seed, the call.
const SUITES: &[(&str, &[&str], u64, Parse)] = &[
    (
        "parse_conll",
        &[
            "-DOCSTART- -X- O\n\nConfidence NN B-NP\nin IN B-PP\nthe DT B-NP\n\nHe PRP B-NP\n",
            "a b\nc d\r\n\r\ne f\r\n",
            "x\ty\tz\tO\nu\tv\tw\tB\n",
        ],
        31,
        |t| parse_conll(t, "<input>"),
    ),
    (
        "parse_char_tagged",
        &[
            "迈/b 向/e 新/s\n世/b 纪/e\n",
            "//s a/B b/m c/E\r\n\r\nd/s\n",
        ],
        32,
        |t| parse_char_tagged(t, "<input>"),
    ),
    (
        "parse_segmented_words",
        &["迈向 新 世纪\n\n今天 是 好日子\n", "a bb ccc\r\ndddd\r"],
        33,
        |t| parse_segmented_words(t, "<input>"),
    ),
    (
        "parse_word_tagged (/, then _)",
        &[
            "The/DT 1/2/CD share/NN ./.\n\nHe/PRP left/VBD\n",
            "a_DT b_c_NN\r\nd_VB\r",
        ],
        34,
        |t| parse_word_tagged(t, '/', "<input>").or_else(|_| parse_word_tagged(t, '_', "<input>")),
    ),
    (
        "ConllFormat (header, named label)",
        &[
            "ID WORD POS chunk\n1 Confidence NN B-NP\n2 in IN B-PP\n\n1 He PRP B-NP\n",
            "-DOCSTART- x\n\nid\tword\tpos\tchunk\r\n1\ta\tb\tO\r\n",
        ],
        35,
        |t| {
            let label = LabelColumn::Named("chunk".into());
            ConllFormat::new()
                .header(true)
                .label(label)
                .parse(t, "<input>")
        },
    ),
    (
        "ConllFormat (names, indexed label)",
        &["a NN B-NP\nb VB B-VP\n\nc DT O\n", "x y z\r\ru v w\r"],
        36,
        |t| {
            let names = ["word", "pos", "chunk"];
            let format = ConllFormat::new()
                .columns(&names)
                .label(LabelColumn::Index(1));
            format.parse(t, "<input>")
        },
    ),
];

/// Every reader's mutation suite, after checking that its seed files parse.
#[test]
fn mutation_suites() {
    for &(name, seeds, seed, parse) in SUITES {
        for text in seeds {
            assert!(parse(text).is_ok(), "{name}: seed {text:?}");
        }
        mutation_suite(name, seeds, seed, move |text| outcome(parse(text)));
    }
}

/// One of the file readers.
type Reader = fn(&std::path::Path) -> online_bilinear::Result<online_bilinear::Corpus>;

/// A file that is not UTF-8 is a parse error naming the line of the first bad byte (it was
/// an I/O error without a line).
#[test]
fn non_utf8_files_name_the_line() {
    let dir = std::env::temp_dir().join(format!("obl-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.txt");
    let readers: [(&str, &[u8], Reader, usize); 5] = [
        ("conll", b"a B\n\nc \xff D\n", |p| read_conll(p), 3),
        ("char", b"a/s\r\n\xfe/s\r\n", |p| read_char_tagged(p), 2),
        ("words", b"ab\rcd\r\xc3", |p| read_segmented_words(p), 3),
        (
            "word/TAG",
            b"a/DT\r\rb/\x80NN\n",
            |p| read_word_tagged(p, '/'),
            3,
        ),
        (
            "conll header",
            b"w p c\n\xe9 NN O\n",
            |p| ConllFormat::new().header(true).read(p),
            2,
        ),
    ];
    for (name, bytes, read, want) in readers {
        std::fs::write(&path, bytes).unwrap();
        match read(&path) {
            Err(OblError::Core(bl_core::BlError::Parse { line, message, .. })) => {
                assert_eq!(line, want, "{name}");
                assert!(message.contains("UTF-8"), "{name}: {message}");
            }
            other => panic!("{name}: expected a Parse error, got {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lone `\r` line ends separate lines (and so sentences and error lines) as `\n` does.
#[test]
fn carriage_return_line_ends_count_as_lines() {
    let corpus = parse_conll("a B\rc D\r\re F\r", "<input>").unwrap();
    assert_eq!((corpus.len(), corpus.n_tokens()), (2, 3));
    match parse_conll("a B\rc D\r\re F G\r", "<input>") {
        Err(OblError::MissingColumns { line, .. }) => assert_eq!(line, 4),
        other => panic!("expected MissingColumns, got {other:?}"),
    }
    match parse_char_tagged("a/s\rb/x\r", "<input>") {
        Err(OblError::Core(bl_core::BlError::Parse { line, .. })) => assert_eq!(line, 2),
        other => panic!("expected a Parse error, got {other:?}"),
    }
    assert_eq!(
        parse_segmented_words("ab\rc\r", "<input>").unwrap().len(),
        2
    );
    let words = parse_word_tagged("a/A\rb/B\r\rc/C\r", '/', "<input>").unwrap();
    assert_eq!((words.len(), words.n_tokens()), (3, 3));
    match parse_word_tagged("a/A\rb/B\r\rc\r", '/', "<input>") {
        Err(OblError::Core(bl_core::BlError::Parse { line, .. })) => assert_eq!(line, 4),
        other => panic!("expected a Parse error, got {other:?}"),
    }
    let named = ConllFormat::new().header(true);
    let corpus = named.parse("w t\ra B\rc D\r\re F\r", "<input>").unwrap();
    assert_eq!((corpus.len(), corpus.n_tokens()), (2, 3));
    match named.parse("w t\ra B\rc D\r\re F G\r", "<input>") {
        Err(OblError::MissingColumns { line, .. }) => assert_eq!(line, 5),
        other => panic!("expected MissingColumns, got {other:?}"),
    }
}

/// The longest message a reader error may have here: a bounded quote of the item (48
/// characters, escaped) plus the fixed text.
const MESSAGE_LIMIT: usize = 600;

/// An error message that quotes a whole offending item grows with the input (a 16 MiB
/// item gave a 16 MiB message; 4 MiB here, for the time limit), and a 1 GiB file of zero
/// bytes through `read_word_tagged` made a 2 GiB allocation: every reader's message stays
/// under [`MESSAGE_LIMIT`] and names the line and the item's place on it; a text parse
/// requests less than half the text's size (it copied the item at least once), a file read
/// the file once and less than half of it more. All inputs are built before the first
/// measured call (the allocation count is global to the test binary).
#[test]
fn messages_quote_a_bounded_prefix_of_a_huge_item() {
    const BIG: usize = 4 << 20;
    let huge = |s: &str| s.repeat(BIG / s.len());
    // (case, text, parse, the item's place "item N" in the message)
    type Case = (&'static str, String, Parse, &'static str);
    let cases: Vec<Case> = vec![
        (
            "word/TAG item without a separator",
            format!("a/DT {}\n", huge("x")),
            |t| parse_word_tagged(t, '/', "<input>"),
            "item 2",
        ),
        (
            "word/TAG zero bytes",
            huge("\0"),
            |t| parse_word_tagged(t, '/', "<input>"),
            "item 1",
        ),
        (
            "word/TAG empty token",
            format!("a/DT b/NN /{}\n", huge("T")),
            |t| parse_word_tagged(t, '/', "<input>"),
            "item 3",
        ),
        (
            "char/tag huge tag",
            format!("a/s b/{}\n", huge("q")),
            |t| parse_char_tagged(t, "<input>"),
            "item 2",
        ),
        (
            "char/tag item without a slash",
            format!("a/s\nb/e {}\n", huge("迈")),
            |t| parse_char_tagged(t, "<input>"),
            "item 2",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("obl-hostile-zero-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zeros.txt");
    std::fs::write(&path, vec![0u8; BIG]).unwrap();
    let check = |case: &str, message: Option<String>, item: &str| {
        let message = message.unwrap_or_else(|| panic!("{case}: parsed"));
        assert!(
            message.len() < MESSAGE_LIMIT,
            "{case}: {} bytes",
            message.len()
        );
        assert!(message.contains(item), "{case}: {message}");
        assert!(message.contains("bytes)"), "{case}: {message}");
    };
    for (case, text, parse, item) in cases {
        let len = text.len();
        let text = std::sync::Arc::new(text);
        let measured = guard::guarded(len / 2, move || outcome(parse(&text)))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        check(case, measured.value, item);
    }
    let p = path.clone();
    let measured = guard::guarded(BIG + BIG / 2, move || outcome(read_word_tagged(&p, '/')))
        .unwrap_or_else(|e| panic!("file of zero bytes: {e}"));
    let message = measured.value.clone().unwrap_or_default();
    assert!(message.contains(":1:"), "{message}");
    check("file of zero bytes", measured.value, "item 1");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A first token that starts with U+FEFF survives `to_conll_string` -> `parse_conll` (the
/// parser stripped it as a byte-order mark); a file that starts with a byte-order mark is
/// still read without it.
#[test]
fn a_leading_feff_round_trips_through_conll_text() {
    let sentence =
        online_bilinear::Sentence::from_tokens(&["\u{feff}a", "b"], &["X", "Y"]).unwrap();
    let corpus = Corpus::new(vec![sentence]);
    let text = corpus.to_conll_string();
    assert_eq!(parse_conll(&text, "<round trip>").unwrap(), corpus);
    let dir = std::env::temp_dir().join(format!("obl-hostile-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bom.txt");
    std::fs::write(&path, "\u{feff}a X\nb Y\n").unwrap();
    let read = read_conll(&path).unwrap();
    assert_eq!(read.sentences()[0].column(0).unwrap(), ["a", "b"]);
    let _ = std::fs::remove_dir_all(&dir);
}
