"""One-sided and two-sided bear-off databases: build, save, open, look up.

>>> db = OneSidedDB.build(points=6, checkers=3)
>>> db.mean_rolls([0, 0, 0, 0, 0, 1])
1.25
>>> round(float(db.distribution([0, 0, 0, 0, 0, 1])[1]), 12)
0.75
>>> ts = TwoSidedDB.build(checkers=2)
>>> ts.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
0.8125
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, Union

import numpy as np
import numpy.typing as npt

from fevga.bearoff.fileformat import TableFile, write_table
from fevga.limits import MAX_WORKERS, as_array, bounded, check_int
from fevga.errors import BearoffFileError, FevgaError, InvalidArgumentError, InvalidPositionError, MissingBearoffError
from fevga_core import bearoff as core
from fevga_core import constants
from fevga.gioul import GioulPosition
from fevga.position import COLOR_NAMES, Position
import importlib
import threading
import sys

TOTAL_CHECKERS = constants.NUM_CHECKERS
MAX_POINTS = 11
GAMES = ("fevga", "gioul")
CHAIN_FROM_ROLL = 4  # Gioul: a double is a chain from a player's fourth roll on
FloatArray = npt.NDArray[np.float64]
T = TypeVar("T")


class SideOf(Protocol):
    """Anything with a side on roll and per-side counts, such as `fevga.Position`."""

    @property
    def turn(self) -> int: ...  # noqa: D102

    def counts(self, color: int) -> tuple[int, ...]: ...  # noqa: D102


Side = Union[Sequence[int], SideOf]


def _progress(total: int, desc: str, enabled: bool) -> Any:
    tqdm = importlib.import_module("tqdm").tqdm
    return tqdm(total=total, desc=desc, unit="pos", disable=not enabled, leave=False)


def _check_size(points: int, checkers: int, max_checkers: int = TOTAL_CHECKERS) -> None:
    if not isinstance(points, int) or not 1 <= points <= MAX_POINTS:
        raise InvalidArgumentError(f"points={points!r} must be an integer 1-{MAX_POINTS}")
    if not isinstance(checkers, int) or not 1 <= checkers <= max_checkers:
        raise InvalidArgumentError(f"checkers={checkers!r} must be an integer 1-{max_checkers}")


def _check_game(game: object) -> str:
    if game not in GAMES:
        raise InvalidArgumentError(f"game={game!r} must be one of {', '.join(map(repr, GAMES))}")
    return str(game)


def game_of(position: object) -> str | None:
    """The game of a position object ("gioul" for a GioulPosition, "fevga" for a Position);
    None for anything else (bare counts carry no game)."""
    if isinstance(position, GioulPosition):
        return "gioul"
    if isinstance(position, Position):
        return "fevga"
    return None


def require_game(table: Any, game: str | None, what: str = "") -> None:
    """Raise BearoffFileError unless `table` (either kind) was built for `game` (None: any game).

    A Fevga table values Gioul races wrongly (its doubles are not chains) and the other way
    round, so every use of a table with a position, or with another game's table, checks it.
    """
    if game is None or table is None:
        return
    found = getattr(table, "game", None)
    if found != game:
        where = f"{str(table.path)!r}" if getattr(table, "path", None) else repr(table)
        suffix = f" ({what})" if what else ""
        raise BearoffFileError(
            f"bear-off table {where} is a {str(found).capitalize()} table; a {game.capitalize()} one is needed{suffix}"
        )


def check_gioul_race(position: Any) -> None:
    """Raise MissingBearoffError unless the Gioul tables' assumptions hold for `position`:
    both sides' next rolls are their fourth or later (every double is a chain).

    A race cannot arise earlier in a game (docs/bearoff.md, "Gioul"), so this refuses only
    hand-made positions.
    """
    for color in (0, 1):
        if position.next_roll(color) < CHAIN_FROM_ROLL:
            name = ("White", "Black")[color]
            raise MissingBearoffError(
                f"Gioul bear-off tables assume every double is a chain (both sides at their fourth roll or "
                f"later); {name}'s next roll in {position.id} is its roll {position.next_roll(color)}"
            )


def side_name(side: object) -> str:
    """A side in words for messages: "white's side (on roll) in position ID" for a position,
    "side (counts)" for bare counts."""
    if hasattr(side, "counts") and hasattr(side, "turn") and hasattr(side, "id"):
        return f"{COLOR_NAMES[side.turn]}'s side (on roll) in position {side.id}"
    return f"side {tuple(side) if isinstance(side, (list, tuple)) else side!r}"


def side_counts(side: Side, points: int, checkers: int) -> tuple[int, ...]:
    """Counts on points 1..P of a side: P counts, 25 own-numbering counts, or a Position's side on roll.

    Raises InvalidPositionError for malformed input and MissingBearoffError for a valid side
    the table does not cover (a checker above point P, or more than `checkers` on the board).
    """
    if hasattr(side, "counts") and hasattr(side, "turn"):
        values: tuple[int, ...] = tuple(side.counts(side.turn))
    else:
        if not isinstance(side, Iterable) or isinstance(side, (str, bytes)):
            raise InvalidPositionError(f"bear-off side {repr(side)[:80]} must be a sequence of counts or a Position")
        values = tuple(bounded(side, "bear-off side", 25))  # an endless iterator is refused, not drained
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in values):
        raise InvalidPositionError(f"bear-off side {side!r} must hold non-negative integers")
    if len(values) == 25:  # own numbering, index 0 = borne off
        on_board = values[1:]
    elif 1 <= len(values) <= 24:  # points 1..len
        on_board = values + (0,) * max(0, points - len(values))
    else:
        raise InvalidPositionError(
            f"bear-off side {side!r} must have 1-24 counts (points 1, 2, ...) or 25 (index 0 = off)"
        )
    if sum(on_board) > TOTAL_CHECKERS:
        raise InvalidPositionError(f"bear-off side {side!r} has {sum(on_board)} checkers on the board")
    if any(on_board[points:]):
        highest = max(i + 1 for i, v in enumerate(on_board) if v)
        raise MissingBearoffError(f"{side_name(side)} has a checker on point {highest}; the table covers points "
                                  f"1-{points}")
    if sum(on_board) > checkers:
        raise MissingBearoffError(f"{side_name(side)} has {sum(on_board)} checkers on the board; the table covers "
                                  f"{checkers}")
    return tuple(int(v) for v in on_board[:points])


def check_position(db: Any, side: object) -> None:
    """If `side` is a position object: raise unless `db` is its game's table (BearoffFileError)
    and, for Gioul, unless the tables' assumptions hold and a roll is due (MissingBearoffError)."""
    game = game_of(side)
    if game is None:
        return
    require_game(db, game, f"for the position {getattr(side, 'id', side)}")
    if game == "gioul":
        check_gioul_race(side)
        pending = getattr(side, "pending", ())
        if pending:
            raise MissingBearoffError(
                f"Gioul position {getattr(side, 'id', side)} has dice pending {pending}: a table values a position "
                "where a roll is due (fevga.bearoff.evaluate plays the rest of the roll first)"
            )


