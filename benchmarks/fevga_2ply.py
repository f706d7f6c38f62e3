"""Why Fevga's 2-ply search gains little over 1 ply, and net 3 distilled from its own 2-ply
values (docs/error_rate.md, "Where net 3's 2-ply loss lies", "Net 3 distilled from its own 2-ply
values" and "The yardstick's player").

Run:  python benchmarks/fevga_2ply.py gaps                          # net 3's 2-ply losses by its own gap (10 s)
      python benchmarks/fevga_2ply.py distil runs/distil --games 7000   # data, then the fine-tuned net
      fevga error-rate judge benchmarks/error_rate/corpus-2026.json \\
          benchmarks/error_rate/judged-se01-net-3.json judged-1.json --net runs/distil/net.npz \\
          --name "distilled 1-ply" --truth-net benchmarks/nets/fevga-net-2.npz
      # the same on judged-1.json, writing judged-2.json, with --plies 2 --name "distilled 2-ply"
      python benchmarks/fevga_2ply.py paired judged-2.json "distilled 1-ply" "net 3 1-ply"
      python benchmarks/fevga_2ply.py yardstick runs/net2.json --policy net2   # the picks by a 2-ply rollout player

`distil` plays `--games` seeded net-3 self-play games in chunks of `--chunk-games` (each chunk a
pure function of the seed and its number, written atomically to FOLDER/data: an interrupted
run resumes, and any number of workers writes the same files). Every position a game reaches
that the bear-off tables do not value gets its 2-ply value for its side on roll as the target
(`fevga.evaluate(position, 1)`: the value a 2-ply search gives a move's result). The shipped
net is then trained toward those targets (SGD over the rows in a seeded order, the step halving
over the epochs), every VALID_EVERY-th chunk held out, and saved as FOLDER/net.npz.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import fevga
from fevga import Net
from fevga.batch import evaluate as evaluate_rows, to_array
from fevga.error_rate import Corpus
from fevga.files import atomic_write
from fevga.game import play_game
from fevga.net import net_of
from fevga_core.net import CoreNet

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks/error_rate/corpus-2026.json"
JUDGED = ROOT / "benchmarks/error_rate/judged-se01-net-3.json"
NET_2 = ROOT / "benchmarks/nets/fevga-net-2.npz"  # the truth's rollout player
CHUNK_GAMES = 50
VALID_EVERY = 20  # chunk k is held out when k % VALID_EVERY == VALID_EVERY - 1
GAP_BANDS = ((0.0, 0.01), (0.01, 0.03), (0.03, 0.1), (0.1, float("inf")))


def equity(p: np.ndarray) -> np.ndarray:
    """Money equity of (win, win_mars, lose_mars) rows (a mars counts 2)."""
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 2]


def pick_diff(decision: dict[str, Any], player: str) -> float:
    """A judged truth decision's rolled-out difference of `player`'s pick to the best (<= 0)."""
    return next(float(m["diff"]) for m in decision["moves"] if m["move"] == decision["picks"][player])


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of at least 1")
    return value


def gaps() -> None:
    """Net 3's 2-ply losses on the Fevga truth, by how far its own every-move 2-ply values put
    the truth's best move behind its pick."""
    corpus, judged = Corpus.load(CORPUS), json.loads(JUDGED.read_text())
    lost: list[tuple[float, float]] = []  # (2-ply's own gap to the truth's best, the truth's loss)
    for decision, truth in zip(corpus.decisions, judged["decisions"]):
        loss = -pick_diff(truth, "net 3 2-ply")
        if loss > 0:
            own = {h.move.notation: h.loss for h in fevga.hint(decision.position, decision.dice, 2, every_move=True)}
            lost.append((own[truth["moves"][0]["move"]], loss))
    total = len(corpus.decisions)
    agree = [d for d in judged["decisions"] if d["picks"]["net 3 1-ply"] == d["picks"]["net 3 2-ply"]]
    shared = -sum(pick_diff(d, "net 3 1-ply") for d in agree) / total
    one_ply = -sum(pick_diff(d, "net 3 1-ply") for d in judged["decisions"]) / total
    print(f"net 3 1-ply and 2-ply pick the same move in {len(agree)} of {total} decisions, which hold {shared:.4f} "
          f"of each one's loss a decision (1-ply: {one_ply:.4f}): a 2-ply search that agreed with 1 ply there and "
          f"picked the truth's best in every other decision would still lose {shared / one_ply:.0%} of 1 ply's")
    print(f"net 3 2-ply: {len(lost)} of {total} decisions lose equity, "
          f"{sum(v for _, v in lost) / total:.4f} a decision")
    print("| its own 2-ply gap to the truth's best | decisions | share of the loss per decision | mean loss |")
    print("|---|---|---|---|")
    for low, high in GAP_BANDS:
        band = [v for gap, v in lost if low <= gap < high]
        print(f"| {low}-{high} | {len(band)} | {sum(band) / total:.4f} | {np.mean(band) if band else 0:.4f} |")


