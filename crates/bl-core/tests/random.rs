//! Seeded generators: determinism and the synthetic two-class recipe.

use bl_core::BlError;
use bl_core::random::{random_unit_vector, seeded_rng, standard_normal_mat, synthetic_two_class};

#[test]
fn same_seed_same_draws() {
    let a = standard_normal_mat(&mut seeded_rng(5), 4, 3);
    let b = standard_normal_mat(&mut seeded_rng(5), 4, 3);
    let c = standard_normal_mat(&mut seeded_rng(6), 4, 3);
    assert_eq!(a, b);
    assert_ne!(a, c);
    let u = random_unit_vector(&mut seeded_rng(1), 10);
    assert!((u.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-14);
}

#[test]
fn synthetic_two_class_has_shifted_class_means() {
    let n = 400;
    let data = synthetic_two_class(n, 5, 6, 1.0, 3).unwrap();
    assert_eq!(data.shape(), (5, 6));
    assert_eq!(data.class_counts(), vec![n / 2, n / 2]);
    let y = data.signs().unwrap();
    for (i, &yi) in y.iter().enumerate() {
        assert_eq!(yi, if i < n / 2 { -1.0 } else { 1.0 });
    }
    // Mean of each class is +-1 up to sampling error: sd = 1 / sqrt(200 * 30).
    let per = 30;
    for (class, expected) in [(0usize, -1.0), (1, 1.0)] {
        let values: Vec<f64> = data
            .as_slice()
            .chunks(per)
            .zip(data.labels())
            .filter(|(_, l)| **l == class)
            .flat_map(|(c, _)| c.iter().copied())
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((mean - expected).abs() < 5.0 / (values.len() as f64).sqrt());
    }
    assert_eq!(
        synthetic_two_class(n, 5, 6, 1.0, 3).unwrap().as_slice(),
        data.as_slice()
    );
    assert!(matches!(
        synthetic_two_class(1, 5, 6, 1.0, 3),
        Err(BlError::InvalidParameter { name: "n", .. })
    ));
    assert!(synthetic_two_class(4, 0, 6, 1.0, 3).is_err());
    assert!(synthetic_two_class(4, 2, 6, f64::NAN, 3).is_err());
}
