"""Rollout jobs: what a worker needs to play any block of games of a job, the additive sums
that blocks return, and the tally that adds them up in block order with bounded memory."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import numpy.typing as npt

from fevga.bearoff.core_tables import tables_of, tables_spec
from fevga.checks import check_int
from fevga.errors import InvalidArgumentError
from fevga.limits import check_flag
from fevga.match import MatchScore
from fevga.net import Net, net_of
from fevga.policy import GIOUL_POLICIES, HEURISTIC_SCALE, Policy, chooser, policy_id, policy_name, policy_pair, uses_net
from fevga.rules import Rules
from fevga.seeding import SeedLike, master_key, seed_repr, seed_sequence
from fevga_core import rollout as core
from fevga_core.constants import POSITION_WIDTH
from fevga_core.constants import GIOUL_WIDTH

if TYPE_CHECKING:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

NetSpec = Union["Net", str, os.PathLike[str], None, tuple[Any, Any]]  # a net, a file, None = shipped; or (white, black)

STRATA = int(core.STRATA)
BLOCK_GAMES = STRATA  # games per block: fixed, so results never depend on the workers
DEFAULT_GAMES = 8 * STRATA  # 10,368: eight full rotations of the opening roll pairs
MAX_GAMES = 2**53  # game counts are summed in float64: exact up to here
FIELDS = {name: i for i, name in enumerate(core.SUM_FIELDS)}
LENGTH_BINS = int(core.MAX_LENGTH)
ROW_WIDTH = POSITION_WIDTH  # bytes of a position row


@dataclass(frozen=True)
class Job:
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
    net: Net | None = None  # the evaluator of the net policies and of luck (None: heuristic)
    black_net: Net | None = None  # Black's net when it differs (net-against-net matches)
    match_weights: tuple[float, ...] | None = None  # a game's match value from its outcome (MatchScore.weights)
    game: str = "fevga"  # the game of the rows: "fevga" or "gioul" (the core knows it from the flags)

    @property
    def row_width(self) -> int:
        """Bytes of one start row: a Fevga position row or a Gioul state row."""
        return int(GIOUL_WIDTH) if self.game == "gioul" else ROW_WIDTH

    @property
    def targets(self) -> int:
        """Start positions played with the same dice (the moves of rollout_moves)."""
        return len(self.rows) // self.row_width

    @property
    def blocks(self) -> int:
        """Blocks in the job (the last one may be short)."""
        return -(-self.games // BLOCK_GAMES)

    def block_range(self, block: int) -> tuple[int, int]:
        """(first game, games) of a block."""
        first = block * BLOCK_GAMES
        return first, min(BLOCK_GAMES, self.games - first)

    def games_of(self, blocks: range) -> int:
        """Games in a run of consecutive blocks."""
        return min(blocks.stop * BLOCK_GAMES, self.games) - min(blocks.start * BLOCK_GAMES, self.games)

    def fingerprint(self) -> dict[str, Any]:
        """What a checkpoint must match to be resumed."""
        meta = {"rows": self.rows.hex(), "color": self.color, "flags": self.flags, "policies": list(self.policies),
                "truncate": self.truncate, "luck": self.luck, "scale": self.scale, "stratify": self.stratify,
                "master": str(self.master), "games": self.games, "block": BLOCK_GAMES,
                "tables": self.tables if isinstance(self.tables, str) or self.tables is None else self.tables[0]}
        if self.callable_policy:  # only then: checkpoints of built-in policies keep their old identity
            meta["callable_policy"] = self.callable_policy
        if self.net is not None:
            meta["net"] = self.net.checksum
        if self.black_net is not None:
            meta["black_net"] = self.black_net.checksum
        quantised = [key for key, net in (("net", self.net), ("black_net", self.black_net))
                     if net is not None and net.is_quantised]
        if quantised:  # only then: checkpoints of float nets keep their old identity
            meta["quantised"] = quantised
        if self.match_weights is not None:
            meta["match_weights"] = list(self.match_weights)
        if self.game != "fevga":  # only then: Fevga checkpoints keep their old identity
            meta["game"] = self.game
        return meta


def stop_rounds(blocks: int) -> list[range]:
    """Block ranges of the stopping rule's rounds (rollout_moves(stop_early=True)): 1, 1, 2, 4, ... blocks."""
    out, done, size = [], 0, 1
    while done < blocks:
        out.append(range(done, min(blocks, done + size)))
        done += size
        size = max(size, done)
    return out


