"""Legal-move generation: the move list the positions of both games return (see movegen.pyx)."""

from collections.abc import Iterator, Sequence
from typing import Any, overload


class MoveList(Sequence[Any]):
    """The legal moves of one request, read-only; each Move is made when first asked for."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...
    def positions(self) -> list[Any]:
        """The position each move leads to, in order, without making the moves."""

def steps_notation(steps: Sequence[tuple[int, int]]) -> str:
    """Short notation of a step sequence (fevga.notation.format_steps): ``24/13``, ``6/off(2)``, ``pass``."""
