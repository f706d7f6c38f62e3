"""Answers that used to be silently wrong (issue 9), each pinned by a test that failed before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from boards import race

import fevga
from fevga import InvalidArgumentError, InvalidPositionError, Move, Position, WHITE
from fevga.bearoff import OneSidedDB, TwoSidedDB, best_move, covers
from fevga.cli import main
from fevga.game import play_game
from fevga.rollout import rollout, rollout_moves


def test_rollouts_refuse_a_two_sided_table_for_another_checker_total() -> None:
    small_game = TwoSidedDB.build(checkers=2, total=2)
    pos = race([1, 1], [0, 1])  # both sides within the table: it would have been used
    with pytest.raises(InvalidArgumentError, match="total=2"):
        rollout(pos, games=36, seed=1, workers=1, truncate=True, bearoff=small_game, progress=False)
    right = TwoSidedDB.build(checkers=2)
    result = rollout(pos, games=36, seed=1, workers=1, truncate=True, bearoff=right, progress=False)
    assert result.equity == pytest.approx(right.equity(pos), abs=1e-12)


def test_move_results_are_labelled_with_the_position_where_the_mover_is_on_roll(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    start = Position.initial()
    ranking = rollout_moves(start, "5-5", games=72, seed=1, workers=1, progress=False)
    for m in ranking:
        assert m.result.position == start.id  # White on roll: the figures are White's
        assert Position.from_id(m.result.position).turn == WHITE
        assert m.to_dict()["after"] == m.move.position.id
    assert main(["rollout", "start", "--dice", "6-5", "--games", "36", "--seed", "1", "--workers", "1",
                 "--json", "--no-progress"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["position"] for m in moves] == [start.id] and moves[0]["result"]["position"] == start.id


def test_luck_adjusted_ranking_reports_one_consistent_difference() -> None:
    start = play_game(seed=4, max_plies=6).final
    # the shipped net's int16 tables: the same arithmetic of diff, six times as fast as the float net
    ranking = rollout_moves(start, "4-2", games=36, seed=2, workers=1, luck=True, progress=False,
                            net=fevga.Net.default().quantised())
    best = ranking[0]
    for m in ranking:
        # diff is the raw common-random-number difference, the quantity diff_se measures
        assert m.diff == pytest.approx(m.result.raw_equity - best.result.raw_equity, abs=1e-12)
        assert m.diff <= 0.0
    assert ranking[0].diff_se == 0.0


def _race_positions(seed: int, count: int) -> list[Position]:
    """Random no-contact races: 4-15 checkers a side in the home boards."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        sides = []
        for _ in range(2):
            n = int(rng.integers(4, 16))
            points = np.bincount(rng.integers(1, 7, size=n), minlength=7)[1:]
            sides.append([15 - n, *points.tolist()] + [0] * 18)
        out.append(Position.from_counts(sides[0], sides[1], int(rng.integers(0, 2))))
    return out


def test_python_best_move_and_the_core_bearoff_policy_use_one_measure() -> None:
    two, one = TwoSidedDB.build(checkers=6), OneSidedDB.build(6, 15)  # the rollouts' default tables
    decisions = 0
    for i, start in enumerate(_race_positions(3, 25)):
        record = play_game(seed=i, policy="bearoff", start=start)
        for before, ply, after in zip(record.positions(), record.plies, record.positions()[1:]):
            if len(before.legal_moves(ply.dice)) < 2 or not covers(before, bearoff=two, one_sided=one):
                continue
            assert best_move(before, ply.dice, bearoff=two, one_sided=one).position == after, (before.id, ply)
            decisions += 1
    assert decisions > 100


