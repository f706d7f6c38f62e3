"""The Gioul net: its encoding ("gioul-1"), the core's "net" policy for Gioul, net files that say
their game, judgment of pending decisions and Gioul training runs. What the nets of both games
share runs for both in test_net.py (colour-swapped twins, valid outputs, rollouts with the net)
and test_train.py (workers, extending a run, the CLI)."""

from __future__ import annotations

import io
import json
import pickle
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import fevga
from fevga import BLACK, WHITE, GioulPosition, Net
from fevga.errors import InvalidArgumentError, InvalidPositionError, NetFileError, NetGameError
from fevga.net import net_of
from fevga.strength import gioul_duel
from fevga.train import TrainConfig, train
from fevga.game import play_game
from fevga.gioul import to_array
from fevga_core import constants, gioul as core_gioul, net as core_net, rollout as core_rollout
from fevga_core import train as core_train

START = [0] * 24 + [15]
SIDE = core_net.GIOUL_SIDE_INPUTS
DICE = 2 * SIDE  # the pending dice's inputs follow both sides'
NET_POLICY = constants.POLICY_IDS["net"]


def encode(state: GioulPosition) -> np.ndarray:
    return core_gioul.encode_state(to_array([state])[0])


def random_core_net(hidden: int = 12, seed: int = 0) -> core_gioul.CoreGioulNet:
    rng = np.random.default_rng(seed)
    params = rng.normal(0.0, 0.5, core_net.param_count(hidden, core_net.GIOUL_INPUTS)).astype(np.float32)
    return core_gioul.CoreGioulNet(params, hidden)


def test_the_start_encodes_both_armies_on_their_24_and_no_dice() -> None:
    x = encode(GioulPosition.initial())
    assert x.shape == (core_net.GIOUL_INPUTS,) == (225,)
    for base in (0, SIDE):
        assert list(x[base + 92: base + 96]) == [1.0, 1.0, 1.0, 3.0]  # 15 on point 24: n>=1, >=2, >=3, (15-3)/4
        assert x[base + 97] == 1.0 and x[base + 100] == 1.0 and x[base + 105] == 1.0  # pips/360, back, contact
        assert x[base + 106] == 0.0 and x[base + 107] == 0.0  # no rolls made
    assert not x[DICE:].any()


def test_roll_three_and_roll_four_differ_in_the_chain_input() -> None:
    third = encode(GioulPosition.from_counts(START, START, WHITE, next_roll=(3, 1)))
    fourth = encode(GioulPosition.from_counts(START, START, WHITE, next_roll=(4, 1)))
    assert third[106] == 0.0 and third[107] == pytest.approx(2 / 3)
    assert fourth[106] == 1.0 and fourth[107] == 1.0
    # the other side's count is its own input, at its own base
    theirs = encode(GioulPosition.from_counts(START, START, WHITE, next_roll=(1, 4)))
    assert theirs[106] == 0.0 and theirs[SIDE + 106] == 1.0


def test_a_pending_chain_encodes_every_die_still_to_play() -> None:
    white = [0] * 18 + [1] * 6 + [9]
    state = GioulPosition.from_counts(white, START, WHITE, next_roll=(4, 2), dice=(5, 5, 6, 6, 6, 6), roller=WHITE)
    x = encode(state)
    assert list(x[DICE: DICE + 6]) == [0, 0, 0, 0, 0.5, 1.0]  # two 5s, four 6s
    assert x[DICE + 6] == pytest.approx((2 * 5 + 4 * 6) / 84)
    assert x[DICE + 7] == 0.0  # its own roll
    assert x[DICE + 8] == 1.0  # later blocks follow this one


def test_dice_handed_over_are_the_side_to_decides_and_say_who_rolled_them() -> None:
    state = GioulPosition.from_counts(START, START, BLACK, next_roll=(2, 1), dice=(3,), roller=WHITE)
    x = encode(state)
    assert x[DICE + 2] == 0.25 and x[DICE + 7] == 1.0 and x[DICE + 8] == 0.0
    assert encode(GioulPosition.from_counts(START, START, WHITE, next_roll=(2, 1), dice=(3,), roller=WHITE))[DICE + 7] == 0.0


