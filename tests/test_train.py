"""Training by self-play: improvement over random play, determinism, resume, files and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import fevga.train as train_module
from fevga import Net
from fevga.errors import InvalidArgumentError
from fevga.strength import duel
from fevga.train import TrainConfig, train
from fevga_core import train as core_train
from fevga.bearoff.core_tables import tables_of

TINY = TrainConfig(games=1536, hidden=16, batch=256, rate=0.05, rate_final=0.01, seed=7, check_every=768, check_games=72)


def test_a_tiny_run_measurably_beats_its_untrained_self_and_random_play(tmp_path) -> None:
    run = train(tmp_path, TINY, workers=2, progress=False)
    before = Net.initial(TINY.hidden, TINY.seed)
    after = Net.load(tmp_path / "net.npz")
    games = 1296
    untrained = duel("net", "random", games=games, seed=3, net_a=before, workers=2)
    trained = duel("net", "random", games=games, seed=3, net_a=after, workers=2)
    # the same dice for both: the improvement is far outside both intervals
    assert trained.ppg - untrained.ppg > trained.ppg_ci + untrained.ppg_ci
    assert trained.ppg > trained.ppg_ci  # and it now beats random play outright
    assert run.games == TINY.games and len(run.history) == 3
    assert [h["games"] for h in run.history] == [0, 768, 1536]


def test_runs_are_identical_for_any_number_of_workers(tmp_path, game: str) -> None:  # type: ignore[no-untyped-def]
    config = TrainConfig(games=300, hidden=8, batch=100, seed=2, check_every=300, check_games=36, game=game)
    one = train(tmp_path / "one", config, workers=1, progress=False)
    two = train(tmp_path / "two", config, workers=2, progress=False)
    three = train(tmp_path / "three", config, workers=3, progress=False)
    np.testing.assert_array_equal(one.params, two.params)
    np.testing.assert_array_equal(one.params, three.params)
    assert Net.load(tmp_path / "one" / "net.npz").checksum == Net.load(tmp_path / "three" / "net.npz").checksum
    assert Net.load(tmp_path / "one" / "net.npz").game == game


def test_a_finished_run_extended_is_the_longer_run(tmp_path, game: str) -> None:  # type: ignore[no-untyped-def]
    config = TrainConfig(games=120, hidden=8, batch=40, rate=0.02, rate_final=0.02, seed=3, check_every=60,
                         check_games=36, check_against="random", game=game)
    whole = train(tmp_path / "whole", config, workers=1, progress=False)
    train(tmp_path / "extended", replace(config, games=60), workers=1, progress=False)
    extended = train(tmp_path / "extended", config, workers=2, progress=False)
    np.testing.assert_array_equal(whole.params, extended.params)
    assert extended.samples == whole.samples


def test_an_interrupted_run_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch) -> None:
    config = TrainConfig(games=400, hidden=8, batch=100, seed=4, check_every=200, check_games=36)
    straight = train(tmp_path / "straight", config, workers=1, progress=False)

    real_check = train_module._check
    calls = []

    def interrupt_after_the_first_check_point(run, workers):  # type: ignore[no-untyped-def]
        calls.append(run.games)
        if run.games == 200:
            raise KeyboardInterrupt
        return real_check(run, workers)

    monkeypatch.setattr(train_module, "_check", interrupt_after_the_first_check_point)
    with pytest.raises(KeyboardInterrupt):
        train(tmp_path / "resumed", config, workers=1, progress=False)
    saved = json.loads((tmp_path / "resumed" / "curve.json").read_text())
    assert [h["games"] for h in saved] == [0]
    monkeypatch.setattr(train_module, "_check", real_check)
    resumed = train(tmp_path / "resumed", config, workers=2, progress=False)
    np.testing.assert_array_equal(straight.params, resumed.params)
    assert [h["games"] for h in resumed.history] == [0, 200, 400]
    assert resumed.samples == straight.samples


def test_a_finished_run_can_be_extended_but_not_changed(tmp_path) -> None:
    config = TrainConfig(games=100, hidden=8, batch=50, seed=1, check_every=100, check_games=36)
    train(tmp_path, config, workers=1, progress=False)
    with pytest.raises(InvalidArgumentError, match="another run"):
        train(tmp_path, TrainConfig(games=100, hidden=9, batch=50, seed=1, check_every=100, check_games=36),
              workers=1, progress=False)
    with pytest.raises(InvalidArgumentError, match="not within"):
        train(tmp_path, TrainConfig(games=50, hidden=8, batch=50, seed=1, check_every=100, check_games=36),
              workers=1, progress=False)


def test_a_corrupt_checkpoint_is_one_clear_error(tmp_path) -> None:
    (tmp_path / "checkpoint.npz").write_bytes(b"not a checkpoint")
    with pytest.raises(InvalidArgumentError, match="checkpoint"):
        train(tmp_path, TrainConfig(games=10, hidden=8, check_games=36), progress=False)
    meta = json.dumps({"format": "fevga-train-checkpoint", "config": {"hidden": "eight"}}).encode()
    np.savez(tmp_path / "checkpoint.npz", params=np.zeros(3, dtype=np.float32),
             meta=np.frombuffer(meta, dtype=np.uint8))
    with pytest.raises(InvalidArgumentError, match="damaged"):
        train(tmp_path, TrainConfig(games=10, hidden=8, check_games=36), progress=False)


@pytest.mark.parametrize("field, value", [("games", 0), ("hidden", 0), ("hidden", 513), ("lam", 1.5), ("rate", 0.0),
                                          ("rate", float("nan")), ("batch", 0), ("check_games", 7), ("seed", -1)])
def test_bad_configs_name_the_field(field: str, value: object) -> None:
    with pytest.raises(InvalidArgumentError, match=field):
        TrainConfig(**{field: value}).validate()


def test_training_files_and_provenance(tmp_path) -> None:
    config = TrainConfig(games=100, hidden=8, batch=50, seed=3, check_every=50, check_games=36)
    train(tmp_path, config, workers=1, progress=False)
    net = Net.load(tmp_path / "net.npz")
    assert net.provenance["config"]["seed"] == 3 and net.provenance["games"] == 100
    assert "--games 100" in net.provenance["command"]
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [h["games"] for h in curve] == [0, 50, 100]


def test_lambda_return_targets_on_a_recorded_game() -> None:
    """Targets are valid probabilities, and with lambda = 1 every target is the game's result."""
    net = Net.initial(8, seed=5)
    rows, targets, outcome = core_train.selfplay_samples(net._core, tables_of("default"), 0, 99, 0, 1, 1.0)
    assert len(rows) == len(targets) > 10
    white_result = outcome[0]
    for row, target in zip(rows, targets):
        expected = white_result if row[50] == 0 else np.array([1 - white_result[0], white_result[2], white_result[1]])
        np.testing.assert_allclose(target, expected, atol=1e-12)
    rows0, targets0, _ = core_train.selfplay_samples(net._core, tables_of("default"), 0, 99, 0, 1, 0.0)
    np.testing.assert_array_equal(rows, rows0)  # lambda only changes targets, never the game
    assert np.all((targets0[:, 0] >= 0) & (targets0[:, 0] <= 1))
    assert np.all(targets0[:, 1] <= targets0[:, 0] + 1e-12) and np.all(targets0[:, 2] <= 1 - targets0[:, 0] + 1e-12)


def test_cli_train_writes_a_loadable_net(tmp_path, game: str) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    args = ["--game", "gioul", "--check-against", "random"] if game == "gioul" else []  # Fevga: the defaults
    result = subprocess.run([sys.executable, "-m", "fevga", "train", str(out), *args, "--games", "64", "--hidden", "8",
                             "--batch", "32", "--check-every", "64", "--check-games", "36", "--no-progress"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "64 games" in result.stdout
    net = Net.load(out / "net.npz")
    assert net.game == game and net.provenance["command"].startswith("fevga train ")
    bad = subprocess.run([sys.executable, "-m", "fevga", "train", str(out), *args, "--games", "0"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "games" in bad.stderr


def test_dask_cluster_trains_the_same_net_as_local_threads(tmp_path) -> None:
    import distributed
    config = TrainConfig(games=120, hidden=8, batch=60, seed=6, check_every=120, check_games=36)
    local = train(tmp_path / "local", config, workers=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = train(tmp_path / "dask", config, workers=3, progress=False, backend="dask", scheduler=client)
    np.testing.assert_array_equal(local.params, remote.params)
