"""Gioul bear-off tables (docs/bearoff.md "Gioul"): brute force, chain vectors, seeded games, files.

In a Gioul race no die changes hands (docs/rules.md 11.7) and every double from a player's
fourth roll on is a chain: four d, four d+1, ... four 6s, block by block. The brute-force
solvers of both games (test_bearoff_bruteforce.py) derive the tables' values independently,
playing each block of a chain as its own decision of the same player; the chain move lists
are checked here against the same solver's `chain_results`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fevga import BLACK, WHITE, GioulPosition, Position
from fevga.bearoff import (
    OneSidedDB,
    TwoSidedDB,
    best_move,
    covers,
    default_one_sided,
    evaluate,
    open_db,
    race_estimate,
)
from fevga.bearoff.fileformat import write_table
from fevga.errors import BearoffFileError, InvalidArgumentError, MissingBearoffError
from fevga.game import play_game
from boards import SIX, side25
from fevga_core import bearoff as core
from test_bearoff_bruteforce import ROLLS, chain_results

pytestmark = pytest.mark.usefixtures("private_cache")


def race(me: tuple[int, ...], them: tuple[int, ...], turn: int = WHITE, next_roll: tuple[int, int] = (4, 4)) -> GioulPosition:
    """A Gioul race state, `me` = the side of `turn`, a roll due."""
    white, black = (me, them) if turn == WHITE else (them, me)
    return GioulPosition.from_counts(side25(white), side25(black), turn, next_roll=next_roll)


def test_chain_move_lists_match_brute_force() -> None:
    rng = np.random.default_rng(8)
    for _ in range(60):
        side = tuple(int(x) for x in rng.multinomial(int(rng.integers(1, 9)), [1 / 6] * 6))
        for d in range(1, 7):
            ours = {core.unrank(r, 6) for r in core.successors(side, d, d, "gioul")}
            assert ours == set(chain_results(side, d)), (side, d)
        assert core.successors(side, 6, 6, "gioul") == core.successors(side, 6, 6)  # 6-6: one block
        assert core.successors(side, 5, 2, "gioul") == core.successors(side, 5, 2)  # non-doubles as in Fevga


# --- chain vectors --------------------------------------------------------------------------


def test_a_one_one_chain_bears_off_far_more_than_four_pips(g15: OneSidedDB, db: OneSidedDB) -> None:
    fevga = OneSidedDB.build(6, 4)
    four = (0, 0, 0, 0, 0, 4)  # 24 pips
    # Fevga's 1-1 moves four pips; Gioul's 1-1 is 24 dice (84 pips) and clears the board.
    assert all(sum(core.unrank(r, 6)) == 4 for r in core.successors(four, 1, 1))
    assert core.successors(four, 1, 1, "gioul") == [0]
    # Every Gioul double ends with a block of four 6s: four checkers at home always go off.
    assert g15.distribution(four)[1] == pytest.approx(6 / 36, abs=1e-15)
    assert fevga.distribution(four)[1] == pytest.approx(1 / 36, abs=1e-15)
    # One checker on the 6-point: 1-1 also bears it off (Fevga: 27 of 36 rolls, Gioul: 28).
    assert g15.distribution(SIX)[1] == pytest.approx(28 / 36, abs=1e-15)
    assert g15.mean_rolls(SIX) == pytest.approx(float(1 + Fraction(8, 36) * 1), abs=1e-15)
    # Fifteen on the 6-point: chains shorten the race a lot.
    assert g15.mean_rolls((0, 0, 0, 0, 0, 15)) < 0.7 * db.mean_rolls((0, 0, 0, 0, 0, 15))


def test_two_sided_chain_value(g6: TwoSidedDB) -> None:
    # One checker each on the 6-point: the side on roll finishes at once with 28 rolls of 36
    # (Fevga: 27; the 1-1 chain also clears it). The 8 misses (1-2, 1-3, 1-4, 2-3) leave it on
    # point 3 or lower, off with any next roll; so the side on roll loses only when it misses
    # and the opponent does not: P(win) = 7/9 + 2/9 * 2/9 = 67/81.
    p = Fraction(28, 36)
    win = p + (1 - p) * (1 - p)
    assert win == Fraction(67, 81)
    assert g6.win_probability(SIX, SIX) == pytest.approx(float(win), abs=1e-15)
    assert g6.equity(SIX, SIX) == pytest.approx(float(2 * win - 1), abs=1e-15)


# --- the tables against play through the engine's Gioul moves -------------------------------


def roll_finals(state: GioulPosition, roll: tuple[int, int] | None) -> set[GioulPosition]:
    """Every state at the end of the mover's roll (every block of a chain played), through
    the engine's Gioul move generator (GioulPosition.legal_moves)."""
    mover = state.turn
    frontier = {m.position for m in state.legal_moves(roll)}
    finals: set[GioulPosition] = set()
    while frontier:
        following: set[GioulPosition] = set()
        for s in frontier:
            if s.pending and s.winner() is None:
                assert s.turn == mover  # no hand-over in a race (docs/rules.md 11.7)
                following.update(m.position for m in s.legal_moves())
            else:
                finals.add(s)
        frontier = following
    return finals


