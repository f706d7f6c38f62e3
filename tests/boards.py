"""Small builders for hand-written test positions (own numbering, dict point -> count)."""

from __future__ import annotations

from typing import Any

from fevga import BLACK, WHITE, GioulPosition, Position, Rules
from fevga.game import play_game


def counts(points: dict[int, int]) -> list[int]:
    """25 counts from {own point: checkers}; the rest of the 15 are borne off."""
    out = [0] * 25
    for point, n in points.items():
        out[point] += n
    out[0] += 15 - sum(out)
    assert out[0] >= 0, points
    return out


SIX = (0, 0, 0, 0, 0, 1)  # a bear-off table side: one checker on point 6


def side25(home: tuple[int, ...] | list[int]) -> list[int]:
    """25 counts of a side with `home` = the checkers on points 1, 2, ... (a bear-off table's
    side); the rest of the 15 are borne off."""
    return [15 - sum(home), *home] + [0] * (24 - len(home))


def make(white: dict[int, int], black: dict[int, int], turn: int = WHITE) -> Position:
    """A position from {own point: checkers} per side."""
    return Position.from_counts(counts(white), counts(black), turn)


def mover_results(position: Position, dice: tuple[int, int], rules: Rules | None = None) -> set[tuple[int, ...]]:
    """The mover's counts after each legal move."""
    return {m.position.counts(position.turn) for m in position.legal_moves(dice, rules)}


def initial(game: str) -> Any:
    """The start of `game` ("fevga" or "gioul")."""
    return GioulPosition.initial() if game == "gioul" else Position.initial()


def busy_position(game: str) -> tuple[Any, tuple[int, int]]:
    """A mid-game position of `game` ("fevga" or "gioul") and the roll that gives it the most legal moves."""
    if game == "fevga":
        position: Any = play_game(seed=1).positions()[20]
    else:
        position = next(p for p in play_game(game="gioul", seed=1).positions()[20:] if not p.pending)
    pairs = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    return position, max(pairs, key=position.count_legal_moves)


def mid_chain() -> GioulPosition:
    """A Gioul state in the middle of White's chain of 3s (its fourth roll), 3-3 still to play."""
    return GioulPosition.from_counts(
        counts({12: 13, 9: 2}), counts({6: 10}), WHITE, next_roll=(4, 2), dice=(3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6),
        roller=WHITE,
    )


def handed_pair() -> GioulPosition:
    """A Gioul state where White could not play 6-5 and Black holds the pair."""
    return GioulPosition.from_counts(
        counts({7: 14, 24: 1}), counts({13: 1, 14: 1, 6: 1, 7: 1, 24: 11}), BLACK, next_roll=(2, 1), dice="6-5",
        roller=WHITE,
    )


START = {24: 15}
__all__ = ["BLACK", "SIX", "START", "WHITE", "busy_position", "counts", "initial", "handed_pair", "make", "mid_chain", "mover_results", "race", "side25"]


def race(white_home: list[int], black_home: list[int], turn: int = WHITE) -> Position:
    """Both sides in their homes: counts on own points 1, 2, ..., the rest borne off."""
    return Position.from_counts(side25(white_home), side25(black_home), turn)
