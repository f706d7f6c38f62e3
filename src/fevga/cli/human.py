"""Play against the engine in the terminal: `fevga play --human white` (Fevga, or Gioul with
``--game gioul``) and `fevga play-match --human ...`.

The board is shown after every roll, drawn in the human's own numbering (turned for Black, as
gnubg does), the numbering moves are typed in: any notation the engine parses (``24/13``,
``24/18/13``, ``24/18 18/13``, ``6/off(2)``), or a command (`HELP`). Illegal moves are rejected
with the reason.

The engine plays a built-in policy (`ENGINE_POLICIES`), by default its strongest player:
``net2`` for Fevga (the shipped net with a 2-ply search), ``net`` for Gioul (the shipped Gioul
net, as the core's "net" policy plays it). ``hint`` ranks the roll's (the decision's) moves
exactly as ``fevga hint`` does (the game's shipped net, 1 ply unless ``hint_plies`` says
otherwise), and the tutor (``--tutor``, or ``tutor on`` at the prompt) warns before a move that
the hint marks doubtful or worse, with the analysis thresholds (docs/analysis.md: 0.04 / 0.08 /
0.16, as gnubg's tutor judges "doubtful" / "bad" / "very bad").

``quit``, Ctrl-C and the end of piped input stop the game; what was played is returned as an
unfinished record (result ``truncated``), so that it can be saved. Piped commands are echoed
so that the transcript reads like a terminal session.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TextIO, Union

import numpy as np

from fevga.analyser import MARKS, Thresholds
from fevga.errors import FevgaError, InvalidArgumentError
from fevga.limits import MAX_LENGTH, check_int
from fevga.records import GameRecord, MatchRecord, Ply, _with_turn
from fevga.gioul import GioulMove, GioulPosition
from fevga.records import Decision, GioulGameRecord
from fevga.net import Net, net_of
from fevga.position import BLACK, COLOR_NAMES, WHITE, Color, Move, Position
from fevga.rules import Rules
from fevga.seeding import SeedLike, seed_repr, seed_sequence
from fevga_core import game as core_game
from fevga.notation import parse_paths
from fevga.analysis import deepest_plies, evaluate, every_move_of, hint, search_name
from fevga.cli.net import hint_table, net_argument

AnyPosition = Union[Position, GioulPosition]
AnyMove = Union[Move, GioulMove]
AnyRecord = Union[GameRecord, GioulGameRecord]

# The policies the engine can play against a human, per game.
ENGINE_POLICIES = {game: ("net2", "net", "heuristic", "random") for game in ("fevga", "gioul")}
DEFAULT_ENGINE = {"fevga": "net2", "gioul": "net2"}
TUTOR_LEVELS = MARKS  # "doubtful", "bad", "very bad": the analysis marks

HELP = """commands:
  a move in your own numbering (the board is drawn in it), e.g. 24/13, 24/18/13, 24/18 18/13,
           6/off(2), pass
  hint     the engine's ranking of this roll's moves (as `fevga hint` ranks them)
  moves    every legal move
  board    show the board again
  undo     take back your last move (you play the same dice again)
  resign   give up the game for 1 point (`resign mars`: 2 points); the engine accepts when
           that is no worse for it than playing on
  tutor    `tutor on` / `tutor off`: warn before a move the hint marks doubtful or worse
  quit     stop; the game so far is kept, marked unfinished (Ctrl-C does the same)"""


class Stop(Exception):
    """The game stops before its end: the human typed quit, pressed Ctrl-C, or the input ended."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why  # "quit", "interrupted" or "end of input"


class Undo(Exception):
    """The human takes back their last move."""


class Resign(Exception):
    """The human resigned and the engine accepted: `points` to the engine."""

    def __init__(self, points: int) -> None:
        super().__init__(points)
        self.points = points