def _counts_array(counts: npt.ArrayLike, points: int) -> npt.NDArray[np.uint8]:
    array = as_array(counts, "batch counts")
    if array.ndim != 2 or array.shape[1] != points:
        raise InvalidArgumentError(f"batch counts of shape {array.shape} must be (n, {points})")
    if array.dtype.kind not in "iu" and array.size:  # never truncate 1.5 checkers to 1
        raise InvalidPositionError(f"batch counts must be an integer array, not {array.dtype}")
    if array.size and (array.min() < 0 or array.max() > TOTAL_CHECKERS):
        raise InvalidPositionError(f"batch counts must be 0-{TOTAL_CHECKERS}, got {array.min()}..{array.max()}")
    return np.ascontiguousarray(array, dtype=np.uint8)


def _get(call: Any, default: T) -> Any:
    try:
        return call()
    except MissingBearoffError:
        return default


# --- structural validation ----------------------------------------------------------------
# The arrays of a table reach the nogil kernels as raw pointers (fevga_core/rollout.pyx
# `Tables`, fevga_core/bearoff.pyx `fill_*_table`), which index them without bounds checks.
# Every DB object is therefore checked when it is built from arrays (a build, a file, a caller's
# dict): each section present, with its dtype and length, and every window inside its pool.

_FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))  # a save(dtype="float32") file
_ONE_SIDED_INDEX = (("offset", np.dtype(np.int64)), ("start", np.dtype(np.uint16)), ("length", np.dtype(np.uint16)))


