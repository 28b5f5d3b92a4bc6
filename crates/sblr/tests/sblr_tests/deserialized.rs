//! The public types of the crate that derive `Deserialize` and read an index from their
//! fields check it as they are read: a value corrupted by hand is refused with a message
//! naming the field, and a valid value writes back to the same bytes. (The fitted models
//! have their own checked raw forms, see `saved_models`; the other types are plain data.)

use sblr::GridSearchResult;

/// Two candidates (ranks 1 and 2), the second best.
const GRID: &str = r#"{"candidates":[[1,{"per_fold":[0.5,0.75],"mean":0.625,"failures":[]}],[2,{"per_fold":[0.75,1.0],"mean":0.875,"failures":[]}]],"best":1}"#;

#[test]
fn a_grid_search_result_round_trips_to_the_same_bytes() {
    let grid: GridSearchResult<usize> = serde_json::from_str(GRID).unwrap();
    assert_eq!(serde_json::to_string(&grid).unwrap(), GRID);
    assert_eq!(*grid.best().0, 2);
}

#[test]
fn a_grid_search_result_whose_best_is_past_the_candidates_is_refused() {
    for (best, candidates) in [
        (2, GRID.to_string()),
        (0, r#"{"candidates":[],"best":0}"#.into()),
    ] {
        let text = candidates.replace(r#""best":1"#, &format!(r#""best":{best}"#));
        match serde_json::from_str::<GridSearchResult<usize>>(&text) {
            Err(err) => {
                let message = err.to_string();
                assert!(
                    message.contains("GridSearchResult.best") && message.contains("an index of"),
                    "{message}"
                );
            }
            Ok(grid) => {
                // Before the check, `best()` indexed past the candidates here.
                let _ = grid.best();
                panic!("accepted best = {best}");
            }
        }
    }
}
