"""Game and match records: JSON round trips, the text match format, and its errors."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from fevga import BLACK, WHITE, FevgaError, Position, Rules
from fevga.errors import RecordError
from fevga.game import play_game, play_match
from fevga.records import GameRecord, MatchRecord
from fevga.gioul import GioulPosition
from fevga.records import GioulGameRecord
from fevga.game import play_game, play_match
from fevga.records import load_record, read_match, save_record, write_match


def _strip_comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(";")]


@pytest.mark.parametrize("seed,policy,rules", [
    (1, "random", None), (2, "heuristic", None), (3, "random", Rules.strict()),
    (4, "heuristic", Rules(first_roll="opening_dice")),
])
def test_game_json_round_trips_exactly(seed: int, policy: str, rules: Rules | None) -> None:
    record = play_game(seed=seed, policy=policy, rules=rules)
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert again.to_json() == record.to_json()


def test_truncated_and_started_games_round_trip() -> None:
    truncated = play_game(seed=9, max_plies=7)
    assert truncated.truncated and GameRecord.from_json(truncated.to_json()) == truncated
    start = Position.initial().play("24/13", "6-5")
    later = play_game(seed=9, start=start, policy="heuristic")
    assert later.opening_dice is None and GameRecord.from_json(later.to_json()) == later


def test_every_ply_carries_its_position_id() -> None:
    record = play_game(seed=5, policy="heuristic")
    data = json.loads(record.to_json())
    positions = record.positions()
    assert [p["position"] for p in data["plies"]] == [p.id for p in positions[:-1]]
    assert data["plies"][0]["position"] == Position.initial().id  # White won the draw from the start


def test_match_json_round_trips_exactly() -> None:
    match = play_match(9, seed=7, policy="heuristic")
    assert MatchRecord.from_json(match.to_json()) == match
    assert json.loads(match.to_json())["players"] == ["White", "Black"]


def test_json_with_only_move_notation_is_accepted() -> None:
    record = play_game(seed=6, policy="heuristic")
    data = record.to_dict()
    for ply in data["plies"]:
        del ply["steps"], ply["position"]
    assert GameRecord.from_dict(data).plies == record.plies


@pytest.mark.parametrize("tamper,message", [
    (lambda d: d["plies"][3].__setitem__("steps", [[24, 1]]), "illegal"),
    (lambda d: d["plies"][2].__setitem__("position", Position.initial().id), "does not match the replayed"),
    (lambda d: d.__setitem__("points", 3), "points 3"),
    (lambda d: d.__setitem__("result", "draw"), "result 'draw'"),
    (lambda d: d["plies"][1].__setitem__("turn", d["plies"][0]["turn"]), "is on roll"),
    (lambda d: d.__setitem__("rules", {"release": "never"}), "release"),
    (lambda d: d.__setitem__("rules", {"hitting": True}), "unknown rule option"),
    (lambda d: d["plies"].pop(), "final position"),
    (lambda d: (d["plies"].pop(), d.pop("final"), d.pop("result")), "not over"),
    (lambda d: d["plies"][0].__setitem__("dice", [7, 1]), "dice"),
])
def test_tampered_json_is_rejected_with_the_reason(tamper: object, message: str) -> None:
    data = play_game(seed=5, policy="heuristic").to_dict()
    tamper(data)  # type: ignore[operator]
    with pytest.raises(RecordError, match=message):
        GameRecord.from_dict(data)


def test_invalid_json_names_line_and_column() -> None:
    with pytest.raises(RecordError, match=r":2:\d+: invalid JSON") as info:
        GameRecord.from_json('{"plies": [\n  oops]}')
    assert info.value.line == 2 and isinstance(info.value, FevgaError) and isinstance(info.value, ValueError)


def test_match_score_is_checked() -> None:
    data = play_match(3, seed=2).to_dict()
    data["score"] = [0, 0]
    with pytest.raises(RecordError, match="score"):
        MatchRecord.from_dict(data)


def _content(game: GameRecord | GioulGameRecord) -> tuple[object, ...]:
    """What a game's text record keeps (not its seed or policies)."""
    if isinstance(game, GioulGameRecord):
        return (game.start, game.decisions, game.final, game.winner, game.points)
    return (game.start, game.opening_dice, game.plies, game.final, game.winner, game.points)


MATCHES = {"fevga": play_match, "gioul": functools.partial(play_match, game="gioul")}


@pytest.mark.parametrize("game", ["fevga", "gioul"])
@pytest.mark.parametrize("seed", range(8))
def test_text_round_trip(game: str, seed: int) -> None:
    match = MATCHES[game](5, seed=seed, policy="random" if seed % 2 else "heuristic")
    text = write_match(match)
    again = read_match(text)
    assert type(again) is type(match)
    assert again.length == match.length and again.score == match.score and again.players == match.players
    for got, want in zip(again.games, match.games, strict=True):
        assert _content(got) == _content(want)
    assert _strip_comments(write_match(again)) == _strip_comments(text)


