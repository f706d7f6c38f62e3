"""Rollouts: how good is a position, which move is best, by playing it out many times.

A rollout plays a position out many times with a policy and reports the outcome
statistics of the side on roll. Game ``i`` of a job draws its dice from its own stream
derived from the master seed, and its first two rolls are stratified over the 1,296 pairs
of rolls (``stratum = i mod 1296``), so results are bit-identical for 1, 2 or N workers
and for the Dask backend. Definitions and measured gains: docs/rollout.md.

The package: `results` (RolloutResult, MoveRollout, export), `jobs` (a job, its blocks and
their sums), `checkpoints` (save and resume), `executors` (local threads, Dask, progress,
Ctrl-C) and `run` (the entry points `rollout` and `rollout_moves`).

>>> from fevga import Position
>>> result = rollout(Position.initial(), games=1296, seed=1, workers=1, progress=False)
>>> result.games, -2.0 <= result.equity <= 2.0
(1296, True)
"""

from fevga.rollout.executors import DASK_CONNECT_TIMEOUT
from fevga.rollout.jobs import BLOCK_GAMES, DEFAULT_GAMES, MAX_GAMES, STRATA
from fevga.rollout.results import MoveRollout, RolloutResult, moves_to_csv, moves_to_frame
from fevga.rollout.run import rollout, rollout_moves

__all__ = [
    "BLOCK_GAMES",
    "DASK_CONNECT_TIMEOUT",
    "DEFAULT_GAMES",
    "MAX_GAMES",
    "STRATA",
    "MoveRollout",
    "RolloutResult",
    "moves_to_csv",
    "moves_to_frame",
    "rollout",
    "rollout_moves",
]
