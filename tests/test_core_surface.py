"""Hostile input at every public entry point of the compiled core (issue 9, memory safety).

The core runs without bounds checks, so each entry point must refuse what its kernels cannot
handle: every case below crashed (SIGSEGV, heap corruption) or read out of bounds before the
core validated its arguments. The fuzz tests at the end throw random arguments at every
public name; `.ci/sanitize` runs this file under AddressSanitizer and UBSan.
"""

from __future__ import annotations

import gc
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fevga
import fevga.batch
import fevga.game
import fevga.gioul
from fevga import FevgaError, InvalidArgumentError, InvalidDiceError, InvalidPositionError, Position
from fevga.gioul import GioulPosition
from fevga_core import bearoff, board, game, movegen
from fevga_core import race as core_race
from fevga_core import rollout as core_rollout
from fevga_core import search as core_search
from fevga_core import state as core_state
from fevga_core.constants import FLAG_GIOUL
from fevga_core.position import CorePosition

from boards import busy_position

START_ROW = Position.initial()._row()
ROWS = fevga.batch.to_array([Position.initial()] * 3)
DICE = np.array([[6, 5], [5, 5], [1, 2]], dtype=np.uint8)


# --- the instances reported in issue 9 ---------------------------------------------------


def test_expectimax_huge_plies_are_refused_with_the_limit() -> None:
    with pytest.raises(InvalidArgumentError, match=f"0..{core_rollout.MAX_EXPECTIMAX_DEPTH}"):
        fevga.expectimax(Position.initial(), plies=1048577)
    with pytest.raises(InvalidArgumentError, match="plies=50"):
        fevga.expectimax(Position.initial(), plies=50)
    with pytest.raises(InvalidArgumentError, match=f"0 to {core_rollout.MAX_EXPECTIMAX_DEPTH}"):  # the core's own check
        core_rollout.expectimax_value(START_ROW, 50, 0, core_race.Tables(), 100.0)


def test_bearoff_rank_and_unrank_check_their_input() -> None:
    with pytest.raises(InvalidPositionError, match="1-11 counts"):
        bearoff.rank([15] * 300)
    with pytest.raises(InvalidPositionError, match="more than 15"):
        bearoff.rank([15, 15])
    with pytest.raises(InvalidArgumentError, match="points=60"):
        bearoff.unrank(10**12, 60)
    with pytest.raises(InvalidArgumentError, match="rank 1000000000000"):
        bearoff.unrank(10**12, 6)
    with pytest.raises(InvalidDiceError):
        bearoff.successors([1, 0, 0], 0, 7)


def test_bearoff_builders_check_their_size() -> None:
    with pytest.raises(InvalidArgumentError, match="points=13"):
        bearoff.OneSidedBuilder(13, 2).run(10**9)
    with pytest.raises(InvalidArgumentError, match="checkers=16"):
        bearoff.TwoSidedBuilder(6, 16, 16)
    with pytest.raises(MemoryError, match="TiB"):
        bearoff.TwoSidedBuilder(11, 15, 15)


def test_finished_two_sided_builder_refuses_more_work() -> None:
    builder = bearoff.TwoSidedBuilder(2, 1, 15)
    builder.run(10)
    builder.arrays()
    builder.run(10)  # nothing left: a no-op
    with pytest.raises(InvalidArgumentError, match="finished"):
        builder._run_split(1, 0, 1)


def test_bearoff_batch_kernels_check_shapes() -> None:
    counts = np.zeros((4, 6), dtype=np.uint8)
    with pytest.raises(InvalidArgumentError, match="out must hold 4"):
        bearoff.rank_batch(counts, 15, np.empty(1, dtype=np.int64))
    with pytest.raises(InvalidArgumentError, match="columns"):
        bearoff.rank_batch(np.zeros((4, 40), dtype=np.uint8), 15, np.empty(4, dtype=np.int64))
    with pytest.raises(InvalidArgumentError, match="mean must hold"):
        bearoff.mean_batch(counts, 15, np.zeros(3), np.empty(4), True)
    with pytest.raises(InvalidArgumentError, match="table must hold"):
        bearoff.pair_batch(counts, counts, 2, int(bearoff.count(6, 2)), np.zeros(3), np.empty(4), True)


