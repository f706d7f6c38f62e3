"""`fevga error-rate corpus|truth|judge|report`: error rate against rollouts (fevga.error_rate,
docs/error_rate.md), the mean equity lost per decision by the heuristic and by the net at 1, 2
and 3 plies, judged by net rollouts of every move within 0.2 of the best.

    fevga error-rate corpus corpus.json --count 500 --seed 2026 [--game gioul]
    nice -n 10 fevga error-rate truth corpus.json truth.json --games 1296 --seed 7 --target-se 0.01 --quantised
    fevga error-rate report truth.json
    fevga error-rate judge corpus.json truth.json judged.json --net candidate.npz [--plies 1]

The corpus's game is Fevga's or `--game gioul`'s; the truth and the report follow the corpus.
`truth` and `judge` rewrite their file atomically after every decision: stop them at any time
and run the same command again to continue; `report` rates the decisions the file holds so far.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from fevga.errors import InvalidArgumentError
from fevga.error_rate import (Corpus, DecisionTruth, build_corpus, error_rates, judge_truth, load_truth, markdown_table,
                              run_truth)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `error-rate` sub-commands (corpus, truth, judge, report)."""
    parser = subparsers.add_parser("error-rate", help="error rate against rollouts: corpus, truth, judge, report",
                                   description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="error_rate_step", required=True, metavar="STEP")

    c = steps.add_parser("corpus", help="build the seeded corpus of decisions from net self-play")
    c.add_argument("corpus", help="the corpus file to write")
    c.add_argument("--count", type=int, default=500, help="decisions (default: %(default)s)")
    c.add_argument("--seed", type=int, default=2026, help="self-play seed (default: %(default)s)")
    c.add_argument("--game", choices=("fevga", "gioul"), default="fevga", help="the game (default: %(default)s)")
    c.set_defaults(run=_corpus)

    t = steps.add_parser("truth", help="roll out every move within 0.2 of the best, decision by decision (resumable)")
    t.add_argument("corpus", help="the corpus file")
    t.add_argument("truth", help="the truth file (written after every decision; resumed if it exists)")
    t.add_argument("--games", type=int, default=1296, help="games a candidate (default: %(default)s)")
    t.add_argument("--seed", type=int, default=7, help="rollout seed (default: %(default)s)")
    t.add_argument("--workers", type=int, default=None,
                   help="decisions run this many at a time, each rolled out on this many threads; the file is the "
                        "same for any count (default: all cores)")
    t.add_argument("--limit", type=int, default=None, help="stop after this many decisions in all")
    t.add_argument("--no-truncate", action="store_true", help="play races out instead of scoring them by tables")
    t.add_argument("--target-se", type=float, default=None,
                   help="roll a decision out again with more games until every candidate's equity SE is under this "
                        "(an existing truth without one is raised to it in place)")
    t.add_argument("--quantised", action="store_true",
                   help="play the rollouts with the truth net's int16 tables, about three times as fast (the float "
                        "net still ranks the candidates and picks; judge follows the truth's setting)")
    t.add_argument("--every-move", action="store_true",
                   help="draw the window by every move's 2-ply value, not the 2-ply search's (whose move filter "
                        "leaves most moves at 1 ply); an existing truth without it is completed to it in place")
    t.set_defaults(run=_truth)

    j = steps.add_parser("judge", help="add a candidate net's picks to a truth as one more player (resumable)")
    j.add_argument("corpus", help="the corpus file")
    j.add_argument("truth", help="the truth file")
    j.add_argument("judged", help="the truth with the new player (written; resumed if it exists)")
    j.add_argument("--net", required=True, help="the candidate net file")
    j.add_argument("--plies", type=int, default=1, help="the candidate's search depth, 1-3 (default: %(default)s)")
    j.add_argument("--name", default=None, help="the player's name (default: net <sha256[:12]> <plies>-ply, then "
                                                "' every move' for an every-move search)")
    j.add_argument("--every-move", action=argparse.BooleanOptionalAction, default=None,
                   help="the candidate searches every move at 2 plies, not only its move filter's, or "
                        "(--no-every-move) only the filter's (default: as fevga hint, every move in Gioul)")
    j.add_argument("--workers", type=int, default=None, help="as for truth (default: all cores)")
    j.set_defaults(run=_judge)
    for step in (c, t, j):
        step.add_argument("--truth-net", default=None,
                          help="the net of the corpus's self-play and the truth's rollouts (default: the shipped one)")

    r = steps.add_parser("report", help="the error-rate table of the decisions done so far")
    r.add_argument("truth", help="the truth file")
    r.set_defaults(run=_report)


