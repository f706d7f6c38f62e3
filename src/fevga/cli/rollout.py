"""`fevga rollout POSITION [--dice 6-5]`: roll out a position, or rank the moves of a roll."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fevga.cli.options import add_game_options, add_match_options, add_position_arguments, game_of, score_of
from fevga.cli.net import add_net_option, net_argument
from fevga.errors import InvalidArgumentError
from fevga.gioul import GioulPosition
from fevga.position import COLOR_NAMES, Position
from fevga.policy import POLICY_IDS
from fevga.rollout import DASK_CONNECT_TIMEOUT, DEFAULT_GAMES, moves_to_csv, rollout, rollout_moves
from fevga.rollout.jobs import check_games
from fevga.rollout.results import NOTHING_FINISHED
from fevga.rules import Rules

MOVE_GAMES = 1296  # default games per move when ranking the moves of a roll
STRATUM = 36  # stratified rollouts play whole rotations of the 36 first rolls
INTERRUPTED = 130  # exit status after Ctrl-C, once the partial result is printed


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rollout` sub-command."""
    parser = subparsers.add_parser(
        "rollout",
        help="roll out a position (or every move of a roll) with seeded, parallel games",
        description="Play POSITION out many times and print the statistics of its side on roll; "
        "with --dice, roll out every legal move of that roll and rank them.",
    )
    add_position_arguments(parser, optional=True)
    parser.add_argument("--dice", help="rank the legal moves of this roll, e.g. 6-5")
    parser.add_argument("--pending", action="store_true",
                        help="Gioul: rank the legal moves of the state's pending decision (a chain block, "
                        "handed-over dice)")
    parser.add_argument("--games", type=int, default=None,
                        help=f"games per position (default: {DEFAULT_GAMES:,}; with --dice {MOVE_GAMES:,} per move)")
    parser.add_argument("--workers", type=int, default=None, help="local worker threads or Dask workers (default: all cores)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy, printed)")
    parser.add_argument("--policy", default=None, choices=sorted(POLICY_IDS),
                        help="policy of both sides (default: net, the game's shipped net)")
    add_net_option(parser, "net weights for the net policies and (Fevga) the luck (default: shipped)")
    parser.add_argument("--candidates", type=int, default=None,
                        help="with --dice (or --pending): roll out only the N moves the net rates best")
    parser.add_argument("--move", action="append", default=None, metavar="MOVE", dest="moves",
                        help="with --dice (or --pending): roll out only this move; repeat for several "
                        "(any notation the engine parses, e.g. --move 24/13 --move '24/18 24/19')")
    parser.add_argument("--stop-early", action="store_true",
                        help="with --dice: stop rolling out a move once its 95%% CI separates from the best")
    parser.add_argument("--truncate", action="store_true", help="score no-contact races from the bear-off tables")
    parser.add_argument("--luck", action="store_true", help="luck adjustment (control variate; slow)")
    parser.add_argument("--no-stratify", action="store_true", help="do not stratify the first two rolls")
    parser.add_argument("--scheduler", default=None,
                        help=f"Dask scheduler address: run on that cluster (an error if unreachable within "
                        f"{DASK_CONNECT_TIMEOUT:g} s)")
    parser.add_argument("--dask", action="store_true", help="run on a local Dask cluster (without --scheduler)")
    parser.add_argument("--checkpoint", default=None,
                        help="checkpoint file: saved as blocks finish, resumed if present (refused if it is not "
                        "a checkpoint of this same job)")
    add_match_options(parser, "value games by match winning chance (and rank moves by it)")
    add_game_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--csv", action="store_true", help="print CSV")
    parser.set_defaults(run=_run)


def _gioul_refusals(args: argparse.Namespace) -> None:
    """The options a Gioul rollout cannot take: one line naming them."""
    refused = [name for name, on in (
        ("--rules", args.rules != "default"), ("--score", args.score), ("--length", args.length is not None),
    ) if on]
    if refused:
        raise InvalidArgumentError(f"{', '.join(refused)} not supported for Gioul rollouts (Gioul has no rule "
                                   "presets and no match equity table)")


