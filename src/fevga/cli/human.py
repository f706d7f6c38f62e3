"""Play against the engine in the terminal: `fevga play --human white` and `fevga play-match --human ...`.

The board is shown after every roll; the human types a move in any notation the engine
parses (``24/13``, ``24/18/13``, ``24/18 18/13``, ``6/off(2)``), or ``hint``, ``moves``,
``board``, ``help``, ``quit``. Illegal moves are rejected with the reason. Input may come
from a terminal (tmux) or a pipe: at the end of piped input the game stops cleanly, and
piped commands are echoed so that the transcript reads like a terminal session.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from fevga.analyser import Evaluator, HeuristicEvaluator
from fevga.errors import FevgaError, InvalidArgumentError
from fevga.game import GameRecord, MatchRecord, Ply, _with_turn
from fevga.position import BLACK, COLOR_NAMES, WHITE, Color, Move, Position
from fevga.rules import Rules
from fevga.seeding import SeedLike, seed_repr, seed_sequence

HELP = """commands:
  a move in your own numbering, e.g. 24/13, 24/18/13, 24/18 18/13, 6/off(2), pass
  hint     the engine's best moves for this roll, with their equities
  moves    every legal move
  board    show the board again
  quit     stop (the game so far is kept)"""


class Quit(Exception):
    """The human typed quit or the input ended."""


@dataclass
class Console:
    """Where the session reads commands and writes the board (a terminal or pipes)."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if line == "":
            self.say("")
            raise Quit("end of input")
        interactive = getattr(self.stdin, "isatty", lambda: False)()
        if not interactive:
            self.say(line.rstrip("\n"))  # echo piped input so the transcript reads like a session
        return line.strip()


@dataclass
class Session:
    """One human against the engine, with seeded dice."""

    human: frozenset[Color]
    engine: Evaluator
    hint: Evaluator
    rules: Rules
    console: Console
    rng: np.random.Generator
    names: tuple[str, str] = ("White", "Black")

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

    def play_game(self, start: Position | None, opening: bool) -> GameRecord:
        """Play one game from `start` (with the opening draw if `opening`) and return its record."""
        say = self.console.say
        initial = start or Position.initial()
        opening_dice = self.opening_draw() if opening else None
        if opening_dice is not None:
            starter = WHITE if opening_dice[0] > opening_dice[1] else BLACK
            position = _with_turn(initial, starter)
        else:
            position = initial
        plies: list[Ply] = []
        first = True
        try:
            while not position.is_game_over(self.rules):
                mover = position.turn
                if first and opening_dice is not None and self.rules.first_roll == "opening_dice":
                    dice = opening_dice
                else:
                    dice = self.roll()
                first = False
                say("")
                say(str(position))
                say(f"{self._who(mover)} {dice[0]}-{dice[1]}")
                moves = position.legal_moves(dice, self.rules)
                if len(moves) == 1:
                    move = moves[0]
                    say(f"{self.names[mover]}: {move.notation} (the only legal move)")
                elif mover in self.human:
                    move = self.ask_move(position, dice)
                else:
                    move = self.engine.rank(position, dice, self.rules)[0][0]
                    say(f"{self.names[mover]}: {move.notation}")
                plies.append(Ply(mover, dice, move.steps))
                position = move.position
        except Quit:
            say("Game stopped.")
        winner = position.winner()
        say("")
        say(str(position))
        if winner is not None:
            say(f"{self.names[winner]} wins {position.points()} point(s)"
                + (" (mars)" if position.points() == 2 else ""))
        elif position.is_dead(self.rules):
            say("Dead position: the game is drawn.")
        return GameRecord(seed="", rules=self.rules, policies=(self._policy(WHITE), self._policy(BLACK)),
                          start=initial, opening_dice=opening_dice, plies=tuple(plies), final=position,
                          winner=winner, points=position.points(),
                          truncated=not position.is_game_over(self.rules))

    def _who(self, color: Color) -> str:
        text = f"{self.names[color]} ({COLOR_NAMES[color]}) rolled"
        if color in self.human and color == BLACK:
            text = f"{self.names[color]} (black; your own point k is printed k+12 for k <= 12, else k-12) rolled"
        return text

    def _policy(self, color: Color) -> str:
        return "human" if color in self.human else self.engine.name

    def ask_move(self, position: Position, dice: tuple[int, int]) -> Move:
        """Prompt until the human enters a legal move (or a command)."""
        say = self.console.say
        prompt = f"{COLOR_NAMES[position.turn]} {dice[0]}-{dice[1]}> "
        while True:
            text = self.console.ask(prompt)
            command = text.lower()
            if command in ("quit", "exit", "q"):
                raise Quit("quit")
            if command in ("help", "?", "h"):
                say(HELP)
                continue
            if command == "board":
                say(str(position))
                continue
            if command == "moves":
                moves = position.legal_moves(dice, self.rules)
                say(f"{len(moves)} legal moves: " + ", ".join(m.notation for m in moves))
                continue
            if command == "hint":
                ranking = self.hint.rank(position, dice, self.rules)
                best = ranking[0][1]
                say(f"hint ({self.hint.name}), equity for {COLOR_NAMES[position.turn]}:")
                for rank, (move, equity) in enumerate(ranking[:5], 1):
                    say(f"  {rank}. {move.notation:<28} {equity:+.3f}  ({equity - best:+.3f})")
                continue
            if not text:
                continue
            try:
                return position.parse_move(text, dice, self.rules)
            except FevgaError as exc:
                say(f"illegal: {explain_illegal(position, text, dice, self.rules, exc)}")


