"""Rollouts: reproducibility across workers and backends, checkpoints, interruption, statistics."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from boards import initial, race
from fevga import GioulPosition, hint
from fevga.bearoff import OneSidedDB, TwoSidedDB
from fevga.cli import main
from fevga.errors import CheckpointError, IllegalMoveError, InvalidArgumentError, InvalidPositionError, InvalidRulesError
from fevga.net import Net
from fevga.position import BLACK, WHITE, Move, Position
from fevga.rollout import STRATA, MoveRollout, moves_to_csv, moves_to_frame, rollout, rollout_moves
from fevga.rules import Rules
from fevga.search import static_value

START = Position.initial()
# ply 85 of heuristic game seed 7: 8 moves for 6-3, five of them stopped early (after 1 or 2 blocks)
# at 4 blocks, seed 2, and short games (1.4 s for the rollout with the stopping rule)
STOPS_EARLY = Position.from_id("AABVW74AABbdwAAA")
MIDGAME = Position.from_id("fytUAAj8tbAACAAA")  # ply 16 of a heuristic self-play game: 27 moves for 5-4
HANDED_OVER = GioulPosition.from_id("__4AAAj__AABAAAA5VhH")  # Black plays the rest of White's chain
# Per game: a position to roll out (for Gioul, one with dice handed over) and a decision to rank
# (a roll of a Fevga middle game; the pending decision of that Gioul state).
JOBS = {"fevga": (START, MIDGAME, "5-4"), "gioul": (HANDED_OVER, HANDED_OVER, None)}
TIMING = ("elapsed", "workers", "backend")


def _same(a: object, b: object) -> None:
    da = {k: v for k, v in a.to_dict().items() if k not in TIMING}  # type: ignore[attr-defined]
    db = {k: v for k, v in b.to_dict().items() if k not in TIMING}  # type: ignore[attr-defined]
    assert da == db


@pytest.fixture(scope="module")
def one3() -> OneSidedDB:
    return OneSidedDB.build(6, 3)


def test_workers_give_bit_identical_results(game: str) -> None:
    start = JOBS[game][0]
    games = 2 * STRATA + 108  # a partial last block too
    one = rollout(start, games=games, seed=5, workers=1, policy="random", progress=False)
    two = rollout(start, games=games, seed=5, workers=2, policy="random", progress=False)
    assert one == two
    _same(one, two)
    assert one.games == games and not one.interrupted and one.position == start.id
    assert dict(one.rules).get("game", "fevga") == json.loads(one.to_json())["rules"].get("game", "fevga") == game
    assert abs(one.win + one.lose + one.draw - 1.0) < 1e-12
    assert one.ci95[0] < one.equity < one.ci95[1] and 0 < one.equity_se < 0.05
    other = rollout(start, games=games, seed=6, workers=2, policy="random", progress=False)
    assert other.equity != one.equity and other != one


def test_seed_sequence_and_fresh_entropy_are_recorded() -> None:
    seq = np.random.SeedSequence(1234)
    a = rollout(START, games=72, seed=seq, workers=1, policy="random", progress=False)
    b = rollout(START, games=72, seed=np.random.SeedSequence(1234), workers=1, policy="random", progress=False)
    assert a == b and a.seed == 1234
    fresh = rollout(START, games=36, workers=1, policy="random", progress=False)
    again = rollout(START, games=36, seed=fresh.seed, workers=1, policy="random", progress=False)  # type: ignore[arg-type]
    assert fresh == again


def test_dask_local_cluster_matches_local_threads(game: str) -> None:
    distributed = pytest.importorskip("distributed")
    start, after, dice = JOBS[game]
    games = STRATA + 200
    common = dict(games=games, seed=11, policy="random", truncate=game == "fevga", progress=False)
    ranking = dict(games=108, seed=2, policy="random" if game == "fevga" else "heuristic", progress=False)
    local = rollout(start, workers=2, **common)  # type: ignore[arg-type]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            by_client = rollout(start, backend="dask", scheduler=client, **common)  # type: ignore[arg-type]
            ranked_dask = rollout_moves(after, dice, backend="dask", scheduler=client, **ranking)  # type: ignore[arg-type]
        by_address = rollout(start, scheduler=cluster.scheduler_address, **common)  # type: ignore[arg-type]
    assert by_client == local == by_address
    assert by_client.backend == "dask" and local.backend == "local"
    ranked_local = rollout_moves(after, dice, workers=2, **ranking)  # type: ignore[arg-type]
    assert [(m.move, m.result, m.diff, m.diff_se) for m in ranked_dask] == [
        (m.move, m.result, m.diff, m.diff_se) for m in ranked_local]


def test_checkpoint_resume_equals_uninterrupted_run(tmp_path, game: str) -> None:  # type: ignore[no-untyped-def]
    start = initial(game)
    games = 3 * STRATA
    path = tmp_path / "job.ckpt"
    calls = []

    def stop_after_first(done: int, total: int) -> None:
        calls.append(done)
        if done >= STRATA:
            raise KeyboardInterrupt

    partial = rollout(start, games=games, seed=9, workers=1, policy="random", checkpoint=path, checkpoint_every=0.0,
                      progress=False, on_block=stop_after_first)
    assert partial.interrupted and partial.games == STRATA and calls == [STRATA]
    assert path.exists() and [p.name for p in tmp_path.iterdir()] == ["job.ckpt"]  # no temp file left
    played: list[int] = []  # on_block runs once per block actually played in this call
    resumed = rollout(start, games=games, seed=9, workers=2, policy="random", checkpoint=path, progress=False,
                      on_block=lambda done, total: played.append(done))
    whole = rollout(start, games=games, seed=9, workers=1, policy="random", progress=False)
    assert not resumed.interrupted and resumed.games == games and resumed.resumed_games == STRATA
    assert resumed == whole
    # Only the two missing blocks were played, counted on from the checkpoint's block.
    assert sorted(played) == [2 * STRATA, 3 * STRATA]
    # A finished checkpoint plays nothing at all and still gives the whole result.
    played.clear()
    again = rollout(start, games=games, seed=9, workers=2, policy="random", checkpoint=path, progress=False,
                    on_block=lambda done, total: played.append(done))
    assert played == [] and again == whole
    # A checkpoint of another job is refused rather than mixed in.
    with pytest.raises(InvalidArgumentError, match="another job"):
        rollout(start, games=games, seed=10, workers=1, policy="random", checkpoint=path, progress=False)
    # The same numbers on the other game's start are another job too.
    with pytest.raises(InvalidArgumentError, match="another job"):
        rollout(initial("gioul" if game == "fevga" else "fevga"), games=games, seed=9, workers=1, policy="random",
                checkpoint=path, progress=False)
    # seed=None resumes the checkpoint's own stream.
    assert rollout(start, games=games, workers=1, policy="random", checkpoint=path, progress=False).equity == whole.equity


def _policy_a(position: Position, dice: tuple[int, int], moves: list[Move]) -> Move:
    return moves[0]


def _policy_b(position: Position, dice: tuple[int, int], moves: list[Move]) -> Move:
    return moves[-1]


def test_checkpoint_identifies_a_callable_policy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pos = race([0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 0])
    path = tmp_path / "callable.ckpt"
    first = rollout(pos, games=72, seed=1, workers=1, policy=_policy_a, checkpoint=path, progress=False)
    # The same callable resumes (nothing left to play) ...
    played: list[int] = []
    again = rollout(pos, games=72, seed=1, workers=1, policy=_policy_a, checkpoint=path, progress=False,
                    on_block=lambda done, total: played.append(done))
    assert again == first and played == []
    # ... another callable, a lambda or a built-in policy is refused rather than mixed in.
    for other in (_policy_b, lambda p, d, moves: moves[0], "heuristic"):
        with pytest.raises(InvalidArgumentError, match="another job"):
            rollout(pos, games=72, seed=1, workers=1, policy=other,  # type: ignore[arg-type]
                    checkpoint=path, progress=False)
    # Built-in policies keep the identity they had before callables were recorded.
    meta = json.loads(np.load(path)["meta"].tobytes().decode())
    assert meta["callable_policy"] == f"{__name__}:_policy_a:_policy_a"
    builtin = tmp_path / "builtin.ckpt"
    rollout(pos, games=36, seed=1, workers=1, policy="random", checkpoint=builtin, progress=False)
    assert "callable_policy" not in json.loads(np.load(builtin)["meta"].tobytes().decode())


def _bad_checkpoints(tmp_path) -> dict[str, tuple[object, str]]:  # type: ignore[no-untyped-def]
    """name -> (path, the reason the error message must give)."""
    garbage = tmp_path / "garbage"
    garbage.write_text("x\n")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, a=np.zeros(3))
    array = tmp_path / "array.npy"
    np.save(array, np.zeros(3))
    broken_zip = tmp_path / "broken.npz"
    broken_zip.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    bad_meta = tmp_path / "meta.npz"  # a real checkpoint's arrays (of their exact dtypes) with a bad 'meta'
    real = tmp_path / "real.ckpt"
    rollout(START, games=36, seed=1, workers=1, policy="random", checkpoint=real, progress=False)
    with np.load(real) as data:
        arrays = {key: data[key] for key in data.files}
    real.unlink()
    del arrays["sha256"]  # as a file written before checksums: else the checksum would refuse it first
    np.savez(bad_meta, **dict(arrays, meta=np.frombuffer(b"\xff{", dtype=np.uint8)))
    return {
        "garbage": (garbage, "not a fevga checkpoint"),
        "empty": (empty, "not a fevga checkpoint"),
        "foreign": (foreign, "no 'meta'"),
        "array": (array, "not a .npz archive"),
        "broken zip": (broken_zip, "not a fevga checkpoint"),
        "bad meta": (bad_meta, "'meta' entry: JSON is not UTF-8 text"),
        "directory": (tmp_path, "is a directory"),
        "under a file": (garbage / "job.ckpt", "a folder on its path is a file"),
    }


def test_bad_checkpoint_files_raise_one_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name, (path, reason) in _bad_checkpoints(tmp_path).items():
        for seed in (1, None):  # seed=None first looks for the checkpoint's own seed
            with pytest.raises(InvalidArgumentError, match=reason) as info:
                rollout(START, games=36, seed=seed, workers=1, policy="random", checkpoint=path, progress=False)
            assert str(path) in str(info.value) and "\n" not in str(info.value), name
    # A refused file is left as it was.
    assert (tmp_path / "garbage").read_text() == "x\n"


def test_tampered_checkpoint_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "job.ckpt"
    rollout(START, games=STRATA, seed=2, workers=1, policy="random", checkpoint=path, progress=False)
    with np.load(path) as data:
        arrays = {key: data[key] for key in data.files}
    assert int(arrays["prefix"][0]) == 1 and len(arrays["blocks"]) == 0  # the one block is in the running sum
    claims_more = dict(arrays, prefix=np.asarray([5]))  # the running sum claims blocks it does not hold
    np.savez(tmp_path / "more.npz", **claims_more)
    moved = dict(arrays, prefix=np.asarray([0]), blocks=np.asarray([5]))  # a block this job does not have
    for name in ("sums", "first", "cross", "lengths"):
        moved[name] = arrays[f"prefix_{name}"][None]
        moved[f"prefix_{name}"] = np.zeros_like(arrays[f"prefix_{name}"])
    np.savez(tmp_path / "moved.npz", **moved)
    for name in ("more.npz", "moved.npz"):  # the content checksum catches every edit first
        with pytest.raises(InvalidArgumentError, match="content checksum does not match"):
            rollout(START, games=STRATA, seed=2, workers=1, policy="random", checkpoint=tmp_path / name,
                    progress=False)
    # A file written before checksums existed still gets the content checks.
    np.savez(tmp_path / "more.npz", **{k: v for k, v in claims_more.items() if k != "sha256"})
    np.savez(tmp_path / "moved.npz", **{k: v for k, v in moved.items() if k != "sha256"})
    for name, reason in (("more.npz", "running sum does not hold blocks 0..4"), ("moved.npz", "corrupted: block 5")):
        with pytest.raises(InvalidArgumentError, match=reason):
            rollout(START, games=STRATA, seed=2, workers=1, policy="random", checkpoint=tmp_path / name,
                    progress=False)


def test_checkpoint_of_separate_blocks_resumes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Checkpoints written before the running sum list every finished block apart: one holding
    # blocks 0 and 1 of a job resumes to the same floats as an uninterrupted run.
    from fevga.rollout.jobs import Sums, Tally, make_job, run_block

    games = 3 * STRATA
    whole = rollout(START, games=games, seed=4, workers=1, policy="random", progress=False)
    full = tmp_path / "full.ckpt"
    rollout(START, games=games, seed=4, workers=1, policy="random", checkpoint=full, progress=False)
    with np.load(full) as data:
        arrays = {key: data[key] for key in data.files if not key.startswith("prefix") and key != "sha256"}
    job, _, _ = make_job(START._row(), START.turn, games, 4, "random", False, False, True, Rules(), None, None,
                         None, None)
    parts = [run_block(job, b)[1] for b in (0, 1)]
    for i, name in enumerate(("sums", "first", "cross", "lengths")):
        arrays[name] = np.stack([p.arrays()[i] for p in parts])
    arrays["blocks"] = np.asarray([0, 1])
    path = tmp_path / "blocks.ckpt"
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    resumed = rollout(START, games=games, seed=4, workers=1, policy="random", checkpoint=path, progress=False)
    assert resumed.resumed_games == 2 * STRATA
    assert resumed.equity == whole.equity and resumed.length_counts == whole.length_counts
    tally = Tally(1)
    for block in (2, 0, 1):  # out of order: folded as soon as the run from block 0 is complete
        tally.add(block, Sums(1))
        assert len(tally.ahead) == (0 if block == 1 else 1)
    assert tally.next == 3 and tally.has(2) and not tally.has(3)


def test_cli_bad_checkpoint_is_one_line_exit_2(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    for name, (path, reason) in _bad_checkpoints(tmp_path).items():
        status = main(["rollout", "start", "--games", "36", "--seed", "1", "--workers", "1", "--no-progress",
                       "--checkpoint", str(path)])
        captured = capsys.readouterr()
        assert status == 2, name
        assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err, name
        assert captured.err.startswith("fevga: error: ") and str(path) in captured.err and reason in captured.err


def test_unreachable_dask_scheduler_is_a_clear_error(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("distributed")
    import importlib

    module = importlib.import_module("fevga.rollout.executors")

    assert module.DASK_CONNECT_TIMEOUT == 10.0  # the documented default
    monkeypatch.setattr(module, "DASK_CONNECT_TIMEOUT", 0.5)  # port 1 refuses; distributed retries until then
    with pytest.raises(InvalidArgumentError, match="cannot connect to the Dask scheduler 'tcp://127.0.0.1:1'"):
        rollout(START, games=36, seed=1, scheduler="tcp://127.0.0.1:1", progress=False)
    with pytest.raises(InvalidArgumentError, match="cannot connect to the Dask scheduler 'nowhere'"):
        rollout(START, games=36, seed=1, scheduler="nowhere", progress=False)  # no port
    assert main(["rollout", "start", "--games", "36", "--seed", "1", "--no-progress",
                 "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fevga: error: cannot connect to the Dask scheduler") and err.count("\n") == 1


def test_any_failure_to_bring_up_the_dask_client_is_a_clear_error() -> None:
    """Under load distributed's own retry loop has raised AssertionError: still "cannot connect"."""
    from fevga.rollout.executors import connect

    def failing(error: BaseException) -> object:
        def client(address: str, timeout: float) -> object:
            raise error
        return client

    for error in (AssertionError(), OSError("refused"), ValueError("no port")):
        with pytest.raises(InvalidArgumentError, match="cannot connect to the Dask scheduler 'tcp://h:1'"):
            connect(failing(error), "tcp://h:1")
    with pytest.raises(KeyboardInterrupt):
        connect(failing(KeyboardInterrupt()), "tcp://h:1")