def _race_states(seeds: range) -> list[GioulPosition]:
    out = []
    for seed in seeds:
        for s in play_game(game="gioul", seed=seed).positions():
            if s.pending or s.winner() is not None:
                continue
            if any(any(s.counts(c)[7:]) for c in (WHITE, BLACK)):
                continue  # not every checker home yet
            assert s.next_roll(WHITE) == s.next_roll(BLACK) == 4  # a race comes long after roll 4
            out.append(s)
    return out


def test_tables_agree_with_play_in_seeded_games(g15: OneSidedDB, g6: TwoSidedDB) -> None:
    """Every race state (roll due, all home) of seeded games: the one-sided mean is 1 + the
    roll-average of the best mean after each roll played through the engine, chains block by
    block; where the two-sided table covers both sides, likewise for the equity."""
    states = _race_states(range(60))
    assert len(states) > 40
    exact = 0
    for s in states:
        me, them = s.counts(s.turn), s.counts(1 - s.turn)
        expected = 1.0
        for (d1, d2), w in ROLLS:
            expected += float(w) * min(g15.mean_rolls(f.counts(s.turn)) for f in roll_finals(s, (d1, d2)))
        assert g15.mean_rolls(s) == pytest.approx(expected, abs=1e-12), s.id
        if sum(me[1:]) <= 6 and sum(them[1:]) <= 6:
            exact += 1
            total = 0.0
            for (d1, d2), w in ROLLS:
                total += float(w) * max(_mover_value(f, s.turn, g6) for f in roll_finals(s, (d1, d2)))
            assert g6.equity(s) == pytest.approx(total, abs=1e-12), s.id
            assert evaluate(s, bearoff=g6) == g6.equity(s)
    assert exact > 5


def _mover_value(after: GioulPosition, mover: int, ts: TwoSidedDB) -> float:
    if after.winner() is not None:
        return float(after.points()) if after.winner() == mover else -float(after.points())
    return -ts.equity(after.counts(after.turn), after.counts(mover))


def test_best_move_plays_chains_and_values_pending_states(g6: TwoSidedDB) -> None:
    rng = np.random.default_rng(3)
    for _ in range(25):
        me = tuple(int(x) for x in rng.multinomial(int(rng.integers(1, 7)), [1 / 6] * 6))
        them = tuple(int(x) for x in rng.multinomial(int(rng.integers(1, 7)), [1 / 6] * 6))
        pos = race(me, them)
        for dice in ((1, 1), (3, 3), (5, 2)):
            chosen = best_move(pos, dice, bearoff=g6)
            after = chosen.position
            finals = roll_finals(pos, dice)
            best = max(_mover_value(f, WHITE, g6) for f in finals)
            if after.pending and after.winner() is None:
                # the rest of the chain, played best, reaches the best final of the whole roll
                assert evaluate(after, bearoff=g6) == pytest.approx(best, abs=1e-12)
                following = best_move(after, None, bearoff=g6).position
                assert following.turn == WHITE or following.winner() is not None or not following.pending
            else:
                assert _mover_value(after, WHITE, g6) == pytest.approx(best, abs=1e-12)