def test_the_core_checks_what_reaches_the_gioul_net() -> None:
    with pytest.raises(InvalidArgumentError, match="does not fit"):
        core_gioul.CoreGioulNet(np.zeros(core_net.param_count(8), dtype=np.float32), 8)  # a Fevga-sized vector
    net = random_core_net()
    bad = to_array([GioulPosition.initial()])
    bad[0, 51] = 9  # a roll count above 3
    with pytest.raises(InvalidPositionError, match="roll count"):
        net.evaluate_rows(bad)
    with pytest.raises(InvalidPositionError):
        net.evaluate_rows(np.zeros((1, 51), dtype=np.uint8))
    with pytest.raises(InvalidArgumentError, match="targets"):
        net.train_rows(to_array([GioulPosition.initial()]), np.array([[0.5, 0.9, 0.0]]), 0.01)
    with pytest.raises(TypeError):  # a Gioul net is no Fevga net, and the reverse, by type
        core_train.selfplay_samples(net, None, 0, 1, 0, 1, 0.5)  # type: ignore[arg-type]
    fevga_net = core_net.CoreNet(np.zeros(core_net.param_count(8), dtype=np.float32), 8)
    with pytest.raises(NetGameError):
        core_rollout.gioul_games(1, 0, 1, False, NET_POLICY, NET_POLICY, fevga_net, fevga_net)


def test_the_net_policy_plays_gioul_games_in_the_core_seeded() -> None:
    net = random_core_net()
    with pytest.raises(InvalidArgumentError, match="need a net"):
        core_rollout.gioul_games(1, 0, 4, False, NET_POLICY, 0)
    with pytest.raises(InvalidArgumentError, match="policy id"):
        core_rollout.gioul_games(1, 0, 4, False, 99, 0)
    first, decisions = core_rollout.gioul_games(5, 0, 40, False, NET_POLICY, 0, net, None)
    again, _ = core_rollout.gioul_games(5, 0, 40, False, NET_POLICY, 0, net, None)
    assert np.array_equal(first, again) and decisions > 40 * 20
    assert set(np.abs(first).tolist()) <= {0, 1, 2}


def test_selfplay_samples_are_the_game_states_with_lambda_returns() -> None:
    net = random_core_net()
    rows, targets, outcomes = core_train.gioul_selfplay_samples(net, 3, 0, 1, 1.0)
    assert rows.shape[1] == 58 and len(rows) == len(targets) > 20 and outcomes.shape == (1, 3)
    assert core_gioul.first_invalid_row(rows) == (-1, "")
    # lambda = 1: every target is the game's result seen by the state's side to decide
    white_win = np.where(rows[:, 50] == WHITE, targets[:, 0], 1 - targets[:, 0])
    assert np.allclose(white_win, outcomes[0, 0])
    again = core_train.gioul_selfplay_samples(net, 3, 0, 1, 1.0)
    assert np.array_equal(rows, again[0]) and np.array_equal(targets, again[1])
    with pytest.raises(InvalidArgumentError):
        core_train.gioul_selfplay_samples(net, 3, 0, 1, 1.5)


# ---------------------------------------------------------------------------------------
# Net files know their game


def test_a_gioul_net_file_says_its_encoding_and_loads_as_a_gioul_net(tmp_path: Path) -> None:
    net = Net.initial(8, 3, "gioul")
    path = net.save(tmp_path / "gioul.npz")
    meta = json.loads(np.load(path)["meta"].tobytes())
    assert (meta["encoding"], meta["inputs"]) == ("gioul-1", 225)
    loaded = Net.load(path)
    assert loaded == net and loaded.game == "gioul" and loaded.checksum == net.checksum
    assert pickle.loads(pickle.dumps(net)).game == "gioul"
    assert Net.default().game == "fevga"  # the shipped file (fevga-1, written before Gioul nets) still loads
    assert Net.initial(8, 3) != Net.initial(8, 3, "gioul")


