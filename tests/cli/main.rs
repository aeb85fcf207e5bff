//! Integration tests: run the built `pgnkit` binary on the fixtures in
//! `testdata/` and on the shared corpus, and check the README's examples.

mod adversarial;
mod book;
mod ci_formats;
mod convert;
mod corpus;
mod dedup;
mod ergonomics;
mod fen_check;
mod fen_show;
mod filter;
mod fix;
mod help;
mod inputs;
mod layout;
mod man;
mod moves;
mod openings;
mod output_files;
mod perft;
mod pipes;
mod ratings;
mod readme;
mod scale;
mod shard;
mod split;
mod startup;
mod stats;
mod stats_svg;
mod support;
mod terminal;
mod validate;
mod validate_rules;
mod vocabulary;
