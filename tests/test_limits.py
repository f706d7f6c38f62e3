"""Explicit limits checked before the work starts, arguments of the wrong type or size refused
with a FevgaError naming them, and Ctrl-C answered by every long loop (issue 19, "Hangs and
unbounded work" and "non-FevgaError exceptions from the API").

The Ctrl-C tests run each job in a subprocess and send it SIGINT: the job would run for many
minutes, so finishing inside the subprocess timeout shows that it stopped."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import fevga
import fevga.batch
import fevga.bearoff
import fevga.game
import fevga.svg
import fevga.gioul
import fevga.match
import fevga.records
import fevga.strength
import fevga.train
from fevga import FevgaError, GioulPosition, InvalidArgumentError, Position
from fevga.bearoff import TwoSidedDB
from fevga.limits import MAX_BATCH_ROWS, MAX_WORKERS

START = Position.initial()


@pytest.mark.parametrize("call, needle", [
    (lambda: fevga.rollout(START, workers=20000, games=36, progress=False), f"workers=20000 must be an integer in 1..{MAX_WORKERS}"),
    (lambda: fevga.rollout_moves(START, (6, 5), workers=0, games=36, progress=False), "workers=0"),
    (lambda: fevga.strength.duel("random", "random", games=72, workers=10**6), "workers=1000000"),
    (lambda: fevga.batch.evaluate(fevga.batch.to_array([START]), workers=10**9), f"workers=1000000000 must be an integer in 1..{MAX_WORKERS}"),
    (lambda: fevga.batch.count_legal_moves(fevga.batch.to_array([START]), [[6, 5]], workers=2**70), f"workers={2**70} must"),
    (lambda: fevga.batch.count_legal_moves([GioulPosition.initial()], [[6, 5]], workers=-1), "workers=-1"),
    (lambda: TwoSidedDB.build(2, workers=10**6), "workers=1000000"),
    (lambda: fevga.gioul.self_play(10**12, seed=1), f"games=1000000000000 must be an integer in 0..{MAX_BATCH_ROWS}"),
    (lambda: fevga.expectimax(START, plies=7, evaluator=lambda p: 0.0), "expectimax plies=7 must be an integer in 0..6"),
    (lambda: fevga.expectimax(START, plies=10**9, evaluator="rollout"), "0..6"),
    (lambda: fevga.rollout(START, games=10**12 * 10**12, progress=False), "at most"),
    (lambda: START.legal_moves(itertools.repeat(6)), "exactly two numbers"),
    (lambda: Position.from_counts(itertools.repeat(0), [0] * 24 + [15]), "25 integers"),
    (lambda: fevga.batch.to_array(itertools.repeat(START)), f"more than {MAX_BATCH_ROWS} items"),
    (lambda: GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15], next_roll=(2, 1), roller=0,
                                       dice=itertools.repeat(5)), "more than 24 dice"),
    (lambda: GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15], next_roll=(2, 1), roller=0, dice="\u00b2"),
     "expected numbers 1-6"),
    (lambda: fevga.strength.duel("random", "random", games=10**12, workers=1), "games=1000000000000 must be an integer in 2..100000000"),
    (lambda: fevga.strength.duel("random", "random", games=71, workers=1), "even integer"),
    (lambda: fevga.strength.measure_odds(10**12, workers=1), "games=1000000000000 must be an integer in 1..100000000"),
    (lambda: fevga.strength.measure_odds(10**12, opening=True), "games=1000000000000 must be an integer in 1..100000000"),
    (lambda: fevga.strength.rate_policy("random", games=10**12), "games=1000000000000 must be an integer in 1..1000000"),
    (lambda: fevga.game.play_match(256, seed=1), "match length=256 must be an integer in 1..255"),
    (lambda: fevga.game.play_match(3, seed=1, max_games=10**12), "max_games=1000000000000 must be an integer in 1..100000"),
    (lambda: fevga.game.play_match(game="gioul", length=10**9, seed=1), "match length=1000000000 must be an integer in 1..255"),
    (lambda: fevga.game.play_match(game="gioul", length=3, seed=1, max_games=2**70), "max_games="),
    (lambda: fevga.game.play_game(seed=1, max_plies=4097), "max_plies=4097 must be an integer in 0..4096"),
    (lambda: fevga.match.match_equity_table(256), "match length=256 must be an integer in 1..255"),
    (lambda: fevga.evaluate(START, score=(0, 0), length=10**12), "match length=1000000000000 must be an integer in 1..255"),
])
def test_limits_are_checked_before_the_work(call: object, needle: str) -> None:
    with pytest.raises(FevgaError) as info:
        call()  # type: ignore[operator]
    assert needle in str(info.value), str(info.value)


def test_batch_rows_over_the_limit_are_refused_without_reading_them() -> None:
    row = np.frombuffer(START._row(), dtype=np.uint8)
    huge = np.broadcast_to(row, (10**12, 51))  # a view: no memory, but 10^12 rows to validate
    dice = np.broadcast_to(np.array([6, 5], dtype=np.uint8), (10**12, 2))
    for call in (lambda: fevga.batch.count_legal_moves(huge, dice), lambda: fevga.batch.evaluate(huge),
                 lambda: fevga.batch.legal_moves(huge, dice), lambda: fevga.batch.from_array(huge)):
        with pytest.raises(InvalidArgumentError, match=f"over the limit of {MAX_BATCH_ROWS}"):
            call()
    with pytest.raises(InvalidArgumentError, match="over the limit"):
        fevga.gioul.validate_states(np.broadcast_to(np.zeros(58, dtype=np.uint8), (10**12, 58)))


@pytest.mark.parametrize("bad", [None, "start", 2**70, GioulPosition.initial(), [0] * 51, b"\x00" * 51, 1.5])
def test_a_position_argument_of_the_wrong_type_names_it(bad: object) -> None:
    for call in (lambda: fevga.evaluate(bad), lambda: fevga.hint(bad, (6, 5)),  # type: ignore[arg-type]
                 lambda: fevga.expectimax(bad), lambda: fevga.perft(bad, 1),  # type: ignore[arg-type]
                 lambda: fevga.rollout(bad, games=36, progress=False),  # type: ignore[arg-type]
                 lambda: fevga.batch.to_array([bad]),  # type: ignore[list-item]
                 lambda: fevga.bearoff.evaluate(bad), lambda: fevga.bearoff.best_move(bad, (6, 5)),  # type: ignore[arg-type]
                 lambda: fevga.svg.board(bad)):  # type: ignore[arg-type]  (the probe sweep's seed 4242 found these four)
        try:
            call()
        except FevgaError as exc:
            assert "position" in str(exc).lower() or "gioul" in str(exc).lower(), str(exc)
        else:
            assert isinstance(bad, GioulPosition)  # perft and rollout play Gioul states


@pytest.mark.parametrize("bad", ["start", float("inf"), [0] * 51])  # a GioulPosition plays Gioul (test_gioul_match)
def test_a_start_of_the_wrong_type_names_it(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="must be a fevga.Position"):
        fevga.game.play_game(seed=1, start=bad, max_plies=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("policy", [np.zeros((2, 51)), ("random", np.zeros(3)), [1, 2], 7])
def test_a_policy_of_the_wrong_type_names_it(policy: object) -> None:
    # an array policy raised NumPy's "truth value of an array is ambiguous" ValueError from
    # play_game's name comparisons (the probe sweep, seed 777); policy_pair now checks each one
    for call in (lambda: fevga.game.play_game(seed=1, policy=policy),  # type: ignore[arg-type]
                 lambda: fevga.game.play_match(1, seed=1, policy=policy),  # type: ignore[arg-type]
                 lambda: fevga.rollout(START, games=36, workers=1, policy=policy, progress=False),  # type: ignore[arg-type]
                 lambda: fevga.strength.duel(policy, "random", games=2, workers=1)):  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="policy"):
            call()


@pytest.mark.parametrize("value", [2**70, -1, 10**12, "bogus", 1.5, [True]])
def test_rule_options_of_the_wrong_type_or_size(value: object) -> None:
    for name in ("release", "first_roll", "ban_prime_before_opponent_mother", "must_open", "game"):
        with pytest.raises(fevga.InvalidRulesError, match=name):
            fevga.Rules(**{name: value})  # type: ignore[arg-type]
    with pytest.raises(fevga.InvalidRulesError):
        START.legal_moves((6, 5), rules=value)  # type: ignore[arg-type]


# --- Ctrl-C -------------------------------------------------------------------------------------

_INTERRUPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    import fevga, fevga.batch, fevga.gioul, fevga.strength
    from fevga import Position
    start = Position.initial()
    SETUP
    threading.Timer(DELAY, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        CALL
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
""")

