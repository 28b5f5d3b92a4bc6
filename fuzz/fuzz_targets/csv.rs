//! CSV reader: the first byte picks the options, the rest is the file. Any input gives a
//! rectangular table or a typed error.
#![no_main]

use bl_core::io::{CsvOptions, read_csv_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let options = CsvOptions {
        delimiter: [b',', b'\t', b';', b' '][usize::from(flags & 3)],
        has_header: flags & 4 != 0,
        comment: (flags & 8 != 0).then_some(b'#'),
        allow_non_finite: flags & 16 != 0,
    };
    match read_csv_from(text, &options) {
        Ok(table) => {
            assert_eq!(table.n_rows() * table.n_cols(), table.data().len());
            let _ = table.to_mat();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
