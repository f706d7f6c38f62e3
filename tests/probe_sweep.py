"""The probe sweep of issue 19: at least 1,000 probes of the API, the command line and every file
format, each run in its own process with a time limit.

    python tests/probe_sweep.py                  # every probe, 2 at a time, 60 s each
    python tests/probe_sweep.py --jobs 2 --timeout 60 --seed 2026 --per 8 --out sweep.json
    python tests/probe_sweep.py --only api.      # one class of probes (see --list)

A probe fails when it gives a wrong answer (a check it makes is false), runs past the time
limit, shows a Python traceback or more than one error line on the command line (or exits with
a status other than 0, 2 or 130), raises an exception outside `FevgaError` other than
KeyboardInterrupt, changes a special file it should have refused, or leaves a temporary file.
Signal probes also measure how long a job takes to exit after SIGINT.

The inputs are generated from `--seed`: hostile argument values, mutations of valid files
(byte flips, truncations, edited fields with recomputed checksums), crafted JSON and text.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from children import slow_writer

PYTHON = sys.executable
MEMORY_LIMIT = 8 << 30  # bytes of address space per probe: a runaway allocation fails, the machine survives
MAX_RSS_KIB = 3 << 20  # peak resident memory of an api probe: more is a "memory" verdict (a zip bomb read)


@dataclass
class Probe:
    """One probe: `kind` api (Python code), cli (argv), signal (SIGINT after a delay) or kill."""

    id: str
    kind: str
    code: str = ""
    argv: list[str] = field(default_factory=list)
    expect: str = "any"  # any: ok or a clean error; error: must fail cleanly; ok: must succeed;
    # raise:NAME: must raise exactly that exception (a callback's own), interrupt: KeyboardInterrupt
    shell: str = ""  # a shell command line instead of argv (closed descriptors)
    delay: float = 0.0  # signal probes: seconds before SIGINT
    wait_for: str = ""  # signal probes: a file whose existence means "under way"
    after: str = ""  # Python code run in the parent afterwards; it raises AssertionError on a failure
    stdin: str | None = None
    runs: int = 1  # engine runs the probe makes one after another; its budget is runs x --timeout


@dataclass
class Outcome:
    probe: str
    kind: str
    verdict: str  # pass, or wrong-answer / hang / traceback / non-fevga-exception / bad-exit / ...
    detail: str = ""
    seconds: float = 0.0
    latency: float | None = None  # signal probes: SIGINT to exit


# --- the child side of api probes ------------------------------------------------------------

PRELUDE = textwrap.dedent("""
    import itertools, json, math, os, sys
    import numpy as np
    import fevga, fevga.batch, fevga.bearoff, fevga.game, fevga.gioul, fevga.records, fevga.search
    import fevga.strength, fevga.match, fevga.analyser, fevga.train, fevga.svg, fevga.net
    from fevga import Position, GioulPosition, Rules, Net, FevgaError
    P = Position.initial()
    G = GioulPosition.initial()
    MID = fevga.game.play_game(seed=5, policy="heuristic", max_plies=24).final
    RACE = Position.from_counts([0, 3, 3, 3, 3, 2, 1] + [0] * 18, [0, 2, 3, 3, 3, 3, 1] + [0] * 18, 0)
    CHECK = True
    def big(x, n):  # an int over n: a legal but long job the guards leave out (any other value is probed)
        return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and x > n
