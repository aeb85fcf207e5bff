//! The command line parsed with only the subcommand it names built: the
//! whole tree (every subcommand with all its options and help) costs more
//! than a one-game run, and a script may call pgnkit once per game.

use std::ffi::OsString;

use clap::{Args, CommandFactory, FromArgMatches};

use super::{
    BookArgs, Cli, Command, ConvertArgs, DedupArgs, FenArgs, FilterArgs, FixArgs, GlobalArgs, MovesArgs, PerftArgs,
    RatingsArgs, SplitArgs, StatsArgs, ValidateArgs,
};

/// Parses `args` as clap would with the whole tree: a command line that
/// names a subcommand and parses is parsed with that subcommand alone;
/// anything else (help, `--version`, an error, a suggestion, `help X`,
/// `man`, `completions`) is parsed again with the whole tree, so that what
/// clap prints, and exits with, is what it always was.
pub fn parse(args: Vec<OsString>, color: clap::ColorChoice) -> Cli {
    if let Some(cli) = parse_single(&args, color) {
        return cli;
    }
    let matches = Cli::command().color(color).get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// The command line parsed with a tree of the root and the subcommand it
/// names; None when it names none this tree can be built for, or does not
/// parse. The root has the same options as the whole tree's, so the same
/// words before the subcommand are its options; its only subcommand is the
/// whole tree's, so what follows parses as it would there.
fn parse_single(args: &[OsString], color: clap::ColorChoice) -> Option<Cli> {
    let root = root();
    let name = named(&root, args)?;
    if args.get(1).is_some_and(|first| first == name) {
        return parse_flat(name, args, color);
    }
    let (subcommand, _) = subcommand(name)?;
    let mut matches = root.subcommand(subcommand).color(color).try_get_matches_from(args).ok()?;
    // `_mut`: the values are taken out of the matches, not copied.
    Cli::from_arg_matches_mut(&mut matches).ok()
}

/// A command line whose first word is the subcommand, parsed with one
/// command holding the shared options beside the subcommand's own: every
/// shared option then comes after the subcommand, where the whole tree
/// would also have matched it, and clap has no values to hand between
/// levels (a third of a one-shot `pgnkit moves` went to that).
fn parse_flat(name: &str, args: &[OsString], color: clap::ColorChoice) -> Option<Cli> {
    let (subcommand, command) = subcommand(name)?;
    let flat = GlobalArgs::augment_args(subcommand).version(super::VERSION).color(color);
    let words = std::iter::once(&args[0]).chain(&args[2..]);
    let mut matches = flat.try_get_matches_from(words).ok()?;
    let global = GlobalArgs::from_arg_matches_mut(&mut matches).ok()?;
    Some(Cli { command: command(&mut matches).ok()?, global })
}

/// The root of the whole tree, without its subcommands: the options every
/// command shares, `--version` handed down to the subcommands.
fn root() -> clap::Command {
    let root = clap::Command::new("pgnkit")
        .version(super::VERSION)
        .propagate_version(true)
        .subcommand_required(true)
        .arg_required_else_help(true);
    GlobalArgs::augment_args(root)
}

/// The subcommand the command line names: its first word that is neither
/// an option of the root nor the value of one. None when there is none, or
/// `--` comes first.
fn named<'a>(root: &clap::Command, args: &'a [OsString]) -> Option<&'a str> {
    let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        if word == "--" {
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            // `--color=never` carries its value; `--color never` does not.
            if !long.contains('=') && root.get_arguments().any(|arg| arg.get_long() == Some(long) && takes_value(arg)) {
                words.next();
            }
        } else if let Some(shorts) = word.strip_prefix('-').filter(|shorts| !shorts.is_empty()) {
            // `-qj4` carries the value of -j; `-qj` takes the next word.
            let value_taker = shorts
                .char_indices()
                .find(|&(_, short)| root.get_arguments().any(|arg| arg.get_short() == Some(short) && takes_value(arg)));
            if value_taker.is_some_and(|(at, short)| at + short.len_utf8() == shorts.len()) {
                words.next();
            }
        } else {
            return Some(word);
        }
    }
    None
}

/// How a subcommand's matches become the [`Command`] it names.
type Build = fn(&mut clap::ArgMatches) -> Result<Command, clap::Error>;

