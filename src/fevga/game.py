"""Seeded games and matches with pluggable policies, returning complete records.

A policy (fevga.policy) is ``"random"`` (every distinct legal move equally likely),
``"heuristic"`` (greedy on the core's documented evaluation), ``"bearoff"``,
``"lookahead"``, or any callable ``policy(position, dice, moves) -> Move``. Built-in
policies run entirely in the core.

>>> record = play_game(seed=7)
>>> record.winner in (WHITE, BLACK, None) and record.final.is_game_over()
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fevga.errors import IllegalMoveError, InvalidArgumentError, RecordError
from fevga.notation import Step, format_steps
from fevga.position import BLACK, COLOR_NAMES, WHITE, Color, Position
from fevga.net import Net, net_of
from fevga.policy import HEURISTIC_SCALE, TABLE_POLICIES, Policy, chooser, policy_id, policy_name, policy_pair, uses_net
from fevga.rules import Rules, rules_of
from fevga.seeding import SeedLike, master_key, seed_repr, seed_sequence
from fevga_core import game as core_game
from fevga_core.rollout import play_recorded
from fevga.bearoff.core_tables import tables_of

@dataclass(frozen=True)
class Ply:
    """One turn of a game: who moved, the dice, and the steps played (empty for a pass)."""

    turn: Color
    dice: tuple[int, int]
    steps: tuple[Step, ...]

    @property
    def notation(self) -> str:
        """The move in the mover's own numbering (``pass`` if no die could be played)."""
        return format_steps(self.steps)


