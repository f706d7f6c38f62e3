"""Text forms: the 16-character position ID, move notation and dice.

Position ID (16 characters of the URL-safe base64 alphabet ``A-Z a-z 0-9 - _``, 96 bits,
most significant bit first):

* bit 0: side on roll (0 = White, 1 = Black);
* then White's checkers on the board, own points 24, 23, ..., 1 in that order: for each
  point as many 1 bits as it has checkers, then one 0 bit (24 separators in all);
* then Black's, the same way in Black's own numbering;
* then 0 bits up to 96. Borne-off counts are implied (15 minus the checkers on the board).

At most 1 + 2 x (15 + 24) = 79 bits are used. The start position (White on roll) is ``f_8AAAD__gAAAAAA``.

Gioul ID (20 characters): the 16-character ID of the board (its turn bit is the side that
plays the pending decision or rolls next), then 4 characters (24 bits, most significant
first): White's rolls made (2 bits, 0-3, 3 = three or more), Black's (2), the roller (1),
the pending dice (die 3, count 3, last 3, pair 3 bits; all 0 when none are pending, see
fevga.gioul), and the 7-bit tag 1000111. Fevga and Gioul IDs differ in length, so one
never parses as the other. The Gioul start is ``f_8AAAD__gAAAAAAAABH``.

Move notation uses the mover's own numbering: one token per checker path, ``from/to``
(``to`` may be ``off``), intermediate landings optional (``24/18/13`` = ``24/13``),
``(n)`` repeats a token n times, and ``pass`` is the empty move. The formatter joins the
steps of one checker into one path (``24/18 18/13`` is written ``24/13``).
"""

from __future__ import annotations

import base64
import itertools
import re
from collections.abc import Iterable, Sequence

import numpy as np

from fevga.errors import InvalidDiceError, InvalidNotationError, InvalidPositionError
from fevga_core import constants
from fevga_core.movegen import steps_notation

Color = int
"""A side: WHITE (0) or BLACK (1)."""
WHITE: Color = 0
BLACK: Color = 1
COLOR_NAMES = ("white", "black")


def other_point(point: int) -> int:
    """The same board point in the other side's own numbering (1-24 -> 1-24)."""
    return (point + 11) % 24 + 1


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DECODE = {c: i for i, c in enumerate(ALPHABET)}
_ID_CHARACTERS = frozenset(ALPHABET)
ID_LENGTH = 16
_ID_BITS = 6 * ID_LENGTH
_POINTS = constants.NUM_POINTS
_CHECKERS = constants.NUM_CHECKERS

Counts = tuple[int, ...]
Step = tuple[int, int]


def decode_id(text: str) -> tuple[Counts, Counts, int]:
    """(white, black, turn) of a position ID; only the bit layout is checked here."""
    if not isinstance(text, str) or len(text) != ID_LENGTH or not _ID_CHARACTERS.issuperset(text):
        hint = " (a 20-character ID is a Gioul position: --game gioul)" if isinstance(text, str) and len(text) == 20 else ""
        raise InvalidNotationError(
            f"position ID {text!r} must be {ID_LENGTH} characters of A-Z, a-z, 0-9, '-', '_'{hint}"
        )
    bits = format(int.from_bytes(base64.urlsafe_b64decode(text), "big"), f"0{_ID_BITS}b")
    # the runs of 1 bits before each of the 48 separators (the last piece: what follows them)
    runs = bits[1:].split("0", 2 * _POINTS)
    sides: list[Counts] = []
    for side in range(2):
        if len(runs) <= (side + 1) * _POINTS:
            raise InvalidNotationError(f"position ID {text!r} is truncated")
        on_points = [len(run) for run in runs[side * _POINTS:(side + 1) * _POINTS]]  # points 24 .. 1
        on_board = sum(on_points)
        if on_board > _CHECKERS:
            raise InvalidPositionError(f"position ID {text!r} puts {on_board} checkers of one side on the board")
        sides.append((_CHECKERS - on_board, *reversed(on_points)))
    if "1" in runs[2 * _POINTS]:
        raise InvalidNotationError(f"position ID {text!r} has stray bits after the two armies")
    return sides[0], sides[1], int(bits[0])


GIOUL_ID_LENGTH = ID_LENGTH + 4
_GIOUL_TAG = 0b1000111
GioulFields = tuple[int, int, int, int, int, int, int]  # rolls W, rolls B, roller, die, count, last, pair