def test_perft_depth_is_checked_in_the_core() -> None:
    from fevga.errors import InvalidRulesError
    from fevga_core.position import CoreBoard

    for position, flags in ((CorePosition(), 0), (GioulPosition.initial(), FLAG_GIOUL)):
        with pytest.raises(InvalidArgumentError, match="perft depth -1"):
            position._perft(-1, flags)
        with pytest.raises(InvalidArgumentError, match="0 to 12"):
            position._perft(13, flags)
    with pytest.raises(InvalidRulesError, match="Gioul's rules alone"):
        GioulPosition.initial()._perft(1, 0)
    with pytest.raises(InvalidRulesError, match="flags"):
        CorePosition()._perft(1, FLAG_GIOUL)
    # the shared base holds no board: refused, never read
    with pytest.raises(NotImplementedError):
        CoreBoard().counts(0)
    with pytest.raises(NotImplementedError):
        CoreBoard()._perft(1, 0)


@pytest.mark.parametrize("dice_value", [0, 7, 255])
def test_batch_kernels_refuse_bad_dice(dice_value: int) -> None:
    dice = np.full((3, 2), dice_value, dtype=np.uint8)
    with pytest.raises(InvalidDiceError, match="dice row 0"):
        core_state.count_moves(ROWS, dice, 0, np.zeros(3, dtype=np.int32))
    with pytest.raises(InvalidDiceError, match="dice row 0"):
        core_state.generate_batch(ROWS, dice, 0)


def test_batch_kernels_refuse_bad_shapes_and_rows() -> None:
    with pytest.raises(InvalidPositionError, match=r"\(n, 51\)"):
        core_state.count_moves(np.zeros((3, 10), dtype=np.uint8), DICE, 0, np.zeros(3, dtype=np.int32))
    with pytest.raises(InvalidArgumentError, match="out_counts must hold 3"):
        core_state.count_moves(ROWS, DICE, 0, np.zeros(1, dtype=np.int32))
    with pytest.raises(InvalidDiceError, match=r"shape \(3, 2\)"):
        core_state.count_moves(ROWS, DICE[:1], 0, np.zeros(3, dtype=np.int32))
    bad = ROWS.copy()
    bad[2, 3] = 255
    with pytest.raises(InvalidPositionError, match="position row 2"):
        core_state.count_moves(bad, DICE, 0, np.zeros(3, dtype=np.int32))
    with pytest.raises(InvalidPositionError, match="position row 2"):
        core_state.generate_batch(bad, DICE, 0)
    with pytest.raises(InvalidPositionError, match="51 columns"):
        board.first_invalid_row(np.zeros((2, 10), dtype=np.uint8))


def test_run_block_checks_its_arrays() -> None:
    tables = core_race.Tables()
    flag = np.zeros(1, dtype=np.int32)

    def run(rows: bytes, sums: Any, first: Any, cross: Any, lengths: Any, weights: Any = None) -> int:
        return int(core_rollout.run_block(rows, 0, 0, 0, 0, None, tables, None, None, False, False, 100.0, True, 1, 0, 36,
                                          sums, first, cross, lengths, flag, weights))

    two = START_ROW * 2
    fields = len(core_rollout.SUM_FIELDS)
    good = (np.zeros((2, fields)), np.zeros((2, 36, 3)), np.zeros((2, 2)), np.zeros((2, 512), dtype=np.int64))
    assert run(two, *good) == 36
    assert run(two, *good, np.array([0.5, 0.1, 0.0, 0.0, 0.0])) == 36
    with pytest.raises(InvalidArgumentError, match="match_weights must hold 5 numbers, not 4"):
        run(two, *good, np.zeros(4))
    with pytest.raises(InvalidArgumentError, match="sums"):
        run(two, np.zeros((1, fields)), *good[1:])
    with pytest.raises(InvalidArgumentError, match="cross"):
        run(two, good[0], good[1], np.zeros((1, 1)), good[3])
    with pytest.raises(InvalidArgumentError, match="lengths"):
        run(two, *good[:3], np.zeros((2, 5), dtype=np.int64))
    with pytest.raises(InvalidArgumentError, match="rows"):
        run(START_ROW[:50], *good)
    with pytest.raises(InvalidPositionError):
        run(b"\xff" * 102, *good)
    with pytest.raises(InvalidArgumentError, match="policy id 9"):
        core_rollout.run_block(START_ROW, 0, 0, 9, 0, None, tables, None, None, False, False, 100.0, True, 1, 0, 1,
                               *(a[:1] for a in good[:2]), good[2][:1, :1], good[3][:1], flag)
    with pytest.raises(InvalidArgumentError, match="callback"):
        core_rollout.play_recorded(START_ROW, 0, 2, 2, None, 1, True, 0)


