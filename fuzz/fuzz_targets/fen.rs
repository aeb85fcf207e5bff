//! libFuzzer target: FEN and EPD records (`pgnkit::fuzzing::fen`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::fen(data));
