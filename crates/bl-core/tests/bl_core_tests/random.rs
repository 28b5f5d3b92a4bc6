//! Seeded generators: determinism.

use bl_core::random::{random_unit_vector, seeded_rng, standard_normal_mat};

#[test]
fn same_seed_same_draws() {
    let a = standard_normal_mat(&mut seeded_rng(5), 4, 3).unwrap();
    let b = standard_normal_mat(&mut seeded_rng(5), 4, 3).unwrap();
    let c = standard_normal_mat(&mut seeded_rng(6), 4, 3).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    let u = random_unit_vector(&mut seeded_rng(1), 10).unwrap();
    assert!((u.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-14);
}

// Before the fix both returned their draws unchecked: `random_unit_vector(.., usize::MAX)`
// panicked (capacity overflow) and `standard_normal_mat` of `2^40 x 2^40` panicked inside
// faer; a size below the overflow but above memory aborted the process.
#[test]
fn huge_sizes_are_typed_errors_before_any_draw() {
    let refused = |case: &str, result: bl_core::Result<()>| {
        assert!(
            matches!(result, Err(bl_core::BlError::InvalidParameter { .. })),
            "{case}: {result:?}"
        );
    };
    for n in [usize::MAX, 1 << 40, bl_core::limits::MAX_ELEMENTS + 1] {
        refused(
            "random_unit_vector",
            random_unit_vector(&mut seeded_rng(1), n).map(drop),
        );
    }
    for (rows, cols) in [(1 << 40, 1 << 40), (usize::MAX, 2), (1 << 20, 1 << 13)] {
        refused(
            "standard_normal_mat",
            standard_normal_mat(&mut seeded_rng(1), rows, cols).map(drop),
        );
    }
    // The refusal draws nothing: the generator continues where it was.
    let mut rng = seeded_rng(7);
    assert!(random_unit_vector(&mut rng, usize::MAX).is_err());
    assert!(standard_normal_mat(&mut rng, usize::MAX, 2).is_err());
    assert_eq!(
        standard_normal_mat(&mut rng, 2, 2).unwrap(),
        standard_normal_mat(&mut seeded_rng(7), 2, 2).unwrap()
    );
    assert!(random_unit_vector(&mut rng, 0).unwrap().is_empty());
}
