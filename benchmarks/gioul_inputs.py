"""What each input group of the Gioul encoding (docs/net.md, "Gioul net") is worth to the
shipped Gioul net, measured by permutation: the states of seeded net self-play games are
encoded, one group of inputs is shuffled across the states (both sides' inputs of the group
together, so a state keeps everything else), and the net is evaluated again.

For each group the table gives
  * dMSE: the increase of the squared error of the net's equity against the game's result
    (points for the side to decide), with a 95% CI from game-level blocks: how much of the
    net's accuracy the group carries;
  * |d equity|: the mean absolute change of the net's equity: how much the net listens to it.

Run:  python benchmarks/gioul_inputs.py                 # 2,000 games, seed 20261203
      python benchmarks/gioul_inputs.py --games 200     # a quick look
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from fevga.net import net_of
from fevga.seeding import master_key, seed_sequence
from fevga_core import gioul as core_gioul
from fevga_core import train as core_train
from fevga_core.net import GIOUL_INPUTS

SIDE = 108  # inputs per side; the second side starts at SIDE, the pending dice at 2 * SIDE
DICE = 2 * SIDE


def _side(*offsets: int) -> list[int]:
    return [base + k for base in (0, SIDE) for k in offsets]


GROUPS: dict[str, list[int]] = {
    "points (4 per point 1-24)": _side(*range(96)),
    "off": _side(96),
    "pips": _side(97),
    "home": _side(98),
    "prime (longest run)": _side(99),
    "first half": _side(100),
    "bear-off allowed": _side(101),
    "trapped": _side(102),
    "blocked": _side(103),
    "escaped": _side(104),
    "contact": _side(105),
    "chains armed": _side(106),
    "rolls made": _side(107),
    "pending dice by number": [DICE + k for k in range(6)],
    "pending pips": [DICE + 6],
    "handed over": [DICE + 7],
    "chain follows": [DICE + 8],
}


def equity(params: np.ndarray, hidden: int, x: np.ndarray) -> np.ndarray:
    """The net's equity for the side to decide of each dense input row (net.pxd's layout)."""
    n = GIOUL_INPUTS
    w1 = params[: n * hidden].reshape(n, hidden)
    b1 = params[n * hidden:(n + 1) * hidden]
    w2 = params[(n + 1) * hidden:(n + 4) * hidden].reshape(3, hidden)
    b2 = params[(n + 4) * hidden:(n + 4) * hidden + 3]
    a = np.maximum(x @ w1 + b1, 0.0)
    s = 1.0 / (1.0 + np.exp(-(a @ w2.T + b2).astype(np.float64)))
    return 2.0 * s[:, 0] - 1.0 + s[:, 0] * s[:, 1] - (1.0 - s[:, 0]) * s[:, 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--net", default=None, help="a Gioul net file (default: the shipped one)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    net = net_of(args.net, "gioul")
    rows_list, results, game_of = [], [], []
    master = master_key(seed_sequence(args.seed))
    for g in range(args.games):  # lambda = 1: each state's target is its game's result
        rows, targets, _ = core_train.gioul_selfplay_samples(net._core, master, g, 1, 1.0)
        rows_list.append(rows)
        results.append(2.0 * targets[:, 0] - 1.0 + targets[:, 1] - targets[:, 2])
        game_of.append(np.full(len(rows), g))
    rows = np.concatenate(rows_list)
    result = np.concatenate(results)
    game = np.concatenate(game_of)
    x = np.stack([core_gioul.encode_state(r) for r in rows]).astype(np.float32)
    params = np.asarray(net.params, dtype=np.float32)
    base = equity(params, net.hidden, x)
    core = net._core.evaluate_rows(rows)
    core_equity = 2 * core[:, 0] - 1 + core[:, 1] - core[:, 2]
    assert np.allclose(base, core_equity, atol=1e-4), "the replica of the forward pass disagrees with the core"
    rng = np.random.Generator(np.random.PCG64(args.seed))
    base_err = (base - result) ** 2
    print(f"{args.games} net self-play games (seed {args.seed}), {len(rows):,} states; Gioul net "
          f"{net.checksum[:12]}; MSE of its equity against the result {base_err.mean():.4f}")
    print()
    print("| input group | inputs | dMSE (95% CI) | mean abs d equity |")
    print("|---|---|---|---|")
    for name, columns in GROUPS.items():
        shuffled = x.copy()
        order = rng.permutation(len(x))
        shuffled[:, columns] = x[order][:, columns]
        value = equity(params, net.hidden, shuffled)
        delta = (value - result) ** 2 - base_err
        per_game = np.bincount(game, weights=delta, minlength=args.games) / len(rows) * args.games
        ci = 1.96 * per_game.std(ddof=1) / np.sqrt(args.games)
        print(f"| {name} | {len(columns)} | {delta.mean():+.4f} ± {ci:.4f} | {np.abs(value - base).mean():.4f} |")
        sys.stdout.flush()
    print()
    print(f"{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
