"""The core's Gioul judgment (fevga_core/gioul.pyx "Judgment", docs/net.md "Gioul net"): the
"net" and "net2" policies, the 2-ply value with chains and hand-overs followed through, the
Gioul bear-off override, and what the core refuses.

The 2-ply values are checked against a brute-force computation in Python over
GioulPosition.legal_moves and the net's row evaluation: the definition, written out.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from boards import BLACK, WHITE, counts, handed_pair, mid_chain

import fevga
from fevga import GioulPosition, InvalidArgumentError, InvalidDiceError, Net
from fevga.bearoff.core_tables import tables_of
from fevga.errors import NetGameError
from fevga.game import play_game
from fevga.gioul import to_array
from fevga.strength import gioul_duel
from fevga_core import constants
from fevga_core import net as core_net
from fevga_core import rollout as core_rollout
from fevga_core.board import ROLL_WEIGHTS, ROLLS
from fevga_core.race import Tables
from fevga_core.search import FILTER_KEEP, FILTER_MARGIN, evaluate_position, rank_position

NET, NET2 = constants.POLICY_IDS["net"], constants.POLICY_IDS["net2"]
SHIPPED = Path(__file__).resolve().parents[1] / "benchmarks" / "nets" / "gioul-net-1.npz"

Value = tuple[float, float, float]


@pytest.fixture(scope="module")
def net() -> Net:
    return Net.load(SHIPPED)


# ---------------------------------------------------------------------------------------
# The definition, brute force (no tables: the net or the final result)

def evaluate_state(net: object, state: GioulPosition, plies: int, tables: Tables | None = None) -> Value:
    """The core's value of a Gioul state (search.evaluate_position), no tables unless given."""
    return evaluate_position(net, Tables() if tables is None else tables, state, plies, constants.FLAG_GIOUL)