def test_a_file_whose_inputs_do_not_match_its_encoding_is_refused(tmp_path: Path) -> None:
    data = Net.initial(8, 3, "gioul").to_bytes()
    with np.load(io.BytesIO(data)) as archive:
        meta, params = json.loads(archive["meta"].tobytes()), archive["params"]
    meta["inputs"] = 214
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), params=params)
    with pytest.raises(NetFileError, match="'gioul-1' with 214 inputs"):
        Net._read(buffer.getvalue(), "crafted.npz")


def test_a_net_of_one_game_is_refused_for_the_other_with_one_error_naming_both() -> None:
    gioul_net, fevga_net = Net.initial(8, 3, "gioul"), Net.default()
    for net in (gioul_net, Net.default("gioul")):
        with pytest.raises(NetGameError, match="Gioul net .*gioul-1.* where a Fevga net .*fevga-1"):
            fevga.evaluate(fevga.Position.initial(), net=net)
    with pytest.raises(NetGameError, match="Fevga net .*fevga-1.* where a Gioul net .*gioul-1"):
        net_of(fevga_net, "gioul")
    with pytest.raises(NetGameError):
        net_of(fevga_net.quantised(), "gioul")
    assert issubclass(NetGameError, fevga.FevgaError)
    assert net_of(gioul_net, "gioul") is gioul_net


# ---------------------------------------------------------------------------------------
# evaluate and hint on Gioul states


@pytest.fixture(scope="module")
def gioul_net() -> Net:
    rng = np.random.default_rng(5)
    return Net(rng.normal(0.0, 0.3, core_net.param_count(16, core_net.GIOUL_INPUTS)), 16, game="gioul")


def test_evaluate_a_state_with_a_roll_due_is_the_net_for_the_side_to_roll(gioul_net: Net) -> None:
    state = GioulPosition.from_counts(START, START, BLACK, next_roll=(4, 3))
    e = fevga.evaluate(state, net=gioul_net)
    assert [e.win, e.win_mars, e.lose_mars] == list(gioul_net._core.evaluate_rows(to_array([state]))[0])


def test_evaluate_a_pending_decision_is_its_best_move_and_hint_ranks_them(gioul_net: Net) -> None:
    white = [0] * 18 + [1] * 6 + [9]
    state = GioulPosition.from_counts(white, START, WHITE, next_roll=(4, 2), dice=(5, 5, 6, 6, 6, 6), roller=WHITE)
    hints = fevga.hint(state, None, net=gioul_net)
    assert len(hints) == len(state.legal_moves()) > 1
    assert hints[0].loss == 0.0 and all(a.equity >= b.equity for a, b in zip(hints, hints[1:]))
    assert fevga.evaluate(state, net=gioul_net) == hints[0].evaluation
    for h in hints:  # each result rated for the mover: directly while it decides, flipped once the other side does
        after = h.move.position
        raw = gioul_net._core.evaluate_rows(to_array([after]))[0]
        expected = fevga.Evaluation(*map(float, raw))
        assert h.evaluation == (expected if after.turn == WHITE else expected.flipped())
    with pytest.raises(fevga.InvalidDiceError):
        fevga.hint(state, "6-5", net=gioul_net)


def test_hint_agrees_with_the_cores_net_policy(gioul_net: Net) -> None:
    net_id = constants.POLICY_IDS["net"]
    _, decisions = core_rollout.record_gioul_game(9, 0, False, net_id, net_id, None, gioul_net._core, gioul_net._core)
    mover, _, d1, d2, *_ , steps, choices = decisions[0]
    hints = fevga.hint(GioulPosition.initial(mover), (d1, d2), net=gioul_net)
    assert choices == len(hints) and hints[0].move.steps == steps


