//! libFuzzer target: game framing (`pgnkit::fuzzing::frame`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::frame(data));
