"""Game and match records in and out: the engine's JSON and a plain-text match format.

The JSON forms are `GameRecord.to_json` / `MatchRecord.to_json`; `game_from_json` and
`match_from_json` read them back exactly (``GameRecord.from_json(r.to_json()) == r``),
replaying every ply through the rules. The text format, modelled on gnubg's ``.mat``
export, is specified in docs/records.md; `read_match` parses it and `write_match` writes
it. Every problem raises `RecordError` naming the line and column (text) or the ply (JSON).

>>> from fevga.game import play_match
>>> match = play_match(3, seed=1, policy="heuristic")
>>> read_match(write_match(match)).games[0].plies == match.games[0].plies
True
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Union

import json
from fevga.errors import FevgaError, IllegalMoveError, InvalidArgumentError, RecordError
from fevga.files import atomic_write
from fevga.gioul import GioulPosition
from fevga.inputs import file_path, parse_json, read_file
from fevga.limits import MAX_GAME_PLIES as MAX_PLIES, MAX_LENGTH, MAX_MATCH_GAMES as MAX_GAMES
from fevga.notation import Step, format_steps, parse_dice
from fevga.position import BLACK, COLOR_NAMES, NUM_CHECKERS, WHITE, Color, Position
from fevga.rules import Rules


__all__ = [
    "AnyGame",
    "AnyMatch",
    "Decision",
    "GameRecord",
    "GioulGameRecord",
    "GioulMatchRecord",
    "MatchRecord",
    "Ply",
    "Record",
    "game_from_dict",
    "game_from_json",
    "load_record",
    "match_from_dict",
    "match_from_json",
    "parse_record",
    "read_match",
    "save_record",
    "session_of",
    "write_match",
]

_COLOR_OF = {name: color for color, name in enumerate(COLOR_NAMES)}

MAX_RECORD_BYTES = 64 << 20  # a record file (a season of 10,000 games is about 30 MB of JSON)


# ---------------------------------------------------------------------------------------
# The records of both games


class _Outcome:
    """What the game records of both games share: how the game ended, and the JSON text."""

    if TYPE_CHECKING:
        final: Position | GioulPosition
        winner: Color | None
        points: int
        truncated: bool
        resigned: bool

        def to_dict(self) -> dict[str, Any]: ...

    @property
    def result(self) -> str:
        """``"white"``, ``"black"`` (a win, or a resignation), ``"draw"`` (a dead position) or
        ``"truncated"`` (stopped before the end)."""
        if self.truncated:
            return "truncated"
        return "draw" if self.winner is None else COLOR_NAMES[self.winner]

    def _outcome(self) -> dict[str, Any]:
        """The end of the record's JSON form: final position, result, winner, points."""
        return {"final": self.final.id, "result": self.result,
                "winner": None if self.winner is None else COLOR_NAMES[self.winner], "points": self.points,
                **({"resigned": True} if self.resigned else {})}

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)