def _where(path: str | os.PathLike[str] | None) -> str:
    return f"bear-off file {str(path)!r}" if path is not None else "bear-off table arrays"


def _section(
    arrays: dict[str, npt.NDArray[Any]],
    name: str,
    where: str,
    dtypes: tuple[np.dtype[Any], ...],
    length: int | None = None,
    why: str = "",
) -> npt.NDArray[Any]:
    """The section `name`, checked: present, an array of one of `dtypes`, 1-D of `length` values."""
    if name not in arrays:
        raise BearoffFileError(f"{where}: section {name!r} is missing{why}")
    array = arrays[name]
    if not isinstance(array, np.ndarray):
        raise BearoffFileError(f"{where}: section {name!r} is a {type(array).__name__}, not a NumPy array")
    if array.dtype not in dtypes:
        expected = " or ".join(str(d) for d in dtypes)
        raise BearoffFileError(f"{where}: section {name!r} has dtype {array.dtype}, expected {expected}")
    if length is not None and (array.ndim != 1 or len(array) != length):
        raise BearoffFileError(f"{where}: section {name!r} has shape {array.shape}, expected ({length},){why}")
    return array


def _check_values(array: npt.NDArray[Any], name: str, where: str, low: float, high: float) -> None:
    """Raise BearoffFileError naming the first value of section `name` that is not a finite
    number in [low, high] (a NaN, an infinity, a negative probability, ...)."""
    bad = ~((array >= low) & (array <= high))  # NaN compares false both ways
    if bad.any():
        i = int(np.argmax(bad.reshape(-1)))
        raise BearoffFileError(f"{where}: section {name!r} value {i} is {float(array.reshape(-1)[i])!r}, not a "
                               f"finite number in [{low:g}, {high:g}]")


def _check_one_sided(arrays: dict[str, npt.NDArray[Any]], points: int, checkers: int, where: str) -> None:
    """Raise BearoffFileError naming the first section inconsistent with a PxC one-sided table."""
    entries = int(core.count(points, checkers))
    first = entries - int(core.count(points, checkers - 1))
    f64 = (np.dtype(np.float64),)
    for prefix, means, n, why in (
        ("dist", ("mean", "stdev"), entries, f" (one per position of the {points}x{checkers} table)"),
        ("first", ("first_mean",), first, f" (one per position with exactly {checkers} checkers)"),
    ):
        for name in means:
            _section(arrays, name, where, f64, n, why)
        offset, _, length = (
            _section(arrays, f"{prefix}_{part}", where, (dtype,), n, why) for part, dtype in _ONE_SIDED_INDEX
        )
        pool = _section(arrays, f"{prefix}_pool", where, _FLOAT_DTYPES)
        if pool.ndim != 1:
            raise BearoffFileError(f"{where}: section {prefix + '_pool'!r} has shape {pool.shape}, expected 1-D")
        # offset + length <= pool size, written so that no int64 sum can overflow.
        bad = (offset < 0) | (offset > pool.size - length.astype(np.int64))
        if bad.any():
            i = int(np.argmax(bad))
            stop = int(offset[i]) + int(length[i])
            raise BearoffFileError(
                f"{where}: section {prefix + '_offset'!r} entry {i} reads {prefix}_pool[{int(offset[i])}:{stop}], "
                f"outside section {prefix + '_pool'!r} of {pool.size} values"
            )
        # Values: probabilities in [0, 1] that sum to 1 per distribution, finite means >= 0.
        # (A CRC proves a file is what was written, not that what was written is a table.)
        _check_values(arrays[f"{prefix}_pool"], f"{prefix}_pool", where, 0.0, 1.0)
        for name in means:
            _check_values(arrays[name], name, where, 0.0, float(np.finfo(np.float64).max))
        total = np.concatenate(([0.0], np.cumsum(pool, dtype=np.float64)))
        sums = total[offset + length.astype(np.int64)] - total[offset]
        off = np.flatnonzero(np.abs(sums - 1.0) > 1e-5)
        if off.size:
            i = int(off[0])
            raise BearoffFileError(f"{where}: section {prefix + '_pool'!r}: distribution {i} sums to "
                                   f"{float(sums[i])!r}, not 1")


