"""Gioul (docs/rules.md §11) in the core: the game state, its decisions and seeded self-play."""

from typing import Any, TypeVar

from fevga_core.movegen import MoveList

import numpy as np
from numpy.typing import NDArray

from fevga_core.net import NetModel
from fevga_core.race import Tables

_G = TypeVar("_G", bound="CoreGioul")

GIOUL_WIDTH: int

def count_moves(states: NDArray[np.uint8], dice: NDArray[np.uint8], out_counts: NDArray[np.int32]) -> None:
    """Legal moves of the next decision of each (state row, dice row) pair, GIL released."""

def first_invalid_row(states: NDArray[np.uint8]) -> tuple[int, str]:
    """(index, problem) of the first invalid (n, 58) Gioul state row, or (-1, "")."""

def generate_batch(
    states: NDArray[np.uint8], dice: NDArray[np.uint8]
) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint8]]:
    """All legal moves of the next decision of each pair: (offsets, results, steps, nsteps)."""

class CoreGioul:
    """A Gioul game state: board, roll counts, pending dice."""

    @classmethod
    def _from_fields(
        cls: type[_G], row: bytes, rolls_white: int, rolls_black: int, roller: int, die: int, count: int, last: int, pair: int
    ) -> _G: ...
    def _fields(self) -> tuple[bytes, int, int, int, int, int, int, int]: ...
    @classmethod
    def _initial(cls: type[_G], turn: int) -> _G: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    @property
    def turn(self) -> int:
        """The side that plays the pending decision, or rolls next."""
    @property
    def zobrist(self) -> int:
        """64-bit key of the whole state."""
    def counts(self, color: int) -> tuple[int, ...]:
        """25 counts in `color`'s own numbering; index 0 = borne off."""
    def _winner(self) -> int: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def _legal_moves(self, d1: int, d2: int, move_cls: type[Any]) -> MoveList: ...
    def _count_legal(self, d1: int, d2: int) -> int: ...
    def _rolled(self: _G, d1: int, d2: int) -> _G: ...
    def _can_move(self, color: int) -> bool: ...
    def _is_dead(self) -> bool: ...
    def _perft(self, depth: int) -> int: ...

class CoreGioulNet(NetModel):
    """A Gioul net: rows are Gioul state rows, evaluated for their side to decide."""

    def __init__(self, params: NDArray[np.float32], hidden: int) -> None: ...

def encode_state(row: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The dense Gioul net input vector of one valid state row."""

GIOUL_MAX_PLIES: int

def evaluate_states(net: CoreGioulNet, rows: NDArray[np.uint8], out: NDArray[np.float64],
                    tables: Tables | None = None) -> None:
    """evaluate_state at 0 plies of every Gioul state row into out (n, 3)."""

def evaluate_state(net: CoreGioulNet, state: CoreGioul, plies: int,
                   tables: Tables | None = None) -> tuple[float, float, float]:
    """(win, win_mars, lose_mars) of a Gioul state for its side to decide at `plies` plies (0..2)."""

def rank_moves(net: CoreGioulNet, state: CoreGioul, d1: int, d2: int, plies: int,
               tables: Tables | None = None) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """Every legal move of the next decision valued for the mover: (values (n, 3), plies used (n,))."""

def roll_values(net: CoreGioulNet, state: CoreGioul, tables: Tables | None = None) -> tuple[list[float], float]:
    """Each roll's equity for the side to roll once played out by the 1-ply choice, and their mean (the luck)."""
