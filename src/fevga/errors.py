"""The exceptions fevga raises; every one is a subclass of `FevgaError`.

They are defined in `fevga_core.errors`, so that the compiled core can raise them without
importing this package (the core never imports the API); this module is their public home.
"""

from __future__ import annotations

from fevga_core.errors import (
    BearoffFileError,
    CheckpointError,
    FevgaError,
    IllegalMoveError,
    InvalidArgumentError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    InvalidRulesError,
    MissingBearoffError,
    NetFileError,
    NetGameError,
    RecordError,
)

__all__ = [
    "BearoffFileError",
    "CheckpointError",
    "FevgaError",
    "IllegalMoveError",
    "InvalidArgumentError",
    "InvalidDiceError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MissingBearoffError",
    "NetFileError",
    "NetGameError",
    "RecordError",
]
