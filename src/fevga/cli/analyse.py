"""`fevga analyse RECORD`: errors, luck and ratings of a recorded game or match."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fevga.analyser import Thresholds, analyse
from fevga.files import atomic_write, output_path
from fevga.errors import InvalidArgumentError
from fevga.records import load_record

INTERRUPTED = 130  # exit status after Ctrl-C, once the partial analysis is printed


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the analyse sub-command."""
    parser = subparsers.add_parser("analyse", aliases=["analyze"],
                                   help="analyse a game or match record (JSON or the text match format)")
    parser.add_argument("record", help="record file: engine JSON or the text match format (docs/records.md)")
    parser.add_argument("--plies", type=int, default=1,
                        help="plies of the decision evaluator: 1 rates a move by its result, 2 looks a roll deeper")
    parser.add_argument("--evaluator", choices=["heuristic", "net"], default="net",
                        help="heuristic expectimax (default) or the trained net through fevga.hint/evaluate")
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report to FILE")
    parser.add_argument("--all", action="store_true", help="list every ply, not only the flagged ones")
    parser.add_argument("--thresholds", metavar="D,B,V", default="0.04,0.08,0.16",
                        help="equity losses marked doubtful, bad, very bad (default: %(default)s)")
    parser.add_argument("--luck", metavar="L,V", default="0.3,0.6",
                        help="luck marked lucky / very lucky (and the negatives unlucky) (default: %(default)s)")
    parser.add_argument("--rollouts", type=int, default=0, metavar="GAMES",
                        help="re-check each flagged decision by rolling out its played and best moves "
                             "(net policy)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rollouts (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=None, help="rollout threads (default: every core)")
    parser.set_defaults(run=_run)


def _numbers(text: str, count: int, option: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != count:
        raise InvalidArgumentError(f"{option} {text!r} must be {count} comma-separated numbers")
    return values


def _run(args: argparse.Namespace) -> int:
    if args.html:
        output_path(args.html, "report")  # before the analysis, not after it
    doubtful, bad, very_bad = _numbers(args.thresholds, 3, "--thresholds")
    lucky, very_lucky = _numbers(args.luck, 2, "--luck")
    thresholds = Thresholds(doubtful, bad, very_bad, lucky, very_lucky)
    record = load_record(args.record)
    evaluator = None  # analyse's default: the shipped net
    if args.evaluator == "heuristic":
        from fevga.analyser import HeuristicEvaluator

        evaluator = HeuristicEvaluator(plies=args.plies)
    report = analyse(record, plies=args.plies, evaluator=evaluator, thresholds=thresholds,
                     rollouts=args.rollouts, rollout_seed=args.seed, workers=args.workers)
    if args.html and report.interrupted:
        print(f"analysis interrupted: {args.html} not written (a partial analysis is printed below)", file=sys.stderr)
    elif args.html:
        atomic_write(Path(args.html), lambda handle: handle.write(report.to_html().encode("utf-8")), what="report")
        print(f"wrote {args.html}", file=sys.stderr)
    print(report.to_json(indent=1) if args.json else report.to_text(all_plies=args.all))
    return INTERRUPTED if report.interrupted else 0