def test_rollout_tables_check_their_arrays() -> None:
    db = fevga.bearoff.OneSidedDB.build(3, 3)
    arrays = {k: np.asarray(v) for k, v in db._a.items()}
    core_race.Tables((3, 3, arrays))
    with pytest.raises(ValueError, match="mean"):
        core_race.Tables((3, 3, {**arrays, "mean": arrays["mean"][:2]}))
    with pytest.raises(ValueError, match="window"):
        core_race.Tables((3, 3, {**arrays, "dist_offset": arrays["dist_offset"] + 10**6}))
    with pytest.raises(ValueError, match="equity"):
        core_race.Tables(two=(6, 2, 15, np.zeros(5), None))


def test_from_row_and_unpickling_validate() -> None:
    with pytest.raises(InvalidPositionError, match="0-15"):
        Position._from_row(b"\xff" * 51).legal_moves("6-5")
    with pytest.raises(InvalidPositionError, match="51 bytes"):
        Position._from_row(b"\x00" * 7)
    crafted = pickle.dumps(Position.initial()).replace(START_ROW, b"\x0f" * 51)
    assert crafted != pickle.dumps(Position.initial())
    with pytest.raises(InvalidPositionError):
        pickle.loads(crafted)
    assert pickle.loads(pickle.dumps(Position.initial())) == Position.initial()


def test_core_functions_check_rows() -> None:
    with pytest.raises(InvalidPositionError):
        game.evaluate(b"\x01" * 51, 0)
    with pytest.raises(InvalidArgumentError, match="color 5"):
        game.evaluate(START_ROW, 5)
    with pytest.raises(InvalidArgumentError):
        game.rng_outputs(1, 10**9)
    with pytest.raises(InvalidPositionError):
        core_rollout.value(b"\x01" * 51, 0, core_race.Tables(), 100.0)
    with pytest.raises(TypeError):
        core_rollout.race(START_ROW, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError):
        Position.initial()._legal_moves(0, 7, 0, fevga.Move)
    with pytest.raises(FevgaError):
        Position.initial()._count_legal(6, 5, 1 << 20)


class _Finaliser:
    """Garbage in a reference cycle whose finaliser generates moves (runs inside gc) and
    leaves the next such garbage behind, so that every collection has one to run."""

    budget = 0

    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        Position.initial().legal_moves("1-1")
        GioulPosition.initial().legal_moves((1, 1))
        if _Finaliser.budget > 0:
            _Finaliser.budget -= 1
            _Finaliser()


@pytest.mark.parametrize("game_name", ["fevga", "gioul"])
def test_legal_moves_survive_a_reentrant_call_from_a_finaliser(game_name: str) -> None:
    position, dice = busy_position(game_name)
    expected = [(m.steps, m.position) for m in position.legal_moves(dice)]
    assert len(expected) > 1
    threshold = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        for _ in range(60):
            _Finaliser.budget = 50
            _Finaliser()
            assert [(m.steps, m.position) for m in position.legal_moves(dice)] == expected
    finally:
        _Finaliser.budget = 0
        gc.set_threshold(*threshold)
        gc.collect()