def _run(args: argparse.Namespace) -> int:
    position: Position | GioulPosition
    gioul = game_of(args, args.position) == "gioul"
    if gioul:
        _gioul_refusals(args)
        position = GioulPosition.parse(args.position)
        if args.dice and position.pending:
            raise InvalidArgumentError(f"{position.id} has dice pending ({' '.join(map(str, position.pending))}): "
                                       "rank them with --pending, not --dice")
        if args.pending and not position.pending:
            raise InvalidArgumentError(f"{position.id} has no dice pending: give the roll with --dice")
    else:
        if args.pending:
            raise InvalidArgumentError("--pending ranks the pending decision of a Gioul state: give --dice for Fevga")
        position = Position.parse(args.position)
    rank = bool(args.dice) or args.pending
    games = args.games if args.games is not None else (MOVE_GAMES if rank else DEFAULT_GAMES)
    if not args.no_stratify and games > 0 and games % STRATUM:
        # Stratified games come in whole rotations of the 36 first rolls: say what is played.
        print(f"fevga: note: --games {games:,} is rounded up to {check_games(games, True):,}, a multiple of "
              f"{STRATUM} (every first roll equally often); --no-stratify plays exactly {games:,}", file=sys.stderr)
    options = {
        "games": games,
        "seed": args.seed,
        "workers": args.workers,
        "policy": args.policy,  # None: the API's default, net
        "truncate": args.truncate,
        "backend": "dask" if (args.dask or args.scheduler) else "local",
        "scheduler": args.scheduler,
        "rules": Rules.gioul() if gioul else Rules.named(args.rules),
        "stratify": not args.no_stratify,
        "luck": args.luck,
        "checkpoint": args.checkpoint,
        "progress": None if not args.no_progress else False,
        "net": net_argument(args, "gioul" if gioul else "fevga"),
        "score": score_of(args),
        "length": args.length,
    }
    if rank:
        return _rank(args, position, options)
    if args.candidates is not None or args.stop_early or args.moves:
        raise InvalidArgumentError("--candidates, --move and --stop-early rank the moves of a roll: give --dice")
    result = rollout(position, **options)
    if args.json:
        print(result.to_json(indent=2))
    elif args.csv:
        print(result.to_csv(), end="")
    else:
        print(result.summary())
    return INTERRUPTED if result.interrupted else 0


def _rank(args: argparse.Namespace, position: Position | GioulPosition, options: dict[str, Any]) -> int:
    """Roll out every move of the roll (or of a Gioul state's pending decision) and rank them."""
    ranking = rollout_moves(position, args.dice, candidates=args.candidates, stop_early=args.stop_early,
                            moves=args.moves, **options)
    pending = list(position.pending) if isinstance(position, GioulPosition) else []
    what = args.dice or f"{' '.join(map(str, pending))} (pending)"
    if args.json:
        print(json.dumps({"position": position.id, "dice": args.dice or pending, "moves": [m.to_dict() for m in ranking]},
                         indent=2))
    elif args.csv:
        print(moves_to_csv(ranking), end="")
    else:
        first = ranking[0].result
        played = [m.result.games for m in ranking]
        if args.stop_early:
            stopped = sum(1 for m in ranking if m.stopped)
            count = (f"up to {max(played):,} games per move ({stopped} of {len(ranking)} stopped early once their "
                     f"95% CI separated from the best; the games column says how many each played)")
        elif len(set(played)) == 1:
            count = f"{played[0]:,} games each"
        else:
            count = f"{min(played):,}-{max(played):,} games per move"
        print(f"{COLOR_NAMES[position.turn]} to play {what} in {position.id}: {len(ranking)} move(s), "
              f"{count}, policy {first.policy}, seed {first.seed}"
              + (" (interrupted)" if first.interrupted else ""))
        if not max(played):
            print(f"  {NOTHING_FINISHED}")
            return INTERRUPTED
        match = first.match_chance is not None
        print(f"  {'#':>2} {'move':<28} {'equity':>8} {'+-':>7} {'diff':>8} {'+-':>7}  win     mars"
              + ("    match" if match else "") + ("    games" if args.stop_early else ""))
        for rank, m in enumerate(ranking, 1):
            r = m.result
            print(f"  {rank:>2} {m.move.notation:<28} {r.equity:+8.4f} {r.equity_se:7.4f} {m.diff:+8.4f} "
                  f"{m.diff_se:7.4f}  {r.win:6.2%} {r.win_mars:6.2%}"
                  + (f"  {r.match_chance:6.2%}" if r.match_chance is not None else "")
                  + (f"  {r.games:>7,}" + (" (stopped)" if m.stopped else "") if args.stop_early else ""))
        if match:
            print(f"  diff is in match winning chance at {args.score} in a match to {args.length}")
    return INTERRUPTED if ranking[0].result.interrupted else 0
