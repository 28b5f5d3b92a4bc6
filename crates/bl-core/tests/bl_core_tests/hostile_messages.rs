//! Error messages of the readers stay short whatever the input: an offending field, token,
//! label or header key is quoted by a bounded prefix (`bl_core::limits::quote`) with its
//! position, never copied whole.

use bl_core::BlError;
use bl_core::io::{CsvOptions, LengthPolicy, parse_ts, read_csv_from, read_npy_from};

/// The longest message accepted for an input of any size.
const SHORT: usize = 300;

/// One MiB: large enough that a copied input would be obvious, small enough for a test.
const BIG: usize = 1 << 20;

fn parse_message(result: Result<impl std::fmt::Debug, BlError>) -> (usize, String) {
    match result {
        Err(BlError::Parse { line, message, .. }) => (line, message),
        other => panic!("expected a parse error, got {:?}", other.map(|_| "a value")),
    }
}

#[test]
fn csv_messages_quote_a_bounded_prefix_and_name_line_and_column() {
    let not_a_number = "x".repeat(BIG);
    // A decimal of a million digits parses to infinity.
    let infinite = format!("1{}", "0".repeat(BIG));
    let cases = [
        // (text, line, column, what the message says)
        (
            format!("1,2\n3,{not_a_number}\n"),
            2,
            "field 2",
            "not a number",
        ),
        (
            format!("1,2\n\n\n{infinite},4\n"),
            4,
            "field 1",
            "not finite",
        ),
    ];
    for (text, want_line, column, why) in cases {
        let (line, message) = parse_message(read_csv_from(text.as_bytes(), &CsvOptions::default()));
        assert_eq!(line, want_line, "{message}");
        assert!(message.len() < SHORT, "{} bytes: {message}", message.len());
        assert!(message.contains(column), "{message}");
        assert!(message.contains(why), "{message}");
        assert!(message.contains("bytes)"), "{message}");
    }
}

#[test]
fn ts_messages_quote_a_bounded_prefix() {
    let long = "z".repeat(BIG);
    let head = "@classLabel true a b\n@data\n";
    let many_classes: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
    let cases = [
        // (text, line, what the message says)
        (format!("{head}1,2:a\n1,{long}:b\n"), 4, "not a number"),
        (
            format!("{head}1,2:a\n1,1{}:b\n", "0".repeat(BIG)),
            4,
            "not finite",
        ),
        (format!("{head}1,2:a\n1,2:{long}\n"), 4, "not declared"),
        (format!("{head}1,2:a\n@{long}\n"), 4, "after @data"),
        (format!("@missing {long}\n"), 1, "`true` or `false`"),
        (format!("@seriesLength {long}\n"), 1, "positive integer"),
        (format!("@classLabel true {long} {long}\n"), 1, "twice"),
        (
            format!("@classLabel true {}\n@data\n1:a\n", many_classes.join(" ")),
            3,
            "100000 classes",
        ),
    ];
    for (text, want_line, why) in cases {
        let (line, message) = parse_message(parse_ts(&text, LengthPolicy::Error));
        assert_eq!(line, want_line, "{message}");
        assert!(message.len() < SHORT, "{} bytes: {message}", message.len());
        assert!(message.contains(why), "{message}");
    }
}

/// A version 1.0 `.npy` stream with the given header text and no data.
fn npy_with_header(header: &str) -> Vec<u8> {
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

#[test]
fn npy_header_messages_quote_a_bounded_prefix() {
    // Headers are at most 10,000 bytes; a key or a dtype may take nearly all of them.
    let long = "k".repeat(9_000);
    let cases = [
        (
            format!("{{'{long}': 1, 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }}"),
            "unexpected key",
        ),
        (
            format!("{{'descr': '<{long}', 'fortran_order': False, 'shape': (1,), }}"),
            "unsupported dtype",
        ),
    ];
    for (header, why) in cases {
        let message = match read_npy_from(npy_with_header(&header).as_slice()) {
            Err(BlError::Npy { message, .. }) => message,
            other => panic!("expected an npy error, got {:?}", other.map(|_| "an array")),
        };
        assert!(message.len() < SHORT, "{} bytes: {message}", message.len());
        assert!(message.contains(why), "{message}");
        assert!(message.contains("bytes)"), "{message}");
    }
}
