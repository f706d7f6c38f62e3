"""gnubg position IDs for Fevga boards: how a Fevga position travels through UBGI's
``position gnubgid``.

gnubg's position key (its manual, "A technical description of the Position ID") is a bit
string: for each of the two players, for each of its 25 slots (its own points 1 to 24 as
gnubg indices 0-23, then the bar at index 24), as many 1 bits as the player has checkers
there, then a 0 bit; padded with 0 bits to 80 and packed little-endian into 10 bytes (the
first bit is the least significant bit of the first byte). The ID is the standard base64
text of those 10 bytes without its ``==`` padding: 14 characters. gnubg's own
``PositionKey`` writes ``anBoard[0]``, the player *not* on roll, first and the player on
roll second (the manual's prose says the opposite; every ID gnubg prints follows the code).

The Fevga reading of that key:

* each side's checkers in its own numbering: Fevga point p (1-24, 24 = the side's mother,
  1-6 its home) is gnubg index p - 1;
* the bar is always empty (nothing is ever hit in Fevga): an ID with a checker on a bar is
  refused;
* borne-off checkers are implied, 15 minus those on the board;
* the side not on roll is encoded first, the side on roll second (as gnubg does).

The ID does not say which colour is on roll; `position_from_gnubg_id` gives White the roll
(the game is symmetric: the moves, in the mover's own numbering, are the same either way).

>>> gnubg_id(Position.initial())
'AACA/z8AAID/Pw'
>>> position_from_gnubg_id('AACA/z8AAID/Pw') == Position.initial()
True
"""

from __future__ import annotations

import base64
import binascii

from fevga.errors import InvalidNotationError
from fevga.position import BLACK, WHITE, Position

__all__ = ["GNUBG_ID_LENGTH", "gnubg_id", "position_from_gnubg_id"]

GNUBG_ID_LENGTH = 14
_KEY_BYTES = 10
_KEY_BITS = 8 * _KEY_BYTES
_SLOTS = 25  # gnubg indices 0-23 (points 1-24) and 24 (the bar)
_CHECKERS = 15


def gnubg_id(position: Position) -> str:
    """The 14-character gnubg position ID of a Fevga position (layout above)."""
    mover = position.turn
    bits: list[int] = []
    for side in (1 - mover, mover):  # gnubg: the player not on roll first
        counts = position.counts(side)
        for point in range(1, 25):
            bits.extend([1] * counts[point])
            bits.append(0)
        bits.append(0)  # the empty bar
    key = bytearray(_KEY_BYTES)
    for index, bit in enumerate(bits):
        key[index // 8] |= bit << (index % 8)
    return base64.b64encode(bytes(key)).decode("ascii").rstrip("=")


def position_from_gnubg_id(text: str, turn: int = WHITE) -> Position:
    """The Fevga position of a gnubg position ID, `turn` (default White) on roll.

    InvalidNotationError names what is wrong with the ID: its length or alphabet, a bit
    string that is not 2 x 25 slots, more than 15 checkers a side, or a checker on a bar;
    InvalidPositionError (from the board's own validator) for a board that Fevga forbids,
    e.g. a point held by both sides.
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"gnubg position ID {text!r} must be a string")
    if turn not in (WHITE, BLACK) or isinstance(turn, bool):
        raise InvalidNotationError(f"turn {turn!r} must be WHITE (0) or BLACK (1)")
    if len(text) != GNUBG_ID_LENGTH:
        raise InvalidNotationError(f"gnubg position ID {text!r} must be {GNUBG_ID_LENGTH} characters, not {len(text)}")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidNotationError(f"gnubg position ID {text!r} is not base64 (A-Z a-z 0-9 + /)") from None
    if len(key) != _KEY_BYTES or gnubg_text_of(key) != text:
        raise InvalidNotationError(f"gnubg position ID {text!r} has stray bits past the 80-bit key")
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(_KEY_BITS)]
    sides: list[list[int]] = []
    pos = 0
    for player in ("the side not on roll", "the side on roll"):
        slots = []
        for _ in range(_SLOTS):
            run = 0
            while pos < _KEY_BITS and bits[pos] == 1:
                run += 1
                pos += 1
            if pos >= _KEY_BITS:
                raise InvalidNotationError(f"gnubg position ID {text!r} ends before its 50 point separators")
            pos += 1  # the 0 that closes the slot
            slots.append(run)
        if sum(slots) > _CHECKERS:
            raise InvalidNotationError(f"gnubg position ID {text!r} gives {player} {sum(slots)} checkers (at most 15)")
        if slots[24]:
            raise InvalidNotationError(
                f"gnubg position ID {text!r} puts {slots[24]} checker(s) of {player} on the bar: Fevga has no bar"
            )
        sides.append(slots)
    if any(bits[pos:]):
        raise InvalidNotationError(f"gnubg position ID {text!r} has 1 bits after its 50 point separators")
    waiting, mover = ([_CHECKERS - sum(s), *s[:24]] for s in sides)
    white, black = (mover, waiting) if turn == WHITE else (waiting, mover)
    return Position.from_counts(white, black, turn)


def gnubg_text_of(key: bytes) -> str:
    """The 14-character ID text of a 10-byte key (base64 without padding)."""
    return base64.b64encode(key).decode("ascii").rstrip("=")
