"""Positions and moves: the immutable values of the public API.

>>> pos = Position.initial()
>>> [m.notation for m in pos.legal_moves((5, 5))]
['24/4', '24/9 24/19']
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import numpy as np

from fevga.errors import IllegalMoveError, InvalidArgumentError, InvalidNotationError, InvalidPositionError
from fevga.inputs import position_json
from fevga.notation import BLACK as BLACK, COLOR_NAMES as COLOR_NAMES, WHITE as WHITE, Color as Color
from fevga.notation import Step, decode_id, format_steps, parse_dice, parse_paths
from fevga.diagram import Drawable, diagram
from fevga.rules import Rules, rules_of
from fevga_core import constants
from fevga_core.gioul import CoreGioul
from fevga_core.movegen import MoveList
from fevga_core.position import MAX_PERFT_DEPTH, CorePosition


NUM_CHECKERS = constants.NUM_CHECKERS
NUM_POINTS = constants.NUM_POINTS


def _validate_counts(name: str, counts: object) -> tuple[int, ...]:
    """25 integers 0-15 (the form of a row); what a position is, the core's validator judges."""
    if not isinstance(counts, Iterable) or isinstance(counts, (str, bytes)):
        raise InvalidPositionError(f"{name} counts {counts!r} must be a sequence of 25 integers")
    items = list(itertools.islice(counts, 26))  # 25 are needed: an endless iterator is refused, not drained
    values = [v for v in items if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    if len(items) != 25 or len(values) != 25:
        raise InvalidPositionError(f"{name} counts {counts!r} must be 25 integers (index 0 = borne off)")
    if any(v < 0 or v > NUM_CHECKERS for v in values):
        raise InvalidPositionError(f"{name} counts {counts!r} must each be 0-{NUM_CHECKERS}")
    return tuple(int(v) for v in values)


P = TypeVar("P", bound="BasePosition")


if TYPE_CHECKING:
    _Drawn = Drawable  # what the diagram reads (turn, id, counts, pips, ...): declared there once
else:
    _Drawn = object


class BasePosition(_Drawn):
    """What a position of either game is and does: `Position` (Fevga) and
    `fevga.GioulPosition` (Gioul) are its variants, each over its own core state and
    overriding the hooks (`from_id`, `to_dict`, `from_json`, `legal_moves`, `is_dead`,
    `diagram`, ...), as python-chess's variants override its board's. Every method takes the
    same arguments in both games (`rules` is checked to be the position's game's)."""

    __slots__ = ()

    if TYPE_CHECKING:
        def _winner(self) -> int: ...
        @classmethod
        def _initial(cls: type[P], turn: int) -> P: ...
        @classmethod
        def from_id(cls: type[P], text: str) -> P: ...
        @classmethod
        def from_json(cls: type[P], data: str | dict[str, Any]) -> P: ...
        def to_dict(self) -> dict[str, Any]: ...
        def diagram(self, perspective: int = WHITE) -> str: ...
        def legal_moves(self, dice: object = None, rules: Rules | None = None) -> Sequence[Any]: ...
        def is_dead(self, rules: Rules | None = None) -> bool: ...
        def _dice_text(self, dice: object) -> str: ...

    @classmethod
    def initial(cls: type[P], turn: Color = WHITE) -> P:
        """The start: 15 checkers on each side's point 24 (its mother), `turn` (White) to roll."""
        if turn not in (WHITE, BLACK) or isinstance(turn, bool):
            raise InvalidArgumentError(f"turn {turn!r} must be WHITE (0) or BLACK (1)")
        return cls._initial(turn)  # the core's one start position (board.position_start)

    @classmethod
    def parse(cls: type[P], text: str) -> P:
        """A position from its ID, ``start``, or its JSON form."""
        if not isinstance(text, str):
            raise InvalidNotationError(f"position {text!r} must be a string: an ID, 'start' or JSON")
        stripped = text.strip()
        if stripped.lower() in ("start", "initial"):
            return cls.initial()
        if stripped.startswith("{"):
            return cls.from_json(stripped)
        return cls.from_id(stripped)

    def to_json(self) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict())

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_id({self.id!r})"

    def __str__(self) -> str:
        return self.diagram()

    def _repr_svg_(self) -> str:
        from fevga import svg

        return svg.board(self)

    def winner(self) -> Color | None:
        """The side that has borne off all 15 checkers, if any (None for a draw or a game in play)."""
        winner: int = self._winner()
        return None if winner < 0 else winner

    def points(self) -> int:
        """Points won: 2 for a mars (the loser has borne off none), 1 for a win, 0 otherwise."""
        winner = self.winner()
        if winner is None:
            return 0
        return 2 if self.counts(1 - winner)[0] == 0 else 1

    def is_game_over(self, rules: Rules | None = None) -> bool:
        """True once a side has borne off 15, or the position is dead (a draw, docs/rules.md §8)."""
        return self.winner() is not None or self.is_dead(rules)

    def parse_move(self, notation: str, dice: object = None, rules: Rules | None = None) -> Any:
        """The legal move written `notation` (any equivalent form: ``24/13`` = ``24/18 18/13``)."""
        moves = self.legal_moves(dice, rules)
        mover = list(self.counts(self.turn))
        for source, target in parse_paths(notation):
            if mover[source] == 0:
                raise IllegalMoveError(
                    f"move {notation!r} in {self.id} ({COLOR_NAMES[self.turn]} to play): no checker on point {source}"
                )
            mover[source] -= 1
            mover[target] += 1
        for move in moves:
            if list(move.position.counts(self.turn)) == mover:
                return move
        legal = ", ".join(m.notation for m in moves)
        raise IllegalMoveError(f"move {notation!r} with dice {self._dice_text(dice)} is illegal in {self.id}; "
                               f"legal: {legal}")

    def legal_positions(self: P, dice: object = None, rules: Rules | None = None) -> list[P]:
        """The position each legal move for `dice` leads to, in legal_moves' order, without
        making the moves: the cheap path for a tool that wants only the results.

        >>> [p.id for p in Position.initial().legal_positions("6-5")] == Position.initial().legal_ids("6-5")
        True
        """
        moves = self.legal_moves(dice, rules)
        assert isinstance(moves, MoveList)  # both games' legal_moves return the core's sequence
        positions: list[P] = moves.positions()
        return positions

    def legal_ids(self, dice: object = None, rules: Rules | None = None) -> list[str]:
        """The IDs of legal_positions(dice): one string per legal move, in the same order."""
        return [p.id for p in self.legal_positions(dice, rules)]

    def play(self: P, move: Any, dice: object = None, rules: Rules | None = None) -> P:
        """The position after playing `move` (a legal move of this position, or its notation) with `dice`."""
        if isinstance(move, str):
            after: P = self.parse_move(move, dice, rules).position
            return after
        if not (hasattr(move, "steps") and isinstance(getattr(move, "position", None), type(self))):
            raise IllegalMoveError(f"move {move!r} must be a move of a {type(self).__name__} or a notation string")
        for legal in self.legal_moves(dice, rules):
            if legal.position == move.position:
                result: P = legal.position
                return result
        raise IllegalMoveError(f"move {move.notation!r} with dice {self._dice_text(dice)} is illegal in {self.id}")