def test_ctrl_c_returns_partial_result_with_threads() -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    partial = rollout(START, games=6 * STRATA, seed=3, workers=2, policy="random", progress=False, on_block=interrupt)
    assert partial.interrupted
    assert partial.games % STRATA == 0 and STRATA <= partial.games < 6 * STRATA
    assert math.isfinite(partial.equity)


# What a rollout of each game's start says of its rules and its length.
RULES_AND_LENGTH = {"fevga": (Rules().to_dict(), "plies"), "gioul": ({"game": "gioul", "first_roll": "fresh"}, "rolls")}


def test_statistics_are_consistent(game: str) -> None:
    r = rollout(initial(game), games=STRATA, seed=4, workers=2, policy="heuristic", progress=False)
    rules, length = RULES_AND_LENGTH[game]
    assert r.games == STRATA and r.stratified and dict(r.rules) == rules
    # Games played to the end: every probability is a whole number of games out of r.games.
    for fraction in (r.win, r.win_mars, r.lose_mars, r.draw):
        assert 0.0 <= fraction <= 1.0 and fraction * r.games == pytest.approx(round(fraction * r.games), abs=1e-9)
    assert r.win_mars <= r.win and r.lose_mars <= r.lose
    assert r.equity == pytest.approx(r.win + r.win_mars - r.lose - r.lose_mars)
    assert r.ci95 == pytest.approx((r.equity - 1.959964 * r.equity_se, r.equity + 1.959964 * r.equity_se))
    assert 0 < r.equity_se < 0.1
    assert sum(r.length_counts) == r.games
    assert r.mean_length == pytest.approx(sum(i * c for i, c in enumerate(r.length_counts)) / r.games)
    # Stratified: every ordered pair of opening rolls exactly once per 1,296 games.
    table = {roll: games for roll, games, _ in r.first_rolls}
    assert table == {f"{b}-{a}": 36 if a == b else 72 for a in range(1, 7) for b in range(a, 7)}
    data = json.loads(r.to_json())
    assert data["games"] == STRATA and data["ci95"] == list(r.ci95)
    frame = r.to_frame()
    assert frame.loc[0, "equity"] == r.equity and "ci95_low" in frame.columns
    assert r.first_roll_frame()["games"].sum() == STRATA
    header, row = r.to_csv().splitlines()
    assert header.split(",")[:2] == ["position", "games"] and row.split(",")[1] == str(STRATA)
    assert "95% CI" in r.summary() and f"mean length {r.mean_length:.1f} {length}" in r.summary()


