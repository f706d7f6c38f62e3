"""Gioul judgment on the shipped Gioul net: `fevga.hint` of a Gioul roll at 1 ply (target: under
1 ms, issue 16) and at 3 plies (the deepest Gioul move choice, float and quantised), each roll's value for the luck (`fevga.analysis.gioul_roll_values`), and the
analysis of a session of Gioul games (`fevga.analyse`).

Run: python -m pytest benchmarks/bench_gioul_net.py --benchmark-enable, or
``python benchmarks/bench_gioul_net.py`` for the medians docs/net.md and docs/analysis.md quote.
The positions are bench_gioul's corpus (mid-game Gioul states waiting for a roll); every
benchmark asserts a known answer before it times anything.
"""

from __future__ import annotations

import statistics
import time
from functools import cache
from typing import Any

import pytest
from bench_gioul import gioul_corpus

from fevga import Net, hint
from fevga.analyser import analyse
from fevga.analysis import gioul_roll_values
from fevga.game import play_game
from fevga.records import GioulMatchRecord, session_of

HINT_ROLLS = ((6, 5), (3, 1), (4, 4), (2, 2))  # two plain rolls, two doubles (chains from the fourth roll)
STATES = 50  # corpus states timed
DEEP_STATES = 5  # corpus states of the 3-ply hints (hundreds of ms each)
GAMES = 20  # games of the analysed session (net self-play, seeds 0..19)

# Known answers (the shipped Gioul net, gioul-net-1).
NET_CHECKSUM = "13811c8f3611"
FIRST_HINT = ("16/11 9/3", 20)  # corpus state 0 with 6-5: the best move and the legal moves
KNOWN_DECISIONS = 1366  # decisions of the session (the net plays the Gioul tables in races, as hint does)


@cache
def session() -> GioulMatchRecord:
    """GAMES seeded Gioul games of the shipped net against itself, as one session record."""
    record = session_of(*(play_game(game="gioul", seed=seed, policy="net") for seed in range(GAMES)))
    assert isinstance(record, GioulMatchRecord)
    return record


def _check_hint() -> None:
    assert Net.default("gioul").checksum.startswith(NET_CHECKSUM)
    hints = hint(gioul_corpus()[0], (6, 5))
    assert (hints[0].move.notation, len(hints)) == FIRST_HINT


def _hints() -> None:
    for state in gioul_corpus()[:STATES]:
        for roll in HINT_ROLLS:
            hint(state, roll)


def test_gioul_hint_one_ply(benchmark: Any) -> None:
    """STATES x 4 hints; the median of one hint is the total / 200."""
    _check_hint()
    benchmark.pedantic(_hints, rounds=5, iterations=1, warmup_rounds=1)


def _deep_hints(net: Net) -> None:
    for state in gioul_corpus()[:DEEP_STATES]:
        hint(state, (6, 5), 3, net=net, every_move=False)  # the move filter's (docs/net.md; bench_gioul: every move)


@pytest.mark.parametrize("quantised", [False, True], ids=["float", "quantised"])
def test_gioul_hint_three_plies(benchmark: Any, quantised: bool) -> None:
    """DEEP_STATES hints of 6-5 at 3 plies by the move filter; the median of one hint is the total / DEEP_STATES."""
    net = Net.default("gioul").quantised() if quantised else Net.default("gioul")
    hints = hint(gioul_corpus()[0], (6, 5), 3, net=net, every_move=False)
    assert hints[0].plies == 3 and len(hints) == FIRST_HINT[1]
    benchmark.pedantic(_deep_hints, args=(net,), rounds=3, iterations=1, warmup_rounds=1)


def test_gioul_roll_values(benchmark: Any) -> None:
    state = gioul_corpus()[0]
    values, mean = gioul_roll_values(state)
    assert len(values) == 21 and abs(sum(v * (1 if a == b else 2) for (a, b), v in values.items()) / 36 - mean) < 1e-12
    benchmark.pedantic(gioul_roll_values, args=(state,), rounds=20, iterations=1, warmup_rounds=1)


def test_gioul_analyse_session(benchmark: Any) -> None:
    record = session()
    assert sum(len(g.decisions) for g in record.games) == KNOWN_DECISIONS
    report = benchmark.pedantic(analyse, args=(record,), rounds=1, iterations=1)
    assert sum(p.decisions + p.forced for p in report.players) == KNOWN_DECISIONS
    assert sum(p.total_loss for p in report.players) == 0.0  # the net's own games: no error at 1 ply


def main() -> None:
    """Medians: one hint, one state's roll values, and the session's analysis (3 runs)."""
    _check_hint()
    times = []
    for state in gioul_corpus()[:STATES]:
        for roll in HINT_ROLLS:
            began = time.perf_counter()
            hint(state, roll)
            times.append(time.perf_counter() - began)
    print(f"hint, 1 ply: median {1e3 * statistics.median(times):.3f} ms over {len(times)} (state, roll) pairs")
    for net in (Net.default("gioul"), Net.default("gioul").quantised()):
        times = []
        for state in gioul_corpus()[:DEEP_STATES]:
            began = time.perf_counter()
            hint(state, (6, 5), 3, net=net, every_move=False)
            times.append(time.perf_counter() - began)
        kind = "quantised" if net.is_quantised else "float"
        print(f"hint, 3 plies (move filter), {kind} net: median {1e3 * statistics.median(times):.1f} ms over {len(times)} states x 6-5")
    times = []
    for state in gioul_corpus()[:STATES]:
        began = time.perf_counter()
        gioul_roll_values(state)
        times.append(time.perf_counter() - began)
    print(f"roll values (21 rolls followed through): median {1e3 * statistics.median(times):.2f} ms "
          f"over {len(times)} states")
    record = session()
    times = []
    for _ in range(3):
        began = time.perf_counter()
        analyse(record)
        times.append(time.perf_counter() - began)
    median = statistics.median(times)
    print(f"analysis of {GAMES} games ({KNOWN_DECISIONS} decisions): median {median:.2f} s, "
          f"{1e3 * median / GAMES:.0f} ms a game")


if __name__ == "__main__":
    main()
