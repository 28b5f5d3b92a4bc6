//! A bounded parser of the Python literals that appear in `.npy` headers.
//!
//! Grammar (a subset of Python's): `value := str | int | True | False | None | tuple |
//! list | dict`; strings in single or double quotes with backslash escapes (an optional
//! `u` or `b` prefix); integers with an optional sign and an optional `L` suffix (written
//! by Python 2); tuples `(a, b)` (a parenthesised single value without a comma is that
//! value, as in Python); whitespace between tokens. Every byte is looked at a bounded
//! number of times and nesting is limited to [`MAX_NESTING`], so parsing is linear in the
//! text length and cannot exhaust the stack.

use super::MAX_NESTING;

/// A parsed literal.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Str(String),
    /// An integer that fits in `i128`.
    Int(i128),
    /// An integer too large for `i128`.
    BigInt,
    Bool(bool),
    None,
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

/// Parses `text` as one literal followed only by whitespace.
pub(super) fn parse(text: &[u8]) -> Result<Value, String> {
    let mut p = Parser { text, pos: 0 };
    let value = p.value(0)?;
    p.skip_space();
    if p.pos < text.len() {
        return Err(format!("unexpected text at byte {} after the dict", p.pos));
    }
    Ok(value)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        match self.peek() {
            Some(b) => format!("{what} at byte {} (found {:?})", self.pos, b as char),
            None => format!("{what} at the end of the header"),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        self.skip_space();
        match self.peek() {
            Some(b'{') => self.nested(depth, b'}', true),
            Some(b'[') => self.nested(depth, b']', false),
            Some(b'(') => self.nested(depth, b')', false),
            Some(b'\'' | b'"') => self.string(),
            Some(b'u' | b'b' | b'U' | b'B')
                if matches!(self.text.get(self.pos + 1), Some(b'\'' | b'"')) =>
            {
                self.pos += 1;
                self.string()
            }
            Some(b'-' | b'+' | b'0'..=b'9') => self.integer(),
            Some(b'A'..=b'Z' | b'a'..=b'z' | b'_') => self.name(),
            _ => Err(self.error("expected a value")),
        }
    }

    /// A dict, list or tuple; the opening bracket is at `pos`.
    fn nested(&mut self, depth: usize, close: u8, dict: bool) -> Result<Value, String> {
        if depth >= MAX_NESTING {
            return Err(format!(
                "brackets nested more than {MAX_NESTING} levels deep at byte {}",
                self.pos
            ));
        }
        let open = self.text[self.pos];
        self.pos += 1;
        let mut items = Vec::new();
        let mut pairs = Vec::new();
        let mut trailing_comma = false;
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                self.pos += 1;
                break;
            }
            let item = self.value(depth + 1)?;
            if dict {
                self.skip_space();
                if self.peek() != Some(b':') {
                    return Err(self.error("expected `:` after a dict key"));
                }
                self.pos += 1;
                let value = self.value(depth + 1)?;
                pairs.push((item, value));
            } else {
                items.push(item);
            }
            self.skip_space();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    trailing_comma = true;
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    trailing_comma = false;
                    break;
                }
                _ => {
                    return Err(self.error(&format!(
                        "expected `,` or `{}` in a literal opened by `{}`",
                        close as char, open as char
                    )));
                }
            }
        }
        Ok(match open {
            b'{' => Value::Dict(pairs),
            b'[' => Value::List(items),
            // `(x)` is x; `(x,)` and `()` are tuples
            _ if items.len() == 1 && !trailing_comma => items.pop().unwrap_or(Value::None),
            _ => Value::Tuple(items),
        })
    }

    fn string(&mut self) -> Result<Value, String> {
        let quote = self.text[self.pos];
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    self.pos = start;
                    return Err(self.error("unterminated string"));
                }
                Some(b'\\') => {
                    // Keep the escaped byte as it is: no key or dtype needs escapes.
                    match self.text.get(self.pos + 1) {
                        Some(&b) => out.push(b),
                        None => {
                            self.pos = start;
                            return Err(self.error("unterminated string"));
                        }
                    }
                    self.pos += 2;
                }
                Some(b) if b == quote => {
                    self.pos += 1;
                    break;
                }
                Some(b) => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
        // Latin-1 bytes of a version 1/2 header are characters of their own.
        Ok(Value::Str(out.iter().map(|&b| b as char).collect()))
    }

    fn integer(&mut self) -> Result<Value, String> {
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let digits_start = self.pos;
        let mut value: Option<i128> = Some(0);
        while let Some(b @ b'0'..=b'9') = self.peek() {
            value = value
                .and_then(|v| v.checked_mul(10))
                .and_then(|v| v.checked_add(i128::from(b - b'0')));
            self.pos += 1;
        }
        if self.pos == digits_start {
            return Err(self.error("expected digits"));
        }
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        if matches!(
            self.peek(),
            Some(b'.' | b'e' | b'E' | b'x' | b'X' | b'_' | b'j' | b'J')
        ) {
            return Err(self.error("only plain integers are accepted"));
        }
        Ok(match value {
            Some(v) if negative => Value::Int(-v),
            Some(v) => Value::Int(v),
            None => Value::BigInt,
        })
    }

    fn name(&mut self) -> Result<Value, String> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_')
        ) {
            self.pos += 1;
        }
        match &self.text[start..self.pos] {
            b"True" => Ok(Value::Bool(true)),
            b"False" => Ok(Value::Bool(false)),
            b"None" => Ok(Value::None),
            _ => {
                self.pos = start;
                Err(self.error("expected True, False, None or a literal"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_header_literals() {
        let v = parse(b"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }  \n").unwrap();
        assert_eq!(
            v,
            Value::Dict(vec![
                (Value::Str("descr".into()), Value::Str("<f8".into())),
                (Value::Str("fortran_order".into()), Value::Bool(false)),
                (
                    Value::Str("shape".into()),
                    Value::Tuple(vec![Value::Int(2), Value::Int(3)])
                ),
            ])
        );
        assert_eq!(parse(b"()").unwrap(), Value::Tuple(vec![]));
        assert_eq!(parse(b"(3,)").unwrap(), Value::Tuple(vec![Value::Int(3)]));
        assert_eq!(parse(b"(3)").unwrap(), Value::Int(3));
        assert_eq!(
            parse(b"(3L, -4)").unwrap(),
            Value::Tuple(vec![Value::Int(3), Value::Int(-4)])
        );
        assert_eq!(parse(b"u'a\\'b'").unwrap(), Value::Str("a'b".into()));
        assert_eq!(parse(b"\"x\"").unwrap(), Value::Str("x".into()));
        assert_eq!(parse(&[b'9'; 60]).unwrap(), Value::BigInt);
        assert_eq!(
            parse(b"[('a', '<f8'), ('b', '<i4', (2,))]").unwrap(),
            Value::List(vec![
                Value::Tuple(vec![Value::Str("a".into()), Value::Str("<f8".into())]),
                Value::Tuple(vec![
                    Value::Str("b".into()),
                    Value::Str("<i4".into()),
                    Value::Tuple(vec![Value::Int(2)])
                ]),
            ])
        );
    }

    #[test]
    fn rejects_malformed_literals() {
        for bad in [
            &b""[..],
            b"{",
            b"{'a' 1}",
            b"{'a': }",
            b"(1 2)",
            b"'abc",
            b"'ab\ncd'",
            b"1.5",
            b"0x10",
            b"1e3",
            b"-",
            b"Truth",
            b"{'a': 1} {",
            b"[1,,]",
            b"\xff",
        ] {
            assert!(parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        assert!(parse(deep.as_bytes()).unwrap_err().contains("nested"));
        let ok = format!("{}{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert!(parse(ok.as_bytes()).is_ok());
    }
}