def test_unstratified_first_rolls_are_random(game: str) -> None:
    games = STRATA + 100  # a partial block too
    r = rollout(initial(game), games=games, seed=4, workers=2, policy="random", stratify=False, progress=False)
    counts = [n for _, n, _ in r.first_rolls]
    assert r.games == sum(counts) == games and not r.stratified and len(set(counts)) > 2


def test_validation_at_the_boundary(game: str) -> None:
    start = initial(game)
    with pytest.raises(InvalidArgumentError):
        rollout(start, games=0)
    with pytest.raises(InvalidArgumentError):
        rollout(start, games=10, policy="clever")
    with pytest.raises(InvalidArgumentError):
        rollout(start, games=10, workers=0)
    with pytest.raises(InvalidArgumentError):
        rollout(start, games=10, backend="mpi")
    with pytest.raises(InvalidArgumentError, match="GioulPosition"):
        rollout("start", games=10)  # type: ignore[arg-type]
    done = race([], [1]) if game == "fevga" else GioulPosition.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    with pytest.raises(InvalidPositionError, match="finished"):
        rollout(done, games=10)


def test_table_policy_agrees_with_exact_equity_on_20_positions(two3: TwoSidedDB) -> None:
    rng = np.random.default_rng(2024)
    positions = []
    while len(positions) < 20:
        sides = []
        for _ in range(2):
            home = [0] * 6
            for _ in range(int(rng.integers(1, 4))):
                home[int(rng.integers(0, 6))] += 1
            sides.append(home)
        positions.append(race(sides[0], sides[1], int(rng.integers(0, 2))))
    for i, pos in enumerate(positions):
        exact = two3.equity(pos)
        r = rollout(pos, games=400, seed=i, workers=1, policy="bearoff", bearoff=two3, progress=False)
        assert abs(r.equity - exact) <= 3 * r.equity_se + 1e-12, (pos.id, r.equity, exact, r.equity_se)
        # Truncated at once: the table's exact value, no noise.
        t = rollout(pos, games=36, seed=i, workers=1, truncate=True, bearoff=two3, progress=False)
        assert t.truncated_games == 36 and t.equity == pytest.approx(exact, abs=1e-12)


