"""CorePosition: the immutable owner of one position struct."""

from typing import Any, TypeVar

from fevga_core.movegen import MoveList

_P = TypeVar("_P", bound="CorePosition")

MAX_PERFT_DEPTH: int

class CoreBoard:
    """A position of either game in the core: the accessors both games share."""

    @property
    def turn(self) -> int:
        """The side to move: 0 = White, 1 = Black (Gioul: who plays the pending dice, or rolls next)."""
    @property
    def zobrist(self) -> int:
        """The 64-bit key of the whole position."""
    def counts(self, color: int) -> tuple[int, ...]:
        """25 counts in `color`'s own numbering; index 0 = borne off."""
    def pips(self, color: int) -> int:
        """Pip count of `color`."""
    def _winner(self) -> int: ...
    def _board_id(self) -> str:
        """The 16-character ID of the board (a Gioul ID begins with it)."""
    def _perft(self, depth: int, flags: int) -> int:
        """Leaves of the decision tree to `depth` under the position's game's rule flags."""

class CorePosition(CoreBoard):
    """Both armies in own numbering, the side on roll and the Zobrist key; CorePosition() is the start.

    The underscore methods are the hooks of fevga.Position (validated, but not an API).
    """

    def __init__(self) -> None: ...
    @classmethod
    def _initial(cls: type[_P], turn: int) -> _P: ...
    @classmethod
    def _from_row(cls: type[_P], row: bytes | bytearray | memoryview) -> _P: ...
    def _row(self) -> bytes: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def _legal_moves(self, d1: int, d2: int, flags: int, move_cls: type[Any]) -> MoveList: ...
    def _count_legal(self, d1: int, d2: int, flags: int) -> int: ...
    def _can_move(self, color: int, flags: int) -> bool: ...
    def _is_dead(self, flags: int) -> bool: ...
