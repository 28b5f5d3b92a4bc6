//! Word segmentation as character tags: words to characters tagged `b`/`m`/`e`/`s` and
//! back.

/// Splits words into characters tagged `b` (begin), `m` (middle), `e` (end) or `s` (a
/// single-character word).
pub fn words_to_bmes<S: AsRef<str>>(words: &[S]) -> (Vec<String>, Vec<String>) {
    let mut chars = Vec::new();
    let mut tags = Vec::new();
    for word in words {
        let cs: Vec<char> = word.as_ref().chars().collect();
        let n = cs.len();
        for (i, c) in cs.into_iter().enumerate() {
            chars.push(c.to_string());
            let tag = match (n, i) {
                (1, _) => "s",
                (_, 0) => "b",
                _ if i + 1 == n => "e",
                _ => "m",
            };
            tags.push(tag.to_string());
        }
    }
    (chars, tags)
}

/// Joins characters into words at the boundaries given by BMES tags: a word starts at `b`
/// or `s`, or after `e` or `s`. Ill-formed sequences (e.g. `m` after `s`) are read with the
/// same rule, so every tag sequence yields a segmentation. Extra tags (beyond the
/// characters) are ignored, and characters beyond the tags are left out.
pub fn bmes_to_words<S: AsRef<str>, T: AsRef<str>>(chars: &[S], tags: &[T]) -> Vec<String> {
    let mut words = Vec::new();
    let tags = &tags[..tags.len().min(chars.len())];
    for (start, end) in crate::metrics::bmes_spans(tags) {
        let word: String = chars[start..end].iter().map(|c| c.as_ref()).collect();
        words.push(word);
    }
    words
}