def test_confidence_intervals_cover_the_exact_value_at_the_stated_rate(two3: TwoSidedDB) -> None:
    pos = race([0, 1, 0, 1, 0, 0], [0, 0, 1, 0, 1, 0])
    exact = two3.equity(pos)
    runs = 200
    covered = 0
    for seed in range(runs):
        r = rollout(pos, games=60, seed=seed, workers=1, policy="bearoff", bearoff=two3, stratify=False, progress=False)
        covered += r.ci95[0] <= exact <= r.ci95[1]
    # 95% nominal; a binomial(200, 0.95) falls in [180, 198] with probability > 0.999.
    assert 180 <= covered <= 198, covered


def test_truncation_is_unbiased_where_the_tables_are_exact(two3: TwoSidedDB, one3: OneSidedDB) -> None:
    # 5 checkers a side: neither table covers the start; play goes on until both sides have
    # at most 3 checkers left, where the two-sided table is exact and the table policy optimal.
    pos = race([1, 1, 1, 1, 1, 0], [0, 1, 2, 1, 1, 0])
    common = dict(games=2 * STRATA, seed=8, workers=2, policy="bearoff", bearoff=two3, one_sided=one3, progress=False)
    full = rollout(pos, **common)  # type: ignore[arg-type]
    cut = rollout(pos, truncate=True, **common)  # type: ignore[arg-type]
    assert full.truncated_games == 0 and 0.5 * cut.games < cut.truncated_games <= cut.games
    assert cut.mean_length < full.mean_length
    assert cut.equity_se < full.equity_se
    assert abs(cut.equity - full.equity) <= 3 * math.hypot(cut.equity_se, full.equity_se)


def test_truncation_from_the_start_position_plays_to_a_covered_race() -> None:
    cut = rollout(START, games=STRATA, seed=1, workers=2, truncate=True, progress=False)
    assert 0.5 * cut.games < cut.truncated_games <= cut.games
    assert cut.win_mars + cut.lose_mars > 0


def test_luck_adjustment_keeps_the_raw_games_and_stays_unbiased(two3: TwoSidedDB) -> None:
    pos = race([1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 1, 0])
    exact = two3.equity(pos)
    plain = rollout(pos, games=STRATA, seed=5, workers=1, policy="bearoff", bearoff=two3, progress=False)
    lucky = rollout(pos, games=STRATA, seed=5, workers=1, policy="bearoff", bearoff=two3, luck=True, progress=False)
    assert lucky.raw_equity == plain.equity  # the luck terms do not touch the dice streams
    assert abs(lucky.equity - exact) <= 3 * lucky.equity_se
    assert lucky.equity_se < 0.2 * plain.equity_se  # the exact table evaluator explains the luck


def test_fevga_luck_values_each_roll_by_its_best_result() -> None:
    """The luck of the one game loop (roll_values), for Fevga: each roll's value is the best
    result of its legal moves by the rollout evaluator, and the mean weighs the 21 rolls by
    their chance; the same numbers through the public API."""
    from fevga_core.board import ROLLS, ROLL_WEIGHTS
    from fevga_core.race import Tables
    from fevga_core.rollout import roll_values, value

    values, mean = roll_values(MIDGAME._row(), 0, Tables(), 100.0)
    expected = [max(value(m.position._row(), MIDGAME.turn, Tables(), 100.0)
                    for m in MIDGAME.legal_moves(roll)) for roll in ROLLS]
    assert values == expected
    assert mean == pytest.approx(sum(w * v for w, v in zip(ROLL_WEIGHTS, expected)), abs=1e-15)
    with pytest.raises(InvalidArgumentError, match="row must be one row of 51 bytes"):
        roll_values(MIDGAME._row()[:-1], 0, Tables(), 100.0)