@dataclass
class Console:
    """Where the session reads commands and writes the board (a terminal or pipes)."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stopped: str = ""  # why the last game stopped early ("quit", "interrupted", "end of input"), else ""

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        try:
            line = self.stdin.readline()
        except KeyboardInterrupt:
            self.say("")
            raise Stop("interrupted") from None
        if line == "":
            self.say("")
            raise Stop("end of input")
        interactive = getattr(self.stdin, "isatty", lambda: False)()
        if not interactive:
            self.say(line.rstrip("\n"))  # echo piped input so the transcript reads like a session
        return line.strip()


# ---------------------------------------------------------------------------------------
# The engine: how it moves, how it ranks a roll's moves for hints and the tutor


@dataclass(frozen=True)
class Ranked:
    """One move of a hint: its equity for the mover (at a match score: its match chance) and its loss."""

    move: AnyMove
    equity: float
    loss: float


@dataclass
class Engine:
    """The engine's side: a built-in policy by name (`ENGINE_POLICIES`), the net it plays and
    hints with, and, in a match, the score it ranks moves at (by match winning chance)."""

    policy: str
    game: str = "fevga"
    net: Net | None = None  # the net of the net policies and the hints, of the game (None: the game's shipped net)
    hint_plies: int = 1
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    score: tuple[int, int] | None = None
    length: int | None = None
    hint_every_move: bool | None = None  # the hints' every_move, as fevga hint takes it (None: the game's)

    def __post_init__(self) -> None:
        allowed = ENGINE_POLICIES[self.game]
        if self.policy not in allowed:
            raise InvalidArgumentError(f"engine policy {self.policy!r} cannot play a human at {self.game}: "
                                       f"choose {', '.join(allowed)}")
        if self.net is not None:
            self.net = net_of(self.net, self.game)  # NetGameError for the other game's net

    @property
    def name(self) -> str:
        """The engine as records name it: the policy, its net when not the shipped one, the score."""
        name = self.policy
        if self.net is not None and self.policy.startswith("net") and self.net != net_of(None, self.game):
            name += f" (net {self.net.checksum[:12]})"
        return name + (", match-aware" if self.score is not None and self.policy.startswith("net") else "")

    @property
    def hint_name(self) -> str:
        """What the hints are, in words."""
        game = "Gioul net" if self.game == "gioul" else "net"
        searched = search_name(self.hint_plies, every_move_of(self.game, self.hint_every_move))
        return f"{game} {searched}, as fevga hint" + (" at the match score" if self.score else "")

    def at_score(self, score: tuple[int, int], length: int) -> Engine:
        """This engine ranking its moves and hints by match winning chance at `score` (Fevga)."""
        return Engine(self.policy, self.game, self.net, self.hint_plies, self.rng,
                      score if self.game == "fevga" else None, length if self.game == "fevga" else None,
                      self.hint_every_move)

    def choose(self, position: AnyPosition, moves: Sequence[AnyMove], dice: tuple[int, int] | None,
               rules: Rules) -> AnyMove:
        """The move the policy plays."""
        if len(moves) == 1:
            return moves[0]
        if self.policy == "random":
            return moves[int(self.rng.integers(len(moves)))]
        if self.policy == "heuristic":
            return heuristic_choice(position.turn, moves)
        plies = 2 if self.policy == "net2" else 1  # "net": the net's best at 1 ply, as the core's policy plays
        best: AnyMove = hint(position, dice, plies, rules, net=self.net, score=self.score, length=self.length,
                             every_move=False)[0].move  # "net2": the move filter's, as the core's policy
        return best

    def rank(self, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules) -> list[Ranked]:
        """The roll's moves best first with their equity for the mover (hints and the tutor)."""
        return [Ranked(h.move, h.equity if h.evaluation.match_chance is None else h.value, h.loss)
                for h in self.hints(position, dice, rules)]

    def hints(self, position: AnyPosition, dice: tuple[int, int] | None, rules: Rules) -> list[Any]:
        """`fevga.hint` of the roll (of a Gioul decision: dice None when pending) with the engine's
        net, plies, every-move choice and match score."""
        hints: list[Any] = hint(position, dice, self.hint_plies, rules, net=self.net, score=self.score,
                                length=self.length, every_move=self.hint_every_move)
        return hints

    def accepts(self, position: AnyPosition, points: int, rules: Rules) -> bool:
        """Whether the engine takes `points` rather than play on against the human on roll: always
        when the human has a checker off (no mars is left to win), else when `points` is at least
        the engine's equity by the game's net."""
        human = position.turn
        if points >= 2 or position.counts(human)[0] > 0:
            return True
        return points >= -evaluate(position, 0, rules, net=self.net).equity