class Position(CorePosition, BasePosition):
    """A Fevga position: both armies in own numbering and the side on roll (immutable, hashable)."""

    __slots__ = ()

    @classmethod
    def from_counts(cls, white: Sequence[int], black: Sequence[int], turn: int = WHITE) -> Position:
        """A position from 25 counts per side in its own numbering (index 0 = borne off).

        >>> Position.from_counts([0] * 24 + [15], [0] * 24 + [15], WHITE) == Position.initial()
        True
        """
        w = _validate_counts("white", white)
        b = _validate_counts("black", black)
        if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) or turn not in (WHITE, BLACK):
            raise InvalidPositionError(f"turn {turn!r} must be WHITE (0) or BLACK (1)")
        return cls._trusted(w, b, int(turn))  # the core's one validator checks the rest

    @classmethod
    def _trusted(cls, white: Sequence[int], black: Sequence[int], turn: int) -> Position:
        """The position of counts 0-15 (validated by the core: 15 a side, no shared point, ...)."""
        position: Position = cls._from_row(bytes([*white, *black, turn]))
        return position

    @classmethod
    def from_id(cls, text: str) -> Position:
        """The position of a 16-character ID (layout in fevga.notation).

        >>> Position.from_id("f_8AAAD__gAAAAAA") == Position.initial()
        True
        """
        white, black, turn = decode_id(text)
        return cls._trusted(white, black, turn)  # decode_id gives 25 counts 0-15 a side and a turn 0/1

    @property
    def id(self) -> str:
        """The 16-character position ID (round-trips through from_id)."""
        return self._board_id()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"white": [25 counts], "black": [...], "turn": "white"}``."""
        return {"white": list(self.counts(WHITE)), "black": list(self.counts(BLACK)), "turn": COLOR_NAMES[self.turn]}

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Position:
        """The position of a JSON text or dict written by to_json()/to_dict()."""
        try:
            obj = position_json(data) if isinstance(data, str) else data
            turn = obj["turn"]
            white, black = obj["white"], obj["black"]
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidNotationError(f"position JSON {repr(data)[:80]} is not an object with white, black, turn: {exc}") from None
        if turn not in COLOR_NAMES:
            raise InvalidPositionError(f"position JSON turn {turn!r} must be 'white' or 'black'")
        return cls.from_counts(white, black, COLOR_NAMES.index(turn))

    def diagram(self, perspective: int = WHITE) -> str:
        """The board as text in `perspective`'s own numbering (default White's, the printed one)."""
        return diagram(self, perspective)

    def is_dead(self, rules: Rules | None = None) -> bool:
        """Neither side has a legal move for any of the 21 rolls (scored as a draw)."""
        return self.winner() is None and bool(self._is_dead(rules_of(rules).flags))

    def can_move(self, color: int, rules: Rules | None = None) -> bool:
        """Whether `color` has a legal move for at least one of the 21 rolls."""
        return bool(self._can_move(color, rules_of(rules).flags))

    def legal_moves(self, dice: object = None, rules: Rules | None = None) -> Sequence[Move]:
        """The distinct legal moves (full turns) for `dice`; a pass is one empty move. A read-only
        sequence (equal to the list of the same moves) that makes each Move when it is first used.

        >>> [m.notation for m in Position.initial().legal_moves("6-5")]
        ['24/13']
        """
        d1, d2 = parse_dice(dice)
        moves: Sequence[Move] = self._legal_moves(d1, d2, rules_of(rules).flags, Move)
        return moves

    def count_legal_moves(self, dice: object = None, rules: Rules | None = None) -> int:
        """len(legal_moves(dice)) without building the moves."""
        d1, d2 = parse_dice(dice)
        return 0 if self._winner() >= 0 else int(self._count_legal(d1, d2, rules_of(rules).flags))

    def _dice_text(self, dice: object) -> str:
        return str(parse_dice(dice))


PositionT = TypeVar("PositionT", bound="BasePosition", covariant=True)


class BaseMove(Generic[PositionT]):
    """What a move of either game is: `steps`, a representative step sequence, and
    `position`, the result (`Move`: the Fevga position after a full turn; `fevga.GioulMove`:
    the Gioul state after one decision). Each variant is a named tuple over these two fields."""

    __slots__ = ()

    if TYPE_CHECKING:
        @property
        def steps(self) -> tuple[Step, ...]: ...

        @property
        def position(self) -> PositionT: ...

    @property
    def notation(self) -> str:
        """Short notation in the mover's own numbering, e.g. ``24/13`` or ``6/off 5/off``
        (``pass`` if no die could be played)."""
        return format_steps(self.steps)

    @property
    def is_pass(self) -> bool:
        """True for the empty move (no die could be played)."""
        return not self.steps

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the notation, the steps and the resulting position's ID, and what the
        variant says of the result (`_result_fields`: Gioul names who holds the next decision).

        >>> Position.initial().legal_moves("6-5")[0].to_dict()
        {'move': '24/13', 'steps': [[24, 18], [18, 13]], 'position': '__4AIAD__gAAAAAA'}
        """
        return {"move": self.notation, "steps": [list(s) for s in self.steps], "position": self.position.id,
                **self._result_fields()}

    def _result_fields(self) -> dict[str, Any]:
        return {}

    def __str__(self) -> str:
        return self.notation


