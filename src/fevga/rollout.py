"""Rollouts and exhaustive analysis: how good is a position, which move is best.

A rollout plays a position out many times with a policy and reports the outcome
statistics of the side on roll. Game ``i`` of a job draws its dice from its own stream
derived from the master seed, and its first two rolls are stratified over the 1,296 pairs
of rolls (``stratum = i mod 1296``), so results are bit-identical for 1, 2 or N workers
and for the Dask backend. Definitions and measured gains: docs/rollout.md.

>>> from fevga import Position
>>> result = rollout(Position.initial(), games=1296, seed=1, workers=1, progress=False)
>>> result.games, -2.0 <= result.equity <= 2.0
(1296, True)
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import json
import math
import os
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError, InvalidPositionError
from fevga.policy import POLICY_IDS, Policy, PolicyFn, chooser, policy_id, policy_name
from fevga.notation import parse_dice
from fevga.position import Move, Position
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike, master_key, seed_repr, seed_sequence
from fevga_core import rollout as core

if TYPE_CHECKING:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

Evaluator = Union[str, Callable[[Position], float]]

STRATA = int(core.STRATA)
BLOCK_GAMES = STRATA  # games per block: fixed, so results never depend on the workers
DEFAULT_GAMES = 8 * STRATA  # 10,368: eight full rotations of the opening roll pairs
LUCK_SCALE = 100.0  # heuristic units per tanh unit of the evaluator (docs/rollout.md)
Z95 = 1.959963984540054
DASK_CONNECT_TIMEOUT = 10.0  # seconds to reach a Dask scheduler given by address (distributed's default: 30)
_FIELDS = {name: i for i, name in enumerate(core.SUM_FIELDS)}
_LENGTH_BINS = int(core.MAX_LENGTH)


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class RolloutResult:
    """Outcome statistics of one rolled-out position, for the side on roll at its start.

    `equity` is in points (a mars counts 2); `ci95` is its 95% confidence interval.
    Probabilities are fractions of games (truncated games count their table values).
    """

    position: str
    games: int
    win: float
    win_mars: float
    lose_mars: float
    draw: float
    equity: float
    equity_se: float
    ci95: tuple[float, float]
    win_se: float
    raw_equity: float
    raw_equity_se: float
    truncated_games: int
    mean_length: float
    length_counts: tuple[int, ...]
    first_rolls: tuple[tuple[str, int, float], ...]
    policy: str
    seed: int | str
    truncate: bool
    stratified: bool
    luck: bool
    rules: tuple[tuple[str, object], ...]
    interrupted: bool = False
    elapsed: float = field(default=0.0, compare=False)
    workers: int = field(default=1, compare=False)
    backend: str = field(default="local", compare=False)
    resumed_games: int = field(default=0, compare=False)  # loaded from a checkpoint, not played in `elapsed`

    @property
    def lose(self) -> float:
        """P(lose) = 1 - win - draw."""
        return 1.0 - self.win - self.draw

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of every statistic."""
        return {
            "position": self.position,
            "games": self.games,
            "win": self.win,
            "win_mars": self.win_mars,
            "lose_mars": self.lose_mars,
            "draw": self.draw,
            "equity": self.equity,
            "equity_se": self.equity_se,
            "ci95": list(self.ci95),
            "win_se": self.win_se,
            "raw_equity": self.raw_equity,
            "raw_equity_se": self.raw_equity_se,
            "truncated_games": self.truncated_games,
            "mean_length": self.mean_length,
            "length_counts": list(self.length_counts),
            "first_rolls": [{"roll": r, "games": n, "equity": e} for r, n, e in self.first_rolls],
            "policy": self.policy,
            "seed": self.seed,
            "truncate": self.truncate,
            "stratified": self.stratified,
            "luck": self.luck,
            "rules": dict(self.rules),
            "interrupted": self.interrupted,
            "elapsed": self.elapsed,
            "workers": self.workers,
            "backend": self.backend,
            "resumed_games": self.resumed_games,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    def _row(self) -> dict[str, Any]:
        keys = ("position", "games", "win", "win_mars", "lose_mars", "draw", "equity", "equity_se",
                "win_se", "raw_equity", "raw_equity_se", "truncated_games", "mean_length", "policy", "seed")
        row = {k: getattr(self, k) for k in keys}
        row["ci95_low"], row["ci95_high"] = self.ci95
        return row

    def to_frame(self) -> Any:
        """A one-row pandas DataFrame of the main statistics (pandas imported lazily)."""
        return _pandas().DataFrame([self._row()])

    def first_roll_frame(self) -> Any:
        """The per-first-roll table as a pandas DataFrame: roll, games, equity."""
        return _pandas().DataFrame(list(self.first_rolls), columns=["roll", "games", "equity"])

    def to_csv(self) -> str:
        """The main statistics as CSV text (a header and one row)."""
        return _csv([self._row()])

    def summary(self) -> str:
        """A readable multi-line summary."""
        low, high = self.ci95
        lines = [
            f"position {self.position}: {self.games} games, policy {self.policy}, seed {self.seed}"
            + (" (interrupted)" if self.interrupted else ""),
            f"  equity {self.equity:+.4f} +- {self.equity_se:.4f}   95% CI [{low:+.4f}, {high:+.4f}]",
            f"  win {self.win:.2%}   win mars {self.win_mars:.2%}   lose {self.lose:.2%}"
            f"   lose mars {self.lose_mars:.2%}   draw {self.draw:.2%}",
            f"  mean length {self.mean_length:.1f} plies"
            + (f", {self.truncated_games} truncated" if self.truncate else ""),
        ]
        if self.elapsed > 0:
            played = self.games - self.resumed_games
            lines.append(f"  {self.elapsed:.2f} s, {played / self.elapsed:,.0f} games/s on {self.workers} worker(s)"
                         f" ({self.backend})"
                         + (f"; {self.resumed_games} games resumed from the checkpoint" if self.resumed_games else ""))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True)
