"""The exceptions fevga raises; every one is a subclass of `FevgaError`.

Defined in the core so that its compiled modules can raise them without importing the API
package; `fevga.errors` re-exports them (their public home, also their `__module__`).
"""

from __future__ import annotations


class FevgaError(Exception):
    """Base class of every error raised by fevga."""


class InvalidPositionError(FevgaError, ValueError):
    """A position (counts, ID or JSON) breaks the board's invariants."""


class InvalidNotationError(FevgaError, ValueError):
    """A move, dice or position notation cannot be parsed."""


class InvalidDiceError(FevgaError, ValueError):
    """Dice outside 1-6, or not exactly two of them."""


class InvalidRulesError(FevgaError, ValueError):
    """An unknown rule option or option value."""


class IllegalMoveError(FevgaError, ValueError):
    """A well-formed move that the rules do not allow in this position with these dice."""


class MissingBearoffError(FevgaError, KeyError):
    """A bear-off database has no entry for the requested position."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class BearoffFileError(FevgaError, OSError):
    """A bear-off database file is truncated, corrupted, foreign or mismatched."""


class InvalidArgumentError(FevgaError, ValueError):
    """An argument outside its documented range (depth, games, workers, ...)."""


class NetFileError(FevgaError, OSError):
    """A net weights file is unreadable, truncated, corrupted or not a fevga net of this version."""


class NetGameError(FevgaError, ValueError):
    """A net of one game (a Fevga net, a Gioul net) given where the other game's net is needed."""


class CheckpointError(InvalidArgumentError):
    """A checkpoint (rollout or training) is unreadable, over a limit, corrupted (its content
    checksum does not match) or belongs to another job."""


class RecordError(FevgaError, ValueError):
    """A game or match record (JSON or the text match format) is malformed or replays an illegal move.

    `line` and `column` (1-based) locate the problem in a text record; both are None for JSON.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None, source: str = "") -> None:
        where = ""
        if line is not None:
            where = f"{source or '<record>'}:{line}:{column or 1}: "
        super().__init__(where + message)
        self.line = line
        self.column = column
        self.source = source


for _cls in (FevgaError, InvalidPositionError, InvalidNotationError, InvalidDiceError, InvalidRulesError,
             IllegalMoveError, MissingBearoffError, BearoffFileError, InvalidArgumentError, NetFileError, RecordError,
             CheckpointError, NetGameError):
    _cls.__module__ = "fevga.errors"  # the public name: reprs, pickles and docs say fevga.errors.X
del _cls
