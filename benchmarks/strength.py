"""The strength ladder: seeded matches with colours alternated (fevga.strength.duel), as a table.

Run:  python benchmarks/strength.py                      # 10,000 games a pairing (the README table)
      python benchmarks/strength.py --games 2592 --json   # quicker, machine-readable
Each pairing plays the same dice streams with the colours swapped, first two rolls stratified;
points per game and win rate are for the first player, each with a 95% confidence interval.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fevga import Net
from fevga.strength import duel

NETS = Path(__file__).parent / "nets"  # predecessors of the shipped net, oldest first


def pairings(games: int, net2_games: int) -> list[tuple[str, str, Net | None, Net | None, int]]:
    """(a, b, net of a, net of b, games) of every rung of the ladder."""
    ladder: list[tuple[str, str, Net | None, Net | None, int]] = [
        ("net", "random", None, None, games),
        ("net", "heuristic", None, None, games),
        ("net", "lookahead", None, None, games),
        ("net2", "net", None, None, net2_games),
    ]
    previous = sorted(NETS.glob("*.npz"))
    if previous:
        ladder.append(("net", "net", Net.default(), Net.load(previous[-1]), games))
    return ladder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per pairing (default: %(default)s)")
    parser.add_argument("--net2-games", type=int, default=2_592, help="games of net2 vs net (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = parser.parse_args(argv)
    shipped = Net.default()
    if not args.json:
        print(f"shipped net {shipped.checksum[:12]} ({shipped.provenance.get('games')} training games), seed {args.seed}")
        print()
        print("| pairing | games | points/game (95% CI) | win rate (95% CI) | seconds |")
        print("|---|---|---|---|---|")
    for a, b, net_a, net_b, games in pairings(args.games, args.net2_games):
        began = time.perf_counter()
        result = duel(a, b, games=games, seed=args.seed, net_a=net_a, net_b=net_b, workers=args.workers)
        seconds = time.perf_counter() - began
        label = f"{a} vs {b}" if net_b is None else f"{a} ({net_a.checksum[:8]}) vs {b} ({net_b.checksum[:8]})"
        if args.json:
            print(json.dumps({"pairing": label, **result.to_dict(), "seconds": round(seconds, 1)}))
        else:
            print(f"| {label} | {result.games} | {result.ppg:+.3f} ± {result.ppg_ci:.3f} "
                  f"| {100 * result.win_rate:.1f}% ± {100 * result.win_ci:.1f} | {seconds:.0f} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
