"""Gioul benchmarks: move generation over a mid-game corpus, perft, self-play, 2-ply hints, rollouts.

Run: python -m pytest benchmarks/bench_gioul.py --benchmark-enable, or
``python benchmarks/bench_gioul.py`` for the rollout table of docs/rollout.md ("Gioul").
Every benchmark asserts a known answer before it times anything.

The corpus: Gioul states waiting for a roll, the first such state at or after decisions
20, 30, ..., 60 of seeded uniform-random Gioul games (seeds 0, 1, ...). A (state, roll)
pair is the legal moves of the roll's first decision (a chain counts as one roll: its
first block is the decision the roll starts). The Fevga rate on the same boards is
measured alongside for the ratio.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fevga import Net, batch, hint, perft, rollout
from fevga.error_rate import Corpus
from fevga.gioul import GioulPosition, self_play, to_array, validate_states
from fevga.game import play_game
from fevga.rollout import STRATA, RolloutResult
from fevga_core import constants
from fevga_core import state as core_state
from fevga_core.constants import FLAG_GIOUL
from fevga_core import rollout as core_rollout

CORPUS_SIZE = 1000
DECISIONS = (20, 30, 40, 50, 60)
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
PAIRS = CORPUS_SIZE * len(ROLLS)
SELFPLAY_GAMES = 10_000

# Known answers.
TOTAL_GIOUL_MOVES = 396_805   # corpus x 21 rolls, first decisions
TOTAL_FEVGA_MOVES = 396_088   # the same boards under Fevga's default rules
SELFPLAY_POINTS = (5005, 6666, 0)  # seed 2026: White's wins, marses (either side), draws


@cache
def gioul_corpus() -> tuple[GioulPosition, ...]:
    found: list[GioulPosition] = []
    seed = 0
    while len(found) < CORPUS_SIZE:
        states = play_game(game="gioul", seed=seed).positions()
        for start in DECISIONS:
            for state in states[start:]:
                if not state.pending and not state.is_game_over():
                    found.append(state)
                    break
        seed += 1
    return tuple(found[:CORPUS_SIZE])


@cache
def pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Gioul rows, Fevga rows, dice) of every corpus state x 21 rolls."""
    corpus = gioul_corpus()
    grows = np.repeat(to_array(corpus), len(ROLLS), axis=0)
    frows = np.repeat(batch.to_array([s.board() for s in corpus]), len(ROLLS), axis=0)
    dice = np.tile(np.array(ROLLS, dtype=np.uint8), (len(corpus), 1))
    return grows, frows, dice


def _rate(benchmark: Any, items: int, name: str) -> None:
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info[name] = items / stats.stats.median


def test_gioul_movegen_pairs_per_second(benchmark: Any) -> None:
    grows, _, dice = pairs()
    out = np.zeros(len(grows), dtype=np.int32)
    core_state.count_moves(grows, dice, FLAG_GIOUL, out)
    assert int(out.sum()) == TOTAL_GIOUL_MOVES
    corpus = gioul_corpus()
    assert int(batch.count_legal_moves(corpus[:1] * 21, dice[:21]).sum()) == int(out[:21].sum())
    benchmark(core_state.count_moves, grows, dice, FLAG_GIOUL, out)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_fevga_movegen_on_the_same_boards(benchmark: Any) -> None:
    _, frows, dice = pairs()
    assert int(batch.count_legal_moves(frows, dice).sum()) == TOTAL_FEVGA_MOVES
    out = np.zeros(len(frows), dtype=np.int32)

    benchmark(core_state.count_moves, frows, dice, 0, out)
    _rate(benchmark, PAIRS, "pairs_per_second")


def test_gioul_batch_legal_moves_pairs_per_second(benchmark: Any) -> None:
    """fevga.batch.legal_moves of Gioul rows: validation, every move and its next state as arrays."""
    grows, _, dice = pairs()
    moves = batch.legal_moves(grows, dice)
    assert int(moves.counts().sum()) == TOTAL_GIOUL_MOVES
    first = gioul_corpus()[0]
    assert moves.positions(0) == [m.position for m in first.legal_moves(ROLLS[0])]
    benchmark(batch.legal_moves, grows, dice)
    _rate(benchmark, PAIRS, "pairs_per_second")
    _rate(benchmark, TOTAL_GIOUL_MOVES, "moves_per_second")


def test_gioul_validate_states_rows_per_second(benchmark: Any) -> None:
    grows, _, _ = pairs()
    assert validate_states(grows).shape == grows.shape
    benchmark(validate_states, grows)
    _rate(benchmark, len(grows), "rows_per_second")


def test_gioul_perft_3(benchmark: Any) -> None:
    start = GioulPosition.initial()
    assert perft(start, 3) == 480_752
    benchmark(perft, start, 3)
    _rate(benchmark, 480_752, "leaves_per_second")


