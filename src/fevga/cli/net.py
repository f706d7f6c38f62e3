"""`fevga evaluate | hint | train`: judgment from the neural evaluator, and training a new one."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from fevga.analysis import MAX_PLIES, Hint, evaluate, every_move_of, hint
from fevga.errors import InvalidArgumentError
from fevga.cli.options import (add_game_options, add_match_options, add_position_arguments, game_of, position_argument,
                               rules_argument, score_of)
from fevga.gioul import GioulPosition
from fevga.net import Net, net_of
from fevga.position import COLOR_NAMES, Position
from fevga.train import NET_FILE, TrainConfig, train


def add_net_option(parser: argparse.ArgumentParser,
                   text: str = "net weights file (default: the shipped net of the game)") -> None:
    """The shared ``--net FILE`` and ``--quantised`` options (net_argument reads them)."""
    parser.add_argument("--net", default=None, metavar="FILE", help=text)
    parser.add_argument("--quantised", action="store_true",
                        help="evaluate the net in int16 tables: within 0.01 of the float net, several times "
                             "faster (docs/net.md \"Quantised inference\")")


def net_argument(args: argparse.Namespace, game: str) -> Net | None:
    """The net of --net and --quantised for `game`: None when neither is given (the API's
    default, the shipped net), NetGameError for the other game's net."""
    if args.net is None and not args.quantised:
        return None
    net = net_of(args.net, game)
    return net.quantised() if args.quantised else net


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the evaluate, hint and train sub-commands."""
    ev = subparsers.add_parser("evaluate", help="the net's evaluation of a position for its side on roll (to decide)")
    add_position_arguments(ev, optional=True)
    ev.add_argument("--plies", type=int, default=0, help=f"search depth 0..{MAX_PLIES} (default: %(default)s)")
    ev.add_argument("--json", action="store_true", help="print JSON")
    add_net_option(ev)
    add_game_options(ev)
    ev.set_defaults(run=_evaluate)

    hi = subparsers.add_parser("hint", help="rank the legal moves of a roll by the net")
    add_position_arguments(hi, dice=True)
    hi.add_argument("--plies", type=int, default=1, help=f"1 = rate each result, 2..{MAX_PLIES + 1} = search deeper (default: %(default)s)")
    hi.add_argument("--every-move", action=argparse.BooleanOptionalAction, default=None,
                    help="search every move at 2 plies, not only those the 1-ply move filter keeps (slower), or "
                         "(--no-every-move) only those (default: the game's, every move in Gioul)")
    hi.add_argument("--top", type=int, default=10, help="show the best N moves (default: %(default)s, 0 = all)")
    hi.add_argument("--json", action="store_true", help="print JSON")
    add_match_options(hi, "rank by match winning chance")
    add_net_option(hi)
    add_game_options(hi)
    hi.set_defaults(run=_hint)

    tr = subparsers.add_parser("train", help="train a net from scratch by self-play (resumes from OUT/checkpoint.npz)")
    tr.add_argument("out", help="folder for the checkpoint, net.npz, curve.json and curve.png")

    defaults = TrainConfig()
    tr.add_argument("--games", type=int, default=defaults.games, help="self-play games (default: %(default)s)")
    tr.add_argument("--hidden", type=int, default=defaults.hidden, help="hidden units (default: %(default)s)")
    tr.add_argument("--lam", type=float, default=defaults.lam, help="TD lambda (default: %(default)s)")
    tr.add_argument("--rate", type=float, default=defaults.rate, help="initial SGD step (default: %(default)s)")
    tr.add_argument("--rate-final", type=float, default=defaults.rate_final, help="final SGD step (default: %(default)s)")
    tr.add_argument("--batch", type=int, default=defaults.batch, help="games per weight update (default: %(default)s)")
    tr.add_argument("--seed", type=int, default=defaults.seed, help="seed of dice and initial weights (default: %(default)s)")
    tr.add_argument("--check-every", type=int, default=defaults.check_every,
                    help="games between strength checks (default: %(default)s)")
    tr.add_argument("--check-games", type=int, default=defaults.check_games,
                    help="games per strength check against 'heuristic' (default: %(default)s)")
    tr.add_argument("--check-against", default=defaults.check_against,
                    help="the checks' opponent: a policy name or a net file (default: %(default)s)")
    tr.add_argument("--game", choices=("fevga", "gioul"), default=defaults.game,
                    help="the game the net judges (default: %(default)s)")
    tr.add_argument("--workers", type=int, default=None, help="threads or Dask tasks per batch (default: all cores)")
    tr.add_argument("--dask", action="store_true", help="play the games on a local Dask cluster")
    tr.add_argument("--scheduler", default=None, help="play the games on the Dask scheduler at this address")
    tr.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    tr.set_defaults(run=_train)


def _judged(args: argparse.Namespace) -> tuple[str, Position | GioulPosition, Net]:
    """The game, POSITION and the net of evaluate / hint (--net, else the game's shipped net)."""
    game = game_of(args, args.position)
    return game, position_argument(args.position, game), net_argument(args, game) or net_of(None, game)


def _side(position: Position | GioulPosition) -> str:
    """Who the evaluation is for: the side on roll, or the side playing a Gioul state's pending dice."""
    if isinstance(position, GioulPosition) and position.pending:
        return f"{COLOR_NAMES[position.turn]} to play {' '.join(map(str, position.pending))}"
    return f"{COLOR_NAMES[position.turn]} on roll"


def _evaluate(args: argparse.Namespace) -> int:
    game, position, net = _judged(args)
    result = evaluate(position, args.plies, rules_argument(args, game), net=net)
    if args.json:
        print(json.dumps({"game": game, "position": position.id, "turn": COLOR_NAMES[position.turn],
                          "plies": args.plies, "net": net.checksum, **result.to_dict()}, indent=2))
    else:
        print(f"{_side(position)} in {position.id}, {args.plies} ply:")
        print(f"  {result}")
    return 0


def _hint(args: argparse.Namespace) -> int:
    game, position, net = _judged(args)
    if args.dice is None and not (isinstance(position, GioulPosition) and position.pending):
        raise InvalidArgumentError(f"fevga hint needs the dice of the roll, e.g. {position.id} 6-5")
    if args.every_move and args.plies < 2:
        raise InvalidArgumentError("--every-move searches at 2 plies or more: add --plies 2")
    score = score_of(args)
    hints = hint(position, args.dice, args.plies, rules_argument(args, game), net=net, score=score,
                 length=args.length, every_move=args.every_move)
    shown = hints if args.top <= 0 else hints[: args.top]
    if args.json:
        print(json.dumps({"game": game, "position": position.id, "dice": args.dice, "plies": args.plies,
                          "every_move": every_move_of(game, args.every_move) and args.plies > 1, "net": net.checksum,
                          "moves": [{**h.to_dict(), "position": h.move.position.id} for h in shown]}, indent=2))
        return 0
    dice = args.dice or " ".join(map(str, position.pending if isinstance(position, GioulPosition) else ()))
    print(f"{COLOR_NAMES[position.turn]} to play {dice} in {position.id}: {len(hints)} move(s), best first")
    print("\n".join(hint_table(shown, score is not None)))
    return 0


def hint_table(hints: list[Hint[Any]], match: bool = False) -> list[str]:
    """The lines of `fevga hint`'s table (also the hints of a game against the engine)."""
    lines = [f"  {'#':>2} {'move':<28} {'ply':>3} {'equity':>8} {'loss':>7}   win   w.mars  l.mars"
             + ("  match" if match else "")]
    for rank, h in enumerate(hints, 1):
        e = h.evaluation
        lines.append(f"  {rank:>2} {h.move.notation:<28} {h.plies:>3} {h.equity:+8.4f} {h.loss:7.4f} "
                     f"{e.win:6.1%} {e.win_mars:6.1%} {e.lose_mars:6.1%}"
                     + (f" {e.match_chance:6.1%}" if match and e.match_chance is not None else ""))
    return lines


def _train(args: argparse.Namespace) -> int:
    config = TrainConfig(games=args.games, hidden=args.hidden, lam=args.lam, rate=args.rate, rate_final=args.rate_final,
                         batch=args.batch, seed=args.seed, check_every=args.check_every, check_games=args.check_games,
                         check_against=args.check_against, game=args.game)
    command = "fevga " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:2] == ["train"] else None
    run = train(args.out, config, workers=args.workers, progress=None if not args.no_progress else False,
                command=command, backend="dask" if (args.dask or args.scheduler) else "local",
                scheduler=args.scheduler)
    last = run.history[-1]
    print(f"{run.games} games, {run.samples} positions, {run.seconds:.0f} s; "
          f"net vs {last['against']} {last['ppg']:+.3f} ± {last['ppg_ci']:.3f} points/game")
    print(f"weights: {args.out}/{NET_FILE} (sha256 {Net.load(f'{args.out}/{NET_FILE}').checksum[:16]})")
    return 0
