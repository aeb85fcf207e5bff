// chess_library_replay: the peer scripts/bench.sh times for Disservin's
// chess-library (C++): read a PGN file with the library's streaming reader
// (pgn::StreamParser and a Visitor), replay every main-line move with
// uci::parseSan and Board::makeMove, and print how many games and plies it
// replayed. Nothing else is reported, so that it does the work of the
// pgn-reader example: a game stops at its first move that does not parse or
// is not legal (counted as a game with errors), and a FEN tag sets the start.
//
// Build (bench.sh does): g++ -std=c++17 -O3 -march=native -DNDEBUG
//   -I CHESS_LIBRARY_DIR/include scripts/chess_library_replay.cpp
// Usage: chess_library_replay FILE.pgn
// Exit: 0 every game replayed, 1 some game had an error, 2 the file could
// not be read or the reader stopped before its end.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "chess.hpp"

using namespace chess;

namespace {

class Replay : public pgn::Visitor {
   public:
    std::uint64_t games = 0, plies = 0, bad_games = 0;

    void startPgn() override {
        games++;
        fen_.clear();
        chess960_ = false;
        bad_ = false;
    }

    void header(std::string_view key, std::string_view value) override {
        if (key == "FEN") {
            fen_.assign(value);
        } else if (key == "Variant") {
            chess960_ = value.find("960") != std::string_view::npos;
        }
    }

    void startMoves() override {
        // A board made once and set up again: a game costs a FEN read, as it
        // does in the Rust peers, not an allocation.
        // set960 sets the board up again: only when the variant changes.
        if (board_.chess960() != chess960_) board_.set960(chess960_);
        if (!board_.setFen(fen_.empty() ? std::string_view(constants::STARTPOS) : std::string_view(fen_))) {
            fail();
        }
    }

    void move(std::string_view san, std::string_view) override {
        // The reader hands a comment that comes before any move as a move
        // without text.
        if (san.empty() || bad_) return;
        try {
            const Move m = uci::parseSan(board_, san, moves_);
            if (m == Move::NO_MOVE) {
                fail();
                return;
            }
            board_.makeMove(m);
            plies++;
        } catch (const std::exception&) {
            fail();
        }
    }

    void endPgn() override {
        if (bad_) bad_games++;
    }

   private:
    void fail() {
        bad_ = true;
        // The rest of the game's moves are not handed over.
        skipPgn(true);
    }

    Board board_;
    Movelist moves_;
    std::string fen_;
    bool chess960_ = false;
    bool bad_ = false;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE.pgn\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 2;
    }
    Replay replay;
    pgn::StreamParser parser(in);
    const auto error = parser.readGames(replay);
    std::printf("%s: %llu games, %llu plies, %llu with errors\n", argv[1],
                static_cast<unsigned long long>(replay.games), static_cast<unsigned long long>(replay.plies),
                static_cast<unsigned long long>(replay.bad_games));
    if (error) {
        std::fprintf(stderr, "%s: the reader stopped: %s\n", argv[1], error.message().c_str());
        return 2;
    }
    if (in.bad()) {
        std::fprintf(stderr, "%s: read error\n", argv[1]);
        return 2;
    }
    return replay.bad_games ? 1 : 0;
}