def explain_illegal(position: Position, text: str, dice: tuple[int, int], rules: Rules, error: Exception) -> str:
    """Why `text` is not a legal move: the parser's reason, or a pip count or dice count that
    cannot match the roll, followed by the legal moves."""
    from fevga.notation import parse_paths

    moves = position.legal_moves(dice, rules)
    legal = "legal: " + ", ".join(m.notation for m in moves)
    try:
        paths = parse_paths(text)
    except FevgaError:
        return str(error)
    if "no checker" in str(error):
        return str(error).split(": ", 1)[-1] + f"; {legal}"
    mover = position.turn
    dice_count = 4 if dice[0] == dice[1] else 2
    most = dice[0] * dice_count if dice[0] == dice[1] else dice[0] + dice[1]
    moved = sum(a - b for a, b in paths)
    bears_off = any(b == 0 for _, b in paths)
    if moved > most and not bears_off:
        return f"{text} moves {moved} pips, but {dice[0]}-{dice[1]} moves at most {most}; {legal}"
    def pips(p: Position) -> int:
        return position.pips(mover) - p.pips(mover)
    if not bears_off and moves and moved < min(pips(m.position) for m in moves):
        return (f"{text} moves {moved} pips, but every legal move plays more of the roll (play both dice, or "
                f"as many as possible: docs/rules.md §6); {legal}")
    return (f"{text} is not legal with {dice[0]}-{dice[1]} here (a landing point is held by the opponent, the "
            f"mother rule or a six-prime rule forbids it: docs/rules.md §3-5); {legal}")


def make_session(human: str, seed: SeedLike, rules: Rules, console: Console | None = None,
                 engine: Evaluator | None = None, names: tuple[str, str] | None = None) -> tuple[Session, str]:
    """A session for `human` ("white", "black", "both" or "none") and the seed it records."""
    sides = {"white": frozenset({WHITE}), "black": frozenset({BLACK}), "both": frozenset({WHITE, BLACK}),
             "none": frozenset()}
    if human not in sides:
        raise InvalidArgumentError(f"--human {human!r} must be white, black, both or none")
    sequence = seed_sequence(seed)
    evaluator = engine or HeuristicEvaluator(plies=2)
    default_names = tuple("You" if c in sides[human] else "fevga" for c in (WHITE, BLACK))
    if human in ("both", "none"):
        default_names = ("White", "Black")
    session = Session(human=sides[human], engine=evaluator, hint=evaluator, rules=rules,
                      console=console or Console(), rng=np.random.default_rng(sequence),
                      names=names or (default_names[0], default_names[1]))
    return session, str(seed_repr(sequence))


def play_human_game(human: str, seed: SeedLike = None, rules: Rules | None = None,
                    console: Console | None = None, engine: Evaluator | None = None) -> GameRecord:
    """Play one game in the terminal: `human` is the human's side; dice come from `seed`."""
    session, seed_text = make_session(human, seed, rules or Rules(), console, engine)
    session.console.say(f"fevga: you play {human}; dice seed {seed_text}. Type 'help' for commands.")
    record = session.play_game(None, True)
    return GameRecord(seed=seed_text, rules=record.rules, policies=record.policies, start=record.start,
                      opening_dice=record.opening_dice, plies=record.plies, final=record.final,
                      winner=record.winner, points=record.points, truncated=record.truncated)


def play_human_match(length: int, human: str, seed: SeedLike = None, rules: Rules | None = None,
                     console: Console | None = None, engine: Evaluator | None = None) -> MatchRecord:
    """Play a match to `length` in the terminal (the winner of a game starts the next one)."""
    if not isinstance(length, int) or length < 1:
        raise InvalidArgumentError(f"match length {length!r} must be a positive integer")
    session, seed_text = make_session(human, seed, rules or Rules(), console, engine)
    say = session.console.say
    base = session.engine
    say(f"fevga: {length} point match, you play {human}; dice seed {seed_text}. Type 'help' for commands.")
    score = [0, 0]
    games: list[GameRecord] = []
    starter: Color | None = None
    while max(score) < length:
        say("")
        say(f"Game {len(games) + 1}: {session.names[0]} {score[0]}, {session.names[1]} {score[1]} "
            f"(to {length})")
        start = None if starter is None else _with_turn(Position.initial(), starter)
        at_score = getattr(base, "at_score", None)  # a match-aware engine plays and hints at the score
        session.engine = session.hint = at_score((score[0], score[1]), length) if at_score else base
        record = session.play_game(start, starter is None)
        record = GameRecord(seed=seed_text, rules=record.rules, policies=record.policies, start=record.start,
                            opening_dice=record.opening_dice, plies=record.plies, final=record.final,
                            winner=record.winner, points=record.points, truncated=record.truncated)
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
