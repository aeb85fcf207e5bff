//! `pgnkit fen show`: draw a position as a text board or an SVG diagram.

#![allow(clippy::print_stderr)]

use std::io::Write;

use pgnkit::{
    diagram::{self, SvgOptions, TextStyle},
    output::file::{FilesRead, OutputFile},
    output::findings::escape_controls,
};
use shakmaty::{CastlingMode, Chess, FromSetup};

use crate::{cli::FenShowArgs, exit::ExitStatus};

pub fn run(args: &FenShowArgs) -> anyhow::Result<ExitStatus> {
    let text = args.fen.join(" ");
    // A FEN that cannot be read is an error, as for every command that
    // takes one (exit 2), explained as `fen check` explains it.
    let setup = match pgnkit::notation::setup(&text) {
        Ok(setup) => setup,
        Err(_) => anyhow::bail!(pgnkit::fen_check::argument(&text).err().unwrap_or_else(|| escape_controls(&text))),
    };
    // Drawn either way: a sketch without kings is still worth a diagram.
    let mode = CastlingMode::detect(&setup);
    let status = match Chess::from_setup(setup.clone(), mode) {
        Ok(_) => ExitStatus::Success,
        Err(_) => {
            let why = pgnkit::fen_check::argument(&text).err().unwrap_or_default();
            if crate::sink::findings_shown() {
                say!("pgnkit: warning: {why}; drawn as written");
            }
            ExitStatus::Failure
        }
    };

    let drawing = match &args.svg {
        Some(_) => {
            let opts = SvgOptions {
                flip: args.flip,
                arrows: args.arrows.clone(),
                highlight: args.highlight.clone(),
                last_move: args.last_move,
            };
            diagram::svg(&setup, &opts)
        }
        None => diagram::text(&setup, TextStyle { flip: args.flip, ascii: args.ascii }),
    };
    match &args.svg {
        Some(path) if path.as_os_str() != "-" => {
            let mut file = OutputFile::create(path, &FilesRead::none())?;
            file.write_all(drawing.as_bytes())?;
            file.commit()?;
        }
        _ => {
            let mut out = crate::stdout::stdout();
            out.write_all(drawing.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(status)
}