class MoveRollout:
    """One legal move rolled out: its result for the mover, and its equity difference to the best.

    `result.position` is the position before the move (the mover on roll), so the result is for
    the side on roll in its position, like every RolloutResult; `move.position` is the position
    after it. `diff` and `diff_se` are the raw (not luck-adjusted) common-random-number
    difference to the best move and its standard error, computed from the same sums.
    """

    move: Move
    result: RolloutResult
    diff: float
    diff_se: float

    @property
    def equity(self) -> float:
        """The move's equity for the mover."""
        return self.result.equity

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"move": self.move.notation, "position": self.result.position, "after": self.move.position.id,
                "equity": self.equity, "diff": self.diff, "diff_se": self.diff_se, "result": self.result.to_dict()}


def moves_to_csv(ranking: Sequence[MoveRollout]) -> str:
    """CSV text of a move ranking (one row per move)."""
    rows = []
    for rank, m in enumerate(ranking, 1):
        row = {"rank": rank, "move": m.move.notation, "diff": m.diff, "diff_se": m.diff_se}
        row.update(m.result._row())
        rows.append(row)
    return _csv(rows)


def moves_to_frame(ranking: Sequence[MoveRollout]) -> Any:
    """A pandas DataFrame of a move ranking."""
    return _pandas().read_csv(io.StringIO(moves_to_csv(ranking)))


def _pandas() -> Any:
    """pandas, imported on first use (an optional dependency: fevga[frame])."""
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise InvalidArgumentError("DataFrame export needs pandas: pip install 'fevga[frame]'") from exc


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


# ---------------------------------------------------------------------------------------
# Jobs, blocks and their sums


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs to play any block of a job (picklable for Dask)."""

    rows: bytes
    color: int
    flags: int
    policies: tuple[int, int]
    truncate: bool
    luck: bool
    scale: float
    stratify: bool
    master: int
    games: int
    tables: Any  # "default", None, or (token, (points, checkers, arrays) | None, (..., equity, win) | None)
    callback: Callable[[bytes, int, int], int] | None = field(default=None, compare=False)
    callable_policy: str = ""  # identity of a callable policy (_callable_identity), "" for a built-in one
    seed: Any = field(default=None, compare=False)  # the seed's JSON form, kept in checkpoints (not identity)

    @property
    def targets(self) -> int:
        return len(self.rows) // 51

    @property
    def blocks(self) -> int:
        return -(-self.games // BLOCK_GAMES)

    def block_range(self, block: int) -> tuple[int, int]:
        first = block * BLOCK_GAMES
        return first, min(BLOCK_GAMES, self.games - first)

    def fingerprint(self) -> dict[str, Any]:
        """What a checkpoint must match to be resumed."""
        meta = {"rows": self.rows.hex(), "color": self.color, "flags": self.flags, "policies": list(self.policies),
                "truncate": self.truncate, "luck": self.luck, "scale": self.scale, "stratify": self.stratify,
                "master": str(self.master), "games": self.games, "block": BLOCK_GAMES,
                "tables": self.tables if isinstance(self.tables, str) or self.tables is None else self.tables[0]}
        if self.callable_policy:  # only then: checkpoints of built-in policies keep their old identity
            meta["callable_policy"] = self.callable_policy
        return meta


class _Sums:
    """Additive statistics of some games of a job, K targets at a time."""

    def __init__(self, targets: int) -> None:
        self.sums = np.zeros((targets, len(_FIELDS)))
        self.first = np.zeros((targets, 36, 3))
        self.cross = np.zeros((targets, targets))
        self.lengths = np.zeros((targets, _LENGTH_BINS), dtype=np.int64)

    def add(self, other: _Sums) -> None:
        self.sums += other.sums
        self.first += other.first
        self.cross += other.cross
        self.lengths += other.lengths

    def arrays(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        return (self.sums, self.first, self.cross, self.lengths)

    @classmethod
    def total(cls, targets: int, blocks: dict[int, _Sums]) -> _Sums:
        """Sum of blocks in block order (the same floats whoever played them)."""
        out = cls(targets)
        for index in sorted(blocks):
            out.add(blocks[index])
        return out


@lru_cache(maxsize=1)
def _default_table_arrays() -> tuple[Any, Any]:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

    return _table_arrays(OneSidedDB.build(6, 15), TwoSidedDB.build(checkers=6))


def _table_arrays(one: OneSidedDB | None, two: TwoSidedDB | None) -> tuple[Any, Any]:
    one_spec = None if one is None else (one.points, one.checkers, {k: np.asarray(v) for k, v in one._a.items()})
    two_spec = None
    if two is not None:
        win = two._win if two._win is not None else None
        two_spec = (two.points, two.checkers, two.total, np.asarray(two._equity), win)
    return one_spec, two_spec


def _token(one: Any, two: Any) -> str:
    """A content hash of custom tables: the per-process cache key and checkpoint identity."""
    digest = hashlib.sha256()
    for spec in (one, two):
        if spec is None:
            digest.update(b"none")
            continue
        digest.update(repr(spec[:-1] if spec is one else spec[:3]).encode())
        arrays = spec[-1].values() if spec is one else [a for a in spec[3:] if a is not None]
        for array in arrays:
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:32]


_TABLES: dict[str | None, core.Tables] = {}
_TABLES_LOCK = threading.Lock()


def tables_of(spec: Any) -> core.Tables:
    """The core Tables of a job's table spec, built once per process."""
    key = spec if isinstance(spec, str) or spec is None else spec[0]
    with _TABLES_LOCK:
        tables = _TABLES.get(key)
        if tables is None:
            if spec is None:
                tables = core.Tables()
            elif spec == "default":
                tables = core.Tables(*_default_table_arrays())
            else:
                tables = core.Tables(*spec[1:])
            if len(_TABLES) > 8:
                _TABLES.clear()
            _TABLES[key] = tables
    return tables