class _Score:
    """What the match records of both games share: the match winner, and the JSON text."""

    if TYPE_CHECKING:
        length: int
        score: tuple[int, int]

        def to_dict(self) -> dict[str, Any]: ...

    @property
    def winner(self) -> Color | None:
        """The side that reached `length` points (None if `max_games` ran out first, or for a
        session of unlimited games: length 0)."""
        if self.length <= 0:
            return None
        if self.score[0] >= self.length:
            return WHITE
        return BLACK if self.score[1] >= self.length else None

    def to_json(self, indent: int | None = None) -> str:
        """The JSON text of to_dict()."""
        return json.dumps(self.to_dict(), indent=indent)


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
class GameRecord(_Outcome):
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
            **self._outcome(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """The record of a to_dict() form, every ply replayed and checked (RecordError if not)."""
        return game_from_dict(data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """The record of a to_json() text: ``GameRecord.from_json(r.to_json()) == r``."""
        return game_from_json(text)


def _with_turn(position: Position, turn: int) -> Position:
    return Position._trusted(position.counts(WHITE), position.counts(BLACK), turn)


def _replay(position: Position, ply: Ply, rules: Rules) -> Position:
    for move in position.legal_moves(ply.dice, rules):
        if move.steps == ply.steps:
            return move.position
    raise IllegalMoveError(f"record ply {ply.notation!r} with dice {ply.dice} is illegal in {position.id}")


@dataclass(frozen=True)
class MatchRecord(_Score):
    """A match to `length` points: its games in order and the final score."""

    length: int
    games: tuple[GameRecord, ...]
    score: tuple[int, int] = field(default=(0, 0))
    players: tuple[str, str] = ("White", "Black")
    seed: int | str | None = None  # the match seed; each game records its own seed

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        winner = self.winner
        return {"length": self.length, "seed": self.seed, "score": list(self.score),
                "winner": None if winner is None else COLOR_NAMES[winner],
                "players": list(self.players),
                "games": [g.to_dict() for g in self.games]}

    @classmethod
    def from_dict(cls, data: Any) -> MatchRecord:
        """The record of a to_dict() form, every game replayed and checked (RecordError if not)."""
        match = match_from_dict(data)
        if not isinstance(match, MatchRecord):
            raise RecordError("a Gioul match record (\"game\": \"gioul\"): read it with fevga.records.GioulMatchRecord")
        return match

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        """The record of a to_json() text: ``MatchRecord.from_json(m.to_json()) == m``."""
        return cls.from_dict(read_json(text))

    def to_text(self) -> str:
        """The plain-text match format (docs/records.md)."""
        return write_match(self)


@dataclass(frozen=True)
class Decision:
    """One decision of a game: who played which dice, why, and what."""

    mover: Color
    roller: Color
    roll: tuple[int, int] | None  # the dice rolled, for the first decision of a roll
    dice: tuple[int, ...]  # the dice of this decision
    kind: str  # "roll", "block" (the same player's next block of a chain) or "hand-over"
    steps: tuple[Step, ...]
    choices: int  # legal moves the decision had

    @property
    def notation(self) -> str:
        """The move in the mover's own numbering (``pass`` if no die could be played)."""
        return format_steps(self.steps)


@dataclass(frozen=True)
class GioulGameRecord(_Outcome):
    """A complete seeded Gioul game: every decision and the result. `start` is None for a
    game begun with the one-die draw, else the state it was played on from (in a match, the
    winner of the previous game starts the next one with two fresh dice)."""

    seed: int | str
    rules: Rules
    policies: tuple[str, str]
    decisions: tuple[Decision, ...]
    final: GioulPosition
    winner: Color | None
    points: int
    start: GioulPosition | None = None
    truncated: bool = False  # stopped before the end (result "truncated")
    resigned: bool = False  # the loser resigned: `winner` and `points` are the resignation's

    def log(self) -> str:
        """A readable log, one line per decision."""
        lines = []
        for number, d in enumerate(self.decisions, 1):
            dice = " ".join(map(str, d.dice)) if len(d.dice) != 2 or d.dice[0] == d.dice[1] else f"{d.dice[0]}-{d.dice[1]}"
            why = {
                "roll": f"rolls {d.roll[0]}-{d.roll[1]}" if d.roll else "rolls",
                "block": "next chain block",
                "hand-over": f"handed over ({COLOR_NAMES[d.roller]}'s roll)",
            }[d.kind]
            lines.append(f"{number:4d}. {COLOR_NAMES[d.mover]:5s} {why:28s} {dice:9s}: {d.notation}")
        lines.append(self.result if self.winner is None else f"{self.result} wins {self.points} point(s)"
                     + (" (resigned)" if self.resigned else ""))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of the whole record."""
        return {
            "game": "gioul",
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "policies": list(self.policies),
            "start": None if self.start is None else self.start.id,
            "decisions": [
                {
                    "player": COLOR_NAMES[d.mover],
                    "roller": COLOR_NAMES[d.roller],
                    "roll": list(d.roll) if d.roll else None,
                    "dice": list(d.dice),
                    "kind": d.kind,
                    "move": d.notation,
                    "steps": [list(s) for s in d.steps],
                }
                for d in self.decisions
            ],
            **self._outcome(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> GioulGameRecord:
        """The record of a to_dict() form, every decision replayed and checked (RecordError)."""
        return gioul_game_from_dict(data)

    @classmethod
    def from_json(cls, text: str) -> GioulGameRecord:
        """The record of a to_json() text: ``GioulGameRecord.from_json(r.to_json()) == r``."""
        return gioul_game_from_dict(read_json(text))

    def positions(self) -> list[GioulPosition]:
        """The state before each decision, then the final one, replayed through the rules
        (the first is `start`, or the initial position with the starter to roll)."""
        if self.start is not None:
            start = self.start
        else:
            first = self.decisions[0].mover if self.decisions else WHITE
            start = GioulPosition.initial(first)
        out = [start]
        for d in self.decisions:
            for move in out[-1].legal_moves(d.roll):
                if move.steps == d.steps:
                    out.append(move.position)
                    break
            else:
                raise IllegalMoveError(f"recorded decision {d.notation!r} is illegal in {out[-1].id}")
        return out


@dataclass(frozen=True)
class GioulMatchRecord(_Score):
    """A Gioul match to `length` points: its games in order and the final score (the
    fields and methods of fevga.records.MatchRecord, with GioulGameRecord games)."""

    length: int
    games: tuple[GioulGameRecord, ...]
    score: tuple[int, int] = (0, 0)
    players: tuple[str, str] = ("White", "Black")
    seed: int | str | None = None  # the match seed; each game records its own seed

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        winner = self.winner
        return {"game": "gioul", "length": self.length, "seed": self.seed, "score": list(self.score),
                "winner": None if winner is None else COLOR_NAMES[winner], "players": list(self.players),
                "games": [g.to_dict() for g in self.games]}

    @classmethod
    def from_dict(cls, data: Any) -> GioulMatchRecord:
        """The record of a to_dict() form, every game replayed and the score checked (RecordError)."""
        if not isinstance(data, dict) or data.get("game") != "gioul":
            raise RecordError("not a Gioul match record (its \"game\" field must be \"gioul\")")
        match = match_from_dict(data)
        assert isinstance(match, GioulMatchRecord)
        return match

    @classmethod
    def from_json(cls, text: str) -> GioulMatchRecord:
        """The record of a to_json() text: ``GioulMatchRecord.from_json(m.to_json()) == m``."""
        return cls.from_dict(read_json(text))

    def log(self) -> str:
        """One line per game and the final score."""
        lines = [f"{self.length} point Gioul match, seed {self.seed}"]
        score = [0, 0]
        for number, game in enumerate(self.games, 1):
            if game.winner is not None:
                score[game.winner] += game.points
            begun = "one-die draw" if game.start is None else f"{COLOR_NAMES[game.start.turn]} starts"
            lines.append(f"  game {number} ({begun}): {game.result}" + (f" {game.points} point(s)" if game.points else "")
                         + f", {len(game.decisions)} decisions; score {score[0]}-{score[1]}")
        lines.append(f"final score {self.score[0]}-{self.score[1]}")
        return "\n".join(lines)



AnyGame = Union[GameRecord, GioulGameRecord]
AnyMatch = Union[MatchRecord, GioulMatchRecord]
Record = Union[AnyGame, AnyMatch]


# ---------------------------------------------------------------------------------------
# JSON


def _need(data: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise RecordError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RecordError(f"{where}: field {key!r} = {value!r} has the wrong type")
    return value


def _rules_from(data: Any, where: str) -> Rules:
    if data is None:
        return Rules()
    if not isinstance(data, dict):
        raise RecordError(f"{where}: rules {data!r} must be an object of rule options")
    known = {f.name for f in fields(Rules)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise RecordError(f"{where}: unknown rule option(s) {', '.join(unknown)}")
    try:
        return Rules(**data)
    except FevgaError as exc:
        raise RecordError(f"{where}: {exc}") from exc


def _position(text: Any, where: str) -> Position:
    if not isinstance(text, str):
        raise RecordError(f"{where}: position {text!r} must be a position ID")
    try:
        return Position.from_id(text)
    except FevgaError as exc:
        raise RecordError(f"{where}: {exc}") from exc


def _dice(value: Any, where: str) -> tuple[int, int]:
    try:
        return parse_dice(tuple(value) if isinstance(value, list) else value)
    except FevgaError as exc:
        raise RecordError(f"{where}: {exc}") from exc


def _ply_from(data: Any, position: Position, rules: Rules, where: str) -> tuple[Ply, Position]:
    """One JSON ply replayed from `position`: (the ply, the position after it)."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a ply must be an object, not {data!r}")
    turn_name = _need(data, "turn", str, where)
    if turn_name not in _COLOR_OF:
        raise RecordError(f"{where}: turn {turn_name!r} must be 'white' or 'black'")
    turn = _COLOR_OF[turn_name]
    if turn != position.turn:
        raise RecordError(f"{where}: {turn_name} moves, but {COLOR_NAMES[position.turn]} is on roll in {position.id}")
    if "position" in data and data["position"] != position.id:
        raise RecordError(f"{where}: position {data['position']!r} does not match the replayed position {position.id}")
    dice = _dice(_need(data, "dice", list, where), where)
    moves = position.legal_moves(dice, rules)
    if "steps" in data:
        raw = _need(data, "steps", list, where)
        try:
            steps = tuple((int(a), int(b)) for a, b in raw)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{where}: steps {raw!r} must be a list of [from, to] pairs") from exc
        for move in moves:
            if move.steps == steps:
                if "move" in data and data["move"] != move.notation:
                    raise RecordError(f"{where}: move {data['move']!r} does not match its steps ({move.notation})")
                return Ply(turn, dice, steps), move.position
        legal = ", ".join(m.notation for m in moves)
        raise RecordError(f"{where}: steps {format_steps(steps)} with dice {dice[0]}-{dice[1]} are illegal in "
                          f"{position.id}; legal: {legal}")
    notation = _need(data, "move", str, where)
    try:
        move = position.parse_move(notation, dice, rules)
    except FevgaError as exc:
        raise RecordError(f"{where}: {exc}") from exc
    return Ply(turn, dice, move.steps), move.position


def game_from_dict(data: Any, where: str = "game") -> GameRecord:
    """A GameRecord from its to_dict() form; every ply is replayed and checked."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a game record must be an object, not {type(data).__name__}")
    rules = _rules_from(data.get("rules"), where)
    if rules.game != "fevga":
        raise RecordError(f"{where}: rules of {rules.game.capitalize()} in a Fevga game record (a Gioul record "
                          "says \"game\": \"gioul\")")
    seed = data.get("seed", "")
    if not isinstance(seed, (int, str)) or isinstance(seed, bool):
        raise RecordError(f"{where}: seed {seed!r} must be an integer or a string")
    policies = data.get("policies", ["", ""])
    if not (isinstance(policies, list) and len(policies) == 2 and all(isinstance(p, str) for p in policies)):
        raise RecordError(f"{where}: policies {policies!r} must be two strings")
    start = _position(data.get("start", Position.initial().id), where)
    opening = data.get("opening_dice")
    opening_dice = None if opening is None else _dice(opening, f"{where}: opening_dice")
    if opening_dice is not None and opening_dice[0] == opening_dice[1]:
        raise RecordError(f"{where}: opening draw {opening_dice} is a tie (ties are rolled again)")
    if "plies" not in data:
        known = "', '".join(("plies", "start", "rules", "final", "result"))
        raise RecordError(f"{where}: not a fevga game record: no 'plies' field (a game record has '{known}', ...; "
                          f"found {', '.join(map(repr, list(data)[:5])) or 'an empty object'})")
    if data.get("game", "fevga") != "fevga":
        raise RecordError(f"{where}: a {str(data.get('game'))[:20]!r} record, not a Fevga game record")
    raw_plies = data["plies"]
    if not isinstance(raw_plies, list):
        raise RecordError(f"{where}: plies must be a list")
    if len(raw_plies) > MAX_PLIES:
        raise RecordError(f"{where}: {len(raw_plies)} plies, over the limit of {MAX_PLIES} for one game")
    if not raw_plies and data.get("result") != "truncated" and data.get("resigned") is not True:
        raise RecordError(f"{where}: a game record without plies must say \"result\": \"truncated\" (a game "
                          "that was not played) or \"resigned\": true")
    if opening_dice is not None:
        first_turn = WHITE if opening_dice[0] > opening_dice[1] else BLACK
        current = _with_turn(start, first_turn)
    else:
        current = start
    plies = []
    for number, raw in enumerate(raw_plies, 1):
        if current.is_game_over(rules):
            raise RecordError(f"{where}, ply {number}: the game is already over in {current.id}")
        ply, current = _ply_from(raw, current, rules, f"{where}, ply {number}")
        plies.append(ply)
    final = _position(data.get("final", current.id), where)
    if final != current:
        raise RecordError(f"{where}: final position {final.id} does not match the replayed {current.id}")
    result = data.get("result")
    if data.get("resigned", False) is not False:
        resigner, conceded = _resignation(data, current, rules, where)
        return GameRecord(seed=seed, rules=rules, policies=(policies[0], policies[1]), start=start,
                          opening_dice=opening_dice, plies=tuple(plies), final=final, winner=resigner,
                          points=conceded, resigned=True)
    winner = current.winner()
    truncated = not current.is_game_over(rules)
    expected = "truncated" if truncated else ("draw" if winner is None else COLOR_NAMES[winner])
    if result is not None and result != expected:
        raise RecordError(f"{where}: result {result!r} does not match the replay ({expected})")
    if truncated and result != "truncated" and raw_plies:
        raise RecordError(f"{where}: the game is not over after its last ply in {current.id}")
    points = current.points()
    if "points" in data and data["points"] != points:
        raise RecordError(f"{where}: points {data['points']!r} do not match the replay ({points})")
    return GameRecord(seed=seed, rules=rules, policies=(policies[0], policies[1]), start=start,
                      opening_dice=opening_dice, plies=tuple(plies), final=final, winner=winner,
                      points=points, truncated=truncated)


def _resignation(data: dict[str, Any], final: Any, rules: Rules | None, where: str) -> tuple[Color, int]:
    """(winner, points) of a resigned game's record (``"resigned": true``), checked against its
    replayed final position (Fevga or Gioul): a game still in play, won by the side not on turn
    (resignations are offered on one's own turn), 1 point or, while the loser has no checker off, 2."""
    if data.get("resigned") is not True:
        raise RecordError(f"{where}: resigned {data.get('resigned')!r} must be true or absent")
    over = final.is_game_over(rules)
    if over:
        raise RecordError(f"{where}: resigned, but the game is over in {final.id}")
    winner_name = data.get("winner")
    if winner_name not in _COLOR_OF:
        raise RecordError(f"{where}: a resigned game needs its winner, 'white' or 'black', not {winner_name!r}")
    winner = _COLOR_OF[winner_name]
    if winner == final.turn:
        raise RecordError(f"{where}: {winner_name} is on turn in {final.id}, so it cannot have won by resignation")
    points = data.get("points")
    most = 1 if final.counts(1 - winner)[0] else 2
    if not isinstance(points, int) or isinstance(points, bool) or points not in range(1, most + 1):
        raise RecordError(f"{where}: resigned points {points!r} must be 1" + (" or 2" if most == 2 else
                          " (the loser has borne off a checker: no mars)"))
    if data.get("result", winner_name) != winner_name:
        raise RecordError(f"{where}: result {data.get('result')!r} does not match the resignation ({winner_name})")
    return winner, int(points)


def gioul_game_from_dict(data: Any, where: str = "game") -> GioulGameRecord:
    """A GioulGameRecord from its to_dict() form: every decision replayed through the rules
    and every recorded field checked against the replay (RecordError names the first that
    differs)."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a Gioul game record must be an object, not {type(data).__name__}")
    if data.get("game") != "gioul":
        raise RecordError(f"{where}: not a Gioul game record (game {data.get('game')!r})")
    if "decisions" not in data:
        raise RecordError(f"{where}: not a Gioul game record: no 'decisions' field (a Gioul game record has "
                          "'decisions', 'rules', 'final', 'result', ...)")
    seed = data.get("seed", "")
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise RecordError(f"{where}: seed {seed!r} must be an integer or a string")
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, dict) or raw_rules.get("game") != "gioul":
        raise RecordError(f"{where}: rules {raw_rules!r} are not Gioul's")
    rules = _rules_from(raw_rules, where)
    policies = data.get("policies", ["", ""])
    if not (isinstance(policies, list) and len(policies) == 2 and all(isinstance(p, str) for p in policies)):
        raise RecordError(f"{where}: policies {policies!r} must be two strings")
    raw_start = data.get("start")
    start: GioulPosition | None = None
    if raw_start is not None:
        try:
            start = GioulPosition.from_id(raw_start)
        except FevgaError as exc:
            raise RecordError(f"{where}: start {raw_start!r}: {exc}") from exc
    raw_decisions = _need(data, "decisions", list, where)
    if not raw_decisions and start is None:
        raise RecordError(f"{where}: a game begun with the one-die draw has at least one decision")
    decisions: list[Decision] = []
    state = start
    previous: int | None = None
    for number, raw in enumerate(raw_decisions, 1):
        at = f"{where}, decision {number}"
        if not isinstance(raw, dict):
            raise RecordError(f"{at}: must be an object")
        try:
            mover = COLOR_NAMES.index(raw["player"])
            roller = COLOR_NAMES.index(raw["roller"])
            roll = None if raw["roll"] is None else (int(raw["roll"][0]), int(raw["roll"][1]))
            steps = tuple((int(a), int(b)) for a, b in raw["steps"])
            dice = tuple(int(d) for d in raw["dice"])
            kind = str(raw["kind"])
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise RecordError(f"{at}: malformed decision ({exc})") from None
        if state is None:
            state = GioulPosition.initial(mover)
        if state.is_game_over():
            raise RecordError(f"{at}: the game was already over")
        try:
            moves = state.legal_moves(roll)
            holding = state.rolled(roll) if roll is not None else state
        except FevgaError as exc:
            raise RecordError(f"{at}: {exc}") from exc
        expected_kind = "roll" if roll is not None else ("block" if previous == mover else "hand-over")
        checks = (("player", state.turn, mover), ("roller", holding.roller, roller),
                  ("dice", holding.decision_dice, dice), ("kind", expected_kind, kind))
        for name, replayed, recorded in checks:
            if replayed != recorded:
                raise RecordError(f"{at}: {name} {recorded!r} does not match the replay ({replayed!r})")
        chosen = next((m for m in moves if m.steps == steps), None)
        if chosen is None:
            raise RecordError(f"{at}: move {format_steps(steps)!r} is illegal in {state.id}")
        decisions.append(Decision(mover, roller, roll, dice, kind, steps, len(moves)))
        previous = mover
        state = chosen.position
    assert state is not None
    if data.get("resigned", False) is not False:
        resigner, conceded = _resignation(data, state, None, where)
        return GioulGameRecord(seed, rules, (policies[0], policies[1]), tuple(decisions), state, resigner, conceded,
                               start, resigned=True)
    if not state.is_game_over():
        if data.get("result") == "truncated":
            if data.get("final", state.id) != state.id or data.get("winner") is not None or data.get("points", 0):
                raise RecordError(f"{where}: an unfinished game has its replayed final {state.id}, no winner, 0 points")
            return GioulGameRecord(seed, rules, (policies[0], policies[1]), tuple(decisions), state, None, 0, start,
                                   truncated=True)
        raise RecordError(f"{where}: the game is not finished after its decisions ({state.id}); an unfinished "
                          "game says \"result\": \"truncated\"")
    winner, points = state.winner(), state.points()
    outcome = (data.get("final"), data.get("winner"), data.get("points"))
    replay = (state.id, None if winner is None else COLOR_NAMES[winner], points)
    if outcome != replay:
        raise RecordError(f"{where}: final, winner, points {outcome!r} do not match the replay {replay!r}")
    return GioulGameRecord(seed, rules, (policies[0], policies[1]), tuple(decisions), state, winner, points, start)


def _loads(text: str | bytes, source: str = "") -> Any:
    """The JSON value of a record text, within fevga.inputs' limits (depth, numbers)."""
    if not isinstance(text, (str, bytes)):
        raise RecordError(f"record JSON must be text, not {type(text).__name__}")

    def refused(message: str, line: int | None, column: int | None) -> RecordError:
        if line is None and source:
            return RecordError(f"{source}: {message}")
        return RecordError(message, line, column, source)

    return parse_json(text, refused, "JSON")


def game_from_json(text: str) -> GameRecord:
    """A GameRecord from its to_json() text."""
    return game_from_dict(_loads(text))


def match_from_dict(data: Any) -> AnyMatch:
    """A MatchRecord (a GioulMatchRecord for ``"game": "gioul"``) from its to_dict() form;
    the score is recomputed and checked."""
    if not isinstance(data, dict):
        raise RecordError(f"a match record must be an object, not {type(data).__name__}")
    length = _need(data, "length", int, "match")
    if not 0 <= length <= MAX_LENGTH:
        raise RecordError(f"match: length {length} must be 0 (a session without a target) to {MAX_LENGTH}")
    raw_games = _need(data, "games", list, "match")
    if not raw_games:
        raise RecordError("match: 'games' is empty: a match record holds at least one game")
    if len(raw_games) > MAX_GAMES:
        raise RecordError(f"match: {len(raw_games)} games, over the limit of {MAX_GAMES}")
    gioul = data.get("game", "fevga") == "gioul"
    if not gioul and data.get("game", "fevga") != "fevga":
        raise RecordError(f"match: game {str(data.get('game'))[:20]!r} must be 'fevga' or 'gioul'")
    read_game = gioul_game_from_dict if gioul else game_from_dict
    games = tuple(read_game(g, f"game {i}") for i, g in enumerate(raw_games, 1))
    score = [0, 0]
    for number, game in enumerate(games, 1):
        if length > 0 and max(score) >= length:
            raise RecordError(f"match: game {number} is played after the match was won ({score[0]}-{score[1]} to "
                              f"{length})")
        if game.winner is not None:
            score[game.winner] += game.points
    if "score" in data and data["score"] != score:
        raise RecordError(f"match: score {data['score']!r} does not match the games ({score})")
    players = data.get("players", ["White", "Black"])
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
        raise RecordError(f"match: players {players!r} must be two strings")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        raise RecordError(f"match: seed {seed!r} must be an integer, a string or null")
    kind = GioulMatchRecord if gioul else MatchRecord
    return kind(length, games, (score[0], score[1]), (players[0], players[1]), seed)  # type: ignore[arg-type]


def match_from_json(text: str) -> AnyMatch:
    """A MatchRecord from its to_json() text."""
    return match_from_dict(_loads(text))


# ---------------------------------------------------------------------------------------
# The text match format (docs/records.md)

RIGHT_COLUMN = 40  # where Black's turn starts on a written turn line (0-based)
_RIGHT_MIN = 20    # a first turn starting at or beyond this column is in Black's column


def _turn_text(ply: Ply) -> str:
    notation = "" if not ply.steps else ply.notation
    return f"{ply.dice[0]}{ply.dice[1]}: {notation}".rstrip()


def _roll_text(roll: list[Decision]) -> str:
    """A Gioul roll: its dice, then its decisions, a block of the same player's chain after
    ``|`` and dice handed over to the other player after ``>`` (docs/records.md)."""
    first = roll[0]
    assert first.roll is not None
    parts = [f"{first.roll[0]}{first.roll[1]}: {'' if not first.steps else first.notation}".rstrip()]
    if len(roll) > 1 and not first.steps:
        parts[0] += " pass"
    for decision in roll[1:]:
        parts.append(f"{'|' if decision.kind == 'block' else '>'} {decision.notation}")
    return " ".join(parts)


def _turns(game: AnyGame) -> list[tuple[Color, str]]:
    """(the player whose roll it is, its text) of each roll of a game, in order."""
    if isinstance(game, GameRecord):
        return [(ply.turn, _turn_text(ply)) for ply in game.plies]
    rolls: list[list[Decision]] = []
    for decision in game.decisions:
        if decision.roll is not None or not rolls:
            rolls.append([decision])
        else:
            rolls[-1].append(decision)
    return [(roll[0].roller, _roll_text(roll)) for roll in rolls]


def _start_line(game: AnyGame, starter: Color | None) -> str | None:
    """The ID a game's ``Start:`` line gives, or None where the reader finds the start itself:
    Fevga's initial board, a Gioul game begun with the draw (start None) or by `starter` (the
    winner of the game before) from the initial board."""
    if isinstance(game, GameRecord):
        initial = Position.initial()
        board = (game.start.counts(WHITE), game.start.counts(BLACK))
        return None if board == (initial.counts(WHITE), initial.counts(BLACK)) else game.start.id
    if game.start is None or (starter is not None and game.start == GioulPosition.initial(starter)):
        return None
    if game.start.pending:
        raise RecordError(f"game from {game.start.id} starts in the middle of a roll: the text format starts a game "
                          "between two rolls; save it as JSON")
    return game.start.id


def _rules_text(rules: Rules) -> str:
    if rules == Rules():
        return "default"
    if rules == Rules.strict():
        return "strict"
    default = (Rules.gioul() if rules.game == "gioul" else Rules()).to_dict()
    changed = " ".join(f"{k}={v}" for k, v in rules.to_dict().items() if default[k] != v)
    return f"game=gioul {changed}".rstrip() if rules.game == "gioul" else changed


def write_match(record: Record, players: tuple[str, str] | None = None) -> str:
    """The text form of a match (or of one game, written as a session of one game), of
    either game: a Gioul record says ``Rules: game=gioul``."""
    if not isinstance(record, (GameRecord, MatchRecord, GioulGameRecord, GioulMatchRecord)):
        raise InvalidArgumentError(f"record {repr(record)[:60]} must be a fevga GameRecord or MatchRecord (or a "
                                   "Gioul one)")
    match = record if isinstance(record, (MatchRecord, GioulMatchRecord)) else session_of(record)
    names = players or match.players
    for name in names:
        if not name or ":" in name or "\n" in name or name != name.strip():
            raise RecordError(f"player name {name!r} must be non-empty, without ':' or surrounding spaces")
    rules = match.games[0].rules if match.games else Rules()
    out = ["; fevga match record (docs/records.md)"]
    seeds = {str(g.seed) for g in match.games if g.seed != ""}
    if seeds:
        out.append(f"; seed {', '.join(sorted(seeds))}; policies {'/'.join(match.games[0].policies)}")
    out.append(f" {match.length} point match")
    out.append(f" Rules: {_rules_text(rules)}")
    score = [0, 0]
    games: tuple[AnyGame, ...] = match.games
    starter: Color | None = None  # the winner of the game before, who starts the next one
    for index, game in enumerate(games, 1):
        if game.rules != rules:
            raise RecordError(f"game {index} is played under other rules than game 1; a match has one rule set")
        out.append("")
        out.append(f" Game {index}")
        out.append(f"{_column(f' {names[0]} : {score[0]}')}{names[1]} : {score[1]}")
        start = _start_line(game, starter)
        if start is not None:
            out.append(f" Start: {start}")
        if isinstance(game, GameRecord) and game.opening_dice is not None:
            out.append(f" Opening draw: White {game.opening_dice[0]}, Black {game.opening_dice[1]}")
        lines: list[tuple[str | None, str | None]] = []
        for roller, text in _turns(game):
            if roller == WHITE or not lines or lines[-1][1] is not None:
                lines.append((text, None) if roller == WHITE else (None, text))
            else:
                lines[-1] = (lines[-1][0], text)
        for number, (white, black) in enumerate(lines, 1):
            left_text = f"{number:3d}) " + ("" if white is None else white)
            line = left_text if black is None else f"{_column(left_text)}{black}"
            out.append(line.rstrip())
        starter = game.winner
        if game.winner is not None:
            score[game.winner] += game.points
            ends = match.length > 0 and score[game.winner] >= match.length
            plural = "point" if game.points == 1 else "points"
            out.append(f"      {names[game.winner]} wins {game.points} {plural}" + (" and the match" if ends else "")
                       + (" (resigned)" if game.resigned else ""))
        elif game.truncated:
            out.append("      ; unfinished: stopped before the end of the game")
        else:
            out.append("      Draw (dead position)")
    return "\n".join(out) + "\n"


def _column(left: str) -> str:
    """`left` padded to Black's column (at least two spaces, however long it is)."""
    return f"{left:<{RIGHT_COLUMN}}" if len(left) <= RIGHT_COLUMN - 2 else left + "  "


def session_of(game: AnyGame, *more: AnyGame) -> AnyMatch:
    """A session (a match of length 0) holding `game` and `more` games of the same game, its
    score their points."""
    games = (game, *more)
    if isinstance(game, GioulGameRecord):
        return GioulMatchRecord(length=0, games=games, score=_score_of(games))  # type: ignore[arg-type]
    return MatchRecord(length=0, games=games, score=_score_of(games))  # type: ignore[arg-type]


def _score_of(games: tuple[AnyGame, ...]) -> tuple[int, int]:
    score = [0, 0]
    for game in games:
        if game.winner is not None:
            score[game.winner] += game.points
    return (score[0], score[1])


_LENGTH = re.compile(r"^\s*(\d+)\s+points?\s+match\s*$", re.IGNORECASE | re.ASCII)
_RULES = re.compile(r"^\s*rules\s*:\s*(.*?)\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*game\s+(\d+)\s*$", re.IGNORECASE | re.ASCII)
_SCORE = re.compile(r"^\s*(\S(?:[^:]*\S)?)\s*:\s*(\d+)\s+(\S(?:[^:]*\S)?)\s*:\s*(\d+)\s*$", re.ASCII)
_OPENING = re.compile(r"^\s*opening(?:\s+draw)?\s*:\s*white\s+(\d)\s*,?\s*black\s+(\d)\s*$", re.IGNORECASE | re.ASCII)
_START = re.compile(r"^\s*start\s*:\s*(\S+)\s*$", re.IGNORECASE)
_TURN_LINE = re.compile(r"^\s*(\d+)\)", re.ASCII)
_TURN = re.compile(r"(?<![\d/])([1-6])[- ]?([1-6])\s*:", re.ASCII)
_RESULT = re.compile(r"^\s*(?:(.+?)\s+)?wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?\s*\.?\s*(\(resigned\))?\s*$",
                     re.IGNORECASE | re.ASCII)


def _number(digits: str) -> int:
    """The value of an ASCII digit string, or 10^10 for one too long to mean anything here: it
    is over every limit and matches no count (and Python's limit on converting huge digit
    strings is never reached)."""
    return int(digits) if len(digits) <= 9 else 10**10


_DRAW = re.compile(r"^\s*draw\b.*$", re.IGNORECASE)


class _GameBuilder:
    """Replays one game of a text record turn by turn."""

    def __init__(self, reader: _Reader, number: int, line: int, starter: Color | None) -> None:
        self.reader = reader
        self.number = number
        self.line = line
        self.starter = starter  # None until the opening draw or the first turn line decides it
        self.opening: tuple[int, int] | None = None
        self.position: Any = None  # a set start (a Start: line): a Position, a GioulPosition for Gioul
        self.plies: list[Ply] = []
        self.current: Any = None  # the position (state) the next turn is played in
        self.start: Any = None
        self.turn_lines = 0
        self.single_seen = False  # a turn line with a single turn ends the turn lines
        self.result: tuple[int, int] | None = None  # (line, column) of the result line
        self.result_text = ""
        self.finished = False

    def error(self, message: str, line: int, column: int) -> RecordError:
        return self.reader.error(f"game {self.number}: {message}", line, column)

    def begin(self, starter: Color) -> None:
        self.starter = starter
        initial = Position.initial() if self.position is None else self.position
        self.start = initial if self.opening is not None else _with_turn(initial, starter)
        self.current = _with_turn(initial, starter)

    def over(self) -> bool:
        """Whether the game is over in the current position."""
        assert self.current is not None
        return bool(self.current.is_game_over(self.reader.rules))

    def dead(self) -> bool:
        assert self.current is not None
        return bool(self.current.is_dead(self.reader.rules))

    def may_play(self, line: int, column: int) -> None:
        """Refuse a turn after the result line, after the end of the game or over the limit."""
        if self.result is not None:
            raise self.error("a turn after the game's result line", line, column)
        if self.over():
            raise self.error(f"the game is already over ({self._state()}), but a turn follows", line, column)
        if len(self.plies) >= MAX_PLIES:
            raise self.error(f"more than {MAX_PLIES} plies, the limit for one game", line, column)

    def play(self, dice: tuple[int, int], text: str, line: int, column: int, move_column: int) -> None:
        assert self.current is not None
        rules = self.reader.rules
        self.may_play(line, column)
        if not self.plies and self.opening is not None and rules.first_roll == "opening_dice" \
                and sorted(dice) != sorted(self.opening):
            raise self.error(f"under first_roll=opening_dice the first roll must be the opening draw "
                             f"{self.opening[0]}-{self.opening[1]}, not {dice[0]}-{dice[1]}", line, column)
        notation = text.strip()
        try:
            moves = self.current.legal_moves(dice, rules)
            if notation == "":
                if not (len(moves) == 1 and moves[0].is_pass):
                    legal = ", ".join(m.notation for m in moves)
                    raise RecordError(f"no move written, but {COLOR_NAMES[self.current.turn]} can play "
                                      f"{dice[0]}-{dice[1]}; legal: {legal}")
                move = moves[0]
            else:
                move = self.current.parse_move(notation, dice, rules)
        except FevgaError as exc:
            message = str(exc)
            raise self.error(f"{COLOR_NAMES[self.current.turn]} {dice[0]}{dice[1]}: {notation or '(no move)'}: "
                             f"{message}", line, move_column) from exc
        self.plies.append(Ply(self.current.turn, dice, move.steps))
        self.current = move.position

    def _state(self) -> str:
        assert self.current is not None
        winner = self.current.winner()
        if winner is not None:
            return f"{COLOR_NAMES[winner]} has borne off all {NUM_CHECKERS}"
        return "dead position" if self.dead() else "in play"

    def record(self, winner: Color | None, points: int, **ending: bool) -> AnyGame:
        """The game's record, ending as the replay or the result line says."""
        assert self.current is not None and self.start is not None
        return GameRecord(seed="", rules=self.reader.rules, policies=(self.reader.players[0], self.reader.players[1]),
                          start=self.start, opening_dice=self.opening, plies=tuple(self.plies), final=self.current,
                          winner=winner, points=points, **ending)

    def finish(self) -> AnyGame:
        if self.current is None:
            if self.starter is None and self.opening is None:
                raise self.error("no opening draw and no turns: cannot tell who starts", self.line, 1)
            self.begin(self.starter if self.starter is not None else WHITE)
        assert self.current is not None
        over = self.over()
        winner = self.current.winner()
        points = self.current.points()
        stated_line = _RESULT.match(self.result_text) if self.result is not None else None
        if stated_line is not None and stated_line.group(4):  # "... (resigned)"
            return self._resigned(over)
        if self.result is not None:  # optional: without it the replay decides
            line, column = self.result
            if not over:
                raise self.error(f"the result line says {self.result_text!r}, but the game is not over "
                                 f"after its last turn (position {self.current.id})", line, column)
            stated = self.reader.result_of(self.result_text, line, column)
            if stated is None:
                if winner is not None:
                    raise self.error(f"the result line says a draw, but {COLOR_NAMES[winner]} has won", line, column)
            else:
                who, stated_points = stated
                if winner is None:
                    raise self.error("the result line names a winner, but the game ended in a dead position (draw)",
                                     line, column)
                if who is not None and who != winner:
                    raise self.error(f"the result line names {self.reader.players[who]}, but "
                                     f"{self.reader.players[winner]} has won", line, column)
                if stated_points != points:
                    raise self.error(f"the result line says {stated_points} point(s), but the game is worth "
                                     f"{points} ({'mars' if points == 2 else 'the loser has borne off'})",
                                     line, column)
        return self.record(winner, points, truncated=not over)

    def _resigned(self, over: bool) -> AnyGame:
        """The record of a game whose result line ends in ``(resigned)``."""
        assert self.result is not None and self.current is not None
        line, column = self.result
        if over:
            raise self.error(f"the result line says {self.result_text!r}, but the game is over ({self._state()})",
                             line, column)
        stated = self.reader.result_of(self.result_text, line, column)
        assert stated is not None
        who, points = stated
        winner = 1 - self.current.turn
        if who is not None and who != winner:
            raise self.error(f"the result line says {self.reader.players[who]} won by resignation, but "
                             f"{self.reader.players[who]} is on turn (a player resigns on their own turn)", line, column)
        most = 1 if self.current.counts(self.current.turn)[0] else 2
        if not 1 <= points <= most:
            raise self.error(f"a resignation gives 1 point{' or 2' if most == 2 else ' (the loser has a checker off)'}, "
                             f"not {points}", line, column)
        return self.record(winner, points, resigned=True)


_DECISION = re.compile(r"[|>]")


class _GioulGameBuilder(_GameBuilder):
    """Replays one game of a Gioul text record roll by roll: a roll is its decisions, the
    next block of a chain after ``|``, dice handed to the other player after ``>``."""

    def __init__(self, reader: _Reader, number: int, line: int, starter: Color | None) -> None:
        super().__init__(reader, number, line, starter)
        self.drawn = starter is None  # begun with the one-die draw (start None), not by the last winner
        self.decisions: list[Decision] = []
        self.plies = self.decisions  # type: ignore[assignment]  # the decision count is the ply limit's

    def begin(self, starter: Color) -> None:
        self.starter = starter
        if self.position is not None:
            self.start = self.current = self.position
        else:
            self.current = GioulPosition.initial(starter)
            self.start = None if self.drawn else self.current

    def play(self, dice: tuple[int, int], text: str, line: int, column: int, move_column: int) -> None:
        assert self.current is not None
        self.may_play(line, column)
        if not self.decisions and self.drawn and self.reader.rules.first_roll == "opening_dice" and dice[0] == dice[1]:
            raise self.error(f"under first_roll=opening_dice the first roll is the opening draw, never a double "
                             f"({dice[0]}-{dice[1]})", line, column)
        roller = self.current.turn
        marks = [None, *_DECISION.finditer(text)]
        for index, mark in enumerate(marks):
            begin = 0 if mark is None else mark.end()
            end = marks[index + 1].start() if index + 1 < len(marks) else len(text)  # type: ignore[union-attr]
            notation = text[begin:end].strip()
            at = move_column + begin + len(text[begin:end]) - len(text[begin:end].lstrip())
            if mark is not None:
                self._next_decision(mark.group(), roller, line, move_column + mark.start())
            self._decide(dice if mark is None else None, notation, line, at)
        if not self.over() and self.current.pending:
            who = COLOR_NAMES[self.current.turn]
            after = "|" if self.current.turn == self.decisions[-1].mover else ">"
            raise self.error(f"{who} has {' '.join(map(str, self.current.pending))} still to play in this roll: "
                             f"write its move after '{after}'", line, move_column + len(text.rstrip()))

    def _next_decision(self, mark: str, roller: Color, line: int, column: int) -> None:
        assert self.current is not None
        if self.over():
            raise self.error(f"the game ended during this roll ({self._state()}), but '{mark}' follows", line, column)
        if not self.current.pending:
            raise self.error(f"every die of this roll is played, but '{mark}' follows", line, column)
        same = self.current.turn == self.decisions[-1].mover
        if (mark == "|") != same:
            who = COLOR_NAMES[self.current.turn]
            raise self.error(f"'{mark}' marks {'the same player' if mark == '|' else 'a hand-over'}, but {who} plays "
                             f"next: write '{'|' if same else '>'}'", line, column)

    def _decide(self, roll: tuple[int, int] | None, notation: str, line: int, column: int) -> None:
        assert self.current is not None
        state = self.current
        try:
            moves = state.legal_moves(roll)
            holding = state.rolled(roll) if roll is not None else state
            if notation in ("", "pass"):
                if not (len(moves) == 1 and moves[0].is_pass):
                    legal = ", ".join(m.notation for m in moves)
                    raise RecordError(f"no move written, but {COLOR_NAMES[state.turn]} can play; legal: {legal}")
                move = moves[0]
            else:
                move = state.parse_move(notation, roll)
        except FevgaError as exc:
            dice = " ".join(map(str, roll if roll is not None else state.pending))
            raise self.error(f"{COLOR_NAMES[state.turn]} {dice}: {notation or '(no move)'}: {exc}", line,
                             column) from exc
        previous = self.decisions[-1].mover if self.decisions else None
        kind = "roll" if roll is not None else ("block" if previous == state.turn else "hand-over")
        assert holding.roller is not None
        self.decisions.append(Decision(state.turn, holding.roller, roll, holding.decision_dice, kind, move.steps,
                                       len(moves)))
        self.current = move.position

    def record(self, winner: Color | None, points: int, **ending: bool) -> AnyGame:
        assert self.current is not None
        return GioulGameRecord(seed="", rules=self.reader.rules, policies=(self.reader.players[0],
                               self.reader.players[1]), decisions=tuple(self.decisions), final=self.current,
                               winner=winner, points=points, start=self.start, **ending)


@dataclass
class _Reader:
    source: str
    rules: Rules = field(default_factory=Rules)
    players: list[str] = field(default_factory=lambda: ["White", "Black"])
    named: bool = False

    def error(self, message: str, line: int, column: int) -> RecordError:
        return RecordError(message, line, column, self.source)

    def result_of(self, text: str, line: int, column: int) -> tuple[Color | None, int] | None:
        """(winner or None if unnamed, points) of a result line, or None for a draw."""
        if _DRAW.match(text):
            return None
        match = _RESULT.match(text)
        assert match is not None
        who_text = match.group(1)
        who: Color | None = None
        if who_text is not None:
            lowered = who_text.strip().lower()
            candidates = [c for c in (WHITE, BLACK) if lowered in (self.players[c].lower(), COLOR_NAMES[c])]
            if not candidates:
                raise self.error(f"result line: {who_text!r} is neither player ({self.players[0]}, "
                                 f"{self.players[1]})", line, column + match.start(1))
            who = candidates[0]
        return who, _number(match.group(2))


def read_match(text: str, source: str = "<string>") -> AnyMatch:
    """Parse the text match format (docs/records.md) into a MatchRecord (a GioulMatchRecord
    under ``Rules: game=gioul``), replaying every move.

    Anything malformed or illegal raises RecordError with `source:line:column`.
    """
    if not isinstance(text, str):
        raise RecordError(f"match text must be a string, not {type(text).__name__}")
    reader = _Reader(source)
    length: int | None = None
    games: list[AnyGame] = []
    game: _GameBuilder | None = None
    score = [0, 0]
    next_starter: Color | None = None
    rules_seen = False

    def close() -> None:
        nonlocal game, next_starter
        if game is None:
            return
        record = game.finish()
        games.append(record)
        if record.winner is not None:
            score[record.winner] += record.points
            next_starter = record.winner
        else:
            next_starter = None
        game = None

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.expandtabs(8).rstrip()
        stripped = line.strip()
        indent = len(line) - len(line.lstrip()) + 1
        if not stripped or stripped.startswith(";"):
            continue
        if length is None:
            m = _LENGTH.match(line)
            if not m:
                raise reader.error(f"expected the header 'N point match' (e.g. '5 point match'), found {stripped!r}",
                                   number, indent)
            length = _number(m.group(1))
            if length > MAX_LENGTH:
                raise reader.error(f"match length {m.group(1)[:12]} is over the limit of {MAX_LENGTH} points",
                                   number, line.index(m.group(1)) + 1)
            continue
        m = _RULES.match(line)
        if m:
            if games or game is not None or rules_seen:
                raise reader.error("the Rules line belongs in the header, once, before game 1", number, indent)
            reader.rules = _parse_rules(reader, m.group(1), number, line.index(m.group(1)) + 1 if m.group(1) else indent)
            rules_seen = True
            continue
        m = _GAME.match(line)
        if m:
            close()
            if length > 0 and max(score) >= length:
                raise reader.error(f"game {m.group(1)} after the match was won ({score[0]}-{score[1]} to {length})",
                                   number, indent)
            expected = len(games) + 1
            if expected > MAX_GAMES:
                raise reader.error(f"more than {MAX_GAMES} games, the limit of one record", number, indent)
            if _number(m.group(1)) != expected:
                raise reader.error(f"expected 'Game {expected}', found 'Game {m.group(1)}'", number,
                                   line.index(m.group(1)) + 1)
            builder = _GioulGameBuilder if reader.rules.game == "gioul" else _GameBuilder
            game = builder(reader, expected, number, next_starter)
            continue
        if game is None:
            raise reader.error(f"expected 'Game 1' before {stripped!r}", number, indent)
        if game.result is not None:
            raise reader.error(f"game {game.number}: nothing may follow the result line except the next "
                               f"'Game' line, found {stripped!r}", number, indent)
        m = _TURN_LINE.match(line)
        if m:
            _read_turn_line(reader, game, line, number, m)
            continue
        if game.turn_lines == 0 and game.current is None:
            m = _SCORE.match(line)
            if m:
                _read_score_line(reader, game, m, score, number)
                continue
            m = _START.match(line)
            if m:
                if game.opening is not None:
                    raise reader.error("a game from a set position (Start:) has no opening draw", number, indent)
                gioul = isinstance(game, _GioulGameBuilder)
                try:
                    game.position = (GioulPosition if gioul else Position).from_id(m.group(1))
                except FevgaError as exc:
                    raise reader.error(f"start: {exc}", number, m.start(1) + 1) from exc
                game.current = game.position
                if game.over():
                    raise reader.error(f"start position {m.group(1)} is already finished", number, m.start(1) + 1)
                if gioul and game.position.pending:
                    raise reader.error(f"start state {m.group(1)} is in the middle of a roll: a text record starts a "
                                       "game between two rolls (JSON records can start anywhere)", number,
                                       m.start(1) + 1)
                game.current = None
                game.starter = game.position.turn
                continue
            m = _OPENING.match(line)
            if m:
                if isinstance(game, _GioulGameBuilder):
                    raise reader.error("a Gioul record has no opening draw line: it keeps who started (Black's first "
                                       "roll in Black's column), not the draw", number, indent)
                if game.position is not None:
                    raise reader.error("a game from a set position (Start:) has no opening draw", number, indent)
                white, black = int(m.group(1)), int(m.group(2))
                if not (1 <= white <= 6 and 1 <= black <= 6) or white == black:
                    raise reader.error(f"opening draw {white}, {black}: two different dice 1-6 (ties are rolled "
                                       f"again)", number, line.index(m.group(1)) + 1)
                game.opening = (white, black)
                game.starter = WHITE if white > black else BLACK
                continue
        if _RESULT.match(line) or _DRAW.match(line):
            game.result = (number, indent)
            game.result_text = stripped
            continue
        raise reader.error(f"cannot read {stripped!r}: expected a turn line such as '  1) 65: 24/13   42: 24/18', "
                           f"a result line such as 'White wins 1 point', or 'Game N'", number, indent)
    if length is None:
        raise reader.error("empty record: expected the header 'N point match'", 1, 1)
    close()
    kind = GioulMatchRecord if reader.rules.game == "gioul" else MatchRecord
    return kind(length, tuple(games), (score[0], score[1]), (reader.players[0], reader.players[1]))  # type: ignore[arg-type]


def _parse_rules(reader: _Reader, text: str, line: int, column: int) -> Rules:
    lowered = text.strip().lower()
    if lowered in ("default", "strict"):
        return Rules.named(lowered)
    options: dict[str, Any] = {}
    known = {f.name for f in fields(Rules)}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or key not in known:
            raise reader.error(f"rules: expected 'default', 'strict' or option=value with an option of "
                               f"{', '.join(sorted(known))}, found {token!r}", line, column + text.index(token))
        options[key] = {"true": True, "false": False}.get(value.lower(), value) \
            if key == "ban_prime_before_opponent_mother" else value
    try:
        return Rules(**options)
    except FevgaError as exc:
        raise reader.error(f"rules: {exc}", line, column) from exc


def _read_score_line(reader: _Reader, game: _GameBuilder, m: re.Match[str], score: list[int], number: int) -> None:
    names = [m.group(1), m.group(3)]
    if not reader.named:
        reader.players = names
        reader.named = True
    elif names != reader.players:
        raise reader.error(f"players {names[0]!r} and {names[1]!r} differ from game 1's {reader.players[0]!r} "
                           f"and {reader.players[1]!r}", number, m.start(1) + 1)
    for side, group in ((WHITE, 2), (BLACK, 4)):
        if _number(m.group(group)) != score[side]:
            raise reader.error(f"{names[side]}'s score is {score[side]} after the games before, not "
                               f"{m.group(group)}", number, m.start(group) + 1)


def _read_turn_line(reader: _Reader, game: _GameBuilder, line: str, number: int, head: re.Match[str]) -> None:
    expected = game.turn_lines + 1
    if _number(head.group(1)) != expected:
        raise reader.error(f"game {game.number}: expected turn line {expected}), found {head.group(1)})", number,
                           head.start(1) + 1)
    if game.single_seen:
        raise reader.error(f"game {game.number}: turn line {game.turn_lines} held a single turn, so it must be "
                           f"the last (or the first, when Black starts)", number, head.start(1) + 1)
    body_start = head.end()
    turns = list(_TURN.finditer(line, body_start))
    if not turns:
        if line[body_start:].strip():
            raise reader.error(f"game {game.number}: expected dice such as '65:' at the start of a turn, found "
                               f"{line[body_start:].strip()!r}", number, body_start + 1 + len(line[body_start:])
                               - len(line[body_start:].lstrip()))
        raise reader.error(f"game {game.number}: turn line {expected}) is empty", number, head.start(1) + 1)
    junk = line[body_start:turns[0].start()]
    if junk.strip():
        raise reader.error(f"game {game.number}: unexpected {junk.strip()!r} before the first dice", number,
                           body_start + 1 + len(junk) - len(junk.lstrip()))
    if len(turns) > 2:
        raise reader.error(f"game {game.number}: a turn line holds at most two turns (White's, then Black's)",
                           number, turns[2].start() + 1)
    if expected == 1 and game.current is None:
        if game.starter is None:  # no draw, first game or after a draw: the layout decides
            black_first = len(turns) == 1 and turns[0].start() >= _RIGHT_MIN
            game.begin(BLACK if black_first else WHITE)
        else:
            game.begin(game.starter)
        if game.starter == WHITE and len(turns) == 1:
            game.single_seen = True
        if game.starter == BLACK and len(turns) == 2:
            raise reader.error(f"game {game.number}: Black starts this game ({_why_black(game)}), so turn line 1) "
                               f"holds only Black's turn", number, turns[1].start() + 1)
    elif len(turns) == 1:
        game.single_seen = True
    for index, turn in enumerate(turns):
        end = turns[index + 1].start() if index + 1 < len(turns) else len(line)
        dice = (int(turn.group(1)), int(turn.group(2)))
        move_text = line[turn.end():end]
        move_column = turn.end() + 1 + len(move_text) - len(move_text.lstrip())
        game.play(dice, move_text, number, turn.start() + 1, move_column)
    game.turn_lines = expected


def _why_black(game: _GameBuilder) -> str:
    if game.opening is not None:
        return f"opening draw White {game.opening[0]}, Black {game.opening[1]}"
    return "Black won the game before" if game.number > 1 else "its first turn is in Black's column"


# ---------------------------------------------------------------------------------------
# Files


def load_record(path: str | os.PathLike[str]) -> AnyMatch:
    """Read a record file: engine JSON (a game or a match) or the text match format.

    A single game is returned as a session (length 0) of one game.
    """
    file = file_path(path, "record", RecordError)
    raw = read_file(file, MAX_RECORD_BYTES, RecordError, "record")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"record {str(file)!r} is not UTF-8 text (byte {exc.start})") from None
    return parse_record(text, str(file))


def parse_record(text: str, source: str = "<string>") -> AnyMatch:
    """A record text: engine JSON (an object: a game, or a match with "length" and "games") or
    the text match format. A single game is returned as a session (length 0) of one game."""
    if not isinstance(text, str):
        raise RecordError(f"record text must be a string, not {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if is_json_record(text):
        return record_from_data(read_json(text, source), source)
    return read_match(text, source)


def is_json_record(text: str) -> bool:
    """Whether a record text is JSON (a text record starts with its 'N point match' header)."""
    return text.lstrip().startswith(("{", "[", '"'))


def read_json(text: str | bytes, source: str = "<string>") -> Any:
    """The JSON value of a record text within fevga.inputs' limits (depth, integer size,
    finite numbers), or RecordError naming `source`: the one JSON reader of every record."""
    return _loads(text, source)


def record_from_data(data: Any, source: str = "<string>") -> AnyMatch:
    """The record of a JSON value: a game (as a session of one game) or a match."""
    if not isinstance(data, dict):
        raise RecordError(f"{source}: a JSON {type(data).__name__} is not a record: a fevga record is a JSON "
                          "object (a game, or a match with 'length' and 'games')")
    try:
        if "games" in data or "length" in data:
            return match_from_dict(data)
        if data.get("game") == "gioul":
            return session_of(gioul_game_from_dict(data))
        return session_of(game_from_dict(data))
    except RecordError as exc:  # the field's error, said of this file (one of many, perhaps)
        raise RecordError(f"{source}: {exc}") from None


def save_record(record: Record, path: str | os.PathLike[str]) -> None:
    """Write a record atomically: JSON if `path` ends in .json, else the text match format."""
    file = file_path(path, "record", InvalidArgumentError)
    text = record.to_json(indent=1) if file.suffix.lower() == ".json" else write_match(record)
    atomic_write(file, lambda handle: handle.write(text.encode("utf-8")), what="record")
