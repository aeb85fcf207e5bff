//! The formats CI systems read (`--format github`, `sarif`, `junit`,
//! `gitlab`), for `validate` and `fen check` alike.
//!
//! Both commands turn a game or a record into an [`Item`]: a name, a
//! verdict and its findings, each with its [`Fingerprint`]. A [`CiWriter`]
//! formats one item on a worker thread, as every findings writer does; the
//! output thread then places the bytes in their document with a
//! [`Document`], which knows what must be known across items (the commas
//! of a JSON array, the testsuite of each file and its counts).

mod document;
mod github;
mod gitlab;
mod item;
mod junit;
mod sarif;

pub use self::{
    document::Document,
    github::{GithubWriter, escape_data, escape_property},
    gitlab::GitlabWriter,
    item::{CiWriter, Finding, Fingerprint, Item, Layout, Rule, Verdict, fen_rules, game_rules},
    junit::JunitWriter,
    sarif::{SarifWriter, uri},
};
