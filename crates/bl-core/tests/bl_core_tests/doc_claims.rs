//! Checks of statements the rustdoc of `bl-core` makes: out-of-range indices and huge sizes
//! give `None` or a typed error, never a panic.

use bl_core::BlError;
use bl_core::data::MatrixDataset;
use bl_core::io::{CsvOptions, read_csv_from};
use bl_core::metrics::confusion_matrix;

/// `MatrixDataset::get_sample`: "`None` when `i` is out of range", for every `i` (an index
/// whose end offset overflows included).
#[test]
fn get_sample_is_none_for_every_out_of_range_index() {
    let ds = MatrixDataset::new(
        2,
        3,
        (0..12).map(f64::from).collect(),
        vec![0, 1],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    for i in [
        2,
        3,
        usize::MAX / 6,
        usize::MAX / 6 + 1,
        usize::MAX / 2,
        usize::MAX,
    ] {
        assert!(ds.get_sample(i).is_none(), "sample {i}");
    }
    assert_eq!(ds.get_sample(1).unwrap()[(1, 2)], 11.0);
}

/// `NumericTable::row`: "`None` when out of range", for every index.
#[test]
fn table_row_is_none_for_every_out_of_range_index() {
    let table = read_csv_from(&b"1,2,3\n4,5,6\n"[..], &CsvOptions::default()).unwrap();
    for i in [2, usize::MAX / 3, usize::MAX / 3 + 1, usize::MAX] {
        assert!(table.row(i).is_none(), "row {i}");
    }
    assert_eq!(table.row(1).unwrap(), [4.0, 5.0, 6.0]);
    let column = read_csv_from(&b"1\n2\n"[..], &CsvOptions::default()).unwrap();
    assert!(column.row(usize::MAX).is_none());
}

/// `metrics`: "none panics on user input"; `bl_core::limits`: sizes from a caller are
/// checked before anything is allocated from them.
#[test]
fn confusion_matrix_refuses_a_class_count_too_large_to_allocate() {
    for n_classes in [usize::MAX, 1 << 32, (1 << 16) + 1] {
        let err = confusion_matrix(&[0], &[0], n_classes).unwrap_err();
        assert!(
            matches!(
                err,
                BlError::InvalidParameter {
                    name: "n_classes",
                    ..
                }
            ),
            "{err}"
        );
    }
    let cm = confusion_matrix(&[0, 1, 1], &[0, 1, 0], 3).unwrap();
    assert_eq!((cm.n_classes(), cm.get(1, 0), cm.total()), (3, 1, 3));
}

/// `testing::json_pointers`: "the JSON pointers of every node", also of keys holding `/`
/// or `~` (escaped as RFC 6901 says), so every pointer finds its node.
#[test]
fn json_pointers_escape_slashes_and_tildes() {
    let value = serde_json::json!({"a/b": [1, {"c~d": 2}], "e": 3});
    let pointers = bl_core::testing::json_pointers(&value);
    assert!(
        pointers.contains(&"/a~1b/1/c~0d".to_string()),
        "{pointers:?}"
    );
    for p in &pointers {
        assert!(value.pointer(p).is_some(), "{p}");
    }
    assert_eq!(value.pointer("/a~1b/1/c~0d"), Some(&serde_json::json!(2)));
}
