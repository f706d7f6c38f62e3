"""The rollout entry points: `rollout` (one position) and `rollout_moves` (every move of a roll,
with common random numbers, a move filter and a stopping rule)."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fevga.checks import check_int, check_position, check_workers
from fevga.limits import check_flag
from fevga.errors import CheckpointError, IllegalMoveError, InvalidArgumentError, InvalidPositionError
from fevga.files import output_path
from fevga.gioul import GioulMove, GioulPosition, to_array
from fevga.notation import parse_dice
from fevga.match import match_score
from fevga.policy import Policy
from fevga.position import Move, Position
from fevga.rollout.checkpoints import Rounds, checkpoint_exists, checkpoint_master, load_checkpoint, save_checkpoint
from fevga.rollout.executors import execute
from fevga.rollout.jobs import (DEFAULT_GAMES, FIELDS, Job, NetSpec, Sums, Tally, check_backend, check_games,
                                make_job, stop_rounds)
from fevga.rollout.results import Z95, MoveRollout, RolloutResult, statistics
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike
from fevga.analysis import hint
import sys

if TYPE_CHECKING:
    from fevga.bearoff import OneSidedDB, TwoSidedDB

__all__ = ["rollout", "rollout_moves"]


def rollout(
    position: Position | GioulPosition,
    games: int = DEFAULT_GAMES,
    seed: SeedLike = None,
    workers: int | None = None,
    policy: Policy | tuple[Policy, Policy] | None = None,
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
    cancel: threading.Event | None = None,
    net: NetSpec = None,
    score: tuple[int, int] | None = None,
    length: int | None = None,
) -> RolloutResult:
    """Play `position` out `games` times and return the statistics of its side on roll.

    `policy` is "net" (the default: the shipped net, or `net`, rates each move's result; the
    CLI's default too), "net2" (a 2-ply search over the net), "random", "heuristic", "bearoff"
    (table-optimal in covered races, heuristic elsewhere), "lookahead" (1-ply over the
    evaluator) or a callable
    ``policy(position, dice, moves) -> Move`` (slow: runs in Python). `truncate` scores a game
    from the bear-off tables once no contact is possible and the tables cover it. `luck`
    subtracts the luck of every roll (control variate). `workers` threads (default: every
    core) or a Dask cluster (`backend="dask"`, `scheduler` = address, Client or None for a
    local cluster; an address not reached within DASK_CONNECT_TIMEOUT seconds raises
    InvalidArgumentError) play fixed blocks of 1,296 games: the result does not depend on either.
    `checkpoint` saves finished blocks atomically and resumes from them; a file that is not a
    checkpoint of this same job (a callable policy is identified by its module and qualified
    name) raises InvalidArgumentError. Ctrl-C (or a KeyboardInterrupt raised by
    `on_block(done, total)`, called after each finished block, or `cancel`, a threading.Event
    another thread sets: heard within 0.2 s, where signals reach only the main thread) returns
    the partial result. With a match `score=(white, black)`
    and `length`, each game is also valued by the side's match winning chance after it, and the
    result carries `match_chance` (luck-adjusted like the equity when `luck` is on).

    A `GioulPosition` (waiting for a roll, or in the middle of one) is played out by the Gioul
    core with the same statistics, seeding, stratification, luck, truncation (Gioul bear-off
    tables), checkpoints and backends; its policies are "random", "heuristic", "net" and
    "net2" (with a Gioul net, `net=`, default the shipped one, overridden by the Gioul tables in
    covered races; "net" is the default, as for Fevga), with no match score (docs/rollout.md, "Gioul").
    """
    start, rules = _start(position, rules)
    policy = default_policy(policy)
    games = check_games(games, stratify)
    count = check_workers(workers)
    backend = check_backend(backend, scheduler)
    path = _checkpoint_path(checkpoint)
    job, name, seed_value = make_job(_rows([start]), start.turn, games, seed, policy, truncate, luck, stratify,
                                     rules, bearoff, one_sided, net, match_score(score, length), _resume(seed, path))
    began = time.perf_counter()
    saved, _ = _saved(path, job, False)
    blocks, interrupted, resumed = execute(job, count, backend, scheduler, _saver(path, job), checkpoint_every,
                                           _progress_default(progress), on_block, cancel=_cancel(cancel), resume=saved)
    total = blocks.total()
    return statistics(job, total, 0, start.id, name, seed_value, rules, interrupted or total.games < games,
                      time.perf_counter() - began, count, backend, resumed, score, length)


def rollout_moves(
    position: Position | GioulPosition,
    dice: object = None,
    games: int = DEFAULT_GAMES,
    seed: SeedLike = None,
    workers: int | None = None,
    policy: Policy | tuple[Policy, Policy] | None = None,
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
    cancel: threading.Event | None = None,
    net: NetSpec = None,
    candidates: int | None = None,
    stop_early: bool = False,
    score: tuple[int, int] | None = None,
    length: int | None = None,
    moves: Sequence[Move | GioulMove | str] | None = None,
) -> list[MoveRollout]:
    """Roll out every legal move of `position` with `dice`, best first.

    Every move is played out with the same dice streams (common random numbers), so the
    standard error of each move's difference to the best (`diff_se`) is far smaller than the
    moves' own errors. Results are for the mover (each result's `position` is the start
    position, where the mover is on roll). Moves are ranked by `diff`, the raw
    common-random-number difference to the best over the games both played, and `diff_se` is
    its standard error (with `luck=True` each move's `equity` is luck-adjusted, while `diff`
    and `diff_se` stay raw: one consistent pair). With a match `score=(white, black)` and
    `length`, moves are compared by the mover's match winning chance instead (`diff` in
    match chance): the money equity of each move is still reported.
    Move filter: `candidates=N` rolls out only the N moves the net ranks best at 1 ply (`net`,
    default the shipped one); `moves=[...]` only the given moves of the roll (Move objects or
    notations, each legal for the roll, duplicates refused). Stopping rule: with `stop_early`,
    blocks are played in rounds (1, 1, 2, 4, ... blocks of 1,296 games) and a move whose 95% CI of its difference to the
    best lies wholly below zero is rolled out no further (`MoveRollout.stopped`; it keeps the
    games it played); its `checkpoint` holds the finished rounds as well as the running round's
    blocks, so it resumes to the same numbers. Other arguments as in `rollout`.

    For a `GioulPosition` the moves are those of its next decision: of the roll `dice` when a
    roll is due, else (`dice=None`) of the pending decision (the next block of a chain, or dice
    handed over); results are for its mover; `candidates` are ranked by the Gioul net.
    """
    start, rules = _start(position, rules)
    policy = default_policy(policy)
    games = check_games(games, stratify)
    legal: Sequence[Any]
    if isinstance(start, GioulPosition):
        legal = start.legal_moves(dice, rules)
    else:
        legal = start.legal_moves(parse_dice(dice), rules)
    if candidates is not None and moves is not None:
        raise InvalidArgumentError("give candidates= or moves=, not both")
    if candidates is not None:
        legal = _net_candidates(start, dice, rules, check_int("candidates", candidates, 1), net)
    elif moves is not None:
        legal = _chosen(start, dice, rules, moves)
    count = check_workers(workers)
    backend = check_backend(backend, scheduler)
    stop_early = check_flag("stop_early", stop_early)
    path = _checkpoint_path(checkpoint)
    rows = _rows([m.position for m in legal])
    job, name, seed_value = make_job(rows, start.turn, games, seed, policy, truncate, luck, stratify, rules,
                                     bearoff, one_sided, net, match_score(score, length), _resume(seed, path))
    began = time.perf_counter()
    saved, history = _saved(path, job, stop_early)
    active = list(range(len(legal)))
    rounds: list[tuple[list[int], Sums]] = []
    interrupted = False
    resumed = dict.fromkeys(range(len(legal)), 0)  # each move's games loaded from the checkpoint
    finished = [] if history is None else history.finished  # rounds the checkpoint holds whole
    for number, only in enumerate(stop_rounds(job.blocks) if stop_early else [range(job.blocks)]):
        if history is not None and number <= len(finished):
            members = finished[number][0] if number < len(finished) else history.members
            if members != active:  # the rounds are decided by the sums before them
                raise CheckpointError(f"checkpoint {str(path)!r} rolls out other moves in round {number + 1} "
                                      "than its own sums call for: it was made by another build; remove it")
        if number < len(finished):
            rounds.append(finished[number])
            for k in members:
                resumed[k] += finished[number][1].games
        else:
            width = job.row_width
            round_job = replace(job, rows=b"".join(rows[k * width : (k + 1) * width] for k in active))
            so_far = Rounds(list(rounds), list(active)) if stop_early else None
            blocks, interrupted, loaded = execute(round_job, count, backend, scheduler, _saver(path, job, so_far),
                                                  checkpoint_every, _progress_default(progress), on_block, only,
                                                  _cancel(cancel), saved if number == len(finished) else None)
            for k in active:
                resumed[k] += loaded
            rounds.append((list(active), blocks.total()))
        if interrupted:
            break
        if stop_early and len(active) > 1:
            best, diffs = _compare(rounds, active, active)
            active = [k for k in active if k == best or diffs[k][0] + Z95 * diffs[k][1] >= 0]
    elapsed = time.perf_counter() - began
    totals = {k: Sums(1) for k in range(len(legal))}
    for members, sums in rounds:
        for i, k in enumerate(members):
            totals[k].add(sums.pick(i))
    # Every move's result is for the mover, who is on roll in the start position (its label).
    results = [statistics(job, totals[k], 0, start.id, name, seed_value, rules,
                          interrupted or totals[k].games < games and k in active, elapsed, count, backend,
                          resumed[k], score, length)
               for k in range(len(legal))]
    # diff and diff_se are both raw common-random-number differences (the cross sums are of raw
    # game values); ranking the moves still rolled out by it keeps their diffs <= 0.
    best, diffs = _compare(rounds, list(range(len(legal))), active)
    order = sorted(range(len(legal)), key=lambda k: (k not in active, -diffs[k][0]))
    # `stopped`: left behind by the stopping rule before its full count (a move dropped after the
    # last round played every game, and is not "stopped").
    return [MoveRollout(legal[k], results[k], diffs[k][0], diffs[k][1], k not in active and totals[k].games < games)
            for k in order]


def default_policy(policy: Policy | tuple[Policy, Policy] | None) -> Policy | tuple[Policy, Policy]:
    """`policy`, or the default of both games: "net" (the shipped net of the position's game)."""
    return "net" if policy is None else policy


def _chosen(start: Position | GioulPosition, dice: object, rules: Rules,
            moves: Sequence[Move | GioulMove | str]) -> list[Any]:
    """The legal moves of the roll (of a Gioul decision) named by `moves` (Move / GioulMove
    objects or notations), in that order."""
    if isinstance(moves, (str, Move, GioulMove)) or not moves:
        raise InvalidArgumentError(f"moves={moves!r} must be a non-empty list of moves of the roll")
    gioul = isinstance(start, GioulPosition)
    legal: Sequence[Any] = start.legal_moves(dice, rules) if gioul else start.legal_moves(parse_dice(dice), rules)
    results = [m.position for m in legal]  # moves with the same result are one move
    chosen: list[Any] = []
    for move in moves:
        found: Any = move
        if isinstance(move, str):
            found = start.parse_move(move, dice) if isinstance(start, GioulPosition) else start.parse_move(move, dice, rules)
        if not isinstance(found, GioulMove if gioul else Move) or found.position not in results:
            raise IllegalMoveError(f"move {move!r} is not a legal move of {'the decision' if dice is None else dice} "
                                   f"in {start.id}")
        found = legal[results.index(found.position)]
        if found in chosen:
            raise InvalidArgumentError(f"move {move!r} is given twice (moves with the same result are one move)")
        chosen.append(found)
    return chosen


def _start(position: object, rules: Rules | None) -> tuple[Position | GioulPosition, Rules]:
    """The start of a rollout, a game in play, and its game's rules."""
    if isinstance(position, GioulPosition):
        if position.winner() is not None:
            raise InvalidPositionError(f"position {position.id} is already finished")
        return position, rules_of(rules, "gioul")
    if not isinstance(position, Position):
        raise InvalidArgumentError(f"position {position!r} must be a fevga.Position or a fevga.GioulPosition")
    return check_position(position), rules_of(rules)


def _rows(positions: Sequence[Position | GioulPosition]) -> bytes:
    """The core's start rows: 51-byte Fevga position rows or 58-byte Gioul state rows."""
    states = [p for p in positions if isinstance(p, GioulPosition)]
    if states:
        return bytes(to_array(states).tobytes())
    return b"".join(p._row() for p in positions if isinstance(p, Position))


def _checkpoint_path(checkpoint: str | os.PathLike[str] | None) -> Path | None:
    """The checkpoint file, checked before any game is played (fevga.files.output_path):
    absent or a regular file in an existing folder."""
    if checkpoint is None:
        return None
    output_path(checkpoint, "checkpoint")
    return Path(checkpoint)


def _saved(path: Path | None, job: Job, stop_early: bool) -> tuple[Tally | None, Rounds | None]:
    """The finished blocks of the checkpoint at `path` (of the running round, with the stopping
    rule's finished rounds, for `stop_early`), or (None, None) when there is none yet."""
    if path is None or not checkpoint_exists(path):
        return None, None
    blocks, rounds = load_checkpoint(path, job)
    if (rounds is not None) != stop_early:
        raise CheckpointError(f"checkpoint {str(path)!r} was saved {'with' if rounds is not None else 'without'} "
                              "the stopping rule (stop_early): resume it the same way, or remove it")
    return blocks, rounds


def _saver(path: Path | None, job: Job, rounds: Rounds | None = None) -> Callable[[Tally], None] | None:
    """What saves a job's finished blocks (and the stopping rule's rounds) to `path`, if any."""
    if path is None:
        return None
    return lambda blocks: save_checkpoint(path, job, blocks, rounds)


def _resume(seed: SeedLike, path: Path | None) -> tuple[int, int | str] | None:
    """The master key and seed of the checkpoint to resume when no seed is given."""
    if seed is None and path is not None and checkpoint_exists(path):
        return checkpoint_master(path)
    return None


def _net_candidates(start: Position | GioulPosition, dice: object, rules: Rules, count: int,
                    net: NetSpec) -> list[Any]:
    """The `count` moves the game's net rates best at 1 ply (fevga.hint), best first."""
    return [h.move for h in hint(start, dice, 1, rules, net=None if isinstance(net, tuple) else net)[:count]]


def _compare(rounds: list[tuple[list[int], Sums]], moves: list[int],
             among: list[int]) -> tuple[int, dict[int, tuple[float, float]]]:
    """The move of `among` (all rolled out in every round) with the best raw mean and, for each
    of `moves`, (diff, diff_se) of raw means against it over the games both played. Games are
    valued by their "match" field: the match winning chance at a score, else the equity."""
    value, square = FIELDS["match"], FIELDS["match_sq"]
    means = {}
    for k in among:
        n = sum(s.sums[m.index(k), 0] for m, s in rounds)
        means[k] = sum(s.sums[m.index(k), value] for m, s in rounds) / n if n else float("nan")
    best = max(among, key=lambda k: means[k])
    diffs: dict[int, tuple[float, float]] = {}
    for k in moves:
        n = sk = sb = skk = sbb = skb = 0.0
        for members, sums in rounds:
            if k in members and best in members:
                i, j = members.index(k), members.index(best)
                n += sums.sums[i, 0]
                sk += sums.sums[i, value]
                sb += sums.sums[j, value]
                skk += sums.sums[i, square]
                sbb += sums.sums[j, square]
                skb += sums.cross[i, j]
        if k == best or n < 2:
            diffs[k] = (0.0 if k == best or n == 0 else (sk - sb) / n, 0.0)
            continue
        mk, mb = sk / n, sb / n
        var = (skk / n - mk * mk) + (sbb / n - mb * mb) - 2.0 * (skb / n - mk * mb)
        diffs[k] = (float(mk - mb), float(math.sqrt(max(var, 0.0) / (n - 1.0))))
    return best, diffs


def _progress_default(progress: bool | None) -> bool:
    if check_flag("progress", progress, none=True) is not None:
        return bool(progress)

    return sys.stderr.isatty()


def _cancel(cancel: object) -> threading.Event | None:
    """The `cancel` argument: None or something with is_set() (a threading.Event)."""
    if cancel is not None and not callable(getattr(cancel, "is_set", None)):
        raise InvalidArgumentError(f"cancel={repr(cancel)[:80]} must be a threading.Event or None")
    return cancel  # type: ignore[return-value]