# --- fuzz: random arguments at every public entry point ------------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
raw_rows = st.binary(min_size=0, max_size=60)
small = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def _refused_or_ok(call: Any) -> None:
    """The call either works or raises an ordinary Python exception (never crashes)."""
    try:
        call()
    except (FevgaError, ValueError, TypeError, OverflowError, MemoryError, RuntimeError):
        pass


@FUZZ
@given(raw_rows, st.integers(0, 7), st.integers(0, 7), st.integers(-1, 40))
def test_fuzz_position_entry_points(row: bytes, d1: int, d2: int, flags: int) -> None:
    for cls in (CorePosition, Position):
        _refused_or_ok(lambda: cls._from_row(row)._legal_moves(d1, d2, flags, fevga.Move))
        _refused_or_ok(lambda: cls._from_row(row)._count_legal(d1, d2, flags))
        _refused_or_ok(lambda: cls._from_row(row)._is_dead(flags))
        _refused_or_ok(lambda: cls._from_row(row)._can_move(d1 % 3, flags))
        _refused_or_ok(lambda: cls._from_row(row)._perft(d1 - 5, flags))
        _refused_or_ok(lambda: cls._from_row(row).counts(d2))
    _refused_or_ok(lambda: game.evaluate(row, d1 - 1))
    _refused_or_ok(lambda: core_rollout.race(row, core_race.Tables()))
    _refused_or_ok(lambda: core_rollout.value(row, d1 - 1, core_race.Tables(), 100.0))
    _refused_or_ok(lambda: core_rollout.expectimax_value(row, d1 - 6, flags, core_race.Tables(), 100.0))
    _refused_or_ok(lambda: core_rollout.play_recorded(row, flags, d1 % 6, d2 % 6, None, 5, bool(d1 & 1), 40))


@FUZZ
@given(st.booleans(), st.integers(0, 4), st.integers(0, 70), st.integers(0, 57), st.integers(0, 255),
       st.integers(0, 255), st.integers(-1, 40))
def test_fuzz_batch_kernels(gioul: bool, n: int, width: int, column: int, value: int, die: int, flags: int) -> None:
    """Either game's rows with one hostile cell, any dice, widths and flags (a Gioul row mostly
    under FLAG_GIOUL): each kernel answers or refuses with an ordinary error."""
    from fevga_core import gioul as core_gioul

    rows = _gioul_rows(n) if gioul else np.tile(np.frombuffer(START_ROW, dtype=np.uint8), (n, 1))
    if n:
        rows[n - 1, column % rows.shape[1]] = value
    if gioul and flags >= 0:
        flags = FLAG_GIOUL
    dice = np.full((n, 2), die, dtype=np.uint8)
    narrow = np.zeros((n, width), dtype=np.uint8)
    _refused_or_ok(lambda: core_state.count_moves(rows, dice, flags, np.zeros(n, dtype=np.int32)))
    _refused_or_ok(lambda: core_state.count_moves(narrow, dice, flags, np.zeros(width, dtype=np.int32)))
    _refused_or_ok(lambda: core_state.generate_batch(rows, dice[: width % 5], flags))
    _refused_or_ok(lambda: core_state.generate_batch(narrow, dice, flags))
    first_invalid_row = core_gioul.first_invalid_row if gioul else board.first_invalid_row
    _refused_or_ok(lambda: first_invalid_row(narrow))
    _refused_or_ok(lambda: first_invalid_row(rows))
    _refused_or_ok(lambda: board.zobrist_entry(value % 4 - 1, width - 5, die - 100))