def chunk_path(folder: Path, number: int, seed: int, games: int) -> Path:
    """Where chunk `number` of a seed's games, `games` a chunk, is kept."""
    return folder / "data" / f"seed{seed}-games{games}-{number:05d}.npz"


def chunk(folder: Path, number: int, seed: int, games: int = CHUNK_GAMES) -> int:
    """Write FOLDER/data/chunk-NNNNN.npz (rows, targets) unless it exists; its row count."""
    path = chunk_path(folder, number, seed, games)
    if path.exists():
        return len(np.load(path)["rows"])
    net = net_of(None, "fevga")
    core = CoreNet(net.params.copy(), net.hidden)
    positions = []
    for game in range(number * games, (number + 1) * games):
        record = play_game(seed=np.random.SeedSequence(seed, spawn_key=(game,)), policy="net", net=net)
        positions += record.positions()[:-1]  # the last is finished
    rows = to_array(positions)
    netted = np.all(np.abs(core.evaluate_rows(rows) - evaluate_rows(rows)) < 1e-12, axis=1)  # not table-valued
    kept = [p for p, k in zip(positions, netted) if k]
    targets = np.array([(e.win, e.win_mars, e.lose_mars) for e in (fevga.evaluate(p, 1) for p in kept)])
    temporary = path.with_suffix(".tmp.npz")
    np.savez_compressed(temporary, rows=rows[netted], targets=targets)
    os.replace(temporary, path)
    return len(kept)


