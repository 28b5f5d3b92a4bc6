//! Hostile input for the corpus readers (CoNLL columns, `char/tag` lines, segmented
//! words): regression tests of hand-made files and a mutation suite of a few thousand
//! mutated files per reader, each call checked for no panic, at most 100 ms and at most
//! 64 MiB requested. The guard and the mutation strategies are those of `bl-core`'s
//! reader suite.

#[path = "../../bl-core/tests/hostile/guard.rs"]
mod guard;
#[path = "../../bl-core/tests/hostile/mutate.rs"]
mod mutate;

use online_bilinear::OblError;
use online_bilinear::data::{
    parse_char_tagged, parse_conll, parse_segmented_words, read_char_tagged, read_conll,
    read_segmented_words,
};
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

const CONLL: &[&str] = &[
    "-DOCSTART- -X- O\n\nConfidence NN B-NP\nin IN B-PP\nthe DT B-NP\n\nHe PRP B-NP\n",
    "a b\nc d\r\n\r\ne f\r\n",
    "x\ty\tz\tO\nu\tv\tw\tB\n",
];
const CHAR_TAGGED: &[&str] = &[
    "迈/b 向/e 新/s\n世/b 纪/e\n",
    "//s a/B b/m c/E\r\n\r\nd/s\n",
];
const SEGMENTED: &[&str] = &["迈向 新 世纪\n\n今天 是 好日子\n", "a bb ccc\r\ndddd\r"];

#[test]
fn conll_mutation_suite() {
    assert!(CONLL.iter().all(|s| parse_conll(s, "<input>").is_ok()));
    mutation_suite("parse_conll", CONLL, 31, |text| {
        outcome(parse_conll(text, "<input>"))
    });
}

#[test]
fn char_tagged_mutation_suite() {
    assert!(
        CHAR_TAGGED
            .iter()
            .all(|s| parse_char_tagged(s, "<input>").is_ok())
    );
    mutation_suite("parse_char_tagged", CHAR_TAGGED, 32, |text| {
        outcome(parse_char_tagged(text, "<input>"))
    });
}

#[test]
fn segmented_words_mutation_suite() {
    assert!(
        SEGMENTED
            .iter()
            .all(|s| parse_segmented_words(s, "<input>").is_ok())
    );
    mutation_suite("parse_segmented_words", SEGMENTED, 33, |text| {
        outcome(parse_segmented_words(text, "<input>"))
    });
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
    let readers: [(&str, &[u8], Reader); 3] = [
        ("conll", b"a B\n\nc \xff D\n", |p| read_conll(p)),
        ("char", b"a/s\r\n\xfe/s\r\n", |p| read_char_tagged(p)),
        ("words", b"ab\rcd\r\xc3", |p| read_segmented_words(p)),
    ];
    for ((name, bytes, read), want) in readers.into_iter().zip([3, 2, 3]) {
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
}