def _selfplay() -> np.ndarray:
    return self_play(SELFPLAY_GAMES, seed=2026)


def test_gioul_random_selfplay_games_per_second(benchmark: Any) -> None:
    points = _selfplay()
    assert (int((points > 0).sum()), int((abs(points) == 2).sum()), int((points == 0).sum())) == SELFPLAY_POINTS
    benchmark.pedantic(_selfplay, rounds=5, iterations=1, warmup_rounds=1)
    _rate(benchmark, SELFPLAY_GAMES, "games_per_second")


# ---------------------------------------------------------------------- the Gioul net's policies

NET_FILE = Path(__file__).resolve().parent / "nets" / "gioul-net-1.npz"
NET_GAMES = 200
# net vs net, seed 2026: White's wins, marses, draws; decisions (the float net and its quantised twin)
NET_POINTS = {"float": (98, 81, 0, 13464), "quantised": (95, 79, 0, 13501)}
NET2_GAMES = 4
NET2_POINTS = ([2, -1, 2, -1], 280)  # net2 vs net2, seed 2026: White's points per game; decisions


@cache
def gioul_net(kind: str = "float") -> Any:
    net = Net.load(NET_FILE)
    return (net if kind == "float" else net.quantised())._core


def _net_games(policy: str, games: int, kind: str = "float") -> tuple[np.ndarray, int]:
    ids = int(constants.POLICY_IDS[policy])
    return core_rollout.gioul_games(2026, 0, games, False, ids, ids, gioul_net(kind), gioul_net(kind))


@pytest.mark.parametrize("kind", ["float", "quantised"])
def test_gioul_net_selfplay_games_per_second(benchmark: Any, kind: str) -> None:
    """Complete games of the "net" policy against itself (the issue's bar: 300 a second per
    core), with the float net or its quantised twin."""
    points, decisions = _net_games("net", NET_GAMES, kind)
    known = NET_POINTS[kind]
    assert (int((points > 0).sum()), int((abs(points) == 2).sum()), int((points == 0).sum()), decisions) == known
    benchmark.pedantic(_net_games, args=("net", NET_GAMES, kind), rounds=3, iterations=1, warmup_rounds=0)
    _rate(benchmark, NET_GAMES, "games_per_second")
    _rate(benchmark, known[3], "decisions_per_second")


def test_gioul_net2_decisions_per_second(benchmark: Any) -> None:
    """Decisions of the "net2" policy (2-ply, chains followed through) in self-play games."""
    points, decisions = _net_games("net2", NET2_GAMES)
    assert (points.tolist(), decisions) == NET2_POINTS
    benchmark.pedantic(_net_games, args=("net2", NET2_GAMES), rounds=3, iterations=1, warmup_rounds=0)
    _rate(benchmark, NET2_POINTS[1], "decisions_per_second")


# Hints over the first decisions of the Gioul error-rate corpus (40 at 2 plies, 10 at 3): the
# search's move filter, and every move searched (Gioul's default: hint(..., every_move=True);
# docs/error_rate.md, "The move filter in Gioul"). Known answers: the moves searched at the
# full depth, and a digest of the picks.
HINTS = {"2-ply filtered": (2, False, 40, 200, "5b1ef98d9e21c77b"),
         "2-ply every-move": (2, True, 40, 2988, "cbeba9d13c16cfb2"),
         "3-ply filtered": (3, False, 10, 49, "1bbb559ae3478b87"),
         "3-ply every-move": (3, True, 10, 55, "6a729f037bde8b01")}


@cache
def hint_decisions() -> tuple[Any, ...]:
    corpus = Path(__file__).parent / "error_rate" / "gioul-corpus-2026.json"
    return Corpus.load(corpus).decisions


def _hints(plies: int, every_move: bool, count: int) -> tuple[int, str]:
    searched, picks = 0, []
    for d in hint_decisions()[:count]:
        ranked = hint(d.position, d.dice, plies, every_move=every_move)
        searched += sum(h.plies == plies for h in ranked)
        picks.append(ranked[0].move.notation)
    return searched, hashlib.sha256(" ".join(picks).encode()).hexdigest()[:16]


@pytest.mark.parametrize("kind", HINTS)
def test_gioul_hints_per_second(benchmark: Any, kind: str) -> None:
    plies, every_move, count, searched, digest = HINTS[kind]
    assert _hints(plies, every_move, count) == (searched, digest)
    benchmark.pedantic(_hints, args=(plies, every_move, count), rounds=3, iterations=1, warmup_rounds=0)
    _rate(benchmark, count, "hints_per_second")


# ---------------------------------------------------------------------- rollouts