def _check_two_sided(
    arrays: dict[str, npt.NDArray[Any]], points: int, checkers: int, total: int, where: str
) -> None:
    """Raise BearoffFileError naming the first section inconsistent with a PxN two-sided table."""
    positions = int(core.count(points, checkers))
    f64 = (np.dtype(np.float64),)
    for name in ("equity", "win"):
        if name == "win" and name not in arrays and checkers < total:
            continue  # no mars possible: win = (1 + equity) / 2
        why = f" (needed with checkers == total == {total})" if name == "win" else ""
        array = _section(arrays, name, where, f64, why=why)
        if array.size != positions * positions:
            raise BearoffFileError(
                f"{where}: section {name!r} has {array.size} values, expected {positions}^2 = "
                f"{positions * positions} for {points}x{checkers}"
            )
        # Equities are points in [-2, 2] (a mars counts 2), win probabilities in [0, 1].
        _check_values(array, name, where, -2.0 if name == "equity" else 0.0, 2.0 if name == "equity" else 1.0)


def _check_total(total: object, checkers: int) -> None:
    if not isinstance(total, int) or not checkers <= total <= TOTAL_CHECKERS:
        raise InvalidArgumentError(f"total={total!r} must be an integer {checkers}-{TOTAL_CHECKERS}")


class BearoffTable:
    """What both kinds of table are and do: their size (up to `checkers` checkers on points
    1..`points`, `total` checkers a side in the game), their `game`, their file (`path`, None
    when built in memory) and `save`. `OneSidedDB` and `TwoSidedDB` add their lookups and the
    hooks `_stored` (the arrays as saved) and `_describe` (their part of the repr)."""

    kind = ""
    strategy = ""  # what optimal play optimises, recorded in the file's header

    def __init__(self, points: int, checkers: int, total: int, arrays: dict[str, npt.NDArray[Any]],
                 path: Path | None, game: str) -> None:
        _check_size(points, checkers)
        self.game = _check_game(game)
        _check_total(total, checkers)
        self.points = points
        self.checkers = checkers
        self.total = total
        self.path = path
        self._a = arrays

    def __len__(self) -> int:
        raise NotImplementedError

    def _stored(self, dtype: str) -> dict[str, npt.NDArray[Any]]:
        raise NotImplementedError

    def _describe(self) -> str:
        raise NotImplementedError

    def save(self, path: str | os.PathLike[str], dtype: str = "float64") -> Path:
        """Write the table to `path` atomically; `dtype="float32"` stores its values (a
        one-sided table: its distributions) in half the space."""
        if not isinstance(dtype, str) or dtype not in ("float64", "float32"):
            raise InvalidArgumentError(f"dtype={dtype!r} must be 'float64' or 'float32'")
        meta = {
            "kind": self.kind,
            "game": self.game,
            "points": self.points,
            "checkers": self.checkers,
            "total": self.total,
            "dtype": dtype,
            "entries": len(self),
            "strategy": self.strategy,
        }
        return write_table(path, meta, self._stored(dtype))

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return (f"<{type(self).__name__} game={self.game} points={self.points} checkers={self.checkers} "
                f"{self._describe()}{where}>")


