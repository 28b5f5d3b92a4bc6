//! Helpers shared by the probe and check examples (each example compiles this module and
//! uses only some of them).
#![allow(dead_code)]

use bl_core::data::MatrixDataset;
use sblr::synthetic::two_class;

/// Table 1's synthetic data (Shi, Xu, Baraniuk 2014, Sec. 7.2: `n = 100` samples of
/// `s = t = size`, `X_i = randn(s, t) ± 1`) drawn with `seed`, stored as `f64` and as
/// `f32`.
pub fn table1(
    size: usize,
    seed: u64,
) -> Result<(MatrixDataset, MatrixDataset<f32>), Box<dyn std::error::Error>> {
    let wide = two_class(100, size, size, 1.0, seed)?;
    let narrow = wide.to_f32()?;
    Ok((wide, narrow))
}

/// The sizes given on the command line, or `default` when none is.
pub fn sizes(default: &[usize]) -> Result<Vec<usize>, Box<dyn std::error::Error>> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    Ok(if sizes.is_empty() {
        default.to_vec()
    } else {
        sizes
    })
}

/// Prints the header of a markdown table with these columns.
pub fn table_header(columns: &[&str]) {
    println!("| {} |", columns.join(" | "));
    println!("|{}", "---|".repeat(columns.len()));
}
