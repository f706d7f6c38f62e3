"""`fevga show | moves | perft | play`: positions, legal moves, perft and self-play,
for Fevga or (``--game gioul``, or a Gioul ID/JSON as POSITION) Gioul."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from fevga.errors import InvalidArgumentError, InvalidRulesError
from fevga.files import output_path
from fevga.game import play_game
from fevga.gioul import GioulPosition, play_gioul_game
from fevga.notation import GIOUL_ID_LENGTH
from fevga.policy import POLICY_IDS
from fevga.position import COLOR_NAMES, Position, perft
from fevga.records import save_record
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


def add_human_options(parser: argparse.ArgumentParser) -> None:
    """The options of a game against the engine: --tutor [LEVEL] and --hint-plies N."""
    parser.add_argument("--tutor", nargs="?", const="doubtful", default=None, choices=["doubtful", "bad", "very-bad"],
                        help="with --human: warn before a move the hint marks this bad or worse (default: doubtful; "
                             "thresholds 0.04 / 0.08 / 0.16 as in docs/analysis.md)")
    parser.add_argument("--hint-plies", type=int, default=1,
                        help="with --human: plies of the hints and the tutor, as fevga hint --plies (default: %(default)s)")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the position, move, perft and self-play sub-commands."""
    show = subparsers.add_parser("show", help="draw a position in printed numbering")
    show.add_argument("position", nargs="?", default="start", help="position ID, 'start' or JSON (default: start)")
    show.add_argument("--svg", metavar="FILE", help="also write the board as an SVG picture (fevga.svg.board)")
    show.add_argument("--png", metavar="FILE",
                      help="also write the board as a PNG picture (needs the png extra or the rsvg-convert tool)")
    show.add_argument("--dice", default=None, help="draw these dice on the pictures, e.g. 6-5")
    show.add_argument("--black", action="store_true", help="number the points as Black does (the board turned)")
    show.add_argument("--size", type=int, default=480, help="width of the pictures in pixels (default: %(default)s)")
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
    play.add_argument("--net", default=None, metavar="FILE", help="net weights for the net policies (default: shipped)")
    add_rules_option(play)
    add_game_option(play)
    play.set_defaults(run=_play)


def _show(args: argparse.Namespace) -> int:
    from fevga.notation import parse_dice
    from fevga.position import BLACK, WHITE

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
    from fevga import svg

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


def engine_of(args: argparse.Namespace, game: str) -> Any:
    """The engine side of a human game (fevga.cli.human.Engine) from --policy, --white, --black
    and --net: options naming the human's own side, or a policy the engine cannot play, are refused."""
    from fevga.cli.human import DEFAULT_ENGINE, Engine

    human = {"white": ("white",), "black": ("black",), "both": ("white", "black")}[args.human]
    for side in human:
        if getattr(args, side):
            raise InvalidArgumentError(f"--{side} {getattr(args, side)} names the policy of {side}, but you play "
                                       f"{side} (--human {args.human})")
    if args.human == "both" and (args.policy or args.net):
        raise InvalidArgumentError("--policy and --net choose the engine's side, but with --human both "
                                   "you play both sides")
    chosen = {p for p in (args.policy, args.white, args.black) if p}
    if len(chosen) > 1:
        raise InvalidArgumentError(f"--policy, --white and --black name {sorted(chosen)} for the one engine side")
    policy = chosen.pop() if chosen else DEFAULT_ENGINE[game]
    if not 1 <= args.hint_plies <= 4:
        raise InvalidArgumentError(f"--hint-plies {args.hint_plies} must be 1..4")
    if game == "gioul" and args.hint_plies != 1:
        raise InvalidArgumentError("--hint-plies is for the net's hints: Gioul's hints are the heuristic (no net yet)")
    from fevga.net import net_of

    return Engine(policy, game, net_of(args.net) if args.net else None, args.hint_plies)


def _play_human(args: argparse.Namespace) -> int:
    """`fevga play --human SIDE`: one game against the engine; --save keeps it, finished or not."""
    import sys

    from fevga.cli.human import Console, play_human_game

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
    if args.hint_plies != 1:
        raise InvalidArgumentError("--hint-plies is for games against the engine: add --human white|black")
    args.policy = args.policy or "random"
    policy = (args.white or args.policy, args.black or args.policy)
    if game == "gioul":
        if args.start:
            raise InvalidArgumentError("--start is not supported for Gioul games (they begin with the one-die draw)")
        gioul = play_gioul_game(seed=args.seed, policy=policy, rules=rules_argument(args, game))
        if args.json:
            print(gioul.to_json(indent=2))
        else:
            print(f"Gioul, seed {gioul.seed}, policies white={policy[0]} black={policy[1]}")
            print(gioul.log())
        if args.save:
            save_record(gioul, args.save)
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
        save_record(record, args.save)
    return 0
