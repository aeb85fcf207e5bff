//! `convert`'s options checked against `--to` before anything is read: an
//! option that does nothing with the chosen format is refused (exit 2), as
//! `filter` refuses `--openings` where nothing names openings, rather than
//! left to do nothing silently.

use clap::ValueEnum;
use pgnkit::output::games::{Column, Fact};

use super::{ConvertArgs, ConvertFormat};

/// The formats each option acts on, beside whether it was given.
fn options(args: &ConvertArgs) -> [(&'static str, bool, &'static [ConvertFormat]); 8] {
    use ConvertFormat::{Csv, Epd, Pgn};
    [
        ("--no-comments", args.no_comments, &[Pgn]),
        ("--no-variations", args.no_variations, &[Pgn]),
        ("--no-nags", args.no_nags, &[Pgn]),
        ("--no-clock", args.no_clock, &[Pgn]),
        ("--keep-tags", args.keep_tags.is_some(), &[Pgn]),
        ("--epd-tags", args.epd_tags, &[Epd]),
        ("--columns", args.columns.is_some(), &[Csv]),
        // It writes the White and Black columns as the names.
        ("--aliases", args.aliases.is_some(), &[Csv]),
    ]
}

/// `--to csv`'s name, as the command line spells it.
fn name(format: ConvertFormat) -> String {
    format.to_possible_value().map_or_else(String::new, |value| value.get_name().to_owned())
}

impl ConvertArgs {
    /// Refuses an option that does nothing with `--to`, naming both.
    ///
    /// # Errors
    ///
    /// The first such option, with the formats it is for.
    pub fn refuse_idle_options(&self) -> anyhow::Result<()> {
        let to = name(self.to);
        for (option, given, formats) in options(self) {
            if given && !formats.contains(&self.to) {
                let for_formats: Vec<String> = formats.iter().map(|&f| format!("--to {}", name(f))).collect();
                anyhow::bail!("{option} does nothing with --to {to}: it is for {}", for_formats.join(", "));
            }
        }
        if self.openings.is_none() {
            return Ok(());
        }
        let opening_columns = [Column::Fact(Fact::OpeningEco), Column::Fact(Fact::OpeningName)];
        match self.to {
            // `tags` with PGN says outright what no --openings does (its
            // help says so): a script may pass one value to every format.
            ConvertFormat::Pgn => Ok(()),
            ConvertFormat::Csv
                if self.columns.as_ref().is_some_and(|columns| columns.iter().any(|c| opening_columns.contains(c))) =>
            {
                Ok(())
            }
            ConvertFormat::Csv => anyhow::bail!(
                "--openings does nothing with --to csv unless --columns has opening_eco or opening_name, which \
                 it fills"
            ),
            _ => anyhow::bail!("--openings does nothing with --to {to}: it is for --to pgn and --to csv"),
        }
    }
}
