//! `.npy` reader: any bytes give an array whose length is the product of its shape, or a
//! typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(array) = bl_core::io::read_npy_from(data) {
        let product = array
            .shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d));
        assert_eq!(product, Some(array.data.len()));
        if array.ndim() == 2 {
            let _ = array.to_mat();
        }
    }
});