def heuristic_value(after: AnyPosition, mover: int) -> float:
    """The core's heuristic evaluation (docs/rollout.md) of a move's result for the mover."""
    board = after.board() if isinstance(after, GioulPosition) else after
    return float(core_game.evaluate(board._row(), mover))


def heuristic_choice(mover: int, moves: Sequence[AnyMove]) -> AnyMove:
    """The move the core's "heuristic" policy plays: the first of the best by the heuristic."""
    values = [heuristic_value(m.position, mover) for m in moves]
    return moves[values.index(max(values))]


# ---------------------------------------------------------------------------------------
# The game-specific parts: Fevga plays a roll per ply, Gioul a decision at a time


@dataclass
class Turn:
    """One played decision, kept so that it can be undone and recorded."""

    before: AnyPosition
    mover: Color
    dice: tuple[int, int] | None  # the roll, when this decision began one (Fevga: always)
    move: AnyMove
    human: bool
    choices: int


def _decision_dice(position: AnyPosition, dice: tuple[int, int] | None) -> str:
    if isinstance(position, GioulPosition):
        holding = position.rolled(dice) if dice is not None else position
        shown = holding.decision_dice
        if len(shown) == 2 and shown[0] != shown[1]:
            return f"{shown[0]}-{shown[1]}"
        return " ".join(map(str, shown))
    assert dice is not None
    return f"{dice[0]}-{dice[1]}"


def _needs_roll(position: AnyPosition) -> bool:
    return not (isinstance(position, GioulPosition) and position.pending)


# ---------------------------------------------------------------------------------------
# The session