def rank_moves(net: object, state: GioulPosition, d1: int, d2: int, plies: int,
               tables: Tables | None = None, every_move: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The core's ranking of a Gioul state's next decision (search.rank_position): (values, plies used)."""
    _, values, used = rank_position(net, Tables() if tables is None else tables, state, d1, d2, plies,
                                    constants.FLAG_GIOUL, fevga.GioulMove, every_move)
    return values, used


def static(net: Net, state: GioulPosition) -> Value:
    """The value for the side to decide: the final result, else the net."""
    winner = state.winner()
    if winner is not None:
        mars = float(state.points() == 2)
        return (1.0, mars, 0.0) if winner == state.turn else (0.0, 0.0, mars)
    win, win_mars, lose_mars = net._core.evaluate_rows(to_array([state]))[0]
    return (float(win), float(win_mars), float(lose_mars))


def equity(v: Value) -> float:
    return 2.0 * v[0] - 1.0 + v[1] - v[2]


def for_mover(v: Value, same: bool) -> tuple[Value, float]:
    """A value for the side to decide as the mover sees it, and its equity for the mover."""
    return (v, equity(v)) if same else ((1.0 - v[0], v[2], v[1]), -equity(v))


def choose(net: Net, state: GioulPosition, moves: list[fevga.GioulMove], plies: int,
           every_move: bool = False) -> tuple[int, Value]:
    """The move `plies`-ply search picks for the mover of `state` and its value (first on ties).
    With `every_move` (the root's search only): every move searched at 2 plies, and from 3
    plies on the filter drawn from those 2-ply values instead of the 1-ply ones."""
    if every_move and plies >= 2:
        ranked = [searched(net, state, m, 2) for m in moves]
        if plies == 2:
            best = max(range(len(moves)), key=lambda k: (ranked[k][1], -k))
            return best, ranked[best][0]
    else:
        ranked = [for_mover(static(net, m.position), m.position.turn == state.turn) for m in moves]
        if plies == 1:
            best = max(range(len(moves)), key=lambda k: (ranked[k][1], -k))
            return best, ranked[best][0]
    order = sorted(range(len(moves)), key=lambda k: (-ranked[k][1], k))
    kept = [k for k in order if ranked[k][1] >= ranked[order[0]][1] - FILTER_MARGIN][:FILTER_KEEP]
    deeper = {k: searched(net, state, moves[k], plies) for k in kept}
    best = max(kept, key=lambda k: (deeper[k][1], -kept.index(k)))
    return best, deeper[best][0]


def searched(net: Net, state: GioulPosition, move: fevga.GioulMove, plies: int) -> tuple[Value, float]:
    """`move`'s value searched at `plies` >= 2 for the mover of `state`, and its equity: the rest
    of the roll by 1-ply choices, then the value at plies - 1."""
    settled = finish_roll(net, move.position)
    return for_mover(ply_value(net, settled, plies - 1), settled.turn == state.turn)


def finish_roll(net: Net, state: GioulPosition) -> GioulPosition:
    """The rest of the roll (blocks, hand-overs), each decision by the 1-ply choice of its mover."""
    while state.pending and state.winner() is None:
        moves = list(state.legal_moves())
        state = moves[choose(net, state, moves, 1)[0]].position
    return state


def ply_value(net: Net, state: GioulPosition, plies: int) -> Value:
    if state.winner() is not None or plies == 0:
        return static(net, state)
    if state.pending:
        return choose(net, state, list(state.legal_moves()), plies)[1]
    total = np.zeros(3)
    for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
        total += weight * np.array(choose(net, state, list(state.legal_moves((d1, d2))), plies)[1])
    return (float(total[0]), float(total[1]), float(total[2]))


def late_race_chain() -> GioulPosition:
    """White in the middle of a 5-5 chain near the end: 5s, then 6s, with a hand-over possible."""
    return GioulPosition.from_counts(counts({1: 2, 3: 1, 6: 2, 8: 1}), counts({2: 2, 5: 2, 19: 1}), WHITE,
                                     next_roll=(4, 4), dice=(5, 5, 6, 6, 6, 6), roller=WHITE)


def chain_handed_over() -> GioulPosition:
    """From a heuristic game (seed 1): of its 3 moves, some leave the chain's rest to the mover,
    some hand it over to the opponent."""
    return GioulPosition.from_id("AAiq9-AA6qq1CAAA85hH")


STATES = {"mid chain": mid_chain, "handed pair": handed_pair, "late race chain": late_race_chain,
          "chain handed over": chain_handed_over}


@pytest.mark.parametrize("plies", [2, 3])
@pytest.mark.parametrize("name", sorted(STATES))
def test_deeper_plies_value_a_chain_and_a_hand_over_as_the_brute_force_definition(net: Net, name: str,
                                                                                   plies: int) -> None:
    state = STATES[name]()
    assert state.pending
    if name == "chain handed over":
        nexts = {(m.position.turn == state.turn, bool(m.position.pending)) for m in state.legal_moves()}
        assert {(True, True), (False, True)} <= nexts
    brute = ply_value(net, state, plies)  # the decision searched at `plies`: what evaluate(plies - 1) gives
    assert evaluate_state(net._core, state, plies - 1) == pytest.approx(brute, abs=1e-12)
    # expectimax consults the Gioul tables, which a deeper search can reach
    tabled = evaluate_state(net._core, state, plies - 1, tables_of("gioul-default"))
    assert fevga.expectimax(state, plies - 1, "net", net=net) == pytest.approx(equity(tabled), abs=1e-12)
    moves = list(state.legal_moves())
    values, used = rank_moves(net._core, state, 0, 0, plies)
    best, value = choose(net, state, moves, plies)
    assert values[best] == pytest.approx(value, abs=1e-12) and used[best] == plies
    assert max(values[used == plies].tolist(), key=lambda v: equity(tuple(v))) == pytest.approx(value, abs=1e-12)
    hints = fevga.hint(state, None, plies, net=net, every_move=False)  # the public ranking is the core's
    assert hints[0].move.steps == moves[best].steps and hints[0].plies == plies


@pytest.mark.parametrize("plies", [2, 3])
@pytest.mark.parametrize("name", ["mid chain", "chain handed over"])
def test_every_move_ranks_every_move_at_2_plies_then_its_best_few_deeper(net: Net, name: str, plies: int) -> None:
    """every_move (Gioul's default search): every move valued at 2 plies; at 3 plies the best 6
    of those within 0.16 searched at 3, the rest left at their 2-ply values: as the brute-force
    definition picks and values them, and as fevga.hint ranks them by default."""
    state = STATES[name]()
    moves = list(state.legal_moves())
    values, used = rank_moves(net._core, state, 0, 0, plies, every_move=True)
    twos = [searched(net, state, m, 2) for m in moves]
    for k in range(len(moves)):
        if used[k] == 2:
            assert tuple(values[k]) == pytest.approx(twos[k][0], abs=1e-12)
    deeper = int((used == plies).sum())
    assert deeper == (len(moves) if plies == 2 else min(FILTER_KEEP, sum(
        t[1] >= max(e for _, e in twos) - FILTER_MARGIN for t in twos)))
    best, value = choose(net, state, moves, plies, every_move=True)
    assert used[best] == plies and tuple(values[best]) == pytest.approx(value, abs=1e-12)
    hints = fevga.hint(state, None, plies, net=net)
    assert hints[0].move.steps == moves[best].steps and [h.plies for h in hints].count(plies) == deeper
    assert hints == fevga.hint(state, None, plies, net=net, every_move=True)


def test_net2_value_of_a_roll_due_averages_the_21_rolls(net: Net) -> None:
    state = finish_roll(net, late_race_chain())
    assert not state.pending
    assert evaluate_state(net._core, state, 1) == pytest.approx(ply_value(net, state, 1), abs=1e-12)
    assert evaluate_state(net._core, state, 0) == static(net, state)


def test_the_net_policies_play_the_move_rank_moves_ranks_best(net: Net) -> None:
    state = mid_chain()
    for plies, policy in ((1, "net"), (2, "net2")):
        values, used = rank_moves(net._core, state, 0, 0, plies)
        deepest = [k for k in range(len(values)) if used[k] == used.max()]
        best = max(deepest, key=lambda k: (equity(tuple(values[k])), -k))
        id = constants.POLICY_IDS[policy]
        _, decisions = core_rollout.record_gioul_game(5, 0, False, id, id, state, net._core, net._core)
        assert decisions[0][7] == list(state.legal_moves())[best].steps
        hints = fevga.hint(state, None, plies, net=net, every_move=False)  # net2: the move filter's
        assert hints[0].move.steps == decisions[0][7] and hints[0].plies == plies


# ---------------------------------------------------------------------------------------
# Bear-off override

def covered_race(rolls: int) -> GioulPosition:
    """Both sides with a few checkers home, a roll due; `rolls` = each side's next roll."""
    return GioulPosition.from_counts(counts({1: 2, 3: 1, 5: 1}), counts({2: 2, 4: 2}), WHITE,
                                     next_roll=(rolls, rolls))


def test_the_gioul_tables_override_the_net_in_a_covered_race(net: Net) -> None:
    tables = tables_of("gioul-default")
    state = covered_race(4)  # both sides' doubles are chains: what the Gioul tables assume
    exact = core_rollout.race(state.board()._row(), tables)
    assert exact is not None
    win, win_mars, lose_mars = evaluate_state(net._core, state, 0, tables)
    assert (win, win_mars, lose_mars) == pytest.approx(exact[1:], abs=1e-15)
    assert evaluate_state(net._core, state, 0) != (win, win_mars, lose_mars)  # no tables: the net
    early = covered_race(3)  # the next doubles are not chains: the tables do not apply
    assert evaluate_state(net._core, early, 0, tables) == evaluate_state(net._core, early, 0)
    # a move into a covered race is valued exactly, for the mover
    values, _ = rank_moves(net._core, state, 6, 5, 1, tables)
    for move, value in zip(state.legal_moves("6-5"), values):
        after = move.position
        if after.winner() is None and not after.pending:
            theirs = core_rollout.race(after.board()._row(), tables)
            assert theirs is not None and tuple(value) == pytest.approx((1 - theirs[1], theirs[3], theirs[2]), abs=1e-12)


# ---------------------------------------------------------------------------------------
# Policies in games and rollouts

def test_net2_games_are_seeded_and_duels_run(net: Net) -> None:
    first = play_game(game="gioul", seed=11, policy=("net2", "net"), net=net)
    assert first == play_game(game="gioul", seed=11, policy=("net2", "net"), net=net)
    assert first.policies == ("net2", "net") and first.final.is_game_over()
    duel = gioul_duel("net2", "net", games=4, seed=3, net_a=net, net_b=net, workers=2)
    assert duel == gioul_duel("net2", "net", games=4, seed=3, net_a=net, net_b=net, workers=1)


# ---------------------------------------------------------------------------------------
# What the core refuses

def test_bad_inputs_are_refused(net: Net) -> None:
    state = mid_chain()
    with pytest.raises(InvalidArgumentError, match="plies"):
        evaluate_state(net._core, state, 3)
    with pytest.raises(InvalidArgumentError, match="plies"):
        rank_moves(net._core, state, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match=r"plies 4 must be in 1\.\.3"):  # a move choice: one ply deeper
        rank_moves(net._core, state, 0, 0, 4)
    with pytest.raises(InvalidDiceError):
        rank_moves(net._core, GioulPosition.initial(), 7, 1, 1)
    finished = GioulPosition.from_counts(counts({}), counts({24: 15}), BLACK)
    with pytest.raises(InvalidArgumentError, match="finished"):
        rank_moves(net._core, finished, 6, 5, 1)
    fevga_net = core_net.CoreNet(np.zeros(core_net.param_count(8), dtype=np.float32), 8)
    with pytest.raises(TypeError):  # a Fevga net is no Gioul net, by type
        evaluate_state(fevga_net, state, 0)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="need a net"):
        core_rollout.gioul_games(1, 0, 1, False, NET2, NET)
    rows = to_array([state]).tobytes()
    sums, first, cross, lengths = (np.zeros((1, len(core_rollout.SUM_FIELDS))), np.zeros((1, 36, 3)),
                                   np.zeros((1, 1)), np.zeros((1, core_rollout.MAX_LENGTH), dtype=np.int64))
    stop = np.zeros(1, dtype=np.int32)
    flags = constants.FLAG_GIOUL
    with pytest.raises(NetGameError, match="Gioul job"):
        core_rollout.run_block(rows, WHITE, flags, NET, NET, None, Tables(), fevga_net, None, False, False, 100.0,
                               False, 1, 0, 1, sums, first, cross, lengths, stop)
    with pytest.raises(NetGameError, match="Fevga job"):
        core_rollout.run_block(state.board()._row(), WHITE, 0, NET, NET, None, Tables(), net._core, None, False,
                               False, 100.0, False, 1, 0, 1, sums, first, cross, lengths, stop)
    with pytest.raises(InvalidArgumentError, match="need a net"):
        core_rollout.run_block(rows, WHITE, flags, NET2, NET2, None, Tables(), None, None, False, False, 100.0,
                               False, 1, 0, 1, sums, first, cross, lengths, stop)
    with pytest.raises(InvalidArgumentError, match="plies"):
        fevga.expectimax(state, 3, "net", net=net)
    with pytest.raises(InvalidArgumentError, match="'net' only"):
        fevga.expectimax(state, 1, "heuristic")