def test_one_sided_build_refuses_zero_checkers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "zero.fbo"
    assert main(["bearoff", "build", "one-sided", "--checkers", "0", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "checkers=0" in err and err.count("\n") == 1 and not out.exists()


def test_batch_lookups_refuse_fractional_counts() -> None:
    db = OneSidedDB.build(6, 3)
    assert db.mean_rolls_batch(np.array([[0, 0, 0, 0, 0, 1]])).tolist() == [db.mean_rolls([0, 0, 0, 0, 0, 1])]
    with pytest.raises(InvalidPositionError, match="integer"):
        db.mean_rolls_batch(np.array([[0, 0, 0, 0, 0, 1.5]]))
    with pytest.raises(InvalidPositionError, match="integer"):
        db.ranks(np.array([[0.9, 0, 0, 0, 0, 0]]))


def test_resumed_rollout_reports_a_seed_that_reproduces_it_and_its_own_rate(tmp_path: Path) -> None:
    path = tmp_path / "job.ckpt"
    start = Position.initial()

    def stop_after_first_block(done: int, total: int) -> None:
        raise KeyboardInterrupt

    common = dict(games=2 * 1296, workers=1, policy="random", checkpoint=path, progress=False)
    first = rollout(start, seed=None, on_block=stop_after_first_block, **common)  # type: ignore[arg-type]
    assert first.interrupted and isinstance(first.seed, int)
    resumed = rollout(start, seed=None, **common)  # type: ignore[arg-type]
    assert resumed.seed == first.seed and resumed.resumed_games == first.games and not resumed.interrupted
    fresh = rollout(start, seed=resumed.seed, games=2 * 1296, workers=1, policy="random", progress=False)
    assert fresh == resumed  # the reported seed reproduces the resumed job
    rate = (resumed.games - resumed.resumed_games) / resumed.elapsed
    assert f"{rate:,.0f} games/s" in resumed.summary() and "resumed" in resumed.summary()


def test_move_equality_follows_the_resulting_position() -> None:
    start = Position.initial()
    move = start.legal_moves("6-5")[0]
    same = Move(((24, 19), (19, 13)), move.position)
    assert move.steps != same.steps and move == same and hash(move) == hash(same) and not move != same
    assert len({move, same}) == 1
    other = start.legal_moves("5-5")[0]
    assert move != other


def test_position_constructor_and_repr() -> None:
    assert Position() == Position.initial()
    with pytest.raises(TypeError):
        Position([0] * 25)  # type: ignore[call-arg]
    namespace = {"Position": Position, "Move": Move}
    for position in (Position.initial(), play_game(seed=2).final):
        assert eval(repr(position), namespace) == position
        for move in position.legal_moves("3-1"):
            assert eval(repr(move), namespace) == move and eval(repr(move), namespace).steps == move.steps


def test_readme_modules_are_usable_after_import_fevga() -> None:
    code = "import fevga; print(fevga.game.play_game, fevga.batch.count_legal_moves, fevga.svg.board)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_perft_and_expectimax_stop_on_ctrl_c() -> None:
    """A SIGINT during a deep search ends it with KeyboardInterrupt within a bounded time."""
    code = (
        "import signal, threading, os, fevga\n"
        "threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        "    fevga.{call}\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    for call in ("perft(fevga.Position.initial(), 9)", "expectimax(fevga.Position.initial(), plies=6)"):
        done = subprocess.run([sys.executable, "-c", code.format(call=call)], capture_output=True, text=True,
                              timeout=60)
        assert done.stdout.strip() == "interrupted", (call, done.stderr)


def test_bearoff_build_stops_on_ctrl_c() -> None:
    """One long core call (no Python loop around it) stops part-way on SIGINT."""
    code = (
        "import signal, threading, os\n"
        "from fevga_core.bearoff import OneSidedBuilder, TwoSidedBuilder\n"
        "for builder in (TwoSidedBuilder(6, 9, 15), OneSidedBuilder(11, 15)):\n"
        "    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "    try:\n"
        "        builder.run(10**12)\n"
        "    except KeyboardInterrupt:\n"
        "        total = getattr(builder, 'positions', None) or builder.entries\n"
        "        print('stopped' if builder.done < total else 'finished')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["stopped", "stopped"], done.stderr


def test_huge_rollout_starts_without_listing_its_blocks() -> None:
    code = (
        "import resource, fevga\n"
        "r = fevga.rollout(fevga.Position.initial(), games=10**12, seed=1, workers=1, policy='random',\n"
        "                  progress=False, on_block=lambda done, total: (_ for _ in ()).throw(KeyboardInterrupt))\n"
        "print(r.games, r.interrupted, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    games, interrupted, max_rss_kib = done.stdout.split()
    assert (games, interrupted) == ("1296", "True"), done.stderr
    assert int(max_rss_kib) < 1_000_000  # a list of 7.7e8 block numbers alone is ~30 GB
    with pytest.raises(InvalidArgumentError, match="at most"):
        rollout(Position.initial(), games=2**60, seed=1, workers=1, progress=False)


def test_cli_errors_are_one_line_with_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    cases = [
        (["bearoff", "build", "one-sided", "--checkers", "2", "--out", str(locked / "x" / "t.fbo"), "--quiet"],
         "does not exist"),  # fevga never creates the missing folder (it could not here either)
        (["bearoff", "build", "one-sided", "--checkers", "2", "--out", str(locked / "t.fbo"), "--quiet"],
         "not writable" if hasattr(sys, "getuid") and sys.getuid() != 0 else None),
        (["bearoff", "build", "one-sided", "--checkers", "2", "--out", str(tmp_path), "--quiet"], None),
        (["bearoff", "build", "two-sided", "--points", "11", "--checkers", "15", "--quiet"], "TiB"),
        (["bearoff", "plot", "0,2,3", "--out", str(tmp_path / "d.xyz")], "unknown image format 'xyz'"),
        (["moves", "start", "9-9"], "dice"),
    ]
    for argv, needle in cases:
        status = main(argv)
        err = capsys.readouterr().err
        if needle is None and status == 0:  # e.g. running as root: the directory is writable
            continue
        assert status == 2, (argv, err)
        assert err.startswith("fevga: error: ") and err.count("\n") == 1, (argv, err)
        if needle:
            assert needle in err


def test_cli_full_stdout_is_one_line_and_status_2() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "fevga", "show"], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "No space left" in done.stderr, done.stderr


def test_cli_version_and_moves_of_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0 and capsys.readouterr().out.strip() == f"fevga {fevga.__version__}"
    finished = play_game(seed=3).final
    assert main(["moves", finished.id, "6-5"]) == 0
    out = capsys.readouterr().out
    assert "game is over" in out and "wins" in out


def test_progress_bars_only_on_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "t.fbo"
    done = subprocess.run([sys.executable, "-m", "fevga", "bearoff", "build", "two-sided", "--checkers", "4",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr  # no bar when stderr is a pipe
    assert "two-sided 6x4" in done.stdout


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_files_are_created_with_the_users_umask(tmp_path: Path, umask: int) -> None:
    import os
    import stat

    old = os.umask(umask)
    try:
        table = OneSidedDB.build(3, 2).save(tmp_path / f"t{umask}.fbo")
        checkpoint = tmp_path / f"c{umask}.ckpt"
        rollout(Position.initial(), games=36, seed=1, workers=1, policy="random", checkpoint=checkpoint,
                progress=False)
    finally:
        os.umask(old)
    for path in (table, checkpoint):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