class Sums:
    """Additive statistics of some games of a job, K targets at a time."""

    def __init__(self, targets: int) -> None:
        self.sums = np.zeros((targets, len(FIELDS)))
        self.first = np.zeros((targets, 36, 3))
        self.cross = np.zeros((targets, targets))
        self.lengths = np.zeros((targets, LENGTH_BINS), dtype=np.int64)

    def add(self, other: Sums) -> None:
        """Add another part's statistics into these."""
        self.sums += other.sums
        self.first += other.first
        self.cross += other.cross
        self.lengths += other.lengths

    def arrays(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        """(sums, first, cross, lengths): the arrays the core adds into."""
        return (self.sums, self.first, self.cross, self.lengths)

    def pick(self, k: int) -> Sums:
        """The statistics of target k alone."""
        out = Sums(1)
        out.sums[0], out.first[0], out.lengths[0] = self.sums[k], self.first[k], self.lengths[k]
        out.cross[0, 0] = self.cross[k, k]
        return out

    def copy(self) -> Sums:
        """An independent copy."""
        out = Sums(0)
        out.sums, out.first, out.cross, out.lengths = (a.copy() for a in self.arrays())
        return out

    @property
    def games(self) -> int:
        """Games summed (of the first target: every target plays the same games)."""
        return int(self.sums[0, 0]) if len(self.sums) else 0


class Tally:
    """The finished blocks of a job's range `start`.., added up in block order as they come: the
    contiguous run from `start` is folded into one running sum (`prefix`, blocks start..next-1)
    and only blocks finished ahead of it are kept apart (`ahead`). Memory is bounded by the
    blocks in flight, not by the job's size, and the totals are the same floats whoever
    played the blocks and in whatever order they finished."""

    def __init__(self, targets: int, start: int = 0) -> None:
        self.start = start
        self.next = start
        self.prefix = Sums(targets)
        self.ahead: dict[int, Sums] = {}

    def add(self, block: int, sums: Sums) -> None:
        """Record a finished block."""
        self.ahead[block] = sums
        while self.next in self.ahead:
            self.prefix.add(self.ahead.pop(self.next))
            self.next += 1

    def has(self, block: int) -> bool:
        """Whether `block` is finished."""
        return self.start <= block < self.next or block in self.ahead

    @property
    def games(self) -> int:
        """Games in the finished blocks."""
        return self.prefix.games + sum(s.games for s in self.ahead.values())

    def total(self) -> Sums:
        """The sum of every finished block, in block order."""
        out = self.prefix.copy()
        for block in sorted(self.ahead):
            out.add(self.ahead[block])
        return out


def run_block(job: Job, block: int, stop: npt.NDArray[np.int32] | None = None) -> tuple[int, Sums, int]:
    """Play one block of a job: (block, sums, games played)."""
    first, games = job.block_range(block)
    sums = Sums(job.targets)
    flag = stop if stop is not None else np.zeros(1, dtype=np.int32)
    weights = None if job.match_weights is None else np.asarray(job.match_weights)
    done = core.run_block(job.rows, job.color, job.flags, job.policies[0], job.policies[1], job.callback,
                          tables_of(job.tables), job.net._core if job.net is not None else None,
                          job.black_net._core if job.black_net is not None else None, job.truncate, job.luck,
                          job.scale, job.stratify, job.master, first, games, *sums.arrays(), flag, weights)
    return block, sums, int(done)


def run_blocks(job: Job, blocks: list[int]) -> list[tuple[int, Sums, int]]:
    """Several blocks of a job in one task (the Dask unit of work)."""
    return [run_block(job, block) for block in blocks]


def _policy_ids(pair: tuple[Policy, Policy]) -> tuple[tuple[int, int], str]:
    ids = (policy_id(pair[0]), policy_id(pair[1]))
    names = (policy_name(pair[0]), policy_name(pair[1]))
    return ids, names[0] if names[0] == names[1] else f"{names[0]} vs {names[1]}"


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


def check_games(games: int, stratify: bool) -> int:
    """Validated game count; stratified rollouts round it up to a multiple of 36 (every
    first roll equally often, so the plain mean stays unbiased)."""
    stratify = check_flag("stratify", stratify)
    games = check_int("games", games, 1)
    if games > MAX_GAMES - 36:
        raise InvalidArgumentError(f"games={games} must be at most {MAX_GAMES - 36} (2^53 - 36: counts are exact "
                                   "in float64 up to 2^53)")
    return -(-games // 36) * 36 if stratify else games


def check_backend(backend: str, scheduler: Any) -> str:
    """"local" or "dask" (a scheduler implies Dask)."""
    if not isinstance(backend, str) or backend not in ("local", "dask"):
        raise InvalidArgumentError(f"backend={backend!r} must be 'local' or 'dask'")
    return "dask" if scheduler is not None else backend


def make_job(rows: bytes, color: int, games: int, seed: SeedLike, policy: Policy | tuple[Policy, Policy],
             truncate: bool, luck: bool, stratify: bool, rules: Rules, bearoff: TwoSidedDB | None,
             one_sided: OneSidedDB | None, net: NetSpec, match: MatchScore | None,
             resume: tuple[int, int | str] | None = None) -> tuple[Job, str, int | str]:
    """A validated job, its policy name and its seed's printable form. `resume` is the (master
    key, seed) stored in a checkpoint, used when no seed is given. The rules' game chooses the
    core that plays it."""
    truncate, luck, stratify = (check_flag(name, value) for name, value in
                                (("truncate", truncate), ("luck", luck), ("stratify", stratify)))
    pair = policy_pair(policy)
    ids, name = _policy_ids(pair)
    if rules.game == "gioul":
        _check_gioul_job(pair, match)
        # The Gioul tables serve luck, truncation and the net policies' race override.
        tables = tables_spec(bearoff, one_sided, "gioul") if luck or truncate or uses_net(pair) else None
        callback = None
    else:
        tables, callback = tables_spec(bearoff, one_sided), chooser(pair, rules)
    if isinstance(net, tuple):
        if len(net) != 2:
            raise InvalidArgumentError(f"net pair {net!r} must be (white_net, black_net)")
        white, black = (net_of(x, rules.game) if x is not None or uses_net((p,)) else None for x, p in zip(net, pair))
        evaluator, black_net = white, (None if black == white else black)
    else:
        evaluator = net_of(net, rules.game) if net is not None or uses_net(pair) else None
        black_net = None
    if seed is None and resume is not None:
        master, seed_value = resume
    else:
        sequence = seed_sequence(seed)  # once: seed=None draws its entropy here
        master, seed_value = master_key(sequence), seed_repr(sequence)
    job = Job(rows=rows, color=color, flags=rules.flags, policies=ids, truncate=bool(truncate), luck=bool(luck),
              scale=HEURISTIC_SCALE, stratify=bool(stratify), master=master, games=games,
              tables=tables, callback=callback,
              callable_policy=",".join(filter(None, map(_callable_identity, dict.fromkeys(pair)))), net=evaluator,
              black_net=black_net, seed=seed_value,
              match_weights=None if match is None else match.weights(color), game=rules.game)
    return job, name, seed_value


def _check_gioul_job(pair: tuple[Policy, Policy], match: MatchScore | None) -> None:
    """InvalidArgumentError for what the Gioul core does not play: policies other than
    GIOUL_POLICIES, match scores."""
    for policy in pair:
        if not isinstance(policy, str) or policy not in GIOUL_POLICIES:
            raise InvalidArgumentError(f"policy {policy!r} cannot play Gioul: Gioul rollouts play "
                                       f"{' or '.join(map(repr, GIOUL_POLICIES))}")
    if match is not None:
        raise InvalidArgumentError("Gioul rollouts have no match score: the match equity table is Fevga's")
