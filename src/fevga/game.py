"""Seeded games and matches with pluggable policies, returning complete records.

A policy (fevga.policy) is ``"random"`` (every distinct legal move equally likely),
``"heuristic"`` (greedy on the core's documented evaluation), ``"bearoff"``,
``"lookahead"``, or any callable ``policy(position, dice, moves) -> Move``. Built-in
policies run entirely in the core.

>>> record = play_game(seed=7)
>>> record.winner in (WHITE, BLACK, None) and record.final.is_game_over()
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal, TypeVar, overload

import numpy as np

from fevga.errors import InvalidArgumentError, InvalidRulesError
from fevga.gioul import GioulPosition
from fevga.limits import MAX_GAME_PLIES, MAX_LENGTH, MAX_MATCH_GAMES, check_int
from fevga.position import BLACK, WHITE, Color, Position
from fevga.net import Net, net_of
from fevga.policy import GIOUL_POLICIES, HEURISTIC_SCALE, TABLE_POLICIES, Policy, chooser, policy_id, policy_name, policy_pair, uses_net
from fevga.rules import Game, Rules, rules_of
from fevga.seeding import SeedLike, master_key, seed_repr, seed_sequence
from fevga_core import game as core_game
from fevga_core import constants as core_constants
from fevga_core.rollout import play_recorded, record_gioul_game
from fevga.bearoff.core_tables import tables_of
from fevga.records import Decision, GameRecord, GioulGameRecord, GioulMatchRecord, MatchRecord, Ply, _with_turn

def _play_one(begin: Position, opening: bool, pair: tuple[Policy, Policy], rules: Rules, key: int,
              seed: int | str, max_plies: int, net: Net | None) -> GameRecord:
    """Play one game in the core from `begin` and wrap its record (`net` serves the net policies)."""
    tables = None
    if any(p in TABLE_POLICIES for p in pair):
        tables = tables_of("default")
    winner, points, _, truncated, opening_dice, plies, final = play_recorded(
        begin._row(), rules.flags, policy_id(pair[0]), policy_id(pair[1]), chooser(pair, rules), key,
        opening, max_plies, tables, HEURISTIC_SCALE if tables is not None else 1.0,
        net._core if net is not None and uses_net(pair) else None,
    )
    return GameRecord(
        seed=seed,
        rules=rules,
        policies=(policy_name(pair[0]), policy_name(pair[1])),
        start=begin,
        opening_dice=opening_dice,
        plies=tuple(_ply(row) for row in plies),
        final=Position._from_row(final),
        winner=None if winner < 0 else winner,
        points=int(points),
        truncated=bool(truncated),
    )


@overload
def play_game(seed: SeedLike = None, policy: Policy | tuple[Policy, Policy] = "random", rules: Rules | None = None,
              start: Position | None = None, max_plies: int = 0, net: Net | str | os.PathLike[str] | None = None,
              *, game: Literal["fevga"] | None = None) -> GameRecord: ...


@overload
def play_game(seed: SeedLike = None, policy: Policy | tuple[Policy, Policy] = "random", rules: Rules | None = None,
              *, start: GioulPosition, max_plies: int = 0, net: Net | str | os.PathLike[str] | None = None,
              game: Literal["gioul"] | None = None) -> GioulGameRecord: ...


@overload
def play_game(seed: SeedLike = None, policy: Policy | tuple[Policy, Policy] = "random", rules: Rules | None = None,
              start: GioulPosition | None = None, max_plies: int = 0,
              net: Net | str | os.PathLike[str] | None = None, *, game: Literal["gioul"]) -> GioulGameRecord: ...


def play_game(
    seed: SeedLike = None,
    policy: Policy | tuple[Policy, Policy] = "random",
    rules: Rules | None = None,
    start: Position | GioulPosition | None = None,
    max_plies: int = 0,
    net: Net | str | os.PathLike[str] | None = None,
    *,
    game: Game | None = None,
) -> GameRecord | GioulGameRecord:
    """Play one seeded game of Fevga or Gioul and return its record.

    The game is `start`'s (a Position or a GioulPosition), `rules`' or `game`'s ("fevga", the
    default, or "gioul"). Without `start` the game begins with the one-die draw of
    docs/rules.md §2; with `start`, its side on roll rolls (a Gioul state: or plays its pending
    dice) first. `policy` is one policy or a (white, black) pair (Gioul: "random",
    "heuristic", "net", "net2"). `max_plies` > 0 stops a Fevga game early (result
    ``"truncated"``). `net` (a fevga.Net or a net file; default: the game's shipped net) serves
    the "net" and "net2" policies.

    >>> play_game(seed=7, game="gioul").final.is_game_over()
    True
    """
    max_plies = check_int("max_plies", max_plies, 0, MAX_GAME_PLIES)
    if _game_of(start, rules, game) == "gioul":
        if max_plies:
            raise InvalidArgumentError(f"max_plies={max_plies}: a Gioul game is played to its end")
        return _play_gioul(seed, policy, rules, start, net)  # type: ignore[arg-type]
    pair = policy_pair(policy)
    begin = start or Position.initial()
    if begin.winner() is not None:
        raise InvalidArgumentError(f"start position {begin.id} is already finished")
    sequence = seed_sequence(seed)  # once: seed=None draws the entropy the record keeps
    key = core_game.game_seed_of(master_key(sequence), 0)
    evaluator = net_of(net) if uses_net(pair) else None
    assert isinstance(begin, Position)
    return _play_one(begin, start is None, pair, rules_of(rules), key, seed_repr(sequence), max_plies, evaluator)


def _game_of(start: object, rules: object, game: object) -> Game:
    """The game that `start` (a position), `rules` and `game` name; Fevga when none does.
    InvalidRulesError if the rules name another game than the others, InvalidArgumentError if
    `game` and `start` disagree or either is not a game or a position."""
    if game is not None and game not in ("fevga", "gioul"):
        raise InvalidArgumentError(f"game {game!r} must be 'fevga' or 'gioul'")
    if start is not None and not isinstance(start, (Position, GioulPosition)):
        raise InvalidArgumentError(f"start {repr(start)[:80]} must be a fevga.Position or a fevga.GioulPosition")
    named: dict[str, str] = {}
    if game is not None:
        named["game"] = str(game)
    if isinstance(start, (Position, GioulPosition)):
        named["start"] = "gioul" if isinstance(start, GioulPosition) else "fevga"
    if isinstance(rules, Rules):
        named["rules"] = rules.game
    if len(set(named.values())) > 1:
        error = InvalidRulesError if "rules" in named else InvalidArgumentError  # rules of the other game
        raise error("the game is not clear: " + ", ".join(f"{k} says {v}" for k, v in named.items()))
    return "gioul" if "gioul" in named.values() else "fevga"


def _ply(row: np.ndarray) -> Ply:
    nsteps = int(row[3])
    return Ply(
        turn=int(row[0]),
        dice=(int(row[1]), int(row[2])),
        steps=tuple((int(row[4 + 2 * i]), int(row[5 + 2 * i])) for i in range(nsteps)),
    )


def _at_score(pair: tuple[Policy, Policy], score: tuple[int, int], length: int) -> tuple[Policy, Policy]:
    """Score-aware policies (those with ``at_score``, e.g. fevga.match.EvaluatorPolicy) for one game."""
    out = [p.at_score(score, length) if callable(getattr(p, "at_score", None)) else p  # type: ignore[union-attr]
           for p in pair]
    return (out[0], out[1])


@overload
def play_match(length: int, seed: SeedLike = None, policy: Policy | tuple[Policy, Policy] = "random",
               rules: Rules | None = None, max_games: int = 10_000, net: Net | str | os.PathLike[str] | None = None,
               *, game: Literal["fevga"] | None = None) -> MatchRecord: ...


@overload
def play_match(length: int, seed: SeedLike = None, policy: Policy | tuple[Policy, Policy] = "random",
               rules: Rules | None = None, max_games: int = 10_000, net: Net | str | os.PathLike[str] | None = None,
               *, game: Literal["gioul"]) -> GioulMatchRecord: ...


def play_match(
    length: int,
    seed: SeedLike = None,
    policy: Policy | tuple[Policy, Policy] = "random",
    rules: Rules | None = None,
    max_games: int = 10_000,
    net: Net | str | os.PathLike[str] | None = None,
    *,
    game: Game | None = None,
) -> MatchRecord | GioulMatchRecord:
    """Play a match of Fevga or Gioul (`rules`' or `game`'s) to `length` points: the winner of
    a game starts the next one (rolling two dice); the first game and any game after a draw
    start with the one-die draw. `net` serves the "net" and "net2" policies (default: the
    game's shipped net).

    Game i is played with its own seed ``game_seed_of(match master key, i)``, recorded in its
    record: ``play_game(seed=g.seed, policy=g.policies, rules=g.rules, start=None if
    g.opening_dice else g.start)`` replays it exactly (Gioul: ``start=g.start``). A Fevga
    policy with ``at_score`` (fevga.match.EvaluatorPolicy) plays each game at its score; the
    Gioul policies do not look at the score.

    >>> max(play_match(3, seed=1, game="gioul").score) >= 3
    True
    """
    length = check_int("match length", length, 1, MAX_LENGTH)
    max_games = check_int("max_games", max_games, 1, MAX_MATCH_GAMES)
    sequence = seed_sequence(seed)
    if _game_of(None, rules, game) == "gioul":
        rules = rules_of(rules, "gioul")
        pair = _gioul_pair(policy)  # type: ignore[arg-type]

        def play_gioul(game_seed: int, starter: Color | None, score: tuple[int, int]) -> GioulGameRecord:
            start = None if starter is None else GioulPosition.initial(starter)
            return _play_gioul(game_seed, pair, rules, start, net)

        gioul_games, score = _match_games(length, max_games, sequence, play_gioul)
        return GioulMatchRecord(length=length, games=tuple(gioul_games), score=score, seed=seed_repr(sequence))
    rules = rules_of(rules)
    policies = policy_pair(policy)  # a policy with at_score(score, length) plays each game at its score
    evaluator = net_of(net) if uses_net(policies) else None
    initial = Position.initial()

    def play(game_seed: int, starter: Color | None, score: tuple[int, int]) -> GameRecord:
        begin = initial if starter is None else _with_turn(initial, starter)
        key = core_game.game_seed_of(master_key(game_seed), 0)  # what play_game(seed=game_seed) uses
        return _play_one(begin, starter is None, _at_score(policies, score, length), rules, key, game_seed, 0,
                         evaluator)

    games, score = _match_games(length, max_games, sequence, play)
    return MatchRecord(length=length, games=tuple(games), score=score, seed=seed_repr(sequence))


R = TypeVar("R", GameRecord, GioulGameRecord)


def _match_games(length: int, max_games: int, sequence: np.random.SeedSequence,
                 play: Callable[[int, Color | None, tuple[int, int]], R]) -> tuple[list[R], tuple[int, int]]:
    """The games of a match of either game and the final score: game i is played by
    ``play(its seed, the starter or None for the one-die draw, the score before it)`` with its
    own seed ``game_seed_of(match master key, i)``; the winner of a game starts the next one,
    a draw leaves the next to the draw, and the match ends at `length` points or `max_games`."""
    master = master_key(sequence)
    score = [0, 0]
    games: list[R] = []
    starter: Color | None = None
    for index in range(max_games):
        record = play(int(core_game.game_seed_of(master, index)), starter, (score[0], score[1]))
        games.append(record)
        starter = record.winner
        if record.winner is not None:
            score[record.winner] += record.points
            if score[record.winner] >= length:
                break
    return games, (score[0], score[1])




def _gioul_policy_id(policy: str) -> int:
    if not isinstance(policy, str) or policy not in GIOUL_POLICIES:
        raise InvalidArgumentError(f"Gioul policy {policy!r} must be one of {list(GIOUL_POLICIES)}")
    return int(core_constants.POLICY_IDS[policy])


def _gioul_pair(policy: str | tuple[str, str]) -> tuple[str, str]:
    """The (white, black) Gioul policies of one name for both sides or of a pair, checked."""
    pair = policy if isinstance(policy, tuple) else (policy, policy)
    if len(pair) != 2:
        raise InvalidArgumentError(f"policy pair {policy!r} must be (white_policy, black_policy)")
    for name in pair:
        _gioul_policy_id(name)
    return (pair[0], pair[1])


def _play_gioul(seed: SeedLike, policy: str | tuple[str, str], rules: Rules | None, start: GioulPosition | None,
                net: Net | str | os.PathLike[str] | None) -> GioulGameRecord:
    """One Gioul game played in the core (the variant's half of play_game)."""
    rules = rules_of(rules, "gioul")
    pair = _gioul_pair(policy)
    ids = (_gioul_policy_id(pair[0]), _gioul_policy_id(pair[1]))
    gioul_net = net_of(net, "gioul")._core if uses_net(pair) else None
    nets = [gioul_net if uses_net((p,)) else None for p in pair]
    if start is not None and start.is_game_over():
        raise InvalidArgumentError(f"start state {start.id} is already finished")
    sequence = seed_sequence(seed)
    points, raw = record_gioul_game(master_key(sequence), 0, rules.first_roll == "opening_dice", ids[0], ids[1],
                                    start, nets[0], nets[1], tables_of("gioul-default") if uses_net(pair) else None)
    decisions = []
    previous: int | None = None  # the mover of the previous decision
    for mover, roller, d1, d2, die, count, pair_die, steps, choices in raw:
        dice = (die, pair_die) if pair_die else (die,) * count
        if d1:
            kind = "roll"
        elif previous == mover:
            kind = "block"  # the same player goes on with the next block
        else:
            kind = "hand-over"
        decisions.append(Decision(mover, roller, (d1, d2) if d1 else None, dice, kind, steps, choices))
        previous = mover
    record = GioulGameRecord(
        seed=seed_repr(sequence),
        rules=rules,
        policies=(pair[0], pair[1]),
        decisions=tuple(decisions),
        final=GioulPosition.initial(),
        winner=None if points == 0 else (WHITE if points > 0 else BLACK),
        points=abs(points),
        start=start,
    )
    final = record.positions()[-1]
    return GioulGameRecord(
        record.seed, record.rules, record.policies, record.decisions, final, record.winner, record.points, start
    )
