"""fevga: a fast, exact analysis engine for Fevga, the Greek backgammon game.

>>> import fevga
>>> pos = fevga.Position.initial()
>>> [m.notation for m in pos.legal_moves((6, 5))]
['24/13']
>>> fevga.perft(pos, 2)
479
"""

from fevga.startup import quiet_interrupts

quiet_interrupts()  # first: the `fevga` command answers a Ctrl-C during these imports with one line

from fevga import batch, bearoff, game, svg  # the README uses fevga.game, fevga.batch, fevga.svg after `import fevga`
from fevga.analysis import Evaluation, Hint, evaluate, hint
from fevga.errors import (
    BearoffFileError,
    CheckpointError,
    FevgaError,
    IllegalMoveError,
    InvalidArgumentError,
    InvalidDiceError,
    InvalidNotationError,
    InvalidPositionError,
    InvalidRulesError,
    RecordError,
    MissingBearoffError,
    NetFileError,
    NetGameError,
)
from fevga.gioul import GioulMove, GioulPosition
from fevga.net import Net
from fevga.position import BLACK, WHITE, BasePosition, Color, Move, Position, perft
from fevga.rollout import MoveRollout, RolloutResult, rollout, rollout_moves
from fevga.search import expectimax
from fevga.rules import Rules
from fevga.analyser import analyse  # after the modules it builds on

from fevga.version import __version__

__all__ = [
    "BLACK",
    "WHITE",
    "BasePosition",
    "BearoffFileError",
    "CheckpointError",
    "Color",
    "FevgaError",
    "GioulMove",
    "GioulPosition",
    "IllegalMoveError",
    "InvalidArgumentError",
    "InvalidDiceError",
    "InvalidNotationError",
    "InvalidPositionError",
    "InvalidRulesError",
    "MissingBearoffError",
    "Move",
    "Net",
    "NetFileError",
    "NetGameError",
    "Evaluation",
    "Hint",
    "evaluate",
    "hint",
    "MoveRollout",
    "Position",
    "RecordError",
    "RolloutResult",
    "Rules",
    "analyse",
    "batch",
    "bearoff",
    "expectimax",
    "game",
    "perft",
    "rollout",
    "rollout_moves",
    "svg",
]