/// The subcommand `name` as the whole tree has it, but for its help text
/// (about, long about, examples), which only the whole tree prints, and
/// how its matches become a [`Command`]. None for `completions` and `man`,
/// which build the whole tree anyway, and for a name that is no
/// subcommand.
fn subcommand(name: &str) -> Option<(clap::Command, Build)> {
    fn of<A: Args>(name: &'static str, build: Build) -> Option<(clap::Command, Build)> {
        Some((A::augment_args(clap::Command::new(name)), build))
    }
    match name {
        "validate" => {
            of::<ValidateArgs>("validate", |m| Ok(Command::Validate(FromArgMatches::from_arg_matches_mut(m)?)))
        }
        "stats" => of::<StatsArgs>("stats", |m| Ok(Command::Stats(FromArgMatches::from_arg_matches_mut(m)?))),
        "convert" => of::<ConvertArgs>("convert", |m| Ok(Command::Convert(FromArgMatches::from_arg_matches_mut(m)?))),
        "fix" => of::<FixArgs>("fix", |m| Ok(Command::Fix(FromArgMatches::from_arg_matches_mut(m)?))),
        "filter" => {
            of::<FilterArgs>("filter", |m| Ok(Command::Filter(Box::new(FromArgMatches::from_arg_matches_mut(m)?))))
        }
        "fen" => of::<FenArgs>("fen", |m| Ok(Command::Fen(FromArgMatches::from_arg_matches_mut(m)?))),
        "moves" => of::<MovesArgs>("moves", |m| Ok(Command::Moves(FromArgMatches::from_arg_matches_mut(m)?))),
        "perft" => of::<PerftArgs>("perft", |m| Ok(Command::Perft(FromArgMatches::from_arg_matches_mut(m)?))),
        "split" => of::<SplitArgs>("split", |m| Ok(Command::Split(FromArgMatches::from_arg_matches_mut(m)?))),
        "dedup" => of::<DedupArgs>("dedup", |m| Ok(Command::Dedup(FromArgMatches::from_arg_matches_mut(m)?))),
        "ratings" => {
            of::<RatingsArgs>("ratings", |m| Ok(Command::Ratings(Box::new(FromArgMatches::from_arg_matches_mut(m)?))))
        }
        "book" => of::<BookArgs>("book", |m| Ok(Command::Book(Box::new(FromArgMatches::from_arg_matches_mut(m)?)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use clap::CommandFactory;

    use super::{named, parse_single, root, subcommand};
    use crate::cli::Cli;

    /// An option as text, but for where `--help` lists it, which counts
    /// the options before it in the tree it was added to.
    fn option(arg: &clap::Arg) -> String {
        let text = format!("{arg:?}");
        let Some(at) = text.find("disp_ord: ") else { return text };
        let end = at + text[at..].find(", ").expect("more fields follow");
        format!("{}{}", &text[..at], &text[end + 2..])
    }

    /// What decides how a subcommand parses, as text: its options (but for
    /// `--help`, whose text says whether there is a long help), their
    /// groups, its settings, and the same of its subcommands.
    fn parsing(command: &clap::Command) -> String {
        let arguments: Vec<String> = command.get_arguments().filter(|arg| arg.get_id() != "help").map(option).collect();
        let groups: Vec<String> = command.get_groups().map(|group| format!("{group:?}")).collect();
        let settings = [
            command.is_subcommand_required_set(),
            command.is_args_conflicts_with_subcommands_set(),
            command.is_allow_external_subcommands_set(),
            command.is_subcommand_precedence_over_arg_set(),
            command.is_subcommand_negates_reqs_set(),
            command.is_arg_required_else_help_set(),
            command.is_allow_missing_positional_set(),
            command.is_dont_delimit_trailing_values_set(),
            command.is_multicall_set(),
            command.is_flatten_help_set(),
        ];
        let aliases: Vec<&str> = command.get_all_aliases().collect();
        let subcommands: Vec<String> =
            command.get_subcommands().map(|sub| format!("{} {}", sub.get_name(), parsing(sub))).collect();
        format!("{arguments:?}\n{groups:?}\n{settings:?}\n{aliases:?}\n{:?}\n{subcommands:?}", command.get_version())
    }

    #[test]
    fn each_single_subcommand_parses_as_the_whole_tree_has_it() {
        let mut whole = Cli::command();
        whole.build();
        let mut built = 0;
        for name in whole.get_subcommands().map(clap::Command::get_name) {
            let Some((single, _)) = subcommand(name) else {
                assert!(["completions", "man", "help"].contains(&name), "{name} is not built alone");
                continue;
            };
            let mut single = root().subcommand(single);
            single.build();
            let from_whole = whole.find_subcommand(name).expect("listed");
            let alone = single.find_subcommand(name).expect("added");
            assert_eq!(parsing(alone), parsing(from_whole), "{name}");
            built += 1;
        }
        assert_eq!(built, 12);
        // The root's own options too: they decide which word is the
        // subcommand.
        let mut single = root();
        single.build();
        let options = |command: &clap::Command| -> Vec<String> {
            command.get_arguments().filter(|arg| arg.get_id() != "help").map(option).collect()
        };
        assert_eq!(options(&single), options(&whole));
    }

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn the_subcommand_is_the_first_word_that_is_no_option_nor_its_value() {
        let root = root();
        let cases = [
            ("pgnkit validate a.pgn", Some("validate")),
            ("pgnkit -j 4 validate", Some("validate")),
            ("pgnkit -qj 4 moves", Some("moves")),
            ("pgnkit -j4 -q stats", Some("stats")),
            ("pgnkit --threads 2 --color never fen check", Some("fen")),
            ("pgnkit --color=never --progress always split", Some("split")),
            ("pgnkit -- validate", None),
            ("pgnkit -q", None),
            ("pgnkit help validate", Some("help")),
        ];
        for (line, expected) in cases {
            assert_eq!(named(&root, &words(line)), expected, "{line}");
        }
    }

    #[test]
    fn a_command_line_parses_alone_as_with_the_whole_tree() {
        let lines = [
            "pgnkit validate a.pgn --format jsonl -j 2",
            "pgnkit -q validate --lint -- -a.pgn",
            "pgnkit moves e4 e5 Nf3 --to san",
            "pgnkit -j1 moves --fen startpos",
            "pgnkit fen check startpos --normalize",
            "pgnkit fen show --flip 8/8/8/8/8/8/8/K6k",
            "pgnkit stats merge a.json b.json",
            "pgnkit stats --by white a.pgn --color never",
            "pgnkit convert --to uci a.pgn -o out.txt",
            "pgnkit fix --check a.pgn",
            "pgnkit dedup --by moves+tags a.pgn",
            "pgnkit split --games 10 --out-dir d a.pgn",
            "pgnkit perft startpos 3 --divide",
            "pgnkit ratings a.pgn --scheme ml",
            "pgnkit filter --result 1-0 --min-plies 20 a.pgn",
            // Shared options after the subcommand, where the flat command
            // matches them.
            "pgnkit moves -q e4 --color never --progress always",
            "pgnkit validate -qq a.pgn --exit-zero -j3 --raw-csv -v",
            "pgnkit validate -q a.pgn -q",
            "pgnkit fen check -q startpos --color=never",
            "pgnkit stats merge --silent a.json b.json",
            "pgnkit book merge -q a.jsonl -o b.bin",
        ];
        for line in lines {
            let args = words(line);
            let alone = parse_single(&args, clap::ColorChoice::Never).unwrap_or_else(|| panic!("{line} parses alone"));
            let whole = Cli::try_parse_from_whole(&args);
            assert_eq!(format!("{alone:?}"), format!("{whole:?}"), "{line}");
        }
    }

    #[test]
    fn help_version_errors_and_other_commands_are_left_to_the_whole_tree() {
        let lines = [
            "pgnkit validate --help",
            "pgnkit validate -h",
            "pgnkit validate -V",
            "pgnkit validate --bogus",
            "pgnkit valdate a.pgn",
            "pgnkit --bogus validate",
            "pgnkit help validate",
            "pgnkit man validate",
            "pgnkit completions bash",
            "pgnkit fen",
            "pgnkit -h validate",
            "pgnkit --version",
        ];
        for line in lines {
            assert!(parse_single(&words(line), clap::ColorChoice::Never).is_none(), "{line}");
        }
    }

    impl Cli {
        fn try_parse_from_whole(args: &[OsString]) -> Cli {
            <Cli as clap::Parser>::try_parse_from(args).expect("parses with the whole tree")
        }
    }
}
