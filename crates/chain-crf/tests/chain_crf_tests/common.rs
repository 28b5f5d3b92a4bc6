//! Helpers shared by the integration tests.

use chain_crf::{Dataset, DatasetBuilder};

/// An item: `(attribute, value)` pairs and the label.
pub type Item<'a> = (Vec<(&'a str, f64)>, &'a str);

/// A data set from items.
pub fn dataset(seqs: &[Vec<Item<'_>>]) -> Dataset {
    let mut b = DatasetBuilder::new();
    for seq in seqs {
        for (attrs, label) in seq {
            for (a, v) in attrs {
                b.attribute(a, *v).unwrap();
            }
            b.end_item(label).unwrap();
        }
        b.end_sequence().unwrap();
    }
    b.finish()
}