_GIOUL_NET = (f"import fevga_core.rollout; "
              f"net = fevga.Net.load({str(Path(__file__).resolve().parents[1] / 'benchmarks/nets/gioul-net-1.npz')!r})")
_BIG = "rows = np.repeat(fevga.batch.to_array([start]), 4_000_000, axis=0); dice = np.tile([[6, 5]], (4_000_000, 1))"


@pytest.mark.parametrize("setup, call", [
    (_BIG, "for _ in range(10**6): fevga.batch.count_legal_moves(rows, dice)"),
    (_BIG, "for _ in range(10**6): fevga.batch.count_legal_moves(rows, dice, workers=2)"),
    (_BIG, "for _ in range(10**6): fevga.batch.evaluate(rows, workers=2)"),
    (_BIG, "for _ in range(10**6): fevga.batch.legal_moves(rows[:1_000_000], dice[:1_000_000])"),
    ("", "fevga.expectimax(start, depth=6, evaluator=lambda p: 0.0)"),
    ("", "fevga.expectimax(start, depth=3, evaluator='rollout', games=10**6, workers=1)"),
    ("", "fevga.gioul.self_play(16_000_000, seed=1)"),
    ("", "fevga.perft(fevga.GioulPosition.initial(), 8)"),
    ("", "fevga.perft(start, 9)"),
    ("", "fevga.strength.duel('net', 'random', games=10**8, workers=2)"),
    ("states = np.repeat(fevga.gioul.to_array([fevga.GioulPosition.initial()]), 4_000_000, axis=0); "
     "dice = np.tile([[6, 5]], (4_000_000, 1))",
     "for _ in range(10**6): fevga.batch.count_legal_moves(states, dice, workers=2)"),
    (_GIOUL_NET, "fevga.strength.gioul_duel('net2', 'net', games=10**6, net_a=net, net_b=net, workers=2)"),
    (_GIOUL_NET, "fevga_core.rollout.gioul_games(1, 0, 200, False, 6, 6, net._core, net._core)"),  # within one check
])
def test_long_calls_stop_on_ctrl_c(setup: str, call: str) -> None:
    code = _INTERRUPT.replace("SETUP", setup).replace("CALL", call).replace("DELAY", "1.0")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "interrupted", (call, done.stdout, done.stderr[-2000:])


