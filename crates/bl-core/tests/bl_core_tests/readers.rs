//! Integration tests of `bl_core::io`: `.npy`, CSV and `.ts` readers on files the tests
//! write themselves into a temporary directory.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use bl_core::BlError;
use bl_core::io::{
    CsvOptions, LengthPolicy, NpyArray, parse_ts, read_csv, read_csv_from, read_npy, read_npy_from,
    read_ts, write_npy, write_npy_to,
};
use npyz::{DType, Order, WriteOptions, WriterBuilder};

/// A fresh directory for one test, unique per process and test name, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("bl-core-readers-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// Writes `stored` (in the storage order of `order`) as a `.npy` with the given type string.
fn write_typed<T: npyz::Serialize + Copy>(
    path: &Path,
    type_str: &str,
    shape: &[u64],
    order: Order,
    stored: &[T],
) {
    let mut writer = WriteOptions::<T>::new()
        .dtype(DType::Plain(type_str.parse().unwrap()))
        .shape(shape)
        .order(order)
        .writer(BufWriter::new(File::create(path).unwrap()))
        .begin_nd()
        .unwrap();
    writer.extend(stored.iter().copied()).unwrap();
    writer.finish().unwrap();
}

/// A version 1.0 `.npy` header written by hand from the format description.
fn npy_header(descr: &str, fortran: bool, shape: &str) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    let unpadded = 10 + dict.len() + 1;
    let padding = (64 - unpadded % 64) % 64;
    let text = format!("{dict}{}\n", " ".repeat(padding));
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    assert_eq!(bytes.len() % 64, 0);
    bytes
}

