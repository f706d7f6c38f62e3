"""The neural evaluator: encoding, outputs, the table override, weights files, search and policies."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fevga
import fevga.batch
from boards import handed_pair
from fevga import BLACK, WHITE, GioulPosition, Net, NetFileError, Position, evaluate, hint
from fevga.errors import InvalidArgumentError
from fevga.game import play_game
from fevga.net import FORMAT_VERSION
from fevga.bearoff.core_tables import tables_of
from fevga.rollout import rollout
from fevga_core import gioul as core_gioul
from fevga_core import net as core_net
from fevga_core import rollout as core_rollout

START = (0,) * 24 + (15,)


def swapped(position: Position) -> Position:
    """The colour-swapped twin: the same board seen by the other colour, the other side on roll."""
    return Position.from_counts(position.counts(BLACK), position.counts(WHITE), 1 - position.turn)


def game_positions(seed: int, policy: str = "heuristic") -> list[Position]:
    return play_game(seed=seed, policy=policy).positions()


@pytest.fixture(scope="module")
def corpus() -> list[Position]:
    positions: list[Position] = []
    for seed in range(6):
        positions.extend(p for p in game_positions(seed) if p.winner() is None)
    return positions


def encoding(position: Position) -> np.ndarray:
    return core_net.encode_row(np.frombuffer(position._row(), dtype=np.uint8))


@pytest.fixture(scope="module")
def gioul_corpus() -> list[GioulPosition]:
    """States of a few recorded Gioul games: new rolls due, chains, dice handed over, finished games."""
    return [s for seed in range(4) for s in play_game(game="gioul", seed=seed, policy="heuristic").positions()]


def gioul_encoding(state: GioulPosition) -> np.ndarray:
    return core_gioul.encode_state(fevga.batch.to_array([state])[0])


def gioul_swapped(state: GioulPosition) -> GioulPosition:
    """The colour-swapped twin: the same board, roll counts and dice seen by the other colour."""
    roller = state.roller
    return GioulPosition.from_counts(
        state.counts(BLACK), state.counts(WHITE), 1 - state.turn,
        next_roll=(state.next_roll(BLACK), state.next_roll(WHITE)),
        dice=state.pending or None, roller=None if roller is None else 1 - roller)


def random_core_net(game: str, hidden: int = 12, seed: int = 0) -> core_net.CoreNet | core_gioul.CoreGioulNet:
    """The core net of `game` with random weights."""
    rng = np.random.default_rng(seed)
    if game == "gioul":
        params = rng.normal(0.0, 0.5, core_net.param_count(hidden, core_net.GIOUL_INPUTS)).astype(np.float32)
        return core_gioul.CoreGioulNet(params, hidden)
    return core_net.CoreNet(rng.normal(0.0, 0.5, core_net.param_count(hidden)).astype(np.float32), hidden)


# ---------------------------------------------------------------------------------------
# Encoding


def test_start_position_encoding_by_hand() -> None:
    x = encoding(Position.initial())
    side = core_net.SIDE_INPUTS
    expected = np.zeros(core_net.INPUTS, dtype=np.float32)
    for base in (0, side):
        expected[base + 92 : base + 95] = 1.0  # point 24 holds >= 1, >= 2, >= 3 checkers
        expected[base + 95] = (15 - 3) / 4  # and 12 more
        expected[base + 97] = 1.0  # pips 360 / 360
        expected[base + 100] = 1 / 6  # one occupied point: a run of 1
        expected[base + 101] = 1.0  # all 15 in the first half
        expected[base + 106] = 1.0  # contact
    np.testing.assert_array_equal(x, expected)


def test_encoding_of_a_race_and_a_trap_by_hand() -> None:
    # White (on roll): 3 off, 10 on its point 1, 2 on point 8; Black holds White's 2..7 (its own 14..19).
    white = [3, 10, 0, 0, 0, 0, 0, 0, 2] + [0] * 16
    black = [0] * 25
    for own in range(14, 20):
        black[own] = 2
    black[24] = 3
    x = encoding(Position.from_counts(white, black, WHITE))
    assert x[0:3].tolist() == [1.0, 1.0, 1.0] and x[3] == pytest.approx((10 - 3) / 4)
    assert x[28:31].tolist() == [1.0, 1.0, 0.0]  # point 8: two checkers
    assert x[96] == pytest.approx(3 / 15)
    assert x[97] == pytest.approx((10 * 1 + 2 * 8) / 360)
    assert x[98] == pytest.approx(10 / 15)
    assert x[99] == 1.0  # released: checkers on points below 12 and off
    assert x[102] == 0.0  # two checkers are not home
    assert x[103] == pytest.approx(2 / 15)  # the two on point 8 face six black points
    # blocked: point 8 sees 6 black points (2..7), point 1 sees none in front of it
    assert x[104] == pytest.approx(2 * 6 / 90)
    assert x[106] == 1.0


def test_a_position_and_its_colour_swapped_twin_encode_and_evaluate_alike(
        game: str, corpus: list[Position], gioul_corpus: list[GioulPosition]) -> None:
    """The same inputs, the same value by the shipped net (fevga.evaluate) and the same raw
    outputs of a random core net, for every Gioul state of a few games (hand-overs among them)
    and every 7th Fevga position."""
    if game == "gioul":
        positions: list[Any] = gioul_corpus
        encode: Callable[[Any], np.ndarray] = gioul_encoding
        twin_of: Callable[[Any], Any] = gioul_swapped
        assert any(s.pending and s.roller != s.turn for s in positions)  # hand-overs are in the corpus
    else:
        positions, encode, twin_of = corpus[::7], encoding, swapped
    twins = [twin_of(p) for p in positions]
    for position, twin in zip(positions, twins):
        np.testing.assert_array_equal(encode(position), encode(twin), err_msg=position.id)
    net = Net.default(game)
    assert [evaluate(p, net=net) for p in positions] == [evaluate(t, net=net) for t in twins]
    core = random_core_net(game)
    rows, twin_rows = fevga.batch.to_array(positions), fevga.batch.to_array(twins)
    assert np.array_equal(core.evaluate_rows(rows), core.evaluate_rows(twin_rows))


def test_mirrored_outputs_from_either_side(corpus: list[Position]) -> None:
    """The side on roll's value seen from the other side: win and loss swap, and the mars terms."""
    e = evaluate(corpus[40])
    f = e.flipped()
    assert f.win == pytest.approx(1 - e.win) and f.win_mars == e.lose_mars and f.lose_mars == e.win_mars
    assert f.equity == pytest.approx(-e.equity)