def test_one_sided_best_move_and_estimate(g15: OneSidedDB) -> None:
    pos = race((0, 0, 0, 2, 3, 4), (3, 3, 3, 3, 3, 0))
    assert covers(pos, one_sided=g15)
    move = best_move(pos, (2, 2), one_sided=g15)
    finals = roll_finals(pos, (2, 2))
    assert min(g15.mean_rolls(f.counts(WHITE)) for f in finals) == pytest.approx(
        min(g15.mean_rolls(f.counts(WHITE)) for f in roll_finals_from(move.position)), abs=1e-12)
    estimate = race_estimate(pos, one_sided=g15)
    assert 0.0 < estimate.win < 1.0
    assert race_estimate(pos).win == estimate.win  # the default table of a Gioul position is Gioul's
    assert default_one_sided(game="gioul").game == "gioul"


def roll_finals_from(state: GioulPosition) -> set[GioulPosition]:
    """The end states of a roll already under way (a state with the mover's blocks pending)."""
    if not state.pending or state.winner() is not None:
        return {state}
    return roll_finals(state, None)


# --- the game is part of every table ----------------------------------------------------------


def test_files_record_the_game(tmp_path: Path, g6: TwoSidedDB) -> None:
    path = g6.save(tmp_path / "g.fbo")
    loaded = open_db(path)
    assert loaded.game == "gioul" and np.array_equal(loaded.equity_matrix(), g6.equity_matrix())  # type: ignore[union-attr]
    assert open_db(path, game="gioul").game == "gioul"
    with pytest.raises(BearoffFileError, match="holds a Gioul table, not a Fevga one"):
        open_db(path, game="fevga")
    fevga_path = OneSidedDB.build(6, 3).save(tmp_path / "f.fbo")
    with pytest.raises(BearoffFileError, match="holds a Fevga table, not a Gioul one"):
        open_db(fevga_path, game="gioul")
    one = OneSidedDB.build(6, 3, game="gioul")
    reread = open_db(one.save(tmp_path / "o.fbo"), kind="one-sided", game="gioul")
    assert reread.game == "gioul" and reread.mean_rolls(SIX) == one.mean_rolls(SIX)  # type: ignore[union-attr]
    # A file written before tables had a game (no "game" field) is a Fevga table.
    old = OneSidedDB.build(6, 2)
    meta = {"kind": "one-sided", "points": 6, "checkers": 2, "total": 15, "dtype": "float64",
            "entries": len(old), "strategy": "minimum expected rolls"}
    legacy = write_table(tmp_path / "legacy.fbo", meta, old._a)
    assert open_db(legacy).game == "fevga"
    with pytest.raises(BearoffFileError, match="Fevga table"):
        open_db(legacy, game="gioul")
    meta["game"] = "tavla"
    with pytest.raises(BearoffFileError, match="malformed header.*tavla"):
        open_db(write_table(tmp_path / "bad.fbo", meta, old._a))
    with pytest.raises(InvalidArgumentError):
        open_db(path, game="tavla")


def test_wrong_game_tables_are_refused(g15: OneSidedDB, g6: TwoSidedDB, db: OneSidedDB, two3: TwoSidedDB) -> None:
    fevga_one, fevga_two = db, two3
    gpos = race((0, 1, 2), (2, 0, 1))
    fpos = Position.from_counts(side25((0, 1, 2)), side25((2, 0, 1)), WHITE)
    for call in (
        lambda: fevga_one.mean_rolls(gpos),
        lambda: fevga_two.equity(gpos),
        lambda: evaluate(gpos, bearoff=fevga_two),
        lambda: evaluate(gpos, one_sided=fevga_one),
        lambda: best_move(gpos, (3, 1), bearoff=fevga_two),
        lambda: covers(gpos, one_sided=fevga_one),
        lambda: race_estimate(gpos, one_sided=fevga_one),
        lambda: g15.mean_rolls(fpos),
        lambda: g6.win_probability(fpos),
        lambda: evaluate(fpos, bearoff=g6),
        lambda: best_move(fpos, (3, 1), one_sided=g15),
        lambda: race_estimate(fpos, one_sided=g15),
    ):
        with pytest.raises(BearoffFileError, match="(Fevga|Gioul) table; a (Gioul|Fevga) one is needed"):
            call()
    # Bare counts carry no game: any table answers for them.
    assert g15.mean_rolls((0, 1, 2)) != fevga_one.mean_rolls((0, 1, 2))
    with pytest.raises(InvalidArgumentError):
        OneSidedDB.build(6, 3, game="tavla")
    with pytest.raises(InvalidArgumentError):
        core.OneSidedBuilder(6, 3, "tavla")