def _gioul_text_with(mark: str) -> tuple[list[str], int]:
    """The lines of a Gioul match text and the index of the first turn line holding `mark`."""
    lines = write_match(play_match(game="gioul", length=5, seed=3)).splitlines()
    return lines, next(i for i, line in enumerate(lines) if mark in line and ")" in line)


def test_a_gioul_roll_is_its_decisions_chain_blocks_and_hand_overs() -> None:
    match = play_match(game="gioul", length=5, seed=3)
    text = write_match(match)
    assert " Rules: game=gioul" in text.splitlines()
    lines, at = _gioul_text_with(" > ")
    roll = lines[at].split(")", 1)[1].split("  ")[0].strip()  # White's roll on that line
    dice, moves = roll.split(":", 1)
    parts = [p.strip() for p in moves.replace(">", "|").split("|")]
    decisions = read_match(text).games[0].decisions
    first = next(i for i, d in enumerate(decisions) if d.roll == (int(dice[0]), int(dice[1])) and
                 d.notation == parts[0] and decisions[i + 1].kind == "hand-over")
    assert [d.notation for d in decisions[first:first + len(parts)]] == parts
    kinds = [d.kind for d in decisions[first:first + len(parts)]]
    assert kinds[0] == "roll" and kinds[1] == "hand-over" and set(kinds[1:]) <= {"hand-over", "block"}


def test_a_gioul_roll_its_roller_cannot_play_is_written_pass_then_the_hand_over() -> None:
    record = play_game(game="gioul", seed=2, policy="heuristic")
    text = write_match(record)
    assert "55: pass > 6/1(4) | 6/off(4)" in text
    assert read_match(text).games[0].decisions == record.decisions


def test_gioul_text_errors_name_the_line_and_the_problem() -> None:
    lines, at = _gioul_text_with(" > ")
    wrong = lines.copy()
    wrong[at] = wrong[at].replace(" > ", " | ", 1)
    with pytest.raises(RecordError, match=r"'\|' marks the same player, but black plays next: write '>'") as caught:
        read_match("\n".join(wrong))
    assert caught.value.line == at + 1
    short = lines.copy()
    short[at] = short[at][:short[at].index(" > ")]
    with pytest.raises(RecordError, match=r"black has .* still to play in this roll: write its move after '>'"):
        read_match("\n".join(short))
    game1 = lines.index(" Game 1")
    drawn = lines[:game1 + 2] + [" Opening draw: White 5, Black 1"] + lines[game1 + 2:]
    with pytest.raises(RecordError, match="a Gioul record has no opening draw line"):
        read_match("\n".join(drawn))
    start = GioulPosition.initial()
    chain = GioulPosition.from_counts(start.counts(WHITE), start.counts(BLACK), WHITE, next_roll=(4, 4))
    pending = next(m.position for m in chain.legal_moves("2-2") if m.position.pending)  # the 3s still to play
    started = lines[:game1 + 2] + [f" Start: {pending.id}"] + lines[game1 + 2:]
    with pytest.raises(RecordError, match="in the middle of a roll"):
        read_match("\n".join(started))
    doubled = ["1 point match", "Rules: game=gioul first_roll=opening_dice", "Game 1", "1) 33: 24/21(4)"]
    with pytest.raises(RecordError, match="never a double"):
        read_match("\n".join(doubled))


def test_black_starting_games_are_written_in_blacks_column() -> None:
    matches = (play_match(3, seed=s) for s in range(50))
    match = next(m for m in matches if any(g.plies[0].turn == BLACK for g in m.games))
    text = write_match(match)
    lines = text.splitlines()
    game = next(i for i, g in enumerate(match.games) if g.plies[0].turn == BLACK)
    header = [i for i, line in enumerate(lines) if line.strip() == f"Game {game + 1}"][0]
    first = next(line for line in lines[header:] if line.lstrip().startswith("1)"))
    assert re.match(r"^\s+1\)\s{20,}\d\d:", first), first
    # Without the opening draw and the previous winner, the column alone tells who started.
    black_first = Position.from_counts(Position.initial().counts(WHITE), Position.initial().counts(BLACK), BLACK)
    single = MatchRecord(length=0, games=(play_game(seed=3, start=black_first),))
    assert single.games[0].plies[0].turn == BLACK
    assert read_match(write_match(single)).games[0].plies == single.games[0].plies


def test_games_from_a_set_position_carry_a_start_line() -> None:
    start = Position.initial().play("24/13", "6-5")
    single = MatchRecord(length=0, games=(play_game(seed=3, start=start, policy="heuristic"),))
    text = write_match(single)
    assert f"Start: {start.id}" in text
    again = read_match(text).games[0]
    assert again.start == start and again.plies == single.games[0].plies and again.final == single.games[0].final
    with pytest.raises(RecordError, match="position ID"):
        read_match(text.replace(start.id, "x" * 16))


HAND_TYPED = """\
; typed by hand: loose spacing, dashes or spaces in dice, long and short notation, player names
1 point match
Rules: default

Game 1
Alice : 0   Bob : 0
Opening draw: white 6, black 2
 1) 6-5: 24/18/13     4-2: 24/18
 2) 5 5: 13/8 24/19(3)  3-1: 18/14
"""


