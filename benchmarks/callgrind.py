"""Stable instruction counts of the core's kernels under `valgrind --tool=callgrind`.

    python benchmarks/callgrind.py movegen          # instructions per (position, roll) pair
    python benchmarks/callgrind.py net quantised    # per raw evaluation, float and quantised
    python benchmarks/callgrind.py net-results quantised-results   # per legal move's result
    python benchmarks/callgrind.py rollout net-game rollout-gioul   # per game of a rollout (see ROLLOUTS)
    python benchmarks/callgrind.py net-game qnet-game   # a net self-play game, float and quantised net
    python benchmarks/callgrind.py net-game-gioul qnet-game-gioul   # the same of Gioul
    python benchmarks/callgrind.py perft perft-gioul   # per leaf of perft 3 from the start of each game
    python benchmarks/callgrind.py all --passes 1 4
    python benchmarks/callgrind.py movegen rollout net-game --repeat 2   # show the figures are stable

Wall-clock timings on a shared 2-core host move by tens of percent from one hour to the next;
instruction counts do not, provided one counts only the engine. Each workload runs twice in a
fresh interpreter under callgrind, once with `--passes` LOW and once with HIGH passes over the
same corpus, and the figure is

    (engine(HIGH) - engine(LOW)) / ((HIGH - LOW) x units per pass)

so that start-up, imports, loading the corpus and the known-answer check cancel out.
`engine(run)` is read from callgrind's output file, not from its "Collected" total: the
instructions executed in the core's own objects (every shared object in the `fevga_core`
package folder) plus the instructions of the C-library functions (libc, libm, the loader)
those objects call directly (memcpy, expf, ...). Everything else, the interpreter, NumPy and
the thread machinery, is left out: the total moved by about ±4% between two runs of the same
build (garbage collection, dictionary and allocator layout, and the rollout executor's
waiting loop, whose turns depend on wall time), while the engine's count moves by far less
than 0.1% (docs/limits.md, "Instruction counts"). `--total` prints the old total-based figure
beside it.

The corpus is the benchmarks' shared one (benchmarks/corpus.py: 1,000 mid-game positions from
seeded random games, each with the 21 rolls), built once outside valgrind and handed to both
runs in a file. Every run first checks the workload's known answer (as the pytest benchmarks do).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CORPUS_MOVES = 439_038  # bench_movegen's known answer: legal moves over the corpus x 21 rolls
GIOUL_CORPUS_MOVES = 396_805  # bench_gioul's known answer: its Gioul corpus x 21 rolls, first decisions
PERFT_GIOUL_3 = 480_752  # perft(GioulPosition.initial(), 3), docs/rules.md "Perft for Gioul"


@dataclass(frozen=True)
class Workload:
    unit: str
    prepare: Callable[[dict[str, np.ndarray]], tuple[Callable[[], object], int]]  # -> (one pass, units per pass)


def _movegen(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga_core import state as core_state

    rows, dice = data["rows"], data["dice"]
    out = np.zeros(len(rows), dtype=np.int32)
    core_state.count_moves(rows, dice, 0, out)
    assert int(out.sum()) == CORPUS_MOVES, f"{int(out.sum())} moves, expected {CORPUS_MOVES}"
    return (lambda: core_state.count_moves(rows, dice, 0, out)), len(rows)


def _movegen_gioul(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga_core import state as core_state
    from fevga_core.constants import FLAG_GIOUL

    rows, dice = data["gioul_rows"], data["dice"]
    out = np.zeros(len(rows), dtype=np.int32)
    core_state.count_moves(rows, dice, FLAG_GIOUL, out)
    assert int(out.sum()) == GIOUL_CORPUS_MOVES, f"{int(out.sum())} moves, expected {GIOUL_CORPUS_MOVES}"
    return (lambda: core_state.count_moves(rows, dice, FLAG_GIOUL, out)), len(rows)


def _net_rows(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga import Net

    core = Net.default()._core
    rows = data["positions"]
    out = core.evaluate_rows(rows)
    assert out.shape == (len(rows), 3) and np.all((out[:, 1] <= out[:, 0]) & (out[:, 2] <= 1 - out[:, 0]))
    return (lambda: core.evaluate_rows(rows)), len(rows)


def _net_results(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga import Net
    from fevga.bearoff.core_tables import tables_of
    from fevga_core import search

    core, tables = Net.default()._core, tables_of("default")
    rows, dice = data["rows"], data["dice"]
    out = np.zeros(len(rows), dtype=np.int32)
    total = search.choose_rows(core, tables, rows, dice, 1, 0, out)
    assert total == CORPUS_MOVES, f"{total} results, expected {CORPUS_MOVES}"
    return (lambda: search.choose_rows(core, tables, rows, dice, 1, 0, out)), CORPUS_MOVES


def _quantised_rows(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga import Net
    from fevga_core import qnet

    net = Net.default()
    quantised = qnet.QuantisedNet(net._core)
    rows = data["positions"]
    out = quantised.evaluate_rows(rows)
    assert np.max(np.abs(out - net._core.evaluate_rows(rows))) < 0.01  # docs/net.md's bound
    return (lambda: quantised.evaluate_rows(rows)), len(rows)


def _quantised_results(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
    from fevga import Net
    from fevga.bearoff.core_tables import tables_of
    from fevga_core import qnet, search

    quantised, tables = qnet.QuantisedNet(Net.default()._core), tables_of("default")
    rows, dice = data["rows"], data["dice"]
    out = np.zeros(len(rows), dtype=np.int32)
    total = search.choose_rows(quantised, tables, rows, dice, 1, 0, out)
    assert total == CORPUS_MOVES, f"{total} results, expected {CORPUS_MOVES}"
    return (lambda: search.choose_rows(quantised, tables, rows, dice, 1, 0, out)), CORPUS_MOVES


ROLLOUT_SEED = 20261203
# workload -> (game, policy, games per pass, options, known answer: (equity, raw equity) as repr);
# the option "quantised" plays the shipped net quantised (Net.quantised)
ROLLOUTS: dict[str, tuple[str, str, int, dict[str, bool], tuple[str, str]]] = {
    "rollout": ("fevga", "heuristic", 144, {}, ("-0.0625", "-0.0625")),
    "net-game": ("fevga", "net", 36, {}, ("0.4166666666666667", "0.4166666666666667")),
    "qnet-game": ("fevga", "net", 36, {"quantised": True}, ("0.4444444444444444", "0.4444444444444444")),
    "rollout-luck": ("fevga", "heuristic", 8, {"luck": True, "stratify": False}, ("1.3154301722008666", "1.125")),
    "rollout-gioul": ("gioul", "heuristic", 144, {}, ("0.10416666666666667", "0.10416666666666667")),
    "rollout-gioul-random": ("gioul", "random", 576, {}, ("0.16493055555555555", "0.16493055555555555")),
    "rollout-gioul-luck": ("gioul", "heuristic", 4, {"luck": True, "stratify": False},
                           ("0.8705065439074693", "1.25")),
    "net-game-gioul": ("gioul", "net", 36, {}, ("-0.05555555555555555", "-0.05555555555555555")),
    "qnet-game-gioul": ("gioul", "net", 36, {"quantised": True}, ("0.2222222222222222", "0.2222222222222222")),
}


def _rollout(name: str) -> Callable[[dict[str, np.ndarray]], tuple[Callable[[], object], int]]:
    """A seeded one-worker rollout from the start of its game, each pass the whole job (its
    Python set-up included: the same in the LOW and HIGH runs, it does not cancel, but it is
    the same before and after a change of the core)."""
    game, policy, games, options, (equity, raw) = ROLLOUTS[name]

    def prepare(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
        from fevga.gioul import GioulPosition
        from fevga.net import Net
        from fevga.position import Position
        from fevga.rollout import rollout

        start = GioulPosition.initial() if game == "gioul" else Position.initial()
        flags = {key: value for key, value in options.items() if key != "quantised"}
        net = Net.default(game).quantised() if options.get("quantised") else None

        def run() -> object:
            return rollout(start, games=games, seed=ROLLOUT_SEED, workers=1, policy=policy, progress=False,
                           net=net, **flags)

        result = run()
        assert (repr(result.equity), repr(result.raw_equity)) == (equity, raw), (result.equity, result.raw_equity)
        return run, games

    return prepare


# workload -> (game, depth, known leaves): perft from the start of the game (docs/rules.md)
PERFTS: dict[str, tuple[str, int, int]] = {
    "perft": ("fevga", 3, 21_893),
    "perft-gioul": ("gioul", 3, PERFT_GIOUL_3),
}


def _perft(name: str) -> Callable[[dict[str, np.ndarray]], tuple[Callable[[], object], int]]:
    """perft from the start of its game, each pass the whole tree; the unit is a leaf."""
    game, depth, leaves = PERFTS[name]

    def prepare(data: dict[str, np.ndarray]) -> tuple[Callable[[], object], int]:
        from fevga.gioul import GioulPosition
        from fevga.position import Position, perft

        start = GioulPosition.initial() if game == "gioul" else Position.initial()
        assert perft(start, depth) == leaves, perft(start, depth)
        return (lambda: perft(start, depth)), leaves

    return prepare


WORKLOADS: dict[str, Workload] = {
    "movegen": Workload("(position, roll) pair", _movegen),
    "movegen-gioul": Workload("(Gioul state, roll) pair", _movegen_gioul),
    "net": Workload("raw float evaluation", _net_rows),
    "quantised": Workload("raw quantised evaluation", _quantised_rows),
    "net-results": Workload("legal move, its result valued by the float net at 1 ply (generation included)",
                            _net_results),
    "quantised-results": Workload("legal move, its result valued by the quantised net at 1 ply, incrementally "
                                  "(generation included)", _quantised_results),
    **{name: Workload(f"perft leaf ({PERFTS[name][0]}, depth {PERFTS[name][1]})", _perft(name)) for name in PERFTS},
    **{name: Workload(f"game of a {ROLLOUTS[name][0]} {ROLLOUTS[name][1]} rollout"
                      f"{' (quantised net)' if ROLLOUTS[name][3].get('quantised') else ''}"
                      f"{' with luck' if ROLLOUTS[name][3].get('luck') else ''}", _rollout(name))
       for name in ROLLOUTS},
}


def _child(name: str, passes: int, corpus: str) -> None:
    """Runs under valgrind: load the corpus, check the known answer, run `passes` passes."""
    with np.load(corpus) as archive:
        data = {key: archive[key] for key in archive.files}
    run, _ = WORKLOADS[name].prepare(data)
    for _ in range(passes):
        run()


def _write_corpus(path: Path) -> None:
    sys.path.insert(0, str(HERE))
    from bench_gioul import pairs as gioul_pairs
    from corpus import midgame_positions, position_roll_pairs

    from fevga import batch

    rows, dice = position_roll_pairs()
    gioul_rows, _, gioul_dice = gioul_pairs()
    assert np.array_equal(dice, gioul_dice)
    np.savez(path, rows=rows, dice=dice, positions=batch.to_array(midgame_positions()), gioul_rows=gioul_rows)


# The engine: the core's own objects, and the C-library functions they call directly.
ENGINE_FOLDER = "fevga_core"
C_LIBRARIES = re.compile(r"^(libc|libm|libmvec|libgcc_s|ld-linux[\w.-]*)\.so")


@dataclass(frozen=True)
class Count:
    engine: int  # the core's objects, plus the C-library calls they make
    total: int  # everything callgrind collected (interpreter included)


def _engine_object(name: str | None) -> bool:
    return name is not None and Path(name).parent.name == ENGINE_FOLDER


def engine_instructions(path: Path) -> int:
    """The engine's instructions in callgrind output file `path`: the self cost of every function
    of an object in a `fevga_core` folder, plus the inclusive cost of its calls into the C
    libraries (C_LIBRARIES). Reads the file format of valgrind's callgrind docs: `ob=`/`cob=`
    name the current and the callee's object (`(id) name` once, `(id)` after), a cost line
    follows a `calls=` line with the call's inclusive cost, any other cost line is self cost."""
    names: dict[str, str] = {}
    obj: str | None = None
    callee: str | None = None
    after_call = False
    engine = 0

    def named(text: str) -> str:
        found = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not found:
            return text
        if found.group(2) is not None:
            names[found.group(1)] = found.group(2)
        return names[found.group(1)]

    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            first = line[:1]
            if first.isdigit() or first in "+-*":
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0
                if after_call:
                    # a call into the same object (no cob=) is already counted as self cost there
                    if _engine_object(obj) and callee is not None and C_LIBRARIES.match(Path(callee).name):
                        engine += cost
                    after_call, callee = False, None
                elif _engine_object(obj):
                    engine += cost
            elif line.startswith("ob="):
                obj = named(line[3:].strip())
            elif line.startswith("cob="):
                callee = named(line[4:].strip())
            elif line.startswith("calls="):
                after_call = True
    return engine