def gioul_id_tail(fields: GioulFields) -> str:
    """The last 4 characters of a Gioul ID: its trusted state fields and the tag (the first
    16 are the board's ID, which the core writes: CoreBoard._board_id)."""
    value = 0
    for width, field in zip((2, 2, 1, 3, 3, 3, 3), fields):
        value = (value << width) | field
    value = (value << 7) | _GIOUL_TAG
    return "".join(ALPHABET[(value >> (6 * (3 - i))) & 63] for i in range(4))


def decode_gioul_id(text: str) -> tuple[Counts, Counts, int, GioulFields]:
    """(white, black, turn, fields) of a Gioul ID; only the bit layout is checked here."""
    if not isinstance(text, str) or len(text) != GIOUL_ID_LENGTH or not _ID_CHARACTERS.issuperset(text):
        hint = " (a 16-character ID is a Fevga position)" if isinstance(text, str) and len(text) == ID_LENGTH else ""
        raise InvalidNotationError(
            f"Gioul position ID {text!r} must be {GIOUL_ID_LENGTH} characters of A-Z, a-z, 0-9, '-', '_'{hint}"
        )
    value = 0
    for c in text[ID_LENGTH:]:
        value = (value << 6) | _DECODE[c]
    if value & 127 != _GIOUL_TAG:
        raise InvalidNotationError(f"Gioul position ID {text!r} does not end in the Gioul tag")
    value >>= 7
    fields: list[int] = []
    for width in (3, 3, 3, 3, 1, 2, 2):
        fields.append(value & ((1 << width) - 1))
        value >>= width
    white, black, turn = decode_id(text[:ID_LENGTH])
    f = tuple(reversed(fields))
    return white, black, turn, (f[0], f[1], f[2], f[3], f[4], f[5], f[6])


def format_steps(steps: Sequence[Step]) -> str:
    """Short notation of a step sequence: one ``from/to`` per checker path (in the core).

    >>> format_steps(((24, 19), (19, 14), (14, 9), (24, 19)))
    '24/9 24/19'
    """
    return steps_notation(steps)


_TOKEN = re.compile(r"^(\d{1,2})((?:/(?:\d{1,2}|off))+)(?:\(([1-4])\))?$")


def parse_paths(text: str) -> list[Step]:
    """Checker paths ``(from, to)`` of a move notation, in order; ``to == 0`` is off.

    >>> parse_paths("24/18/13 6/off(2)")
    [(24, 13), (6, 0), (6, 0)]
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"move notation must be a string, not {text!r}")
    stripped = text.strip().lower()
    if stripped in ("pass", "", "-"):
        return []
    paths: list[Step] = []
    for token in stripped.replace(",", " ").split():
        match = _TOKEN.match(token)
        if not match:
            raise InvalidNotationError(f"move notation {text!r}: cannot read {token!r} (expected e.g. 24/18 or 6/off)")
        points = [int(match.group(1))] + [0 if p == "off" else int(p) for p in match.group(2).split("/")[1:]]
        for a, b in zip(points, points[1:]):
            if not (1 <= a <= _POINTS and 0 <= b < a):
                raise InvalidNotationError(
                    f"move notation {text!r}: {token!r} must go forward from a point 1-24 (to a lower point or off)"
                )
        paths.extend([(points[0], points[-1])] * int(match.group(3) or 1))
    return paths


_DICE = re.compile(r"^\s*([0-9])\s*[-,/ x]?\s*([0-9])\s*$")


def parse_dice(dice: object) -> tuple[int, int]:
    """Two dice 1-6 from a pair of ints or a string like ``"6-5"`` or ``"65"``.

    >>> parse_dice("6-5")
    (6, 5)
    """
    if (type(dice) is tuple and len(dice) == 2 and type(dice[0]) is int and type(dice[1]) is int
            and 1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        return dice  # the common, already valid form
    if isinstance(dice, str):
        match = _DICE.match(dice)
        if not match:
            raise InvalidDiceError(f"dice {dice!r}: expected two numbers 1-6 such as '6-5'")
        values: tuple[object, ...] = (int(match.group(1)), int(match.group(2)))
    elif isinstance(dice, Iterable):
        values = tuple(itertools.islice(dice, 3))  # never more: an endless iterator is refused, not drained
    else:
        raise InvalidDiceError(f"dice {dice!r}: expected two numbers 1-6 such as (6, 5)")
    ints = [int(v) for v in values if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    if len(values) != 2 or len(ints) != 2 or not all(1 <= v <= 6 for v in ints):
        raise InvalidDiceError(f"dice {dice!r}: expected exactly two numbers 1-6")
    return (ints[0], ints[1])
