"""`fevga show | moves | perft | play`: positions, legal moves, perft and self-play,
for Fevga or (``--game gioul``, or a Gioul ID/JSON as POSITION) Gioul."""

from __future__ import annotations

import argparse
import json
import time

from fevga.errors import InvalidArgumentError, InvalidRulesError
from fevga.files import output_path
from fevga.game import play_game
from fevga.gioul import GioulPosition, play_gioul_game
from fevga.notation import GIOUL_ID_LENGTH
from fevga.policy import POLICY_IDS
from fevga.position import COLOR_NAMES, Position, perft
from fevga.rules import Rules


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    """The shared ``--rules default|strict`` option."""
    parser.add_argument("--rules", default="default", choices=["default", "strict"], help="rule preset (default: %(default)s)")


def add_game_option(parser: argparse.ArgumentParser) -> None:
    """The shared ``--game fevga|gioul`` option (default: from POSITION, else fevga)."""
    parser.add_argument(
        "--game", choices=["fevga", "gioul"], default=None,
        help="the game (default: gioul for a Gioul ID or JSON, else fevga)",
    )


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


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the position, move, perft and self-play sub-commands."""
    show = subparsers.add_parser("show", help="draw a position in printed numbering")
    show.add_argument("position", nargs="?", default="start", help="position ID, 'start' or JSON (default: start)")
    add_game_option(show)
    show.set_defaults(run=_show)

    moves = subparsers.add_parser("moves", help="list the legal moves of a position for a roll")
    moves.add_argument("position", help="position ID, 'start' or JSON")
    moves.add_argument("dice", nargs="?", default=None,
                       help="the roll, e.g. 6-5 (Gioul: omit it when the position has dice pending)")
    moves.add_argument("--json", action="store_true", help="print JSON")
    add_rules_option(moves)
    add_game_option(moves)
    moves.set_defaults(run=_moves)

    perft_parser = subparsers.add_parser("perft", help="count the leaves of the roll/move tree")
    perft_parser.add_argument("depth", type=int)
    perft_parser.add_argument("--position", default="start", help="root position (default: start)")
    add_rules_option(perft_parser)
    add_game_option(perft_parser)
    perft_parser.set_defaults(run=_perft)

    play = subparsers.add_parser("play", help="play a seeded self-play game and print its record")
    play.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy, printed)")
    play.add_argument("--policy", default="random", choices=sorted(POLICY_IDS), help="policy of both sides")
    play.add_argument("--human", choices=["white", "black", "both"],
                      help="play this side yourself in the terminal (type 'help' at the prompt)")
    play.add_argument("--save", metavar="FILE", help="save the record (.json: JSON, else the text match format)")
    play.add_argument("--white", choices=sorted(POLICY_IDS), help="White's policy (overrides --policy)")
    play.add_argument("--black", choices=sorted(POLICY_IDS), help="Black's policy (overrides --policy)")
    play.add_argument("--start", default=None, help="start position (default: the initial one with the opening draw)")
    play.add_argument("--json", action="store_true", help="print the full record as JSON")
    play.add_argument("--net", default=None, metavar="FILE", help="net weights for the net policies (default: shipped)")
    add_rules_option(play)
    add_game_option(play)
    play.set_defaults(run=_play)


def _show(args: argparse.Namespace) -> int:
    print(position_argument(args.position, game_of(args, args.position)))
    return 0


def _gioul_moves(args: argparse.Namespace, position: GioulPosition) -> int:
    moves = position.legal_moves(args.dice)
    dice = args.dice if args.dice else " ".join(map(str, position.decision_dice))
    if args.json:
        print(json.dumps({
            "game": "gioul",
            "position": position.id,
            "turn": COLOR_NAMES[position.turn],
            "dice": dice,
            "pending": list(position.pending),
            "moves": [
                {"move": m.notation, "steps": [list(s) for s in m.steps], "position": m.position.id,
                 "next": COLOR_NAMES[m.position.turn], "pending": list(m.position.pending)}
                for m in moves
            ],
        }, indent=2))
        return 0
    print(f"{len(moves)} legal move(s) for {COLOR_NAMES[position.turn]} with {dice}:")
    for move in moves:
        after = move.position
        if after.winner() is not None:
            then = f"{COLOR_NAMES[after.winner() or 0]} wins"
        elif after.pending:
            then = f"{COLOR_NAMES[after.turn]} plays {' '.join(map(str, after.pending))}"
        else:
            then = f"{COLOR_NAMES[after.turn]} rolls"
        print(f"  {move.notation:<28} -> {after.id}  ({then})")
    return 0


def _moves(args: argparse.Namespace) -> int:
    game = game_of(args, args.position)
    position = position_argument(args.position, game)
    rules = rules_argument(args, game)
    if isinstance(position, GioulPosition):
        return _gioul_moves(args, position)
    if args.dice is None:
        raise InvalidArgumentError("fevga moves needs the dice, e.g. 6-5")
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
    game = game_of(args, args.position)
    count = perft(position_argument(args.position, game), args.depth, rules_argument(args, game))
    elapsed = time.perf_counter() - started
    print(f"perft({args.depth}) = {count}   [{elapsed:.3f} s]")
    return 0


def _play(args: argparse.Namespace) -> int:
    if args.save:
        output_path(args.save, "record")  # before the game, not after it
    if args.human:
        from fevga.cli.human import play_human_game
        from fevga.records import save_record

        human_record = play_human_game(args.human, seed=args.seed, rules=Rules.named(args.rules))
        if args.save:
            save_record(human_record, args.save)
            print(f"saved {args.save}")
        return 0
    policy = (args.white or args.policy, args.black or args.policy)
    game = game_of(args, args.start)
    if game == "gioul":
        if args.start:
            raise InvalidArgumentError("--start is not supported for Gioul games (they begin with the one-die draw)")
        gioul = play_gioul_game(seed=args.seed, policy=policy, rules=rules_argument(args, game))
        if args.json:
            print(gioul.to_json(indent=2))
        else:
            print(f"Gioul, seed {gioul.seed}, policies white={policy[0]} black={policy[1]}")
            print(gioul.log())
        return 0
    start = position_argument(args.start) if args.start else None
    if start is not None and not isinstance(start, Position):
        raise InvalidArgumentError(f"start {args.start!r} is not a Fevga position")
    record = play_game(seed=args.seed, policy=policy, rules=Rules.named(args.rules), start=start, net=args.net)
    if args.json:
        print(record.to_json(indent=2))
    else:
        print(f"seed {record.seed}, policies white={policy[0]} black={policy[1]}")
        print(record.log())
    if args.save:
        from fevga.records import save_record

        save_record(record, args.save)
    return 0
