"""`fevga ubgi` benchmarks: the engine time of `go` at 1 ply, and whole games against one
engine process without a restart (docs/ubgi.md "Speed").

Run the targets (1,000 games):
    FEVGA_BENCH_FULL=1 python -m pytest benchmarks/bench_ubgi.py --benchmark-enable -s
As smoke tests (the default; CI) the sizes are reduced and the known answers still asserted.
Each benchmark prints what it measured (-s shows it) and stores it in extra_info.
"""

from __future__ import annotations

import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

from corpus import ROLLS, midgame_positions

from fevga import Position, hint

FULL = os.environ.get("FEVGA_BENCH_FULL") == "1"
GAMES = 1000 if FULL else 10
GO_POSITIONS = 300 if FULL else 30


class Engine:
    """One `fevga ubgi` process."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "fevga", "ubgi"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("ubgi", "set engine.multipv 1", "isready")
        self.until("readyok")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode().rstrip("\n"))

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())

    def until(self, prefix: str) -> list[str]:
        out = []
        while True:
            line = self.lines.get(timeout=60)
            out.append(line)
            if line.startswith(prefix) or line.startswith("error"):
                return out

    def go(self, position: Position, dice: tuple[int, int]) -> tuple[str, float]:
        """(bestmove payload, engine milliseconds) of one request."""
        self.send(f"position fevgaid {position.id}", f"dice {dice[0]} {dice[1]}", "go")
        lines = self.until("bestmove")
        assert lines[-1].startswith("bestmove"), lines
        depth = next(line for line in lines if line.startswith("info depth"))
        return lines[-1].removeprefix("bestmove "), float(depth.split()[4])

    def close(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=60)


def _report(benchmark: Any, name: str, **values: float) -> None:
    benchmark.extra_info.update(values)
    print(f"\n{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in values.items()))


def test_ubgi_go_engine_time(benchmark: Any) -> None:
    """Engine time (the `info ... time_ms` of each answer) of `go` at 1 ply over corpus
    positions and rolls, and the controller's round trip."""
    engine = Engine()
    pairs = [(p, ROLLS[k % len(ROLLS)]) for k, p in enumerate(midgame_positions()[:GO_POSITIONS])]
    first, _ = engine.go(*pairs[0])  # known answer: the engine's move is fevga.hint's best
    assert Position.from_id(pairs[0][0].id).parse_move(first, pairs[0][1]).position == \
        hint(pairs[0][0], pairs[0][1])[0].move.position
    times: list[float] = []
    trips: list[float] = []

    def run() -> None:
        for position, dice in pairs:
            began = time.perf_counter()
            _, engine_ms = engine.go(position, dice)
            trips.append(1000 * (time.perf_counter() - began))
            times.append(engine_ms)

    benchmark.pedantic(run, rounds=1, iterations=1)
    assert engine.close() == 0
    times.sort()
    _report(benchmark, "ubgi go at 1 ply", requests=len(times), engine_ms_median=statistics.median(times),
            engine_ms_p99=times[int(0.99 * (len(times) - 1))], round_trip_ms_median=statistics.median(trips))


def test_ubgi_games_without_restart(benchmark: Any) -> None:
    """GAMES whole games (both sides asked of one engine process), every answer checked legal."""
    engine = Engine()
    plies = 0

    def run() -> None:
        nonlocal plies
        start = Position.initial()
        for seed in range(GAMES):
            rng = random.Random(seed)
            position = Position.from_counts(start.counts(0), start.counts(1), rng.randrange(2))
            engine.send("newgame")
            while not position.is_game_over():
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                payload, _ = engine.go(position, dice)
                position = position.play(payload, dice)  # raises if the engine's move is illegal
                plies += 1

    began = time.perf_counter()
    benchmark.pedantic(run, rounds=1, iterations=1)
    elapsed = time.perf_counter() - began
    assert engine.proc.poll() is None, "the engine died"
    assert engine.close() == 0
    _report(benchmark, "ubgi whole games", games=GAMES, plies=plies, seconds=elapsed, games_per_second=GAMES / elapsed)