def _run_block(job: _Job, block: int, stop: npt.NDArray[np.int32] | None = None) -> tuple[int, _Sums, int]:
    """Play one block of a job: (block, sums, games played)."""
    first, games = job.block_range(block)
    sums = _Sums(job.targets)
    flag = stop if stop is not None else np.zeros(1, dtype=np.int32)
    done = core.run_block(job.rows, job.color, job.flags, job.policies[0], job.policies[1], job.callback,
                          tables_of(job.tables), job.truncate, job.luck, job.scale, job.stratify, job.master,
                          first, games, *sums.arrays(), flag)
    return block, sums, int(done)


def _run_blocks(job: _Job, blocks: list[int]) -> list[tuple[int, _Sums, int]]:
    """Several blocks of a job in one task (the Dask unit of work)."""
    return [_run_block(job, block) for block in blocks]


# ---------------------------------------------------------------------------------------
# Statistics


def _stats(job: _Job, total: _Sums, k: int, position: str, policy: str, seed: int | str,
           rules: Rules, interrupted: bool, elapsed: float, workers: int, backend: str,
           resumed: int = 0) -> RolloutResult:
    s = total.sums[k]
    n = float(s[_FIELDS["games"]])
    if n == 0:
        nan = float("nan")
        return RolloutResult(position, 0, nan, nan, nan, nan, nan, nan, (nan, nan), nan, nan, nan, 0, nan, (), (),
                             policy, seed, job.truncate, job.stratify, job.luck, tuple(rules.to_dict().items()),
                             interrupted, elapsed, workers, backend, resumed)
    mean = s[_FIELDS["equity"]] / n
    var = max(s[_FIELDS["equity_sq"]] / n - mean * mean, 0.0) * n / max(n - 1.0, 1.0)
    raw_se = math.sqrt(var / n)
    if job.stratify:
        raw_se = _stratified_se(total.first[k], n, raw_se)
    equity, se = mean, raw_se
    if job.luck:
        luck_mean = s[_FIELDS["luck"]] / n
        var_luck = s[_FIELDS["luck_sq"]] / n - luck_mean * luck_mean
        cov = s[_FIELDS["equity_luck"]] / n - mean * luck_mean
        if var_luck > 0:
            beta = cov / var_luck  # regression (control-variate) coefficient of the luck terms
            equity = mean - beta * luck_mean
            se = math.sqrt(max(var - cov * cov / var_luck, 0.0) / n)
    win = s[_FIELDS["win"]] / n
    lengths = total.lengths[k]
    last = int(np.nonzero(lengths)[0][-1]) + 1 if lengths.any() else 0
    return RolloutResult(
        position=position,
        games=int(n),
        win=float(win),
        win_mars=float(s[_FIELDS["win_mars"]] / n),
        lose_mars=float(s[_FIELDS["lose_mars"]] / n),
        draw=float(s[_FIELDS["draw"]] / n),
        equity=float(equity),
        equity_se=float(se),
        ci95=(float(equity - Z95 * se), float(equity + Z95 * se)),
        win_se=float(math.sqrt(max(win * (1 - win), 0.0) / n)),
        raw_equity=float(mean),
        raw_equity_se=float(raw_se),
        truncated_games=int(s[_FIELDS["truncated"]]),
        mean_length=float(s[_FIELDS["plies"]] / n),
        length_counts=tuple(int(c) for c in lengths[:last]),
        first_rolls=_first_roll_table(total.first[k]),
        policy=policy,
        seed=seed,
        truncate=job.truncate,
        stratified=job.stratify,
        luck=job.luck,
        rules=tuple(rules.to_dict().items()),
        interrupted=bool(interrupted),
        elapsed=elapsed,
        workers=workers,
        backend=backend,
        resumed_games=resumed,
    )


def _stratified_se(first: npt.NDArray[np.float64], n: float, fallback: float) -> float:
    """Standard error of the mean over the 36 first-roll strata (every stratum needs 2+ games)."""
    counts, sums, squares = first[:, 0], first[:, 1], first[:, 2]
    used = counts > 0
    if (counts[used] < 2).any():
        return fallback
    c = counts[used]
    var = (squares[used] - sums[used] ** 2 / c) / (c - 1)
    return float(math.sqrt(max(float(np.sum((c / n) ** 2 * np.maximum(var, 0.0) / c)), 0.0)))


