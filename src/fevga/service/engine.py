"""One engine session, free of any protocol: its settings (the UBGI keys), and the move
choice for a Fevga position or a Gioul decision.

The settings are the keys `fevga ubgi` announces (docs/ubgi.md); `choose` ranks the legal
moves of a roll or of a Gioul decision the same way for both games: `fevga.hint` over the
game's net at `ply` plies (Gioul: at most `deepest_plies("gioul", True)`), or with `rollouts` games a
`fevga.rollout_moves` on the net of the net's best candidates.

>>> from fevga import Position
>>> engine = Engine()
>>> engine.choose(Position.initial(), (6, 5)).best.notation
'24/13'
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from fevga.analysis import MAX_PLIES, deepest_plies, every_move_of, hint, search_name
from fevga.errors import InvalidArgumentError
from fevga.gioul import GioulMove, GioulPosition
from fevga.net import Net, net_of
from fevga.position import Move, Position
from fevga.rollout import rollout_moves
from fevga.rules import Rules

__all__ = ["KEYS", "Choice", "Engine", "Key", "Ranked", "expand_notation"]

MAX_PLY = MAX_PLIES + 1  # UBGI's root-inclusive plies = fevga.hint's plies
MAX_ROLLOUT_GAMES = 1_000_000
MAX_MULTIPV = 64
MAX_THREADS = 64
ROLLOUT_CANDIDATES = 8  # Fevga rollouts: the net's best moves at 1 ply that are rolled out


class Stopped(Exception):
    """A search stopped from outside (UBGI ``stop``/``quit``, a cancelled job)."""


@dataclass(frozen=True)
class Key:
    """One setting: its UBGI type line and how a text value is read."""

    name: str
    kind: str  # "int", "bool", "enum", "string"
    domain: str  # "1..4", "a|b", "*" (the type's domain in the key line; "" for bool)
    default: object
    minor: bool
    description: str

    def line(self) -> str:
        """The ``key ...`` line of the handshake."""
        parts = ["key", self.name, self.kind]
        if self.domain:
            parts.append(self.domain)
        parts.append(_text(self.default))
        if self.minor:
            parts.append("!")
        parts.append(self.description)
        return " ".join(parts)

    def parse(self, text: str) -> object:
        """The value of `text`, or InvalidArgumentError naming the key and its domain."""
        if self.kind == "int":
            low, high = (int(v) for v in self.domain.split(".."))
            digits = text.removeprefix("-")  # ASCII digits only ('²' and '١' pass isdigit()), at most 20
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 20) or not low <= int(text) <= high:
                raise InvalidArgumentError(f"{self.name} must_be {self.domain}")
            return int(text)
        if self.kind == "bool":
            if text not in ("true", "false"):
                raise InvalidArgumentError(f"{self.name} must_be true|false")
            return text == "true"
        if self.kind == "enum":
            if text not in self.domain.split("|"):
                raise InvalidArgumentError(f"{self.name} must_be {self.domain}")
            return text
        if not text or len(text) > 4096:
            raise InvalidArgumentError(f"{self.name} must_be a non-empty string of at most 4096 characters")
        return text


def _text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


KEYS: tuple[Key, ...] = (
    Key("game.variant", "enum", "fevga|gioul", "fevga", False, "the game: Fevga or its sister game Gioul"),
    Key("game.release", "enum", "pass|reach", "pass", False, "Fevga rule option (docs/rules.md 9)"),
    Key("game.first_roll", "enum", "fresh|opening_dice", "fresh", False, "rule option of both games (docs/rules.md 9)"),
    Key("game.start_quarter_check", "enum", "each_die|end_of_turn", "each_die", False,
        "Fevga rule option (docs/rules.md 9)"),
    Key("game.ban_prime_before_opponent_mother", "bool", "", False, False, "Fevga rule option (docs/rules.md 9)"),
    Key("game.must_open", "enum", "fifteen_behind|no_playable_roll", "fifteen_behind", False,
        "Fevga rule option (docs/rules.md 9)"),
    Key("engine.ply", "int", f"1..{MAX_PLY}", 1, False,
        "root-inclusive checker-play depth: 1 rates each move by its result (fevga.hint plies)"),
    Key("engine.every_move", "enum", "default|true|false", "default", False,
        "search every move at 2 plies, not only the move filter's (fevga.hint every_move; default: the game's, "
        "every move in Gioul; docs/net.md)"),
    Key("engine.net", "string", "*", "default", False,
        "the net: default (the game's shipped net) or a net file path (of the game of game.variant)"),
    Key("engine.quantised", "bool", "", False, False,
        "evaluate the net in int16 tables: within 0.01 of it, several times faster (docs/net.md)"),
    Key("engine.rollouts", "int", f"0..{MAX_ROLLOUT_GAMES}", 0, False,
        "games per candidate move rolled out by go (0: no rollout)"),
    Key("engine.seed", "int", "0..4294967295", 0, True, "seed of go's rollouts"),
    Key("engine.threads", "int", f"1..{MAX_THREADS}", 1, True, "worker threads of go's rollouts"),
    Key("engine.multipv", "int", f"1..{MAX_MULTIPV}", 3, True, "ranked moves reported in info lines"),
)
KEY_NAMES = {key.name: key for key in KEYS}
_RULE_KEYS = ("release", "first_roll", "start_quarter_check", "ban_prime_before_opponent_mother", "must_open")


@dataclass(frozen=True)
class Ranked:
    """One move of a ranking, with what the engine knows of it (for the mover)."""

    move: Move | GioulMove
    equity: float | None = None
    win: float | None = None
    win_mars: float | None = None
    lose_mars: float | None = None
    diff: float | None = None  # rollouts: the difference to the best and its standard error
    diff_se: float | None = None
    games: int | None = None

    @property
    def notation(self) -> str:
        """The move in the engine's notation (mover's own numbering)."""
        return self.move.notation


@dataclass(frozen=True)
class Choice:
    """The answer to a move request: the ranked moves (best first), how they were judged and
    how long it took."""

    ranking: tuple[Ranked, ...]
    method: str  # "net N-ply", "net N-ply every move", "rollout"
    depth: int
    elapsed: float  # seconds of engine time
    notes: tuple[str, ...] = ()

    @property
    def best(self) -> Move | GioulMove:
        """The move to play."""
        return self.ranking[0].move


@dataclass
class Engine:
    """A session's settings, and the move choice they give. Thread-safe for `choose` with a
    `stop` event: the settings change only between requests."""

    values: dict[str, object] = field(default_factory=lambda: {k.name: k.default for k in KEYS})
    _net: Net | None = None

    def get(self, name: str) -> object:
        """The value of setting `name` (InvalidArgumentError for an unknown key)."""
        if name not in KEY_NAMES:
            raise KeyError(name)
        return self.values[name]

    def set(self, name: str, text: str) -> None:
        """Set `name` from its text value; KeyError for an unknown key, InvalidArgumentError
        (or a FevgaError of the net file) for a bad value. A failed set changes nothing."""
        key = KEY_NAMES[name]
        value = key.parse(text)
        if name == "engine.net":
            self._net = None if value == "default" else Net.load(str(value))
        self.values[name] = value

    def reset(self) -> None:
        """Every setting back to its default."""
        self.values = {k.name: k.default for k in KEYS}
        self._net = None

    @property
    def variant(self) -> str:
        """``fevga`` or ``gioul``."""
        return str(self.values["game.variant"])

    @property
    def rules(self) -> Rules:
        """The rules of the current variant from the rule keys (Gioul uses only first_roll)."""
        options: dict[str, Any] = {name: self.values[f"game.{name}"] for name in _RULE_KEYS}
        if self.variant == "gioul":
            return Rules.gioul(first_roll=options["first_roll"])
        return Rules(**options)

    @property
    def net(self) -> Net:
        """The net of engine.net (loaded when set) for game.variant, else that game's shipped net,
        quantised with engine.quantised; NetGameError when engine.net is a net of the other game."""
        net = net_of(self._net, self.variant)
        return net.quantised() if self.values["engine.quantised"] else net

    def warm_up(self) -> None:
        """Load both games' nets and the bear-off tables now rather than at the first move."""
        self.choose(Position.initial(), (6, 5))
        Net.default("gioul")

    def choose(self, position: Position | GioulPosition, dice: tuple[int, int] | None,
               stop: threading.Event | None = None) -> Choice:
        """The ranked legal moves of `position` with `dice` (a Gioul state with dice pending
        takes ``dice=None``), best first. Raises FevgaError for a finished game or dice that
        do not fit the position, Stopped if `stop` is set during a rollout."""
        started = time.perf_counter()
        gioul = isinstance(position, GioulPosition)
        if position.winner() is not None:
            raise InvalidArgumentError(f"{'Gioul state' if gioul else 'position'} {position.id} is already finished")
        if dice is None and not gioul:
            raise InvalidArgumentError("a Fevga move needs the dice")
        asked = int(self.values["engine.ply"])  # type: ignore[call-overload]
        depth = min(asked, deepest_plies("gioul", True)) if gioul else asked
        notes = () if depth == asked else (f"gioul moves: the Gioul net searches {depth} ply at most "
                                           f"(engine.ply {asked} applies to fevga)",)
        games = self._rollouts()
        if games:
            moves = position.legal_moves(dice, self.rules)
            ranking = rollout_moves(position, dice, games=games, seed=int(self.values["engine.seed"]),  # type: ignore[call-overload]
                                    workers=int(self.values["engine.threads"]), policy="net",  # type: ignore[call-overload]
                                    rules=self.rules, net=self.net, progress=False, cancel=stop,
                                    candidates=min(ROLLOUT_CANDIDATES, len(moves)))
            if stop is not None and stop.is_set():
                raise Stopped
            ranked, method, notes = [_rolled(m) for m in ranking], "rollout", ()
        else:
            ranked, method = self._hinted(position, dice, depth)
        return Choice(tuple(ranked), method, depth, time.perf_counter() - started, notes)

    def every_move(self) -> bool:
        """Whether a ranking searches every move (engine.every_move; default: game.variant's default)."""
        value = self.values["engine.every_move"]
        return every_move_of(self.variant, None if value == "default" else value == "true")

    def _rollouts(self) -> int:
        """Games per move of go's rollouts (0: none)."""
        games = self.values["engine.rollouts"]
        assert isinstance(games, int)  # Key.parse reads the int keys
        return games

    def _hinted(self, position: Position | GioulPosition, dice: tuple[int, int] | None,
                plies: int) -> tuple[list[Ranked], str]:
        """The ranking of `fevga.hint` over the game's net at `plies` plies (every move searched
        as engine.every_move says)."""
        every_move = self.every_move()
        hints: list[Any] = hint(position, dice, plies=plies, rules=self.rules, net=self.net, every_move=every_move)
        ranked = [Ranked(h.move, h.equity, h.evaluation.win, h.evaluation.win_mars, h.evaluation.lose_mars)
                  for h in hints]
        return ranked, f"net {search_name(plies, every_move)}"


def _rolled(m: Any) -> Ranked:
    r = m.result
    return Ranked(m.move, m.equity, r.win, r.win_mars, r.lose_mars, m.diff, m.diff_se, r.games)


def expand_notation(notation: str) -> str:
    """The engine's notation with each ``(n)`` repeat written out, as UBGI's space-separated
    ``from/to`` tokens: ``24/18(2) 13/7`` -> ``24/18 24/18 13/7``.

    >>> expand_notation("6/off(2) 5/3")
    '6/off 6/off 5/3'
    """
    tokens: list[str] = []
    for token in notation.split():
        if token.endswith(")") and "(" in token:
            base, count = token[:-1].split("(")
            tokens.extend([base] * int(count))
        else:
            tokens.append(token)
    return " ".join(tokens)