class _MoveFields(NamedTuple):
    steps: tuple[Step, ...]
    position: Position


class Move(_MoveFields, BaseMove[Position]):
    """One legal move (a full turn): a representative step sequence and the resulting position.

    An immutable, hashable value (a named tuple, cheap to create in bulk). Equality follows
    the rules (docs/rules.md §6: a move is its resulting position): two moves are equal when they
    reach the same position, whatever steps represent them (``24/18 18/13`` == ``24/13``).
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return bool(self.position == other.position)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, Move):
            return not self.position == other.position
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.position)


def perft(position: BasePosition, depth: int, rules: Rules | None = None) -> int:
    """Leaves of the tree over the 21 rolls and the distinct legal moves (a pass is one move).
    For a GioulPosition, the leaves of the Gioul decision tree (docs/rules.md, "Perft"): a
    state waiting for a roll branches over the 21 rolls and then the moves of the roll's first
    decision; a state with dice pending branches over the moves of its pending decision.

    >>> perft(Position.initial(), 2)
    479
    """
    if not isinstance(position, (Position, CoreGioul)):
        raise InvalidArgumentError(f"position {repr(position)[:80]} must be a fevga.Position or a fevga.GioulPosition")
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_PERFT_DEPTH:
        raise InvalidArgumentError(f"perft depth {depth!r} must be an integer from 0 to {MAX_PERFT_DEPTH}")
    return int(position._perft(depth, rules_of(rules, "gioul" if isinstance(position, CoreGioul) else "fevga").flags))
