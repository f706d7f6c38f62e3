"""The Gioul training ablation of docs/net.md ("Choosing lambda, batch and games"): short runs
of `fevga train --game gioul` with one setting changed at a time, each net then measured
against the Gioul heuristic on other dice than the runs' own checks.

Run:  python benchmarks/gioul_ablation.py runs/ablation            # 4 runs of 100,000 games
      python benchmarks/gioul_ablation.py runs/ablation --games 20000 --duel-games 2000
A run already finished in the folder is measured again, not trained again; an interrupted
one resumes from its checkpoint (fevga train's own resume).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from fevga import Net
from fevga.strength import gioul_duel
from strength import duel_cells  # benchmarks/strength.py: the strength tables' cells

SETTINGS = {  # name -> the options that differ from fevga train's defaults (lambda 0.7, batch 512)
    "base": [],
    "lam04": ["--lam", "0.4"],
    "lam09": ["--lam", "0.9"],
    "batch128": ["--batch", "128"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--games", type=int, default=100_000, help="training games a run (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="the runs' seed (default: %(default)s)")
    parser.add_argument("--duel-games", type=int, default=10_000, help="games against the heuristic (default: %(default)s)")
    parser.add_argument("--duel-seed", type=int, default=20261203)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    print("| run | options | points/game vs heuristic (95% CI) | win rate | training seconds |")
    print("|---|---|---|---|---|")
    for name, options in SETTINGS.items():
        out = args.folder / name
        if not (out / "net.npz").exists():
            began = time.perf_counter()
            subprocess.run([sys.executable, "-m", "fevga", "train", str(out), "--game", "gioul", "--seed", str(args.seed),
                            "--games", str(args.games), "--check-every", str(max(args.games // 4, 1)),
                            "--check-games", "1296", "--workers", str(args.workers), "--no-progress", *options],
                           check=True, stdout=subprocess.DEVNULL)
            (out / "seconds.json").write_text(json.dumps(round(time.perf_counter() - began, 1)))
        net = Net.load(out / "net.npz")
        duel = gioul_duel("net", "heuristic", games=args.duel_games, seed=args.duel_seed, net_a=net,
                          workers=args.workers)
        seconds = json.loads((out / "seconds.json").read_text()) if (out / "seconds.json").exists() else None
        print(f"| {name} ({net.checksum[:8]}) | {' '.join(options) or 'defaults'} | {duel_cells(duel, win_ci=False)} "
              f"| {seconds if seconds is not None else '?'} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
