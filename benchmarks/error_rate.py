"""Error rate against rollouts (issue 18 item 4): mean equity lost per decision by the heuristic
and by the net at 1, 2 and 3 plies, judged by net rollouts of the candidates
(fevga.error_rate, docs/error_rate.md). The corpus's game is Fevga's or `--game gioul`'s; the
truth and the report follow the corpus.

    python benchmarks/error_rate.py corpus corpus.json --count 500 --seed 2026 [--game gioul]
    nice -n 10 python benchmarks/error_rate.py truth corpus.json truth.json --games 1296 --seed 7
    python benchmarks/error_rate.py report truth.json
    python benchmarks/error_rate.py judge corpus.json truth.json judged.json --net candidate.npz [--plies 1]

`--truth-net NET` (corpus, truth, judge) names the net whose self-play makes the corpus and
whose rollouts make the truth, when it is not the shipped one: the committed Fevga corpus and
truth are net 2's (`--truth-net benchmarks/nets/fevga-net-2.npz`, kept there since net 3
shipped).

`truth` rewrites truth.json atomically after every decision: stop it at any time and run the
same command again to continue; `report` rates the decisions the file holds so far and says
how many of the corpus they are. `--target-se 0.01` gives every candidate an equity SE under
0.01: a decision whose candidates miss it is rolled out again, from the start, with the games
its worst SE calls for (recorded in the decision); run on a truth made without it, it raises
that truth in place, decision by decision, resumably. Every other move within 0.2 of the
2-ply best is screened against the best (rolled out in full unless its 95% interval falls
below the best's after a round of blocks); a truth made before the screen is completed in
place the same way. `judge` adds a candidate net's picks to a truth as one more
player (its picks rolled out by the truth's own net where they were not already), so a net
meant to replace the shipped one is rated on the shipped net's truth.
"""

from __future__ import annotations

import argparse
import sys
import time

from fevga.errors import FevgaError
from fevga.error_rate import (Corpus, DecisionTruth, build_corpus, error_rates, judge_truth, load_truth, markdown_table,
                              run_truth)


def _corpus(args: argparse.Namespace) -> None:
    began = time.perf_counter()
    corpus = build_corpus(args.count, args.seed, net=args.truth_net, game=args.game)
    corpus.save(args.corpus)
    games = len({d.game for d in corpus.decisions})
    print(f"{len(corpus.decisions)} decisions from {games} {args.game} net self-play games (seed {args.seed}, "
          f"net {corpus.net[:12]}) in {time.perf_counter() - began:.1f} s -> {args.corpus}")


def _truth(args: argparse.Namespace) -> None:
    corpus = Corpus.load(args.corpus)
    began = time.perf_counter()

    def progress(one: DecisionTruth, total: int) -> None:
        rolled = [m for m in one.moves if m.games is None]
        print(f"decision {one.index + 1}/{total}: {len(rolled)} candidates, {one.games or args.games} games each, "
              f"{len(one.moves) - len(rolled)} screened out, {one.seconds:.1f} s, max SE "
              f"{max(m.se for m in rolled):.4f}, elapsed {time.perf_counter() - began:.0f} s", flush=True)

    truth = run_truth(corpus, args.truth, args.games, args.seed, workers=args.workers,
                      truncate=not args.no_truncate, limit=args.limit, net=args.truth_net,
                      target_se=args.target_se, quantised=args.quantised, on_decision=progress)
    print(f"{len(truth.decisions)} of {len(corpus.decisions)} decisions in {args.truth}")


def _judge(args: argparse.Namespace) -> None:
    corpus = Corpus.load(args.corpus)
    began = time.perf_counter()

    def progress(one: DecisionTruth, total: int) -> None:
        print(f"decision {one.index + 1}/{total}: {len(one.moves)} candidates, elapsed "
              f"{time.perf_counter() - began:.0f} s", flush=True)

    truth = judge_truth(corpus, args.truth, args.judged, args.net, args.plies, args.name, workers=args.workers,
                        net=args.truth_net, on_decision=progress)
    print(f"{truth.settings['players'][-1]} judged on {len(truth.decisions)} decisions -> {args.judged}")


def _report(args: argparse.Namespace) -> None:
    truth = load_truth(args.truth)
    done, size = len(truth.decisions), truth.settings["corpus_size"]
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus", help="build the seeded corpus of decisions")
    c.add_argument("corpus")
    c.add_argument("--count", type=int, default=500)
    c.add_argument("--seed", type=int, default=2026)
    c.add_argument("--game", choices=("fevga", "gioul"), default="fevga")
    t = sub.add_parser("truth", help="roll out the candidates of every decision (resumable)")
    t.add_argument("corpus")
    t.add_argument("truth")
    t.add_argument("--games", type=int, default=1296, help="games per candidate (default: %(default)s)")
    t.add_argument("--seed", type=int, default=7)
    t.add_argument("--workers", type=int, default=1,
                   help="decisions run this many at a time, each rolled out on this many threads; the file is the "
                        "same for any count (default: %(default)s)")
    t.add_argument("--limit", type=int, default=None, help="stop after this many decisions in all")
    t.add_argument("--no-truncate", action="store_true", help="play races out instead of scoring them by tables")
    t.add_argument("--target-se", type=float, default=None,
                   help="roll a decision out again with more games until every candidate's equity SE is under this "
                        "(an existing truth without one is raised to it in place)")
    t.add_argument("--quantised", action="store_true",
                   help="play the rollouts with the truth net's int16 tables, about three times as fast (the float "
                        "net still ranks the candidates and picks; judge follows the truth's setting)")
    j = sub.add_parser("judge", help="add a candidate net's picks to a truth as one more player (resumable)")
    j.add_argument("corpus")
    j.add_argument("truth")
    j.add_argument("judged", help="the truth with the new player (written; resumed if it exists)")
    j.add_argument("--net", required=True, help="the candidate net file")
    j.add_argument("--plies", type=int, default=1)
    j.add_argument("--name", default=None, help="the player's name (default: net <sha256[:12]> <plies>-ply)")
    j.add_argument("--workers", type=int, default=1, help="as for truth")
    for command in (c, t, j):
        command.add_argument("--truth-net", default=None,
                             help="the net of the corpus's self-play and the truth's rollouts (default: the shipped one)")
    r = sub.add_parser("report", help="the error-rate table of the decisions done so far")
    r.add_argument("truth")
    args = parser.parse_args(argv)
    try:
        {"corpus": _corpus, "truth": _truth, "judge": _judge, "report": _report}[args.command](args)
    except FevgaError as exc:  # a bad file, net or argument: one line naming it, not a traceback
        parser.exit(2, f"error_rate.py {args.command}: {type(exc).__name__}: {exc}\n")
    except KeyboardInterrupt:  # corpus, truth and judge files are whole after every decision
        parser.exit(130, f"error_rate.py {args.command}: interrupted; the same command resumes what was written\n")


if __name__ == "__main__":
    main(sys.argv[1:])
