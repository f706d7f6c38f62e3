"""Training a net from scratch by self-play: TD(lambda) over batches of games (docs/net.md).

Each batch of `batch` games is played by the "net" policy with the weights frozen, in the
core on every local thread (or Dask workers); game i of the run uses the dice of
``game_seed(master, i)``. The batch's positions then get lambda-return targets
(fevga_core/train.pyx) and one SGD pass in game order updates the weights. So a run is a
pure function of its configuration and seed: the same net comes out for any number of
workers, and a resumed run continues exactly where the checkpoint stopped.

Every `check_every` games the net plays `check_games` games against `check_against` (the
"heuristic" policy by default, or a net file; fevga.strength.duel); those points per game
make the learning curve. A check ends a batch early, so `check_every` is part of the recipe.

``game="gioul"`` trains a Gioul net the same way (docs/net.md "Gioul net"): the "net" policy
plays Gioul games in the core's one game loop (fevga_core/rollout.pyx), their states get
lambda-return targets (fevga_core/train.pyx) and the checks are Gioul duels
(fevga.strength.gioul_duel) against a Gioul policy or a Gioul net file.

>>> from tempfile import TemporaryDirectory
>>> with TemporaryDirectory() as folder:
...     run = train(folder, TrainConfig(games=64, batch=32, hidden=8, check_every=64, check_games=72))
>>> run.games, len(run.history)
(64, 2)
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.errors import CheckpointError, InvalidArgumentError
from fevga.files import atomic_write, output_folder
from fevga.inputs import ArraySpec, parse_json, read_file, read_npz
from fevga.net import Net, check_game
from fevga.parallel import deferred_interrupt, run_chunks
from fevga.policy import GIOUL_POLICIES, POLICY_IDS
from fevga.checks import check_workers
from fevga.bearoff.core_tables import tables_of
from fevga.rules import Rules
from fevga.seeding import master_key
from fevga.limits import MAX_GAMES
from fevga.strength import duel, gioul_duel
from fevga_core import train as core
from fevga.rollout.executors import connect
from fevga_core.net import CoreNet
from fevga_core.gioul import CoreGioulNet
from fevga.version import __version__

CHECKPOINT = "checkpoint.npz"
NET_FILE = "net.npz"
CURVE_JSON = "curve.json"
CURVE_PNG = "curve.png"
MAX_CHECKPOINT_BYTES = 1 << 26  # a training checkpoint file, and the arrays it holds once decompressed
TRAIN_CHUNK_GAMES = 32  # self-play games per task of a batch (a Ctrl-C waits for at most one per thread)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (the checkpoint records it)."""

    games: int = 400_000        # self-play games in the whole run
    hidden: int = 128           # hidden units
    lam: float = 0.7            # lambda of the lambda-return targets
    rate: float = 0.02          # SGD step at the start ...
    rate_final: float = 0.002   # ... decaying geometrically to this at the end
    batch: int = 512            # games played with frozen weights between updates
    seed: int = 1               # dice of the games and the initial weights
    check_every: int = 20_000   # games between strength checks
    check_games: int = 2_592    # games per strength check
    check_against: str = "heuristic"  # the checks' opponent: a built-in policy or a net file
    game: str = "fevga"         # the game: "fevga" or "gioul"

    def validate(self) -> TrainConfig:
        """Self, or InvalidArgumentError naming the first field out of range."""
        ints = {"games": (1, MAX_GAMES), "hidden": (1, 512), "batch": (1, 1_000_000), "seed": (0, 2**63 - 1),
                "check_every": (1, MAX_GAMES), "check_games": (2, 10_000_000)}
        for name, (low, high) in ints.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise InvalidArgumentError(f"{name}={value!r} must be an integer in {low}..{high}")
        if self.check_games % 2:
            raise InvalidArgumentError(f"check_games={self.check_games} must be even (colours alternate)")
        for name in ("lam", "rate", "rate_final"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidArgumentError(f"{name}={value!r} must be a finite number >= 0")
        if not isinstance(self.check_against, str) or not self.check_against:
            raise InvalidArgumentError(f"check_against={self.check_against!r} must be a policy name or a net file")
        check_game(self.game)
        if self.lam > 1:
            raise InvalidArgumentError(f"lam={self.lam} must be in [0, 1]")
        if self.rate == 0 or self.rate_final == 0:
            raise InvalidArgumentError("rate and rate_final must be > 0")
        return self

    def rate_at(self, games: int) -> float:
        """The SGD step after `games` games."""
        return float(self.rate * (self.rate_final / self.rate) ** (games / self.games))


@dataclass
class TrainRun:
    """The state of a run: weights, games played, learning curve, time spent."""

    config: TrainConfig
    params: npt.NDArray[np.float32]
    games: int = 0
    samples: int = 0
    seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)

    def net(self, command: str | None = None) -> Net:
        """The current weights as a Net with provenance."""
        provenance = {
            "trainer": "fevga.train (TD(lambda) self-play, docs/net.md)",
            "config": asdict(self.config),
            "games": self.games,
            "samples": self.samples,
            "seconds": round(self.seconds, 1),
            "fevga_version": __version__,
            "command": command or _default_command(self.config),
            "final_check": self.history[-1] if self.history else None,
        }
        return Net(self.params, self.config.hidden, provenance, self.config.game)


