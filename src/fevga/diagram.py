"""A plain-text board diagram, in printed (White's) numbering or turned for Black."""

from __future__ import annotations

from typing import Protocol

from fevga.notation import BLACK, COLOR_NAMES, WHITE, other_point


class Drawable(Protocol):
    """What a diagram reads of a position (either game's)."""

    @property
    def turn(self) -> int: ...
    @property
    def id(self) -> str: ...
    def counts(self, color: int) -> tuple[int, ...]: ...
    def pips(self, color: int) -> int: ...
    def winner(self) -> int | None: ...
    def points(self) -> int: ...

_TOP = range(13, 25)
_BOTTOM = range(12, 0, -1)


def _cell(position: Drawable, printed: int) -> str:
    white = position.counts(WHITE)[printed]
    black = position.counts(BLACK)[other_point(printed)]
    if white:
        return f"W{white}"
    if black:
        return f"B{black}"
    return "."


def diagram(position: Drawable, perspective: int = 0) -> str:
    """Both armies with pips, borne-off counts and the ID, numbered as `perspective` numbers
    its own points (13-24 on top, 12-1 below, as gnubg turns the board for each player).

    The default, White's numbering, is the printed numbering: White moves 24 -> 1 and bears
    off from 1-6; Black moves 12 -> 1 -> 24 -> 13 and bears off from 13-18. Turned for Black
    (``perspective=BLACK``), Black moves 24 -> 1 and bears off from its points 1-6, the
    numbers it types its moves in.
    """
    def printed(label: int) -> int:
        return other_point(label) if perspective == BLACK else label

    def row(points: range) -> str:
        cells = [f"{_cell(position, printed(p)):>4}" for p in points]
        return "".join(cells[:6]) + "  |" + "".join(cells[6:])

    def numbers(points: range) -> str:
        cells = [f"{p:>4}" for p in points]
        return "".join(cells[:6]) + "  |" + "".join(cells[6:])

    lines = [
        numbers(_TOP),
        row(_TOP),
        "",
        row(_BOTTOM),
        numbers(_BOTTOM),
        f"White (W): pips {position.pips(WHITE)}, off {position.counts(WHITE)[0]}"
        f"   Black (B): pips {position.pips(BLACK)}, off {position.counts(BLACK)[0]}",
    ]
    if perspective == BLACK:
        lines.insert(0, "(points in Black's own numbering)")
    winner = position.winner()
    if winner is not None:
        lines.append(f"{COLOR_NAMES[winner].capitalize()} has won {position.points()} point(s).")
    else:
        lines.append(f"{COLOR_NAMES[position.turn].capitalize()} to play.   ID {position.id}")
    return "\n".join(lines)
