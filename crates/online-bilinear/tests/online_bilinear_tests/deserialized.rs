//! The public types that derive `Deserialize` check their fields as they are read: a value
//! corrupted by hand (one fault per invariant their methods rely on) is refused by the
//! deserializer with a message naming the field, and a valid value writes back to the
//! same bytes.

use online_bilinear::distributed::FeatureCounts;
use online_bilinear::sparse::SparseWeights;
use online_bilinear::{Fit as _, ParamGuard as _, TaggerParams, Templates};
use serde::de::value::{Error as DeError, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer, Visitor};
use serde::{Deserialize, Deserializer, forward_to_deserialize_any};
use serde_json::{Value, json};

/// `text` is refused by the deserializer of `T` with a message holding `field` and
/// `fault`. Should it be accepted, `exercise` first runs the value's methods (where a
/// malformed value panics), then the test fails.
#[track_caller]
fn refused<T: DeserializeOwned>(text: &str, field: &str, fault: &str, exercise: fn(&T)) {
    match serde_json::from_str::<T>(text) {
        Err(err) => {
            let message = err.to_string();
            assert!(
                message.contains(field) && message.contains(fault),
                "{text}: expected `{field}` and `{fault}` in: {message}"
            );
        }
        Ok(value) => {
            exercise(&value);
            panic!("accepted a value that breaks `{field}` ({fault})");
        }
    }
}

/// `value` writes to `text`'s bytes after `text` is read.
#[track_caller]
fn round_trips<T: DeserializeOwned + serde::Serialize>(text: &str) {
    let value: T = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&value).unwrap(), text);
}

/// `text` with the JSON `edit` made.
fn edited(text: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut value: Value = serde_json::from_str(text).unwrap();
    edit(&mut value);
    serde_json::to_string(&value).unwrap()
}

// ---------------------------------------------------------------------------------------
// SparseWeights

/// Three rows of width 6: row 0 holds codes 1 and 5, row 1 none, row 2 code 0.
const SPARSE: &str = r#"{"width":6,"offsets":[0,2,2,3],"codes":[1,5,0],"values":[0.5,-1.0,2.0]}"#;

/// [`SPARSE`] with its field `key` set to `value` is refused, naming the field and `fault`.
#[track_caller]
fn sparse_refused_with(key: &str, value: Value, fault: &str) {
    let text = edited(SPARSE, |v| v[key] = value);
    refused(&text, &format!("SparseWeights.{key}"), fault, use_sparse);
}

/// Every method of `w`, on every row (what a fitted tagger's scoring reads).
fn use_sparse(w: &SparseWeights) {
    let mut sum = 0.0;
    for k in 0..w.n_rows() {
        let (codes, values) = w.row(k);
        sum += values.iter().sum::<f64>();
        sum += codes.first().map_or(0.0, |&c| w.get(k, c));
    }
    sum += w.to_dense().unwrap().iter().sum::<f64>();
    assert!(sum.is_finite() && w.nnz() <= w.heap_bytes());
}

