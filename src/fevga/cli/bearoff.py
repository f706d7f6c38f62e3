"""`fevga bearoff` sub-commands: build, query and plot bear-off tables.

POSITION is a position ID, ``start``, position JSON, or bare counts: ``0,0,0,0,0,1`` (one side,
points 1..P) or ``0,0,0,0,0,1/2,1`` (side on roll / opponent). ``--game gioul`` (or a Gioul ID or
JSON as POSITION) uses Gioul tables, in which every double is a chain.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from fevga.cli.options import add_game_options, game_of, position_argument
from fevga.errors import FevgaError, InvalidArgumentError, InvalidNotationError, MissingBearoffError
from fevga.files import atomic_write, output_path
from fevga_core.constants import NUM_CHECKERS
from fevga.bearoff.tables import check_gioul_race
from fevga.bearoff import OneSidedDB, TwoSidedDB, best_move, cache_dir, default_one_sided, open_db, race_estimate

Sides = tuple[tuple[int, ...], tuple[int, ...] | None, Any]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `bearoff` sub-commands (build, query, plot)."""
    parser = subparsers.add_parser("bearoff", help="bear-off databases: build, query, plot")
    commands = parser.add_subparsers(dest="bearoff_command", required=True, metavar="ACTION")

    build = commands.add_parser("build", help="build a table and write it atomically")
    build.add_argument("kind", choices=["one-sided", "two-sided"])
    build.add_argument("--game", choices=["fevga", "gioul"], default="fevga",
                       help="the game the table is for (default: %(default)s; gioul: doubles are chains)")
    build.add_argument("--points", type=int, default=6, help="points 1..P covered (default 6)")
    build.add_argument("--checkers", type=int, help="checkers per side (default 15 one-sided, 6 two-sided)")
    build.add_argument("--out", type=Path, help="output file (default: the cache directory)")
    build.add_argument("--dtype", choices=["float64", "float32"], default="float64", help="storage of distributions / equities")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.set_defaults(run=_build)

    query = commands.add_parser("query", help="look a position up")
    query.add_argument("position", metavar="POSITION")
    add_game_options(query, rules=False)
    query.add_argument("--db", type=Path, help="one-sided table file (default: the cached 6x15 table)")
    query.add_argument("--two-sided", type=Path, help="two-sided table file for exact equities")
    query.add_argument("--dice", help="also print the best move for these dice, e.g. 6-1 (needs a position)")
    query.add_argument("--json", action="store_true", help="print JSON")
    query.set_defaults(run=_query)

    plot = commands.add_parser("plot", help="chart the roll distributions of a position (needs matplotlib)")
    plot.add_argument("position", metavar="POSITION")
    add_game_options(plot, rules=False)
    plot.add_argument("--out", type=Path, required=True, help="image file, e.g. race.png")
    plot.add_argument("--db", type=Path, help="one-sided table file (default: the cached 6x15 table)")
    plot.set_defaults(run=_plot)


def _parse_counts(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip() != "")
    except ValueError:
        raise InvalidNotationError(f"bear-off counts {text!r} must be comma-separated integers") from None
    if not values:
        raise InvalidNotationError(f"bear-off counts {text!r} are empty")
    return values


def parse_sides(text: str, game: str = "fevga") -> Sides:
    """(on roll, opponent or None, Position, GioulPosition or None) from a POSITION argument."""
    stripped = text.strip()
    if "," in stripped or stripped.isdigit():
        parts = stripped.split("/")
        if len(parts) > 2:
            raise InvalidNotationError(f"bear-off position {text!r} has more than two sides")
        on_roll = _parse_counts(parts[0])
        opponent = _parse_counts(parts[1]) if len(parts) == 2 else None
        return on_roll, opponent, None
    position = position_argument(stripped, game)
    if game == "gioul":
        check_gioul_race(position)
        if position.pending:  # type: ignore[union-attr]
            raise MissingBearoffError(
                f"Gioul position {position.id} has dice pending {position.pending}: "  # type: ignore[union-attr]
                "query a position where a roll is due"
            )
    return tuple(position.counts(position.turn)), tuple(position.counts(1 - position.turn)), position


def _one_sided(path: Path | None, game: str = "fevga") -> Any:
    if path is None:
        return default_one_sided(game=game)
    db = open_db(path, game=game)
    if not isinstance(db, OneSidedDB):
        raise InvalidNotationError(f"--db {str(path)!r} is a {db.kind} table, not one-sided")
    return db


def _build(args: argparse.Namespace) -> int:
    progress = not args.quiet and sys.stderr.isatty()
    checkers = args.checkers
    if checkers is None:  # 0 is refused by the build, not replaced
        checkers = NUM_CHECKERS if args.kind == "one-sided" else 6
    suffix = "" if args.game == "fevga" else f"-{args.game}"
    out = args.out
    if out is None:
        out = cache_dir() / f"{args.kind}-{args.points}x{checkers}{suffix}.fbo"
        try:
            out.parent.mkdir(parents=True, exist_ok=True)  # fevga's own cache folder
        except OSError as exc:
            raise InvalidArgumentError(f"cannot make the cache folder {str(out.parent)!r}: "
                                       f"{exc.strerror or exc}") from None
    output_path(out, "bear-off table")  # a bad --out fails before the build, not after it
    start = time.perf_counter()
    if args.kind == "one-sided":
        db: Any = OneSidedDB.build(points=args.points, checkers=checkers, game=args.game, progress=progress)
    else:
        db = TwoSidedDB.build(checkers=checkers, points=args.points, game=args.game, progress=progress)
    built = time.perf_counter() - start
    path = db.save(out, dtype=args.dtype)
    game = "" if args.game == "fevga" else f"{args.game} "
    print(f"{game}{args.kind} {args.points}x{checkers}: {len(db)} entries, built in {built:.2f} s, "
          f"{path.stat().st_size} bytes -> {path}")
    return 0


