//! libFuzzer target: games read, written as PGN and read again (`pgnkit::fuzzing::roundtrip`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pgnkit::fuzzing::roundtrip(data));
