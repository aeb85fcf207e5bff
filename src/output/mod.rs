//! Writers, one file per format: the findings of `validate` and `fen check`
//! ([`findings`]), and the games of `convert`, `filter`, `dedup` and `split`
//! ([`games`]); and the files every command writes, made safely ([`file`](mod@file));
//! the cells of every CSV, safe to open in a spreadsheet ([`csv_cells`]).

pub mod csv_cells;
pub mod file;
pub mod findings;
pub mod games;
pub(crate) mod json;
pub mod spool;
