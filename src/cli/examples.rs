//! Examples under each command's --help. Every `$ ` line is run by
//! tests/cli/help.rs in a folder holding games.pgn, games.pgn.zst,
//! broken.pgn, tournament.pgn and positions.fen, so that none goes stale.

pub const PGNKIT: &str = "\
Examples:
  $ pgnkit validate games.pgn broken.pgn
  $ pgnkit stats --by player games.pgn
  $ pgnkit fen check positions.fen
  $ pgnkit man validate > pgnkit-validate.1";
pub const VALIDATE: &str = "\
Examples:
  $ pgnkit validate games.pgn
  $ pgnkit validate - < games.pgn.zst
  $ pgnkit validate --format jsonl --errors-only games.pgn broken.pgn > findings.jsonl";
pub const STATS: &str = "\
Examples:
  $ pgnkit stats games.pgn
  $ pgnkit stats --by player --sort games --top 10 --format csv games.pgn
  $ pgnkit stats -q --format json games.pgn > a.json && pgnkit stats merge a.json a.json";
pub const CONVERT: &str = "\
Examples:
  $ pgnkit convert --to pgn --no-clock games.pgn > clean.pgn
  $ pgnkit convert -q --to uci games.pgn | head -n 1
  $ pgnkit convert --to csv --columns White,Black,Result,plies,board_termination games.pgn";
pub const FIX: &str = "\
Examples:
  $ pgnkit fix broken.pgn > fixed.pgn
  $ pgnkit fix -q --check broken.pgn
  $ pgnkit fix --diff games.pgn
  $ cp broken.pgn copy.pgn && pgnkit fix --in-place copy.pgn";
pub const FILTER: &str = "\
Examples:
  $ pgnkit filter --winner Morphy games.pgn > morphy-wins.pgn
  $ pgnkit filter --count --eco C00-C99 --min-plies 40 games.pgn
  $ pgnkit filter --fen 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' --rejects other.pgn games.pgn";
pub const SPLIT: &str = "\
Examples:
  $ pgnkit split --shards 4 --out-dir shards games.pgn
  $ pgnkit split --by eco --compress zst --out-dir by-eco games.pgn.zst
  $ pgnkit split --games 1000 --out-dir parts games.pgn";
pub const STATS_MERGE: &str = "\
Examples:
  $ pgnkit stats -q --format json games.pgn > a.json && pgnkit stats -q --format json games.pgn.zst > b.json && pgnkit stats merge a.json b.json
  $ pgnkit stats -q --format json --by year games.pgn | pgnkit stats merge --format csv -";
pub const FEN: &str = "\
Examples:
  $ pgnkit fen check positions.fen
  $ pgnkit fen show 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'";
pub const FEN_CHECK: &str = "\
Examples:
  $ pgnkit fen check 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'
  $ pgnkit fen check --format jsonl positions.fen
  $ pgnkit fen check -q --normalize positions.fen > clean.fen";
pub const FEN_SHOW: &str = "\
Examples:
  $ pgnkit fen show 'r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4'
  $ pgnkit fen show --flip --ascii 8/8/8/4k3/8/8/4P3/4K3 w
  $ pgnkit fen show --svg mate.svg --last-move h5f7 'r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4'";
pub const MOVES: &str = "\
Examples:
  $ pgnkit moves e4 e5 Nf3 Nc6 Bb5
  $ echo 'e2e4 e7e5 g1f3' | pgnkit moves --to san
  $ pgnkit moves --to fen --every 1. e4 e5 2. Qh5";
pub const PERFT: &str = "\
Examples:
  $ pgnkit perft startpos 4
  $ pgnkit perft --divide 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 2
  $ echo 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400' | pgnkit perft --suite -";
pub const COMPLETIONS: &str = "\
Examples:
  $ pgnkit completions bash > pgnkit.bash
  $ pgnkit completions zsh > _pgnkit";
pub const DEDUP: &str = "\
Examples:
  $ pgnkit dedup games.pgn games.pgn > unique.pgn
  $ pgnkit dedup --list --format csv --by moves+tags games.pgn games.pgn.zst
  $ pgnkit dedup -q --list games.pgn broken.pgn";
pub const BOOK: &str = "\
Examples:
  $ pgnkit book --min-games 1 -o book.bin games.pgn
  $ pgnkit book --max-ply 16 --min-games 1 --only-white -o white.bin games.pgn
  $ pgnkit book --format csv --min-games 1 --max-ply 4 games.pgn
  $ pgnkit book -q --shard 0/2 --format jsonl games.pgn > a.jsonl && pgnkit book merge --min-games 1 -o book.bin a.jsonl";
pub const BOOK_MERGE: &str = "\
Examples:
  $ pgnkit book -q --shard 0/2 --format jsonl games.pgn > a.jsonl && pgnkit book -q --shard 1/2 --format jsonl games.pgn > b.jsonl
  $ pgnkit book merge --min-games 1 -o book.bin a.jsonl b.jsonl
  $ pgnkit book merge --format csv a.jsonl b.jsonl";
pub const RATINGS: &str = "\
Examples:
  $ pgnkit ratings tournament.pgn
  $ pgnkit ratings --scheme club --format csv tournament.pgn
  $ pgnkit ratings --scheme ml --simulations 100 --seed 7 tournament.pgn";
pub const MAN: &str = "\
Examples:
  $ pgnkit man > pgnkit.1
  $ pgnkit man fen check > pgnkit-fen-check.1";