@FUZZ
@given(st.lists(st.integers(-3, 300), max_size=14), st.integers(-2, 14), st.integers(-2, 17), small)
def test_fuzz_bearoff_entry_points(counts: list[int], points: int, checkers: int, index: int) -> None:
    _refused_or_ok(lambda: bearoff.rank(counts))
    _refused_or_ok(lambda: bearoff.unrank(index, points))
    _refused_or_ok(lambda: bearoff.count(points, checkers))
    _refused_or_ok(lambda: bearoff.successors(counts, points % 8, checkers % 8))
    array = np.zeros((3, max(points, 0) % 13), dtype=np.uint8)
    _refused_or_ok(lambda: bearoff.rank_batch(array, checkers, np.empty(abs(index) % 5, dtype=np.int64)))
    _refused_or_ok(lambda: bearoff.mean_batch(array, checkers, np.zeros(abs(index) % 100), np.empty(3), True))
    _refused_or_ok(lambda: bearoff.pair_batch(array, array, checkers, index, np.zeros(16), np.empty(3), False))
    if 0 < points <= 4 and 0 < checkers <= 4:
        one = bearoff.OneSidedBuilder(points, checkers)
        one.run(index)
        _refused_or_ok(lambda: one.arrays())
    if points <= 3 and checkers <= 3:
        _refused_or_ok(lambda: bearoff.TwoSidedBuilder(points, checkers, checkers + index % 3).run(index))


def _three_point_tables() -> core_race.Tables:
    builder = bearoff.OneSidedBuilder(3, 15)
    builder.run(builder.entries)
    return core_race.Tables((3, 15, builder.arrays()))


THREE_POINT_TABLES = _three_point_tables()


@FUZZ
@given(st.lists(st.integers(-1, 16), max_size=5), st.lists(st.integers(-1, 16), max_size=5))
def test_fuzz_race_estimate(on_roll: list[int], opponent: list[int]) -> None:
    _refused_or_ok(lambda: core_race.estimate(THREE_POINT_TABLES, on_roll, opponent))
    _refused_or_ok(lambda: core_race.estimate(core_race.Tables(), on_roll, opponent))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.integers(-2, 8), st.integers(-5, 5), st.integers(-3, 8), st.integers(-1, 7),
       st.sampled_from([0, FLAG_GIOUL, FLAG_GIOUL | 1]))
def test_fuzz_run_block(targets: int, games: int, shape_error: int, policy: int, weights: int, flags: int) -> None:
    """Both games' rows (the flags name the game; Gioul with a Fevga rule bit is refused)."""
    row = fevga.gioul.to_array([GioulPosition.initial()]).tobytes() if flags & FLAG_GIOUL else START_ROW
    k = max(targets, 1) + (1 if shape_error == 1 else 0)
    fields = len(core_rollout.SUM_FIELDS) - (shape_error == 5)
    arrays = (np.zeros((k, fields)), np.zeros((k, 36, 3)), np.zeros((k, k + (shape_error == 2))),
              np.zeros((k, 512 - (shape_error == 3)), dtype=np.int64), np.zeros(1 - (shape_error == 4), np.int32),
              None if weights < 0 else np.full(weights, 0.25))
    _refused_or_ok(lambda: core_rollout.run_block(row * targets, 0, flags, policy, 1, None, core_race.Tables(),
                                                  None, None, False, bool(games & 1), 100.0, True, 3, 0, games,
                                                  *arrays))


