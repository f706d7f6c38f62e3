"""Small builders for hand-written test positions (own numbering, dict point -> count)."""

from __future__ import annotations

from fevga import BLACK, WHITE, Position, Rules


def counts(points: dict[int, int]) -> list[int]:
    """25 counts from {own point: checkers}; the rest of the 15 are borne off."""
    out = [0] * 25
    for point, n in points.items():
        out[point] += n
    out[0] += 15 - sum(out)
    assert out[0] >= 0, points
    return out


def side25(home: tuple[int, ...]) -> list[int]:
    """25 counts of a side with `home` = the checkers on points 1, 2, ... (a bear-off table's
    side); the rest of the 15 are borne off."""
    return [15 - sum(home), *home] + [0] * (24 - len(home))


def make(white: dict[int, int], black: dict[int, int], turn: int = WHITE) -> Position:
    """A position from {own point: checkers} per side."""
    return Position.from_counts(counts(white), counts(black), turn)


def mover_results(position: Position, dice: tuple[int, int], rules: Rules | None = None) -> set[tuple[int, ...]]:
    """The mover's counts after each legal move."""
    return {m.position.counts(position.turn) for m in position.legal_moves(dice, rules)}


START = {24: 15}
__all__ = ["BLACK", "START", "WHITE", "counts", "make", "mover_results", "race", "side25"]


def race(white_home: list[int], black_home: list[int], turn: int = WHITE) -> Position:
    """Both sides in their homes: counts on own points 1, 2, ..., the rest borne off."""
    white = [15 - sum(white_home), *white_home] + [0] * (24 - len(white_home))
    black = [15 - sum(black_home), *black_home] + [0] * (24 - len(black_home))
    return Position.from_counts(white, black, turn)