# ---------------------------------------------------------------------------------------
# Outputs


def test_outputs_are_valid_probabilities(game: str, corpus: list[Position], gioul_corpus: list[GioulPosition]) -> None:
    """The raw nets (no table override) on every position of six Fevga games or every state of
    four Gioul games: the shipped net's and three random nets'."""
    rows = fevga.batch.to_array(corpus if game == "fevga" else gioul_corpus)
    shipped = Net.default(game)._core.evaluate_rows(rows)
    assert np.all((0 < shipped[:, 0]) & (shipped[:, 0] < 1))
    for out in [shipped, *(random_core_net(game, seed=seed).evaluate_rows(rows) for seed in range(3))]:
        win, win_mars, lose_mars = out.T
        assert np.all((0 <= win) & (win <= 1) & (0 <= win_mars) & (win_mars <= win))
        assert np.all((0 <= lose_mars) & (lose_mars <= 1 - win))


def test_bear_off_tables_override_the_net() -> None:
    # both sides home, 6 checkers or fewer on the board: the two-sided table is exact
    white = [12, 1, 1, 0, 1, 0, 0] + [0] * 18
    black = [9, 0, 2, 2, 0, 1, 1] + [0] * 18
    for turn in (WHITE, BLACK):
        position = Position.from_counts(white, black, turn)
        equity, win, win_mars, lose_mars = core_rollout.race(position._row(), tables_of("default"))
        for plies in (0, 1, 2):
            e = evaluate(position, plies)
            assert (e.win, e.win_mars, e.lose_mars) == (win, win_mars, lose_mars)
            assert e.equity == pytest.approx(equity)


