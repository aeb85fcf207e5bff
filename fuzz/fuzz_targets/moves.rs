//! libFuzzer target: lines of moves in any notation (`pgnkit::fuzzing::moves`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::moves(data));
