//! Writers, one file per format: the findings of `validate` and `fen check`
//! ([`findings`]), and the games of `convert`, `filter`, `dedup` and `split`
//! ([`games`]).

pub mod findings;
pub mod games;