def test_callable_policy_is_the_slow_path() -> None:
    calls = []

    def first_move(position, dice, moves):  # type: ignore[no-untyped-def]
        calls.append(dice)
        return moves[0]

    a = rollout(START, games=8, seed=1, workers=2, policy=first_move, progress=False)
    b = rollout(START, games=8, seed=1, workers=1, policy=first_move, progress=False)
    assert a == b and a.policy == "first_move" and calls

    def illegal(position, dice, moves):  # type: ignore[no-untyped-def]
        return "24/1"

    with pytest.raises(IllegalMoveError):
        rollout(START, games=2, seed=1, workers=1, policy=illegal, progress=False)


def test_lookahead_policy_plays_games() -> None:
    r = rollout(race([2, 1, 0, 2, 0, 1], [1, 1, 1, 1, 1, 1]), games=36, seed=2, workers=1,
                policy="lookahead", progress=False)
    assert r.games == 36 and r.draw == 0.0 and 0.0 <= r.win <= 1.0
    assert r.win * 36 == pytest.approx(round(r.win * 36), abs=1e-9)  # whole games won


def test_rollout_moves_ranks_with_common_random_numbers(two3: TwoSidedDB) -> None:
    pos = race([0, 0, 1, 1, 1, 0], [0, 1, 1, 0, 1, 0])
    # Children covered by the table and truncated at once: exact values, exact ranking.
    exact_rank = rollout_moves(pos, "2-1", games=36, seed=1, workers=1, truncate=True, bearoff=two3, progress=False)
    moves = pos.legal_moves("2-1")
    assert sorted(m.move.notation for m in exact_rank) == sorted(m.notation for m in moves)
    for m in exact_rank:
        assert m.equity == pytest.approx(-two3.equity(m.move.position), abs=1e-12)
    assert [m.equity for m in exact_rank] == sorted((m.equity for m in exact_rank), reverse=True)
    assert exact_rank[0].diff == 0.0 and exact_rank[-1].diff < 0
    # Played out: the differences are far more precise than the moves themselves.
    ranked = rollout_moves(MIDGAME, "5-4", games=324, seed=3, workers=2, policy="random", progress=False)
    assert len(ranked) == 27 and ranked[0].diff == 0.0
    assert all(m.diff <= 0 for m in ranked)
    worst = ranked[-1]
    assert 0 < worst.diff_se < math.sqrt(2) * worst.result.equity_se
    frame = moves_to_frame(ranked)
    assert list(frame["move"]) == [m.move.notation for m in ranked] and list(frame["rank"]) == list(range(1, 28))
    assert moves_to_csv(ranked).splitlines()[0].startswith("rank,move,diff,diff_se,position")
    serial = rollout_moves(MIDGAME, "5-4", games=324, seed=3, workers=3, policy="random", progress=False)
    assert [(m.move, m.result, m.diff, m.diff_se) for m in serial] == [
        (m.move, m.result, m.diff, m.diff_se) for m in ranked]


# Per game: a position and a roll whose moves test_ranked_moves_are_rollouts_of_their_positions ranks.
RANKED = {"fevga": (MIDGAME, "5-4"), "gioul": (GioulPosition.initial(), "5-5")}


def test_ranked_moves_are_rollouts_of_their_positions(game: str) -> None:
    position, dice = RANKED[game]
    ranked = rollout_moves(position, dice, games=144, seed=3, workers=2, policy="random", progress=False)
    assert sorted(m.move.notation for m in ranked) == sorted(m.notation for m in position.legal_moves(dice))
    assert ranked[0].diff == 0.0 and all(m.diff <= 0 for m in ranked)
    assert all(m.result.position == position.id and m.result.games == 144 for m in ranked)
    for m in ranked:  # each move's result is a rollout of its position for the mover (same seed, same games)
        alone = rollout(m.move.position, games=144, seed=3, workers=1, policy="random", progress=False)
        assert m.result.equity == pytest.approx(-alone.equity if m.move.position.turn != position.turn else alone.equity)
    stopped = rollout_moves(position, dice, games=4 * STRATA, seed=3, policy="random", stop_early=True, progress=False)
    assert any(m.stopped for m in stopped) and not stopped[0].stopped


def _ranking(moves: list[MoveRollout]) -> list[tuple[object, ...]]:
    """Everything a ranking says, each number exactly."""
    return [(m.move.notation, m.result.equity, m.result.equity_se, m.diff, m.diff_se, m.result.games, m.stopped)
            for m in moves]