def _first_roll_table(first: npt.NDArray[np.float64]) -> tuple[tuple[str, int, float], ...]:
    rows = []
    for a in range(1, 7):
        for b in range(a, 7):
            cells = {(a - 1) * 6 + (b - 1), (b - 1) * 6 + (a - 1)}
            games = sum(first[c, 0] for c in cells)
            if games:
                rows.append((f"{b}-{a}", int(games), float(sum(first[c, 1] for c in cells) / games)))
    return tuple(rows)


# ---------------------------------------------------------------------------------------
# Running a job: local threads or Dask, checkpoints, Ctrl-C, progress


class _CheckpointFormatError(Exception):
    """A file NumPy can read that is not laid out as a checkpoint (message: what is wrong)."""


_CHECKPOINT_ARRAYS = ("sums", "first", "cross", "lengths")


def _save_checkpoint(path: Path, job: _Job, blocks: dict[int, _Sums]) -> None:
    """Write the finished blocks atomically (temporary file + os.replace)."""
    order = sorted(blocks)
    arrays: dict[str, Any] = {
        "meta": np.frombuffer(json.dumps(job.fingerprint()).encode(), dtype=np.uint8),
        "blocks": np.asarray(order, dtype=np.int64),
        "seed": np.frombuffer(json.dumps(job.seed).encode(), dtype=np.uint8),
    }
    for i, name in enumerate(_CHECKPOINT_ARRAYS):
        shape = _Sums(job.targets).arrays()[i].shape
        arrays[name] = np.stack([blocks[b].arrays()[i] for b in order]) if order else np.zeros((0, *shape))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InvalidArgumentError(f"cannot write checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    try:
        from fevga.bearoff.fileformat import user_file_mode

        os.fchmod(fd, user_file_mode())  # the user's umask, not mkstemp's 0o600
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InvalidArgumentError(f"cannot write checkpoint {str(path)!r}: {exc.strerror or exc}") from None
        raise


def _load_checkpoint(path: Path, job: _Job) -> dict[int, _Sums]:
    """The finished blocks saved in `path`; InvalidArgumentError (quoting the path) if the file
    cannot be read, is not a fevga checkpoint, is corrupted, or belongs to another job."""
    name = str(path)
    try:
        meta, order, arrays = _read_checkpoint(path)
    except _CheckpointFormatError as exc:
        raise InvalidArgumentError(f"checkpoint {name!r} is not a fevga checkpoint: {exc}") from None
    except IsADirectoryError:
        raise InvalidArgumentError(f"checkpoint {name!r} is a directory; give a file path") from None
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read checkpoint {name!r}: {exc.strerror or exc}") from None
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error):
        raise InvalidArgumentError(
            f"checkpoint {name!r} is not a fevga checkpoint (not a readable .npz archive)") from None
    if meta != job.fingerprint():
        raise InvalidArgumentError(f"checkpoint {name!r} belongs to another job; remove it or change the path")
    blocks: dict[int, _Sums] = {}
    for i, block in enumerate(order):
        sums = _Sums(job.targets)
        for target, source in zip(sums.arrays(), (a[i] for a in arrays)):
            if source.shape != target.shape:
                raise InvalidArgumentError(f"checkpoint {name!r} is corrupted: block arrays of the wrong shape")
            target[:] = source
        if not 0 <= block < job.blocks or block in blocks or sums.sums[0, 0] != job.block_range(block)[1]:
            raise InvalidArgumentError(f"checkpoint {name!r} is corrupted: block {block} is out of range, "
                                       "repeated or incomplete")
        blocks[block] = sums
    return blocks


def _read_checkpoint(path: Path) -> tuple[Any, list[int], list[npt.NDArray[Any]]]:
    """(meta, block indices, [sums, first, cross, lengths]) of a checkpoint file, unvalidated."""
    data = np.load(path, allow_pickle=False)
    if not isinstance(data, np.lib.npyio.NpzFile):  # a bare .npy array
        raise _CheckpointFormatError("a single NumPy array, not a .npz archive")
    with data:
        missing = [key for key in ("meta", "blocks", *_CHECKPOINT_ARRAYS) if key not in data.files]
        if missing:
            raise _CheckpointFormatError(f"no {', '.join(repr(m) for m in missing)} in the archive")
        try:
            meta = json.loads(data["meta"].tobytes().decode())
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            raise _CheckpointFormatError("its 'meta' entry is not JSON") from None
        order = [int(b) for b in np.asarray(data["blocks"]).reshape(-1)]
        arrays = [np.asarray(data[key]) for key in _CHECKPOINT_ARRAYS]
    if any(a.ndim == 0 or a.shape[0] != len(order) for a in arrays):
        raise _CheckpointFormatError("its block arrays and block list differ in length")
    return meta, order, arrays