def test_gioul_judgment_defaults_to_the_shipped_gioul_net_and_says_what_it_offers() -> None:
    state = GioulPosition.initial()
    shipped = Net.default(game="gioul")
    assert fevga.evaluate(state) == fevga.evaluate(state, net=shipped)
    assert fevga.evaluate(state) != fevga.evaluate(state, net=Net.initial(8, 1, "gioul"))
    pending = state.rolled("5-5")  # a decision mid-roll
    assert fevga.evaluate(pending) == fevga.evaluate(pending, net=shipped)
    assert fevga.hint(state, "6-5") == fevga.hint(state, "6-5", net=shipped)
    with pytest.raises(NetGameError):
        fevga.hint(state, "6-5", net=Net.default())
    net = Net.initial(8, 1, "gioul")
    with pytest.raises(InvalidArgumentError, match="plies"):
        fevga.evaluate(state, 3, net=net)
    with pytest.raises(InvalidArgumentError, match="plies"):
        fevga.hint(state, "6-5", 0, net=net)
    with pytest.raises(InvalidArgumentError, match="match score"):
        fevga.hint(state, "6-5", net=net, score=(0, 0), length=3)


# ---------------------------------------------------------------------------------------
# Training a Gioul net: the Fevga pipeline with game="gioul" (what both share: test_train.py)

GIOUL_TINY = TrainConfig(games=1000, hidden=16, batch=50, rate=0.02, rate_final=0.02, seed=2, check_every=1000,
                         check_games=400, check_against="random", game="gioul")


def test_a_tiny_gioul_run_beats_random_play_by_a_clear_margin(tmp_path: Path) -> None:
    run = train(tmp_path, GIOUL_TINY, workers=1, progress=False)
    before, after = run.history
    assert (before["games"], after["games"], after["against"]) == (0, 1000, "random")
    # the same seeded duel (400 games, colours alternated) before and after 1,000 self-play games
    assert after["ppg"] - after["ppg_ci"] > 0.5
    assert after["ppg"] - before["ppg"] > after["ppg_ci"] + before["ppg_ci"]
    net = Net.load(tmp_path / "net.npz")
    assert net.game == "gioul" and net.provenance["command"].startswith("fevga train OUT") \
        and "--game gioul" in net.provenance["command"]


def test_a_gioul_run_checks_its_opponent_and_game(tmp_path: Path) -> None:
    fevga_file = Net.initial(8, 1).save(tmp_path / "fevga.npz")
    with pytest.raises(NetGameError):
        train(tmp_path / "a", replace(GIOUL_TINY, check_against=str(fevga_file)), workers=1, progress=False)
    with pytest.raises(InvalidArgumentError, match="game"):
        train(tmp_path / "b", replace(GIOUL_TINY, game="tavla"), workers=1, progress=False)
    with pytest.raises(NetGameError):
        gioul_duel("net", "random", games=20, net_a=Net.default())
    assert gioul_duel("heuristic", "random", games=200, seed=1, workers=1).ppg > 0.5


def test_play_gioul_game_plays_the_net_policy_with_a_gioul_net(gioul_net: Net) -> None:
    record = play_game(game="gioul", seed=4, policy=("net", "random"), net=gioul_net)
    assert record.final.is_game_over() and record.policies == ("net", "random")
    assert record == play_game(game="gioul", seed=4, policy=("net", "random"), net=gioul_net)
    assert record.positions()[-1] == record.final  # the decisions replay through the rules
    assert play_game(game="gioul", seed=4, policy="net") == play_game(game="gioul", seed=4, policy="net", net=Net.default("gioul"))
    with pytest.raises(NetGameError):
        play_game(game="gioul", seed=4, policy="net", net=Net.default())


def test_the_first_full_gioul_run_beats_the_heuristic() -> None:
    """benchmarks/nets/gioul-net-1.npz (docs/net.md, "The first full run") loads as a Gioul net
    and beats the heuristic on seeded dice (its 10,000-game figure is +0.651 ± 0.027)."""
    net = Net.load(Path(__file__).parents[1] / "benchmarks" / "nets" / "gioul-net-1.npz")
    assert net.game == "gioul" and net.hidden == 128
    assert net == Net.default("gioul")  # the shipped Gioul net is this run
    duel = gioul_duel("net", "heuristic", games=600, seed=20261203, net_a=net, workers=2)
    assert duel.ppg > 0.3, duel
