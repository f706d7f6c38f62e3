"""Play strength of the quantised net against the float net it was made from, head to head.

Run:  python benchmarks/quantised_strength.py                   # 10,000 game pairs at 1 ply ("net")
      python benchmarks/quantised_strength.py --policy net2 --games 1000
      python benchmarks/quantised_strength.py --agreement        # hint rankings only (the corpus)
      python benchmarks/quantised_strength.py --game gioul [--agreement]   # the Gioul net

Game pair i plays the dice stream of game i twice from the start position, the float net as
White then as Black (the quantised net the other colour), first two rolls stratified as in
every rollout, played to the end (no truncation; both sides read the default bear-off tables
in covered races, as hint does). Where both nets choose alike the two games are mirror
images and cancel, so the pair's points are what the differing choices did: the mean over the
pairs of (points of the float net in the first + in the second) / 2 is its points per game,
and its standard error comes from the spread of the pairs (the pairs are independent; the two
games of a pair are not). Results are the same for any --workers.

--agreement ranks every (position, roll) of the benchmark corpus (benchmarks/corpus.py) with
both nets through search.choose_rows (the "net" / "net2" choice, race tables included) and
reports how often they choose the same move.

--game gioul: the pairs are fevga.strength.gioul_duel's (each dice stream played with the
colours swapped, from the one-die draw; its 95% interval is over the games, so wider than the
pairs' would be); the agreement is over every decision with a choice of seeded Gioul net
self-play games (`--games` of them), ranked by `fevga.hint` with either net.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from fevga import Net, Position, hint
from fevga.game import play_game
from fevga.strength import gioul_duel
from fevga.bearoff.core_tables import tables_of
from fevga.policy import policy_id
from fevga.rollout.jobs import Sums
from fevga.seeding import master_key
from fevga_core import rollout as core
from fevga_core import search

sys.path.insert(0, str(Path(__file__).parent))


def _points(master: int, index: int, policy: int, white: Net, black: Net) -> float:
    """White's points in game `index` of the job (stratified, played to the end)."""
    sums = Sums(1)
    core.run_block(Position.initial()._row(), 0, 0, policy, policy, None, tables_of("default"), white._core,
                   black._core, False, False, 1.0, True, master, index, 1, *sums.arrays(),
                   np.zeros(1, dtype=np.int32), None)
    return float(sums.arrays()[0][0, 1])


def head_to_head(games: int, seed: int, policy: str, workers: int) -> dict[str, float]:
    """Points per game of the float net against the quantised one over `games` pairs (mean, SE)."""
    exact = Net.default()
    fast = exact.quantised()
    master = master_key(seed)
    pid = policy_id(policy)

    def pair(i: int) -> float:
        return (_points(master, i, pid, exact, fast) - _points(master, i, pid, fast, exact)) / 2.0

    with ThreadPoolExecutor(workers) as pool:
        values = np.array(list(pool.map(pair, range(games), chunksize=64)))
    return {"pairs": games, "games": 2 * games, "float_ppg": float(values.mean()),
            "se": float(values.std(ddof=1) / math.sqrt(games)), "pairs_differing": int(np.count_nonzero(values))}


def agreement(plies: int) -> dict[str, float]:
    """How often the two nets choose the same move of the corpus's (position, roll) pairs."""
    from corpus import position_roll_pairs

    rows, dice = position_roll_pairs()
    tables = tables_of("default")
    chosen = []
    for net in (Net.default(), Net.default().quantised()):
        out = np.zeros(len(rows), dtype=np.int32)
        search.choose_rows(net._core, tables, rows, dice, plies, 0, out)
        chosen.append(out)
    counts = np.zeros(len(rows), dtype=np.int32)
    from fevga_core import state as core_state

    core_state.count_moves(rows, dice, 0, counts)
    choice = counts > 1
    same = chosen[0][choice] == chosen[1][choice]
    return {"plies": plies, "pairs_with_a_choice": int(choice.sum()), "same_move": float(same.mean())}


def gioul_head_to_head(games: int, seed: int, policy: str, workers: int) -> dict[str, float]:
    """Points per game of the float Gioul net against its quantised twin over `games` pairs."""
    exact = Net.default("gioul")
    duel = gioul_duel(policy, policy, games=2 * games, seed=seed, net_a=exact, net_b=exact.quantised(),
                      workers=workers)
    return {"pairs": games, "games": 2 * games, "float_ppg": duel.ppg, "ci95": duel.ppg_ci,
            "float_win_rate": duel.win_rate}


def gioul_agreement(games: int, seed: int, plies: int) -> dict[str, float]:
    """How often the two Gioul nets choose the same move at the decisions of `games` seeded
    net self-play games (float net's games)."""
    exact = Net.default("gioul")
    fast = exact.quantised()
    decisions = same = 0
    for game in range(games):
        record = play_game(seed=np.random.SeedSequence(seed, spawn_key=(game,)), policy="net", game="gioul")
        for state, decision in zip(record.positions(), record.decisions):
            if decision.choices < 2:
                continue
            decisions += 1
            same += (hint(state, decision.roll, plies, net=exact)[0].move.steps
                     == hint(state, decision.roll, plies, net=fast)[0].move.steps)
    return {"plies": plies, "games": games, "decisions_with_a_choice": decisions, "same_move": same / decisions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="game pairs (default: %(default)s)")
    parser.add_argument("--policy", choices=("net", "net2"), default="net", help="default: %(default)s")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agreement", action="store_true", help="hint agreement on the corpus instead")
    parser.add_argument("--plies", type=int, default=1, help="plies of the agreement ranking (default: 1)")
    parser.add_argument("--game", choices=("fevga", "gioul"), default="fevga")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    if args.agreement:
        result = agreement(args.plies) if args.game == "fevga" else gioul_agreement(args.games, args.seed, args.plies)
    elif args.game == "gioul":
        result = gioul_head_to_head(args.games, args.seed, args.policy, args.workers)
        result.update(policy=args.policy, seed=args.seed)
    else:
        result = head_to_head(args.games, args.seed, args.policy, args.workers)
        result.update(policy=args.policy, seed=args.seed)
    result["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