ROLLOUT_SEED = 20261201
# policy -> (games, options, known answer: games won, points won in all (raw), luck-adjusted equity)
ROLLOUTS: dict[str, tuple[int, dict[str, Any], tuple[int, int, float]]] = {
    "random": (2 * STRATA, {}, (1412, 438, 0.16898148148148148)),
    "heuristic": (STRATA, {}, (683, 149, 0.11496913580246913)),
    "heuristic+luck": (72, {"luck": True}, (36, 1, 0.17334933445710485)),
}


def gioul_rollout(name: str, workers: int) -> RolloutResult:
    """The rollout `name` of ROLLOUTS from the Gioul start (no progress bar)."""
    games, options, _ = ROLLOUTS[name]
    return rollout(GioulPosition.initial(), games=games, seed=ROLLOUT_SEED, workers=workers,
                   policy=name.split("+")[0], progress=False, **options)


def check_rollout(name: str, result: RolloutResult) -> None:
    """The known answer: wins, raw points, equity, and exact stratification of the first rolls."""
    games, _, (won, points, equity) = ROLLOUTS[name]
    assert result.games == games and not result.interrupted
    assert (round(result.win * games), round(result.raw_equity * games)) == (won, points)
    assert abs(result.equity - equity) < 1e-9
    for roll, count, _ in result.first_rolls:
        assert count == (games // 36 if roll[0] == roll[2] else 2 * games // 36), roll


@pytest.mark.parametrize("name", list(ROLLOUTS))
def test_gioul_rollout_games_per_second(benchmark: Any, name: str) -> None:
    check_rollout(name, gioul_rollout(name, 1))
    benchmark.pedantic(gioul_rollout, args=(name, 1), rounds=3, iterations=1, warmup_rounds=0)
    _rate(benchmark, ROLLOUTS[name][0], "games_per_second")


def main() -> None:
    """Median games/s of each Gioul rollout on 1 and 2 workers (5 runs each)."""
    import statistics
    import time

    print(f"{'rollout':<16} {'games':>6} {'1 worker':>12} {'2 workers':>12}")
    for name, (games, _, _) in ROLLOUTS.items():
        rates = []
        for workers in (1, 2):
            times = []
            for _ in range(5):
                began = time.perf_counter()
                result = gioul_rollout(name, workers)
                times.append(time.perf_counter() - began)
                check_rollout(name, result)
            rates.append(games / statistics.median(times))
        print(f"{name:<16} {games:>6} {rates[0]:>12,.0f} {rates[1]:>12,.0f}")


def variance() -> None:
    """Standard errors at equal games behind docs/rollout.md's Gioul "measured gains" table."""
    import math

    from fevga.rollout import rollout_moves

    def show(tag: str, r: RolloutResult) -> None:
        print(f"{tag:<44} games {r.games:6d} equity {r.equity:+.4f} se {r.equity_se:.5f} "
              f"(raw {r.raw_equity:+.4f} se {r.raw_equity_se:.5f}) rolls {r.mean_length:5.1f} "
              f"truncated {r.truncated_games}")

    start, handed = GioulPosition.initial(), GioulPosition.from_id("__4AAAj__AABAAAA5VhH")
    race = GioulPosition.from_counts([8, 1, 1, 1, 1, 1, 2] + [0] * 18, [7, 1, 1, 1, 2, 2, 1] + [0] * 18, next_roll=(4, 4))
    # both armies crossing the middle, 6 checkers each: a race the 6x6 tables cover within a few rolls
    white = [9] + [0] * 24
    black = [9] + [0] * 24
    for point in (14, 10, 5):
        white[point] = 2
    for point in (14, 9, 4):
        black[point] = 2
    late = GioulPosition.from_counts(white, black, next_roll=(4, 4))
    for policy in ("heuristic", "random"):
        for stratify in (True, False):
            show(f"start, {policy}, stratify={stratify}", rollout(start, games=4 * STRATA, seed=7, policy=policy,
                                                                  stratify=stratify, progress=False))
    for policy in ("heuristic", "random"):
        for truncate in (False, True):
            show(f"late position, {policy}, truncate={truncate}", rollout(late, games=4 * STRATA, seed=7,
                                                                            policy=policy, truncate=truncate,
                                                                            progress=False))
    for name, state in (("start", start), ("handed-over chain", handed), ("7-checker race", race)):
        show(f"{name}, heuristic, luck", rollout(state, games=STRATA, seed=7, luck=True, progress=False))
    ranked = rollout_moves(start, "5-5", games=STRATA, seed=3, progress=False)
    best = ranked[0].result
    for m in ranked[1:]:
        print(f"move {m.move.notation:<16} diff {m.diff:+.4f} paired se {m.diff_se:.4f} "
              f"independent se {math.hypot(m.result.equity_se, best.equity_se):.4f}")


if __name__ == "__main__":
    import sys

    variance() if sys.argv[1:] == ["variance"] else main()
