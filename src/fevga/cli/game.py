"""`fevga show | moves | perft | play`: positions, legal moves, perft and self-play."""

from __future__ import annotations

import argparse
import json
import time

from fevga.errors import InvalidArgumentError
from fevga.game import play_game
from fevga.policy import POLICY_IDS
from fevga.position import COLOR_NAMES, Position, perft
from fevga.rules import Rules


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    """The shared ``--rules default|strict`` option."""
    parser.add_argument("--rules", default="default", choices=["default", "strict"], help="rule preset (default: %(default)s)")


def position_argument(text: str) -> Position:
    """Parse a POSITION argument: an ID, ``start`` or JSON."""
    return Position.parse(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the position, move, perft and self-play sub-commands."""
    show = subparsers.add_parser("show", help="draw a position in printed numbering")
    show.add_argument("position", nargs="?", default="start", help="position ID, 'start' or JSON (default: start)")
    show.set_defaults(run=_show)

    moves = subparsers.add_parser("moves", help="list the legal moves of a position for a roll")
    moves.add_argument("position", help="position ID, 'start' or JSON")
    moves.add_argument("dice", help="the roll, e.g. 6-5")
    moves.add_argument("--json", action="store_true", help="print JSON")
    add_rules_option(moves)
    moves.set_defaults(run=_moves)

    perft_parser = subparsers.add_parser("perft", help="count the leaves of the roll/move tree")
    perft_parser.add_argument("depth", type=int)
    perft_parser.add_argument("--position", default="start", help="root position (default: start)")
    add_rules_option(perft_parser)
    perft_parser.set_defaults(run=_perft)

    play = subparsers.add_parser("play", help="play a seeded self-play game and print its record")
    play.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy, printed)")
    play.add_argument("--policy", default="random", choices=sorted(POLICY_IDS), help="policy of both sides")
    play.add_argument("--white", choices=sorted(POLICY_IDS), help="White's policy (overrides --policy)")
    play.add_argument("--black", choices=sorted(POLICY_IDS), help="Black's policy (overrides --policy)")
    play.add_argument("--start", default=None, help="start position (default: the initial one with the opening draw)")
    play.add_argument("--json", action="store_true", help="print the full record as JSON")
    add_rules_option(play)
    play.set_defaults(run=_play)


def _show(args: argparse.Namespace) -> int:
    print(position_argument(args.position))
    return 0


def _moves(args: argparse.Namespace) -> int:
    position = position_argument(args.position)
    rules = Rules.named(args.rules)
    moves = position.legal_moves(args.dice, rules)
    over = _game_over(position, rules)
    if args.json:
        print(json.dumps({
            "position": position.id,
            "turn": COLOR_NAMES[position.turn],
            "dice": args.dice,
            "rules": rules.to_dict(),
            "game_over": over,
            "moves": [{"move": m.notation, "steps": [list(s) for s in m.steps], "position": m.position.id} for m in moves],
        }, indent=2))
    elif over is not None:
        print(f"the game is over ({over}): there are no moves")
    else:
        print(f"{len(moves)} legal move(s) for {COLOR_NAMES[position.turn]} with {args.dice}:")
        for move in moves:
            print(f"  {move.notation:<28} -> {move.position.id}")
    return 0


def _game_over(position: Position, rules: Rules) -> str | None:
    """How a finished game ended ("white wins 2 points", "dead position: a draw"), else None."""
    winner = position.winner()
    if winner is not None:
        return f"{COLOR_NAMES[winner]} wins {position.points()} point{'s' if position.points() > 1 else ''}"
    return "dead position: a draw" if position.is_dead(rules) else None


def _perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise InvalidArgumentError(f"perft depth {args.depth} must be >= 0")
    started = time.perf_counter()
    count = perft(position_argument(args.position), args.depth, Rules.named(args.rules))
    elapsed = time.perf_counter() - started
    print(f"perft({args.depth}) = {count}   [{elapsed:.3f} s]")
    return 0


def _play(args: argparse.Namespace) -> int:
    policy = (args.white or args.policy, args.black or args.policy)
    start = position_argument(args.start) if args.start else None
    record = play_game(seed=args.seed, policy=policy, rules=Rules.named(args.rules), start=start)
    if args.json:
        print(record.to_json(indent=2))
    else:
        print(f"seed {record.seed}, policies white={policy[0]} black={policy[1]}")
        print(record.log())
    return 0
