"""The strength ladders of both games: seeded matches with colours alternated, as a table.

Run:  python benchmarks/strength.py                      # Fevga, 10,000 games a pairing (the README table)
      python benchmarks/strength.py --game gioul         # the Gioul ladder (the README's Gioul table)
      python benchmarks/strength.py --games 2592 --json   # quicker, machine-readable
Each pairing plays the same dice streams with the colours swapped (Fevga: fevga.strength.duel,
first two rolls stratified; Gioul: fevga.strength.gioul_duel from the one-die draw); points per
game and win rate are for the first player, each with a 95% confidence interval. A shipped net
is also matched against its predecessor: the newest earlier net of its game in benchmarks/nets/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fevga import Net
from fevga.net import net_of
from fevga.strength import Duel, duel, gioul_duel

NETS = Path(__file__).parent / "nets"  # predecessors of the shipped nets, <game>-net-<n>.npz
RUNGS = {"fevga": [("net", "random"), ("net", "heuristic"), ("net", "lookahead"), ("net2", "net")],
         "gioul": [("net", "random"), ("net", "heuristic"), ("net2", "net")]}

Rung = tuple[str, str, "Net | None", "Net | None", int]


def duel_cells(result: Duel, win_ci: bool = True) -> str:
    """The table cells of a duel: points/game (95% CI) | win rate (with its CI when `win_ci`)."""
    win = f"{100 * result.win_rate:.1f}%" + (f" ± {100 * result.win_ci:.1f}" if win_ci else "")
    return f"{result.ppg:+.3f} ± {result.ppg_ci:.3f} | {win}"


def predecessor(game: str) -> Net | None:
    """The newest earlier net of `game` kept in benchmarks/nets/ (not the shipped one), or None."""
    shipped = net_of(None, game)
    earlier = [Net.load(p) for p in sorted(NETS.glob(f"{game}-net-*.npz"), key=lambda p: int(p.stem.split("-")[-1]))]
    earlier = [n for n in earlier if n.checksum != shipped.checksum]
    return earlier[-1] if earlier else None


def pairings(game: str, games: int, net2_games: int) -> list[Rung]:
    """(a, b, net of a, net of b, games) of every rung of `game`'s ladder."""
    ladder: list[Rung] = [(a, b, None, None, net2_games if "net2" in (a, b) else games) for a, b in RUNGS[game]]
    before = predecessor(game)
    if before is not None:
        ladder.append(("net", "net", net_of(None, game), before, games))
    return ladder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(RUNGS), default="fevga", help="the ladder (default: %(default)s)")
    parser.add_argument("--games", type=int, default=10_000, help="games per pairing (default: %(default)s)")
    parser.add_argument("--net2-games", type=int, default=2_592, help="games of net2 vs net (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = parser.parse_args(argv)
    shipped = net_of(None, args.game)
    play = duel if args.game == "fevga" else gioul_duel
    if not args.json:
        print(f"{args.game}: shipped net {shipped.checksum[:12]} ({shipped.provenance.get('games')} training games), "
              f"seed {args.seed}")
        print()
        print("| pairing | games | points/game (95% CI) | win rate (95% CI) | seconds |")
        print("|---|---|---|---|---|")
    for a, b, net_a, net_b, games in pairings(args.game, args.games, args.net2_games):
        began = time.perf_counter()
        result = play(a, b, games=games, seed=args.seed, net_a=net_a, net_b=net_b, workers=args.workers)
        seconds = time.perf_counter() - began
        label = f"{a} vs {b}" if net_a is None or net_b is None else \
            f"{a} ({net_a.checksum[:8]}) vs {b} ({net_b.checksum[:8]})"
        if args.json:
            print(json.dumps({"game": args.game, "pairing": label, **result.to_dict(), "seconds": round(seconds, 1)}))
        else:
            print(f"| {label} | {result.games} | {duel_cells(result)} | {seconds:.0f} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