#[test]
fn sparse_weights_round_trip_to_the_same_bytes() {
    round_trips::<SparseWeights>(SPARSE);
    round_trips::<SparseWeights>(r#"{"width":0,"offsets":[0],"codes":[],"values":[]}"#);
    // Those of a fitted perceptron, whose saved form holds them.
    let train = crate::common::cyclic_corpus(30, 0);
    let model = TaggerParams::sp()
        .max_iter(2)
        .zero_order(true)
        .fit(&train)
        .unwrap();
    for w in [model.sparse_weights(), model.zero_order_rows()] {
        let w = w.expect("sp keeps sparse weights");
        let text = serde_json::to_string(w).unwrap();
        round_trips::<SparseWeights>(&text);
        assert_eq!(&serde_json::from_str::<SparseWeights>(&text).unwrap(), w);
    }
}

#[test]
fn sparse_weights_with_no_offset_are_refused() {
    sparse_refused_with("offsets", json!([]), "starting at 0");
}

#[test]
fn sparse_weights_whose_offsets_start_above_zero_are_refused() {
    sparse_refused_with("offsets", json!([1, 2, 2, 3]), "starting at 0");
}

#[test]
fn sparse_weights_with_decreasing_offsets_are_refused() {
    sparse_refused_with("offsets", json!([0, 3, 2, 3]), "non-decreasing");
}

#[test]
fn sparse_weights_whose_offsets_end_past_the_cells_are_refused() {
    sparse_refused_with("offsets", json!([0, 2, 2, 4]), "ending at 3");
}

#[test]
fn sparse_weights_whose_offsets_end_before_the_cells_are_refused() {
    sparse_refused_with("offsets", json!([0, 2, 2, 2]), "ending at 3");
}

#[test]
fn sparse_weights_with_fewer_values_than_codes_are_refused() {
    sparse_refused_with("values", json!([0.5, -1.0]), "one per code");
}

#[test]
fn sparse_weights_with_codes_out_of_order_in_a_row_are_refused() {
    for codes in [json!([5, 1, 0]), json!([1, 1, 0])] {
        sparse_refused_with("codes", codes, "strictly increasing");
    }
}

#[test]
fn sparse_weights_with_a_code_beyond_the_width_are_refused() {
    sparse_refused_with("codes", json!([1, 5, 9]), "below the width 6");
}

#[test]
fn sparse_weights_wider_than_u32_codes_are_refused() {
    // Two empty rows of width 2^40: the dense form would be 2^41 values.
    let text = r#"{"width":1099511627776,"offsets":[0,0,0],"codes":[],"values":[]}"#;
    refused(
        text,
        "SparseWeights.width",
        "at most 4294967296",
        use_sparse,
    );
}

/// A struct field for [`from_fields`], which can carry what JSON cannot (NaN, infinity).
enum Field {
    Usize(usize),
    Usizes(Vec<usize>),
    U32s(Vec<u32>),
    F64s(Vec<f64>),
}

impl<'de> IntoDeserializer<'de, DeError> for Field {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for Field {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self {
            Field::Usize(n) => {
                IntoDeserializer::<DeError>::into_deserializer(n).deserialize_any(visitor)
            }
            Field::Usizes(x) => SeqDeserializer::new(x.into_iter()).deserialize_any(visitor),
            Field::U32s(x) => SeqDeserializer::new(x.into_iter()).deserialize_any(visitor),
            Field::F64s(x) => SeqDeserializer::new(x.into_iter()).deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

/// A `T` read from the named fields (a map, as a self-describing format gives it).
fn from_fields<T: for<'de> Deserialize<'de>>(
    fields: Vec<(&'static str, Field)>,
) -> Result<T, DeError> {
    T::deserialize(MapDeserializer::new(fields.into_iter()))
}

#[test]
fn sparse_weights_with_a_non_finite_value_are_refused() {
    let fields = |value: f64| {
        vec![
            ("width", Field::Usize(6)),
            ("offsets", Field::Usizes(vec![0, 2, 2, 3])),
            ("codes", Field::U32s(vec![1, 5, 0])),
            ("values", Field::F64s(vec![0.5, value, 2.0])),
        ]
    };
    let valid: SparseWeights = from_fields(fields(-1.0)).unwrap();
    assert_eq!(serde_json::to_string(&valid).unwrap(), SPARSE);
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        match from_fields::<SparseWeights>(fields(value)) {
            Err(err) => {
                let message = err.to_string();
                assert!(
                    message.contains("SparseWeights.values") && message.contains("non-finite"),
                    "{message}"
                );
            }
            Ok(w) => panic!("{value} accepted as {w:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// FeatureCounts

/// The counts of a small corpus, as JSON.
fn counts_json() -> String {
    let corpus = crate::common::cyclic_corpus(6, 0);
    let templates = Templates::word_only();
    FeatureCounts::count(&corpus, &templates)
        .unwrap()
        .to_json()
        .unwrap()
}

/// [`counts_json`] with the first entry of its list `key` written again at the list's end.
fn counts_listing_the_first_twice(key: &str) -> String {
    edited(&counts_json(), |v| {
        let list = v[key].as_array_mut().unwrap();
        let first = list[0].clone();
        list.push(first);
    })
}

/// Merges the counts with themselves and plans a fit on them (what the counts are for).
fn use_counts(counts: &FeatureCounts) {
    let merged = FeatureCounts::merge(&[counts.clone(), counts.clone()]).unwrap();
    let params = TaggerParams::sp().check().unwrap();
    let _ = online_bilinear::distributed::IpmPlan::from_counts(&params, merged, 2);
}

#[test]
fn feature_counts_round_trip_to_the_same_bytes() {
    let text = counts_json();
    round_trips::<FeatureCounts>(&text);
    assert_eq!(
        FeatureCounts::from_json(&text).unwrap().to_json().unwrap(),
        text
    );
}

#[test]
fn feature_counts_of_another_format_are_refused() {
    let text = edited(&counts_json(), |v| v["format"] = json!("other/1"));
    refused(
        &text,
        "FeatureCounts.format",
        "online-bilinear-feature-counts/1",
        use_counts,
    );
}

#[test]
fn feature_counts_listing_a_feature_twice_are_refused() {
    let text = counts_listing_the_first_twice("counts");
    refused(
        &text,
        "FeatureCounts.counts",
        "each feature once",
        use_counts,
    );
}

#[test]
fn feature_counts_listing_a_tag_twice_are_refused() {
    let text = counts_listing_the_first_twice("tags");
    refused(&text, "FeatureCounts.tags", "each tag once", use_counts);
}

/// Token counts that overflow when summed are a saturated sum, not a panic.
#[test]
fn merged_feature_counts_of_huge_token_counts_do_not_overflow() {
    let text = edited(&counts_json(), |v| v["n_tokens"] = json!(usize::MAX));
    let counts = FeatureCounts::from_json(&text).unwrap();
    let merged = FeatureCounts::merge(&[counts.clone(), counts]).unwrap();
    assert!(merged.n_features() > 0);
}

/// Two empty rows of width `2^32` are valid weights (codes are `u32`), but their dense form
/// has `2^33` values: `to_dense` refuses it before allocating (it aborted on the 64 GiB).
#[test]
fn the_dense_form_of_wide_sparse_weights_is_refused_before_allocating() {
    let text = r#"{"width":4294967296,"offsets":[0,0,0],"codes":[],"values":[]}"#;
    let w: SparseWeights = serde_json::from_str(text).unwrap();
    let err = w.to_dense().unwrap_err();
    assert!(crate::common::is_invalid_parameter(&Err::<(), _>(err)));
}