def test_hand_typed_match_is_read() -> None:
    match = read_match(HAND_TYPED, "hand.mat")
    assert match.players == ("Alice", "Bob") and match.length == 1
    game = match.games[0]
    assert [p.notation for p in game.plies] == ["24/13", "24/18", "24/19(3) 13/8", "18/14"]
    assert [p.turn for p in game.plies] == [WHITE, BLACK, WHITE, BLACK]
    assert game.truncated and game.result == "truncated"


def _error(text: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        read_match(text, "m.mat")
    return info.value


def test_illegal_move_names_line_column_and_legal_moves() -> None:
    error = _error(HAND_TYPED.replace("3-1: 18/14", "3-1: 18/10"))
    assert (error.line, error.column) == (9, 30)
    assert str(error).startswith("m.mat:9:30: game 1: black 31: 18/10:") and "legal:" in str(error)


@pytest.mark.parametrize("edit,line,column,message", [
    (("1 point match", "one point match"), 2, 1, "N point match"),
    (("Game 1", "Game 2"), 5, 6, "expected 'Game 1'"),
    (("Bob : 0", "Bob : 1"), 6, 19, "score is 0"),
    (("6-5: 24/18/13", "6-5: 24/18/14"), 8, 10, "illegal"),
    (("4-2: 24/18", "4-7: 24/18"), 8, 10, "cannot read '4-7:'"),
    ((" 2) 5 5", " 3) 5 5"), 9, 2, "expected turn line 2)"),
    (("white 6, black 2", "white 2, black 2"), 7, 21, "tie"),
    (("Rules: default", "Rules: release=never"), 3, 8, "release"),
    (("Rules: default", "Rules: hitting=yes"), 3, 8, "option"),
    (("3-1: 18/14", "3-1: 18/14\n    Alice wins 1 point"), 10, 5, "not over"),
    (("3-1: 18/14", "3-1: 18/14\n  what is this"), 10, 3, "cannot read"),
    (("6-5: 24/18/13     4-2: 24/18", "4-2: 24/18"), 9, 2, "held a single turn"),
])
def test_malformed_or_illegal_text_names_line_and_column(edit: tuple[str, str], line: int, column: int,
                                                          message: str) -> None:
    text = HAND_TYPED.replace(*edit)
    assert text != HAND_TYPED
    error = _error(text)
    assert (error.line, error.column) == (line, column), str(error)
    assert message in str(error) and str(error).startswith(f"m.mat:{line}:{column}: ")


def test_black_start_with_two_turns_on_line_one_is_rejected() -> None:
    error = _error(HAND_TYPED.replace("white 6, black 2", "white 2, black 6"))
    assert error.line == 8 and "Black starts" in str(error)


def test_result_line_is_checked_against_the_replay() -> None:
    match = play_match(1, seed=4, policy="heuristic")
    text = write_match(match)
    game = match.games[0]
    winner = match.players[game.winner]
    loser = match.players[1 - game.winner]
    wrong_side = text.replace(f"{winner} wins", f"{loser} wins")
    assert "names" in str(_error(wrong_side))
    other = 3 - game.points
    wrong_points = re.sub(r"wins \d points?", f"wins {other} point{'s' if other == 2 else ''}", text)
    assert "point(s), but the game is worth" in str(_error(wrong_points))
    assert read_match(re.sub(r".*wins.*\n", "", text)).games[0].plies == game.plies  # the result line is optional
    extra = text + "  99) 11: 24/23\n"
    assert "result line" in str(_error(extra)) or "over" in str(_error(extra))


def test_game_after_the_match_is_won_is_rejected() -> None:
    match = play_match(1, seed=4, policy="heuristic")
    text = write_match(match) + "\n Game 2\n"
    assert "after the match was won" in str(_error(text))


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_files_round_trip_atomically(tmp_path: Path, game: str) -> None:
    match = MATCHES[game](3, seed=11, policy="heuristic")
    save_record(match, tmp_path / "m.json")
    save_record(match, tmp_path / "m.mat")
    assert load_record(tmp_path / "m.json") == match
    assert _content(load_record(tmp_path / "m.mat").games[0]) == _content(match.games[0])
    record = match.games[0]
    save_record(record, tmp_path / "g.json")
    assert load_record(tmp_path / "g.json").games == (record,)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "m.json", "m.mat"]  # no temporary files left
    with pytest.raises(RecordError, match="cannot read record"):
        load_record(tmp_path / "missing.mat")


def test_long_player_names_still_read_back() -> None:
    match = play_match(1, seed=4, policy="heuristic")
    names = ("Konstantinos Papadopoulos-Georgiou", "Black player with a long name")
    again = read_match(write_match(match, players=names))
    assert again.players == names and again.games[0].plies == match.games[0].plies
    with pytest.raises(RecordError, match="player name"):
        write_match(match, players=("Anna: the first", "Nikos"))