class OneSidedDB(BearoffTable):
    """Exact one-sided bear-off table: rolls to bear off all (and the first) checker(s) of a side.

    The strategy minimises the expected number of rolls; the first-off table (for positions with
    exactly `checkers` on the board) minimises the expected rolls until the first checker is off.
    Distributions are float64 and stored compactly (only the non-zero window of each).
    `game` is "fevga" or "gioul" (every double a chain, docs/bearoff.md "Gioul").
    """

    kind = "one-sided"
    strategy = "minimum expected rolls"

    def __init__(
        self,
        points: int,
        checkers: int,
        arrays: dict[str, npt.NDArray[Any]],
        path: Path | None = None,
        game: str = "fevga",
    ):
        super().__init__(points, checkers, TOTAL_CHECKERS, arrays, path, game)
        _check_one_sided(arrays, points, checkers, _where(path))
        self.entries = int(core.count(points, checkers))
        self.first_base = int(core.count(points, checkers - 1))
        self._mean: FloatArray = arrays["mean"]

    @classmethod
    def build(cls, points: int = 6, checkers: int = TOTAL_CHECKERS, *, game: str = "fevga",
              progress: bool = False) -> OneSidedDB:
        """Build the table of `game` for up to `checkers` checkers on points 1..`points`."""
        _check_size(points, checkers)
        _check_game(game)
        builder = core.OneSidedBuilder(points, checkers, game)
        entries = builder.entries
        step = max(1, entries // 100)
        with _progress(entries, f"{game} one-sided {points}x{checkers}", progress) as bar:
            while builder.done < entries:
                before = builder.done
                builder.run(before + step)
                bar.update(builder.done - before)
        return cls(points, checkers, builder.arrays(), game=game)

    def _stored(self, dtype: str) -> dict[str, npt.NDArray[Any]]:
        return {name: (a.astype(dtype, copy=False) if name.endswith("_pool") else a) for name, a in self._a.items()}

    def __len__(self) -> int:
        return self.entries

    def _describe(self) -> str:
        return f"entries={self.entries}"

    def counts(self, side: Side) -> tuple[int, ...]:
        """The validated counts on points 1..P of a side (see `side_counts`; a position must be
        of this table's game, see `check_position`)."""
        check_position(self, side)
        return side_counts(side, self.points, self.checkers)

    def rank(self, side: Side) -> int:
        """The combinatorial index of a side (layout in fevga_core/bearoff.pxd)."""
        return int(core.rank(self.counts(side)))

    def position(self, rank: int) -> tuple[int, ...]:
        """The counts on points 1..P of an index."""
        if not 0 <= rank < self.entries:
            raise MissingBearoffError(f"rank {rank!r} outside 0..{self.entries - 1}")
        return tuple(core.unrank(rank, self.points))

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return (tuple(core.unrank(r, self.points)) for r in range(self.entries))

    def mean_rolls(self, side: Side) -> float:
        """Expected number of rolls to bear off every checker of the side."""
        return float(self._mean[self.rank(side)])

    def stdev_rolls(self, side: Side) -> float:
        """Standard deviation of that number of rolls."""
        return float(self._a["stdev"][self.rank(side)])

    def _window(self, prefix: str, index: int) -> FloatArray:
        a = self._a
        start = int(a[f"{prefix}_start"][index])
        length = int(a[f"{prefix}_length"][index])
        offset = int(a[f"{prefix}_offset"][index])
        out = np.zeros(start + length)
        out[start:] = a[f"{prefix}_pool"][offset : offset + length]
        return out

    def distribution(self, side: Side) -> FloatArray:
        """P(rolls = i) at index i for bearing off every checker (a new array)."""
        return self._window("dist", self.rank(side))

    def first_off_distribution(self, side: Side) -> FloatArray:
        """P(rolls = i) for bearing off the first checker; [1.0] once one is off already."""
        index = self.rank(side)
        if index < self.first_base:
            return np.ones(1)
        return self._window("first", index - self.first_base)

    def first_off_mean(self, side: Side) -> float:
        """Expected number of rolls until the side's first checker is off."""
        index = self.rank(side)
        return 0.0 if index < self.first_base else float(self._a["first_mean"][index - self.first_base])

    def get_mean_rolls(self, side: Side, default: T | None = None) -> float | T | None:
        """`mean_rolls`, or `default` when the table does not cover the side."""
        return _get(lambda: self.mean_rolls(side), default)  # type: ignore[no-any-return]

    def get_distribution(self, side: Side, default: T | None = None) -> FloatArray | T | None:
        """`distribution`, or `default` when the table does not cover the side."""
        return _get(lambda: self.distribution(side), default)  # type: ignore[no-any-return]

    def get_first_off_distribution(self, side: Side, default: T | None = None) -> FloatArray | T | None:
        """`first_off_distribution`, or `default` when the table does not cover the side."""
        return _get(lambda: self.first_off_distribution(side), default)  # type: ignore[no-any-return]

    def _check_batch(self, array: npt.NDArray[np.uint8], bad: int) -> None:
        """Raise MissingBearoffError naming row `bad` of a batch kernel's input (none if bad < 0)."""
        if bad >= 0:
            raise MissingBearoffError(f"row {bad} {array[bad].tolist()} has more than {self.checkers} checkers")

    def ranks(self, counts: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Indexes of an (n, P) array of counts; MissingBearoffError names the first bad row."""
        array = _counts_array(counts, self.points)
        out = np.empty(len(array), dtype=np.int64)
        self._check_batch(array, core.rank_batch(array, self.checkers, out))
        return out

    def _mean_batch(self, counts: npt.ArrayLike, strict: bool) -> FloatArray:
        array = _counts_array(counts, self.points)
        out = np.empty(len(array))
        self._check_batch(array, core.mean_batch(array, self.checkers, self._mean, out, strict))
        return out

    def mean_rolls_batch(self, counts: npt.ArrayLike) -> FloatArray:
        """Expected rolls for an (n, P) array of counts (GIL released, ~10^7+ lookups/s)."""
        return self._mean_batch(counts, True)

    def get_mean_rolls_batch(self, counts: npt.ArrayLike) -> FloatArray:
        """`mean_rolls_batch` with NaN for uncovered rows."""
        return self._mean_batch(counts, False)

    def dense_distributions(self, first_off: bool = False) -> FloatArray:
        """All distributions as one (entries, max rolls + 1) array (first-off: suffix rows only)."""
        prefix = "first" if first_off else "dist"
        a = self._a
        start = a[f"{prefix}_start"].astype(np.int64)
        length = a[f"{prefix}_length"].astype(np.int64)
        offset = a[f"{prefix}_offset"]
        out = np.zeros((len(start), int((start + length).max())))
        rows = np.repeat(np.arange(len(start)), length)
        within = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
        out[rows, np.repeat(start, length) + within] = a[f"{prefix}_pool"][np.repeat(offset, length) + within]
        return out


class TwoSidedDB(BearoffTable):
    """Exact two-sided bear-off table: equity and win probability of the side on roll.

    Optimal play maximises expected points (a mars counts 2 when the loser still has all
    `total` checkers on the board, which needs checkers == total). Equities are float64.
    In a "gioul" table every double is a chain whose blocks the roller plays one by one.
    """

    kind = "two-sided"
    strategy = "maximum expected points"

    def __init__(
        self,
        points: int,
        checkers: int,
        total: int,
        arrays: dict[str, npt.NDArray[Any]],
        path: Path | None = None,
        game: str = "fevga",
    ):
        super().__init__(points, checkers, total, arrays, path, game)
        _check_two_sided(arrays, points, checkers, total, _where(path))
        self.positions = int(core.count(points, checkers))
        self._equity: FloatArray = arrays["equity"].reshape(-1)
        self._win: FloatArray | None = arrays["win"].reshape(-1) if "win" in arrays else None

    @classmethod
    def build(
        cls,
        checkers: int = 6,
        points: int = 6,
        *,
        total: int = TOTAL_CHECKERS,
        game: str = "fevga",
        progress: bool = False,
        workers: int = 1,
    ) -> TwoSidedDB:
        """Build the table of `game` for up to `checkers` checkers a side on points 1..`points`.

        `workers` threads (default 1: measured on a 2-core machine under load, the per-shell
        barriers cost more than the second core gives: N=10 took 7.1 s with 1, 10.1 s with 2) split
        each large shell; the result does not depend on it.

        `total` is the number of checkers a side has in the game (15 in Fevga); a smaller value
        models a smaller game, in which a mars is possible as soon as checkers == total.
        """
        _check_size(points, checkers)
        _check_total(total, checkers)
        threads = check_int("workers", workers, 1, MAX_WORKERS)
        _check_game(game)
        builder = core.TwoSidedBuilder(points, checkers, total, game)
        shells = builder.positions
        with _progress(shells * shells, f"{game} two-sided {points}x{checkers}", progress) as bar:
            # Shell m costs about m units: make ~100 chunks of equal work.
            serial = shells if threads == 1 else min(shells, _SERIAL_SHELLS)
            while builder.done < serial:
                before = builder.done
                target = int(min(serial, np.sqrt(before * before + shells * shells / 100) + 1))
                builder.run(target)
                bar.update(builder.done**2 - before**2)
            if builder.done < shells:
                _run_threaded(builder, threads, bar)
        return cls(points, checkers, total, builder.arrays(), game=game)

    def _stored(self, dtype: str) -> dict[str, npt.NDArray[Any]]:
        return {name: a.astype(dtype, copy=False) for name, a in self._a.items()}

    def __len__(self) -> int:
        return self.positions**2

    def _describe(self) -> str:
        return f"total={self.total}"

    def _pair(self, on_roll: Side, opponent: Side | None) -> int:
        check_position(self, on_roll)
        check_position(self, opponent)
        if opponent is None:
            if not (hasattr(on_roll, "counts") and hasattr(on_roll, "turn")):
                raise InvalidArgumentError("give both sides, or a Position (its side on roll plays first)")
            opponent = tuple(on_roll.counts(1 - on_roll.turn))
        a = side_counts(on_roll, self.points, self.checkers)
        b = side_counts(opponent, self.points, self.checkers)
        if not any(a) and not any(b):
            raise MissingBearoffError("both sides have borne off everything: no side can be on roll")
        return int(core.rank(a)) * self.positions + int(core.rank(b))

    def equity(self, on_roll: Side, opponent: Side | None = None) -> float:
        """Expected points for the side on roll under optimal play (-2..2)."""
        return float(self._equity[self._pair(on_roll, opponent)])

    def win_probability(self, on_roll: Side, opponent: Side | None = None) -> float:
        """Probability that the side on roll wins, playing for equity."""
        index = self._pair(on_roll, opponent)
        if self._win is not None:
            return float(self._win[index])
        return float(0.5 * (1.0 + self._equity[index]))

    def get_equity(self, on_roll: Side, opponent: Side | None = None, default: T | None = None) -> float | T | None:
        """`equity`, or `default` when the table does not cover the position."""
        return _get(lambda: self.equity(on_roll, opponent), default)  # type: ignore[no-any-return]

    def get_win_probability(
        self, on_roll: Side, opponent: Side | None = None, default: T | None = None
    ) -> float | T | None:
        """`win_probability`, or `default` when the table does not cover the position."""
        return _get(lambda: self.win_probability(on_roll, opponent), default)  # type: ignore[no-any-return]

    def _batch(self, on_roll: npt.ArrayLike, opponent: npt.ArrayLike, strict: bool, win: bool) -> FloatArray:
        a = _counts_array(on_roll, self.points)
        b = _counts_array(opponent, self.points)
        if a.shape != b.shape:
            raise InvalidArgumentError(f"batch shapes differ: {a.shape} and {b.shape}")
        table = self._win if (win and self._win is not None) else self._equity
        out = np.empty(len(a))
        bad = core.pair_batch(a, b, self.checkers, self.positions, table, out, strict)
        if bad >= 0:
            raise MissingBearoffError(f"row {bad} {a[bad].tolist()} / {b[bad].tolist()} is not covered")
        if win and self._win is None:
            out = 0.5 * (1.0 + out)
        return out

    def equity_batch(self, on_roll: npt.ArrayLike, opponent: npt.ArrayLike) -> FloatArray:
        """Equities for two (n, P) arrays of counts (GIL released)."""
        return self._batch(on_roll, opponent, True, False)

    def get_equity_batch(self, on_roll: npt.ArrayLike, opponent: npt.ArrayLike) -> FloatArray:
        """`equity_batch` with NaN for uncovered rows."""
        return self._batch(on_roll, opponent, False, False)

    def win_probability_batch(self, on_roll: npt.ArrayLike, opponent: npt.ArrayLike) -> FloatArray:
        """Win probabilities for two (n, P) arrays of counts."""
        return self._batch(on_roll, opponent, True, True)

    def equity_matrix(self) -> FloatArray:
        """The whole table as a (positions, positions) view: [on-roll rank, opponent rank]."""
        return self._equity.reshape(self.positions, self.positions)

    def win_matrix(self) -> FloatArray:
        """Win probabilities as a (positions, positions) array."""
        if self._win is not None:
            return self._win.reshape(self.positions, self.positions)
        return 0.5 * (1.0 + self.equity_matrix())


Database = Union[OneSidedDB, TwoSidedDB]

_SERIAL_SHELLS = 400  # below this, a shell is too small to be worth two threads


def _run_threaded(builder: Any, threads: int, bar: Any) -> None:
    """Build the remaining shells with `threads` threads over the nogil kernels, 2 barriers a shell."""
    shells = int(builder.positions)
    first = int(builder.done)
    barrier = threading.Barrier(threads)
    stop = threading.Event()
    errors: list[BaseException] = []
    progress = [first]

    def work(k: int) -> None:
        try:
            for m in range(first, shells):
                if stop.is_set():
                    return
                builder._run_split(m, 2 * k, threads)
                barrier.wait()
                builder._run_split(m, 2 * k + 1, threads)
                barrier.wait()
                if k == 0:
                    progress[0] = m + 1
        except threading.BrokenBarrierError:
            return
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)
            barrier.abort()

    workers = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(threads)]
    for worker in workers:
        worker.start()
    shown = first
    try:
        while any(worker.is_alive() for worker in workers):
            workers[0].join(0.1)
            done = progress[0]
            bar.update(done * done - shown * shown)
            shown = done
    except BaseException:
        stop.set()
        barrier.abort()
        for worker in workers:
            worker.join()
        raise
    if errors:
        raise errors[0]
    builder._finish_shells(shells)


def open_db(
    path: str | os.PathLike[str], *, verify: bool = True, kind: str | None = None, game: str | None = None
) -> Database:
    """Read (copy-on-load, see fevga.bearoff.fileformat) and validate a saved table;
    BearoffFileError says what is wrong with it, or that it is not a `kind` table of `game`
    (a file without a "game" field is a Fevga table, as written before Gioul tables existed).

    Beyond the checks of `TableFile` (checksums, section table), the sections must make a
    consistent table of the header's kind and size: each one present with its dtype and length,
    and every distribution window inside its pool (see `_check_one_sided`, `_check_two_sided`).
    """
    if game is not None:
        _check_game(game)
    table = TableFile(path, verify=verify)
    table.require(kind=kind)
    meta, arrays = table.meta, table.arrays
    try:
        found_kind, points, checkers = meta["kind"], int(meta["points"]), int(meta["checkers"])
        total = int(meta.get("total", TOTAL_CHECKERS))
        found_game = _check_game(meta.get("game", "fevga"))
        _check_size(points, checkers)
        if not checkers <= total <= TOTAL_CHECKERS:
            raise InvalidArgumentError(f"total={total} must be {checkers}-{TOTAL_CHECKERS}")
    except (KeyError, TypeError, ValueError, InvalidArgumentError) as exc:
        raise BearoffFileError(f"bear-off file {str(path)!r} has a malformed header: {exc}") from None
    if game is not None and found_game != game:
        raise BearoffFileError(
            f"bear-off file {str(path)!r} holds a {found_game.capitalize()} table, not a {game.capitalize()} one"
        )
    where = _where(path)
    if found_kind == OneSidedDB.kind:
        return OneSidedDB(points, checkers, dict(arrays), Path(path), game=found_game)
    if found_kind == TwoSidedDB.kind:
        loaded = dict(arrays)
        for name in ("equity", "win"):
            if name in loaded:  # float32 files are widened for the float64 kernels
                loaded[name] = np.asarray(_section(loaded, name, where, _FLOAT_DTYPES), dtype=np.float64)
        return TwoSidedDB(points, checkers, total, loaded, Path(path), game=found_game)
    raise BearoffFileError(f"{where} has unknown kind {found_kind!r}")


def cache_dir() -> Path:
    """Where default tables live: $FEVGA_CACHE_DIR, else $XDG_CACHE_HOME/fevga or ~/.cache/fevga."""
    explicit = os.environ.get("FEVGA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fevga"


_DEFAULT: dict[Path, OneSidedDB] = {}


def default_one_sided(*, progress: bool | None = None, game: str = "fevga") -> OneSidedDB:
    """The 6-point, 15-checker one-sided table of `game`, built into the cache directory on
    first use (with a progress bar when `progress`, by default when stderr is a terminal)."""
    _check_game(game)
    if progress is None:
        progress = sys.stderr.isatty()
    path = cache_dir() / ("one-sided-6x15.fbo" if game == "fevga" else f"one-sided-6x15-{game}.fbo")
    cached = _DEFAULT.get(path)
    if cached is not None:
        return cached
    try:
        db = open_db(path, kind=OneSidedDB.kind, game=game)
    except BearoffFileError:  # missing, damaged, or another game's: (re)build it
        db = OneSidedDB.build(6, TOTAL_CHECKERS, game=game, progress=progress)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # fevga's own cache folder
            db.save(path)
            db.path = path
        except (OSError, FevgaError) as exc:  # read-only cache: keep the table in memory for this process
            warnings.warn(f"could not cache the bear-off table at {str(path)!r}: {exc}", stacklevel=2)
    if not isinstance(db, OneSidedDB) or (db.points, db.checkers, db.game) != (6, TOTAL_CHECKERS, game):
        raise BearoffFileError(f"cached bear-off file {str(path)!r} is not the {game} 6x15 one-sided table")
    _DEFAULT[path] = db
    return db
