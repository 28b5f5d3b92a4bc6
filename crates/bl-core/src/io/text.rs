//! Helpers shared by the text readers: line splitting that accepts every line ending, and
//! UTF-8 decoding whose error names the line.

/// Where a text stops being valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidUtf8 {
    /// 1-based line of the first invalid byte (lines as counted by [`lines`]).
    pub line: usize,
    /// Byte offset of the first invalid byte in the input.
    pub offset: usize,
}

impl std::fmt::Display for InvalidUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not valid UTF-8 (first invalid byte at offset {}): convert the file to UTF-8",
            self.offset
        )
    }
}

/// `bytes` as text, or the line and offset of the first byte that is not UTF-8.
///
/// # Errors
/// [`InvalidUtf8`] at the first invalid byte.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, InvalidUtf8> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        InvalidUtf8 {
            line: line_breaks(&bytes[..offset]) + 1,
            offset,
        }
    })
}

/// Number of line ends in `bytes`: `\n`, `\r\n` (one) and a lone `\r`.
fn line_breaks(bytes: &[u8]) -> usize {
    (0..bytes.len())
        .filter(|&i| match bytes[i] {
            b'\n' => true,
            b'\r' => bytes.get(i + 1) != Some(&b'\n'),
            _ => false,
        })
        .count()
}

/// The lines of `text`, ended by `\n`, `\r\n` or a lone `\r` (Python's universal
/// newlines, as the reference loaders of these formats read them); the line ends are not
/// included, and a final line end does not start an empty line.
///
/// ```
/// let lines: Vec<&str> = bl_core::io::text::lines("a\r\nb\rc\n\nd").collect();
/// assert_eq!(lines, ["a", "b", "c", "", "d"]);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            None => Some(std::mem::take(&mut rest)),
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                Some(line)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_utf8_errors_agree_on_numbering() {
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
        assert_eq!(lines("a\r\r\nb\n").collect::<Vec<_>>(), ["a", "", "b"]);
        for (bytes, line) in [
            (&b"a\r\nb\xff"[..], 2),
            (b"a\rb\rc\xff", 3),
            (b"\xff", 1),
            (b"a\n\n\xfe\n", 3),
        ] {
            let e = decode_utf8(bytes).unwrap_err();
            assert_eq!(e.line, line, "{bytes:?}");
            let valid = std::str::from_utf8(&bytes[..e.offset]).unwrap();
            // a placeholder for the invalid byte lands on the line reported
            assert_eq!(lines(&format!("{valid}x")).count(), line, "{bytes:?}");
        }
        assert_eq!(decode_utf8(b"ok\n").unwrap(), "ok\n");
    }
}
