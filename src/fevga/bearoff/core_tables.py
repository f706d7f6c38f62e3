"""The race tables that the core's evaluators consult (luck, truncation, the table, lookahead
and net policies, expectimax), converted once per process.

A job names its tables by a *spec*: ``None`` (no tables), ``"default"`` (the one-sided
6-point table for 15 checkers and the two-sided table for 6 checkers a side, built on first
use), ``"gioul-default"`` (the same two tables of Gioul, every double a chain) or a tuple
``(token, one, two)`` of custom tables whose content hash ``token`` is the per-process cache
key and the identity that checkpoints compare. Specs pickle (Dask ships them);
`tables_of` turns one into the core's `Tables`.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from typing import Any

import numpy as np

from fevga.errors import InvalidArgumentError
from fevga_core.constants import NUM_CHECKERS
from fevga_core.race import Tables
from fevga.bearoff.tables import OneSidedDB, TwoSidedDB, require_game

__all__ = ["tables_of", "tables_spec"]



DEFAULT_SPECS = {"fevga": "default", "gioul": "gioul-default"}


@lru_cache(maxsize=2)
def _default_table_arrays(game: str = "fevga") -> tuple[Any, Any]:
    return _table_arrays(OneSidedDB.build(6, 15, game=game), TwoSidedDB.build(checkers=6, game=game))


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


_TABLES: dict[str | None, Tables] = {}

_TABLES_LOCK = threading.Lock()


def tables_of(spec: Any) -> Tables:
    """The core Tables of a job's table spec, built once per process."""
    key = spec if isinstance(spec, str) or spec is None else spec[0]
    with _TABLES_LOCK:
        tables = _TABLES.get(key)
        if tables is None:
            if spec is None:
                tables = Tables()
            elif spec in ("default", "gioul-default"):
                tables = Tables(*_default_table_arrays("fevga" if spec == "default" else "gioul"))
            else:
                tables = Tables(*spec[1:])
            if len(_TABLES) > 8:
                _TABLES.clear()
            _TABLES[key] = tables
    return tables


_SPECS: dict[tuple[int, int, str], tuple[Any, Any, Any]] = {}


def tables_spec(bearoff: TwoSidedDB | None, one_sided: OneSidedDB | None, game: str = "fevga") -> Any:
    """The spec of a job's tables: the game's default unless custom tables are given (a missing
    one-sided table is the game's default one); given tables must be the game's
    (BearoffFileError otherwise), two-sided ones built for 15 checkers a side."""
    if bearoff is None and one_sided is None:
        return DEFAULT_SPECS[game]
    for db in (bearoff, one_sided):
        require_game(db, game, "for a rollout")
    if bearoff is not None and bearoff.total != NUM_CHECKERS:
        # Its terminal values (and mars) assume `total` checkers a side: wrong for a real game.
        raise InvalidArgumentError(f"bearoff={bearoff!r} was built for total={bearoff.total} checkers a side; "
                                   f"rollouts of {game.capitalize()} positions need total={NUM_CHECKERS}")
    key = (id(bearoff), id(one_sided), game)
    cached = _SPECS.get(key)
    if cached is not None and cached[0] is bearoff and cached[1] is one_sided:
        return cached[2]
    one, two = _table_arrays(one_sided, bearoff)
    if one_sided is None:
        one = _default_table_arrays(game)[0]
    spec = (_token(one, two), one, two)
    if len(_SPECS) > 8:
        _SPECS.clear()
    _SPECS[key] = (bearoff, one_sided, spec)
    return spec
