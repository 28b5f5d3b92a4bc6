//! Index accessors called out of range panic, as documented under `# Panics`, instead of
//! answering for another index.

use boolean_tensor::Atom;

fn atom() -> Atom {
    Atom::new(
        1,
        vec![1.0, 0.0],
        vec![0.5, 0.25, 0.125],
        vec![2.0, 3.0, 4.0, 5.0],
    )
    .unwrap()
}

#[test]
fn atom_factor_reads_the_three_modes() {
    let atom = atom();
    assert_eq!(atom.factor(1), &[1.0, 0.0]);
    assert_eq!(atom.factor(0), &[0.5, 0.25, 0.125]);
    assert_eq!(atom.factor(2), &[2.0, 3.0, 4.0, 5.0]);
}

// Before the fix `factor(3)` (any mode past 2) returned `w`, the factor of mode 2.
#[test]
#[should_panic(expected = "mode 3 out of range")]
fn atom_factor_panics_past_the_third_mode() {
    let _ = atom().factor(3);
}
