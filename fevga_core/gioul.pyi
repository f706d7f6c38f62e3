"""Gioul (docs/rules.md §11) in the core: the game state, its decisions and seeded self-play."""

from typing import Any, TypeVar

from fevga_core.movegen import MoveList
from fevga_core.position import CoreBoard

import numpy as np
from numpy.typing import NDArray

from fevga_core.net import NetModel
from fevga_core.race import Tables

_G = TypeVar("_G", bound="CoreGioul")


def first_invalid_row(states: NDArray[np.uint8]) -> tuple[int, str]:
    """(index, problem) of the first invalid (n, 58) Gioul state row, or (-1, "")."""

class CoreGioul(CoreBoard):
    """A Gioul game state: board, roll counts, pending dice."""

    @classmethod
    def _from_fields(
        cls: type[_G], row: bytes, rolls_white: int, rolls_black: int, roller: int, die: int, count: int, last: int, pair: int
    ) -> _G: ...
    def _fields(self) -> tuple[bytes, int, int, int, int, int, int, int]: ...
    @classmethod
    def _initial(cls: type[_G], turn: int) -> _G: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def _legal_moves(self, d1: int, d2: int, move_cls: type[Any]) -> MoveList: ...
    def _count_legal(self, d1: int, d2: int) -> int: ...
    def _rolled(self: _G, d1: int, d2: int) -> _G: ...
    def _can_move(self, color: int) -> bool: ...
    def _is_dead(self) -> bool: ...

class CoreGioulNet(NetModel):
    """A Gioul net: rows are Gioul state rows, evaluated for their side to decide."""

    def __init__(self, params: NDArray[np.float32], hidden: int) -> None: ...

def encode_state(row: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The dense Gioul net input vector of one valid state row."""