def _checkpoint_exists(path: Path) -> bool:
    """Whether there is something at `path` to resume (InvalidArgumentError if it cannot be looked at)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    return True


def _checkpoint_master(path: Path) -> tuple[int, int | str] | None:
    """The master key and seed recorded in an existing checkpoint (lets seed=None resume and
    report the seed that reproduces the run)."""
    try:
        master = int(_read_checkpoint(path)[0]["master"])
    except Exception:  # unreadable or foreign: _load_checkpoint reports it with the path
        return None
    seed: int | str = f"master key {master}"  # a checkpoint written before seeds were kept
    try:
        with np.load(path, allow_pickle=False) as data:
            if "seed" in data.files:
                stored = json.loads(data["seed"].tobytes().decode())
                if isinstance(stored, (int, str)) and not isinstance(stored, bool):
                    seed = stored
    except Exception:
        pass
    return master, seed


class _Progress:
    def __init__(self, job: _Job, done: int, enabled: bool) -> None:
        tqdm = importlib.import_module("tqdm").tqdm
        self.bar = tqdm(total=job.games, initial=done, unit="game", disable=not enabled, dynamic_ncols=True,
                        desc="rollout", leave=False)
        self.partial = _Sums(job.targets)

    def update(self, sums: _Sums, games: int) -> None:
        self.partial.add(sums)
        s = self.partial.sums[0]
        n = s[0]
        if n > 1:
            mean = s[1] / n
            se = math.sqrt(max(s[2] / n - mean * mean, 0.0) / (n - 1))
            self.bar.set_postfix_str(f"equity {mean:+.3f} CI +-{Z95 * se:.3f}", refresh=False)
        self.bar.update(games)
        if self.bar.n >= self.bar.total:
            self.bar.refresh()  # the final rate and interval, even for a job shorter than the refresh interval

    def close(self) -> None:
        self.bar.close()


def _execute(job: _Job, workers: int, backend: str, scheduler: Any, checkpoint: Path | None,
             checkpoint_every: float, progress: bool, on_block: Callable[[int, int], None] | None,
             ) -> tuple[dict[int, _Sums], bool, int]:
    """Play the job's missing blocks: (finished blocks, interrupted, games loaded from the checkpoint)."""
    blocks: dict[int, _Sums] = {}
    if checkpoint is not None and _checkpoint_exists(checkpoint):
        blocks = _load_checkpoint(checkpoint, job)
    # Lazily: a job's block list is never built (a huge --games starts at once, in O(1) memory).
    todo = (b for b in range(job.blocks) if b not in blocks)
    done_games = sum(int(s.sums[0, 0]) for s in blocks.values())
    resumed = done_games
    bar = _Progress(job, done_games, progress)
    for sums in blocks.values():
        bar.partial.add(sums)
    last_save = -math.inf  # the first finished block is saved at once, later ones every checkpoint_every s
    interrupted = False

    def finished(block: int, sums: _Sums, games: int) -> None:
        nonlocal done_games, last_save
        expected = job.block_range(block)[1]
        if games < expected:  # stopped mid-block: its games are dropped, the block is redone on resume
            return
        blocks[block] = sums
        done_games += games
        bar.update(sums, games)
        if checkpoint is not None and time.monotonic() - last_save >= checkpoint_every:
            _save_checkpoint(checkpoint, job, blocks)
            last_save = time.monotonic()
        if on_block is not None:
            on_block(done_games, job.games)

    try:
        if backend == "dask":
            interrupted = _execute_dask(job, todo, workers, scheduler, finished)
        else:
            interrupted = _execute_local(job, todo, workers, finished)
    finally:
        bar.close()
        if checkpoint is not None:
            _save_checkpoint(checkpoint, job, blocks)
    return blocks, interrupted, resumed


