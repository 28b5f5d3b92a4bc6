//! Public constructors and entry points called directly, outside a fit, with values the
//! parameters' check would refuse: each refuses them with a typed error.

use online_bilinear::learner::{Learner, LearnerShape};
use online_bilinear::settings::MAX_POWER_STEPS;
use online_bilinear::{
    Bcd, Bol, BuiltIn, Fit as _, LearnerSettings, OblError, Sp, TaggerParams, synthetic,
};

fn is_invalid<T>(result: &online_bilinear::Result<T>, name: &str) -> bool {
    matches!(result, Err(OblError::Core(bl_core::BlError::InvalidParameter { name: n, .. })) if *n == name)
}

/// Settings out of range, each with the name of the setting refused.
fn bad_settings() -> Vec<(&'static str, LearnerSettings)> {
    let with = |edit: fn(&mut LearnerSettings)| {
        let mut s = LearnerSettings::default();
        edit(&mut s);
        s
    };
    vec![
        ("c", with(|s| s.c = f64::NAN)),
        ("c", with(|s| s.c = f64::INFINITY)),
        ("c", with(|s| s.c = -1.0)),
        ("c", with(|s| s.c = 0.0)),
        ("power_steps", with(|s| s.power_steps = 0)),
        ("power_steps", with(|s| s.power_steps = usize::MAX)),
        ("power_steps", with(|s| s.power_steps = MAX_POWER_STEPS + 1)),
        ("transitions_only", with(|s| s.transitions_only = true)),
    ]
}

// Before the fix every constructor returned `Ok` for these settings (a NaN step, or
// `usize::MAX` power steps per mistake).
#[test]
fn learner_constructors_check_their_settings() {
    for (name, settings) in bad_settings() {
        let case = format!("{name} in {settings:?}");
        assert!(
            is_invalid(&Bol::new(3, 2, &settings), name),
            "Bol::new, {case}"
        );
        assert!(
            is_invalid(&Bcd::new(3, 2, &settings), name),
            "Bcd::new, {case}"
        );
        assert!(
            is_invalid(&Sp::new(3, 2, &settings, Some(0)), name),
            "Sp::new, {case}"
        );
    }
    let good = LearnerSettings {
        power_steps: MAX_POWER_STEPS,
        ..LearnerSettings::default()
    };
    assert!(Bol::new(3, 2, &good).is_ok());
}

// Before the fix `start` returned `Ok` for every one of these (the CRF learners without
// even building a state).
#[test]
fn built_in_start_checks_its_settings() {
    let shape = LearnerShape {
        n_features: 3,
        n_tags: 2,
        bias_feature: Some(0),
    };
    for (name, settings) in bad_settings() {
        for learner in BuiltIn::ALL {
            assert!(
                is_invalid(&learner.start(shape, &settings), name),
                "{} with {name} in {settings:?}",
                learner.name()
            );
        }
    }
}

#[test]
fn settings_check_bounds_power_steps() {
    let settings = |power_steps| LearnerSettings {
        power_steps,
        ..LearnerSettings::default()
    };
    assert!(settings(1).check().is_ok());
    assert!(settings(MAX_POWER_STEPS).check().is_ok());
    assert!(is_invalid(
        &settings(MAX_POWER_STEPS + 1).check(),
        "power_steps"
    ));
    let corpus = synthetic::token_function(10, 3, 1).unwrap();
    let refused = TaggerParams::bol()
        .power_steps(usize::MAX)
        .max_iter(1)
        .fit(&corpus);
    assert!(is_invalid(&refused, "power_steps"), "{refused:?}");
}
