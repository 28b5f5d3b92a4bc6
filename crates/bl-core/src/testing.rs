//! Helpers for the workspace's own tests of saved-model loaders (hidden from the
//! documentation; not part of the supported API). Always compiled rather than behind a
//! feature: a feature that only the tests turn on gave `cargo test` a second build of
//! bl-core and of every crate above it (`docs/development.md`).
//!
//! A saved model is JSON; [`mutate_json`] applies one seeded random edit to it (a number,
//! string, array length or field replaced by an awkward value), so a test can check that
//! every edited model either fails to load with an error or loads into a model whose
//! entry points return without panicking.

use rand::RngExt as _;
use serde_json::{Value, json};

use crate::random::Rng;

/// The JSON pointers of every node of `value`, the root (`""`) last.
#[must_use]
pub fn json_pointers(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{at}/{i}"), out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    // RFC 6901: `~` is written `~0` and `/` is written `~1` in a pointer.
                    let key = k.replace('~', "~0").replace('/', "~1");
                    walk(item, format!("{at}/{key}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut out = Vec::new();
    walk(value, String::new(), &mut out);
    out
}

/// One seeded random edit of `value`: a node picked uniformly among all nodes either loses
/// or repeats its last element (a non-empty array, half of the time) or is replaced by one
/// of a fixed list of awkward values (0, 1, 2, 3, -1, 0.5, 255, ±1e308, a subnormal,
/// `u64::MAX`, `usize::MAX / 2`, a string, an empty array, `null`).
pub fn mutate_json(value: &mut Value, rng: &mut Rng) {
    let all = json_pointers(value);
    let target = &all[rng.random_range(0..all.len())];
    let Some(node) = value.pointer_mut(target) else {
        return;
    };
    let awkward = [
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(-1),
        json!(0.5),
        json!(255),
        json!(1e308),
        json!(-1e308),
        json!(1e-320),
        json!(u64::MAX),
        json!(usize::MAX / 2),
        json!("x"),
        json!([]),
        json!(null),
    ];
    match node {
        Value::Array(items) if !items.is_empty() && rng.random_bool(0.5) => {
            if rng.random_bool(0.5) {
                items.pop();
            } else {
                let last = items[items.len() - 1].clone();
                items.push(last);
            }
        }
        _ => *node = awkward[rng.random_range(0..awkward.len())].clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::seeded_rng;

    #[test]
    fn pointers_name_every_node_and_edits_change_the_value() {
        let original = json!({"a": [1, 2, {"b": "c"}], "d": null});
        let pointers = json_pointers(&original);
        assert_eq!(
            pointers,
            ["/a/0", "/a/1", "/a/2/b", "/a/2", "/a", "/d", ""].map(String::from)
        );
        for p in &pointers {
            assert!(original.pointer(p).is_some(), "{p}");
        }
        let mut rng = seeded_rng(3);
        let mut changed = 0;
        for _ in 0..200 {
            let mut v = original.clone();
            mutate_json(&mut v, &mut rng);
            changed += usize::from(v != original);
        }
        // An edit can replace a node by an equal value (`null` by `null`); most change it.
        assert!(changed > 150, "{changed} of 200 edits changed the value");
    }
}
