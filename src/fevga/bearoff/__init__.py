"""Exact bear-off databases for Fevga and Gioul: one-sided and two-sided tables, race estimates, best moves.

>>> from fevga.bearoff import OneSidedDB
>>> OneSidedDB.build(points=6, checkers=2).mean_rolls([0, 0, 0, 0, 0, 1])
1.25

Index layout and kernels: fevga_core/bearoff.pxd; file format: fevga.bearoff.fileformat;
figures and design: docs/bearoff.md.
"""

from fevga.bearoff.fileformat import FORMAT_VERSION, MAGIC
from fevga.bearoff.race import (
    BearoffPolicy,
    RaceEstimate,
    best_move,
    covers,
    estimate_error,
    estimate_matrix,
    evaluate,
    expected_rolls_beyond,
    race_estimate,
)
from fevga.bearoff.tables import (
    GAMES,
    Database,
    OneSidedDB,
    TwoSidedDB,
    cache_dir,
    default_one_sided,
    open_db,
    require_game,
    side_counts,
)

__all__ = [
    "FORMAT_VERSION",
    "GAMES",
    "MAGIC",
    "BearoffPolicy",
    "Database",
    "OneSidedDB",
    "RaceEstimate",
    "TwoSidedDB",
    "best_move",
    "cache_dir",
    "covers",
    "default_one_sided",
    "estimate_error",
    "estimate_matrix",
    "evaluate",
    "expected_rolls_beyond",
    "open_db",
    "race_estimate",
    "require_game",
    "side_counts",
]
