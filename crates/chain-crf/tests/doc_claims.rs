//! Claims of the rustdoc checked on inputs a caller can pass.

use chain_crf::{CrfError, Sequence};

/// `Sequence::push_item` refuses a non-finite value and leaves the sequence as it was: the
/// attributes of the refused item before the bad value do not leak into the next item.
#[test]
fn a_refused_item_leaves_the_sequence_unchanged() {
    let mut seq = Sequence::new();
    seq.push_item([(7, 1.0)]).unwrap();
    let before = seq.clone();
    let err = seq.push_item([(0, 1.0), (1, f64::NAN)]).unwrap_err();
    assert!(matches!(err, CrfError::Input { position: 1, .. }), "{err}");
    assert_eq!(seq, before);
    seq.push_item([(2, 3.0)]).unwrap();
    let items = seq.items();
    assert_eq!(items.len(), 2);
    assert_eq!(items.n_attributes(), 2);
    assert_eq!(items.item(1), (&[2][..], &[3.0][..]));
}