def _execute_local(job: _Job, todo: Iterable[int], workers: int, finished: Callable[[int, _Sums, int], None]) -> bool:
    # Even one worker runs in a thread: the main thread stays free to take Ctrl-C at once and
    # raise the stop flag that the nogil loop checks between games.
    stop = np.zeros(1, dtype=np.int32)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fevga-rollout")
    pending: set[Future[tuple[int, _Sums, int]]] = set()
    queue = iter(todo)
    try:
        for block in queue:
            pending.add(pool.submit(_run_block, job, block, stop))
            if len(pending) >= 2 * workers:
                break
        while pending:
            ready, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in sorted(ready, key=id):
                finished(*future.result())
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(_run_block, job, nxt, stop))
        return False
    except KeyboardInterrupt:
        stop[0] = 1
        for future in pending:
            future.cancel()
        return True
    finally:
        stop[0] = 1
        pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(job: _Job, todo_blocks: Iterable[int], workers: int, scheduler: Any,
                  finished: Callable[[int, _Sums, int], None]) -> bool:
    todo = list(todo_blocks)  # grouped up front: MAX_GAMES bounds its length
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError("backend='dask' needs dask[distributed]: pip install 'fevga[dask]'") from exc
    Client, LocalCluster, as_completed = distributed.Client, distributed.LocalCluster, distributed.as_completed
    owned: list[Any] = []
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        owned = [client, cluster]
    else:
        client = _connect(Client, scheduler)
        owned = [client]
    futures: list[Any] = []
    try:
        shared = client.scatter(job, broadcast=True, hash=False)
        # ~16 tasks per worker: few enough that the scheduler's per-task cost (~1 ms) is small
        # next to the games, many enough that no worker idles long at the end of the job.
        chunks = 16 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        size = max(1, -(-len(todo) // chunks))
        groups = [todo[i:i + size] for i in range(0, len(todo), size)]
        futures = [client.submit(_run_blocks, shared, group, pure=False) for group in groups]
        for future in as_completed(futures):
            for item in future.result():
                finished(*item)
        return False
    except KeyboardInterrupt:
        client.cancel(futures)
        return True
    finally:
        for thing in owned:
            thing.close()


def _connect(client_class: Any, scheduler: Any) -> Any:
    """A Client of the scheduler at `scheduler`, or InvalidArgumentError within
    DASK_CONNECT_TIMEOUT seconds (an unreachable address, a missing port, ...)."""
    try:
        return client_class(scheduler, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InvalidArgumentError(f"cannot connect to the Dask scheduler {scheduler!r}: {reason}") from None


# ---------------------------------------------------------------------------------------
# Public API


def _check_position(position: object, *, finished: bool = False) -> Position:
    """`position` if it is a Position, and (unless `finished` is allowed) a game still in play."""
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position")
    if not finished and position.winner() is not None:
        raise InvalidPositionError(f"position {position.id} is already finished")
    return position


def _check_int(name: str, value: object, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise InvalidArgumentError(f"{name}={value!r} must be an integer >= {low}")
    return value


def _policy_ids(policy: Policy) -> tuple[tuple[int, int], str]:
    pid = policy_id(policy)
    return (pid, pid), policy_name(policy)


def _callable_identity(policy: Policy) -> str:
    """A callable policy's stable identity for checkpoints: ``module:qualname:name`` of the
    function (of its class for a callable object); "" for a built-in policy. The code behind
    the name is not part of it: a callable edited under the same name is not detected."""
    if not callable(policy):
        return ""
    owner: Any = policy if hasattr(policy, "__qualname__") else type(policy)
    module = getattr(owner, "__module__", None) or "?"
    qualname = getattr(owner, "__qualname__", None) or type(policy).__name__
    return f"{module}:{qualname}:{getattr(policy, '__name__', '')}"  # never repr(): it may hold an address


_SPECS: dict[tuple[int, int], tuple[Any, Any, Any]] = {}


def _tables_spec(bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None) -> Any:
    if bearoff is None and one_sided is None:
        return "default"
    if bearoff is not None and bearoff.total != 15:
        # Its terminal values (and mars) assume `total` checkers a side: wrong for a Fevga game.
        raise InvalidArgumentError(f"bearoff={bearoff!r} was built for total={bearoff.total} checkers a side; "
                                   "rollouts of Fevga positions need total=15")
    key = (id(bearoff), id(one_sided))
    cached = _SPECS.get(key)
    if cached is not None and cached[0] is bearoff and cached[1] is one_sided:
        return cached[2]
    one, two = _table_arrays(one_sided, bearoff)
    if one_sided is None:
        one = _default_table_arrays()[0]
    spec = (_token(one, two), one, two)
    if len(_SPECS) > 8:
        _SPECS.clear()
    _SPECS[key] = (bearoff, one_sided, spec)
    return spec


MAX_GAMES = 2**53  # game counts are summed in float64: exact up to here


def _games(games: int, stratify: bool) -> int:
    """Validated game count; stratified rollouts round it up to a multiple of 36 (every
    first roll equally often, so the plain mean stays unbiased)."""
    games = _check_int("games", games, 1)
    if games > MAX_GAMES - 36:
        raise InvalidArgumentError(f"games={games} must be at most {MAX_GAMES - 36} (2^53 - 36: counts are exact "
                                   "in float64 up to 2^53)")
    return -(-games // 36) * 36 if stratify else games


def _workers(workers: int | None) -> int:
    if workers is None:
        return os.cpu_count() or 1
    return _check_int("workers", workers, 1)


def _backend(backend: str, scheduler: Any) -> str:
    if backend not in ("local", "dask"):
        raise InvalidArgumentError(f"backend={backend!r} must be 'local' or 'dask'")
    return "dask" if scheduler is not None else backend


def _make_job(rows: bytes, color: int, games: int, seed: SeedLike, policy: Policy, truncate: bool, luck: bool,
              stratify: bool, rules: Rules, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None,
              checkpoint: Path | None) -> tuple[_Job, str, int | str]:
    ids, name = _policy_ids(policy)
    master: int | None = None
    seed_value: int | str = ""
    if seed is None and checkpoint is not None and _checkpoint_exists(checkpoint):
        stored = _checkpoint_master(checkpoint)
        if stored is not None:
            master, seed_value = stored
    if master is None:
        sequence = seed_sequence(seed)  # once: seed=None draws its entropy here
        master = master_key(sequence)
        seed_value = seed_repr(sequence)
    job = _Job(rows=rows, color=color, flags=rules.flags, policies=ids, truncate=bool(truncate), luck=bool(luck),
               scale=LUCK_SCALE, stratify=bool(stratify), master=master, games=games,
               tables=_tables_spec(bearoff, one_sided), callback=chooser([policy, policy], rules),
               callable_policy=_callable_identity(policy), seed=seed_value)
    return job, name, seed_value


def rollout(
    position: Position,
    games: int = DEFAULT_GAMES,
    seed: SeedLike = None,
    workers: int | None = None,
    policy: Policy = "heuristic",
    truncate: bool = False,
    backend: str = "local",
    scheduler: Any = None,
    *,
    rules: Rules | None = None,
    stratify: bool = True,
    luck: bool = False,
    bearoff: TwoSidedDB | None = None,
    one_sided: OneSidedDB | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = 10.0,
    progress: bool | None = None,
    on_block: Callable[[int, int], None] | None = None,
) -> RolloutResult:
    """Play `position` out `games` times and return the statistics of its side on roll.

    `policy` is "random", "heuristic", "bearoff" (table-optimal in covered races, heuristic
    elsewhere), "lookahead" (1-ply over the evaluator) or a callable
    ``policy(position, dice, moves) -> Move`` (slow: runs in Python). `truncate` scores a game
    from the bear-off tables once no contact is possible and the tables cover it. `luck`
    subtracts the luck of every roll (control variate). `workers` threads (default: every
    core) or a Dask cluster (`backend="dask"`, `scheduler` = address, Client or None for a
    local cluster; an address not reached within DASK_CONNECT_TIMEOUT seconds raises
    InvalidArgumentError) play fixed blocks of 1,296 games: the result does not depend on either.
    `checkpoint` saves finished blocks atomically and resumes from them; a file that is not a
    checkpoint of this same job (a callable policy is identified by its module and qualified
    name) raises InvalidArgumentError. Ctrl-C (or a KeyboardInterrupt raised by
    `on_block(done, total)`) returns the partial result.
    """
    start = _check_position(position)
    games = _games(games, stratify)
    rules = rules_of(rules)
    count = _workers(workers)
    backend = _backend(backend, scheduler)
    path = Path(checkpoint) if checkpoint is not None else None
    job, name, seed_value = _make_job(start._row(), start.turn, games, seed, policy, truncate, luck, stratify,
                                      rules, bearoff, one_sided, path)
    began = time.perf_counter()
    blocks, interrupted, resumed = _execute(job, count, backend, scheduler, path, checkpoint_every,
                                            _progress_default(progress), on_block)
    total = _Sums.total(job.targets, blocks)
    return _stats(job, total, 0, start.id, name, seed_value, rules, interrupted or total.sums[0, 0] < games,
                  time.perf_counter() - began, count, backend, resumed)


def rollout_moves(
    position: Position,
    dice: object,
    games: int = DEFAULT_GAMES,
    seed: SeedLike = None,
    workers: int | None = None,
    policy: Policy = "heuristic",
    truncate: bool = False,
    backend: str = "local",
    scheduler: Any = None,
    *,
    rules: Rules | None = None,
    stratify: bool = True,
    luck: bool = False,
    bearoff: TwoSidedDB | None = None,
    one_sided: OneSidedDB | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = 10.0,
    progress: bool | None = None,
    on_block: Callable[[int, int], None] | None = None,
) -> list[MoveRollout]:
    """Roll out every legal move of `position` with `dice`, best first.

    Every move is played out with the same dice streams (common random numbers), so the
    standard error of each move's difference to the best (`diff_se`) is far smaller than the
    moves' own errors. Other arguments as in `rollout`; results are for the mover (each
    result's `position` is the start position, where the mover is on roll). Moves are ranked
    by `diff`, the raw common-random-number difference to the best (with `luck=True` each
    move's `equity` is luck-adjusted, while `diff` and `diff_se` stay raw: one consistent pair).
    """
    start = _check_position(position)
    games = _games(games, stratify)
    rules = rules_of(rules)
    moves = start.legal_moves(parse_dice(dice), rules)
    count = _workers(workers)
    backend = _backend(backend, scheduler)
    path = Path(checkpoint) if checkpoint is not None else None
    rows = b"".join(m.position._row() for m in moves)
    job, name, seed_value = _make_job(rows, start.turn, games, seed, policy, truncate, luck, stratify, rules,
                                      bearoff, one_sided, path)
    began = time.perf_counter()
    blocks, interrupted, resumed = _execute(job, count, backend, scheduler, path, checkpoint_every,
                                            _progress_default(progress), on_block)
    elapsed = time.perf_counter() - began
    total = _Sums.total(job.targets, blocks)
    n = float(total.sums[0, 0])
    short = interrupted or n < games
    # Every move's result is for the mover, who is on roll in the start position (its label).
    results = [_stats(job, total, k, start.id, name, seed_value, rules, short, elapsed, count, backend, resumed)
               for k in range(len(moves))]
    # diff and diff_se are both the raw common-random-number difference (the cross sums are of
    # raw game values); ranking by it keeps every diff <= 0.
    raw = [float(total.sums[k, 1]) / n if n else float("nan") for k in range(len(moves))]
    order = sorted(range(len(moves)), key=lambda k: -raw[k])
    best = order[0]
    ranking = []
    for k in order:
        diff = raw[k] - raw[best]
        if k == best or n < 2:
            diff_se = 0.0
        else:
            sk, sb = total.sums[k, 1] / n, total.sums[best, 1] / n
            var = (total.sums[k, 2] / n - sk * sk) + (total.sums[best, 2] / n - sb * sb) \
                - 2.0 * (total.cross[k, best] / n - sk * sb)
            diff_se = math.sqrt(max(var, 0.0) / (n - 1.0))
        ranking.append(MoveRollout(moves[k], results[k], float(diff), float(diff_se)))
    return ranking


def _progress_default(progress: bool | None) -> bool:
    if progress is not None:
        return bool(progress)
    import sys

    return sys.stderr.isatty()


# ---------------------------------------------------------------------------------------
# Exhaustive analysis


def evaluate(position: Position, evaluator: str = "heuristic", *, bearoff: TwoSidedDB | None = None,
             one_sided: OneSidedDB | None = None) -> float:
    """The static evaluator's equity for the side on roll: tanh(heuristic / 100), or the
    bear-off tables' value of a covered race with ``evaluator="bearoff"``."""
    tables = _evaluator_tables(evaluator, bearoff, one_sided)
    return float(core.value(_check_position(position, finished=True)._row(), position.turn, tables, LUCK_SCALE))


def _evaluator_tables(evaluator: str, bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None) -> core.Tables:
    if evaluator == "heuristic":
        return tables_of(None)
    if evaluator == "bearoff":
        spec = _tables_spec(bearoff, one_sided)
        return tables_of(spec)
    raise InvalidArgumentError(f"evaluator {evaluator!r} must be 'heuristic', 'bearoff', 'rollout' or a callable")


_ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


def _final_points(position: Position, side: int) -> float | None:
    """The points of a finished game for `side` (positive if it won), or None while the game
    is in play (or drawn: no winner)."""
    winner = position.winner()
    if winner is None:
        return None
    return float(position.points()) * (1.0 if winner == side else -1.0)


def lookahead(evaluator: Callable[[Position], float], rules: Rules | None = None) -> PolicyFn:
    """A 1-ply lookahead policy over any evaluator (equity of a position's side on roll):
    each move is worth the average over the opponent's 21 rolls of its best reply by
    `evaluator`. A Python policy (slow path); ``policy="lookahead"`` is the built-in one."""
    rules = rules_of(rules)

    def value_for_mover(after: Position) -> float:
        final = _final_points(after, 1 - after.turn)
        if final is not None:
            return final
        total = 0.0
        for a, b in _ROLLS:
            replies = after.legal_moves((a, b), rules)
            best_reply = max(_value_after(r.position, evaluator) for r in replies)
            total += (1.0 if a == b else 2.0) / 36.0 * -best_reply
        return total

    def policy(position: Position, dice: tuple[int, int], moves: list[Move]) -> Move:
        return max(moves, key=lambda m: value_for_mover(m.position))

    policy.__name__ = f"lookahead({getattr(evaluator, '__name__', 'evaluator')})"
    return policy


def _value_after(position: Position, evaluator: Callable[[Position], float]) -> float:
    """Value of a move's result for the player who just moved."""
    final = _final_points(position, 1 - position.turn)
    if final is not None:
        return final
    return -float(evaluator(position))


def expectimax(
    position: Position,
    depth: int = 1,
    evaluator: Evaluator = "heuristic",
    *,
    rules: Rules | None = None,
    bearoff: TwoSidedDB | None = None,
    one_sided: OneSidedDB | None = None,
    games: int = 1296,
    seed: SeedLike = 0,
    workers: int | None = None,
    policy: Policy = "heuristic",
) -> float:
    """Exact expected equity of the side on roll over all 21 rolls, `depth` plies deep.

    Each ply takes the mover's best move (by the value below it); leaves are scored by
    `evaluator`: "heuristic" (tanh of the heuristic), "bearoff" (exact tables in covered
    races, heuristic elsewhere), a callable ``evaluator(position) -> equity of its side on
    roll``, or "rollout": exhaustive first plies, Monte Carlo after (each leaf rolled out
    `games` times with `policy` and the same seed). Finished games score their points and
    dead positions 0 at any depth.
    """
    start = _check_position(position)
    depth = _check_int("depth", depth, 0)
    rules = rules_of(rules)
    if isinstance(evaluator, str) and evaluator != "rollout":
        tables = _evaluator_tables(evaluator, bearoff, one_sided)
        return float(core.expectimax_value(start._row(), depth, rules.flags, tables, LUCK_SCALE))
    leaf: Callable[[Position], float]
    if evaluator == "rollout":
        def leaf(p: Position) -> float:
            return rollout(p, games=games, seed=seed, workers=workers, policy=policy, rules=rules,
                           bearoff=bearoff, one_sided=one_sided, progress=False).equity
    elif callable(evaluator):
        leaf = evaluator
    else:
        raise InvalidArgumentError(f"evaluator {evaluator!r} must be 'heuristic', 'bearoff', 'rollout' or a callable")
    return _expectimax_py(start, depth, leaf, rules)


def _expectimax_py(position: Position, depth: int, leaf: Callable[[Position], float], rules: Rules) -> float:
    final = _final_points(position, position.turn)
    if final is not None:
        return final
    if depth == 0:
        return float(leaf(position))
    total = 0.0
    for a, b in _ROLLS:
        moves = position.legal_moves((a, b), rules)
        if len(moves) == 1 and moves[0].is_pass and position.is_dead(rules):
            return 0.0
        best = max(-_expectimax_py(m.position, depth - 1, leaf, rules) for m in moves)
        total += (1.0 if a == b else 2.0) / 36.0 * best
    return total


def policy_names() -> Iterable[str]:
    """The built-in rollout policy names."""
    return tuple(POLICY_IDS)


__all__ = [
    "DEFAULT_GAMES",
    "MoveRollout",
    "RolloutResult",
    "evaluate",
    "expectimax",
    "lookahead",
    "moves_to_csv",
    "moves_to_frame",
    "rollout",
    "rollout_moves",
]
