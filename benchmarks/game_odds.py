"""The default odds of the match equity table: the shipped net (or --net) playing itself from the start.

Run:  python benchmarks/game_odds.py                          # 518,400 games (docs/match.md)
      python benchmarks/game_odds.py --net benchmarks/nets/fevga-net-2.npz   # net 2's odds
      python benchmarks/game_odds.py --games 12960 --json      # quicker, machine-readable
      python benchmarks/game_odds.py --opening-dice --games 51840   # the variant's draw-begun games
Prints each outcome's probability for the side that starts the game with its 95% confidence
interval, and the lines that fevga.match keeps as DEFAULT_ODDS.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from fevga import Rules
from fevga.errors import FevgaError
from fevga.strength import measure_odds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=518_400, help="games (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--policy", default="net", help="self-play policy (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--net", default=None, help="the net file of the net policies (default: the shipped net)")
    parser.add_argument("--opening-dice", action="store_true",
                        help="games begun by the one-die draw under first_roll=opening_dice (the table's opening odds)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    rules = Rules(first_roll="opening_dice") if args.opening_dice else None
    try:
        m = measure_odds(games=args.games, seed=args.seed, policy=args.policy, workers=args.workers, net=args.net,
                         rules=rules, opening=args.opening_dice)
    except FevgaError as exc:  # a bad net file or argument: one line naming it, not a traceback
        parser.exit(2, f"game_odds.py: {type(exc).__name__}: {exc}\n")
    seconds = time.perf_counter() - began
    if args.json:
        print(json.dumps({**m.to_dict(), "seconds": round(seconds, 1)}))
        return 0
    kind = "begun by the one-die draw, first_roll=opening_dice" if args.opening_dice else "fresh first roll"
    print(f"policy {m.policy} (net {m.net}), {m.games} games ({kind}), seed {m.seed}, {seconds:.0f} s")
    print()
    print("| outcome for the starter | probability | 95% CI |")
    print("|---|---|---|")
    for key, label in (("win", "win (single or mars)"), ("win_mars", "win with mars"),
                       ("lose_mars", "lose with mars"), ("draw", "draw (dead position)")):
        p, h = getattr(m, key), m.ci95[key]
        print(f"| {label} | {100 * p:.2f}% | {100 * max(p - h, 0.0):.2f}% to {100 * (p + h):.2f}% |")
    print()
    print(f'ODDS_SOURCE = {{"policy": "{m.policy}", "net": "{m.net}", "games": {m.games}, "seed": {m.seed}}}')
    print(f"WIN, WIN_MARS, LOSE_MARS, DRAW = {m.win!r}, {m.win_mars!r}, {m.lose_mars!r}, {m.draw!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
