//! Hostile input for the `.npy`, CSV and `.ts` readers.
//!
//! 1. Regression tests: hand-made malformed files that once hung a reader, panicked, or
//!    made it reserve gigabytes. Each must now give a typed error within 100 ms while
//!    requesting at most a few MiB.
//! 2. A mutation suite: thousands of random mutations of valid files per reader, each
//!    call checked for no panic, at most 100 ms and at most 64 MiB requested.
//!
//! Every call runs under [`guard::guarded`] (own thread, counting allocator, timeout).

#[path = "hostile/guard.rs"]
mod guard;
#[path = "hostile/mutate.rs"]
mod mutate;

use std::io::Read;

use bl_core::BlError;
use bl_core::io::{
    CsvOptions, LengthPolicy, parse_ts, read_csv_from, read_npy, read_npy_from, write_npy_to,
};
use proptest::test_runner::{TestCaseError, TestRunner};

use guard::guarded;

/// What a hostile input may request on top of its own size.
const FEW_MIB: usize = 4 << 20;

/// A `.npy` file with the given version and header text (no padding added).
fn npy_with_header(major: u8, header: &str) -> Vec<u8> {
    let mut bytes = b"\x93NUMPY".to_vec();
    bytes.push(major);
    bytes.push(0);
    if major == 1 {
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

/// A version 1.0 header dict for `descr`, `fortran_order` and `shape` (given as text).
fn npy_dict(descr: &str, fortran: bool, shape: &str) -> Vec<u8> {
    let fortran = if fortran { "True" } else { "False" };
    npy_with_header(
        1,
        &format!("{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}\n"),
    )
}

/// Reads `bytes` as `.npy` under the guards and expects a typed `Npy` error.
fn expect_npy_error(what: &str, bytes: Vec<u8>) -> String {
    let limit = bytes.len() + FEW_MIB;
    let measured = guarded(limit, move || read_npy_from(bytes.as_slice()))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    match measured.value {
        Err(BlError::Npy { message, .. }) => message,
        other => panic!("{what}: expected an Npy error, got {other:?}"),
    }
}

#[test]
fn npy_nested_brackets_in_the_header_fail_fast() {
    for depth in [20, 22, 40, 1000] {
        let nest = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        // in place of the whole header, inside the descr value and inside the shape value
        let message = expect_npy_error("nested header", npy_with_header(1, &nest));
        assert!(!message.is_empty());
        expect_npy_error("nested descr", npy_dict(&nest, false, "(1,)"));
        expect_npy_error(
            "nested shape",
            npy_dict("'<f8'", false, &format!("({nest},)")),
        );
        let parens = format!("{}{}", "(".repeat(depth), ")".repeat(depth));
        expect_npy_error("nested tuple shape", npy_dict("'<f8'", false, &parens));
        let dicts = format!("{}{}", "{1:".repeat(depth), "}".repeat(depth));
        expect_npy_error("nested dict", npy_dict(&dicts, false, "(1,)"));
    }
    // unclosed nesting, a 128-byte file
    let mut bytes = npy_with_header(1, &"[".repeat(118));
    bytes.truncate(128);
    expect_npy_error("unclosed nesting", bytes);
}

#[test]
fn npy_shapes_whose_size_overflows_are_rejected() {
    for fortran in [false, true] {
        for shape in [
            "(4294967296, 4294967296)",
            "(9223372036854775809, 2)",
            "(0, 7, 2305843009213693952, 255)",
            "(18446744073709551616,)",
            "(340282366920938463463374607431768211456, 1)",
            "(1152921504606846976,)", // 2^60 values of 8 bytes: 2^63 bytes
            "(-1, 2)",
            "(3, -3)",
        ] {
            let mut bytes = npy_dict("'<f8'", fortran, shape);
            bytes.extend_from_slice(&[0; 64]);
            let message = expect_npy_error(shape, bytes);
            assert!(!message.is_empty());
        }
    }
}

#[test]
fn npy_huge_declared_header_is_not_reserved() {
    // 12 bytes: a version 2.0 magic string declaring a 4 GiB header
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(bytes.len(), 12);
    let message = expect_npy_error("4 GiB header", bytes);
    assert!(message.contains("header"), "{message}");
    // the same with a version 1.0 header of 65535 bytes (over numpy's 10000 limit)
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::MAX.to_le_bytes());
    expect_npy_error("64 KiB header", bytes);
}

/// A reader of `len` zero bytes that counts how many it handed out.
#[derive(Clone)]
struct Junk {
    left: u64,
    served: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Read for Junk {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        buf[..n].fill(0);
        self.left -= n as u64;
        self.served
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

#[test]
fn npy_trailing_junk_is_not_read_to_the_end() {
    // a valid header and 3 f8 values, then 1 GiB of junk: rejected after reading a few
    // bytes past the data, not after reading the gigabyte
    let mut head = npy_dict("'<f8'", false, "(3,)");
    head.extend_from_slice(&[0; 24]);
    let served = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let junk = Junk {
        left: 1 << 30,
        served: served.clone(),
    };
    let measured = guarded(FEW_MIB, move || {
        read_npy_from(head.as_slice().chain(junk.clone()))
    })
    .unwrap();
    match measured.value {
        Err(BlError::Npy { message, .. }) => assert!(message.contains("after"), "{message}"),
        other => panic!("expected an Npy error, got {other:?}"),
    }
    let read = served.load(std::sync::atomic::Ordering::Relaxed);
    assert!(read <= 1 << 16, "{read} junk bytes read");

    // the same as a file: the size is checked before the data are read
    let dir = std::env::temp_dir().join(format!("bl-core-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("junk.npy");
    let mut head = npy_dict("'<f8'", false, "(3,)");
    head.extend_from_slice(&[0; 24]);
    std::fs::write(&path, &head).unwrap();
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.set_len(head.len() as u64 + (1 << 30)).unwrap(); // sparse: no disk used
    drop(file);
    let p = path.clone();
    let measured = guarded(FEW_MIB, move || read_npy(&p)).unwrap();
    assert!(
        matches!(measured.value, Err(BlError::Npy { .. })),
        "{:?}",
        measured.value
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn npy_large_declared_data_is_not_reserved_before_it_arrives() {
    // 8 GB declared, 16 bytes present
    let mut bytes = npy_dict("'<f8'", false, "(1000000, 1000)");
    bytes.extend_from_slice(&[0; 16]);
    let message = expect_npy_error("8 GB declared", bytes);
    assert!(message.contains("bytes"), "{message}");
    // the same in Fortran order and as u1 (the f64 output is 8 times the stored size)
    let mut bytes = npy_dict("'|u1'", true, "(100000, 100000)");
    bytes.extend_from_slice(&[0; 16]);
    expect_npy_error("10 GB declared", bytes);
}

#[test]
fn npy_header_fields_are_checked() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("no dict", npy_with_header(1, "'descr'\n")),
        (
            "missing shape",
            npy_with_header(1, "{'descr': '<f8', 'fortran_order': False}\n"),
        ),
        (
            "extra key",
            npy_with_header(
                1,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}\n",
            ),
        ),
        (
            "repeated key",
            npy_with_header(
                1,
                "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}\n",
            ),
        ),
        (
            "fortran_order not a bool",
            npy_with_header(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}\n"),
        ),
        ("shape a list", npy_dict("'<f8'", false, "[1]")),
        ("shape an int", npy_dict("'<f8'", false, "1")),
        ("shape entry a string", npy_dict("'<f8'", false, "('1',)")),
        ("shape entry a bool", npy_dict("'<f8'", false, "(True,)")),
        (
            "unterminated string",
            npy_with_header(1, "{'descr': '<f8\n"),
        ),
        (
            "trailing text",
            npy_with_header(
                1,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x\n",
            ),
        ),
        ("bad version", {
            let mut b = npy_dict("'<f8'", false, "(1,)");
            b[6] = 9;
            b
        }),
        (
            "too many axes",
            npy_dict("'<f8'", false, &format!("({})", "1, ".repeat(65))),
        ),
    ];
    for (what, mut bytes) in cases {
        bytes.extend_from_slice(&[0; 8]);
        expect_npy_error(what, bytes);
    }
    // a header that is not valid UTF-8 / latin-1 text of a dict
    let mut bytes = npy_with_header(
        3,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}\n",
    );
    bytes[20] = 0xff;
    expect_npy_error("bad utf-8", bytes);
}

/// Runs the `.ts` parser under the guards.
fn ts_guarded(
    text: &'static str,
    policy: LengthPolicy,
) -> bl_core::Result<bl_core::data::MatrixDataset> {
    guarded(FEW_MIB, move || parse_ts(text, policy))
        .unwrap_or_else(|e| panic!("{policy:?}: {e}"))
        .value
}

const SMALL_TS: &str = "@classLabel true a b\n@data\n1,2,3:a\n4,5,6,7:b\n";

#[test]
fn ts_policy_lengths_are_checked_before_allocating() {
    for len in [1usize << 40, usize::MAX, usize::MAX / 2, 1 << 62, 1 << 33] {
        let r = ts_guarded(SMALL_TS, LengthPolicy::Truncate(len));
        assert!(
            matches!(r, Err(BlError::Parse { line: 3, .. })),
            "Truncate({len}): {r:?}"
        );
        let r = ts_guarded(SMALL_TS, LengthPolicy::Resample(len));
        assert!(
            matches!(r, Err(BlError::InvalidParameter { .. })),
            "Resample({len}): {r:?}"
        );
    }
    // still fine: a generous resampling length
    let ds = ts_guarded(SMALL_TS, LengthPolicy::Resample(1000)).unwrap();
    assert_eq!(ds.shape(), (1, 1000));
}

#[test]
fn ts_non_utf8_input_names_the_line() {
    let dir = std::env::temp_dir().join(format!("bl-core-hostile-ts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.ts");
    std::fs::write(&path, b"@classLabel true a b\n@data\n1,2:a\n3,\xff:b\n").unwrap();
    match bl_core::io::read_ts(&path, LengthPolicy::Error) {
        Err(BlError::Parse {
            line,
            message,
            path: p,
        }) => {
            assert_eq!((line, p.as_path()), (4, path.as_path()));
            assert!(message.contains("UTF-8"), "{message}");
        }
        other => panic!("expected a Parse error, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn csv_carriage_return_line_endings_name_the_line() {
    let options = CsvOptions::default();
    for (text, want) in [
        ("1,2\r3,4\r5,x\r", 3),
        ("1,2\r\r3,x", 3),
        ("1,2\r\n3,4\r5,6\n7,x\n", 4),
        ("1,2\r3\r", 2),
    ] {
        match read_csv_from(text.as_bytes(), &options) {
            Err(BlError::Parse { line, .. }) => assert_eq!(line, want, "{text:?}"),
            other => panic!("{text:?}: expected a Parse error, got {other:?}"),
        }
    }
}

/// The guards themselves: a call that requests more than its limit, one that panics and
/// one slower than the time limit are each reported, and a call's bytes are counted; so
/// every guarded check of this file can fail.
#[test]
fn the_guards_report_each_broken_limit() {
    let eight_mib = || std::hint::black_box(vec![1u8; 8 << 20]).len();
    let over = guarded(1 << 20, eight_mib).map(|m| m.allocated);
    assert!(
        over.as_ref().is_err_and(|e| e.contains("requested")),
        "{over:?}"
    );
    let within = guarded(16 << 20, eight_mib).unwrap();
    assert!(within.allocated >= 8 << 20, "{} bytes", within.allocated);
    let panicked = guarded(FEW_MIB, || -> usize { panic!("on purpose") }).map(|m| m.value);
    assert!(
        panicked.as_ref().is_err_and(|e| e.contains("on purpose")),
        "{panicked:?}"
    );
    let pause = guard::TIME_LIMIT + std::time::Duration::from_millis(50);
    let slow = guarded(FEW_MIB, move || std::thread::sleep(pause)).map(|m| m.elapsed);
    assert!(slow.as_ref().is_err_and(|e| e.contains("took")), "{slow:?}");
}

// ---------------------------------------------------------------------------------------
// The mutation suite

/// Cases per reader and option set: a few thousand mutated files per reader in total.
const CASES: u32 = 1500;

/// Runs `read` on `cases` mutations of `seeds` under the guards (no panic, at most
/// 100 ms, at most 64 MiB requested); the first failure is shrunk and reported.
fn mutation_suite<F>(name: &str, seeds: Vec<Vec<u8>>, cases: u32, seed: u64, read: F)
where
    F: Fn(&[u8]) -> Option<String> + Send + Sync + Clone + 'static,
{
    let seeds = std::sync::Arc::new(seeds);
    let mut runner = TestRunner::new(mutate::config(cases, seed));
    let start = std::time::Instant::now();
    let worst = std::cell::Cell::new((std::time::Duration::ZERO, 0usize));
    let result = runner.run(&mutate::mutation(seeds.len()), |(index, edits)| {
        let bytes = std::sync::Arc::new(mutate::apply(&seeds[index], &edits));
        let (b, read) = (bytes.clone(), read.clone());
        let measured = guarded(guard::ALLOC_LIMIT, move || read(&b)).map_err(|e| {
            TestCaseError::fail(format!(
                "{name}: {e} on {:?}",
                String::from_utf8_lossy(&bytes)
            ))
        })?;
        let (time, bytes) = worst.get();
        worst.set((time.max(measured.elapsed), bytes.max(measured.allocated)));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    eprintln!(
        "{name}: {cases} mutated files in {:?}; slowest call {:?}, most bytes requested {}",
        start.elapsed(),
        worst.get().0,
        worst.get().1
    );
}

/// The text of a reader's result (formatting the error exercises its message too).
fn outcome<T: std::fmt::Debug>(r: bl_core::Result<T>) -> Option<String> {
    r.err().map(|e| e.to_string())
}

fn npy_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (shape, n) in [
        (&[2usize, 3][..], 6),
        (&[4][..], 4),
        (&[][..], 1),
        (&[0, 3][..], 0),
    ] {
        let mut bytes = Vec::new();
        let data: Vec<f64> = (0..n).map(|i| i as f64 - 1.5).collect();
        write_npy_to(&mut bytes, shape, &data).unwrap();
        seeds.push(bytes);
    }
    for (descr, fortran, shape, data) in [
        ("'<u2'", true, "(2, 2)", &[0u8, 0, 2, 0, 1, 0, 3, 0][..]),
        ("'>f4'", false, "(2,)", &[63, 128, 0, 0, 64, 0, 0, 0][..]),
        ("'|b1'", false, "(3,)", &[1, 0, 1][..]),
        ("'|i1'", true, "(1, 2, 2)", &[1, 255, 3, 4][..]),
        ("'<i8'", false, "(1,)", &[255; 8][..]),
        ("[('a', '<f8'), ('b', '<i4')]", false, "(1,)", &[0; 12][..]),
    ] {
        let mut bytes = npy_dict(descr, fortran, shape);
        bytes.extend_from_slice(data);
        seeds.push(bytes);
    }
    let mut v2 = npy_with_header(
        2,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n",
    );
    v2.extend_from_slice(&2.5f64.to_le_bytes());
    seeds.push(v2);
    let mut v3 = npy_with_header(
        3,
        "{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }\n",
    );
    v3.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
    seeds.push(v3);
    seeds
}

#[test]
fn npy_mutation_suite() {
    // every seed reads (or, the structured one, fails) as expected before mutation
    let seeds = npy_seeds();
    assert!(read_npy_from(seeds[0].as_slice()).is_ok());
    mutation_suite("read_npy_from", seeds, 3 * CASES, 1, |bytes| {
        outcome(read_npy_from(bytes))
    });
}

const CSV_SEEDS: &[&str] = &[
    "1,2,3\n4,5,6\n",
    "x,y\n1.5,-2e3\n\n3,4\n",
    "# comment\n1\t2\n# more\n3\t4\n",
    "1\t2\n3\t4\n",
    "1;2\r\n3;4\r\n",
    "\"1\",\"2\"\n3,4\r5,6",
    "nan,inf\n-inf,0\n",
];

#[test]
fn csv_mutation_suite() {
    let options = [
        CsvOptions::default(),
        CsvOptions {
            has_header: true,
            comment: Some(b'#'),
            ..CsvOptions::default()
        },
        CsvOptions {
            delimiter: b'\t',
            allow_non_finite: true,
            ..CsvOptions::default()
        },
    ];
    suite_per_option(
        "read_csv_from",
        CSV_SEEDS,
        &options,
        10,
        |bytes, options| outcome(read_csv_from(bytes, options)),
    );
}

/// One mutation suite per reader option set; some seed must read under each option set
/// before mutation, so the suite starts from valid files.
fn suite_per_option<O: std::fmt::Debug + Clone + Send + Sync + 'static>(
    reader: &str,
    seeds: &[&str],
    options: &[O],
    first_seed: u64,
    read: fn(&[u8], &O) -> Option<String>,
) {
    let seeds: Vec<Vec<u8>> = seeds.iter().map(|s| s.as_bytes().to_vec()).collect();
    for (k, option) in options.iter().enumerate() {
        assert!(seeds.iter().any(|s| read(s, option).is_none()));
        let option = option.clone();
        mutation_suite(
            &format!("{reader} ({option:?})"),
            seeds.clone(),
            CASES,
            first_seed + k as u64,
            move |bytes| read(bytes, &option),
        );
    }
}

const TS_SEEDS: &[&str] = &[
    "# toy\n@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n\
     @dimensions 2\n@equalLength true\n@seriesLength 3\n@classLabel true up down flat\n\
     @data\n1,2,3:4,5,6:up\n3,2,1:6,5,4:down\n0.5,0.5,0.5:1e1,-2,3.25:up\n",
    "@problemName Var\n@univariate false\n@dimensions 2\n@equalLength false\n\
     @classLabel true a b\n@data\n0,1,2,3,4:10,11,12,13,14:a\n0,2,4:5,5,5:b\n",
    "@problemName x\r\n@classLabel true\r\n@data\r\n1,2:b\r\n\r\n3,4:a\r\n",
    "@univariate true\n@classLabel true 1 2\n@data\n1.0,2.0,3.0,4.0:1\n4,3,2,1:2\n",
];

#[test]
fn ts_mutation_suite() {
    let policies = [
        LengthPolicy::Error,
        LengthPolicy::Truncate(3),
        LengthPolicy::Resample(50),
    ];
    suite_per_option("parse_ts", TS_SEEDS, &policies, 20, |bytes, policy| {
        outcome(parse_ts(&String::from_utf8_lossy(bytes), *policy))
    });
}
