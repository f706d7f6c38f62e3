"""`fevga met` and `fevga play-match`: the match equity table and matches (engine or human;
``--game gioul``: Gioul matches, engine against engine)."""

from __future__ import annotations

import argparse

from fevga.cli.options import add_human_options, rules_argument
from fevga.errors import InvalidArgumentError
from fevga.files import atomic_write, output_path
from fevga.game import play_match
from fevga.match import GameOdds, match_equity_table
from fevga.policy import POLICY_IDS
from fevga.records import save_record
from fevga.rules import Rules
from fevga.cli.human import Console, engine_of, play_human_match
from fevga.cli.net import add_net_option
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the met and play-match sub-commands."""
    met = subparsers.add_parser("met", help="print the match equity table (docs/match.md)")
    met.add_argument("--length", type=int, default=25, help="largest away score (default: %(default)s)")
    met.add_argument("--odds", metavar="WS,WM,LS,LM,D",
                     help="one game's outcome odds for its starter "
                          "(default: the shipped net's measured self-play odds, docs/match.md)")
    met.add_argument("--starter", choices=["draw", "me", "opponent"], default="draw",
                     help="who starts the next game: the one-die draw (default), me, or the opponent")
    met.add_argument("--size", type=int, default=None, help="print only the first SIZE rows and columns")
    met.add_argument("--json", action="store_true", help="print the three tables as JSON")
    met.set_defaults(run=_met)

    match = subparsers.add_parser("play-match", help="play a match to LENGTH points (engine or --human)")
    match.add_argument("length", type=int, help="points to win the match")
    match.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy, printed)")
    match.add_argument("--policy", default=None, choices=sorted(POLICY_IDS),
                       help="engine policy of both sides (default: heuristic; with --human the engine's, default net2)")
    match.add_argument("--white", choices=sorted(POLICY_IDS), help="White's policy (overrides --policy)")
    match.add_argument("--black", choices=sorted(POLICY_IDS), help="Black's policy (overrides --policy)")
    match.add_argument("--human", choices=["white", "black", "both"], help="play a side yourself in the terminal")
    add_net_option(match, "with --human: net weights of the engine and the hints (default: shipped)")
    add_human_options(match)
    match.add_argument("--save", metavar="FILE", help="save the record (.json: JSON, else the text match format)")
    match.add_argument("--rules", default="default", choices=["default", "strict"], help="rule preset")
    match.add_argument("--game", choices=["fevga", "gioul"], default="fevga",
                       help="the game (default: %(default)s; Gioul: policies random or heuristic, JSON records)")
    match.set_defaults(run=_play_match)


def _met(args: argparse.Namespace) -> int:
    odds = None
    if args.odds:
        try:
            values = [float(v) for v in args.odds.split(",")]
        except ValueError:
            values = []
        if len(values) != 5:
            raise InvalidArgumentError(f"--odds {args.odds!r} must be five comma-separated probabilities")
        odds = GameOdds(*values)
    table = match_equity_table(args.length, odds)
    if args.json:
        print(table.to_json())
        return 0
    o = table.odds
    print(f"P(win the match) in percent; rows: my away score, columns: the opponent's; next game started by "
          f"{ {'draw': 'the one-die draw', 'me': 'me', 'opponent': 'the opponent'}[args.starter] }.")
    print(f"game odds for the starter: win {o.win_single:.4f}, win mars {o.win_mars:.4f}, lose {o.lose_single:.4f},"
          f" lose mars {o.lose_mars:.4f}, draw {o.draw:.4f}")
    print(table.to_text(args.starter, args.size))
    return 0


def _play_gioul_match(args: argparse.Namespace) -> int:
    if args.human:
        raise InvalidArgumentError("--human plays Fevga matches only; Gioul matches are engine against engine "
                                   "(play a Gioul game yourself with fevga play --human white --game gioul)")
    args.policy = args.policy or "heuristic"
    rules = rules_argument(args, "gioul")
    if args.save and not args.save.lower().endswith(".json"):
        raise InvalidArgumentError(f"--save {args.save!r}: Gioul match records are saved as JSON (a .json file)")
    policy = (args.white or args.policy, args.black or args.policy)
    record = play_match(args.length, seed=args.seed, policy=policy, rules=rules, game="gioul")
    print(f"{args.length} point Gioul match, seed {record.seed}, policies white={policy[0]} black={policy[1]}")
    print("\n".join(record.log().splitlines()[1:]))
    if args.save:
        text = record.to_json(indent=1)
        atomic_write(args.save, lambda handle: handle.write(text.encode("utf-8")), what="record")
        print(f"saved {args.save}")
    return 0


def _play_match(args: argparse.Namespace) -> int:
    if args.save:
        output_path(args.save, "record")  # before the match, not after it
    if args.game == "gioul":
        return _play_gioul_match(args)
    rules = Rules.named(args.rules)
    if args.human:
        console = Console()
        record = play_human_match(args.length, args.human, seed=args.seed, rules=rules, console=console,
                                  engine=engine_of(args, "fevga"),
                                  tutor=args.tutor.replace("-", " ") if args.tutor else None)
        if args.save:
            save_record(record, args.save)
            print(f"saved {args.save}" + (" (unfinished)" if console.stopped else ""))
        if console.stopped == "end of input":
            print("fevga: the input ended before the match did", file=sys.stderr)
        return 130 if console.stopped == "interrupted" else 0
    else:
        if args.tutor or args.hint_plies != 1 or args.hint_every_move is not None or args.net or args.quantised:
            raise InvalidArgumentError("--tutor, --hint-plies, --hint-every-move, --net and --quantised are for "
                                       "matches against the engine: add --human white|black")
        args.policy = args.policy or "heuristic"
        policy = (args.white or args.policy, args.black or args.policy)
        record = play_match(args.length, seed=args.seed, policy=policy, rules=rules)
        print(f"{args.length} point match, seed {record.games[0].seed}, policies white={policy[0]} black={policy[1]}")
        score = [0, 0]
        for number, game in enumerate(record.games, 1):
            if game.winner is not None:
                score[game.winner] += game.points
            print(f"  game {number}: {game.result}" + (f" {game.points} point(s)" if game.points else "")
                  + f", {len(game.plies)} plies; score {score[0]}-{score[1]}")
        print(f"final score {record.score[0]}-{record.score[1]}")
    if args.save:
        save_record(record, args.save)
        print(f"saved {args.save}")
    return 0
