"""Games against the engine for the browser board, kept by the client and replayed by the server.

The server keeps no game. A request carries the game's seed, the human's side and the
decisions played so far (each a move in the mover's notation and, when it began a roll, the
number of that roll in the seed's dice stream); `replay` rebuilds the game through the rules,
checking every decision, plays the engine's decisions (and every forced one) until the human
is to choose or the game ends, and returns the whole state: the history with each decision's
boards step by step, the human's dice and legal moves, the result and the game's record.

The dice are those of `fevga play --human` with the same seed: the opening draw, then one
pair per roll from one stream (`fevga.seeding.seed_sequence`), so the same seed and the same
moves give the same game there and here. ``undo`` takes back the human's last decision as the
terminal game does: the same dice are played again, and later rolls are fresh draws (`draws`
counts every roll drawn, undone ones included, so that undo cannot show the dice to come).

>>> state = replay(PlayRequest(game="fevga", seed=7, human="white", engine="heuristic"))
>>> state["status"] in ("your_turn", "over") and state["draws"] >= 1
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

# the steps of either game as the terminal game takes them, so that both play the same game
from fevga.cli.human import DEFAULT_ENGINE, ENGINE_POLICIES, AnyMove, AnyPosition, Engine, _needs_roll
from fevga.errors import FevgaError, InvalidArgumentError
from fevga.records import GameRecord, Ply
from fevga.gioul import GioulPosition
from fevga.records import Decision, GioulGameRecord
from fevga.position import BLACK, COLOR_NAMES, WHITE, Color, Position
from fevga.rules import Rules
from fevga.seeding import seed_repr, seed_sequence

__all__ = ["MAX_HISTORY", "PlayError", "PlayRequest", "Played", "replay"]

MAX_HISTORY = 4000  # decisions of one game (a Gioul game of chains and hand-overs stays far below)
BROWSER_ENGINES = {game: tuple(p for p in policies if p != "random") for game, policies in ENGINE_POLICIES.items()}


class PlayError(InvalidArgumentError):
    """A game request that does not replay: a bad history, an impossible roll number."""


@dataclass(frozen=True)
class PlayedItem:
    """One decision as the client sends it back: the move, and the roll it began (or None)."""

    move: str
    roll: int | None = None


@dataclass(frozen=True)
class PlayRequest:
    """A game to replay: `history` the decisions so far, `draws` the rolls drawn so far."""

    game: Literal["fevga", "gioul"] = "fevga"
    seed: int = 0
    human: Literal["white", "black"] = "white"
    engine: str | None = None  # a policy of BROWSER_ENGINES[game]; None: the game's default
    history: tuple[PlayedItem, ...] = ()
    draws: int = 0
    undo: bool = False


@dataclass(frozen=True)
class Played:
    """One decision of the game as replayed."""

    before: AnyPosition
    mover: Color
    roll: int | None  # the roll's number in the dice stream when this decision began a roll
    dice: tuple[int, int] | None  # that roll's dice
    move: AnyMove
    human: bool
    choices: int

    def kind(self, previous: Played | None) -> str:
        """``roll`` (it began a roll), ``block`` (the same player's next block of a chain) or
        ``hand-over`` (dice the other player could not play)."""
        if self.dice is not None:
            return "roll"
        return "block" if previous is not None and previous.mover == self.mover else "hand-over"


class _Dice:
    """The seed's dice: the opening draw (pairs until they differ), then one pair per roll."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed_sequence(seed))
        while True:
            white, black = (int(v) for v in self.rng.integers(1, 7, size=2))
            if white != black:
                break
        self.opening = (white, black)
        self.rolls: list[tuple[int, int]] = []

    def roll(self, number: int) -> tuple[int, int]:
        while len(self.rolls) <= number:
            a, b = self.rng.integers(1, 7, size=2)
            self.rolls.append((int(a), int(b)))
        return self.rolls[number]


def _rules(game: str) -> Rules:
    return Rules.gioul() if game == "gioul" else Rules()


def _start(game: str, starter: Color) -> AnyPosition:
    return (GioulPosition if game == "gioul" else Position).initial(starter)


def _engine(request: PlayRequest) -> Engine:
    policy = request.engine or DEFAULT_ENGINE[request.game]
    if policy not in BROWSER_ENGINES[request.game]:
        raise PlayError(f"engine {policy!r} cannot play {request.game} here: choose "
                        f"{', '.join(BROWSER_ENGINES[request.game])}")
    return Engine(policy, request.game)


def _undo(played: list[Played]) -> int | None:
    """Take back the human's last decision with a choice and everything after it, back to the
    start of its roll (`fevga.cli.human` does the same); the roll number to play again."""
    while played:
        last = played.pop()
        if last.human and last.choices > 1:
            while last.dice is None and played:
                last = played.pop()
            return last.roll
    raise PlayError("nothing to undo: you have not chosen a move yet")


def replay(request: PlayRequest) -> dict[str, Any]:
    """The game of `request` replayed, the engine's (and forced) decisions played until the
    human is to choose or the game is over; PlayError for a history that does not replay."""
    if len(request.history) > MAX_HISTORY:
        raise PlayError(f"history of {len(request.history)} decisions (limit {MAX_HISTORY})")
    if not 0 <= request.draws <= MAX_HISTORY:
        raise PlayError(f"draws={request.draws} must be 0..{MAX_HISTORY}")
    rules = _rules(request.game)
    engine = _engine(request)
    human = COLOR_NAMES.index(request.human)
    dice = _Dice(request.seed)
    starter = WHITE if dice.opening[0] > dice.opening[1] else BLACK
    position = _start(request.game, starter)
    played: list[Played] = []
    last_roll = -1
    for index, item in enumerate(request.history):
        where = f"history[{index}]"
        if position.is_game_over(rules):
            raise PlayError(f"{where}: the game was already over")
        roll: tuple[int, int] | None = None
        if _needs_roll(position):
            if item.roll is None or not last_roll < item.roll < request.draws:
                raise PlayError(f"{where}: a roll is due, so roll must be a roll number above {last_roll} "
                                f"and below draws={request.draws}, not {item.roll}")
            last_roll = item.roll
            roll = dice.roll(item.roll)
        elif item.roll is not None:
            raise PlayError(f"{where}: {position.id} has dice pending, so roll must be null")
        moves = position.legal_moves(roll, rules)
        try:
            move = position.parse_move(item.move, roll, rules)
        except FevgaError as exc:
            raise PlayError(f"{where}: {exc}") from None
        played.append(Played(position, position.turn, item.roll if roll else None, roll, move,
                             position.turn == human, len(moves)))
        position = move.position
    draws = request.draws
    known = len(played)
    replayed: int | None = None
    if request.undo:
        replayed = _undo(played)
        known = len(played)
        position = played[-1].move.position if played else _start(request.game, starter)
    while not position.is_game_over(rules):
        roll_number: int | None = None
        roll = None
        if _needs_roll(position):
            if replayed is not None:
                roll_number, replayed = replayed, None
            else:
                roll_number, draws = draws, draws + 1
            roll = dice.roll(roll_number)
        moves = position.legal_moves(roll, rules)
        mover = position.turn
        if mover == human and len(moves) > 1:
            return _state(request, engine, dice, played, known, position, draws, rules, roll_number, roll, moves)
        move = moves[0] if len(moves) == 1 else engine.choose(position, moves, roll, rules)
        played.append(Played(position, mover, roll_number, roll, move, mover == human, len(moves)))
        position = move.position
        if len(played) > MAX_HISTORY:
            raise PlayError(f"the game passed {MAX_HISTORY} decisions")
    return _state(request, engine, dice, played, known, position, draws, rules, None, None, [])


def _board(position: AnyPosition) -> Position:
    return position.board() if isinstance(position, GioulPosition) else position


def _frames(before: AnyPosition, mover: Color, move: AnyMove) -> list[str]:
    """The board's ID after each step of `move` (the mover on turn), for showing it step by step."""
    board = _board(before)
    counts = [list(board.counts(WHITE)), list(board.counts(BLACK))]
    frames = []
    for source, target in move.steps:
        counts[mover][source] -= 1
        counts[mover][target] += 1
        frames.append(Position.from_counts(counts[WHITE], counts[BLACK], mover).id)
    return frames


def _position_dict(position: AnyPosition) -> dict[str, Any]:
    out: dict[str, Any] = {"id": position.id, "game": "gioul" if isinstance(position, GioulPosition) else "fevga",
                           "turn": COLOR_NAMES[position.turn], "board": _board(position).id}
    if isinstance(position, GioulPosition):
        out["pending"] = list(position.pending)
        out["decision_dice"] = list(position.decision_dice)
        out["next_roll"] = {"white": position.next_roll(WHITE), "black": position.next_roll(BLACK)}
    return out


def _decision_dice(position: AnyPosition, roll: tuple[int, int] | None) -> list[int]:
    """The dice of the decision: a Fevga roll (four of a double), a Gioul decision's dice."""
    if isinstance(position, GioulPosition):
        holding = position.rolled(roll) if roll is not None else position
        return list(holding.decision_dice)
    assert roll is not None
    return [roll[0]] * 4 if roll[0] == roll[1] else list(roll)


def _pending(position: AnyPosition, roll: tuple[int, int] | None) -> list[int]:
    if isinstance(position, GioulPosition):
        return list((position.rolled(roll) if roll is not None else position).pending)
    return _decision_dice(position, roll)


def _state(request: PlayRequest, engine: Engine, dice: _Dice, played: list[Played], known: int,
           position: AnyPosition, draws: int, rules: Rules, roll_number: int | None,
           roll: tuple[int, int] | None, moves: Sequence[Any]) -> dict[str, Any]:
    human = COLOR_NAMES.index(request.human)
    history = []
    for i, p in enumerate(played):
        history.append({"mover": COLOR_NAMES[p.mover], "human": p.human, "kind": p.kind(played[i - 1] if i else None),
                        "roll": p.roll, "dice": list(p.dice) if p.dice else None,
                        "decision_dice": _decision_dice(p.before, p.dice), "pending": _pending(p.before, p.dice),
                        "move": p.move.notation, "steps": [list(s) for s in p.move.steps], "choices": p.choices,
                        "before": _position_dict(p.before), "after": _position_dict(p.move.position),
                        "frames": _frames(p.before, p.mover, p.move)})
    turn = None
    if moves:
        board = _board(position)
        mover = position.turn
        turn = {"mover": COLOR_NAMES[mover], "roll": roll_number, "dice": list(roll) if roll else None,
                "decision_dice": _decision_dice(position, roll), "pending": _pending(position, roll),
                "kind": Played(position, mover, roll_number, roll, moves[0], True, len(moves)).kind(
                    played[-1] if played else None),
                "counts": list(board.counts(mover)), "opponent": list(board.counts(1 - mover)),
                "moves": [{"move": m.notation, "steps": [list(s) for s in m.steps],
                           "result": list(_board(m.position).counts(mover)), "after": m.position.id} for m in moves]}
    winner = position.winner()
    over = position.is_game_over(rules)
    result = None
    if over:
        result = {"winner": None if winner is None else COLOR_NAMES[winner], "points": position.points(),
                  "dead": winner is None}
    return {"game": request.game, "seed": request.seed, "human": request.human, "engine": engine.name,
            "engine_note": engine.hint_name, "opening": list(dice.opening),
            "starter": COLOR_NAMES[played[0].mover if played else position.turn],
            "history": history, "known": known, "draws": draws, "position": _position_dict(position),
            "status": "over" if over else "your_turn", "turn": turn, "result": result,
            "record": _record(request, engine, dice, played, position, over).to_dict(),
            "perspective": COLOR_NAMES[human]}


def _record(request: PlayRequest, engine: Engine, dice: _Dice, played: list[Played], position: AnyPosition,
            over: bool) -> GameRecord | GioulGameRecord:
    """The game as `fevga play --human` records it (unfinished: result ``truncated``)."""
    human = COLOR_NAMES.index(request.human)
    policies = ("human" if human == WHITE else engine.name, "human" if human == BLACK else engine.name)
    seed = str(seed_repr(seed_sequence(request.seed)))  # as fevga play --human records it
    rules = _rules(request.game)
    winner = position.winner()
    if isinstance(position, GioulPosition):
        decisions = []
        for i, p in enumerate(played):
            assert isinstance(p.before, GioulPosition)
            holding = p.before.rolled(p.dice) if p.dice is not None else p.before
            roller = holding.roller if holding.roller is not None else p.mover
            decisions.append(Decision(p.mover, roller, p.dice, holding.decision_dice,
                                      p.kind(played[i - 1] if i else None), p.move.steps, p.choices))
        return GioulGameRecord(seed=seed, rules=rules, policies=policies, decisions=tuple(decisions), final=position,
                               winner=winner, points=position.points(), start=None if played else position,
                               truncated=not over)
    return GameRecord(seed=seed, rules=rules, policies=policies, start=Position.initial(),
                      opening_dice=dice.opening,
                      plies=tuple(Ply(p.mover, p.dice or (0, 0), p.move.steps) for p in played), final=position,
                      winner=winner, points=position.points(), truncated=not over)