def test_finished_game_is_scored() -> None:
    white = [15] + [0] * 24
    black = [0] * 24 + [15]
    e = evaluate(Position.from_counts(white, black, BLACK))  # Black on roll has lost a mars
    assert (e.win, e.win_mars, e.lose_mars, e.equity) == (0.0, 0.0, 1.0, -2.0)


def test_one_ply_is_the_average_of_the_best_replies(corpus: list[Position]) -> None:
    position = corpus[30]
    total = np.zeros(3)
    for a in range(1, 7):
        for b in range(a, 7):
            best = hint(position, (a, b))[0].evaluation
            total += (1 if a == b else 2) / 36 * np.array([best.win, best.win_mars, best.lose_mars])
    e = evaluate(position, 1)
    np.testing.assert_allclose([e.win, e.win_mars, e.lose_mars], total, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------
# hint and the policies


def test_hint_ranks_every_legal_move_best_first(corpus: list[Position]) -> None:
    position = corpus[25]
    hints = hint(position, (5, 3))
    legal = position.legal_moves((5, 3))
    assert sorted(h.move.position.id for h in hints) == sorted(m.position.id for m in legal)
    equities = [h.equity for h in hints]
    assert equities == sorted(equities, reverse=True)
    assert hints[0].loss == 0.0 and all(h.loss >= 0 for h in hints)
    for h in hints[:3]:  # a move's evaluation is its result's evaluation, seen by the mover
        assert h.evaluation == evaluate(h.move.position).flipped()


def test_two_ply_hint_searches_the_filtered_moves_deeper(corpus: list[Position]) -> None:
    position = corpus[60]
    hints = hint(position, (6, 2), plies=2)
    deep = [h for h in hints if h.plies == 2]
    from fevga_core.search import FILTER_KEEP, FILTER_MARGIN

    assert 1 <= len(deep) <= FILTER_KEEP and hints[: len(deep)] == deep
    one_ply = {h.move.position.id: h.equity for h in hint(position, (6, 2))}
    best = max(one_ply.values())
    assert all(one_ply[h.move.position.id] >= best - FILTER_MARGIN for h in deep)
    for h in deep[:2]:
        assert h.evaluation == evaluate(h.move.position, 1).flipped()


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_every_move_hint_searches_each_move_as_the_filter_searches_its_own(game: str) -> None:
    """hint(..., every_move=True): every legal move at 2 plies, each with the value the filtered
    search gives it when it keeps it, bit for bit; at 3 plies the best 6 of those 2-ply values
    within 0.16 searched deeper, each as the filtered 3-ply search values it, the rest kept at
    2; at 1 ply there is nothing to filter. The default is the game's: every move in Gioul,
    the filter in Fevga."""
    from fevga.error_rate import build_corpus

    dropped = 0
    for d in build_corpus(3, seed=38, game=game).decisions:
        filtered = hint(d.position, d.dice, 2, every_move=False)
        every = hint(d.position, d.dice, 2, every_move=True)
        assert hint(d.position, d.dice, 2) == (every if game == "gioul" else filtered)
        three = hint(d.position, d.dice, 3, every_move=True)
        deeper = [h for h in three if h.plies == 3]
        kept = [h.move.notation for h in every[:6] if h.loss <= 0.16]
        assert sorted(h.move.notation for h in deeper) == sorted(kept)
        assert {h.move.notation: h.evaluation for h in three if h.plies == 2} == \
            {h.move.notation: h.evaluation for h in every if h.move.notation not in kept}
        filtered3 = {h.move.notation: h.evaluation for h in hint(d.position, d.dice, 3, every_move=False)
                     if h.plies == 3}
        assert all(h.evaluation == filtered3[h.move.notation] for h in deeper if h.move.notation in filtered3)
        assert sorted(h.move.notation for h in every) == sorted(h.move.notation for h in filtered)
        assert all(h.plies == 2 for h in every) and [h.loss for h in every] == sorted(h.loss for h in every)
        searched = {h.move.notation: h.evaluation for h in filtered if h.plies == 2}
        assert 1 <= len(searched) <= len(every)
        dropped += len(every) - len(searched)
        assert all(h.evaluation == searched[h.move.notation] for h in every if h.move.notation in searched)
        assert hint(d.position, d.dice, 1, every_move=True) == hint(d.position, d.dice, 1)
    assert dropped  # moves the filter leaves at 1 ply
    with pytest.raises(InvalidArgumentError, match="every_move"):
        hint(d.position, d.dice, 2, every_move=1)  # type: ignore[call-overload]


def test_net_policy_plays_the_hint(corpus: list[Position]) -> None:
    record = play_game(seed=11, policy="net", max_plies=30)
    for position, ply in zip(record.positions(), record.plies):
        played = position.play(ply.notation, ply.dice)
        best = hint(position, ply.dice)[0].move.position
        assert played == best


def test_net2_policy_plays_the_two_ply_hint() -> None:
    record = play_game(seed=5, policy="net2", max_plies=12)
    for position, ply in zip(record.positions(), record.plies):
        played = position.play(ply.notation, ply.dice)
        assert played == hint(position, ply.dice, plies=2)[0].move.position


# Per game: a start for rollouts with the net and luck (for Gioul, a chain's rest handed over) and its games.
LUCK_JOBS = {"fevga": (Position.initial(), 72), "gioul": (GioulPosition.from_id("__4AAAj__AABAAAA5VhH"), 216)}


def test_net_policies_in_rollouts_and_luck_with_the_net(game: str) -> None:
    start, games = LUCK_JOBS[game]
    plain = rollout(start, games=games, seed=3, policy="net", workers=2, progress=False)
    lucky = rollout(start, games=games, seed=3, policy="net", workers=2, progress=False, luck=True)
    assert plain.policy == "net" and plain.games == games
    # the same games, the luck only adjusts
    assert (lucky.raw_equity, lucky.win, lucky.mean_length) == (plain.equity, plain.win, plain.mean_length)
    assert lucky.raw_equity_se == plain.equity_se
    assert abs(lucky.equity - plain.equity) < 1.959964 * plain.equity_se
    assert lucky.equity_se < plain.equity_se


@pytest.mark.parametrize(("policy", "games"), [("net", 1296 + 72), ("net2", 4)])
def test_rollouts_with_the_net_do_not_depend_on_workers(game: str, policy: str, games: int) -> None:
    """The same games on one thread or two (stratified for "net"), from Fevga's start or a Gioul
    state whose pair was handed over; not the heuristic's games."""
    start = Position.initial() if game == "fevga" else handed_pair()
    common = dict(games=games, seed=9, progress=False, stratify=policy == "net")
    one = rollout(start, policy=policy, workers=1, **common)  # type: ignore[arg-type]
    two = rollout(start, policy=policy, workers=2, **common)  # type: ignore[arg-type]
    assert one == two and one.games == games
    heuristic = rollout(start, policy="heuristic", workers=1, **common)  # type: ignore[arg-type]
    assert one.equity != heuristic.equity or one.win != heuristic.win


@pytest.mark.parametrize("plies", [-1, 4, 1.5, True, "2"])
def test_evaluate_rejects_bad_plies(plies: object) -> None:
    with pytest.raises(InvalidArgumentError, match="plies"):
        evaluate(Position.initial(), plies)  # type: ignore[arg-type]


@pytest.mark.parametrize("plies", [0, 5, -2])
def test_hint_rejects_bad_plies(plies: int) -> None:
    with pytest.raises(InvalidArgumentError, match="plies"):
        hint(Position.initial(), (6, 5), plies)


def test_hint_rejects_a_finished_game_and_bad_dice() -> None:
    finished = Position.from_counts([15] + [0] * 24, [0] * 24 + [15], BLACK)
    with pytest.raises(InvalidArgumentError, match="finished"):
        hint(finished, (6, 5))
    with pytest.raises(fevga.InvalidDiceError):
        hint(Position.initial(), (7, 1))


def test_unknown_policy_is_one_clear_error() -> None:
    with pytest.raises(InvalidArgumentError, match="net2"):
        play_game(seed=1, policy="net3")


# ---------------------------------------------------------------------------------------
# Weights files


def test_shipped_net_has_provenance_and_round_trips(tmp_path) -> None:
    net = Net.default()
    for key in ("command", "config", "games", "fevga_version", "trainer"):
        assert key in net.provenance
    path = net.save(tmp_path / "copy.npz")
    again = Net.load(path)
    assert again == net and again.checksum == net.checksum and again.provenance == net.provenance
    assert pickle.loads(pickle.dumps(net)) == net


def _archive(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _meta(net: Net, **changes: object) -> np.ndarray:
    meta = {"format": "fevga-net", "version": FORMAT_VERSION, "encoding": "fevga-1", "inputs": core_net.INPUTS,
            "hidden": net.hidden, "sha256": net.checksum, "provenance": {}}
    meta.update(changes)
    return np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)


def bad_files() -> dict[str, tuple[bytes, str]]:
    net = Net.initial(8, seed=3)
    params = np.array(net.params)
    good = net.to_bytes()
    flipped = bytearray(good)
    nan_params = params.copy()
    nan_params[5] = np.nan
    return {
        "empty": (b"", "not a fevga net file"),
        "text": (b"hello, world\n" * 10, "not a fevga net file"),
        "truncated": (good[: len(good) // 2], "not a fevga net file"),
        "foreign npz": (_archive(weights=params), "not a fevga net file"),
        "meta not json": (_archive(meta=np.frombuffer(b"{oops", dtype=np.uint8), params=params), "not valid JSON"),
        "meta lacks keys": (_archive(meta=np.frombuffer(b"{}", dtype=np.uint8), params=params), "lacks"),
        "other format": (_archive(meta=_meta(net, format="gnubg"), params=params), "format"),
        "newer version": (_archive(meta=_meta(net, version=FORMAT_VERSION + 1), params=params), "version"),
        "other encoding": (_archive(meta=_meta(net, encoding="fevga-0"), params=params), "encoding"),
        "hidden too big": (_archive(meta=_meta(net, hidden=100000), params=params), "hidden size"),
        "wrong size": (_archive(meta=_meta(net, hidden=9), params=params), "do not fit"),
        "wrong dtype": (_archive(meta=_meta(net), params=params.astype(np.float64)), "dtype float64, expected float32"),
        "checksum": (_archive(meta=_meta(net, sha256="0" * 64), params=params), "checksum"),
        "not finite": (_archive(meta=_meta(net, sha256=__import__("hashlib").sha256(nan_params.tobytes()).hexdigest()),
                                params=nan_params), "finite"),
        "pickled object": (_archive(meta=_meta(net), params=np.array([object()], dtype=object)), "not a fevga net file"),
        "corrupted byte": (bytes(flipped[:-30]) + bytes(30), "not a fevga net file"),
    }


@pytest.mark.parametrize("case", sorted(bad_files()))
def test_bad_weights_files_are_one_clear_error(tmp_path, case: str) -> None:
    data, message = bad_files()[case]
    path = tmp_path / "bad.npz"
    path.write_bytes(data)
    with pytest.raises(NetFileError, match=message):
        Net.load(path)


def test_missing_weights_file_and_directory(tmp_path) -> None:
    with pytest.raises(NetFileError, match="cannot read"):
        Net.load(tmp_path / "nothing.npz")
    with pytest.raises(NetFileError):
        Net.load(tmp_path)


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="hidden"):
        Net(np.zeros(10, dtype=np.float32), 0)
    with pytest.raises(InvalidArgumentError, match="parameters"):
        Net(np.zeros(10, dtype=np.float32), 8)
    params = np.array(Net.initial(8).params)
    params[0] = np.inf
    with pytest.raises(InvalidArgumentError, match="finite"):
        Net(params, 8)


_SIZE8 = Net.initial(8).params.size


@pytest.mark.parametrize("params, needle", [
    ("abc", "must be a flat array of float32 parameters"),
    (None, "must be a flat array"),
    (object(), "not an array of Python objects"),
    ([[1.0, 2.0], [3.0]], "cannot be read as"),
    ([2**70] * _SIZE8, "not an array of Python objects"),
    (np.zeros(_SIZE8, dtype=np.complex64), "not an array of complex64"),
    (np.zeros(_SIZE8, dtype=bool), "not an array of bool"),
    (np.array(["1"] * _SIZE8), "not an array of <U1"),
    (np.zeros((_SIZE8, 1), dtype=np.float32), f"shape ({_SIZE8}, 1) do not fit"),
    (np.zeros(_SIZE8 + 1, dtype=np.float32), "do not fit a net of 8 hidden units"),
    (np.full(_SIZE8, 1e300), "must be finite"),  # float64 beyond float32: inf after the cast
    (np.full(_SIZE8, np.nan), "must be finite"),
])
def test_a_net_from_an_array_is_validated_before_the_core(params: object, needle: str) -> None:
    with pytest.raises(InvalidArgumentError, match="net parameters") as info:
        Net(params, 8)  # type: ignore[arg-type]
    assert needle in str(info.value), str(info.value)


@pytest.mark.parametrize("provenance, needle", [
    (5, "must be a dict or None"), ({"x": float("nan")}, "not JSON data"), ({"x": object()}, "not JSON data"),
    ({"x": "y" * (1 << 20)}, "over the limit"), ({"deep": json.loads("[" * 40 + "]" * 40)}, "nests"),
])
def test_a_net_provenance_must_be_what_a_net_file_can_hold(provenance: object, needle: str) -> None:
    with pytest.raises(InvalidArgumentError, match=needle):
        Net(Net.initial(8).params, 8, provenance)  # type: ignore[arg-type]


@pytest.mark.parametrize("hidden, seed", [(2**70, 0), ("8", 0), (8, -1), (8, "x"), (8, 2**200)])
def test_net_initial_checks_its_arguments(hidden: object, seed: object) -> None:
    with pytest.raises(InvalidArgumentError):
        Net.initial(hidden, seed)  # type: ignore[arg-type]


def test_net_params_are_read_only() -> None:
    with pytest.raises(ValueError):
        Net.default().params[0] = 1.0


def test_zip_with_extra_member_is_rejected(tmp_path) -> None:
    net = Net.initial(8)
    path = tmp_path / "extra.npz"
    net.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("extra.npy", b"junk")
    with pytest.raises(NetFileError, match="not a fevga net file"):
        Net.load(path)


# ---------------------------------------------------------------------------------------
# Rollout move filter, stopping rule, expectimax over the net


def test_rollout_candidates_are_the_nets_top_moves(corpus: list[Position]) -> None:
    position = corpus[25]
    ranking = fevga.rollout_moves(position, (5, 3), games=72, seed=1, policy="net", candidates=3, workers=1,
                                  progress=False)
    top = [h.move.position for h in hint(position, (5, 3))[:3]]
    assert sorted(m.move.position.id for m in ranking) == sorted(p.id for p in top)
    with pytest.raises(InvalidArgumentError, match="candidates"):
        fevga.rollout_moves(position, (5, 3), games=72, candidates=0)


def test_stopping_rule_stops_separated_moves_and_keeps_the_best() -> None:
    position = Position.from_id("AABVW74AABbdwAAA")  # 8 moves for 6-3, short games (tests/test_rollout.py)
    games = 4 * 1296
    full = fevga.rollout_moves(position, "6-3", games=games, seed=4, policy="heuristic", workers=2, progress=False)
    early = fevga.rollout_moves(position, "6-3", games=games, seed=4, policy="heuristic", workers=2, progress=False,
                                stop_early=True)
    stopped = [m for m in early if m.stopped]
    assert stopped and not early[0].stopped and early[0].result.games == games
    for m in stopped:
        assert m.result.games < games and m.diff + 1.959963984540054 * m.diff_se < 0
    # the moves played to the end saw the same games as in the full rollout
    by_id = {m.move.position.id: m for m in full}
    for m in early:
        if not m.stopped:
            assert m.result.equity == pytest.approx(by_id[m.move.position.id].result.equity, abs=1e-12)


def test_expectimax_over_the_net_is_the_one_ply_evaluation(corpus: list[Position]) -> None:
    position = corpus[33]
    assert fevga.expectimax(position, 1, "net") == pytest.approx(evaluate(position, 1).equity, abs=1e-12)
    assert fevga.expectimax(position, 0, "net") == pytest.approx(evaluate(position).equity, abs=1e-12)


def test_lookahead_policy_looks_ahead_over_the_heuristic_even_beside_a_net() -> None:
    """A job with a net (the other side plays "net") must not change what "lookahead" means."""
    from fevga.search import static_value as heuristic_value
    from fevga.search import lookahead

    reference = lookahead(heuristic_value)
    record = play_game(seed=3, policy=("lookahead", "net"), max_plies=14)
    positions = record.positions()
    checked = 0
    for position, ply in zip(positions, record.plies):
        if ply.turn != WHITE:
            continue
        moves = position.legal_moves(ply.dice)
        assert position.play(ply.notation, ply.dice) == reference(position, ply.dice, moves).position
        checked += 1
    assert checked == 7


# ---------------------------------------------------------------------------------------
# Hostile input at the net's core entry points: a clear error, never a crash


def _bad_rows() -> np.ndarray:
    rows = fevga.batch.to_array([Position.initial()] * 3)
    rows[1, 5] = 255
    return rows


def test_core_net_rejects_bad_rows_targets_and_rates() -> None:
    from fevga_core import search, train

    core = Net.default()._core
    tables = tables_of("default")
    with pytest.raises(fevga.InvalidPositionError, match="row 1"):
        core.evaluate_rows(_bad_rows())
    good = fevga.batch.to_array([Position.initial()] * 2)
    with pytest.raises(fevga.InvalidPositionError):
        core.evaluate_rows(np.zeros((2, 10), dtype=np.uint8))
    with pytest.raises(InvalidArgumentError, match="targets"):
        core.train_rows(good, np.zeros((3, 3)), 0.01)
    with pytest.raises(InvalidArgumentError, match="probabilities"):
        core.train_rows(good, np.array([[0.5, 0.7, 0.0], [0.5, 0.0, 0.0]]), 0.01)
    with pytest.raises(InvalidArgumentError, match="rate"):
        core.train_rows(good, np.array([[0.5, 0.1, 0.0]] * 2), float("nan"))
    with pytest.raises(fevga.InvalidPositionError):
        core_net.encode_row(b"\xff" * 51)
    with pytest.raises(fevga.InvalidPositionError):
        core_net.encode_row(b"\x00" * 10)
    with pytest.raises(InvalidArgumentError, match="plies"):
        search.evaluate_position(core, tables, Position.initial(), 99, 0)
    with pytest.raises(fevga.InvalidRulesError, match="flags"):
        search.evaluate_position(core, tables, Position.initial(), 0, -1)
    with pytest.raises(fevga.InvalidRulesError, match="flags"):
        search.evaluate_position(core, tables, Position.initial(), 0, 32)  # Gioul's bit
    with pytest.raises(TypeError, match="CorePosition or a CoreGioul"):
        search.evaluate_position(core, tables, Position.initial()._row(), 0, 0)
    with pytest.raises(TypeError, match="Gioul net"):  # a Gioul state wants a Gioul net
        search.evaluate_position(core, tables, fevga.GioulPosition.initial(), 0, 32)
    for dice in ((0, 1), (7, 2), (3, 255)):
        with pytest.raises(fevga.InvalidDiceError):
            search.rank_position(core, tables, Position.initial(), dice[0], dice[1], 1, 0, fevga.Move)
        with pytest.raises(fevga.InvalidDiceError):
            search.rank_batch(core, tables, good[:1], np.array([dice], dtype=np.uint8), 1, 0)
    out = np.empty(2, dtype=np.int32)
    with pytest.raises(fevga.InvalidDiceError):
        search.choose_rows(core, tables, good, np.array([[1, 2], [0, 3]], dtype=np.uint8), 1, 0, out)
    with pytest.raises(InvalidArgumentError, match="out"):
        search.choose_rows(core, tables, good, np.array([[1, 2], [2, 3]], dtype=np.uint8), 1, 0,
                           np.empty(1, dtype=np.int32))
    with pytest.raises(fevga.InvalidPositionError, match="row 1"):
        search.evaluate_rows(core, tables, _bad_rows(), np.empty((3, 3)))
    with pytest.raises(InvalidArgumentError, match="games"):
        train.selfplay_samples(core, tables, 0, 1, 0, -1, 0.7)
    with pytest.raises(InvalidArgumentError, match="games"):
        train.selfplay_samples(core, tables, 0, 1, 0, 10**12, 0.7)
    with pytest.raises(InvalidArgumentError, match="lam"):
        train.selfplay_samples(core, tables, 0, 1, 0, 1, 1.5)
    with pytest.raises(InvalidArgumentError, match="hidden"):
        core_net.CoreNet(np.zeros(10, dtype=np.float32), 600)


def test_batch_evaluate_rejects_bad_rows_and_workers() -> None:
    with pytest.raises(fevga.InvalidPositionError):
        fevga.batch.evaluate(_bad_rows())
    with pytest.raises(InvalidArgumentError, match="workers"):
        fevga.batch.evaluate(fevga.batch.to_array([Position.initial()]), workers=0)


# ---------------------------------------------------------------------------------------
# Match play: evaluations and hints at a match score


def test_at_double_match_point_the_match_chance_is_the_win_chance(corpus: list[Position]) -> None:
    position = corpus[30]
    e = evaluate(position, score=(4, 4), length=5)
    assert e.match_chance == pytest.approx(e.win, abs=1e-12)
    for h in hint(position, (5, 2), score=(4, 4), length=5):  # mars is worth nothing: ranked by P(win)
        assert h.evaluation.match_chance == pytest.approx(h.evaluation.win, abs=1e-12)
    ranked = hint(position, (5, 2), score=(4, 4), length=5)
    assert [h.evaluation.win for h in ranked] == sorted((h.evaluation.win for h in ranked), reverse=True)


def test_match_chance_follows_the_match_equity_table(corpus: list[Position]) -> None:
    from fevga.match import match_equity_table, match_winning_chance

    position = corpus[31]
    e = evaluate(position, score=(1, 3), length=7)
    table = match_equity_table(7)
    away = (7 - (1, 3)[position.turn], 7 - (1, 3)[1 - position.turn])
    assert e.match_chance == pytest.approx(match_winning_chance(table, away, e.win, e.win_mars, e.lose_mars))
    assert evaluate(position).match_chance is None
    with pytest.raises(InvalidArgumentError, match="score"):
        evaluate(position, score=(1, 3))
    with pytest.raises(InvalidArgumentError, match="score"):
        evaluate(position, score=(7, 0), length=7)


def test_a_deep_evaluation_answers_ctrl_c(corpus: list[Position]) -> None:
    """A 3-ply evaluation of a mid-game position takes tens of seconds; Ctrl-C stops it at once."""
    import os
    import signal
    import threading
    import time

    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    began = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            evaluate(corpus[40], plies=3)
    finally:
        timer.cancel()
    assert time.monotonic() - began < 20