def _instructions(name: str, passes: int, corpus: Path, work: Path) -> Count:
    out = work / f"callgrind.{name}.{passes}"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               sys.executable, str(Path(__file__).resolve()), "--child", name, str(passes), str(corpus)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    found = re.search(r"Collected : (\d+)", done.stderr)
    if not found:
        raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-3000:]}")
    engine = engine_instructions(out)
    if engine == 0:
        raise SystemExit(f"no instructions of a {ENGINE_FOLDER} object in {out}: is fevga_core built in place?")
    out.unlink()
    return Count(engine, int(found.group(1)))


def measure(name: str, low: int, high: int, corpus: Path, work: Path) -> tuple[float, float]:
    """Instructions per unit of workload `name`, two pass counts differenced: (engine, total)."""
    with np.load(corpus) as archive:
        data = {key: archive[key] for key in archive.files}
    run, units = WORKLOADS[name].prepare(data)  # the known answer, outside valgrind first
    del run
    low_count, high_count = (_instructions(name, passes, corpus, work) for passes in (low, high))
    scale = (high - low) * units
    return (high_count.engine - low_count.engine) / scale, (high_count.total - low_count.total) / scale


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workloads", nargs="+", choices=[*WORKLOADS, "all"])
    parser.add_argument("--passes", nargs=2, type=int, default=(1, 3), metavar=("LOW", "HIGH"),
                        help="passes over the corpus of the two runs (default: 1 3)")
    parser.add_argument("--repeat", type=int, default=1, help="measure each workload this many times (stability)")
    parser.add_argument("--total", action="store_true",
                        help="also print the figure from callgrind's whole total (interpreter included)")
    args = parser.parse_args(argv)
    low, high = args.passes
    if not 0 <= low < high:
        parser.error("--passes needs 0 <= LOW < HIGH")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed")
    names = list(WORKLOADS) if "all" in args.workloads else args.workloads
    with tempfile.TemporaryDirectory(prefix="fevga-callgrind.") as folder:
        work = Path(folder)
        corpus = work / "corpus.npz"
        _write_corpus(corpus)
        for name in names:
            for _ in range(args.repeat):
                engine, total = measure(name, low, high, corpus, work)
                extra = f"   (whole process: {total:,.1f})" if args.total else ""
                print(f"{name:20} {engine:14,.1f} instructions per {WORKLOADS[name].unit}{extra}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