""")

HARNESS = textwrap.dedent("""
    import json, sys, traceback
    code = sys.argv[1]
    out = {}
    try:
        scope = {}
        exec(compile(PRELUDE, "<prelude>", "exec"), scope)
        exec(compile(code, "<probe>", "exec"), scope)
        out = {"status": "ok", "check": bool(scope.get("CHECK", True)), "note": str(scope.get("NOTE", ""))[:300]}
    except KeyboardInterrupt:
        out = {"status": "interrupt"}
    except BaseException as exc:
        from fevga import FevgaError
        if isinstance(exc, FevgaError):
            out = {"status": "fevga", "type": type(exc).__name__, "message": str(exc)[:300]}
        else:
            out = {"status": "other", "type": type(exc).__name__, "message": str(exc)[:300],
                   "traceback": traceback.format_exc()[-1500:]}
    import resource
    out["rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("PROBE-RESULT " + json.dumps(out), flush=True)
""").replace("PRELUDE", repr(PRELUDE))


def _limits() -> None:
    # a sweep started in the background (nohup, `&`) inherits SIGINT ignored: the probes must
    # hear the Ctrl-C they are sent, as a user's terminal would deliver it
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.nice(10)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_probe(probe: Probe, timeout: float, work: Path) -> Outcome:
    """Run one probe in its own process and judge it."""
    started = time.perf_counter()
    env = dict(os.environ, FEVGA_CACHE_DIR=str(work / "cache"), PYTHONHASHSEED="0", FEVGA_PROBE_BUDGET=str(timeout))
    cwd = work / "cwd"
    try:
        if probe.kind == "signal":
            return _signal_probe(probe, timeout, env, cwd, started)
        if probe.kind == "api":
            argv = [PYTHON, "-c", HARNESS, probe.code]
        else:
            argv = [PYTHON, "-m", "fevga", *probe.argv]
        done = subprocess.run(probe.shell or argv, shell=bool(probe.shell), capture_output=True, text=True,
                              timeout=timeout * probe.runs, env=env, cwd=cwd, preexec_fn=_limits, input=probe.stdin,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return Outcome(probe.id, probe.kind, "hang", f"still running after {timeout * probe.runs:g} s",
                       time.perf_counter() - started)
    seconds = time.perf_counter() - started
    verdict, detail = (_judge_api if probe.kind == "api" else _judge_cli)(probe, done)
    if verdict == "pass" and probe.after:
        try:
            exec(compile(probe.after, "<after>", "exec"), {"Path": Path, "os": os, "stat": stat, "work": work,
                                                           "json": json})
        except AssertionError as exc:
            verdict, detail = "wrong-answer", f"after: {exc}"
    return Outcome(probe.id, probe.kind, verdict, detail, seconds)


def _judge_api(probe: Probe, done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    lines = [line for line in done.stdout.splitlines() if line.startswith("PROBE-RESULT ")]
    if not lines:
        return "crash", f"exit {done.returncode}, no result: {done.stderr[-600:]}"
    result = json.loads(lines[-1][len("PROBE-RESULT "):])
    status = result["status"]
    if result.get("rss_kib", 0) > MAX_RSS_KIB:
        return "memory", f"peak RSS {result['rss_kib'] >> 10} MiB ({status} {result.get('type', '')})"
    if probe.expect.startswith("raise:"):  # a callback's own exception must surface as itself
        wanted = probe.expect[len("raise:"):]
        if status == "other" and result["type"] == wanted:
            return "pass", f"raised {wanted}"
        return "wrong-answer", f"expected {wanted} to surface, got {status} {result.get('type', '')}: {result.get('message', '')}"
    if probe.expect == "interrupt":  # re-raised, or (a rollout) a result marked interrupted
        if status == "interrupt" or (status == "ok" and result["check"]):
            return "pass", status
        return "wrong-answer", f"expected KeyboardInterrupt or an interrupted result, got {status} {result.get('type', '')}"
    if status == "other":
        return "non-fevga-exception", f"{result['type']}: {result['message']} | {result.get('traceback', '')[-600:]}"
    if status == "ok" and not result["check"]:
        return "wrong-answer", result.get("note", "")
    if probe.expect == "error" and status == "ok":
        return "wrong-answer", "accepted what it should refuse " + result.get("note", "")
    if probe.expect == "ok" and status != "ok":
        return "wrong-answer", f"refused: {result.get('type')}: {result.get('message')}"
    return "pass", status


def _judge_cli(probe: Probe, done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    err = done.stderr
    if "Traceback (most recent call last)" in err or "Traceback (most recent call last)" in done.stdout:
        return "traceback", err[-800:]
    if done.returncode not in (0, 2, 130):
        return "bad-exit", f"exit {done.returncode}: {err[-400:]}"
    if done.returncode == 2 and not (probe.shell and "2>&-" in probe.shell):  # a closed stderr prints nothing
        lines = [line for line in err.splitlines() if line.strip()]
        noise = [line for line in lines if not line.startswith("fevga")]
        if len(lines) != 1 or noise or ": error: " not in lines[0]:
            return "bad-error", err[-400:]
    if probe.expect == "error" and done.returncode == 0:
        return "wrong-answer", "accepted what it should refuse: " + done.stdout[-300:]
    if probe.expect == "ok" and done.returncode != 0:
        return "wrong-answer", f"refused: {err[-300:]}"
    return "pass", f"exit {done.returncode}"


def _signal_probe(probe: Probe, timeout: float, env: dict[str, str], cwd: Path, started: float) -> Outcome:
    argv = [PYTHON, "-c", HARNESS, probe.code] if probe.code else [PYTHON, "-m", "fevga", *probe.argv]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                             preexec_fn=_limits, errors="replace")
    deadline = time.monotonic() + timeout
    time.sleep(probe.delay)
    while probe.wait_for and not (cwd / probe.wait_for).exists() and child.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    if child.poll() is not None:
        out, err = child.communicate()
        return Outcome(probe.id, probe.kind, "wrong-answer", f"finished before the signal: {err[-300:]}",
                       time.perf_counter() - started)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return Outcome(probe.id, probe.kind, "hang", "did not stop after SIGINT", time.perf_counter() - started)
    latency = time.monotonic() - sent
    done = subprocess.CompletedProcess(argv, child.returncode, out, err)
    if probe.code:
        verdict, detail = _judge_api(probe, done)
        if verdict == "pass" and "interrupt" not in detail and "KeyboardInterrupt" not in err:
            verdict, detail = "wrong-answer", f"not interrupted: {detail}"
    else:
        verdict, detail = _judge_cli(probe, done)
        if verdict == "pass" and child.returncode != 130:
            verdict, detail = "wrong-answer", f"exit {child.returncode} after SIGINT, not 130"
    if verdict == "pass" and probe.after:
        try:
            exec(compile(probe.after, "<after>", "exec"), {"Path": Path, "os": os, "work": cwd.parent, "out": out})
        except AssertionError as exc:
            verdict, detail = "wrong-answer", f"after: {exc}"
    if verdict == "pass" and latency > 5.0:
        verdict, detail = "slow-interrupt", f"{latency:.1f} s from SIGINT to exit"
    return Outcome(probe.id, probe.kind, verdict, detail, time.perf_counter() - started, latency)


# --- the probes -------------------------------------------------------------------------------

HOSTILE = [
    "None", "'start'", "''", "2**70", "-2**70", "-1", "0", "10**12", "10**100", "float('nan')", "float('inf')", "1.5",
    "True", "G", "P", "[]", "{}", "itertools.repeat(6)", "b'\\x00' * 51", "'\u00b2'", "'\u0661'", "object()",
    "np.int64(2**62)", "'9' * 5000", "(6, 5, 4)", "[[6, 5]] * 3", "np.zeros((2, 51), dtype=np.float64)",
]

# Calls with one slot X: each is probed with every hostile value.
TEMPLATES = [
    "fevga.evaluate(X)", "fevga.evaluate(MID, X)", "fevga.evaluate(MID, 0, X)", "fevga.evaluate(MID, net=X)",
    "fevga.evaluate(MID, score=X, length=5)", "fevga.hint(X, (6, 5))", "fevga.hint(MID, X)",
    "fevga.hint(MID, (6, 5), X)", "fevga.expectimax(X)", "fevga.expectimax(MID, X)",
    "fevga.expectimax(MID, 0, X)", "fevga.perft(X, 1)", "fevga.perft(P, X) if not (big(X, 2) and not big(X, 12)) else None",
    "fevga.rollout(X, games=36, seed=1, workers=1, policy='random', progress=False)",
    "fevga.rollout(P, games=X, seed=1, workers=1, policy='random', progress=False) if not (big(X, 36) and not big(X, 2**53)) else None",
    "fevga.rollout(P, games=36, seed=X, workers=1, policy='random', progress=False)",
    "fevga.rollout(P, games=36, seed=1, workers=X, policy='random', progress=False)",
    "fevga.rollout(P, games=36, seed=1, workers=1, policy=X, progress=False)",
    "fevga.rollout_moves(MID, X, games=36, seed=1, workers=1, policy='random', progress=False)",
    "Position.from_counts(X, [0] * 24 + [15])", "Position.from_counts([0] * 24 + [15], [0] * 24 + [15], X)",
    "Position.from_id(X)", "Position.parse(X)", "P.legal_moves(X)", "P.parse_move(X, (6, 5))", "P.play(X, (6, 5))",
    "Rules(release=X)", "Rules(ban_prime_before_opponent_mother=X)", "P.legal_moves((6, 5), X)",
    "GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15], next_roll=(2, 1), roller=0, dice=X)",
    "GioulPosition.parse(X)", "G.legal_moves(X)",
    "fevga.batch.count_legal_moves(X, [[6, 5]])", "fevga.batch.count_legal_moves(fevga.batch.to_array([P]), X)",
    "fevga.batch.count_legal_moves(fevga.batch.to_array([P]), [[6, 5]], workers=X)",
    "fevga.batch.evaluate(X)", "fevga.batch.evaluate(fevga.batch.to_array([P]), workers=X)",
    "fevga.batch.legal_moves(X, [[6, 5]])", "fevga.batch.to_array(X)", "fevga.batch.to_array([X])",
    "fevga.batch.count_legal_moves(fevga.batch.to_array([fevga.GioulPosition.initial()]), X)", "fevga.gioul.self_play(X, seed=1)",
    "fevga.game.play_game(seed=X)", "fevga.game.play_game(seed=1, policy=X)", "fevga.game.play_game(seed=1, start=X)",
    "fevga.game.play_match(X, seed=1, policy='random')",
    "fevga.analyse(X)", "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), X)",
    "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), rollouts=X) if not (big(X, 0) and not big(X, 2**53)) else None",
    "fevga.bearoff.OneSidedDB.build(3, X) if not big(X, 3) or big(X, 15) else None",
    "fevga.bearoff.TwoSidedDB.build(X) if not big(X, 3) or big(X, 15) else None",
    "fevga.bearoff.TwoSidedDB.build(2, workers=X)", "fevga.bearoff.race_estimate(X, [0, 0, 1])",
    "fevga.bearoff.evaluate(X)", "fevga.bearoff.best_move(X, (6, 5))", "fevga.svg.board(X)",
    "fevga.records.parse_record(X)", "fevga.records.game_from_dict(X)", "fevga.records.match_from_dict(X)",
    "fevga.match.match_equity_table(X)",
    "fevga.strength.duel('random', 'random', games=X, workers=1)",
    "Net.load(X)", "Net(X, 8)", "Net(np.zeros(10, dtype=np.float32), X)", "Net.initial(X)", "Net.initial(8, X)",
    "Net(Net.initial(8).params, 8, X)", "Net(np.full(1747, X) if isinstance(X, float) else X, 8)",
    "fevga.strength.measure_odds(X, workers=1, policy='random')", "fevga.strength.measure_odds(X, policy='random', opening=True)",
    "fevga.strength.rate_policy('random', games=X, plies=0, evaluator='heuristic')",
    "fevga.strength.duel('random', 'random', games=72, workers=X)",
    "fevga.game.play_match(3, seed=1, policy='random', max_games=X)", "fevga.game.play_game(seed=1, max_plies=X)",
    "fevga.game.play_match(game='gioul', length=X, seed=1)", "fevga.game.play_match(game='gioul', length=3, seed=1, max_games=X)",
    "fevga.game.play_game(game='gioul', seed=X)", "fevga.game.play_game(game='gioul', seed=1, start=X)",
    "fevga.perft(X, 1)", "fevga.perft(G, X) if not (big(X, 2) and not big(X, 12)) else None",
    "fevga.evaluate(MID, score=(0, 0), length=X)", "fevga.rollout(MID, games=36, workers=1, progress=False, score=(0, 0), length=X)",
    "fevga.expectimax(MID, 1, evaluator=X)", "fevga.bearoff.OneSidedDB.build(2, 2).counts(X)",
    "fevga.search.static_value(X)", "fevga.search.lookahead(X)",
    # the secondary arguments: tables, pictures, switches, paths, odds
    "fevga.match.match_equity_table(5).to_text(size=X)", "fevga.match.match_equity_table(5).to_text(starter=X)",
    "fevga.match.match_equity_table(5).starter(X, 1)", "fevga.match.match_equity_table(5).grid(X)",
    "fevga.svg.board(P, size=X)", "fevga.svg.board(P, dice=X)", "fevga.svg.board(P, coordinates=X)",
    "fevga.svg.board(P, perspective=X)", "fevga.bearoff.OneSidedDB.build(2, 2).mean_rolls(X)",
    "fevga.bearoff.TwoSidedDB.build(2).win_probability(X, [0, 0, 0, 0, 0, 1])",
    "fevga.bearoff.OneSidedDB.build(2, 2).mean_rolls_batch(X)", "fevga.batch.from_array(X)", "fevga.gioul.to_array(X)",
    "fevga.gioul.from_array(X)", "fevga.records.write_match(X)", "fevga.records.read_match(X)",
    "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), thresholds=X)",
    "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), keep=X)",
    "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), evaluator=X)",
    "fevga.analyse(fevga.game.play_game(seed=1, max_plies=6), rollouts=36, workers=X)",
    "fevga.rollout(MID, games=36, workers=1, progress=False, truncate=X)",
    "fevga.rollout(MID, games=36, workers=1, progress=False, checkpoint=X)",
    "fevga.rollout(MID, games=36, workers=1, progress=False, luck=X)", "fevga.rollout(MID, games=36, workers=1, progress=X)",
    "fevga.rollout(MID, games=36, workers=1, progress=False, stratify=X)",
    "fevga.rollout(MID, games=36, workers=1, progress=False, backend=X)",
    "fevga.rollout_moves(MID, (6, 5), games=36, workers=1, progress=False, candidates=X)",
    "GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15], next_roll=X, roller=0)",
    "GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15], next_roll=(2, 1), roller=X)",
    "fevga.match.GameOdds.from_probabilities(X, 0, 0, 0)",
    "fevga.match.match_winning_chance(fevga.match.match_equity_table(5), X, 0.5, 0, 0)",
    "fevga.match.match_winning_chance(fevga.match.match_equity_table(5), (2, 2), X, 0, 0)",
    "fevga.train.TrainConfig(games=X).validate()", "fevga.train.TrainConfig(lam=X).validate()",
    "Net.default().save(X)", "fevga.records.save_record(fevga.game.play_game(seed=1, max_plies=4), X)",
    "fevga.game.play_game(seed=1, rules=X)", "fevga.evaluate(MID, score=X, length=5)",
    "fevga.batch.evaluate(fevga.batch.to_array([P]), net=X)", "fevga.gioul.self_play(2, seed=X)",
    "fevga.strength.duel('net', 'random', games=2, net_a=X, workers=1)",
    "fevga.strength.measure_odds(36, policy=X, workers=1)", "fevga.records.game_from_dict({'plies': X})",
    "fevga.records.match_from_dict({'length': X, 'games': [{'plies': []}]})", "fevga.bearoff.open_db(X)",
    "fevga.bearoff.OneSidedDB.build(2, 2).save(X)",
]

PERFT = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())
GIOUL_PERFT = json.loads((Path(__file__).parent / "data" / "gioul_perft.json").read_text())

CORRECTNESS = [
    # finished positions, each side on roll, every ply count: the wrong answer
    *[f"e = fevga.evaluate(Position.from_counts({w}, {b}, {t}), {p}); CHECK = e.equity == {v}; NOTE = str(e)"
      for w, b, t, v in (("[15] + [0] * 24", "[0] * 24 + [15]", 0, 2), ("[15] + [0] * 24", "[0] * 24 + [15]", 1, -2),
                         ("[0] * 24 + [15]", "[15] + [0] * 24", 1, 2), ("[0] * 24 + [15]", "[15] + [0] * 24", 0, -2),
                         ("[15] + [0] * 24", "[1] + [0] * 23 + [14]", 0, 1), ("[15] + [0] * 24", "[1] + [0] * 23 + [14]", 1, -1))
      for p in range(4)],
    "rows = fevga.batch.to_array([Position.from_counts([15] + [0] * 24, [0] * 24 + [15], t) for t in (0, 1)]);"
    " v = fevga.batch.evaluate(rows); CHECK = v.tolist() == [[1, 1, 0], [0, 0, 1]]; NOTE = str(v)",
    "F = [(Position.from_counts(w, b, t), v) for w, b in (([15] + [0] * 24, [0] * 24 + [15]), ([15] + [0] * 24, [1] + [0] * 23 + [14]),"
    " ([0] * 24 + [15], [15] + [0] * 24), ([1] + [0] * 23 + [14], [15] + [0] * 24)) for t in (0, 1)"
    " for v in [None]]; rows = fevga.batch.to_array([f for f, _ in F] + [MID]); v = fevga.batch.evaluate(rows, workers=2);"
    " e = [fevga.evaluate(f) for f, _ in F]; CHECK = all(tuple(v[i]) == (x.win, x.win_mars, x.lose_mars) for i, x in enumerate(e))"
    " and [x.equity for x in e] == [2, -2, 1, -1, -2, 2, -1, 1]; NOTE = str((v.tolist(), [x.equity for x in e]))",
    *[f"W = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], {t}); e = [fevga.evaluate(W, p) for p in range(4)];"
      f" h = fevga.search.static_value(W); CHECK = all(x.equity == {2 if t == 0 else -2} and x.win == {1 if t == 0 else 0}"
      f" and x.lose_mars == {0 if t == 0 else 1} for x in e); NOTE = str(e)" for t in (0, 1)],
    "rows = fevga.batch.to_array([MID, RACE, P] * 50); v = fevga.batch.evaluate(rows, workers=2);"
    " CHECK = all(tuple(v[i]) == (lambda e: (e.win, e.win_mars, e.lose_mars))(fevga.evaluate([MID, RACE, P][i % 3])) for i in range(150))",
    "CHECK = fevga.perft(P, 2) == 479",
    *[f"CHECK = fevga.perft(Position.from_id({e['position']!r}), {d + 1}, Rules.named({e['rules']!r})) == {n}"
      for e in PERFT["entries"] for d, n in enumerate(e["perft"]) if n < 3_000_000],
    *[f"CHECK = fevga.perft(GioulPosition.from_id({e['position']!r}), {d + 1}) == {n}"
      for e in GIOUL_PERFT["entries"] for d, n in enumerate(e["perft"]) if n < 3_000_000],
    "CHECK = [m.notation for m in P.legal_moves((6, 5))] == ['24/13']",
    "CHECK = fevga.hint(RACE, (6, 6))[0].loss == 0.0 and abs(fevga.evaluate(RACE).equity - fevga.bearoff.evaluate(RACE)) < 1e-9; NOTE = (fevga.evaluate(RACE).equity, fevga.bearoff.evaluate(RACE))",
    "r = fevga.game.play_match(3, seed=4, policy='heuristic'); CHECK = fevga.records.parse_record(r.to_json()) == r and fevga.records.read_match(fevga.records.write_match(r)).games[0].plies == r.games[0].plies",
    "a = fevga.rollout(MID, games=1296, seed=3, workers=1, policy='heuristic', progress=False); b = fevga.rollout(MID, games=1296, seed=3, workers=2, policy='heuristic', progress=False); CHECK = a == b",
    "CHECK = fevga.expectimax(MID, 1, evaluator=lambda p: fevga.search.static_value(p)) == fevga.expectimax(MID, 1)",
    "e = fevga.evaluate(MID, 2); CHECK = 0 <= e.win_mars <= e.win <= 1 and 0 <= e.lose_mars <= 1 - e.win",
    "d = fevga.bearoff.OneSidedDB.build(3, 3); CHECK = d.mean_rolls([0, 0, 1]) == 1.0",
    "t = fevga.bearoff.TwoSidedDB.build(2); CHECK = t.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == 0.8125",
]


CALLBACKS = {  # a callable policy (or evaluator) and the exception it must surface as
    "raise": ("lambda p, d, m: 1 / 0", "raise:ZeroDivisionError"),
    "raise-later": ("(lambda n: lambda p, d, m: m[0] if next(n) < 8 else {}[0])(itertools.count())", "raise:KeyError"),
    "exit": ("lambda p, d, m: sys.exit(3)", "raise:SystemExit"),
    "exit-later": ("(lambda n: lambda p, d, m: m[0] if next(n) < 8 else sys.exit(0))(itertools.count())", "raise:SystemExit"),
    "interrupt": ("(lambda n: lambda p, d, m: m[0] if next(n) < 8 else (_ for _ in ()).throw(KeyboardInterrupt))(itertools.count())",
                  "interrupt"),
    "memory": ("lambda p, d, m: (_ for _ in ()).throw(MemoryError)", "raise:MemoryError"),
    "garbage": ("lambda p, d, m: 'not a move'", "error"),
    "none": ("lambda p, d, m: None", "error"),
    "other-move": ("lambda p, d, m: P.legal_moves((6, 5))[0]", "error"),
}
CALLBACK_CALLS = {  # each job with the callback in slot F; after it, no half-done output may be left
    "play-game": "fevga.game.play_game(seed=1, policy=F)",
    "play-game-pair": "fevga.game.play_game(seed=1, policy=('heuristic', F))",
    "play-match": "fevga.game.play_match(3, seed=1, policy=F)",
    "rollout": "fevga.rollout(MID, games=72, seed=1, workers=1, policy=F, progress=False)",
    "rollout-threads": "fevga.rollout(MID, games=2592, seed=1, workers=2, policy=F, progress=False)",
    "rollout-checkpoint": "fevga.rollout(MID, games=2592, seed=1, workers=2, policy=F, progress=False, checkpoint='cb-CASE.npz')",
    "rollout-moves": "fevga.rollout_moves(MID, (6, 5), games=72, seed=1, workers=1, policy=F, progress=False)",
    "duel": "fevga.strength.duel(F, 'random', games=72, workers=1)",
    "measure-odds": "fevga.strength.measure_odds(72, policy=F, opening=True)",
}
EVALUATORS = {  # callable evaluators of expectimax: what they raise surfaces, what they return is checked
    "raise": ("lambda p: 1 / 0", "raise:ZeroDivisionError"), "exit": ("lambda p: sys.exit(2)", "raise:SystemExit"),
    "nan": ("lambda p: float('nan')", "error"), "inf": ("lambda p: float('inf')", "error"),
    "string": ("lambda p: 'x'", "error"), "none": ("lambda p: None", "error"), "huge": ("lambda p: 10**400", "error"),
    "array": ("lambda p: np.zeros(3)", "error"),
}


def callback_probes() -> list[Probe]:
    """Callable policies and evaluators that raise, exit or return garbage: the callback's own
    exception surfaces (a FevgaError for garbage), and a checkpoint is never left half-written."""
    probes = []
    for job, call in CALLBACK_CALLS.items():
        for case, (function, expect) in CALLBACKS.items():
            code = f"F = {function}\nR = " + call.replace("CASE", case)
            if expect == "interrupt":
                code += ("\nCHECK = getattr(R, 'interrupted', None) is True or (isinstance(R, list) and "
                         "all(m.result.interrupted for m in R)); NOTE = repr(R)[:200]")
            after = ""
            if job == "rollout-checkpoint":
                code = f"F = {function}\ntry:\n    R = {call.replace('CASE', case)}\nfinally:\n" \
                       f"    left = [n for n in os.listdir('.') if n.endswith('.fevga-tmp')]\n" \
                       f"    assert not left, left\n" \
                       f"    if os.path.exists('cb-{case}.npz'): __import__('fevga.rollout.checkpoints', fromlist=['_'])." \
                       f"_read_checkpoint(" \
                       f"__import__('pathlib').Path('cb-{case}.npz'))\n"
                if expect == "interrupt":
                    code += "CHECK = R.interrupted\n"
            probes.append(Probe(f"callback.policy.{job}.{case}", "api", code, expect=expect, after=after))
    for case, (function, expect) in EVALUATORS.items():
        for depth in (0, 1, 2):
            probes.append(Probe(f"callback.evaluator.{depth}.{case}", "api",
                                f"v = fevga.expectimax(MID, {depth}, evaluator={function}); NOTE = repr(v)", expect=expect))
    return probes


def _pick(count: int, per: int, rng: random.Random) -> list[int]:
    """`per` of range(count) drawn by `rng` (all of them when per is 0)."""
    return sorted(rng.sample(range(count), per)) if 0 < per < count else list(range(count))


def api_probes(rng: random.Random, per: int) -> list[Probe]:
    probes = []
    for t, template in enumerate(TEMPLATES):
        for h in _pick(len(HOSTILE), per, rng):
            probes.append(Probe(f"api.arg.{t:02d}.{h:02d}", "api", f"X = {HOSTILE[h]}\n{template}"))
    for i, code in enumerate(CORRECTNESS):
        probes.append(Probe(f"api.answer.{i:02d}", "api", code, expect="ok"))
    return probes


# --- file probes ------------------------------------------------------------------------------


def _mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    kind = rng.choice(["flip", "flip", "truncate", "insert", "zero", "swap"])
    at = rng.randrange(len(data))
    if kind == "flip":
        return f"flip@{at}", data[:at] + bytes([data[at] ^ rng.randrange(1, 256)]) + data[at + 1:]
    if kind == "truncate":
        return f"truncate@{at}", data[:at]
    if kind == "insert":
        return f"insert@{at}", data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9))) + data[at:]
    if kind == "zero":
        return f"zero@{at}", data[:at] + bytes(min(32, len(data) - at)) + data[at + 32:]
    other = rng.randrange(len(data))
    b = bytearray(data)
    b[at], b[other] = b[other], b[at]
    return f"swap@{at},{other}", bytes(b)


class Corpus:
    """Hostile files written into `folder` for the probes: (name, path) pairs in `files`."""

    def __init__(self, folder: Path, pattern: str) -> None:
        self.folder = folder
        self.pattern = pattern  # the file name, "{}" standing for the probe's name
        self.files: list[tuple[str, Path]] = []

    def put(self, name: str, content: bytes | str) -> None:
        path = self.folder / self.pattern.format(name)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
        else:
            path.write_bytes(content)
        self.files.append((name, path))

    def mutants(self, data: bytes, rng: random.Random, count: int) -> None:
        """`count` random corruptions of the good file `data` (see _mutate)."""
        for i in range(count):
            label, content = _mutate(data, rng)
            self.put(f"mut{i:02d}-{label}", content)


HOSTILE_JSON = ["[" * 5000 + "]" * 5000, "9" * 5000, "Infinity", "-Infinity", "NaN", "1e999", '"a string"', "[1, 2]",
                "null", "{}", "true", "-1", "1e300", '"\u00b2"', "[" * 33 + "]" * 33, "18446744073709551616"]


def _npz(**arrays: Any) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _npy_lying(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + bytes(64)


def net_files(folder: Path, rng: random.Random) -> list[tuple[str, Path]]:
    import numpy as np

    from fevga import Net

    good = Net.initial(8, seed=3)
    data = good.to_bytes()
    files = Corpus(folder, "{}.npz")
    put = files.put

    files.mutants(data, rng, 40)
    meta = {"format": "fevga-net", "version": 1, "encoding": "fevga-1", "inputs": 214, "hidden": 8,
            "sha256": good.checksum, "provenance": {}}
    params = np.array(good.params)
    for i, bad in enumerate(HOSTILE_JSON):
        put(f"meta{i:02d}", _npz(meta=np.frombuffer(bad.encode(), dtype=np.uint8), params=params))
        key = rng.choice(sorted(meta))
        text = json.dumps(meta).replace(json.dumps({key: meta[key]})[1:-1], f'"{key}": {bad}')
        put(f"field{i:02d}-{key}", _npz(meta=np.frombuffer(text.encode(), dtype=np.uint8), params=params))
    for i, shape in enumerate([(10**12,), (2**40, 2**40), (111_620,), (0,), (3, 3, 3, 3, 3, 3)]):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("meta.npy", _npy_member(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)))
            archive.writestr("params.npy", _npy_lying(shape))
        put(f"shape{i}", buffer.getvalue())
    for descr in ("|O", "<U8", "<f8", ">f4", "|V16"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("meta.npy", _npy_member(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)))
            archive.writestr("params.npy", _npy_lying((4,), descr))
        put(f"dtype{descr.strip('<>|')}", buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:  # a zip bomb: 1 GiB in ~1 MB
        archive.writestr("meta.npy", _npy_member(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)))
        with archive.open("params.npy", "w", force_zip64=True) as member:
            member.write(np.lib.format.magic(1, 0))
            block = bytes(1 << 24)
            for _ in range(64):
                member.write(block)
    put("bomb", buffer.getvalue())
    put("empty", b"")
    put("text", b"root:x:0:0:root:/root:/bin/bash\n")
    put("extra", _npz(meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), params=params, extra=params))
    return files.files


def _npy_member(array: Any) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


def _table_rewrite(data: bytes, header_change: Any = None, payload_change: Any = None) -> bytes:
    _, version, length, _ = struct.unpack_from("<8sIII", data, 0)
    header = json.loads(data[20:20 + length])
    start = (20 + length + 63) // 64 * 64
    payload = bytearray(data[start:])
    if payload_change is not None:
        payload_change(header, payload)
    header["payload_crc32"] = zlib.crc32(payload)
    text = header_change(header) if header_change is not None else json.dumps(header)
    raw = text.encode()
    new_start = (20 + len(raw) + 63) // 64 * 64
    out = bytearray(struct.pack("<8sIII", b"FEVGABO\x00", version, len(raw), zlib.crc32(raw))) + raw
    out += b"\x00" * (new_start - len(out)) + payload
    return bytes(out)


def table_files(folder: Path, rng: random.Random) -> list[tuple[str, Path]]:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

    sources = {"one": OneSidedDB.build(3, 3).save(folder / "good-one.fbo").read_bytes(),
               "two": TwoSidedDB.build(3).save(folder / "good-two.fbo").read_bytes()}
    files = Corpus(folder, "{}.fbo")
    put = files.put

    for i in range(30):
        kind = rng.choice(["one", "two"])
        label, content = _mutate(sources[kind], rng)
        put(f"mut{i:02d}-{kind}-{label}", content)
    for i in range(30):  # payload edits with valid CRCs: only the content checks can catch them
        kind = rng.choice(["one", "two"])
        value = rng.choice([float("nan"), float("inf"), -float("inf"), -0.5, 143.0, 2.5, 1e300, -1e-9])

        def change(header: dict[str, Any], payload: bytearray, value: float = value) -> None:
            name = rng.choice(sorted(header["sections"]))
            info = header["sections"][name]
            size = {"<f8": 8, "<f4": 4, "<i8": 8, "<u2": 2}[info["dtype"]]
            count = max(1, _prod(info["shape"]))
            offset = info["offset"] + rng.randrange(count) * size
            if info["dtype"] == "<f8":
                struct.pack_into("<d", payload, offset, value)
            elif info["dtype"] == "<f4":
                struct.pack_into("<f", payload, offset, value)
            elif info["dtype"] == "<i8":
                struct.pack_into("<q", payload, offset, rng.choice([-1, 2**62, 10**9]))
            else:
                struct.pack_into("<H", payload, offset, rng.choice([65535, 4096]))

        put(f"value{i:02d}-{kind}", _table_rewrite(sources[kind], payload_change=change))
    header_edits = [
        lambda h: json.dumps({**h, "sections": [1, 2]}), lambda h: json.dumps({**h, "sections": "equity"}),
        lambda h: json.dumps({**h, "sections": None}), lambda h: "[1, 2, 3]", lambda h: '"a string"',
        lambda h: "[" * 5000 + "]" * 5000, lambda h: json.dumps(h).replace('"payload_bytes": ', '"payload_bytes": 9' + "9" * 5000 + ", \"x\": "),
        lambda h: json.dumps(h).replace('"points": 3', '"points": Infinity'),
        lambda h: json.dumps(h).replace('"points": 3', '"points": [3]'),
        lambda h: json.dumps(h).replace('"points": 3', '"points": "3"'),
        lambda h: json.dumps(h).replace('"checkers": 3', '"checkers": 1e300'),
        lambda h: json.dumps({**h, "kind": 7}), lambda h: json.dumps({**h, "game": "chess"}),
        lambda h: json.dumps({**h, "total": -1}),
    ]
    for kind in ("one", "two"):
        names = sorted(json.loads(sources[kind][20:20 + struct.unpack_from("<I", sources[kind], 12)[0]])["sections"])
        for i, edit in enumerate(header_edits):
            put(f"hdr{i:02d}-{kind}", _table_rewrite(sources[kind], header_change=edit))
        for j, (key, value) in enumerate([("shape", [10**12]), ("shape", [1e300]), ("shape", [-1]),
                                          ("shape", "12"), ("shape", [[3]]), ("dtype", "|O"), ("dtype", "<U8"),
                                          ("dtype", ">f8"), ("dtype", 8), ("offset", -64), ("offset", 10**15),
                                          ("offset", "0"), ("shape", [2] * 10)]):
            name = names[j % len(names)]

            def edit(h: dict[str, Any], name: str = name, key: str = key, value: Any = value) -> str:
                h["sections"][name][key] = value
                return json.dumps(h)

            put(f"sec{j:02d}-{kind}-{name}-{key}", _table_rewrite(sources[kind], header_change=edit))
    put("empty", b"")
    put("magic", b"FEVGABO\x00" + bytes(100))
    put("huge-header", struct.pack("<8sIII", b"FEVGABO\x00", 1, 2**31, 0) + bytes(64))
    return files.files


def _prod(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def record_files(folder: Path, rng: random.Random) -> list[tuple[str, Path]]:
    from fevga.game import play_game, play_match
    from fevga.records import write_match

    match = play_match(3, seed=6, policy="heuristic")
    game = play_game(seed=7, policy="heuristic").to_dict()
    files = Corpus(folder, "{}")
    put = files.put

    for i, text in enumerate(["{}", '{"foo": 1}', '{"length": 3, "games": []}', "[]", "[1, 2]", '"x"', "null",
                              '{"length": 3}', '{"games": [{}]}', '{"plies": []}', '{"plies": {}}',
                              '{"length": -1, "games": [{}]}', '{"length": 1e999, "games": []}']):
        put(f"shape{i:02d}.json", text)
    for i, bad in enumerate(HOSTILE_JSON):
        put(f"whole{i:02d}.json", bad)
        key = rng.choice(sorted(game))
        edited = json.dumps(game).replace(json.dumps({key: game[key]})[1:-1], f'"{key}": {bad}')
        put(f"field{i:02d}-{key}.json", edited)
        ply = json.loads(json.dumps(game))
        where = rng.randrange(len(ply["plies"]))
        ply_key = rng.choice(["dice", "move", "steps", "turn", "position"])
        text = json.dumps(ply)
        put(f"ply{i:02d}-{ply_key}.json", text.replace(json.dumps(ply["plies"][where])[1:-1],
                                                       json.dumps({**ply["plies"][where], ply_key: 0})[1:-1]
                                                       .replace(f'"{ply_key}": 0', f'"{ply_key}": {bad}')))
    text = write_match(match)
    lines = text.splitlines()
    for i in range(40):
        edited = list(lines)
        at = rng.randrange(len(edited))
        op = rng.choice(["delete", "duplicate", "number", "char", "unicode"])
        if op == "delete":
            del edited[at]
        elif op == "duplicate":
            edited.insert(at, edited[at])
        elif op == "number":
            edited[at] = edited[at].replace("1", "9" * rng.choice([10, 5000]), 1)
        elif op == "char" and edited[at]:
            pos = rng.randrange(len(edited[at]))
            edited[at] = edited[at][:pos] + rng.choice("0123456789:/) -x") + edited[at][pos + 1:]
        else:
            edited[at] = edited[at].replace("1", rng.choice(["\u00b9", "\u0661", "\u2460", "\uff11"]), 1)
        put(f"text{i:02d}-{op}.mat", "\n".join(edited) + "\n")
    put("bom.mat", "\ufeff" + text)
    put("binary.mat", "\x00\x01\x02" * 100)
    return files.files


def checkpoint_files(folder: Path, rng: random.Random) -> tuple[list[tuple[str, Path]], str]:
    """Mutated rollout checkpoints of one small job, and the CLI options of that job."""
    import numpy as np

    from fevga.rollout.checkpoints import content_digest

    options = ["rollout", "--games", "2592", "--seed", "9", "--policy", "random", "--workers", "1", "--no-progress"]
    good = folder / "good-ck.npz"
    subprocess.run([PYTHON, "-m", "fevga", *options, "--checkpoint", str(good)], check=True, capture_output=True)
    data = good.read_bytes()
    with np.load(good) as archive:
        arrays = {name: archive[name] for name in archive.files}
    files = Corpus(folder, "ck-{}.npz")
    put = files.put

    files.mutants(data, rng, 25)
    for i in range(15):
        edited = {k: v.copy() for k, v in arrays.items()}
        name = rng.choice(["prefix_sums", "prefix_first", "prefix_lengths", "prefix_cross"])
        flat = edited[name].reshape(-1)
        flat[rng.randrange(flat.size)] += rng.choice([1.0, 500.0, -3.0])
        keep = rng.random() < 0.5
        if keep:
            edited["sha256"] = np.frombuffer(content_digest(edited).encode(), dtype=np.uint8)
        else:
            edited.pop("sha256", None)
        put(f"edit{i:02d}-{name}-{'resigned' if keep else 'nosum'}", _npz(**edited))
    for i, bad in enumerate(HOSTILE_JSON):
        for entry in ("meta", "seed"):
            edited = dict(arrays)
            edited[entry] = np.frombuffer(bad.encode(), dtype=np.uint8)
            edited["sha256"] = np.frombuffer(content_digest(edited).encode(), dtype=np.uint8)
            put(f"{entry}{i:02d}", _npz(**edited))
    edited = dict(arrays)
    edited["blocks"] = np.arange(10**6, dtype=np.int64)
    put("blocks-huge", _npz(**edited))
    buffer = io.BytesIO()  # a zip bomb of members each within its own limit: 2 GiB in a few MB
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, array in arrays.items():
            if name not in ("sums", "prefix_sums"):
                archive.writestr(f"{name}.npy", _npy_member(array))
        for name in ("sums", "prefix_sums"):
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(member, {"descr": "<f8", "fortran_order": False,
                                                              "shape": (1 << 27,)})
                block = bytes(1 << 24)
                for _ in range(64):
                    member.write(block)
    put("bomb", buffer.getvalue())
    return files.files, " ".join(options)


def file_probes(folder: Path, rng: random.Random) -> list[Probe]:
    probes = []
    for name, path in net_files(folder, rng):
        probes.append(Probe(f"file.net.api.{name}", "api", f"n = Net.load({str(path)!r}); NOTE = n.checksum"))
        probes.append(Probe(f"file.net.cli.{name}", "cli", argv=["evaluate", "--net", str(path)]))
    for name, path in table_files(folder, rng):
        probes.append(Probe(f"file.fbo.api.{name}", "api",
                            f"d = fevga.bearoff.open_db({str(path)!r}); NOTE = repr(d); "
                            "x = d.counts([0, 0, 1]) if isinstance(d, fevga.bearoff.OneSidedDB) "
                            "else d.equity([0, 0, 1], [0, 1])"))
        probes.append(Probe(f"file.fbo.cli.{name}", "cli", argv=["bearoff", "query", "0,0,1/0,1", "--db", str(path)]))
    for name, path in record_files(folder, rng):
        probes.append(Probe(f"file.record.api.{name}", "api", f"r = fevga.records.load_record({str(path)!r})"))
        probes.append(Probe(f"file.record.cli.{name}", "cli", argv=["analyse", str(path), "--evaluator", "heuristic"]))
    checkpoints, options = checkpoint_files(folder, rng)
    for name, path in checkpoints:
        probes.append(Probe(f"file.checkpoint.cli.{name}", "cli", argv=[*options.split(), "--checkpoint", str(path)]))
        probes.append(Probe(f"file.checkpoint.api.{name}", "api",
                            f"__import__('fevga.rollout.checkpoints', fromlist=['_'])._read_checkpoint("
                            f"__import__('pathlib').Path({str(path)!r}))"))
    train = folder / "train"
    subprocess.run([PYTHON, "-m", "fevga", "train", str(train), "--games", "64", "--batch", "32", "--hidden", "8",
                    "--check-every", "32", "--check-games", "36", "--workers", "1", "--no-progress"], check=True,
                   capture_output=True)
    data = (train / "checkpoint.npz").read_bytes()
    for i in range(20):
        label, content = _mutate(data, rng)
        copy = folder / f"train{i:02d}"
        copy.mkdir()
        (copy / "checkpoint.npz").write_bytes(content)
        probes.append(Probe(f"file.train.cli.mut{i:02d}-{label}", "cli",
                            argv=["train", str(copy), "--games", "96", "--batch", "32", "--hidden", "8",
                                  "--check-every", "32", "--check-games", "36", "--workers", "1", "--no-progress"]))
    return probes


# --- command line probes ----------------------------------------------------------------------

CLI_VALUES = ["\u00b2", "\u0661\u0662", "1_000", "9" * 5000, "-1", "0", "nan", "inf", "", " ", "--json", "x" * 10000,
              "10**12", "1e3", "\x7f", "{" * 1000, '{"game": "gioul"}', "0x10"]
CLI_OPTIONS = [
    ["rollout", "--games"], ["rollout", "--workers"], ["rollout", "--seed"], ["rollout", "--dice"],
    ["rollout", "--score", "1-0", "--length"], ["rollout", "--score"], ["rollout", "--candidates"], ["rollout", "--move"],
    ["perft"], ["perft", "1", "--position"], ["show"], ["moves", "start"], ["moves"], ["evaluate"],
    ["evaluate", "--plies"], ["hint", "start"], ["hint", "start", "6-5", "--plies"], ["hint", "start", "6-5", "--top"],
    ["met", "--length"], ["met", "--odds"], ["met", "--size"], ["play", "--seed"], ["play", "--start"],
    ["play-match"], ["play-match", "3", "--seed"], ["bearoff", "query"], ["bearoff", "build", "one-sided", "--points"],
    ["bearoff", "build", "one-sided", "--checkers"], ["analyse"], ["analyse", "x.mat", "--thresholds"],
    ["train", "out", "--games"], ["train", "out", "--lam"], ["train", "out", "--hidden"], ["moves", "--game", "gioul"],
]


def cli_probes(folder: Path, rng: random.Random, per: int) -> list[Probe]:
    probes = []
    fast = ["--games", "36", "--workers", "1", "--no-progress", "--policy", "random"]
    for o, option in enumerate(CLI_OPTIONS):
        for v in _pick(len(CLI_VALUES), per, rng):
            value = CLI_VALUES[v]
            argv = [*option, value]
            if argv[0] == "rollout":
                argv += fast  # the last --games wins: a short job
            if argv[0] == "play-match" and len(option) == 1:
                argv += ["--policy", "random"]
            if argv[0] == "train":  # the later options win: a short run whatever the value was
                argv = [a if a != "out" else str(folder / f"train-{o}-{v}") for a in argv] + [
                    "--games", "2", "--batch", "2", "--check-every", "2", "--check-games", "2", "--workers", "1",
                    "--no-progress"] + ([] if "--hidden" in option else ["--hidden", "4"])
            if option == ["perft"] and value in ("0x10",):
                continue
            probes.append(Probe(f"cli.arg.{o:02d}.{v:02d}", "cli", argv=argv))
    for i, command in enumerate(["met", "show", "moves start 6-5", "perft 2", "evaluate", "hint start 6-5",
                                 "rollout --games 36 --workers 1 --policy random", "--version", "met --json",
                                 "perft 2 --game gioul", "moves --game gioul start 6-5", "play --game gioul --seed 1",
                                 "play-match 1 --seed 1 --policy random"]):
        probes.append(Probe(f"cli.closed-stdout.{i}", "cli", shell=f"{PYTHON} -m fevga {command} >&-"))
        probes.append(Probe(f"cli.full-stdout.{i}", "cli", shell=f"{PYTHON} -m fevga {command} > /dev/full"))
        probes.append(Probe(f"cli.closed-stderr.{i}", "cli", shell=f"{PYTHON} -m fevga {command} nonsense 2>&-"))
        probes.append(Probe(f"cli.head.{i}", "cli", shell=f"{PYTHON} -m fevga {command} | head -c 1 >/dev/null"))
    return probes


def path_probes(folder: Path) -> list[Probe]:
    """Each writer against each kind of output path: refused and untouched, or (a symlink to a
    file) written through, and never a temporary file left behind."""
    record = folder / "rec.json"
    from fevga.game import play_game
    from fevga.records import save_record

    save_record(play_game(seed=3, policy="heuristic", max_plies=10), record)
    writers = {
        "analyse-html": lambda out: ["analyse", str(record), "--evaluator", "heuristic", "--html", out],
        "play-save": lambda out: ["play", "--seed", "1", "--save", out],
        "match-save": lambda out: ["play-match", "1", "--seed", "1", "--policy", "random", "--save", out],
        "build-out": lambda out: ["bearoff", "build", "one-sided", "--points", "3", "--checkers", "2", "--out", out,
                                  "--quiet"],
        "plot-out": lambda out: ["bearoff", "plot", "0,1", "--out", out],
        "show-svg": lambda out: ["show", "--svg", out],
        "checkpoint": lambda out: ["rollout", "--games", "36", "--seed", "1", "--policy", "random", "--workers", "1",
                                   "--checkpoint", out, "--no-progress"],
        "train": lambda out: ["train", out, "--games", "2", "--batch", "2", "--hidden", "4", "--check-every", "2",
                              "--check-games", "2", "--workers", "1", "--no-progress"],
    }
    root = os.geteuid() == 0  # root may write a read-only file (as a shell's > does); only root may mknod
    kinds = ["fifo", "directory", "missing-parent", "file-in-path", "symlink-file", "symlink-fifo", "dangling",
             "symlink-loop"] + (["chardev"] if root else ["readonly"])
    probes = []
    for writer, argv in writers.items():
        for kind in kinds:
            place = folder / f"paths-{writer}-{kind}"
            place.mkdir()
            out = _make_path(place, kind, writer)
            accepted = {"train": ("directory",), "checkpoint": ("dangling",)}.get(writer, ("symlink-file", "dangling"))
            expect = "ok" if kind in accepted else "error"
            after = f"""
place = Path({str(place)!r})
left = [p.name for p in place.rglob('*') if p.name.endswith('.fevga-tmp') or p.name.endswith('.tmp')]
assert not left, f"temporary files left: {{left}}"
kind = {kind!r}
out = Path({out!r})
if kind == 'fifo': assert stat.S_ISFIFO(os.lstat(out).st_mode), 'the FIFO was replaced'
if kind == 'chardev': assert stat.S_ISCHR(os.lstat(out).st_mode) and os.lstat(out).st_rdev == os.makedev(1, 3), 'device replaced'
if kind == 'symlink-fifo': assert stat.S_ISFIFO(os.lstat(place / 'pipe').st_mode) and out.is_symlink(), 'FIFO target replaced'
if kind in ('symlink-file', 'dangling'): assert out.is_symlink(), 'the symlink was replaced by a file'
if kind == 'missing-parent': assert not (place / 'missing').exists(), 'a missing folder was created'
if kind == 'readonly': assert out.read_bytes() == b'keep', 'a read-only file was replaced'
"""
            probes.append(Probe(f"path.{writer}.{kind}", "cli", argv=argv(out), expect=expect, after=after))
    return probes


def _make_path(place: Path, kind: str, writer: str) -> str:
    suffix = {"plot-out": ".png", "match-save": ".json", "show-svg": ".svg"}.get(writer, ".out")
    out = place / f"target{suffix}"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "chardev":
        os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    elif kind == "directory":
        out.mkdir()
    elif kind == "missing-parent":
        out = place / "missing" / "deeper" / f"target{suffix}"
    elif kind == "file-in-path":
        (place / "afile").write_text("x")
        out = place / "afile" / f"target{suffix}"
    elif kind == "symlink-file":
        (place / f"real{suffix}").write_text("old")
        out.symlink_to(place / f"real{suffix}")
    elif kind == "symlink-fifo":
        os.mkfifo(place / "pipe")
        out.symlink_to(place / "pipe")
    elif kind == "dangling":
        out.symlink_to(place / f"new{suffix}")
    elif kind == "symlink-loop":
        out.symlink_to(out)
    elif kind == "readonly":
        out.write_bytes(b"keep")
        out.chmod(0o444)
    return str(out)


# --- signal and kill probes -------------------------------------------------------------------


def signal_probes(folder: Path) -> list[Probe]:
    from fevga.game import play_game
    from fevga.records import save_record

    big = "rows = np.repeat(fevga.batch.to_array([P]), 3_000_000, axis=0); dice = np.tile([[6, 5]], (3_000_000, 1))\n"
    api = {
        "perft": "fevga.perft(P, 9)",
        "gioul-perft": "fevga.perft(G, 8)",
        "gioul-perft-7": "fevga.perft(G, 7)",
        "gioul-rollout": "r = fevga.rollout(G, games=10**9, workers=2, policy='heuristic', progress=False); assert r.interrupted; raise KeyboardInterrupt",
        "gioul-match": "[fevga.game.play_match(game='gioul', length=255, seed=i) for i in range(10**6)]",
        "callback-rollout": "r = fevga.rollout(MID, games=10**8, workers=2, policy=lambda p, d, m: m[-1], progress=False); assert r.interrupted; raise KeyboardInterrupt",
        "expectimax": "fevga.expectimax(P, 6)",
        "expectimax-net": "fevga.expectimax(MID, 4, evaluator='net')",
        "expectimax-callable": "fevga.expectimax(MID, 6, evaluator=lambda p: 0.0)",
        "expectimax-rollout": "fevga.expectimax(MID, 2, evaluator='rollout', games=10**7, workers=1)",
        "evaluate-3ply": "[fevga.evaluate(MID, 3) for _ in range(10**6)]",
        "hint-4ply": "[fevga.hint(MID, (5, 5), 4) for _ in range(10**6)]",
        "batch-count": big + "[fevga.batch.count_legal_moves(rows, dice) for _ in range(10**6)]",
        "batch-count-threads": big + "[fevga.batch.count_legal_moves(rows, dice, workers=2) for _ in range(10**6)]",
        "batch-evaluate": big + "[fevga.batch.evaluate(rows, workers=2) for _ in range(10**6)]",
        "batch-moves": big + "[fevga.batch.legal_moves(rows[:500_000], dice[:500_000]) for _ in range(10**6)]",
        "gioul-self-play": "fevga.gioul.self_play(16_000_000, seed=1)",
        "duel": "fevga.strength.duel('net', 'random', games=10**8, workers=2)",
        "rollout": "r = fevga.rollout(MID, games=10**9, workers=2, progress=False); assert r.interrupted; raise KeyboardInterrupt",
        "bearoff-build": "fevga.bearoff.TwoSidedDB.build(9)",
        "analyse": "r = fevga.analyse(fevga.game.play_match(25, seed=1, policy='random'), 3); assert r.interrupted; raise KeyboardInterrupt",
        "train": f"fevga.train.train({str(folder / 'sig-train-api')!r}, fevga.train.TrainConfig(games=10**6, batch=10**5, hidden=8, check_every=10**5, check_games=36), workers=2, progress=False)",
    }
    probes = [Probe(f"signal.api.{name}", "signal", code=code, delay=6.0) for name, code in api.items()]
    record = folder / "sig-record.json"
    save_record(play_game(seed=11, policy="random"), record)
    mid = play_game(seed=5, policy="heuristic", max_plies=24).final.id  # the api probes' MID
    cli = {
        "perft": ["perft", "9"], "gioul-perft": ["perft", "8", "--game", "gioul"],
        "gioul-perft-7": ["perft", "7", "--game", "gioul"],
        "gioul-rollout": ["rollout", "--game", "gioul", "--games", "1000000000", "--no-progress"],
        "gioul-play-match": ["play-match", "255", "--game", "gioul", "--policy", "heuristic"],
        "rollout": ["rollout", "--games", "1000000000", "--no-progress"],
        "rollout-moves": ["rollout", "--dice", "5-5", "--games", "100000000", "--no-progress"],
        "rollout-checkpoint": ["rollout", "--games", "100000000", "--checkpoint", "sig-ck.npz", "--no-progress"],
        "analyse-rollouts": ["analyse", str(record), "--rollouts", "100000000", "--workers", "1"],
        "analyse-3ply": ["analyse", str(record), "--plies", "4"],
        "bearoff-build": ["bearoff", "build", "two-sided", "--checkers", "9", "--out", "sig.fbo", "--quiet"],
        "train": ["train", "sig-train", "--games", "1000000", "--batch", "100000", "--hidden", "8",
                  "--check-every", "100000", "--check-games", "36", "--no-progress"],
        "play-match": ["play-match", "255", "--policy", "net2"],
        # the start is searched in 1-2 s; the middle game at these depths takes 20 s and more
        "evaluate": ["evaluate", mid, "--plies", "3"],
        "hint": ["hint", mid, "5-5", "--plies", "4"],
    }
    for name, argv in cli.items():
        after = ""
        if name == "analyse-rollouts":
            after = "assert 'INTERRUPTED' in out and 'cut short' in out, out[-500:]"
        probes.append(Probe(f"signal.cli.{name}", "signal", argv=argv, delay=8.0, after=after))
    return probes


KILL_WRITER = slow_writer(4_000_000)


def kill_probes(folder: Path) -> list[Probe]:
    """kill -9 during writes: the next write to the target removes the dead writer's temporary
    file; a killed rollout resumes from its checkpoint to the same result as an unbroken run."""
    probes = []
    for i, delay in enumerate([0.0, 0.5, 1.5, 3.0, 6.0]):
        target = folder / f"kill{i}.fbo"
        code = textwrap.dedent(f"""
            import subprocess, signal, os, sys, time
            child = subprocess.Popen([sys.executable, "-m", "fevga", "bearoff", "build", "two-sided",
                                      "--checkers", "7", "--out", {str(target)!r}, "--quiet"])
            time.sleep({delay})
            os.kill(child.pid, signal.SIGKILL); child.wait()
            child = subprocess.Popen([sys.executable, "-c", {KILL_WRITER!r}, {str(target)!r}], stdout=subprocess.PIPE)
            child.stdout.readline(); os.kill(child.pid, signal.SIGKILL); child.wait()
            left = [p for p in os.listdir({str(folder)!r}) if p.startswith(".kill{i}.fbo.")]
            assert len(left) >= 1, left
            fevga.bearoff.OneSidedDB.build(3, 2).save({str(target)!r})
            left = [p for p in os.listdir({str(folder)!r}) if p.startswith(".kill{i}.fbo.")]
            CHECK = left == [] and fevga.bearoff.open_db({str(target)!r}).points == 3
            NOTE = str(left)
        """)
        probes.append(Probe(f"kill.write.{i}", "api", code, expect="ok"))
    # The kill lands while the rollout runs: once its first block is in the checkpoint, plus a delay.
    # Three engine runs (killed, resumed, unbroken), each held to the per-run budget.
    for i, delay in enumerate([0.0, 0.5, 1.5]):
        ck = folder / f"resume{i}.npz"
        code = textwrap.dedent(f"""
            import subprocess, signal, os, sys, time
            budget = float(os.environ["FEVGA_PROBE_BUDGET"])  # seconds per engine run (--timeout)
            argv = [sys.executable, "-m", "fevga", "rollout", "--games", "20736", "--seed", "4", "--policy", "heuristic",
                    "--workers", "2", "--json", "--no-progress"]
            def timed(args):
                began = time.monotonic()
                done = subprocess.run(args, capture_output=True, text=True, check=True, timeout=budget)
                return json.loads(done.stdout), time.monotonic() - began
            began = time.monotonic()
            child = subprocess.Popen(argv + ["--checkpoint", {str(ck)!r}], stdout=subprocess.PIPE)
            while not os.path.exists({str(ck)!r}) and child.poll() is None and time.monotonic() - began < budget:
                time.sleep(0.01)
            time.sleep({delay})
            killed_running = child.poll() is None
            os.kill(child.pid, signal.SIGKILL); child.wait()
            resumed, t_resumed = timed(argv + ["--checkpoint", {str(ck)!r}])
            whole, t_whole = timed(argv)
            keys = ("games", "equity", "equity_se", "win", "win_mars", "lose_mars", "length_counts", "first_rolls")
            CHECK = killed_running and all(resumed[k] == whole[k] for k in keys)
            NOTE = (f"killed while running: {{killed_running}}; resumed run {{t_resumed:.1f}} s, unbroken run {{t_whole:.1f}} s; "
                    + str([(k, resumed[k], whole[k]) for k in keys if resumed[k] != whole[k]])[:300])
        """)
        probes.append(Probe(f"kill.resume.{i}", "api", code, expect="ok", runs=3))
    return probes


# --- running the sweep ------------------------------------------------------------------------


def all_probes(folder: Path, seed: int, per: int) -> list[Probe]:
    rng = random.Random(seed)
    probes = api_probes(rng, per) + callback_probes() + cli_probes(folder, rng, per) + path_probes(folder) + file_probes(folder, rng) \
        + signal_probes(folder) + kill_probes(folder)
    ids = Counter(p.id for p in probes)
    duplicated = [i for i, n in ids.items() if n > 1]
    assert not duplicated, duplicated
    return probes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="probes run at a time (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per probe (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the generated inputs (default: %(default)s)")
    parser.add_argument("--per", type=int, default=8,
                        help="hostile values drawn per API call and per CLI option (0: all; default: %(default)s)")
    parser.add_argument("--only", default="", help="run only the probes whose id starts with this")
    parser.add_argument("--list", action="store_true", help="list the probes and exit")
    parser.add_argument("--out", default=None, help="write every outcome as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="fevga-sweep-"))
    (work / "cwd").mkdir()
    (work / "cache").mkdir()
    os.environ["FEVGA_REPO"] = str(Path(__file__).resolve().parent.parent)
    os.environ["FEVGA_CACHE_DIR"] = str(work / "cache")
    try:
        probes = [p for p in all_probes(work, args.seed, args.per) if p.id.startswith(args.only)]
        if args.list:
            for probe in probes:
                print(probe.id)
            print(f"{len(probes)} probes")
            return 0
        began = time.perf_counter()
        outcomes: list[Outcome] = []
        with ThreadPoolExecutor(args.jobs) as pool:
            for outcome in pool.map(lambda p: run_probe(p, args.timeout, work), probes):
                outcomes.append(outcome)
                if outcome.verdict != "pass":
                    print(f"FAIL {outcome.probe}: {outcome.verdict}: {outcome.detail[:400]}", flush=True)
        report(outcomes, time.perf_counter() - began)
        if args.out:
            Path(args.out).write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
        return 0 if all(o.verdict == "pass" for o in outcomes) else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def report(outcomes: list[Outcome], seconds: float) -> None:
    classes = Counter(o.probe.split(".")[0] + "." + o.probe.split(".")[1] for o in outcomes)
    verdicts = Counter(o.verdict for o in outcomes)
    print(f"\n{len(outcomes)} probes in {seconds:.0f} s; verdicts: "
          + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
    for name, count in sorted(classes.items()):
        failed = sum(1 for o in outcomes if o.verdict != "pass" and o.probe.startswith(name + "."))
        print(f"  {name:<22} {count:5d} probes, {failed} failed")
    latencies = sorted(o.latency for o in outcomes if o.latency is not None)
    if latencies:
        print(f"  SIGINT to exit: median {latencies[len(latencies) // 2]:.2f} s, max {latencies[-1]:.2f} s "
              f"over {len(latencies)} signal probes")
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"  slowest probe: {slowest.probe} {slowest.seconds:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
