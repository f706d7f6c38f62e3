"""`fevga analyse RECORD [RECORD ...]`: errors, luck and ratings of recorded games and matches,
with per-player totals across the files (players are matched by name).

The reports are written game by game as the analysis goes (fevga.report): the memory does not
grow with the number of games.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any, TextIO

from fevga.analyser import Analyser, ApiEvaluator, HeuristicEvaluator, Thresholds, Totals, interruption_note
from fevga.errors import InvalidArgumentError
from fevga.files import atomic_write, output_path
from fevga.parallel import deferred_interrupt
from fevga.records import load_record
from fevga.report import HtmlReport, JsonReport, TextReport, totals_table
import json

INTERRUPTED = 130  # exit status after Ctrl-C, once the partial analysis is printed


class _Interrupted(Exception):
    """Ctrl-C stopped the analysis: the HTML report being written is abandoned (never kept as
    if it were complete), the text or JSON report says what it covers."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the analyse sub-command."""
    parser = subparsers.add_parser("analyse", aliases=["analyze"],
                                   help="analyse game or match records (JSON or the text match format)")
    parser.add_argument("records", nargs="+", metavar="RECORD",
                        help="record file(s): engine JSON or the text match format (docs/records.md); with several, "
                             "per-player totals across them follow")
    parser.add_argument("--plies", type=int, default=1,
                        help="plies of the decision evaluator: 1 rates a move by its result, 2 looks a roll deeper")
    parser.add_argument("--every-move", action=argparse.BooleanOptionalAction, default=None,
                        help="with --plies 2 or more, search every move of a decision at 2 plies, not only the move "
                             "filter's, or (--no-every-move) only the filter's (fevga.hint every_move; default: the "
                             "game's, every move in Gioul, the filter in Fevga)")
    parser.add_argument("--evaluator", choices=["heuristic", "net"], default="net",
                        help="the shipped net through fevga.hint/evaluate (default) or the old heuristic expectimax")
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
    evaluator: HeuristicEvaluator | ApiEvaluator | None = None  # the analysis's default: the shipped net
    if args.evaluator == "heuristic":
        if args.every_move:
            raise InvalidArgumentError("--every-move applies to the net evaluator, not the heuristic one")
        evaluator = HeuristicEvaluator(plies=args.plies)
    elif args.every_move is not None:
        if args.every_move and args.plies < 2:
            raise InvalidArgumentError("--every-move searches at 2 plies or more: add --plies 2")
        evaluator = ApiEvaluator(args.plies, every_move=args.every_move)
    options = dict(plies=args.plies, evaluator=evaluator, thresholds=thresholds, rollouts=args.rollouts,
                   rollout_seed=args.seed, workers=args.workers)
    if len(args.records) > 1:
        for name in args.records:  # every file is read and checked (one at a time) before the long work
            load_record(name)
    if args.html:
        def write_html(handle: Any) -> None:
            text = io.TextIOWrapper(handle, encoding="utf-8", newline="\n")
            try:
                if not _report(args, options, text):
                    raise _Interrupted
                text.flush()
            finally:
                text.detach()

        try:
            atomic_write(Path(args.html), write_html, what="report")
        except _Interrupted:
            print(f"analysis interrupted: {args.html} not written (the partial analysis is printed)", file=sys.stderr)
            return INTERRUPTED
        print(f"wrote {args.html}", file=sys.stderr)
        return 0
    return 0 if _report(args, options, None) else INTERRUPTED


def _report(args: argparse.Namespace, options: dict[str, Any], html: TextIO | None) -> bool:
    """Analyse every file game by game, writing the text (or JSON) report to stdout and the HTML
    report to `html` as each game is done, then the totals across the files. False when Ctrl-C
    stopped it: the reports then end with what was analysed, and say so."""
    out = sys.stdout
    several = len(args.records) > 1
    page = HtmlReport(html) if html is not None else None
    if page is not None:
        page.begin_page("fevga analysis: " + ", ".join(Path(r).name for r in args.records))
    totals: dict[str, Totals] = {}
    stopped = False
    if args.json and several:
        out.write('{"files": [\n')
    for index, name in enumerate(args.records):
        record = load_record(name)
        analyser = Analyser(record, **options)
        report: Any = JsonReport(out, indent=1) if args.json else TextReport(out, args.all)
        if several:
            out.write(("" if index == 0 else ",\n") + f'{{"file": {_json(name)}, "analysis": ' if args.json
                      else ("" if index == 0 else "\n") + f"== {name} ==\n")
        report.begin(analyser.header)
        if page is not None:
            page.begin(analyser.header, name if several else None)
        games = plies = 0  # counts only: the memory stays flat
        last = None
        try:
            for last in analyser.games():
                with deferred_interrupt():  # a game's report is written whole (the JSON stays valid)
                    report.game(last)
                    if page is not None:
                        page.game(last)
                    games, plies = games + 1, plies + len(last.plies)
        except KeyboardInterrupt:  # while a report was written, not in the analysis itself
            analyser.interrupted = True
        if analyser.interrupted:
            report.interrupted(interruption_note(plies, games, analyser.header.games, last)
                               + (f"; {len(args.records) - index - 1} more file(s) not analysed"
                                  if index + 1 < len(args.records) else ""))
        players = analyser.summaries()
        score = (analyser.score[0], analyser.score[1])
        report.end(players, score, analyser.elapsed)
        if page is not None:
            page.end(players, score, analyser.elapsed)
        if several and args.json:
            out.write("}")
        for player in players:
            totals.setdefault(player.name, Totals(player.color, player.name)).merge(player)
        if analyser.interrupted:
            stopped = True
            break
        del record, analyser  # one file at a time
    merged = [t.summary() for t in totals.values()]
    title = f"Totals across {len(args.records)} files (players by name)"
    if several:
        if args.json:
            out.write(f'\n], "totals": {_json([p.to_dict() for p in merged], 1)}}}\n')
        else:
            out.write(f"\n== {title} ==\n{totals_table(merged)}\n")
    elif args.json:
        out.write("\n")
    if page is not None and not stopped:
        if several:
            page.totals(merged, title)
        page.end_page()
    return not stopped


def _json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent)
