//! libFuzzer target: the whole check of every game (`pgnkit::fuzzing::validate`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::validate(data));