def test_truncating_an_open_bearoff_file_does_not_crash(tmp_path: Any) -> None:
    """Loading copies the file: truncating it afterwards cannot SIGBUS a lookup (run in a child)."""
    import subprocess
    import sys

    path = tmp_path / "one.fbo"
    fevga.bearoff.OneSidedDB.build(6, 8).save(path)
    code = (
        "import os, sys, fevga.bearoff as b\n"
        f"db = b.open_db({str(path)!r})\n"
        f"os.truncate({str(path)!r}, 100)\n"
        "print(db.mean_rolls([0, 0, 0, 0, 0, 8]), float(db.dense_distributions().sum()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = fevga.bearoff.OneSidedDB.build(6, 8)
    assert float(done.stdout.split()[0]) == expected.mean_rolls([0, 0, 0, 0, 0, 8])
    assert float(done.stdout.split()[1]) == pytest.approx(len(expected))


def test_the_core_never_imports_the_api_package() -> None:
    """fevga_core stands alone: the API package imports it, never the reverse (issue: one direction)."""
    import re
    from pathlib import Path

    import fevga_core

    root = Path(fevga_core.__file__).parent
    sources = [p for p in root.iterdir() if p.suffix in (".pyx", ".pxd", ".py")]
    assert len(sources) > 20
    pattern = re.compile(r"^\s*(from\s+fevga(\.|\s)|import\s+fevga(\.|\s|$))", re.MULTILINE)
    offenders = [f"{p.name}: {m.group(0).strip()}" for p in sources for m in pattern.finditer(p.read_text())]
    assert offenders == []


# --- Gioul batch kernels (fevga_core.gioul): every row and dice pair validated in the core ----


def _gioul_rows(n: int) -> np.ndarray:
    from fevga.gioul import GioulPosition, to_array

    return to_array([GioulPosition.initial()] * n)


def test_gioul_batch_kernels_refuse_bad_input() -> None:
    from fevga_core import gioul as core_gioul

    rows = _gioul_rows(3)
    out = np.zeros(3, dtype=np.int32)
    with pytest.raises(InvalidPositionError, match=r"\(n, 58\)"):
        core_state.count_moves(rows[:, :51].copy(), DICE, FLAG_GIOUL, out)
    with pytest.raises(InvalidPositionError, match="58 columns"):
        core_gioul.first_invalid_row(np.zeros((2, 10), dtype=np.uint8))
    with pytest.raises(InvalidArgumentError, match="out_counts must hold 3"):
        core_state.count_moves(rows, DICE, FLAG_GIOUL, np.zeros(1, dtype=np.int32))
    with pytest.raises(InvalidDiceError, match=r"shape \(3, 2\)"):
        core_state.generate_batch(rows, DICE[:1], FLAG_GIOUL)
    for column, value in ((3, 255), (50, 7), (51, 9), (53, 1), (55, 3), (57, 200)):
        bad = rows.copy()
        bad[2, column] = value
        with pytest.raises(InvalidPositionError, match="row 2"):
            core_state.count_moves(bad, DICE, FLAG_GIOUL, out)
        with pytest.raises(InvalidPositionError, match="row 2"):
            core_state.generate_batch(bad, DICE, FLAG_GIOUL)
        assert core_gioul.first_invalid_row(bad)[0] == 2
    dice = DICE.copy()
    dice[1, 0] = 0
    with pytest.raises(InvalidDiceError, match="dice row 1"):
        core_state.count_moves(rows, dice, FLAG_GIOUL, out)
    with pytest.raises(InvalidDiceError, match="dice row 1"):
        core_state.generate_batch(rows, dice, FLAG_GIOUL)


@FUZZ
@given(st.binary(min_size=58, max_size=58))
def test_fuzz_gioul_rows(raw: bytes) -> None:
    """Random bytes as one Gioul row: refused, or a state whose moves the batch generates."""
    from fevga.gioul import validate_states
    from fevga_core import gioul as core_gioul

    row = np.frombuffer(raw, dtype=np.uint8)[None].copy()
    row[0, :51] = np.frombuffer(START_ROW, dtype=np.uint8)  # a valid board, random state fields
    row[0, 50] = raw[50] & 1
    _refused_or_ok(lambda: fevga.batch.legal_moves(validate_states(row), [[3, 1]]))
    _refused_or_ok(lambda: fevga.batch.evaluate(validate_states(row)))
    _refused_or_ok(lambda: core_search.evaluate_rows(fevga.Net.default("gioul")._core, core_race.Tables(), row, np.zeros((1, 3)),
                                                     FLAG_GIOUL))


def test_crafted_gioul_pickles_are_refused() -> None:
    """Unpickling a GioulPosition goes through _from_fields: every field is validated there."""
    import pickle

    from fevga import GioulPosition
    from fevga.errors import InvalidPositionError as PositionError

    pos = GioulPosition.initial()
    mid = GioulPosition.from_id("__4AAAj__AABAAAA5VhH")  # a chain handed over: dice pending
    for state in (pos, mid):
        assert pickle.loads(pickle.dumps(state)) == state
    row, *fields = mid._fields()
    bad = [
        (b"\xff" * 51, *fields),                     # a board row out of range
        (row[:50], *fields),                         # a short row
        (bytearray(row), *fields),                   # not bytes
        (row, 9, *fields[1:]),                       # a roll count past 4+
        (row, -1, *fields[1:]),
        (row, 2**70, *fields[1:]),
        (row, *fields[:2], 7, *fields[3:]),          # a die of 7
        (row, *fields[:4], 0, 3, 0),                 # pending fields with no dice to play
        (row, *fields[:2], "6", *fields[3:]),
    ]
    for args in bad:
        with pytest.raises(PositionError):
            GioulPosition._from_fields(*args)


# --- Gioul judgment (fevga_core.search over Gioul states, the net policies) -------------

def _tiny_nets() -> tuple[Any, Any]:
    from fevga_core import gioul as core_gioul
    from fevga_core import net as core_net

    rng = np.random.default_rng(3)
    gioul = core_gioul.CoreGioulNet(rng.normal(0, 0.3, core_net.param_count(6, core_net.GIOUL_INPUTS)).astype(np.float32), 6)
    fevga_net = core_net.CoreNet(rng.normal(0, 0.3, core_net.param_count(6)).astype(np.float32), 6)
    return gioul, fevga_net


@FUZZ
@given(st.integers(0, 60), st.integers(-1, 4), st.integers(-1, 8), st.integers(-1, 8), st.integers(0, 7),
       st.booleans(), st.booleans())
def test_fuzz_gioul_judgment(decision: int, plies: int, d1: int, d2: int, policy: int, tables: bool,
                             fevga_net: bool) -> None:
    """Any state of a seeded game, any plies, dice, policy ids, tables and nets of either game:
    a value, or an ordinary error (the core checks what reaches its Gioul search)."""
    from fevga.bearoff.core_tables import tables_of
    from fevga.game import play_game
    from fevga_core import gioul as core_gioul

    states = play_game(game="gioul", seed=2).positions()
    state = states[decision % len(states)]
    gioul, other = _tiny_nets()
    net = other if fevga_net else gioul
    table = tables_of("gioul-default") if tables else core_race.Tables()
    _refused_or_ok(lambda: core_search.evaluate_position(net, table, state, min(plies, 2), FLAG_GIOUL))
    _refused_or_ok(lambda: core_search.rank_position(net, table, state, d1, d2, plies, FLAG_GIOUL, fevga.GioulMove))
    _refused_or_ok(lambda: core_search.rank_position(net, table, state, d1, d2, plies, FLAG_GIOUL, fevga.GioulMove,
                                                     True))  # every move searched
    _refused_or_ok(lambda: core_search.rank_position(net, table, state, d1, d2, plies, policy, fevga.GioulMove))
    rows, dice = fevga.gioul.to_array([state]), np.array([[d1 % 256, d2 % 256]], dtype=np.uint8)
    _refused_or_ok(lambda: core_search.rank_batch(net, table, rows, dice, plies, FLAG_GIOUL, True))  # every move
    _refused_or_ok(lambda: core_search.roll_values(net, table, state))
    _refused_or_ok(lambda: state._perft(min(plies, 2), FLAG_GIOUL if tables else policy))
    _refused_or_ok(lambda: core_rollout.gioul_games(1, decision, 1, False, policy, 6, net, gioul, table))
    _refused_or_ok(lambda: core_rollout.record_gioul_game(1, decision, True, 5, policy, state, gioul, net, table))
    row = fevga.gioul.to_array([state]).tobytes()
    arrays = (np.zeros((1, len(core_rollout.SUM_FIELDS))), np.zeros((1, 36, 3)), np.zeros((1, 1)),
              np.zeros((1, 512), dtype=np.int64), np.zeros(1, np.int32))
    _refused_or_ok(lambda: core_rollout.run_block(row, 0, FLAG_GIOUL, policy, 5, None, table or core_race.Tables(),
                                                  net, gioul, bool(d1 & 1), bool(d2 & 1), 100.0, True, 3, 0, 2,
                                                  *arrays))


# --- From the review of the one engine (2026-12-05): what reached the core unchecked ---------


def test_outputs_that_share_memory_with_the_rows_are_refused() -> None:
    """The values kernels check the rows first and trust them in the loop: an out array over the
    rows' own memory would rewrite rows already checked (UBSan saw the Zobrist table overrun)."""
    from fevga.bearoff.core_tables import tables_of

    net = fevga.Net.default()._core
    buf = np.zeros(51 * 16 + 64, dtype=np.uint8)
    rows = buf[:51 * 16].reshape(16, 51)
    rows[:] = np.frombuffer(START_ROW, dtype=np.uint8)
    out = buf[408:408 + 16 * 24].view(np.float64).reshape(16, 3)
    with pytest.raises(InvalidArgumentError, match="share memory"):
        core_search.evaluate_rows(net, tables_of("default"), rows, out)
    gbuf = np.zeros(58 * 8 + 64, dtype=np.uint8)
    grows = gbuf[:58 * 8].reshape(8, 58)
    grows[:] = fevga.gioul.to_array([GioulPosition.initial()] * 8)
    gout = gbuf[232:232 + 192].view(np.float64).reshape(8, 3)
    with pytest.raises(InvalidArgumentError, match="share memory"):
        core_search.evaluate_rows(fevga.Net.default("gioul")._core, tables_of("gioul-default"), grows, gout, FLAG_GIOUL)
    counts = rows[:, :4].copy().view(np.int32).reshape(16)  # apart: fine
    dice = np.full((16, 2), 3, dtype=np.uint8)
    assert core_search.choose_rows(net, tables_of("default"), rows.copy(), dice, 1, 0, counts) > 0
    shared = np.zeros(64, dtype=np.uint8)
    with pytest.raises(InvalidArgumentError, match="share memory"):
        core_search.choose_rows(net, tables_of("default"), rows.copy(), shared[:32].reshape(16, 2),
                                1, 0, shared[:64].view(np.int32))


def test_nets_without_parameters_or_with_non_finite_ones_are_refused() -> None:
    from fevga.bearoff.core_tables import tables_of
    from fevga_core import gioul as core_gioul
    from fevga_core import net as core_net
    from fevga_core import qnet

    for cls, game in ((core_net.CoreNet, "fevga"), (core_gioul.CoreGioulNet, "gioul")):
        bare = cls.__new__(cls)
        position = Position.initial() if game == "fevga" else GioulPosition.initial()
        flags = FLAG_GIOUL if game == "gioul" else 0
        with pytest.raises(InvalidArgumentError, match="no parameters"):
            core_search.evaluate_position(bare, tables_of("default"), position, 0, flags)
        with pytest.raises(InvalidArgumentError, match="no parameters"):
            bare.evaluate_rows(fevga.batch.to_array([position]))
        shipped = fevga.Net.default(game)
        nan = np.full(np.asarray(shipped.params).shape, np.nan, dtype=np.float32)
        with pytest.raises(InvalidArgumentError, match="non-finite"):
            cls(nan, shipped._core.hidden)
    with pytest.raises(InvalidArgumentError, match="no parameters"):
        qnet.QuantisedNet(core_net.CoreNet.__new__(core_net.CoreNet))


def test_the_ranking_hook_works_only_inside_rank_batch() -> None:
    from fevga_core import search

    with pytest.raises(InvalidArgumentError, match="only inside search.rank_batch"):
        core_state.generate_batch(np.frombuffer(START_ROW, dtype=np.uint8)[None].copy(),
                                  np.array([[3, 1]], dtype=np.uint8), 0, search._Ranker())


def test_an_argument_free_core_gioul_is_the_start() -> None:
    from fevga_core.gioul import CoreGioul

    assert GioulPosition() == GioulPosition.initial() and CoreGioul().counts(0) == GioulPosition.initial().counts(0)