def _default_command(config: TrainConfig) -> str:
    defaults = TrainConfig()
    options = " ".join(f"--{f.name.replace('_', '-')} {getattr(config, f.name)}" for f in fields(config)
                       if getattr(config, f.name) != getattr(defaults, f.name))
    return f"fevga train OUT {options}".strip()


def _save(folder: Path, run: TrainRun) -> None:
    meta = {"config": asdict(run.config), "games": run.games, "samples": run.samples, "seconds": run.seconds,
            "history": run.history, "format": "fevga-train-checkpoint", "version": 1}

    arrays: dict[str, Any] = {"params": run.params, "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    arrays["sha256"] = np.frombuffer(_digest(arrays).encode(), dtype=np.uint8)

    def write(handle: Any) -> None:
        np.savez(handle, **arrays)

    atomic_write(folder / CHECKPOINT, write, what="checkpoint")
    atomic_write(folder / CURVE_JSON, lambda h: h.write(json.dumps(run.history, indent=1).encode()))


def _digest(arrays: dict[str, Any]) -> str:
    """The checkpoint's content checksum: SHA-256 over its parameters and meta bytes."""
    digest = hashlib.sha256(b"fevga-train-checkpoint-1")
    for name in ("params", "meta"):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


_CHECKPOINT_ARRAYS: dict[str, ArraySpec] = {
    "params": ((np.dtype(np.float32),), 1 << 24), "meta": ((np.dtype(np.uint8),), 1 << 24),
    "sha256": ((np.dtype(np.uint8),), 64)}


def _load(folder: Path, config: TrainConfig) -> TrainRun | None:
    path = folder / CHECKPOINT
    if not path.exists():
        return None

    def refused(message: str) -> CheckpointError:
        return CheckpointError(f"{path}: not a readable training checkpoint ({message})")

    archive = read_npz(read_file(path, MAX_CHECKPOINT_BYTES, refused, "checkpoint"), _CHECKPOINT_ARRAYS,
                       ("params", "meta"), refused, "npz", max_total=MAX_CHECKPOINT_BYTES)
    if "sha256" in archive and archive["sha256"].tobytes().decode("ascii", "replace") != _digest(archive):
        raise CheckpointError(f"{path}: a damaged training checkpoint: its content checksum does not match "
                              "(the file was edited or corrupted)")
    params = archive["params"]
    meta = parse_json(archive["meta"].tobytes(), lambda m, line, column: refused(f"meta: {m}"), "JSON")
    if not isinstance(meta, dict) or meta.get("format") != "fevga-train-checkpoint":
        raise CheckpointError(f"{path}: not a fevga training checkpoint")
    try:
        saved = TrainConfig(**meta["config"]).validate()
        if not isinstance(meta["history"], list) or not all(
                isinstance(h, dict) and isinstance(h.get("games"), int) and isinstance(h.get("ppg"), (int, float))
                for h in meta["history"]):
            raise TypeError("history is not a list of strength checks")
        counts = [int(meta[k]) for k in ("games", "samples")]
        seconds, history = float(meta["seconds"]), list(meta["history"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: a damaged training checkpoint ({type(exc).__name__}: {exc})") from None
    if replace(saved, games=config.games) != config:
        raise InvalidArgumentError(
            f"{path} belongs to another run ({_default_command(saved)}); use another folder or the same options")
    if not 0 <= counts[0] <= config.games:
        raise InvalidArgumentError(f"{path} has played {counts[0]} games, not within games={config.games}")
    Net(params, config.hidden, game=config.game)  # validates the parameters' size and finiteness
    return TrainRun(config, params, counts[0], counts[1], seconds, history)


def _batch_samples(net: Any, params: npt.NDArray[np.float32], master: int, first: int, count: int, lam: float,
                   workers: int, pool: bool, client: Any, game: str) -> tuple[Any, Any]:
    """Samples of games first .. first + count - 1 in game order, played on `workers` local
    threads (`pool`) or, with a Dask `client`, as `workers` tasks on its cluster."""
    edges = np.linspace(first, first + count, workers + 1).astype(np.int64)
    chunks = [(int(edges[k]), int(edges[k + 1] - edges[k])) for k in range(workers) if edges[k + 1] > edges[k]]
    if client is not None:
        # one fresh key per batch (hash=False): a batch never reuses a key the previous one releases
        weights = client.scatter(params.copy(), broadcast=True, hash=False)
        futures = [client.submit(_remote_samples, weights, net.hidden, master, start, size, lam, game, pure=False)
                   for start, size in chunks]
        parts = client.gather(futures)
    else:
        # Small chunks of games, handed out by the main thread: Ctrl-C waits for one chunk
        # per thread, not for the batch (games are independent: the samples do not change).
        found: dict[int, tuple[Any, Any]] = {}

        def play(a: int, b: int) -> None:
            found[a] = _samples(net, master, first + a, b - a, lam, game)

        run_chunks(count, workers if pool else 1, play, chunk=TRAIN_CHUNK_GAMES)
        parts = [found[a] for a in sorted(found)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _samples(net: Any, master: int, first: int, count: int, lam: float, game: str) -> tuple[Any, Any]:
    if game == "gioul":
        rows, targets, _ = core.gioul_selfplay_samples(net, master, first, count, lam)
    else:
        rows, targets, _ = core.selfplay_samples(net, tables_of("default"), Rules().flags, master, first, count, lam)
    return rows, targets


def _remote_samples(params: npt.NDArray[np.float32], hidden: int, master: int, first: int, count: int,
                    lam: float, game: str = "fevga") -> tuple[Any, Any]:
    """A Dask task: the samples of some games with the batch's frozen weights."""
    return _samples(_training_net(np.array(params, dtype=np.float32), hidden, game), master, first, count, lam, game)


def _opponent(config: TrainConfig) -> tuple[str, Net | None]:
    """The strength checks' opponent: a built-in policy of the game, or the "net" policy over a
    net file of the game."""
    policies = [p for p in GIOUL_POLICIES if p != "net"] if config.game == "gioul" else POLICY_IDS
    if isinstance(config.check_against, str) and config.check_against in policies:
        return config.check_against, None
    return "net", Net.load(config.check_against).of_game(config.game)


def _check(run: TrainRun, workers: int) -> dict[str, Any]:
    policy, opponent = _opponent(run.config)
    play = gioul_duel if run.config.game == "gioul" else duel
    result = play("net", policy, games=run.config.check_games, seed=run.config.seed + 1, net_a=run.net(),
                  net_b=opponent, workers=workers)
    return {"games": run.games, "ppg": round(result.ppg, 4), "ppg_ci": round(result.ppg_ci, 4),
            "win_rate": round(result.win_rate, 4), "seconds": round(run.seconds, 1),
            "against": policy if opponent is None else f"net {opponent.checksum[:12]}"}


def train(
    folder: str | os.PathLike[str],
    config: TrainConfig | None = None,
    *,
    workers: int | None = None,
    progress: bool | None = None,
    command: str | None = None,
    backend: str = "local",
    scheduler: Any = None,
) -> TrainRun:
    """Train (or resume training) a net in `folder`: checkpoint.npz after every strength check
    and at the end or on Ctrl-C, net.npz (the weights with provenance), curve.json and, with
    matplotlib installed, curve.png. Returns the run; Ctrl-C saves and re-raises.

    Games are played on `workers` local threads (default: every core) or, with
    ``backend="dask"`` (`scheduler` = address, Client, or None for a local cluster), as
    `workers` tasks per batch on a Dask cluster: the net is the same either way."""
    config = (config or TrainConfig()).validate()
    _opponent(config)  # an unknown policy or unreadable net file fails before any work
    folder = output_folder(folder, "training folder")
    count = check_workers(workers)
    run = _load(folder, config)
    if run is None:
        run = TrainRun(config, Net.initial(config.hidden, config.seed, config.game)._params.copy())
    net = _training_net(run.params, config.hidden, config.game)
    master = master_key(config.seed)
    show = sys.stderr.isatty() if progress is None else progress
    client, owned = _dask_client(backend, scheduler, count)
    bar = _bar(run, show)
    pool = count > 1 and client is None  # local threads
    try:
        while True:
            due = run.games == 0 or run.games % config.check_every == 0 or run.games == config.games
            if due and (not run.history or run.history[-1]["games"] != run.games):
                run.history.append(_check(run, count))
                if bar is not None:
                    bar.set_postfix(ppg=f"{run.history[-1]['ppg']:+.3f}")
                _save(folder, run)
            if run.games >= config.games:
                break
            began = time.perf_counter()
            size = min(config.batch, config.games - run.games,
                       config.check_every - run.games % config.check_every)
            # A batch is applied whole or not at all, and Ctrl-C is answered at once: the games
            # and the SGD pass run on a copy of the weights, which replaces them only at the end.
            rows, targets = _batch_samples(net, run.params, master, run.games, size, config.lam, count, pool,
                                           client, config.game)
            trial = run.params.copy()
            _training_net(trial, config.hidden, config.game).train_rows(rows, targets, config.rate_at(run.games))
            with deferred_interrupt():  # a few assignments: never half of them
                run.params[:] = trial
                run.games += size
                run.samples += len(rows)
                run.seconds += time.perf_counter() - began
            if bar is not None:
                bar.update(size)
    finally:
        for resource in owned:
            resource.close()
        if bar is not None:
            bar.close()
        if run.games:
            _save(folder, run)
            run.net(command).save(folder / NET_FILE)
            plot_curve(run.history, folder / CURVE_PNG, config.game)
    return run


def _dask_client(backend: str, scheduler: Any, workers: int) -> tuple[Any, list[Any]]:
    """(client or None, resources to close) for the backend (the rollout module's conventions)."""
    if not isinstance(backend, str) or backend not in ("local", "dask"):
        raise InvalidArgumentError(f"backend={backend!r} must be 'local' or 'dask'")
    if backend == "local" and scheduler is None:
        return None, []

    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError("backend='dask' needs dask[distributed]: pip install 'fevga[dask]'") from exc
    if isinstance(scheduler, distributed.Client):
        return scheduler, []
    if scheduler is None:
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        return client, [client, cluster]
    client = connect(distributed.Client, scheduler)
    return client, [client]


def _training_net(params: npt.NDArray[np.float32], hidden: int, game: str = "fevga") -> Any:
    # shares `params`: training updates them in place
    return CoreGioulNet(params, hidden) if game == "gioul" else CoreNet(params, hidden)


def _bar(run: TrainRun, show: bool) -> Any:
    if not show:
        return None
    tqdm = importlib.import_module("tqdm").tqdm  # a dependency without type stubs
    return tqdm(total=run.config.games, initial=run.games, unit="game", desc="train", dynamic_ncols=True)


def plot_curve(history: list[dict[str, Any]], path: str | os.PathLike[str], game: str = "fevga") -> Path | None:
    """Points per game against the checks' opponent by games played, with 95% CIs, as a PNG
    (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    games = [h["games"] for h in history]
    ppg = [h["ppg"] for h in history]
    ci = [h["ppg_ci"] for h in history]
    figure, axes = plt.subplots(figsize=(7, 4), dpi=110)
    against = history[-1].get("against", "heuristic") if history else "heuristic"
    axes.errorbar(games, ppg, yerr=ci, marker="o", markersize=3, capsize=2, label=f"net vs {against}")
    axes.axhline(0.0, color="grey", linewidth=0.8)
    axes.set_xlabel("self-play games")
    axes.set_ylabel("points per game (95% CI)")
    axes.set_title(f"{game} net: strength during training")
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return atomic_write(path, lambda handle: handle.write(buffer.getvalue()))
