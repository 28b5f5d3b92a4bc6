//! Behaviour the rustdoc states, checked where the code once did otherwise.

use online_bilinear::bmes_to_words;

/// `bmes_to_words`: "Extra tags (beyond the characters) are ignored": they give no word,
/// not empty words.
#[test]
fn bmes_to_words_ignores_extra_tags() {
    assert_eq!(bmes_to_words(&["a"], &["s", "s", "b", "e"]), ["a"]);
    assert_eq!(bmes_to_words(&["a", "b"], &["b", "e", "s"]), ["ab"]);
    assert_eq!(bmes_to_words(&["a", "b"], &["b", "m", "e"]), ["ab"]);
    let no_chars: [&str; 0] = [];
    assert!(bmes_to_words(&no_chars, &["s"]).is_empty());
}
