"""`fevga show | moves | perft | play`: positions, legal moves, perft and self-play,
for Fevga or (``--game gioul``, or a Gioul ID/JSON as POSITION) Gioul."""

from __future__ import annotations

import argparse
import json
import sys
import time

from fevga import svg
from fevga.cli.human import Console, engine_of, play_human_game
from fevga.cli.options import (add_game_options, add_human_options, add_position_arguments, game_of, position_argument,
                               rules_argument)
from fevga.cli.net import add_net_option, net_argument
from fevga.errors import InvalidArgumentError
from fevga.files import output_path
from fevga.game import play_game
from fevga.gioul import GioulPosition
from fevga.notation import parse_dice
from fevga.policy import POLICY_IDS
from fevga.position import BLACK, COLOR_NAMES, WHITE, Position, perft
from fevga.records import GameRecord, GioulGameRecord, save_record
from fevga.rules import Rules


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the position, move, perft and self-play sub-commands."""
    show = subparsers.add_parser("show", help="draw a position in printed numbering")
    add_position_arguments(show, optional=True)
    show.add_argument("--svg", metavar="FILE", help="also write the board as an SVG picture (fevga.svg.board)")
    show.add_argument("--png", metavar="FILE",
                      help="also write the board as a PNG picture (needs the png extra or the rsvg-convert tool)")
    show.add_argument("--dice", default=None, help="draw these dice on the pictures, e.g. 6-5")
    show.add_argument("--black", action="store_true", help="number the points as Black does (the board turned)")
    show.add_argument("--size", type=int, default=480, help="width of the pictures in pixels (default: %(default)s)")
    add_game_options(show, rules=False)
    show.set_defaults(run=_show)

    moves = subparsers.add_parser("moves", help="list the legal moves of a position for a roll")
    add_position_arguments(moves, dice=True)
    moves.add_argument("--json", action="store_true", help="print JSON")
    add_game_options(moves)
    moves.set_defaults(run=_moves)

    perft_parser = subparsers.add_parser("perft", help="count the leaves of the roll/move tree")
    perft_parser.add_argument("depth", type=int)
    perft_parser.add_argument("--position", default="start", help="root position (default: start)")
    add_game_options(perft_parser)
    perft_parser.set_defaults(run=_perft)

    play = subparsers.add_parser("play", help="play a seeded self-play game and print its record")
    play.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy, printed)")
    play.add_argument("--policy", default=None, choices=sorted(POLICY_IDS),
                      help="policy of both sides (default: random; with --human the engine's, default net2 "
                           "for Fevga, heuristic for Gioul)")
    play.add_argument("--human", choices=["white", "black", "both"],
                      help="play this side yourself in the terminal (type 'help' at the prompt)")
    add_human_options(play)
    play.add_argument("--save", metavar="FILE", help="save the record (.json: JSON, else the text match format)")
    play.add_argument("--white", choices=sorted(POLICY_IDS), help="White's policy (overrides --policy)")
    play.add_argument("--black", choices=sorted(POLICY_IDS), help="Black's policy (overrides --policy)")
    play.add_argument("--start", default=None, help="start position (default: the initial one with the opening draw)")
    play.add_argument("--json", action="store_true", help="print the full record as JSON")
    add_net_option(play, "net weights for the net policies (default: shipped)")
    add_game_options(play)
    play.set_defaults(run=_play)


def _show(args: argparse.Namespace) -> int:
    for path in (args.svg, args.png):
        if path:
            output_path(path, "board image")  # before anything is drawn or printed
    position = position_argument(args.position, game_of(args, args.position))
    perspective = BLACK if args.black else WHITE
    print(position.diagram(perspective))
    if not (args.svg or args.png):
        if args.dice or args.size != 480:
            raise InvalidArgumentError("--dice and --size draw pictures: add --svg FILE or --png FILE")
        return 0
    if not 16 <= args.size <= 4096:
        raise InvalidArgumentError(f"--size {args.size} must be 16..4096 pixels")
    dice = parse_dice(args.dice) if args.dice else None

    board = position.board() if isinstance(position, GioulPosition) else position
    for path, image in ((args.svg, "svg"), (args.png, "png")):
        if path:
            svg.save(board, path, image, size=args.size, dice=dice, perspective=perspective)
            print(f"wrote {path}")
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
            "moves": [m.to_dict() for m in moves],
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
            "moves": [m.to_dict() for m in moves],
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


def _play_human(args: argparse.Namespace) -> int:
    """`fevga play --human SIDE`: one game against the engine; --save keeps it, finished or not."""
    game = game_of(args, args.start)
    if args.json:
        raise InvalidArgumentError("--json prints a self-play record; save a human game with --save FILE.json")
    start = position_argument(args.start, game) if args.start else None
    engine = engine_of(args, game)
    console = Console()
    record = play_human_game(args.human, seed=args.seed, rules=rules_argument(args, game), console=console,
                             engine=engine, start=start, tutor=args.tutor.replace("-", " ") if args.tutor else None)
    if args.save:
        save_record(record, args.save)
        print(f"saved {args.save}" + (" (unfinished)" if record.result == "truncated" else ""))
    if console.stopped == "end of input":
        print("fevga: the input ended before the game did; "
              + (f"the game so far is saved in {args.save}" if args.save else "nothing was saved (no --save)"),
              file=sys.stderr)
    return 130 if console.stopped == "interrupted" else 0  # 130: the shell's status after Ctrl-C


def _play(args: argparse.Namespace) -> int:
    game = game_of(args, args.start)
    if args.save:
        output_path(args.save, "record")  # before the game, not after it
    if args.human:
        return _play_human(args)
    for option in ("tutor",):
        if getattr(args, option):
            raise InvalidArgumentError(f"--{option} is for games against the engine: add --human white|black")
    if args.hint_plies != 1 or args.hint_every_move is not None:
        raise InvalidArgumentError("--hint-plies and --hint-every-move are for games against the engine: "
                                   "add --human white|black")
    args.policy = args.policy or "random"
    policy = (args.white or args.policy, args.black or args.policy)
    record: GameRecord | GioulGameRecord
    if game == "gioul":
        if args.start:
            raise InvalidArgumentError("--start is not supported for Gioul games (they begin with the one-die draw)")
        record = play_game(game="gioul", seed=args.seed, policy=policy, rules=rules_argument(args, game))
    else:
        start = position_argument(args.start) if args.start else None
        if start is not None and not isinstance(start, Position):
            raise InvalidArgumentError(f"start {args.start!r} is not a Fevga position")
        record = play_game(seed=args.seed, policy=policy, rules=Rules.named(args.rules), start=start,
                           net=net_argument(args, game))
    if args.json:
        print(record.to_json(indent=2))
    else:
        print(f"{'Gioul, ' if game == 'gioul' else ''}seed {record.seed}, policies white={policy[0]} black={policy[1]}")
        print(record.log())
    if args.save:
        save_record(record, args.save)
    return 0
