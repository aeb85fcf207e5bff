//! libFuzzer target: game framing (`pgnkit::fuzzing::split`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::split(data));