@dataclass
class Session:
    """One human (or two, or none) against the engine, with seeded dice."""

    human: frozenset[Color]
    engine: Engine
    rules: Rules
    console: Console
    rng: np.random.Generator
    names: tuple[str, str] = ("White", "Black")
    tutor: str | None = None  # the lowest mark the tutor warns about, or None
    thresholds: Thresholds = field(default_factory=Thresholds)

    @property
    def game(self) -> str:
        """"fevga" or "gioul"."""
        return self.engine.game

    def roll(self) -> tuple[int, int]:
        a, b = self.rng.integers(1, 7, size=2)
        return (int(a), int(b))

    def opening_draw(self) -> tuple[int, int]:
        while True:
            white, black = (int(v) for v in self.rng.integers(1, 7, size=2))
            self.console.say(f"Opening draw: White rolls {white}, Black rolls {black}"
                             + ("  (a tie: roll again)" if white == black else ""))
            if white != black:
                return white, black

    def _show(self, position: AnyPosition) -> str:
        """The board in the numbering of the human to move (White's when no human plays Black alone)."""
        viewer = position.turn if position.turn in self.human else (
            BLACK if self.human == frozenset({BLACK}) else WHITE)
        return position.diagram(viewer)

    def play_game(self, start: AnyPosition | None, opening: bool) -> AnyRecord:
        """Play one game from `start` (with the opening draw if `opening`) and return its record;
        a game stopped early (quit, Ctrl-C, end of input) is returned unfinished, and one the
        human resigned is won by the engine."""
        say = self.console.say
        gioul = self.game == "gioul"
        initial: AnyPosition = start or (GioulPosition.initial() if gioul else Position.initial())
        opening_dice = self.opening_draw() if opening else None
        position = initial
        if opening_dice is not None:
            starter = WHITE if opening_dice[0] > opening_dice[1] else BLACK
            if isinstance(initial, GioulPosition):
                position = initial = GioulPosition.initial(starter)
            else:
                position = _with_turn(initial, starter)
        turns: list[Turn] = []
        resigned = 0
        stopped = ""
        replay: tuple[int, int] | None = None  # the dice of an undone decision, played again
        try:
            while not position.is_game_over(self.rules):
                mover = position.turn
                dice: tuple[int, int] | None = None
                if _needs_roll(position):
                    if replay is not None:
                        dice, replay = replay, None
                    elif not turns and opening_dice is not None and self.rules.first_roll == "opening_dice":
                        dice = opening_dice
                    else:
                        dice = self.roll()
                moves = position.legal_moves(dice, self.rules)
                say("")
                say(self._show(position))
                shown = _decision_dice(position, dice)
                if dice is None:
                    say(f"{self._who(mover)} to play {shown}")
                else:
                    roll = f"{dice[0]}-{dice[1]}"
                    same = shown in (roll, f"{dice[1]}-{dice[0]}") and dice[0] != dice[1]
                    say(f"{self._who(mover)} rolled {roll}" + ("" if same or shown == roll else f": {shown} to play"))
                human = mover in self.human
                try:
                    if len(moves) == 1:
                        move = moves[0]
                        say(f"{self.names[mover]}: {move.notation} (the only legal move)")
                    elif human:
                        move = self.ask_move(position, dice, moves, any(t.human and t.choices > 1 for t in turns))
                    else:
                        move = self.engine.choose(position, moves, dice, self.rules)
                        say(f"{self.names[mover]}: {move.notation}")
                except Undo:
                    position, replay = self._undo(turns)
                    continue
                turns.append(Turn(position, mover, dice, move, human, len(moves)))
                position = move.position
        except Stop as stop:
            stopped = stop.why
        except KeyboardInterrupt:  # Ctrl-C while the engine thinks
            stopped = "interrupted"
        except Resign as resign:
            resigned = resign.points
        say("")
        say(self._show(position))
        winner = position.winner()
        points = position.points()
        if resigned:
            winner, points = 1 - position.turn, resigned
            say(f"{self.names[position.turn]} resigned: {self.names[winner]} wins {_points(points)}.")
        elif stopped:
            say({"quit": "Game stopped (quit): the game so far is kept, unfinished.",
                 "interrupted": "Game stopped (Ctrl-C): the game so far is kept, unfinished.",
                 "end of input": "End of input: the game is stopped unfinished."}[stopped])
        elif winner is not None:
            say(f"{self.names[winner]} wins {_points(points)}" + (" (mars)" if points == 2 else ""))
        elif position.is_dead(self.rules):
            say("Dead position: the game is drawn.")
        self.console.stopped = stopped
        policies = (self._policy(WHITE), self._policy(BLACK))
        if isinstance(position, GioulPosition):
            assert isinstance(initial, GioulPosition)
            return GioulGameRecord(seed="", rules=self.rules, policies=policies,
                                   decisions=tuple(_decisions(turns)), final=position, winner=winner,
                                   points=points, start=None if opening_dice is not None and turns else initial,
                                   truncated=bool(stopped), resigned=bool(resigned))
        assert isinstance(initial, Position)
        return GameRecord(seed="", rules=self.rules, policies=policies, start=initial, opening_dice=opening_dice,
                          plies=tuple(Ply(t.mover, t.dice or (0, 0), t.move.steps) for t in turns), final=position,
                          winner=winner, points=points, truncated=bool(stopped), resigned=bool(resigned))

    def _undo(self, turns: list[Turn]) -> tuple[AnyPosition, tuple[int, int] | None]:
        """Take back the human's last decision and everything after it: (the position to play
        from, the dice of the roll it began, to be played again)."""
        while turns:
            last = turns.pop()
            if last.human and last.choices > 1:
                whose = "your" if len(self.human) == 1 else f"{self.names[last.mover]}'s"
                self.console.say(f"Undone: {whose} {last.move.notation}; the same dice again.")
                # a Gioul decision inside a roll goes back to the start of the roll
                while last.dice is None and turns:
                    last = turns.pop()
                return last.before, last.dice
        raise AssertionError("undo without a move of yours")  # ask_move refuses it

    def _who(self, color: Color) -> str:
        you = color in self.human and len(self.human) == 1
        return f"{self.names[color]} ({COLOR_NAMES[color]}{', your own numbering' if you else ''})"

    def _policy(self, color: Color) -> str:
        return "human" if color in self.human else self.engine.name

    def ask_move(self, position: AnyPosition, dice: tuple[int, int] | None, moves: Sequence[AnyMove],
                 can_undo: bool) -> AnyMove:
        """Prompt until the human enters a legal move (or a command)."""
        say = self.console.say
        prompt = f"{COLOR_NAMES[position.turn]} {_decision_dice(position, dice)}> "
        while True:
            text = self.console.ask(prompt)
            command, _, argument = text.lower().partition(" ")
            argument = argument.strip()
            if command in ("quit", "exit", "q"):
                raise Stop("quit")
            if command in ("help", "?", "h"):
                say(HELP)
            elif command == "board":
                say(self._show(position))
            elif command == "moves":
                say(f"{len(moves)} legal moves: " + ", ".join(m.notation for m in moves))
            elif command == "hint":
                say(self._hint_text(position, dice))
            elif command == "undo":
                if can_undo:
                    raise Undo()
                say("nothing to undo: you have not moved yet")
            elif command == "resign":
                offer = {"": 1, "single": 1, "1": 1, "mars": 2, "2": 2}.get(argument)
                if offer is None:
                    say(f"resign {argument!r}: say `resign` (1 point) or `resign mars` (2 points)")
                elif self.engine.accepts(position, offer, self.rules):
                    raise Resign(offer)
                else:
                    say(f"{self.names[1 - position.turn]} refuses {_points(offer)}: it expects more by playing on "
                        "(you have no checker off: `resign mars` gives 2 points)")
            elif command == "tutor":
                if argument in ("off", "no"):
                    self.tutor = None
                elif argument in ("", "on", "yes"):
                    self.tutor = self.tutor or MARKS[0]
                elif argument.replace("-", " ") in MARKS:
                    self.tutor = argument.replace("-", " ")
                else:
                    say("tutor on | off | doubtful | bad | very-bad")
                    continue
                say(f"tutor {'off' if self.tutor is None else 'on: warns from ' + self.tutor}")
            elif text:
                try:
                    move: AnyMove = position.parse_move(text, dice, self.rules)
                except FevgaError as exc:
                    say(f"illegal: {explain_illegal(position, text, dice, self.rules, exc)}")
                    continue
                if self.tutor is None or self._tutor_agrees(position, dice, move):
                    return move

    def _hint_text(self, position: AnyPosition, dice: tuple[int, int] | None) -> str:
        top = 5
        hints = self.engine.hints(position, dice, self.rules)
        count = len(hints)
        lines = [f"hint ({self.engine.hint_name}), equity for {COLOR_NAMES[position.turn]}:",
                 *hint_table(hints[:top], self.engine.score is not None)]
        if count > top:
            lines.append(f"  ... {count - top} more (`moves` lists them all)")
        return "\n".join(lines)

    def _tutor_agrees(self, position: AnyPosition, dice: tuple[int, int] | None, move: AnyMove) -> bool:
        """True to play `move`: the hint finds it no worse than the tutor's level, or the human
        confirms it after the warning."""
        assert self.tutor is not None
        ranking = self.engine.rank(position, dice, self.rules)
        mine = next((r for r in ranking if r.move.position == move.position), None)
        if mine is None or mine.loss <= 0:
            return True
        mark = self.thresholds.mark(mine.loss)
        if not mark or MARKS.index(mark) < MARKS.index(self.tutor):
            return True
        best = ranking[0]
        self.console.say(f"tutor: {move.notation} is {mark}: it gives up {mine.loss:.3f} against {best.move.notation} "
                         f"({self.engine.hint_name}).")
        answer = self.console.ask("Play it anyway? [y/N] ").lower()
        return answer in ("y", "yes")