def _side_report(db: Any, side: tuple[int, ...]) -> dict[str, Any]:
    counts = db.counts(side)
    distribution = db.distribution(counts)
    report: dict[str, Any] = {
        "counts": list(counts),
        "mean_rolls": db.mean_rolls(counts),
        "stdev_rolls": db.stdev_rolls(counts),
        "distribution": {str(i): float(p) for i, p in enumerate(distribution) if p > 0},
    }
    if sum(counts) == db.checkers == NUM_CHECKERS:
        report["first_off_mean"] = db.first_off_mean(counts)
        report["first_off_distribution"] = {
            str(i): float(p) for i, p in enumerate(db.first_off_distribution(counts)) if p > 0
        }
    return report


def _query(args: argparse.Namespace) -> int:
    game = game_of(args, args.position)
    on_roll, opponent, position = parse_sides(args.position, game)
    db = _one_sided(args.db, game)
    bearoff: Any = open_db(args.two_sided, kind="two-sided", game=game) if args.two_sided else None
    result: dict[str, Any] = {"game": game, "on_roll": _side_report(db, on_roll)}
    if opponent is not None:
        result["opponent"] = _side_report(db, opponent)
        if any(db.counts(opponent)) and any(db.counts(on_roll)):
            estimate = race_estimate(on_roll, opponent, db)
            result["estimate"] = estimate.to_dict()
        if bearoff is not None:
            try:
                result["exact"] = {"equity": bearoff.equity(on_roll, opponent),
                                   "win": bearoff.win_probability(on_roll, opponent)}
            except MissingBearoffError as exc:
                result["exact"] = {"missing": str(exc)}
    if args.dice:
        if position is None:
            raise InvalidNotationError("--dice needs a full position (ID, start or JSON), not bare counts")
        move = best_move(position, args.dice, bearoff=bearoff, one_sided=db)
        result["best_move"] = move.notation
        if game == "gioul":  # a chain: each later block is a decision of the same player
            blocks = [move.notation]
            after = move.position
            while after.pending and after.winner() is None:  # type: ignore[union-attr]
                move = best_move(after, None, bearoff=bearoff, one_sided=db)
                blocks.append(move.notation)
                after = move.position
            result["best_decisions"] = blocks
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if game == "gioul":
        print("Gioul tables: every double is a chain (both sides at their fourth roll or later)")
    for name in ("on_roll", "opponent"):
        if name in result:
            side = result[name]
            line = f"{name.replace('_', ' '):9} {side['counts']}: {side['mean_rolls']:.6f} rolls (sd {side['stdev_rolls']:.4f})"
            if "first_off_mean" in side:
                line += f", first off in {side['first_off_mean']:.4f}"
            print(line)
            print("          P(rolls): " + "  ".join(f"{k}:{v:.4f}" for k, v in side["distribution"].items()))
    if "estimate" in result:
        e = result["estimate"]
        print(f"estimate  win {e['win']:.6f}  mars won {e['win_mars']:.6f}  mars lost {e['lose_mars']:.6f}  "
              f"equity {e['equity']:+.6f}")
    if "exact" in result:
        x = result["exact"]
        print(f"exact     {x['missing']}" if "missing" in x else f"exact     win {x['win']:.6f}  equity {x['equity']:+.6f}")
    if "best_decisions" in result and len(result["best_decisions"]) > 1:
        print("best move " + " | ".join(result["best_decisions"]) + "  (one decision per block of the chain)")
    elif "best_move" in result:
        print(f"best move {result['best_move']}")
    return 0


def _plot(args: argparse.Namespace) -> int:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise FevgaError("plotting needs matplotlib: pip install 'fevga[plot]'") from None
    output_path(args.out, "plot")
    game = game_of(args, args.position)
    on_roll, opponent, _ = parse_sides(args.position, game)
    db = _one_sided(args.db, game)
    figure, axes = plt.subplots(figsize=(7, 4))
    formats = figure.canvas.get_supported_filetypes()
    suffix = args.out.suffix.lstrip(".").lower()
    if suffix not in formats:
        plt.close(figure)
        raise InvalidNotationError(f"--out {str(args.out)!r}: unknown image format {suffix!r}; "
                                   f"use one of {', '.join(sorted(formats))}")
    width = 0.4
    for shift, (label, side) in zip((-width / 2, width / 2), (("on roll", on_roll), ("opponent", opponent))):
        if side is None:
            continue
        counts = db.counts(side)
        distribution = db.distribution(counts)
        axes.bar([i + shift for i in range(len(distribution))], distribution, width=width,
                 label=f"{label} {list(counts)}: mean {db.mean_rolls(counts):.3f}")
    axes.set_xlabel("rolls to bear off")
    axes.set_ylabel("probability")
    axes.set_title("Bear-off distributions")
    axes.legend()
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format=suffix)
    plt.close(figure)
    atomic_write(args.out, lambda handle: handle.write(image.getvalue()), what="plot")
    print(f"wrote {args.out}")
    return 0