def test_roll_counts_below_four_and_pending_dice(g15: OneSidedDB, g6: TwoSidedDB) -> None:
    early = race((0, 1, 2), (2, 0, 1), next_roll=(4, 3))
    for call in (lambda: g15.mean_rolls(early), lambda: g6.equity(early), lambda: evaluate(early, bearoff=g6),
                 lambda: best_move(early, (2, 2), bearoff=g6)):
        with pytest.raises(MissingBearoffError, match="every double is a chain.*Black's next roll .* is its roll 3"):
            call()
    assert not covers(early, bearoff=g6, one_sided=g15)
    assert g6.get_equity(early) is None
    # A state in the middle of a chain: no table entry, but evaluate plays the chain out.
    pos = race((0, 0, 0, 1, 2, 3), (3, 0, 0, 0, 0, 1))
    mid = pos.legal_moves((2, 2))[0].position
    assert mid.pending == (3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6) and mid.turn == WHITE
    with pytest.raises(MissingBearoffError, match="dice pending"):
        g6.equity(mid)
    assert evaluate(mid, bearoff=g6) == pytest.approx(
        max(_mover_value(f, WHITE, g6) for f in roll_finals(mid, None)), abs=1e-12)


# --- CLI ------------------------------------------------------------------------------------


def test_cli_build_and_query_gioul(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fevga.cli import main

    one, two = tmp_path / "g1.fbo", tmp_path / "g2.fbo"
    assert main(["bearoff", "build", "one-sided", "--game", "gioul", "--checkers", "15", "--out", str(one), "--quiet"]) == 0
    assert main(["bearoff", "build", "two-sided", "--game", "gioul", "--checkers", "3", "--out", str(two), "--quiet"]) == 0
    assert "gioul two-sided 6x3" in capsys.readouterr().out
    assert open_db(one).game == "gioul" and open_db(two, kind="two-sided").game == "gioul"
    # A Gioul ID selects the Gioul tables; a 1-1 chain is planned block by block.
    pos = race(SIX, (0, 0, 0, 0, 0, 3))
    assert main(["bearoff", "query", pos.id, "--db", str(one), "--two-sided", str(two), "--dice", "1-1", "--json"]) == 0
    import json

    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "gioul"
    assert result["on_roll"]["distribution"]["1"] == pytest.approx(28 / 36)
    assert result["best_decisions"] == ["6/2", "2/off"]
    assert result["exact"]["equity"] == pytest.approx(TwoSidedDB.build(3, game="gioul").equity(pos))
    assert main(["bearoff", "query", "0,0,0,0,0,1/0,0,0,0,0,1", "--game", "gioul", "--db", str(one)]) == 0
    assert "every double is a chain" in capsys.readouterr().out
    # Wrong-game tables, early roll counts and pending dice: one line on stderr, status 2.
    assert main(["bearoff", "query", "0,0,0,0,0,1/0,0,0,0,0,1", "--db", str(one)]) == 2
    assert "holds a Gioul table, not a Fevga one" in capsys.readouterr().err
    early = race(SIX, (0, 0, 0, 0, 0, 3), next_roll=(2, 4))
    assert main(["bearoff", "query", early.id, "--db", str(one)]) == 2
    assert "White's next roll" in capsys.readouterr().err
    mid = race((0, 0, 0, 1, 2, 3), (3, 0, 0, 0, 0, 1)).legal_moves((2, 2))[0].position
    assert main(["bearoff", "query", mid.id, "--db", str(one)]) == 2
    assert "dice pending" in capsys.readouterr().err