def test_training_stops_on_ctrl_c_with_a_whole_checkpoint(tmp_path: Path) -> None:
    """A batch of 100,000 games would take many minutes: Ctrl-C stops it at once, the
    checkpoint holds whole batches only, and the run resumes from it."""
    argv = [sys.executable, "-m", "fevga", "train", str(tmp_path), "--games", "200064", "--batch", "100000",
            "--hidden", "8", "--check-every", "100000", "--check-games", "36", "--workers", "2", "--no-progress"]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(tmp_path / "checkpoint.npz", child)  # the first strength check has been saved
    os.kill(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    run = fevga.train._load(tmp_path, fevga.train.TrainConfig(games=200064, batch=100000, hidden=8,
                                                               check_every=100000, check_games=36))
    assert run is not None and run.games in (0, 100000)  # whole batches, never a part of one


def _wait_for(path: Path, child: subprocess.Popen[str]) -> None:
    for _ in range(1200):
        if path.exists() or child.poll() is not None:
            return
        try:
            child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError(f"{path} never appeared")


def _wait_for_cpu(child: subprocess.Popen[str], seconds: float, limit: float = 300.0) -> None:
    """Wait until `child` has used `seconds` of CPU time (or exited): on a loaded machine the wall
    time a stage takes varies many times over, the CPU time it needs does not."""
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + limit
    while child.poll() is None and time.monotonic() < deadline:
        with open(f"/proc/{child.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks >= seconds:  # utime + stime
            return
        time.sleep(0.1)


def test_analysis_with_rollouts_stops_on_ctrl_c_and_says_what_was_cut_short(tmp_path: Path) -> None:
    from fevga.analyser import analyse
    from fevga.records import save_record

    start = fevga.game.play_game(seed=4, policy="heuristic", max_plies=20).final
    for seed in range(100):  # a one-ply record whose ply is a blunder: its re-check starts at once
        game = fevga.game.play_game(seed=seed, policy="random", start=start, max_plies=1)
        if analyse(game).plies()[0].mark:
            break
    record = tmp_path / "game.json"
    save_record(game, record)
    argv = [sys.executable, "-m", "fevga", "analyse", str(record), "--rollouts", "10000000", "--workers", "1",
            "--html", str(tmp_path / "report.html")]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_cpu(child, 8.0)  # start-up and the one ply take about 2 s of CPU: the re-check is under way
    os.kill(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, (out, err)
    assert "INTERRUPTED" in out and "re-check of game 1 ply 1 (move 1) was cut short" in out, out
    assert "(rollout 10000000 games" not in out  # never presented as a complete re-check
    assert "not written" in err and not (tmp_path / "report.html").exists()
    assert "Traceback" not in err


def test_ubgi_search_stops_at_once_on_stop_and_on_ctrl_c() -> None:
    """A rollout go plays blocks of 1,296 net games (about 10 s each here): stop and Ctrl-C
    must not wait for the block, whose games the nogil loop checks one by one."""
    child = subprocess.Popen([sys.executable, "-m", "fevga", "ubgi"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None

    def send(line: str) -> None:
        assert child.stdin is not None
        child.stdin.write(line + "\n")
        child.stdin.flush()

    try:
        for line in ("position fevgaid start", "dice 6 5", "set engine.rollouts 1000000", "isready"):
            send(line)
        while child.stdout.readline().strip() != "readyok":
            pass
        send("go")
        send("isready")
        assert child.stdout.readline().strip() == "readyok"  # the search runs in its thread
        send("stop")
        answer: list[str] = []
        reader = threading.Thread(target=lambda: answer.append(child.stdout.readline().strip()))  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout=8)
        assert answer == ["error bad_state stopped"], answer
        send("go")
        send("isready")
        assert child.stdout.readline().strip() == "readyok"
        os.kill(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=8)
        assert child.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    finally:
        child.kill()
        child.wait()


def test_a_rollout_in_another_thread_stops_when_cancelled() -> None:
    """Signals reach the main thread only: a service's rollout stops through `cancel`,
    within a game of the check every 0.2 s, not at the end of its 1,296-game block."""
    cancel = threading.Event()
    results: list[fevga.RolloutResult] = []
    worker = threading.Thread(target=lambda: results.append(
        fevga.rollout(START, games=10**6, workers=1, progress=False, cancel=cancel)))
    worker.start()
    worker.join(timeout=1.0)
    cancel.set()
    worker.join(timeout=8)
    assert not worker.is_alive() and results[0].interrupted and results[0].games < 10**6
    with pytest.raises(InvalidArgumentError, match="cancel='yes' must be a threading.Event"):
        fevga.rollout(START, games=36, progress=False, cancel="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs, needle", [
    ({"rollouts": 36, "workers": 10**6}, "workers=1000000 must be an integer in 1..256"),
    ({"rollouts": 36, "workers": 0}, "workers=0"),
    ({"rollouts": 2**60}, "rollouts=1152921504606846976 must be an integer in 0..9007199254740956"),
    ({"rollouts": -1}, "rollouts=-1"),
])
def test_analysis_rollout_limits_are_checked_before_the_analysis(kwargs: dict[str, int], needle: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # workers went unchecked until the first re-check, after the analysis of the plies before it
    import fevga.analyser

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis started")

    monkeypatch.setattr(fevga.analyser.Analyser, "games", never)
    record = fevga.game.play_game(seed=1, policy="heuristic", max_plies=30)
    with pytest.raises(InvalidArgumentError) as info:
        fevga.analyse(record, **kwargs)
    assert needle in str(info.value), str(info.value)


_RECORD = fevga.game.play_game(seed=1, policy="heuristic", max_plies=6)
_TABLE = fevga.match.match_equity_table(5)


@pytest.mark.parametrize("call, needle", [
    # found by an in-process pass of every hostile value over the secondary arguments of the API
    (lambda: fevga.svg.board(START, size=None), "size=None must be an integer in 1..10000"),
    (lambda: fevga.svg.board(START, dice=iter([6] * 100_000)), "more than 24 items"),  # itertools.repeat filled the memory
    (lambda: fevga.svg.board(START, dice="65"), "dice '65' must be a sequence"),
    (lambda: fevga.svg.board(START, dice=(6, 7)), "die=7 must be an integer in 1..6"),
    (lambda: fevga.svg.board(START, coordinates=np.zeros(3)), "coordinates=array"),
    (lambda: fevga.bearoff.OneSidedDB.build(2, 2).mean_rolls(iter([6] * 100_000)), "more than 25 items"),
    (lambda: fevga.bearoff.TwoSidedDB.build(2).win_probability(iter([0] * 100_000), [0, 1]), "more than 25 items"),
    (lambda: _TABLE.starter(None, 1), "away score None must be an integer"),  # type: ignore[arg-type]
    (lambda: _TABLE.grid(np.zeros(3)), "starter array"),  # type: ignore[arg-type]
    (lambda: _TABLE.to_text(size="x"), "size='x' must be an integer"),  # type: ignore[arg-type]
    (lambda: fevga.match.match_winning_chance(_TABLE, None, 0.5, 0, 0), "away scores None"),  # type: ignore[arg-type]
    (lambda: fevga.match.match_winning_chance(_TABLE, (2, 2), None, 0, 0), "win=None must be a finite number"),  # type: ignore[arg-type]
    (lambda: fevga.match.GameOdds.from_probabilities(float("nan"), 0, 0, 0), "win=nan must be a finite number"),
    (lambda: fevga.records.write_match(None), "record None must be"),  # type: ignore[arg-type]
    (lambda: fevga.records.save_record(_RECORD, None), "record path None must be a string or a path"),  # type: ignore[arg-type]
    (lambda: fevga.records.load_record(""), "record path '' is not a file name"),
    (lambda: fevga.bearoff.open_db(None), "bear-off file path None"),  # type: ignore[arg-type]
    (lambda: fevga.bearoff.OneSidedDB.build(2, 2).save(None), "bear-off table path None"),  # type: ignore[arg-type]
    (lambda: fevga.analyse(_RECORD, keep="x"), "keep='x' must be an integer"),  # type: ignore[arg-type]
    (lambda: fevga.analyse(_RECORD, evaluator="start"), "evaluator 'start' must be an analysis evaluator"),  # type: ignore[arg-type]
    (lambda: fevga.analyse(_RECORD, thresholds=np.zeros(3)), "thresholds array"),  # type: ignore[arg-type]
    (lambda: fevga.rollout(START, games=36, workers=1, progress=False, truncate=np.zeros(3)), "truncate=array"),
    (lambda: fevga.rollout(START, games=36, workers=1, progress=False, luck="no"), "luck='no' must be True or False"),
    (lambda: fevga.rollout(START, games=36, workers=1, progress=False, stratify=np.zeros(3)), "stratify=array"),
    (lambda: fevga.rollout_moves(START, (6, 5), games=36, workers=1, progress=np.zeros(2)), "progress=array"),
])
def test_secondary_arguments_of_the_wrong_type_name_them(call: object, needle: str) -> None:
    with pytest.raises(FevgaError) as info:
        call()  # type: ignore[operator]
    assert needle in str(info.value), str(info.value)


def test_probabilities_a_rounding_error_outside_0_1_are_still_numbers() -> None:
    # a net's or a rollout's P(win) can be -2.2e-16 or 1 + 2.2e-16: refusing it broke analyses
    # at a match score (the full suite, on the first version of check_real)
    chance = fevga.match.match_winning_chance(_TABLE, (2, 2), -2.220446049250313e-16, 0.0, 0.0)
    assert chance == pytest.approx(fevga.match.match_winning_chance(_TABLE, (2, 2), 0.0, 0.0, 0.0), abs=1e-12)