def test_stopping_rule_resumes_from_its_checkpoint_to_the_same_numbers(game: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Rounds of 1, 1, 2, 2 blocks: stopped after every few blocks and resumed each time (on
    # other worker counts), the ranking is the uninterrupted one, bit for bit.
    position, dice = (STOPS_EARLY, "6-3") if game == "fevga" else RANKED[game]  # Fevga: short games
    games = 6 * STRATA
    whole = rollout_moves(position, dice, games=games, seed=5, workers=2, policy="random", stop_early=True,
                          progress=False)
    assert any(m.stopped for m in whole) and not whole[0].stopped
    for step in (1, 3):
        path = tmp_path / f"step{step}.ckpt"
        runs = 0
        while True:
            runs += 1
            seen = 0

            def stop(done: int, total: int) -> None:
                nonlocal seen
                seen += 1
                if seen == step:
                    raise KeyboardInterrupt

            ranked = rollout_moves(position, dice, games=games, seed=5, workers=1 + runs % 2, policy="random",
                                   stop_early=True, progress=False, checkpoint=path, checkpoint_every=3600.0,
                                   on_block=stop)
            if not any(m.result.interrupted for m in ranked):
                break
            with np.load(path) as data:  # a stop in the second round or later keeps the rounds before it
                assert len(json.loads(data["rounds"].tobytes())["finished"]) == next(
                    i for i, end in enumerate([1, 2, 4, 6]) if runs * step <= end)
        # a stop at the last block still reports an interrupted run: the next one plays nothing
        assert runs == 6 // step + 1 and _ranking(ranked) == _ranking(whole)
        assert ranked[0].result.resumed_games == games - 6 % step * STRATA
        # a stopped move resumed no more games than it played
        assert all(m.result.resumed_games <= m.result.games for m in ranked) and any(m.stopped for m in ranked)
        # a finished checkpoint plays nothing and gives the whole result again
        again = rollout_moves(position, dice, games=games, seed=5, workers=2, policy="random", stop_early=True,
                              progress=False, checkpoint=path, on_block=lambda done, total: pytest.fail("played"))
        assert _ranking(again) == _ranking(whole)
    # A checkpoint is resumed only the way it was made.
    with pytest.raises(CheckpointError, match="saved with the stopping rule"):
        rollout_moves(position, dice, games=games, seed=5, workers=2, policy="random", progress=False,
                      checkpoint=tmp_path / "step1.ckpt")
    rollout_moves(position, dice, games=STRATA, seed=5, workers=2, policy="random", progress=False,
                  checkpoint=tmp_path / "plain.ckpt")
    with pytest.raises(CheckpointError, match="saved without the stopping rule"):
        rollout_moves(position, dice, games=STRATA, seed=5, workers=2, policy="random", progress=False,
                      checkpoint=tmp_path / "plain.ckpt", stop_early=True)


def test_stopping_rule_checkpoint_with_wrong_rounds_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Each edit gets a fresh content checksum, so that the checks behind it are what refuse it.
    from fevga.rollout.checkpoints import content_digest

    position, dice = RANKED["fevga"]
    games = 4 * STRATA
    path = tmp_path / "job.ckpt"
    seen = []

    def stop(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 3:  # in the third round (blocks 2 and 3)
            raise KeyboardInterrupt

    rollout_moves(position, dice, games=games, seed=5, workers=1, policy="random", stop_early=True, progress=False,
                  checkpoint=path, checkpoint_every=3600.0, on_block=stop)
    with np.load(path) as data:
        good = {key: data[key] for key in data.files}
    rounds = json.loads(good["rounds"].tobytes())
    assert len(rounds["finished"]) == 2 and int(good["start"][0]) == 2
    moves = len(rounds["finished"][0])

    def edited(drop: str = "", **changes: object) -> dict[str, object]:
        arrays = {key: value for key, value in good.items() if key != drop}
        for key, value in changes.items():
            arrays[key] = (np.frombuffer(json.dumps(value).encode(), dtype=np.uint8) if key == "rounds"
                           else value)
        arrays["sha256"] = np.frombuffer(content_digest(arrays).encode(), dtype=np.uint8)  # type: ignore[arg-type]
        return arrays

    cases = {
        "not a list": (edited(rounds={"finished": 3, "members": [0]}), "'rounds' entry is not a list"),
        "unsorted": (edited(rounds={**rounds, "members": rounds["members"][::-1]}), "'rounds' entry is not a list"),
        "not every move first": (edited(rounds={**rounds, "finished": [[0], *rounds["finished"][1:]]}),
                                 "not those of the stopping rule"),
        "a move back": (edited(rounds={**rounds, "members": list(range(moves))}) if len(rounds["members"]) < moves
                        else edited(rounds={**rounds, "members": [moves]}), "not those of the stopping rule"),
        "too many rounds": (edited(rounds={"finished": [list(range(moves))] * 3, "members": [0]}),
                            "holds 4 rounds, and the stopping rule plays 3"),
        "start": (edited(start=np.asarray([1])), "running round starts at block 1, not 2"),
        "no start": (edited(drop="start"), "round entries are incomplete"),
        "short": (edited(round_first=good["round_first"][:-1]), "round arrays are too short"),
        "long": (edited(round_lengths=np.concatenate([good["round_lengths"], [0]])), "round arrays are too long"),
        "float counts": (edited(round_lengths=good["round_lengths"] + 0.5), "round_lengths"),
        "half the games": (edited(round_sums=good["round_sums"] / 2), "game counts disagree"),
        "a round": (edited(rounds={**rounds, "finished": rounds["finished"][:1]}), "running round starts at block 2"),
    }
    for name, (arrays, reason) in cases.items():
        bad = tmp_path / f"{name}.npz"
        with open(bad, "wb") as handle:
            np.savez(handle, **arrays)
        with pytest.raises(CheckpointError, match=reason) as info:
            rollout_moves(position, dice, games=games, seed=5, workers=1, policy="random", stop_early=True,
                          progress=False, checkpoint=bad)
        assert str(bad) in str(info.value) and "\n" not in str(info.value), name
    # as many moves as the running round's sums hold, but not the ones the sums before them
    # call for (a build whose stopping rule differs)
    left = sorted(set(rounds["finished"][-1]) - set(rounds["members"]))
    assert left and rounds["members"][1:]
    other = tmp_path / "other.npz"
    with open(other, "wb") as handle:
        np.savez(handle, **edited(rounds={**rounds, "members": sorted([left[0], *rounds["members"][1:]])}))
    with pytest.raises(CheckpointError, match="other moves in round 3"):
        rollout_moves(position, dice, games=games, seed=5, workers=1, policy="random", stop_early=True,
                      progress=False, checkpoint=other)


def test_evaluate_is_antisymmetric_and_uses_tables(two3: TwoSidedDB) -> None:
    pos = START.play("24/13", "6-5")
    flipped = Position.from_counts(pos.counts(WHITE), pos.counts(BLACK), WHITE)
    assert -1 < static_value(pos) < 1 and static_value(pos) != 0.0
    assert static_value(flipped) == -static_value(pos)  # the same board judged by the other side
    home = race([0, 1, 0, 1, 0, 0], [0, 0, 1, 0, 1, 0])
    assert static_value(home, "bearoff", bearoff=two3) == pytest.approx(two3.equity(home))


def test_cli_rollout_json_and_ranking(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--game", "gioul"] if game == "gioul" else []
    assert main(["rollout", "start", *args, "--games", "72", "--seed", "1", "--workers", "1", "--policy", "random",
                 "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 72 and data["seed"] == 1 and data["stratified"]
    assert data["rules"].get("game", "fevga") == game  # Fevga's rules name no game
    direct = rollout(initial(game), games=72, seed=1, workers=1, policy="random", progress=False)
    assert data["equity"] == direct.equity
    assert main(["rollout", "start", *args, "--dice", "5-5", "--games", "36", "--seed", "1", "--workers", "1",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert all(m.notation in text for m in initial(game).legal_moves("5-5"))  # Fevga: 24/4, 24/9 24/19
    for stratify in ([], ["--no-stratify"]):
        assert main(["rollout", "start", *args, "--games", "36", "--seed", "2", "--csv", "--truncate", *stratify,
                     "--no-progress"]) == 0
        assert io.StringIO(capsys.readouterr().out).readline().startswith("position,games,")
    assert main(["rollout", "start", *args, "--games", "0"]) == 2


def test_lookahead_over_any_evaluator_plays_the_table_strategy(two3: TwoSidedDB) -> None:
    from fevga.search import lookahead

    pos = race([0, 1, 1, 0, 1, 0], [1, 0, 1, 1, 0, 0])
    exact = two3.equity(pos)
    policy = lookahead(lambda p: two3.equity(p))
    r = rollout(pos, games=144, seed=3, workers=2, policy=policy, progress=False)
    assert r.policy.startswith("lookahead") and abs(r.equity - exact) <= 3 * r.equity_se + 1e-9


def test_sigint_prints_the_partial_result(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "cli.ckpt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fevga", "rollout", "start", "--games", "2000000", "--seed", "5", "--workers", "2",
         "--policy", "random", "--checkpoint", str(path), "--json", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:  # the first checkpoint: blocks are done
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    data = json.loads(out)
    assert data["interrupted"] and 0 < data["games"] < 2000000 and data["games"] % STRATA == 0


def test_progress_bar_shows_rate_and_interval(capsys) -> None:  # type: ignore[no-untyped-def]
    rollout(START, games=2 * STRATA, seed=1, workers=2, policy="random", progress=True)
    err = capsys.readouterr().err
    assert "game/s" in err and "CI +-" in err and "2592/2592" in err


def test_rules_must_be_a_rules_value() -> None:
    with pytest.raises(InvalidRulesError, match="'strict'"):
        rollout(Position.initial(), games=36, seed=1, rules="strict", progress=False)  # type: ignore[arg-type]


def test_rollout_at_a_match_score_values_each_game_by_match_chance() -> None:
    from fevga.match import match_score

    common = dict(games=360, seed=3, workers=1, policy="heuristic", progress=False)
    money = rollout(MIDGAME, **common)  # type: ignore[arg-type]
    at = rollout(MIDGAME, **common, score=(3, 1), length=5)  # type: ignore[arg-type]
    # The same games: the money statistics do not change, and the match chance is the linear
    # function of the outcome probabilities that the match equity table gives.
    assert (at.equity, at.win, at.win_mars, at.lose_mars) == (money.equity, money.win, money.win_mars, money.lose_mars)
    c, w, wm, lm, d = match_score((3, 1), 5).weights(MIDGAME.turn)  # type: ignore[union-attr]
    expected = c + w * at.win + wm * at.win_mars + lm * at.lose_mars + d * at.draw
    assert at.match_chance == pytest.approx(expected, abs=1e-12)
    assert at.match_chance_se is not None and 0.0 < at.match_chance_se < 0.05
    assert money.match_chance is None and "match_chance" not in money.to_dict()
    assert at.to_dict()["score"] == [3, 1] and "match winning chance" in at.summary()
    # At double match point a mars is worth nothing: the weights of mars are zero.
    dmp = match_score((4, 4), 5).weights(MIDGAME.turn)  # type: ignore[union-attr]
    assert dmp[2] == pytest.approx(0.0, abs=1e-12) and dmp[3] == pytest.approx(0.0, abs=1e-12)
    # Luck adjustment applies to the match chance too and narrows it.
    lucky = rollout(MIDGAME, **common, score=(3, 1), length=5, luck=True)  # type: ignore[arg-type]
    assert lucky.match_chance_se is not None and lucky.match_chance_se < at.match_chance_se
    assert abs(lucky.match_chance - at.match_chance) < 3 * at.match_chance_se  # type: ignore[operator]
    with pytest.raises(InvalidArgumentError, match="both score"):
        rollout(MIDGAME, **common, score=(3, 1))  # type: ignore[arg-type]


def test_rollout_moves_at_a_match_score_rank_by_match_chance() -> None:
    common = dict(games=216, seed=5, workers=1, policy="heuristic", progress=False)
    money = {m.move.notation: m for m in rollout_moves(MIDGAME, "5-4", **common)}  # type: ignore[arg-type]
    ranking = rollout_moves(MIDGAME, "5-4", **common, score=(0, 2), length=3)  # type: ignore[arg-type]
    best = ranking[0].result.match_chance
    assert best is not None
    for m in ranking:
        assert m.result.equity == money[m.move.notation].result.equity  # the same games
        assert m.diff == pytest.approx(m.result.match_chance - best, abs=1e-12)  # type: ignore[operator]
    assert [m.diff for m in ranking] == sorted((m.diff for m in ranking), reverse=True)
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        assert main(["rollout", MIDGAME.id, "--dice", "5-4", "--games", "36", "--seed", "1", "--workers", "1",
                     "--policy", "heuristic", "--no-progress", "--score", "0-2", "--length", "3", "--json"]) == 0
    moves = json.loads(out.getvalue())["moves"]
    assert all(0.0 <= m["result"]["match_chance"] <= 1.0 for m in moves)


def test_rollout_moves_of_chosen_moves() -> None:
    common = dict(games=72, seed=8, workers=1, policy="heuristic", progress=False)
    every = {m.move.notation: m for m in rollout_moves(MIDGAME, "5-4", **common)}  # type: ignore[arg-type]
    legal = MIDGAME.legal_moves("5-4")
    chosen = rollout_moves(MIDGAME, "5-4", **common, moves=[legal[3], legal[0].notation])  # type: ignore[arg-type]
    assert {m.move for m in chosen} == {legal[0], legal[3]}
    for m in chosen:  # a move's games do not depend on the other moves rolled out beside it
        assert m.result == every[m.move.notation].result
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        rollout_moves(MIDGAME, "5-4", **common, moves=[MIDGAME.legal_moves("6-6")[0]])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="twice"):
        rollout_moves(MIDGAME, "5-4", **common, moves=[legal[1], legal[1].notation])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="not both"):
        rollout_moves(MIDGAME, "5-4", **common, moves=[legal[1]], candidates=2)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="non-empty list"):
        rollout_moves(MIDGAME, "5-4", **common, moves=legal[1].notation)  # type: ignore[arg-type]


def test_cli_rolls_out_chosen_moves(capsys) -> None:  # type: ignore[no-untyped-def]
    legal = MIDGAME.legal_moves("5-4")
    run = ["rollout", MIDGAME.id, "--dice", "5-4", "--games", "36", "--seed", "1", "--workers", "1",
           "--policy", "heuristic", "--no-progress", "--json"]
    assert main(run + ["--move", legal[0].notation, "--move", legal[3].notation]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert sorted(m["move"] for m in moves) == sorted([legal[0].notation, legal[3].notation])
    assert main(run + ["--move", "24/12"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fevga: error: ") and "24/12" in err and err.count("\n") == 1
    assert main(["rollout", "start", "--games", "36", "--no-progress", "--move", "24/13"]) == 2
    assert "give --dice" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# One default policy, and results that say what they did (issue 14, items 6, 7, 9)


# A position and a roll of each game for test_the_default_policy_is_the_net_in_the_api_and_the_cli.
DEFAULT_NET_JOBS = {"fevga": (MIDGAME, "5-4"), "gioul": (GioulPosition.initial(), "6-5")}


def test_the_default_policy_is_the_net_in_the_api_and_the_cli(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No policy and no net: the "net" policy over the game's shipped net; the candidates of a
    roll are that net's best moves."""
    position, dice = DEFAULT_NET_JOBS[game]
    shipped = Net.default(game)
    api = rollout(position, games=36, seed=3, workers=1, progress=False)
    assert api.policy == "net" and api.net == shipped.checksum
    data = api.to_dict()
    assert data["policy"] == "net" and data["net"] == shipped.checksum
    assert "policy net (net " in api.summary()
    explicit = rollout(position, games=36, seed=3, workers=1, policy="net", net=shipped, progress=False)
    assert explicit.equity == api.equity
    assert api.equity != rollout(position, games=36, seed=3, workers=1, policy="heuristic", progress=False).equity
    assert main(["rollout", position.id, "--games", "36", "--seed", "3", "--workers", "1", "--no-progress",
                 "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["policy"] == "net" and cli["equity"] == api.equity  # the same default: the same figure
    assert main(["rollout", position.id, "--games", "36", "--seed", "3", "--workers", "1", "--no-progress"]) == 0
    assert "policy net" in capsys.readouterr().out
    moves = rollout_moves(position, dice, games=36, seed=3, workers=1, progress=False, candidates=2)
    assert moves and all(m.result.policy == "net" for m in moves)
    assert {m.move for m in moves} <= {h.move for h in hint(position, dice)[:2]}
    assert rollout(position, games=36, seed=3, workers=1, progress=False, policy="random").net is None


def test_stop_early_says_how_many_games_each_move_played(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    games = 4 * STRATA
    ranking = rollout_moves(STOPS_EARLY, "6-3", games=games, seed=2, workers=2, policy="heuristic", progress=False,
                            stop_early=True)
    played = [m.result.games for m in ranking]
    assert max(played) == games and min(played) < games
    assert all(m.stopped == (m.result.games < games) for m in ranking)  # "stopped" only when it played fewer
    assert main(["rollout", STOPS_EARLY.id, "--dice", "6-3", "--games", str(games), "--seed", "2", "--workers", "2",
                 "--policy", "heuristic", "--stop-early", "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    stopped = sum(1 for m in ranking if m.stopped)
    assert f"up to {games:,} games per move ({stopped} of {len(ranking)} stopped early" in out[0]
    assert "games each" not in out[0]
    rows = out[2:]
    assert len(rows) == len(ranking)
    for row, m in zip(rows, ranking):
        assert row.split()[1] == m.move.notation.split()[0]
        assert f"{m.result.games:,}" in row and ("(stopped)" in row) == m.stopped
    # with a checkpoint: the same table, and run again, the same table from the file alone
    command = ["rollout", STOPS_EARLY.id, "--dice", "6-3", "--games", str(games), "--seed", "2", "--workers", "2",
               "--policy", "heuristic", "--stop-early", "--no-progress", "--checkpoint", str(tmp_path / "ranking.ckpt")]
    assert main(command) == 0 and capsys.readouterr().out.splitlines()[2:] == rows
    assert main(command) == 0 and capsys.readouterr().out.splitlines()[2:] == rows


def test_a_stop_before_any_block_finished_says_so(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C before the first block of 1,296 games ends leaves no game to report: the summary
    # and the ranking say so instead of printing nan
    import threading

    import fevga.cli.rollout as cli_rollout

    stopped = threading.Event()
    stopped.set()
    alone = rollout(START, games=STRATA, seed=1, workers=1, policy="net", progress=False, cancel=stopped)  # seconds a block
    assert alone.interrupted and alone.games == 0
    assert "nothing to report" in alone.summary() and "nan" not in alone.summary()
    real = cli_rollout.rollout_moves
    monkeypatch.setattr(cli_rollout, "rollout_moves", lambda *a, **k: real(*a, **{**k, "cancel": stopped}))
    assert main(["rollout", STOPS_EARLY.id, "--dice", "6-3", "--games", str(STRATA), "--seed", "2", "--workers", "1",
                 "--policy", "net", "--stop-early", "--no-progress"]) == 130
    out = capsys.readouterr().out
    assert "(interrupted)" in out and "nothing to report" in out and "nan" not in out


def test_rounded_game_counts_are_said(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", "--games", "100", "--seed", "1", "--workers", "1", "--policy", "random",
                 "--no-progress", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 108
    assert "--games 100 is rounded up to 108, a multiple of 36" in captured.err
    assert main(["rollout", "--games", "100", "--seed", "1", "--workers", "1", "--policy", "random",
                 "--no-progress", "--json", "--no-stratify"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 100 and captured.err == ""
    assert main(["rollout", "--games", "108", "--seed", "1", "--workers", "1", "--policy", "random",
                 "--no-progress"]) == 0
    assert "rounded" not in capsys.readouterr().err
