"""CorePosition: the immutable owner of one position struct."""

from typing import Any, TypeVar

_P = TypeVar("_P", bound="CorePosition")

MAX_PERFT_DEPTH: int
ALL_FLAGS: int

class CorePosition:
    """Both armies in own numbering, the side on roll and the Zobrist key; CorePosition() is the start.

    The underscore methods are the hooks of fevga.Position (validated, but not an API).
    """

    @classmethod
    def _from_row(cls: type[_P], row: bytes | bytearray | memoryview) -> _P: ...
    def _row(self) -> bytes: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    @property
    def turn(self) -> int:
        """The side on roll: 0 = White, 1 = Black."""
    @property
    def zobrist(self) -> int:
        """The 64-bit Zobrist key."""
    def counts(self, color: int) -> tuple[int, ...]:
        """25 counts in `color`'s own numbering; index 0 = borne off."""
    def pips(self, color: int) -> int:
        """Pip count of `color`."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def _winner(self) -> int: ...
    def _legal_moves(self, d1: int, d2: int, flags: int, move_cls: type[Any]) -> list[Any]: ...
    def _count_legal(self, d1: int, d2: int, flags: int) -> int: ...
    def _can_move(self, color: int, flags: int) -> bool: ...
    def _is_dead(self, flags: int) -> bool: ...
    def _perft(self, depth: int, flags: int) -> int: ...