def _corpus(args: argparse.Namespace) -> int:
    began = time.perf_counter()
    corpus = build_corpus(args.count, args.seed, net=args.truth_net, game=args.game)
    corpus.save(args.corpus)
    games = len({d.game for d in corpus.decisions})
    print(f"{len(corpus.decisions)} decisions from {games} {args.game} net self-play games (seed {args.seed}, "
          f"net {corpus.net[:12]}) in {time.perf_counter() - began:.1f} s -> {args.corpus}")
    return 0


def _truth(args: argparse.Namespace) -> int:
    corpus = Corpus.load(args.corpus)
    began = time.perf_counter()

    def progress(one: DecisionTruth, total: int) -> None:
        rolled = [m for m in one.moves if m.games is None]
        print(f"decision {one.index + 1}/{total}: {len(rolled)} candidates, {one.games or args.games} games each, "
              f"{len(one.moves) - len(rolled)} screened out, {one.seconds:.1f} s, max SE "
              f"{max(m.se for m in rolled):.4f}, elapsed {time.perf_counter() - began:.0f} s", flush=True)

    with _resumable("truth"):
        truth = run_truth(corpus, args.truth, args.games, args.seed, workers=args.workers,
                          truncate=not args.no_truncate, limit=args.limit, net=args.truth_net,
                          target_se=args.target_se, quantised=args.quantised, every_move=args.every_move,
                          on_decision=progress)
    print(f"{len(truth.decisions)} of {len(corpus.decisions)} decisions in {args.truth}")
    return 0


def _judge(args: argparse.Namespace) -> int:
    corpus = Corpus.load(args.corpus)
    began = time.perf_counter()

    def progress(one: DecisionTruth, total: int) -> None:
        print(f"decision {one.index + 1}/{total}: {len(one.moves)} candidates, elapsed "
              f"{time.perf_counter() - began:.0f} s", flush=True)

    with _resumable("judge"):
        truth = judge_truth(corpus, args.truth, args.judged, args.net, args.plies, args.name, workers=args.workers,
                            net=args.truth_net, every_move=args.every_move, on_decision=progress)
    print(f"{truth.settings['players'][-1]} judged on {len(truth.decisions)} decisions -> {args.judged}")
    return 0


@contextmanager
def _resumable(step: str) -> Iterator[None]:
    """Ctrl-C in a step that saves after every decision and keeps its rollouts' progress: say
    that the same command resumes."""
    try:
        yield
    except KeyboardInterrupt:
        print(f"fevga error-rate {step}: stopped; the same command resumes from the decisions written "
              "and the rollouts in progress (kept beside the file, in <file>.rollouts)", file=sys.stderr)
        raise


def _report(args: argparse.Namespace) -> int:
    truth = load_truth(args.truth)
    done, size = len(truth.decisions), truth.settings["corpus_size"]
    if not done:
        raise InvalidArgumentError(f"{args.truth!r}: the truth holds no decision yet")
    settings = ", ".join(f"{k} {v}" for k, v in truth.settings.items() if k != "players")
    print(f"{done} of {size} decisions{' (partial)' if done < size else ''}; {settings}")
    rolled = [m for d in truth.decisions for m in d.moves if m.games is None]
    ses = [m.se for m in rolled]
    diff_ses = [m.diff_se for m in rolled if m.diff_se > 0]
    out = sum(len(d.moves) for d in truth.decisions) - len(rolled)
    seconds = sum(d.seconds for d in truth.decisions)
    games = [d.games or truth.settings["games"] for d in truth.decisions]
    print(f"{len(rolled)} candidates rolled out ({len(rolled) / done:.1f} a decision) and {out} screened out in "
          f"{seconds / 60:.1f} min of rollouts, {min(games)}-{max(games)} games a candidate (mean "
          f"{sum(games) / done:.0f}); "
          f"candidate equity SE mean {sum(ses) / len(ses):.4f}, max {max(ses):.4f}; "
          f"SE of a difference to the best: mean {sum(diff_ses) / max(len(diff_ses), 1):.4f}, "
          f"max {max(diff_ses, default=0.0):.4f}\n")
    print(markdown_table(error_rates(truth.decisions)))
    return 0