def _points(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


def _decisions(turns: Sequence[Turn]) -> list[Decision]:
    """The Gioul record's decisions of the played turns."""
    out: list[Decision] = []
    previous: int | None = None
    for t in turns:
        assert isinstance(t.before, GioulPosition)
        holding = t.before.rolled(t.dice) if t.dice is not None else t.before
        roller = holding.roller if holding.roller is not None else t.mover
        kind = "roll" if t.dice is not None else ("block" if previous == t.mover else "hand-over")
        out.append(Decision(t.mover, roller, t.dice, holding.decision_dice, kind, t.move.steps, t.choices))
        previous = t.mover
    return out


def explain_illegal(position: AnyPosition, text: str, dice: tuple[int, int] | None, rules: Rules,
                    error: Exception) -> str:
    """Why `text` is not a legal move: the parser's reason, or a pip count or dice count that
    cannot match the roll, followed by the legal moves."""
    moves = position.legal_moves(dice, rules)
    legal = "legal: " + ", ".join(m.notation for m in moves)
    try:
        paths = parse_paths(text)
    except FevgaError:
        return str(error)
    if "no checker" in str(error):
        return str(error).split(": ", 1)[-1] + f"; {legal}"
    if isinstance(position, GioulPosition) or dice is None:
        return f"{text} is not legal here (docs/rules.md, Gioul); {legal}"
    mover = position.turn
    dice_count = 4 if dice[0] == dice[1] else 2
    most = dice[0] * dice_count if dice[0] == dice[1] else dice[0] + dice[1]
    moved = sum(a - b for a, b in paths)
    bears_off = any(b == 0 for _, b in paths)
    if moved > most and not bears_off:
        return f"{text} moves {moved} pips, but {dice[0]}-{dice[1]} moves at most {most}; {legal}"

    def pips(p: AnyPosition) -> int:
        return position.pips(mover) - p.pips(mover)

    if not bears_off and moves and moved < min(pips(m.position) for m in moves):
        return (f"{text} moves {moved} pips, but every legal move plays more of the roll (play both dice, or "
                f"as many as possible: docs/rules.md §6); {legal}")
    return (f"{text} is not legal with {dice[0]}-{dice[1]} here (a landing point is held by the opponent, the "
            f"mother rule or a six-prime rule forbids it: docs/rules.md §3-5); {legal}")


# ---------------------------------------------------------------------------------------
# Entry points


SIDES = {"white": frozenset({WHITE}), "black": frozenset({BLACK}), "both": frozenset({WHITE, BLACK}),
         "none": frozenset()}


def make_session(human: str, seed: SeedLike, rules: Rules, console: Console | None = None,
                 engine: Engine | None = None, names: tuple[str, str] | None = None,
                 tutor: str | None = None) -> tuple[Session, str]:
    """A session for `human` ("white", "black", "both" or "none") and the seed it records.
    `engine` defaults to the game's strongest player (`DEFAULT_ENGINE`) with the shipped net."""
    if human not in SIDES:
        raise InvalidArgumentError(f"--human {human!r} must be white, black, both or none")
    if tutor is not None and tutor not in TUTOR_LEVELS:
        raise InvalidArgumentError(f"tutor {tutor!r} must be one of {', '.join(TUTOR_LEVELS)}")
    sequence = seed_sequence(seed)
    dice_rng = np.random.default_rng(sequence)  # the dice of a seed, as before the engine drew numbers
    engine_rng = np.random.default_rng(sequence.spawn(1)[0])  # the "random" engine's own stream
    if engine is None:
        game = rules.game
        engine = Engine(DEFAULT_ENGINE[game], game, rng=engine_rng)
    default_names = tuple("You" if c in SIDES[human] else "fevga" for c in (WHITE, BLACK))
    if human in ("both", "none"):
        default_names = ("White", "Black")
    session = Session(human=SIDES[human], engine=engine, rules=rules, console=console or Console(),
                      rng=dice_rng, names=names or (default_names[0], default_names[1]), tutor=tutor)
    return session, str(seed_repr(sequence))


def _opening_line(session: Session, what: str, human: str, seed_text: str) -> str:
    engine = session.engine
    against = "" if human == "both" else f" against {engine.name}"
    numbering = " The board is drawn in Black's own numbering, the one you type moves in." if human == "black" else ""
    return (f"fevga: {what}, you play {human}{against}; hints: {engine.hint_name}; dice seed {seed_text}."
            f"{numbering} Type 'help' for commands.")


def play_human_game(human: str, seed: SeedLike = None, rules: Rules | None = None,
                    console: Console | None = None, engine: Engine | None = None,
                    start: AnyPosition | None = None, tutor: str | None = None) -> AnyRecord:
    """Play one game in the terminal: `human` is the human's side; dice come from `seed`. The
    game is Gioul when `rules` are Gioul's (``Rules.gioul()``) or `start` is a GioulPosition."""
    if rules is None:
        rules = Rules.gioul() if isinstance(start, GioulPosition) else Rules()
    session, seed_text = make_session(human, seed, rules, console, engine, tutor=tutor)
    session.console.say(_opening_line(session, "Gioul" if session.game == "gioul" else "Fevga", human, seed_text))
    record = session.play_game(start, start is None)
    return _with_seed(record, seed_text)


def _with_seed(record: AnyRecord, seed: str) -> AnyRecord:
    return replace(record, seed=seed)


def play_human_match(length: int, human: str, seed: SeedLike = None, rules: Rules | None = None,
                     console: Console | None = None, engine: Engine | None = None,
                     tutor: str | None = None) -> MatchRecord:
    """Play a Fevga match to `length` in the terminal (the winner of a game starts the next one);
    the engine plays and hints at each game's score."""
    length = check_int("match length", length, 1, MAX_LENGTH)
    session, seed_text = make_session(human, seed, rules or Rules(), console, engine, tutor=tutor)
    if session.game != "fevga":
        raise InvalidArgumentError("--human matches are Fevga matches; play Gioul games with fevga play --game gioul")
    say = session.console.say
    base = session.engine
    say(_opening_line(session, f"{length} point match", human, seed_text))
    score = [0, 0]
    games: list[GameRecord] = []
    starter: Color | None = None
    while max(score) < length:
        say("")
        say(f"Game {len(games) + 1}: {session.names[0]} {score[0]}, {session.names[1]} {score[1]} "
            f"(to {length})")
        start = None if starter is None else _with_turn(Position.initial(), starter)
        session.engine = base.at_score((score[0], score[1]), length)
        record = _with_seed(session.play_game(start, starter is None), seed_text)
        assert isinstance(record, GameRecord)
        games.append(record)
        if record.truncated:
            break
        if record.winner is None:
            starter = None
            continue
        score[record.winner] += record.points
        starter = record.winner
    say(f"Score: {session.names[0]} {score[0]}, {session.names[1]} {score[1]}"
        + (f"; {session.names[score.index(max(score))]} wins the match" if max(score) >= length else ""))
    return MatchRecord(length=length, games=tuple(games), score=(score[0], score[1]), players=session.names)


def engine_of(args: argparse.Namespace, game: str) -> Any:
    """The engine side of a human game (fevga.cli.human.Engine) from --policy, --white, --black
    and --net: options naming the human's own side, or a policy the engine cannot play, are refused."""
    human = {"white": ("white",), "black": ("black",), "both": ("white", "black")}[args.human]
    for side in human:
        if getattr(args, side):
            raise InvalidArgumentError(f"--{side} {getattr(args, side)} names the policy of {side}, but you play "
                                       f"{side} (--human {args.human})")
    if args.human == "both" and (args.policy or args.net or args.quantised):
        raise InvalidArgumentError("--policy, --net and --quantised choose the engine's side, but with --human both "
                                   "you play both sides")
    chosen = {p for p in (args.policy, args.white, args.black) if p}
    if len(chosen) > 1:
        raise InvalidArgumentError(f"--policy, --white and --black name {sorted(chosen)} for the one engine side")
    policy = chosen.pop() if chosen else DEFAULT_ENGINE[game]
    if not 1 <= args.hint_plies <= deepest_plies(game, True):
        raise InvalidArgumentError(f"--hint-plies {args.hint_plies} must be 1..{deepest_plies(game, True)} ({game})")
    if args.hint_every_move and args.hint_plies < 2:
        raise InvalidArgumentError("--hint-every-move searches at 2 plies or more: add --hint-plies 2")
    return Engine(policy, game, net_argument(args, game), args.hint_plies, hint_every_move=args.hint_every_move)
