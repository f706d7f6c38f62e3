"""The options and arguments the commands share: the game and its rules, the match score,
positions given as IDs or JSON, and the human-play switches."""

from __future__ import annotations

import argparse

from fevga.errors import InvalidArgumentError, InvalidRulesError
from fevga.gioul import GioulPosition
from fevga.notation import GIOUL_ID_LENGTH
from fevga.position import Position
from fevga.rules import Rules


def add_game_options(parser: argparse.ArgumentParser, *, rules: bool = True) -> None:
    """The shared ``--game fevga|gioul`` option (default: from POSITION, else fevga) and,
    with `rules`, ``--rules default|strict``."""
    parser.add_argument(
        "--game", choices=["fevga", "gioul"], default=None,
        help="the game (default: gioul for a Gioul ID or JSON, else fevga)",
    )
    if rules:
        parser.add_argument("--rules", default="default", choices=["default", "strict"],
                            help="rule preset (default: %(default)s)")


def add_position_arguments(parser: argparse.ArgumentParser, *, optional: bool = False, dice: bool = False) -> None:
    """The POSITION argument of either game (`optional`: it defaults to the start) and, with
    `dice`, the DICE argument after it."""
    if optional:
        parser.add_argument("position", nargs="?", default="start",
                            help="position ID, 'start' or JSON, Fevga or Gioul (default: start)")
    else:
        parser.add_argument("position", help="position ID, 'start' or JSON, Fevga or Gioul")
    if dice:
        parser.add_argument("dice", nargs="?", default=None,
                            help="the roll, e.g. 6-5 (Gioul: omit it when the position has dice pending)")


def add_match_options(parser: argparse.ArgumentParser, effect: str) -> None:
    """Add --score W-B and --length N (a running match score; `effect` says what it changes)."""
    parser.add_argument("--score", default=None, metavar="W-B",
                        help=f"match score (White-Black points), with --length: {effect}")
    parser.add_argument("--length", type=int, default=None, help="match length in points (with --score)")


def score_of(args: argparse.Namespace) -> tuple[int, int] | None:
    """The (white, black) score of --score, or None."""
    if args.score is None:
        return None
    try:
        white, black = (int(v) for v in args.score.split("-"))
    except ValueError:
        raise InvalidArgumentError(f"--score {args.score!r} must be two numbers like 3-1") from None
    return (white, black)


def game_of(args: argparse.Namespace, text: str | None) -> str:
    """The game of a command: --game, else what POSITION looks like."""
    if args.game:
        return str(args.game)
    stripped = (text or "").strip()
    if len(stripped) == GIOUL_ID_LENGTH or (stripped.startswith("{") and '"gioul"' in stripped):
        return "gioul"
    return "fevga"


def position_argument(text: str, game: str = "fevga") -> Position | GioulPosition:
    """Parse a POSITION argument of `game`: an ID, ``start`` or JSON."""
    if game == "gioul":
        return GioulPosition.parse(text)
    return Position.parse(text)


def rules_argument(args: argparse.Namespace, game: str) -> Rules:
    """The rules of a command: the --rules preset for Fevga, Gioul's rules for Gioul."""
    if game == "gioul":
        if args.rules != "default":
            raise InvalidRulesError(f"--rules {args.rules} is a Fevga preset; Gioul has no variant presets")
        return Rules.gioul()
    return Rules.named(args.rules)


def add_human_options(parser: argparse.ArgumentParser) -> None:
    """The options of a game against the engine: --tutor [LEVEL], --hint-plies N and --hint-every-move."""
    parser.add_argument("--tutor", nargs="?", const="doubtful", default=None, choices=["doubtful", "bad", "very-bad"],
                        help="with --human: warn before a move the hint marks this bad or worse (default: doubtful; "
                             "thresholds 0.04 / 0.08 / 0.16 as in docs/analysis.md)")
    parser.add_argument("--hint-plies", type=int, default=1,
                        help="with --human: plies of the hints and the tutor, as fevga hint --plies (default: %(default)s)")
    parser.add_argument("--hint-every-move", action=argparse.BooleanOptionalAction, default=None,
                        help="with --human and --hint-plies 2 or more: the hints and the tutor search every move, "
                             "as fevga hint --every-move, or (--no-hint-every-move) the filter's (default: the "
                             "game's, every move in Gioul)")
