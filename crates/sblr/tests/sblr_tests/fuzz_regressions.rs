//! Every saved-model input that once crashed the `models` fuzz target
//! (`fuzz/regressions/models/`) is replayed here, so `cargo test` keeps it fixed without a
//! fuzzing toolchain. The first byte picks the model type, as in `fuzz/fuzz_targets/models.rs`.

use std::path::Path;

use sblr::{FittedLogisticRegression, FittedMultinomialSblr, FittedSblr};

#[test]
fn every_fuzz_regression_is_rejected_on_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/models");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/models exists") {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let Some((&which, json)) = bytes.split_first() else {
            continue;
        };
        // Each of these crashed in `predict` after loading: now the load itself fails.
        let loaded = match which % 4 {
            0 => serde_json::from_slice::<FittedSblr>(json).is_ok(),
            1 => serde_json::from_slice::<FittedMultinomialSblr>(json).is_ok(),
            2 => serde_json::from_slice::<FittedLogisticRegression>(json).is_ok(),
            _ => continue,
        };
        assert!(!loaded, "{} loads again", path.display());
        replayed += 1;
    }
    assert!(
        replayed >= 1,
        "no regression input found in {}",
        dir.display()
    );
}
