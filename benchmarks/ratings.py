"""Calibration of the performance rating: the ratings `fevga analyse` gives policies of known strength.

Run:  python benchmarks/ratings.py                      # 200 games a policy at 1 ply (docs/analysis.md)
      python benchmarks/ratings.py --plies 2 --games 40 --policies heuristic,lookahead,net-1,net
Each policy plays seeded games against itself (fevga.strength.rate_policy); each game is analysed
on its own by the shipped net, and each side of each game gives one rating. The strength ladder
(README, benchmarks/strength.py) orders the policies: random < heuristic < lookahead < net-1
(the shipped net's 600,000-game predecessor, benchmarks/nets/) < net < net2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fevga import Net
from fevga.strength import PolicyRating, equal_error_edge, rate_policy

NETS = Path(__file__).parent / "nets"
LADDER = ("random", "heuristic", "lookahead", "net-1", "net", "net2")
# The band edges of fevga.analyser.RATING_BANDS: (stronger, weaker) rungs each edge separates.
# heuristic and lookahead share the "intermediate" band (their ratings are within a point);
# at 1 ply, net2 stands for the top band: "net" is judged by itself there and rates exactly 0.
EDGES = (("net2", "net-1"), ("net-1", "lookahead"), ("heuristic", "random"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games a policy (default: %(default)s)")
    parser.add_argument("--plies", type=int, default=1, help="analysis depth (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--policies", default=",".join(LADDER), help="comma-separated, from: " + ", ".join(LADDER))
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = parser.parse_args(argv)
    if not args.json:
        print(f"analysis at {args.plies} ply, {args.games} self-play games a policy, seed {args.seed}")
        print()
        print("| policy | ratings | pooled | mean ± sd | 10% | median | 90% | seconds |")
        print("|---|---|---|---|---|---|---|---|")
    measured: dict[str, PolicyRating] = {}
    for name in args.policies.split(","):
        if name not in LADDER:
            parser.error(f"unknown policy {name!r}: choose from {', '.join(LADDER)}")
        policy, net = (("net", Net.load(NETS / "fevga-net-1.npz")) if name == "net-1" else (name, None))
        began = time.perf_counter()
        r = rate_policy(policy, games=args.games, seed=args.seed, plies=args.plies, net=net, label=name)
        seconds = time.perf_counter() - began
        measured[name] = r
        if args.json:
            print(json.dumps({**r.to_dict(), "seconds": round(seconds, 1)}))
        else:
            print(f"| {name} | {len(r.ratings)} | {r.pooled:.1f} | {r.mean:.1f} ± {r.sd:.1f} | {r.quantile(0.1):.1f} "
                  f"| {r.quantile(0.5):.1f} | {r.quantile(0.9):.1f} | {seconds:.0f} |")
        sys.stdout.flush()
    edges = [(a, b, equal_error_edge(measured[a], measured[b])) for a, b in EDGES if a in measured and b in measured]
    if not args.json and edges:
        print()
        print("equal-error band edges: " + ", ".join(f"{a} | {b}: {e:.1f}" for a, b, e in edges))
    elif edges:
        print(json.dumps({"edges": [{"better": a, "worse": b, "edge": e} for a, b, e in edges]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
