"""Gioul (Gul bara), Fevga's sister game: its game states and decisions, and their batch calls.

Rules: docs/rules.md, "Gioul". Same board and moving as Fevga without the mother rule or
any prime rule; from a player's fourth roll on a double is a *chain* (four of each number
from the rolled one up to six), and dice a player cannot play are handed to the opponent.

A `GioulPosition` is a whole Gioul game state: the board, each side's roll count, and,
between two decisions of one roll, who plays next and the dice still to play. A
*decision* is a non-double pair, a block of four (or the rest of one) of a double or
chain, or one leftover die; its legal moves are its distinct resulting boards.

>>> pos = GioulPosition.initial()
>>> [m.notation for m in pos.legal_moves("6-5")]
['24/13', '24/18 24/19']
>>> pos.legal_moves("5-5")[0].position.pending
()

States are normalised: the player holding pending dice can always play at least one of
them (dice nobody can start are lost at once), so the only decision that plays no die is
a fresh roll its roller cannot play (`pass`), which hands the dice over.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from fevga.errors import (
    IllegalMoveError,
    InvalidArgumentError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
)
from fevga.inputs import position_json
from fevga.notation import Step, decode_gioul_id, format_steps, gioul_id_tail, parse_dice
from fevga.position import BLACK, COLOR_NAMES, NUM_CHECKERS, WHITE, BaseMove, BasePosition, Color, Position, _validate_counts
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike, master_key, seed_sequence
from fevga_core.constants import GIOUL_WIDTH as GIOUL_WIDTH
from fevga_core.gioul import CoreGioul, first_invalid_row
from fevga_core.rollout import gioul_games
from fevga.limits import MAX_BATCH_ROWS, bounded, check_int
from fevga.checks import row_array
from fevga.diagram import diagram

__all__ = [
    "GioulMove",
    "GioulPosition",
    "from_array",
    "self_play",
    "to_array",
    "validate_states",
]

CHAIN_FROM_ROLL = 4  # a double is a chain from the roller's fourth roll on
_MAX_PENDING = 24  # the most dice a roll can leave pending: a chain from 1-1 (four each of 1..6)


def _dice_fields(dice: Sequence[int]) -> tuple[int, int, int, int]:
    """(die, count, last, pair) of a pending dice sequence; InvalidDiceError if it is not
    the rest of a roll: a non-double pair, or n (1-4) of one number then complete blocks of
    four of each following number up to some last one."""
    values = list(dice)
    if not values:
        return (0, 0, 0, 0)
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 1 <= v <= 6 for v in values):
        raise InvalidDiceError(f"pending dice {tuple(dice)!r} must be numbers 1-6")
    if len(values) == 2 and values[0] != values[1]:
        return (max(values), 1, max(values), min(values))
    die = int(values[0])
    count = 1
    while count < len(values) and values[count] == die:
        count += 1
    rest = values[count:]
    last = die + len(rest) // 4
    if count > 4 or len(rest) % 4 or rest != [d for d in range(die + 1, last + 1) for _ in range(4)] or (
        rest and last != 6
    ):
        raise InvalidDiceError(
            f"pending dice {tuple(dice)!r} are not the rest of a roll: expected a pair of different "
            "numbers, or 1-4 of one number followed by four of each next number up to 6 (a chain)"
        )
    return (die, count, last, 0)


def _dice_of(die: int, count: int, last: int, pair: int) -> tuple[int, ...]:
    if not count:
        return ()
    if pair:
        return (die, pair)
    return (die,) * count + tuple(d for d in range(die + 1, last + 1) for _ in range(4))


def _parse_pending(dice: object) -> tuple[int, ...]:
    """Pending dice from a sequence of ints or a text like ``"5 5 6 6 6 6"`` / ``"6-5"``."""
    if dice is None:
        return ()
    if isinstance(dice, str):
        tokens = dice.replace("-", " ").replace(",", " ").split()
        if not all(t.isascii() and t.isdigit() and len(t) <= 2 for t in tokens) or len(tokens) > _MAX_PENDING:
            raise InvalidDiceError(f"pending dice {dice[:60]!r}: expected numbers 1-6 such as '5 5 6 6 6 6'")
        return tuple(int(t) for t in tokens)
    if isinstance(dice, Iterable):
        values = tuple(itertools.islice(dice, _MAX_PENDING + 1))  # an endless iterator is refused, not drained
        if len(values) > _MAX_PENDING:
            raise InvalidDiceError(f"pending dice {dice!r}: more than {_MAX_PENDING} dice (a chain from 1-1 has 24)")
        return values
    raise InvalidDiceError(f"pending dice {dice!r}: expected a sequence of numbers 1-6")


class GioulPosition(CoreGioul, BasePosition):
    """A Gioul game state: board, roll counts and pending dice (immutable, hashable)."""

    __slots__ = ()

    @classmethod
    def from_counts(
        cls,
        white: Sequence[int],
        black: Sequence[int],
        turn: int = WHITE,
        *,
        next_roll: tuple[int, int] = (1, 1),
        dice: object = None,
        roller: int | None = None,
    ) -> GioulPosition:
        """A state from 25 counts per side (own numbering, index 0 = borne off).

        `turn` is the side that rolls next, or with `dice` pending the side that plays
        them; `next_roll` is the number (1, 2, 3, or 4 for "4 or later") of each side's
        next own roll; `dice` are the dice still to play in order (e.g. ``(5, 5, 6, 6, 6,
        6)`` or ``"6-5"``), rolled by `roller`.

        >>> GioulPosition.from_counts([0] * 24 + [15], [0] * 24 + [15]) == GioulPosition.initial()
        True
        """
        w = _validate_counts("white", white)
        b = _validate_counts("black", black)
        Position.from_counts(w, b, WHITE)  # the board's own invariants (shared points, both off)
        if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) or turn not in (WHITE, BLACK):
            raise InvalidPositionError(f"turn {turn!r} must be WHITE (0) or BLACK (1)")
        if (
            not isinstance(next_roll, (tuple, list))
            or len(next_roll) != 2
            or any(not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= CHAIN_FROM_ROLL for r in next_roll)
        ):
            raise InvalidPositionError(f"next_roll {next_roll!r} must be two numbers 1-4 (4 = the fourth roll or later)")
        rolls = (next_roll[0] - 1, next_roll[1] - 1)
        pending = _parse_pending(dice)
        die, count, last, pair = _dice_fields(pending)
        if not count:
            if roller is not None:
                raise InvalidPositionError(f"roller {roller!r} given without pending dice")
            return cls._from_fields(bytes([*w, *b, turn]), rolls[0], rolls[1], 0, 0, 0, 0, 0)
        if isinstance(roller, bool) or not isinstance(roller, (int, np.integer)) or roller not in (WHITE, BLACK):
            raise InvalidPositionError(f"pending dice {pending} need the roller, WHITE (0) or BLACK (1), not {roller!r}")
        if rolls[roller] == 0:
            raise InvalidPositionError(f"{COLOR_NAMES[roller]} rolled the pending dice but its next roll is its first")
        if last > die and rolls[roller] < CHAIN_FROM_ROLL - 1:
            raise InvalidPositionError(
                f"pending dice {pending} are a chain, but {COLOR_NAMES[roller]} has not reached its fourth roll"
            )
        if w[0] == NUM_CHECKERS or b[0] == NUM_CHECKERS:
            raise InvalidPositionError("a finished game has no pending dice")
        # the core refuses pending dice that the side on turn cannot play any of
        return cls._from_fields(bytes([*w, *b, turn]), rolls[0], rolls[1], roller, die, count, last, pair)

    # ------------------------------------------------------------------ views

    @property
    def pending(self) -> tuple[int, ...]:
        """The dice still to play of the current roll, in order; () when a new roll is due."""
        _, _, _, _, die, count, last, pair = self._fields()
        return _dice_of(die, count, last, pair)

    @property
    def roller(self) -> Color | None:
        """The side that rolled the pending dice (None when a new roll is due)."""
        fields = self._fields()
        return fields[3] if fields[5] else None

    @property
    def decision_dice(self) -> tuple[int, ...]:
        """The dice of the pending decision (a pair, or 1-4 of one number); () if none."""
        _, _, _, _, die, count, _, pair = self._fields()
        if not count:
            return ()
        return (die, pair) if pair else (die,) * count

    def next_roll(self, color: int) -> int:
        """The number of `color`'s next own roll: 1, 2, 3, or 4 for "the fourth or later"."""
        fields = self._fields()
        self.counts(color)  # validates the colour
        return int(fields[1 + color]) + 1

    def board(self) -> Position:
        """The board as a Fevga `Position` (same armies; the side on turn keeps the turn)."""
        return Position._trusted(self.counts(WHITE), self.counts(BLACK), self.turn)

    # ------------------------------------------------------------------ notation

    @property
    def id(self) -> str:
        """The 20-character Gioul ID (layout in fevga.notation; round-trips)."""
        _, rw, rb, roller, die, count, last, pair = self._fields()
        return self._board_id() + gioul_id_tail((rw, rb, roller, die, count, last, pair))

    @classmethod
    def from_id(cls, text: str) -> GioulPosition:
        """The state of a 20-character Gioul ID."""
        white, black, turn, (rw, rb, roller, die, count, last, pair) = decode_gioul_id(text)
        try:
            pending = _dice_of(die, count, last, pair)
            if pending:
                _dice_fields(pending)
                if (die, count, last, pair) != _dice_fields(pending):
                    raise InvalidDiceError("non-canonical dice fields")
            elif die or last or pair or roller:
                raise InvalidDiceError("dice fields without pending dice")
        except InvalidDiceError as exc:
            raise InvalidNotationError(f"Gioul position ID {text!r} has invalid dice fields: {exc}") from None
        return cls.from_counts(
            white, black, turn, next_roll=(rw + 1, rb + 1), dice=pending, roller=roller if pending else None
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: game, both armies, turn, next_roll, and roller/dice when pending."""
        roller = self.roller
        return {
            "game": "gioul",
            "white": list(self.counts(WHITE)),
            "black": list(self.counts(BLACK)),
            "turn": COLOR_NAMES[self.turn],
            "next_roll": {"white": self.next_roll(WHITE), "black": self.next_roll(BLACK)},
            "roller": None if roller is None else COLOR_NAMES[roller],
            "dice": list(self.pending),
        }

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> GioulPosition:
        """The state of a JSON text or dict written by to_json()/to_dict()."""
        try:
            obj = position_json(data) if isinstance(data, str) else data
            game = obj.get("game")
            white, black, turn = obj["white"], obj["black"], obj["turn"]
            next_roll = obj.get("next_roll", {"white": 1, "black": 1})
            rolls = (next_roll["white"], next_roll["black"])
            roller, dice = obj.get("roller"), obj.get("dice", [])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InvalidNotationError(
                f"Gioul position JSON {repr(data)[:80]} is not an object with game, white, black, turn, next_roll: {exc}"
            ) from None
        if game != "gioul":
            raise InvalidPositionError(f"position JSON game {game!r} is not 'gioul' (a Fevga position has no game key)")
        for name, value in (("turn", turn), ("roller", roller)):
            if value not in COLOR_NAMES and not (name == "roller" and value is None):
                raise InvalidPositionError(f"Gioul position JSON {name} {value!r} must be 'white' or 'black'")
        return cls.from_counts(
            white,
            black,
            COLOR_NAMES.index(turn),
            next_roll=rolls,
            dice=dice,
            roller=None if roller is None else COLOR_NAMES.index(roller),
        )

    def diagram(self, perspective: int = WHITE) -> str:
        """The board drawn in `perspective`'s own numbering (fevga.diagram), with the roll counts
        and what is due next."""
        lines = diagram(self.board(), perspective).splitlines()[:-1]
        roller = self.roller
        lines.append(
            f"Gioul. Next rolls: white {self.next_roll(WHITE)}, black {self.next_roll(BLACK)} (4 = fourth or later)."
        )
        winner = self.winner()
        if winner is not None:
            lines.append(f"{COLOR_NAMES[winner].capitalize()} has won {self.points()} point(s).   ID {self.id}")
        elif roller is None:
            lines.append(f"{COLOR_NAMES[self.turn].capitalize()} to roll.   ID {self.id}")
        else:
            dice = " ".join(map(str, self.pending))
            lines.append(
                f"{COLOR_NAMES[self.turn].capitalize()} to play {dice} (rolled by {COLOR_NAMES[roller]}).   ID {self.id}"
            )
        return "\n".join(lines)

    # ------------------------------------------------------------------ game state

    def is_dead(self, rules: Rules | None = None) -> bool:
        """Neither side can play any die: the game can never change (a draw)."""
        rules_of(rules, "gioul")
        return self.winner() is None and bool(self._is_dead())

    def can_move(self, color: int, rules: Rules | None = None) -> bool:
        """Whether `color` can play at least one die of some roll now."""
        rules_of(rules, "gioul")
        self.counts(color)
        return bool(self._can_move(color))

    # ------------------------------------------------------------------ moves

    def _dice_args(self, dice: object) -> tuple[int, int]:
        if self._fields()[5]:
            if dice is not None:
                raise InvalidDiceError(
                    f"{self.id} has dice pending ({' '.join(map(str, self.pending))}, "
                    f"{COLOR_NAMES[self.turn]} to play): call without dice"
                )
            return (0, 0)
        if dice is None:
            raise InvalidDiceError(f"{self.id}: a new roll is due ({COLOR_NAMES[self.turn]} to roll); give the dice")
        return parse_dice(dice)

    def rolled(self, dice: object) -> GioulPosition:
        """The state once the side to roll has rolled `dice`, before any die is played."""
        d1, d2 = self._dice_args(dice)
        if self.winner() is not None:
            raise IllegalMoveError(f"{self.id}: the game is over")
        return self._rolled(d1, d2)

    def legal_moves(self, dice: object = None, rules: Rules | None = None) -> Sequence[GioulMove]:
        """The legal moves of the next decision: of the roll `dice` when a new roll is due,
        else (no dice given) of the pending decision. A pass is one empty move; a finished
        game has none.

        >>> [m.notation for m in GioulPosition.initial().legal_moves("6-6")]
        ['24/18(4)']
        """
        rules_of(rules, "gioul")
        d1, d2 = self._dice_args(dice)
        moves: Sequence[GioulMove] = self._legal_moves(d1, d2, GioulMove)
        return moves

    def count_legal_moves(self, dice: object = None, rules: Rules | None = None) -> int:
        """len(legal_moves(dice)) without building the moves."""
        rules_of(rules, "gioul")
        d1, d2 = self._dice_args(dice)
        return int(self._count_legal(d1, d2))

    def _dice_text(self, dice: object) -> str:
        return str(parse_dice(dice)) if dice is not None else str(self.decision_dice)


class _GioulMoveFields(NamedTuple):
    steps: tuple[Step, ...]
    position: GioulPosition


class GioulMove(_GioulMoveFields, BaseMove[GioulPosition]):
    """One legal move of a decision: a representative step sequence and the next state."""

    __slots__ = ()

    def _result_fields(self) -> dict[str, Any]:
        """Who holds the next decision and the dice it plays (none: a roll is due)."""
        return {"next": COLOR_NAMES[self.position.turn], "pending": list(self.position.pending)}


def to_array(states: Sequence[GioulPosition]) -> np.ndarray:
    """Gioul rows (uint8, GIOUL_WIDTH = 58 columns: the 51-byte board row of fevga.batch, then
    the roll counts made by White and Black (0-3, 3 = three or more), roller, die, count,
    last, pair: the pending dice, all 0 when a roll is due) for the batch kernels."""
    states = bounded(states, "states", MAX_BATCH_ROWS)
    out = np.zeros((len(states), GIOUL_WIDTH), dtype=np.uint8)
    for i, state in enumerate(states):
        if not isinstance(state, GioulPosition):
            raise InvalidArgumentError(f"state {i} ({state!r}) is not a GioulPosition")
        row, *fields = state._fields()
        out[i, : len(row)] = np.frombuffer(row, dtype=np.uint8)
        out[i, len(row) :] = fields
    return out


def validate_states(rows: object) -> np.ndarray:
    """The (n, 58) C-contiguous uint8 array of Gioul state rows, every row checked for the
    invariants of a GioulPosition (InvalidPositionError names the first bad row and why)."""
    array = row_array(rows, "Gioul states", GIOUL_WIDTH, 255,
                      "Gioul state rows hold small non-negative integers (0-15 counts, fields 0-6)")
    index, problem = first_invalid_row(array)
    if index >= 0:
        raise InvalidPositionError(f"Gioul state row {index} {problem}: {array[index].tolist()}")
    return array


def from_array(rows: object) -> list[GioulPosition]:
    """The GioulPositions of an (n, 58) array of state rows (validated)."""
    checked = validate_states(rows)
    width = GIOUL_WIDTH - 7
    return [GioulPosition._from_fields(bytes(row[:width]), *(int(v) for v in row[width:])) for row in checked]


# ---------------------------------------------------------------------- games


def self_play(games: int, seed: SeedLike = None, rules: Rules | None = None) -> np.ndarray:
    """White's points (+-2, +-1, 0 for a draw) of `games` seeded uniform-random Gioul games
    played in the core without the GIL; game i is the same for any split of the job."""
    rules = rules_of(rules, "gioul")
    games = check_int("games", games, 0, MAX_BATCH_ROWS)
    points, _ = gioul_games(master_key(seed_sequence(seed)), 0, games, rules.first_roll == "opening_dice")
    return points