def distil(folder: Path, games: int, seed: int, rate: float, epochs: int, workers: int,
           chunk_games: int = CHUNK_GAMES) -> Net:
    """The data (resumable), then the shipped net trained toward it, saved as FOLDER/net.npz."""
    chunks = -(-games // chunk_games)
    if chunks < VALID_EVERY:
        raise SystemExit(f"--games {games}: at least {(VALID_EVERY - 1) * chunk_games + 1}, for a held-out chunk")
    (folder / "data").mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(workers) as pool:
        counts = list(pool.map(chunk, [folder] * chunks, range(chunks), [seed] * chunks, [chunk_games] * chunks))
    print(f"{chunks} chunks, {sum(counts)} positions", flush=True)
    parts = [np.load(chunk_path(folder, k, seed, chunk_games)) for k in range(chunks)]
    rows = np.ascontiguousarray(np.concatenate([p["rows"] for p in parts]))
    targets = np.clip(np.concatenate([p["targets"] for p in parts]), 0.0, 1.0)
    targets[:, 1] = np.minimum(targets[:, 1], targets[:, 0])
    targets[:, 2] = np.minimum(targets[:, 2], 1.0 - targets[:, 0])
    valid = np.concatenate([np.full(len(p["rows"]), k % VALID_EVERY == VALID_EVERY - 1) for k, p in enumerate(parts)])
    base = net_of(None, "fevga")
    params = base.params.copy()
    core = CoreNet(params, base.hidden)
    held, held_targets = np.ascontiguousarray(rows[valid]), targets[valid]

    def report(label: str) -> None:
        error = equity(core.evaluate_rows(held)) - equity(held_targets)
        print(f"{label}: held-out equity RMSE to the 2-ply values {np.sqrt(np.mean(error ** 2)):.4f}", flush=True)

    report("net 3")
    order = np.random.default_rng(seed)
    train = np.nonzero(~valid)[0]
    for epoch in range(epochs):
        pick = order.permutation(train)
        core.train_rows(np.ascontiguousarray(rows[pick]), np.ascontiguousarray(targets[pick]),
                        rate * 0.5 ** (epoch / max(epochs - 1, 1)))
        report(f"epoch {epoch + 1}")
    data = hashlib.sha256(rows.tobytes() + targets.tobytes()).hexdigest()
    command = (f"python benchmarks/fevga_2ply.py distil FOLDER --games {games} --seed {seed} --rate {rate} "
               f"--epochs {epochs} --chunk-games {chunk_games}")
    net = Net(params, base.hidden, {"trainer": "benchmarks/fevga_2ply.py distil: net 3 fine-tuned toward its 2-ply values",
                              "command": command, "base": base.checksum, "positions": int((~valid).sum()),
                              "data_sha256": data}, "fevga")
    net.save(folder / "net.npz")
    print(f"saved {folder / 'net.npz'} ({net.checksum[:12]})")
    return net


def paired(judged: Path, player: str, other: str) -> tuple[float, float, int]:
    """The mean per-decision loss of `player` minus `other`'s on a judged truth, its 95%
    half-width, and in how many decisions they differ."""
    diffs = []
    for decision in json.loads(judged.read_text())["decisions"]:
        diffs.append(pick_diff(decision, other) - pick_diff(decision, player))
    values = np.array(diffs)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    print(f"{player} minus {other}: {values.mean():+.4f} +- {half:.4f} (95%), "
          f"in {np.count_nonzero(values)} of {len(values)} decisions they differ")
    return float(values.mean()), float(half), int(np.count_nonzero(values))


def yardstick(out: Path, policy: str, games: int, seed: int, workers: int, limit: int | None = None) -> dict[str, float]:
    """What net 3's 2-ply search gains over its 1-ply one when net 2 playing `policy` ("net":
    1 ply, as the truth; "net2": 2 plies) rolls out the two picks of every decision where they
    differ (the first `limit` of them in the corpus's order, if given). The gain on a decision is
    the 2-ply pick's equity minus the 1-ply pick's (a common-random-number difference), 0 where
    the picks agree, so its mean over the corpus is exactly the 1-ply loss minus the 2-ply loss
    under that yardstick, whatever its best moves; it is printed beside the truth's own gain on
    the same decisions, and the two paired. Every decision is written to `out` as it finishes
    (atomically); the same command resumes."""
    corpus, judged = Corpus.load(CORPUS), json.loads(JUDGED.read_text())
    settings = {"policy": policy, "games": games, "seed": seed, "net": "fevga-net-2 int16"}
    done: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {**settings, "decisions": {}}
    if {k: done.get(k) for k in settings} != settings:
        raise SystemExit(f"{out} holds another yardstick's numbers: {({k: done.get(k) for k in settings})}")
    differ = [(decision, truth) for decision, truth in zip(corpus.decisions, judged["decisions"])
              if truth["picks"]["net 3 1-ply"] != truth["picks"]["net 3 2-ply"]]
    chosen = differ[:limit]
    rollout_net = Net.load(NET_2).quantised()
    for decision, truth in chosen:
        one, two = truth["picks"]["net 3 1-ply"], truth["picks"]["net 3 2-ply"]
        if str(truth["index"]) in done["decisions"]:
            continue
        ranked = fevga.rollout_moves(decision.position, decision.dice, games, np.random.SeedSequence(seed, spawn_key=(truth["index"],)),
                                     workers, policy, truncate=True, net=rollout_net, moves=[one, two], progress=False)
        diff = {m.move.notation: m.diff for m in ranked}
        done["decisions"][str(truth["index"])] = {"gain": diff[two] - diff[one], "se": ranked[1].diff_se,
                                                  "seconds": round(max(m.result.elapsed for m in ranked), 1)}
        atomic_write(out, lambda handle: handle.write(json.dumps(done, indent=1).encode()))
    gains, truth_gains = np.zeros(len(corpus.decisions)), np.zeros(len(corpus.decisions))
    for position, (_, truth) in enumerate(chosen):
        truth_gains[position] = pick_diff(truth, "net 3 2-ply") - pick_diff(truth, "net 3 1-ply")
        gains[position] = done["decisions"][str(truth["index"])]["gain"]
    spread = 1.96 / np.sqrt(len(gains))
    figures = {"gain": float(gains.mean()), "half": float(gains.std(ddof=1) * spread), "truth": float(truth_gains.mean()),
               "paired": float((gains - truth_gains).mean()), "paired_half": float((gains - truth_gains).std(ddof=1) * spread),
               "decisions": len(chosen)}
    print(f"net 2 playing {policy!r}, {games} games a pick, {figures['decisions']} of the {len(differ)} decisions where "
          f"net 3's 1-ply and 2-ply picks differ: 2 plies gain {figures['gain']:+.4f} +- {figures['half']:.4f} (95%) "
          f"a decision of the corpus over 1 ply; the truth (net 2 playing 'net') on the same decisions: "
          f"{figures['truth']:+.4f}; paired, the first minus the second: {figures['paired']:+.4f} +- {figures['paired_half']:.4f}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("gaps", help="net 3's 2-ply losses by its own gap to the truth's best")
    run = commands.add_parser("distil", help="net 3 fine-tuned toward its own 2-ply values")
    run.add_argument("folder", type=Path)
    run.add_argument("--games", type=int, default=7000, help="self-play games (default: %(default)s)")
    run.add_argument("--seed", type=int, default=5055, help="dice of the games, order of the rows (default: %(default)s)")
    run.add_argument("--rate", type=float, default=0.01, help="the first epoch's SGD step (default: %(default)s)")
    run.add_argument("--epochs", type=int, default=5, help="(default: %(default)s)")
    run.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    run.add_argument("--chunk-games", type=int, default=CHUNK_GAMES, help="games a data file (default: %(default)s)")
    pair = commands.add_parser("paired", help="two players' losses on a judged truth, paired by decision")
    pair.add_argument("judged", type=Path)
    pair.add_argument("player")
    pair.add_argument("other")
    ruler = commands.add_parser("yardstick", help="net 3's 2-ply picks against its 1-ply ones, rolled out by net 2 at 1 or 2 plies")
    ruler.add_argument("out", type=Path, help="the results (JSON, written as each decision finishes; resumed)")
    ruler.add_argument("--policy", choices=("net", "net2"), default="net2", help="net 2's rollout play (default: %(default)s)")
    ruler.add_argument("--games", type=positive, default=2592, help="games a pick (default: %(default)s)")
    ruler.add_argument("--seed", type=int, default=7, help="decision i plays SeedSequence(seed, spawn_key=(i,)) (default: %(default)s)")
    ruler.add_argument("--workers", type=positive, default=os.cpu_count() or 1, help="threads (default: every core)")
    ruler.add_argument("--limit", type=positive, help="only the first LIMIT decisions where the picks differ (default: all)")
    args = parser.parse_args(argv)
    if args.command == "gaps":
        gaps()
    elif args.command == "paired":
        paired(args.judged, args.player, args.other)
    elif args.command == "yardstick":
        yardstick(args.out, args.policy, args.games, args.seed, args.workers, args.limit)
    else:
        distil(args.folder, args.games, args.seed, args.rate, args.epochs, args.workers, args.chunk_games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
