//! `.ts` reader: the first byte picks the length policy, the rest is the file (read
//! through a temporary file half of the time, so the UTF-8 check of `read_ts` is fuzzed
//! too).
#![no_main]

use bl_core::io::{LengthPolicy, parse_ts, read_ts};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, text)) = data.split_first() else {
        return;
    };
    let len = usize::from(flags >> 3);
    let policy = match flags & 3 {
        0 => LengthPolicy::Error,
        1 => LengthPolicy::Truncate(len),
        2 => LengthPolicy::Resample(len),
        _ => LengthPolicy::Resample(usize::MAX - len),
    };
    let result = if flags & 4 != 0 {
        let path = std::env::temp_dir().join(format!("bilinear-fuzz-ts-{}", std::process::id()));
        if std::fs::write(&path, text).is_err() {
            return;
        }
        read_ts(&path, policy)
    } else {
        parse_ts(&String::from_utf8_lossy(text), policy)
    };
    if let Ok(ds) = result {
        let (s, t) = ds.shape();
        assert_eq!(ds.as_slice().len(), s * t * ds.n_samples());
        assert!(ds.labels().iter().all(|&l| l < ds.n_classes()));
    }
});