@dataclass(frozen=True)
class GameRecord:
    """A complete game: start, opening draw, every ply, and the result."""

    seed: int | str
    rules: Rules
    policies: tuple[str, str]
    start: Position
    opening_dice: tuple[int, int] | None
    plies: tuple[Ply, ...]
    final: Position
    winner: Color | None
    points: int
    truncated: bool = False  # stopped before the end (result "truncated")
    resigned: bool = False  # the loser resigned: `winner` and `points` are the resignation's

    @property
    def result(self) -> str:
        """``"white"``, ``"black"`` (a win, or a resignation), ``"draw"`` (a dead position) or
        ``"truncated"`` (stopped before the end)."""
        if self.truncated:
            return "truncated"
        return "draw" if self.winner is None else COLOR_NAMES[self.winner]

    def positions(self) -> list[Position]:
        """The position before each ply, then the final one (replayed through the rules)."""
        out = [self.start if self.opening_dice is None else _with_turn(self.start, self.plies[0].turn if self.plies else 0)]
        for ply in self.plies:
            out.append(_replay(out[-1], ply, self.rules))
        return out

    def log(self) -> str:
        """A readable move log, one line per ply."""
        lines = []
        if self.opening_dice is not None:
            lines.append(f"opening draw: white {self.opening_dice[0]}, black {self.opening_dice[1]}")
        for number, ply in enumerate(self.plies, 1):
            lines.append(f"{number:4d}. {COLOR_NAMES[ply.turn]:5s} {ply.dice[0]}-{ply.dice[1]}: {ply.notation}")
        outcome = self.result
        lines.append(outcome if outcome in ("draw", "truncated") else
                     f"{outcome} wins {self.points} point(s)" + (" (resigned)" if self.resigned else ""))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the whole record; each ply carries the ID of the position it was played in."""
        before = self.positions()
        return {
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "policies": list(self.policies),
            "start": self.start.id,
            "opening_dice": list(self.opening_dice) if self.opening_dice else None,
            "plies": [
                {"turn": COLOR_NAMES[p.turn], "dice": list(p.dice), "move": p.notation,
                 "steps": [list(s) for s in p.steps], "position": before[i].id}
                for i, p in enumerate(self.plies)
            ],
            "final": self.final.id,
            "result": self.result,
            "winner": None if self.winner is None else COLOR_NAMES[self.winner],
            "points": self.points,
            **({"resigned": True} if self.resigned else {}),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """The record of a to_dict() form, every ply replayed and checked (RecordError if not)."""
        from fevga.records import game_from_dict

        return game_from_dict(data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """The record of a to_json() text: ``GameRecord.from_json(r.to_json()) == r``."""
        from fevga.records import game_from_json

        return game_from_json(text)


def _with_turn(position: Position, turn: int) -> Position:
    return Position._trusted(position.counts(WHITE), position.counts(BLACK), turn)


def _replay(position: Position, ply: Ply, rules: Rules) -> Position:
    for move in position.legal_moves(ply.dice, rules):
        if move.steps == ply.steps:
            return move.position
    raise IllegalMoveError(f"record ply {ply.notation!r} with dice {ply.dice} is illegal in {position.id}")


def _play_one(begin: Position, opening: bool, pair: tuple[Policy, Policy], rules: Rules, key: int,
              seed: int | str, max_plies: int, net: Net | None) -> GameRecord:
    """Play one game in the core from `begin` and wrap its record (`net` serves the net policies)."""
    tables = None
    if any(p in TABLE_POLICIES for p in pair):
        tables = tables_of("default")
    winner, points, _, truncated, opening_dice, plies, final = play_recorded(
        begin._row(), rules.flags, policy_id(pair[0]), policy_id(pair[1]), chooser(pair, rules), key,
        opening, max_plies, tables, HEURISTIC_SCALE if tables is not None else 1.0,
        net._core if net is not None and uses_net(pair) else None,
    )
    return GameRecord(
        seed=seed,
        rules=rules,
        policies=(policy_name(pair[0]), policy_name(pair[1])),
        start=begin,
        opening_dice=opening_dice,
        plies=tuple(_ply(row) for row in plies),
        final=Position._from_row(final),
        winner=None if winner < 0 else winner,
        points=int(points),
        truncated=bool(truncated),
    )


def play_game(
    seed: SeedLike = None,
    policy: Policy | tuple[Policy, Policy] = "random",
    rules: Rules | None = None,
    start: Position | None = None,
    max_plies: int = 0,
    net: Net | str | None = None,
) -> GameRecord:
    """Play one seeded game and return its record.

    Without `start` the game begins with the one-die draw of docs/rules.md §2; with `start`, its
    side on roll rolls first. `policy` is one policy or a (white, black) pair.
    `max_plies` > 0 stops the game early (result ``"truncated"``). `net` (a fevga.Net or a
    net file; default: the shipped net) serves the "net" and "net2" policies.
    """
    pair = policy_pair(policy)
    if not isinstance(max_plies, int) or max_plies < 0:
        raise InvalidArgumentError(f"max_plies {max_plies!r} must be a non-negative integer")
    if start is not None and not isinstance(start, Position):
        raise InvalidArgumentError(f"start {repr(start)[:80]} must be a fevga.Position (Gioul: fevga.gioul.play_gioul_game)")
    begin = start or Position.initial()
    if begin.winner() is not None:
        raise InvalidArgumentError(f"start position {begin.id} is already finished")
    sequence = seed_sequence(seed)  # once: seed=None draws the entropy the record keeps
    key = core_game.game_seed_of(master_key(sequence), 0)
    evaluator = net_of(net) if uses_net(pair) else None
    return _play_one(begin, start is None, pair, rules_of(rules), key, seed_repr(sequence), max_plies, evaluator)


def _ply(row: np.ndarray) -> Ply:
    nsteps = int(row[3])
    return Ply(
        turn=int(row[0]),
        dice=(int(row[1]), int(row[2])),
        steps=tuple((int(row[4 + 2 * i]), int(row[5 + 2 * i])) for i in range(nsteps)),
    )


@dataclass(frozen=True)
class MatchRecord:
    """A match to `length` points: its games in order and the final score."""

    length: int
    games: tuple[GameRecord, ...]
    score: tuple[int, int] = field(default=(0, 0))
    players: tuple[str, str] = ("White", "Black")
    seed: int | str | None = None  # the match seed; each game records its own seed

    @property
    def winner(self) -> Color | None:
        """The side that reached `length` points (None if `max_games` ran out first, or for a
        session of unlimited games: length 0)."""
        if self.length <= 0:
            return None
        if self.score[0] >= self.length:
            return WHITE
        return BLACK if self.score[1] >= self.length else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        winner = self.winner
        return {"length": self.length, "seed": self.seed, "score": list(self.score),
                "winner": None if winner is None else COLOR_NAMES[winner],
                "players": list(self.players),
                "games": [g.to_dict() for g in self.games]}

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> MatchRecord:
        """The record of a to_dict() form, every game replayed and checked (RecordError if not)."""
        from fevga.records import match_from_dict

        match = match_from_dict(data)
        if not isinstance(match, MatchRecord):
            raise RecordError("a Gioul match record (\"game\": \"gioul\"): read it with fevga.gioul.GioulMatchRecord")
        return match

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        """The record of a to_json() text: ``MatchRecord.from_json(m.to_json()) == m``."""
        from fevga.records import read_json

        return cls.from_dict(read_json(text))

    def to_text(self) -> str:
        """The plain-text match format (docs/records.md)."""
        from fevga.records import write_match

        return write_match(self)


def _at_score(pair: tuple[Policy, Policy], score: tuple[int, int], length: int) -> tuple[Policy, Policy]:
    """Score-aware policies (those with ``at_score``, e.g. fevga.match.EvaluatorPolicy) for one game."""
    out = [p.at_score(score, length) if callable(getattr(p, "at_score", None)) else p  # type: ignore[union-attr]
           for p in pair]
    return (out[0], out[1])


def play_match(
    length: int,
    seed: SeedLike = None,
    policy: Policy | tuple[Policy, Policy] = "random",
    rules: Rules | None = None,
    max_games: int = 10_000,
    net: Net | str | None = None,
) -> MatchRecord:
    """Play a match to `length` points: the winner of a game starts the next one (rolling
    two dice); the first game and any game after a draw start with the one-die draw.
    `net` serves the "net" and "net2" policies (default: the shipped net).

    Game i is played with its own seed ``game_seed_of(match master key, i)``, recorded in its
    GameRecord: ``play_game(seed=g.seed, policy=..., rules=..., start=None if
    g.opening_dice else g.start)`` replays it exactly.
    """
    if not isinstance(length, int) or length < 1:
        raise InvalidArgumentError(f"match length {length!r} must be a positive integer")
    if not isinstance(max_games, int) or max_games < 1:
        raise InvalidArgumentError(f"max_games {max_games!r} must be a positive integer")
    rules = rules_of(rules)
    pair = policy_pair(policy)
    evaluator = net_of(net) if uses_net(pair) else None
    sequence = seed_sequence(seed)
    master, seed_value = master_key(sequence), seed_repr(sequence)
    score = [0, 0]
    games: list[GameRecord] = []
    starter: int | None = None
    initial = Position.initial()
    policies = pair  # a policy with at_score(score, length) plays each game at its score (fevga.match)
    for index in range(max_games):
        pair = _at_score(policies, (score[0], score[1]), length)
        begin = initial if starter is None else _with_turn(initial, starter)
        game_seed = int(core_game.game_seed_of(master, index))
        key = core_game.game_seed_of(master_key(game_seed), 0)  # what play_game(seed=game_seed) uses
        record = _play_one(begin, starter is None, pair, rules, key, game_seed, 0, evaluator)
        games.append(record)
        if record.winner is None:
            starter = None
            continue
        score[record.winner] += record.points
        starter = record.winner
        if score[record.winner] >= length:
            break
    return MatchRecord(length=length, games=tuple(games), score=(score[0], score[1]), seed=seed_value)