/// 0, 1, 2, ... as `f64`.
fn iota(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

/// Column-major storage of the C-order array `0..prod(shape)`.
fn fortran_storage(shape: &[usize]) -> Vec<usize> {
    let n: usize = shape.iter().product();
    let mut out = vec![0; n];
    // C index c of multi-index m -> Fortran position f.
    for c in 0..n {
        let mut rem = c;
        let mut m = vec![0; shape.len()];
        for k in (0..shape.len()).rev() {
            m[k] = rem % shape[k];
            rem /= shape[k];
        }
        let mut f = 0;
        let mut stride = 1;
        for k in 0..shape.len() {
            f += m[k] * stride;
            stride *= shape[k];
        }
        out[f] = c;
    }
    out
}

#[test]
fn npy_f64_round_trip() {
    let dir = temp_dir("npy_f64");
    let path = dir.join("a.npy");
    let data: Vec<f64> = (0..24).map(|i| i as f64 * 0.5 - 3.0).collect();
    write_npy(&path, &[2, 3, 4], &data).unwrap();
    let back = read_npy(&path).unwrap();
    assert_eq!(back.shape, [2, 3, 4]);
    assert_eq!(back.data, data);
    assert_eq!((back.ndim(), back.len(), back.is_empty()), (3, 24, false));

    // in memory, and a scalar and an empty array
    let mut bytes = Vec::new();
    write_npy_to(&mut bytes, &[], &[7.5]).unwrap();
    let scalar = read_npy_from(bytes.as_slice()).unwrap();
    assert_eq!(
        (scalar.shape.len(), scalar.data.as_slice()),
        (0, &[7.5][..])
    );
    let mut bytes = Vec::new();
    write_npy_to(&mut bytes, &[0, 3], &[]).unwrap();
    let empty = read_npy_from(bytes.as_slice()).unwrap();
    assert_eq!(empty.shape, [0, 3]);
    assert!(empty.is_empty());
}

#[test]
fn npy_to_mat_is_row_major() {
    let array = NpyArray {
        shape: vec![2, 3],
        data: iota(6),
    };
    let m = array.to_mat().unwrap();
    assert_eq!((m.nrows(), m.ncols()), (2, 3));
    assert_eq!(m[(1, 0)], 3.0);
    assert_eq!(m[(0, 2)], 2.0);
    let three_d = NpyArray {
        shape: vec![1, 2, 3],
        data: iota(6),
    };
    assert!(matches!(
        three_d.to_mat(),
        Err(BlError::ShapeMismatch { .. })
    ));
    let inconsistent = NpyArray {
        shape: vec![2, 2],
        data: iota(3),
    };
    assert!(matches!(
        inconsistent.to_mat(),
        Err(BlError::ShapeMismatch { .. })
    ));
}

#[test]
fn npy_reads_every_numeric_dtype() {
    let dir = temp_dir("npy_dtypes");
    let shape = [2u64, 3];
    let want = iota(6);
    let p = |name: &str| dir.join(format!("{name}.npy"));
    write_typed(
        &p("f4"),
        "<f4",
        &shape,
        Order::C,
        &[0f32, 1., 2., 3., 4., 5.],
    );
    write_typed(
        &p("f4be"),
        ">f4",
        &shape,
        Order::C,
        &[0f32, 1., 2., 3., 4., 5.],
    );
    write_typed(&p("f8be"), ">f8", &shape, Order::C, &want);
    write_typed(&p("i1"), "|i1", &shape, Order::C, &[0i8, 1, 2, 3, 4, 5]);
    write_typed(&p("i2"), "<i2", &shape, Order::C, &[0i16, 1, 2, 3, 4, 5]);
    write_typed(&p("i4be"), ">i4", &shape, Order::C, &[0i32, 1, 2, 3, 4, 5]);
    write_typed(&p("i8"), "<i8", &shape, Order::C, &[0i64, 1, 2, 3, 4, 5]);
    write_typed(&p("u1"), "|u1", &shape, Order::C, &[0u8, 1, 2, 3, 4, 5]);
    write_typed(&p("u2"), "<u2", &shape, Order::C, &[0u16, 1, 2, 3, 4, 5]);
    write_typed(&p("u2be"), ">u2", &shape, Order::C, &[0u16, 1, 2, 3, 4, 5]);
    write_typed(&p("u4"), "<u4", &shape, Order::C, &[0u32, 1, 2, 3, 4, 5]);
    write_typed(&p("u8"), "<u8", &shape, Order::C, &[0u64, 1, 2, 3, 4, 5]);
    for name in [
        "f4", "f4be", "f8be", "i1", "i2", "i4be", "i8", "u1", "u2", "u2be", "u4", "u8",
    ] {
        let array = read_npy(p(name)).unwrap();
        assert_eq!(array.shape, [2, 3], "{name}");
        assert_eq!(array.data, want, "{name}");
    }
    // negative integers and the bool type
    write_typed(
        &p("neg"),
        "<i8",
        &[3],
        Order::C,
        &[-5i64, 0, i64::from(i32::MIN)],
    );
    assert_eq!(
        read_npy(p("neg")).unwrap().data,
        [-5.0, 0.0, f64::from(i32::MIN)]
    );
    write_typed(&p("b1"), "|b1", &[3], Order::C, &[true, false, true]);
    assert_eq!(read_npy(p("b1")).unwrap().data, [1.0, 0.0, 1.0]);
}

#[test]
fn npy_fortran_order_is_converted_to_c_order() {
    let dir = temp_dir("npy_fortran");
    for shape in [vec![2usize, 3], vec![2, 3, 4], vec![3, 1, 2, 2], vec![5]] {
        let stored = fortran_storage(&shape);
        let shape_u64: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let n = stored.len();

        let path = dir.join("f8.npy");
        let values: Vec<f64> = stored.iter().map(|&c| c as f64).collect();
        write_typed(&path, "<f8", &shape_u64, Order::Fortran, &values);
        let array = read_npy(&path).unwrap();
        assert_eq!(array.shape, shape);
        assert_eq!(array.data, iota(n), "shape {shape:?}");

        let path = dir.join("u1.npy");
        let values: Vec<u8> = stored.iter().map(|&c| c as u8).collect();
        write_typed(&path, "|u1", &shape_u64, Order::Fortran, &values);
        assert_eq!(read_npy(&path).unwrap().data, iota(n), "u1 shape {shape:?}");
    }
}

#[test]
fn npy_hand_written_headers() {
    // '<u2', Fortran order, shape (2, 2): stored 0, 2, 1, 3 -> C order 0, 1, 2, 3
    let mut bytes = npy_header("<u2", true, "(2, 2)");
    for v in [0u16, 2, 1, 3] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let array = read_npy_from(bytes.as_slice()).unwrap();
    assert_eq!(array.shape, [2, 2]);
    assert_eq!(array.data, iota(4));

    // big-endian f8, 1-d
    let mut bytes = npy_header(">f8", false, "(2,)");
    for v in [1.5f64, -2.0] {
        bytes.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(read_npy_from(bytes.as_slice()).unwrap().data, [1.5, -2.0]);
}

#[test]
fn npy_errors() {
    let dir = temp_dir("npy_errors");

    // missing file
    let missing = dir.join("missing.npy");
    assert!(matches!(read_npy(&missing), Err(BlError::Io { path, .. }) if path == missing));

    // not an npy file at all: the error names the path
    let garbage = dir.join("garbage.npy");
    std::fs::write(&garbage, b"this is not numpy data").unwrap();
    match read_npy(&garbage) {
        Err(BlError::Npy { path, .. }) => assert_eq!(path, garbage),
        other => panic!("expected an Npy error, got {other:?}"),
    }

    // truncated data
    let mut bytes = npy_header("<f8", false, "(3,)");
    bytes.extend_from_slice(&1.0f64.to_le_bytes());
    let truncated = dir.join("truncated.npy");
    std::fs::write(&truncated, &bytes).unwrap();
    match read_npy(&truncated) {
        Err(BlError::Npy { path, message }) => {
            assert_eq!(path, truncated);
            assert!(message.contains("24 data bytes"), "{message}");
        }
        other => panic!("expected an Npy error, got {other:?}"),
    }

    // trailing bytes after the data
    let mut bytes = npy_header("|u1", false, "(2,)");
    bytes.extend_from_slice(&[1, 2, 3]);
    assert!(matches!(
        read_npy_from(bytes.as_slice()),
        Err(BlError::Npy { .. })
    ));

    // a header claiming an enormous array is rejected without allocating for it
    let bytes = npy_header("<f8", false, "(1000000000000, 1000000)");
    assert!(matches!(
        read_npy_from(bytes.as_slice()),
        Err(BlError::Npy { .. })
    ));

    // unsupported dtypes: strings, complex, half, structured
    for descr in ["|S3", "<c16", "<f2"] {
        let mut bytes = npy_header(descr, false, "(1,)");
        bytes.extend_from_slice(&[0; 16]);
        match read_npy_from(bytes.as_slice()) {
            Err(BlError::Npy { path, message }) => {
                assert_eq!(path, Path::new("<input>"));
                assert!(message.contains("unsupported"), "{descr}: {message}");
            }
            other => panic!("{descr}: expected an Npy error, got {other:?}"),
        }
    }
    let dict = "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }";
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let text = format!("{dict}{}\n", " ".repeat((64 - (11 + dict.len()) % 64) % 64));
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(&[0; 12]);
    assert!(matches!(
        read_npy_from(bytes.as_slice()),
        Err(BlError::Npy { .. })
    ));

    // empty input
    assert!(matches!(read_npy_from(&b""[..]), Err(BlError::Npy { .. })));

    // writing: shape and data disagree; unwritable path
    assert!(matches!(
        write_npy(dir.join("bad.npy"), &[2, 2], &[1.0; 3]),
        Err(BlError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        write_npy_to(Vec::new(), &[usize::MAX, 2], &[1.0]),
        Err(BlError::ShapeMismatch { .. })
    ));
    // at most 64 axes (numpy's limit), and 64 axes round-trip
    assert!(matches!(
        write_npy_to(Vec::new(), &[1; 65], &[1.0]),
        Err(BlError::InvalidParameter { .. })
    ));
    let mut bytes = Vec::new();
    write_npy_to(&mut bytes, &[1; 64], &[2.5]).unwrap();
    assert_eq!((bytes.len() - 8) % 64, 0, "data start 64-byte aligned");
    let back = read_npy_from(bytes.as_slice()).unwrap();
    assert_eq!((back.shape, back.data), (vec![1; 64], vec![2.5]));
    let nowhere = dir.join("no-such-dir").join("x.npy");
    assert!(matches!(
        write_npy(&nowhere, &[1], &[1.0]),
        Err(BlError::Io { path, .. }) if path == nowhere
    ));
}

#[test]
fn csv_reads_numbers_with_header() {
    let dir = temp_dir("csv_header");
    let path = dir.join("t.csv");
    std::fs::write(&path, "x, y ,z\n1,2,3\n\n4.5, -6e2 ,7\n").unwrap();
    let options = CsvOptions {
        has_header: true,
        ..CsvOptions::default()
    };
    let table = read_csv(&path, &options).unwrap();
    assert_eq!((table.n_rows(), table.n_cols()), (2, 3));
    assert_eq!(table.data(), [1.0, 2.0, 3.0, 4.5, -600.0, 7.0]);
    assert_eq!(
        table.header().unwrap(),
        ["x".to_string(), "y".into(), "z".into()]
    );
    assert_eq!(table.row(1).unwrap(), [4.5, -600.0, 7.0]);
    assert!(table.row(2).is_none());
    assert_eq!(table.column(1).unwrap(), [2.0, -600.0]);
    assert!(table.column(3).is_none());
    let m = table.to_mat();
    assert_eq!(m[(1, 2)], 7.0);
}

#[test]
fn csv_from_reader_with_other_delimiters_and_comments() {
    let text = "# produced by a test\n1\t2\n# middle comment\n3\t4\n";
    let options = CsvOptions {
        delimiter: b'\t',
        comment: Some(b'#'),
        ..CsvOptions::default()
    };
    let table = read_csv_from(text.as_bytes(), &options).unwrap();
    assert_eq!((table.n_rows(), table.n_cols()), (2, 2));
    assert!(table.header().is_none());
    let (rows, cols, data, header) = table.into_parts();
    assert_eq!(
        (rows, cols, data, header),
        (2, 2, vec![1.0, 2.0, 3.0, 4.0], None)
    );
}

/// The line number and message of a parse error.
fn parse_error<T: std::fmt::Debug>(result: bl_core::Result<T>) -> (PathBuf, usize, String) {
    match result {
        Err(BlError::Parse {
            path,
            line,
            message,
        }) => (path, line, message),
        other => panic!("expected a Parse error, got {other:?}"),
    }
}

#[test]
fn csv_errors_name_line_and_field() {
    let options = CsvOptions::default();
    let (path, line, message) =
        parse_error(read_csv_from("1,2,3\n4,5,6\n7,8\n".as_bytes(), &options));
    assert_eq!((path, line), (PathBuf::from("<input>"), 3));
    assert!(message.contains("2 fields"), "{message}");

    let (_, line, message) = parse_error(read_csv_from("1,2\n\n3,abc\n".as_bytes(), &options));
    assert_eq!(line, 3);
    assert!(
        message.contains("field 2") && message.contains("abc"),
        "{message}"
    );

    let (_, line, message) = parse_error(read_csv_from("1,,3\n".as_bytes(), &options));
    assert_eq!(line, 1);
    assert!(message.contains("empty"), "{message}");

    let (_, line, message) = parse_error(read_csv_from("1,2\n3,nan\n".as_bytes(), &options));
    assert_eq!(line, 2);
    assert!(message.contains("not finite"), "{message}");
    let lenient = CsvOptions {
        allow_non_finite: true,
        ..CsvOptions::default()
    };
    let table = read_csv_from("1,inf\n3,nan\n".as_bytes(), &lenient).unwrap();
    assert!(table.data()[1].is_infinite() && table.data()[3].is_nan());

    // blank lines, comment lines, CRLF endings and a missing final newline are all
    // counted as physical lines
    let (_, line, _) = parse_error(read_csv_from("1,2\r\n\r\n3,x\r\n".as_bytes(), &options));
    assert_eq!(line, 3);
    let commented = CsvOptions {
        comment: Some(b'#'),
        ..CsvOptions::default()
    };
    let (_, line, _) = parse_error(read_csv_from("1,2\n# c\n\n3,x".as_bytes(), &commented));
    assert_eq!(line, 4);
    let (_, line, _) = parse_error(read_csv_from("\n\n\n1,2\n\n\n3\n".as_bytes(), &options));
    assert_eq!(line, 7);

    // header width disagrees with the data
    let header = CsvOptions {
        has_header: true,
        ..CsvOptions::default()
    };
    let (_, line, _) = parse_error(read_csv_from("a,b\n1,2,3\n".as_bytes(), &header));
    assert_eq!(line, 2);

    // invalid UTF-8
    let (_, line, _) = parse_error(read_csv_from(&b"1,2\n3,\xff\n"[..], &options));
    assert_eq!(line, 2);

    // no data rows
    assert!(matches!(
        read_csv_from("".as_bytes(), &options),
        Err(BlError::Empty { .. })
    ));
    assert!(matches!(
        read_csv_from("a,b\n".as_bytes(), &header),
        Err(BlError::Empty { .. })
    ));

    // errors from files name the file
    let dir = temp_dir("csv_errors");
    let path = dir.join("bad.csv");
    std::fs::write(&path, "1,2\nx,3\n").unwrap();
    let (err_path, line, _) = parse_error(read_csv(&path, &options));
    assert_eq!((err_path, line), (path, 2));
    let missing = dir.join("missing.csv");
    assert!(matches!(
        read_csv(&missing, &options),
        Err(BlError::Io { .. })
    ));
}

const TOY_TS: &str = "\
# A toy problem written for these tests.
@problemName Toy
@timeStamps false
@missing false
@univariate false
@dimensions 2
@equalLength true
@seriesLength 3
@classLabel true up down flat
@data
1,2,3:4,5,6:up
3,2,1:6,5,4:down
0.5,0.5,0.5:1e1,-2,3.25:up
";

#[test]
fn ts_reads_cases_as_dimension_by_time_matrices() {
    let ds = parse_ts(TOY_TS, LengthPolicy::Error).unwrap();
    assert_eq!(ds.n_samples(), 3);
    assert_eq!(ds.shape(), (2, 3));
    assert_eq!(ds.class_names(), ["up", "down", "flat"]); // header order
    assert_eq!(ds.labels(), [0, 1, 0]);
    let x = ds.sample(0);
    assert_eq!(
        (x[(0, 0)], x[(0, 2)], x[(1, 0)], x[(1, 2)]),
        (1.0, 3.0, 4.0, 6.0)
    );
    let x = ds.sample(2);
    assert_eq!((x[(1, 0)], x[(1, 1)], x[(1, 2)]), (10.0, -2.0, 3.25));
}

#[test]
fn ts_file_round_trip_with_crlf_and_sorted_classes() {
    let dir = temp_dir("ts_file");
    let path = dir.join("Toy_TRAIN.ts");
    let text = "@problemName x\r\n@classLabel true\r\n@data\r\n1,2:b\r\n\r\n3,4:a\r\n";
    std::fs::write(&path, text).unwrap();
    let ds = read_ts(&path, LengthPolicy::default()).unwrap();
    assert_eq!(ds.shape(), (1, 2));
    assert_eq!(ds.class_names(), ["a", "b"]); // no names in the header: sorted
    assert_eq!(ds.labels(), [1, 0]);
    assert_eq!(ds.as_slice(), [1.0, 2.0, 3.0, 4.0]);

    let missing = dir.join("missing.ts");
    assert!(matches!(
        read_ts(&missing, LengthPolicy::Error),
        Err(BlError::Io { .. })
    ));
    // errors from files carry the path
    std::fs::write(&path, "@classLabel true a b\n@data\n1,2:a\n1,x:b\n").unwrap();
    match read_ts(&path, LengthPolicy::Error) {
        Err(BlError::Parse { path: p, line, .. }) => assert_eq!((p, line), (path, 4)),
        other => panic!("expected a Parse error, got {other:?}"),
    }
}

const VARIABLE_TS: &str = "\
@problemName Var
@univariate false
@dimensions 2
@equalLength false
@classLabel true a b
@data
0,1,2,3,4:10,11,12,13,14:a
0,2,4:5,5,5:b
";

#[test]
fn ts_variable_length_policies() {
    let (_, line, message) = parse_error(parse_ts(VARIABLE_TS, LengthPolicy::Error));
    assert_eq!(line, 8);
    assert!(message.contains("LengthPolicy"), "{message}");

    let ds = parse_ts(VARIABLE_TS, LengthPolicy::Truncate(3)).unwrap();
    assert_eq!(ds.shape(), (2, 3));
    let x = ds.sample(0);
    assert_eq!((x[(0, 2)], x[(1, 2)]), (2.0, 12.0));

    let (_, line, message) = parse_error(parse_ts(VARIABLE_TS, LengthPolicy::Truncate(4)));
    assert_eq!(line, 8);
    assert!(message.contains("fewer than"), "{message}");

    // 5 points onto 3: positions 0, 2, 4; 3 points onto 5: positions 0, .5, 1, 1.5, 2
    let ds = parse_ts(VARIABLE_TS, LengthPolicy::Resample(5)).unwrap();
    assert_eq!(ds.shape(), (2, 5));
    let x = ds.sample(0);
    assert_eq!(
        (0..5).map(|j| x[(1, j)]).collect::<Vec<_>>(),
        [10.0, 11.0, 12.0, 13.0, 14.0]
    );
    let x = ds.sample(1);
    assert_eq!(
        (0..5).map(|j| x[(0, j)]).collect::<Vec<_>>(),
        [0.0, 1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!((0..5).map(|j| x[(1, j)]).collect::<Vec<_>>(), [5.0; 5]);
    let ds = parse_ts(VARIABLE_TS, LengthPolicy::Resample(3)).unwrap();
    let x = ds.sample(0);
    assert_eq!((x[(0, 0)], x[(0, 1)], x[(0, 2)]), (0.0, 2.0, 4.0));
    let ds = parse_ts(VARIABLE_TS, LengthPolicy::Resample(1)).unwrap();
    assert_eq!(ds.sample(0)[(0, 0)], 2.0); // the middle value

    for policy in [LengthPolicy::Truncate(0), LengthPolicy::Resample(0)] {
        assert!(matches!(
            parse_ts(VARIABLE_TS, policy),
            Err(BlError::InvalidParameter { .. })
        ));
    }
}

#[test]
fn ts_declared_series_length_is_enforced() {
    let text = "@equalLength true\n@seriesLength 3\n@classLabel true a b\n@data\n1,2:a\n3,4:b\n";
    let (_, line, message) = parse_error(parse_ts(text, LengthPolicy::Error));
    assert_eq!(line, 5);
    assert!(message.contains("@seriesLength"), "{message}");
}

#[test]
fn ts_missing_values_are_typed_errors() {
    let cases = [
        (
            "@dimensions 1\n@classLabel true up down\n@data\n4,5,6:down\n1,?,3:up\n",
            5,
            "?",
        ),
        (
            "@classLabel true up down\n@data\n4,5:1,2:down\n1,2:NaN,5:up\n",
            4,
            "NaN",
        ),
    ];
    for (text, want_line, want_token) in cases {
        match parse_ts(text, LengthPolicy::Error) {
            Err(BlError::MissingValue {
                line,
                token,
                location,
                ..
            }) => {
                assert_eq!((line, token.as_str()), (want_line, want_token));
                assert!(location.contains("value"), "{location}");
            }
            other => panic!("{want_token}: expected MissingValue, got {other:?}"),
        }
    }
}

#[test]
fn ts_malformed_input_names_the_line() {
    let head = "@classLabel true a b\n@data\n";
    let cases = [
        // (text, line, what the message mentions)
        (format!("{head}1,2,3\n"), 3, "class label"),
        (format!("{head}1,2:\n"), 3, "empty class label"),
        (format!("{head}1,2:a\n1,,2:b\n"), 4, "empty value"),
        (format!("{head}1,2:a\n1,zz:b\n"), 4, "not a number"),
        (format!("{head}1,2:a\n1,inf:b\n"), 4, "not finite"),
        (format!("{head}1,2:a\n1,2:c\n"), 4, "not declared"),
        (format!("{head}1,2:a\n1,2:3,4:b\n"), 4, "dimensions"),
        (format!("@dimensions 2\n{head}1,2:a\n"), 4, "declares 2"),
        (format!("@univariate true\n{head}1:2:a\n"), 4, "declares 1"),
        (format!("{head}1,2:a\n@seriesLength 2\n"), 4, "after @data"),
        ("1,2:a\n@data\n".to_string(), 1, "before the @data"),
        (
            "@classLabel true a b\n1,2:a\n".to_string(),
            2,
            "before the @data",
        ),
        ("@classLabel true a b\n".to_string(), 1, "no @data"),
        ("".to_string(), 1, "no @data"),
        (
            "@problemName x\n@data\n1:a\n".to_string(),
            2,
            "no class labels",
        ),
        (
            "@classLabel false\n@data\n1:a\n".to_string(),
            2,
            "no class labels",
        ),
        ("@timeStamps true\n".to_string(), 1, "not supported"),
        ("@targetLabel true\n".to_string(), 1, "not supported"),
        ("@missing maybe\n".to_string(), 1, "true` or `false"),
        ("@dimensions zero\n".to_string(), 1, "positive integer"),
        ("@seriesLength 0\n".to_string(), 1, "positive integer"),
        ("@seriesLength\n".to_string(), 1, "needs a value"),
        ("@classLabel true a a\n".to_string(), 1, "twice"),
    ];
    for (text, want_line, mention) in cases {
        let (path, line, message) = parse_error(parse_ts(&text, LengthPolicy::Error));
        assert_eq!(path, PathBuf::from("<input>"));
        assert_eq!(line, want_line, "{text:?}: {message}");
        assert!(message.contains(mention), "{text:?}: {message}");
    }
}

#[test]
fn ts_other_errors() {
    // no cases
    assert!(matches!(
        parse_ts(
            "@classLabel true a b\n@data\n# nothing\n",
            LengthPolicy::Error
        ),
        Err(BlError::Empty { .. })
    ));
    // one class only, no names declared
    assert!(matches!(
        parse_ts("@classLabel true\n@data\n1:a\n2:a\n", LengthPolicy::Error),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    // one class declared
    assert!(matches!(
        parse_ts("@classLabel true a\n@data\n1:a\n", LengthPolicy::Error),
        Err(BlError::TooFewClasses { found: 1 })
    ));
    // a declared-but-absent class is fine (e.g. a TEST file missing a class)
    let ds = parse_ts(
        "@classLabel true a b c\n@data\n1:a\n2:c\n",
        LengthPolicy::Error,
    )
    .unwrap();
    assert_eq!(ds.n_classes(), 3);
    assert_eq!(ds.class_counts(), [1, 0, 1]);
}

/// The real Indian Pines cube (`<u2`, Fortran order) read by `read_npy` and by npyz agree
/// value for value; skipped when the data cache does not hold it (failed instead under
/// `BILINEAR_REQUIRE_DATA`).
#[test]
fn npy_real_file_agrees_with_npyz() {
    // The data cache of `cargo xtask data`: `$BILINEAR_DATA_DIR`, else `data/` at the
    // workspace root. Without the file the test has nothing to read, and passes unless
    // `$BILINEAR_REQUIRE_DATA` is set (`.ci/run` sets it after fetching the data).
    let dir = std::env::var_os("BILINEAR_DATA_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data"),
            PathBuf::from,
        );
    let path = dir.join("indian-pines/Indian_pines_corrected.npy");
    if !path.exists() {
        assert!(
            std::env::var_os("BILINEAR_REQUIRE_DATA").is_none(),
            "{} is missing: cargo xtask data fetch indian-pines",
            path.display()
        );
        eprintln!("skipped: {} is missing", path.display());
        return;
    }
    let ours = read_npy(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let npy = npyz::NpyFile::new(bytes.as_slice()).unwrap();
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let fortran = npy.order() == Order::Fortran;
    let stored: Vec<f64> = npy
        .into_vec::<u16>()
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect();
    assert_eq!(ours.shape, shape);
    assert!(fortran);
    // C index of (i, j, k) against the Fortran storage position
    let [a, b, c] = [shape[0], shape[1], shape[2]];
    for i in 0..a {
        for j in 0..b {
            for k in 0..c {
                assert_eq!(ours.data[(i * b + j) * c + k], stored[i + a * (j + b * k)]);
            }
        }
    }
}
