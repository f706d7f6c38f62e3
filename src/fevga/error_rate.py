"""Error rate against rollouts: the mean equity a player loses per decision, judged by net rollouts.

Three steps, each a file that the next one reads (docs/error_rate.md):

1. `build_corpus(count, seed, game=...)`: decisions (a position and a roll with two or more
   legal moves; in Gioul a state and its next decision: the first of a roll, a chain's next
   block or a hand-over) sampled from seeded net self-play games of Fevga or Gioul. Game ``g`` plays with the seed
   ``SeedSequence(seed, spawn_key=(0, g))`` and ``PER_GAME`` of its decisions are drawn with
   ``SeedSequence(seed, spawn_key=(1, g))``, so a corpus is a function of (count, seed, net).
2. `run_truth(corpus, path, ...)`: for each decision, the first candidates (the moves whose
   2-ply equity is within `WINDOW` of the best, at most `MAX_CANDIDATES` of them, best first,
   plus every judged player's pick) are rolled out together by the "net" policy with common
   random numbers (`fevga.rollout_moves(moves=...)`, decision ``i`` seeded
   ``SeedSequence(seed, spawn_key=(i,))``). Every other move within `WINDOW` is then screened
   against the best with the same dice (`complete_truth`): it is rolled out in full unless
   its 95% interval falls wholly below the leader's after a round of blocks. With
   `every_move` the window is drawn by every move's 2-ply value (`hint(..., every_move=True)`),
   not by the 2-ply search's, whose move filter leaves most moves at their 1-ply value: a
   move the filter drops can be the best (docs/error_rate.md, "The move filter in Gioul"). After each
   decision the whole truth so far is written atomically to `path`; a rerun resumes after
   the last one, and each rollout of a decision running saves its progress in the folder
   ``<path>.rollouts`` (`rollout_moves(checkpoint=...)`), so that a rerun resumes a long
   decision where it stopped, to the same numbers. With a target SE, a decision whose rolled-out candidates' equity SEs are not
   all under it is rolled out again with more games (`raise_truth`; a truth made without the
   target or the screen is raised or completed in place, resumably).
   Rollouts are bit-identical for any worker count, so the truth is too. A truth made for
   fewer players (a Gioul truth from before its 3-ply search) is extended in place: each
   decision gets the new players' picks, and a decision whose picks were not all rolled out
   is rolled out again with them, the same seed giving its old candidates the same numbers.
3. `error_rates(truth)`: each player's loss on a decision is the rolled-out equity of the
   best candidate minus that of its pick (the common-random-number difference, whose
   standard error the rollout reports); the mean over decisions with a 95% interval over
   decisions. `markdown_table` prints them.

The players (`players_of(game)`) are the built-in "heuristic" policy (greedy on the core's
heuristic_eval, first on ties, as the rollouts play it) and `fevga.hint` at 1, 2 and 3 plies
by the move filter (``every_move=False``) in both games; `judge_truth` judges any other search.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from fevga.analysis import every_move_of, hint, search_name
from fevga.checks import check_int
from fevga.limits import check_flag, check_real
from fevga.errors import CheckpointError, FevgaError, InvalidArgumentError
from fevga.files import atomic_write
from fevga.game import play_game
from fevga.net import Net, net_of
from fevga.parallel import nested_threads, run_tasks
from fevga.notation import parse_dice
from fevga.gioul import GioulMove, GioulPosition
from fevga.net import check_game
from fevga.position import Move, Position
from fevga.rollout import MoveRollout, rollout_moves
from fevga.rules import Game
from fevga_core import game as core_game

__all__ = ["PLAYERS", "WINDOW", "players_of", "Decision", "Corpus", "MoveTruth", "DecisionTruth", "Truth", "ErrorRate",
           "build_corpus", "picks", "decision_truth", "extend_truth", "raise_truth", "complete_truth", "run_truth",
           "judge_truth", "load_truth", "error_rates", "selection_bias", "markdown_table"]

CORPUS_FORMAT = "fevga-error-rate-corpus/1"
TRUTH_FORMAT = "fevga-error-rate-truth/1"
PER_GAME = 3  # decisions drawn from each self-play game: spreads the corpus over many games
WINDOW = 0.2  # candidates: moves within this much 2-ply equity of the best ...
MAX_CANDIDATES = 8  # ... at most this many of them, best first (a decision has 21 on average, up to 153)
PLAYERS = ("heuristic", "net 1-ply", "net 2-ply", "net 3-ply")  # both games'; players_of(game)
Z95 = 1.959963984540054
T = TypeVar("T")


def players_of(game: Game) -> tuple[str, ...]:
    """The judged players of `game`: the heuristic and the net at 1, 2 and 3 plies.

    >>> players_of("gioul")
    ('heuristic', 'net 1-ply', 'net 2-ply', 'net 3-ply')
    """
    check_game(game)
    return PLAYERS


@dataclass(frozen=True)
class Decision:
    """A position and its roll with two or more legal moves, from ply `ply` of self-play game
    number `game`. A Gioul decision is a state with `dice` its new roll, or None when the state
    has dice pending (a chain's next block, a hand-over)."""

    position: Position | GioulPosition
    dice: tuple[int, int] | None
    game: int
    ply: int

    def to_dict(self) -> dict[str, Any]:
        dice = None if self.dice is None else f"{self.dice[0]}-{self.dice[1]}"
        return {"position": self.position.id, "dice": dice, "game": self.game, "ply": self.ply}

    @classmethod
    def from_dict(cls, data: dict[str, Any], game: Game = "fevga") -> Decision:
        if game == "fevga":
            return cls(Position.from_id(data["position"]), parse_dice(data["dice"]), int(data["game"]),
                       int(data["ply"]))
        dice = None if data["dice"] is None else parse_dice(data["dice"])
        return cls(GioulPosition.from_id(data["position"]), dice, int(data["game"]), int(data["ply"]))


@dataclass(frozen=True)
class Corpus:
    """A seeded corpus of decisions of `game` and what made it (the net's sha256)."""

    seed: int
    net: str
    decisions: tuple[Decision, ...]
    game: Game = "fevga"

    def to_json(self) -> str:
        return json.dumps({"format": CORPUS_FORMAT, "game": self.game, "seed": self.seed, "per_game": PER_GAME,
                           "net": self.net, "decisions": [d.to_dict() for d in self.decisions]}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Corpus:
        data = _json_of(text, CORPUS_FORMAT, "corpus")
        with _fields("corpus"):
            game: Game = "gioul" if check_game(data.get("game", "fevga")) == "gioul" else "fevga"
            return cls(int(data["seed"]), str(data["net"]),
                       tuple(Decision.from_dict(d, game) for d in data["decisions"]), game)

    def save(self, path: str | os.PathLike[str]) -> Path:
        return atomic_write(path, lambda handle: handle.write(self.to_json().encode()), "corpus")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Corpus:
        return _loaded(path, "corpus", cls.from_json)


def build_corpus(count: int, seed: int, *, net: Net | str | None = None, game: Game = "fevga") -> Corpus:
    """`count` decisions from seeded "net" self-play games of `game`, `PER_GAME` drawn from each game."""
    count = check_int("count", count, 1)
    seed = check_int("seed", seed, 0)
    game = "gioul" if check_game(game) == "gioul" else "fevga"
    evaluator = net_of(net, game)
    found: list[Decision] = []
    number = 0
    while len(found) < count:
        found += _decisions_of(game, np.random.SeedSequence(seed, spawn_key=(0, number)), evaluator, number,
                               np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, number))))
        number += 1
    return Corpus(seed, evaluator.checksum, tuple(found[:count]), game)


def _decisions_of(game: Game, seed: np.random.SeedSequence, net: Net, number: int,
                  rng: np.random.Generator) -> list[Decision]:
    """`PER_GAME` of the decisions (two or more legal moves) of one seeded net self-play game."""
    found: list[Decision] = []
    if game == "fevga":
        record = play_game(seed=seed, policy="net", net=net)
        positions = record.positions()
        found = [Decision(positions[k], ply.dice, number, k) for k, ply in enumerate(record.plies)
                 if positions[k].count_legal_moves(ply.dice) >= 2]
    else:
        gioul = play_game(seed=seed, policy="net", net=net, game="gioul")
        states = gioul.positions()
        found = [Decision(states[k], d.roll, number, k) for k, d in enumerate(gioul.decisions) if d.choices >= 2]
    chosen = sorted(rng.choice(len(found), size=min(PER_GAME, len(found)), replace=False)) if found else []
    return [found[k] for k in chosen]


def heuristic_pick(position: Position | GioulPosition, dice: tuple[int, int] | None) -> Move | GioulMove:
    """The move the built-in "heuristic" policy plays: the first of the legal moves (in the
    generator's order) whose result has the best heuristic_eval for the mover (of a Gioul
    move: of its result's board)."""
    moves = position.legal_moves(dice)
    boards = [m.position.board() if isinstance(m, GioulMove) else m.position for m in moves]
    values = [core_game.evaluate(board._row(), position.turn) for board in boards]
    return moves[values.index(max(values))]


def picks(decision: Decision, net: Net | str | None = None,
          players: Sequence[str] | None = None) -> dict[str, Move | GioulMove]:
    """Each player's move for `decision` (`players`: those of PLAYERS, default all)."""
    out: dict[str, Move | GioulMove] = {}
    for player in PLAYERS if players is None else players:
        if player == "heuristic":
            out[player] = heuristic_pick(decision.position, decision.dice)
        elif player in PLAYERS:
            # the move filter's search in both games, as every truth names and pins it
            out[player] = hint(decision.position, decision.dice, int(player[4]), net=net, every_move=False)[0].move
        else:
            raise InvalidArgumentError(f"player {player!r}: the players are {', '.join(PLAYERS)}")
    return out


@dataclass(frozen=True)
class MoveTruth:
    """One candidate rolled out: its equity for the mover and standard error, and its
    common-random-number difference to the decision's best candidate with that difference's
    standard error. `games` is set when it played fewer games than its decision's: the screen
    (`complete_truth`) ruled it out, and it keeps the numbers it was ruled out with."""

    move: str
    equity: float
    se: float
    diff: float
    diff_se: float
    games: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.games is None:
            del data["games"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MoveTruth:
        games = data.get("games")
        if games is not None and (type(games) is not int or games < 1):
            raise ValueError(f"move games {games!r} must be a positive integer")
        move = cls(str(data["move"]), float(data["equity"]), float(data["se"]), float(data["diff"]),
                   float(data["diff_se"]), games)
        if not all(math.isfinite(v) for v in (move.equity, move.se, move.diff, move.diff_se)) or \
                move.se < 0 or move.diff_se < 0:
            raise ValueError(f"move {move.move!r}: its numbers must be finite and its standard errors >= 0")
        return move


@dataclass(frozen=True)
class DecisionTruth:
    """The rolled-out candidates of one decision (best first) and each player's pick (notation)."""

    index: int
    moves: tuple[MoveTruth, ...]
    picks: dict[str, str]
    seconds: float
    games: int | None = None  # games a candidate when more than the truth's (a target SE raised it)

    def loss(self, player: str) -> float:
        """Equity the player's pick gives up against the best candidate (>= 0)."""
        return -self._of(player).diff

    def loss_se(self, player: str) -> float:
        return self._of(player).diff_se

    def _of(self, player: str) -> MoveTruth:
        notation = self.picks[player]
        return next(m for m in self.moves if m.move == notation)

    def to_dict(self) -> dict[str, Any]:
        games = {} if self.games is None else {"games": self.games}
        return {"index": self.index, "moves": [m.to_dict() for m in self.moves], "picks": self.picks,
                "seconds": self.seconds, **games}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DecisionTruth:
        games = data.get("games")
        if games is not None and (type(games) is not int or games < 1):
            raise ValueError(f"decision games {games!r} must be a positive integer")
        index, moves = data["index"], tuple(MoveTruth.from_dict(m) for m in data["moves"])
        if type(index) is not int or index < 0:
            raise ValueError(f"decision index {index!r} must be an integer >= 0")
        if len({m.move for m in moves}) != len(moves):
            raise ValueError(f"decision {index} holds a move twice")
        if not moves or moves[0].games is not None:
            raise ValueError(f"decision {index} must begin with its rolled-out best move")
        picks = data["picks"]
        rolled = {m.move for m in moves if m.games is None}
        if not isinstance(picks, dict) or not all(isinstance(k, str) and v in rolled for k, v in picks.items()):
            raise ValueError(f"decision {index}: every pick must name a rolled-out move of it")
        seconds = float(data["seconds"])
        if not seconds >= 0:
            raise ValueError(f"decision {index}: seconds {seconds!r} must be >= 0")
        return cls(index, moves, dict(picks), seconds, games)


def decision_truth(decision: Decision, index: int, games: int, seed: int, *, workers: int | None = 1,
                   truncate: bool = True, net: Net | str | None = None, quantised: bool = False,
                   cancel: threading.Event | None = None, every_move: bool = False,
                   checkpoints: str | os.PathLike[str] | None = None) -> DecisionTruth:
    """Roll out the candidates of `decision` (the 2-ply best MAX_CANDIDATES within WINDOW of the
    best, plus every player's pick) `games` times each, same dice for all (decision `index`'s seed).
    The float net ranks the candidates and makes the picks; with `quantised` its int16 tables
    play the rollouts (`Net.quantised()`, about three times as fast). `cancel` (a
    threading.Event), once set, stops the rollouts with KeyboardInterrupt, as Ctrl-C does.
    `every_move`: the candidates are ranked by every move's 2-ply value, not the search's.
    `checkpoints`: an existing folder where each rollout saves its progress and resumes from
    (a file per rollout, named by the decision and its moves; the same numbers either way)."""
    evaluator = _net_of(net, decision)
    ranked = hint(decision.position, decision.dice, 2, net=evaluator, every_move=every_move)
    chosen = {name: move for name, move in picks(decision, evaluator).items()}
    near = [h.move for h in ranked if h.loss <= WINDOW][:MAX_CANDIDATES]
    candidates = list(dict.fromkeys(near + list(chosen.values())))
    began = time.perf_counter()
    moves = _rolled_out(decision, candidates, index, games, seed, workers, truncate, _player(evaluator, quantised),
                        cancel, checkpoints)
    return DecisionTruth(index, moves, {name: m.notation for name, m in chosen.items()},
                         time.perf_counter() - began)


def _net_of(net: Net | str | None, decision: Decision) -> Net:
    """`net` (default: the shipped one) of the game `decision` is in."""
    return net_of(net, "gioul" if isinstance(decision.position, GioulPosition) else "fevga")


def _truth_net(net: Net | str | None, game: Game, quantised: bool) -> Net:
    """The float net a truth is made with (`quantised` says how its rollouts play)."""
    evaluator = net_of(net, game)
    if evaluator.is_quantised:
        raise InvalidArgumentError(f"{evaluator!r}: a truth takes the float net (quantised=True plays its rollouts "
                                   "with the int16 tables)")
    _player(evaluator, quantised)
    return evaluator


def _player(net: Net, quantised: bool) -> Net:
    """The net that plays a truth's rollouts: `net` itself, or its int16 tables."""
    if not isinstance(quantised, bool):
        raise InvalidArgumentError(f"quantised {quantised!r} must be True or False")
    return net.quantised() if quantised else net


def _rolled_out(decision: Decision, candidates: Sequence[Move | GioulMove | str], index: int, games: int, seed: int,
                workers: int | None, truncate: bool, net: Net, cancel: threading.Event | None,
                checkpoints: str | os.PathLike[str] | None, screen: bool = False) -> tuple[MoveTruth, ...]:
    """The candidates of decision `index` rolled out together, best first: each candidate's
    games draw the same dice whatever the other candidates are. With `screen`, a candidate
    whose 95% interval of its difference to the best falls wholly below zero after a round of
    blocks is rolled out no further (`rollout_moves(stop_early=True)`; its `games` say how
    many it played). A rollout stopped by Ctrl-C or `cancel` (which returns its games so far)
    raises KeyboardInterrupt: a truth holds whole rollouts only. With `checkpoints` (a folder),
    the rollout saves its progress there and resumes from it (`_checkpoint`); a file there that
    does not resume (another build's, a damaged one) is removed and the rollout starts afresh."""
    path = _checkpoint(checkpoints, decision, index, candidates, games, seed, truncate, net, screen)

    def rolled() -> list[MoveRollout]:
        return rollout_moves(decision.position, decision.dice, games=games,
                             seed=np.random.SeedSequence(seed, spawn_key=(index,)), workers=workers, policy="net",
                             truncate=truncate, net=net, moves=candidates, progress=False, stop_early=screen,
                             cancel=cancel, checkpoint=path)

    try:
        ranking = rolled()
    except CheckpointError:  # raised as the file is read, before any game is played
        if path is None:
            raise
        path.unlink(missing_ok=True)
        ranking = rolled()
    if any(r.result.interrupted for r in ranking):
        raise KeyboardInterrupt
    return tuple(MoveTruth(r.move.notation, r.equity, r.result.equity_se, r.diff, r.diff_se,
                           r.result.games if r.stopped else None) for r in ranking)


def _checkpoint(folder: str | os.PathLike[str] | None, decision: Decision, index: int,
                candidates: Sequence[Move | GioulMove | str], games: int, seed: int, truncate: bool, net: Net,
                screen: bool) -> Path | None:
    """The checkpoint file in `folder` of decision `index`'s rollout of `candidates` (None: no
    folder), named by everything that decides its numbers: the same rollout, run again, resumes
    from it, and no other rollout finds it (the file's own fingerprint checks them again)."""
    if folder is None:
        return None
    moves = [c if isinstance(c, str) else c.notation for c in candidates]
    what = [decision.position.id, list(decision.dice or ()), index, moves, games, seed, truncate, net.checksum,
            net.is_quantised, screen]
    key = hashlib.sha256(json.dumps(what).encode()).hexdigest()[:16]
    return Path(folder) / f"decision-{index}-{key}.npz"


def _clear_checkpoints(folder: Path, index: int | None = None) -> None:
    """Remove decision `index`'s rollout checkpoints from `folder` (it is saved whole), or with
    None every decision's (the run is whole: any left are another run's)."""
    for file in folder.glob("decision-*.npz" if index is None else f"decision-{index}-*.npz"):
        file.unlink(missing_ok=True)


def _same_numbers(index: int, old: Sequence[MoveTruth], new: Sequence[MoveTruth], ulps: bool = False) -> None:
    """Raise CheckpointError unless every move of `old` rolled out again in `new` has its old
    equity and SE, bit for bit (the same seed and games give the same numbers), or with `ulps`
    to within rounding (1e-12 relative: a screen sums the same games round by round, so a move
    that joined the candidates by a screen keeps numbers a rollout of them all may give to the
    last bit otherwise: Gioul decision 154's SE 0.009727899975649866 came back ...868)."""
    known = {m.move: m for m in old}
    for m in new:
        before = known.get(m.move)
        if before is None or m.games is not None:
            continue
        if (before.equity, before.se) != (m.equity, m.se) and not (
                ulps and all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
                             for a, b in ((before.equity, m.equity), (before.se, m.se)))):
            raise CheckpointError(f"decision {index}: move {m.move} rolls out to {m.equity!r} (SE {m.se!r}), not "
                                  f"the truth's {before.equity!r} (SE {before.se!r}): the truth was made by another "
                                  "build or net")


def _best_first(moves: Sequence[MoveTruth]) -> tuple[MoveTruth, ...]:
    """`moves` best first: the decision's rolled-out candidates by their difference to the best,
    then the screened-out ones by theirs (stable, so a rollout's own order stands)."""
    return tuple(sorted(moves, key=lambda m: (m.games is not None, -m.diff)))


def extend_truth(decision: Decision, old: DecisionTruth, new: Mapping[str, Move | GioulMove], games: int, seed: int,
                 *, workers: int | None = 1, truncate: bool = True, net: Net | str | None = None,
                 quantised: bool = False, cancel: threading.Event | None = None,
                 checkpoints: str | os.PathLike[str] | None = None) -> DecisionTruth:
    """`old` (the truth of `decision`, made with these settings) with the `new` players' picks.
    A pick not rolled out in full is rolled out beside the decision's best: a move's games draw
    the same dice whatever the other moves are, so it gets the numbers a rollout of all the
    candidates would give it, and the best must come out with its old ones, bit for bit (else
    CheckpointError: the truth was made by another build or net). If a pick beats the best,
    every candidate is rolled out again with it (the old ones with their old numbers), as every
    difference is then to it. So the result is the truth run_truth would have made with the new
    players among its own. Screened-out moves that no player picks keep their numbers.
    `checkpoints` as in `decision_truth`."""
    evaluator = _net_of(net, decision)
    chosen = {**old.picks, **{name: move.notation for name, move in new.items()}}
    rolled = [m for m in old.moves if m.games is None]
    missing = [notation for notation in dict.fromkeys(chosen.values()) if notation not in {m.move for m in rolled}]
    if not missing:
        return DecisionTruth(old.index, old.moves, chosen, old.seconds, old.games)
    began = time.perf_counter()
    n, player = old.games or games, _player(evaluator, quantised)
    beside = _rolled_out(decision, [rolled[0].move, *missing], old.index, n, seed, workers, truncate, player, cancel,
                         checkpoints)
    _same_numbers(old.index, rolled[:1], beside)
    if beside[0].move == rolled[0].move:
        moves: Sequence[MoveTruth] = [*rolled, *beside[1:]]
    else:
        moves = _rolled_out(decision, [*(m.move for m in rolled), *missing], old.index, n, seed, workers, truncate,
                            player, cancel, checkpoints)
        _same_numbers(old.index, rolled, moves, ulps=True)  # a move that joined by a screen: its rounds summed
    names = {m.move for m in moves}
    screened = [m for m in old.moves if m.games is not None and m.move not in names]
    return DecisionTruth(old.index, _best_first([*moves, *screened]), chosen,
                         old.seconds + time.perf_counter() - began, old.games)


def raise_truth(decision: Decision, one: DecisionTruth, target_se: float, games: int, seed: int, *,
                workers: int | None = 1, truncate: bool = True, net: Net | str | None = None,
                quantised: bool = False, cancel: threading.Event | None = None,
                checkpoints: str | os.PathLike[str] | None = None) -> DecisionTruth:
    """`one` (the truth of `decision`, `games` a candidate unless it says more) with every
    rolled-out candidate's equity SE under `target_se`: while one is not, they are rolled out
    again, together and from the start with the decision's seed, with the games that SE
    calls for ((SE / target)^2 times as many, 5% over, rounded up to a multiple of 36; at
    least a quarter more each time). Screened-out moves keep their numbers. A decision
    already under the target is returned as it is. `checkpoints` as in `decision_truth`."""
    target_se = check_real("target_se", target_se, 0.001, 1.0)
    evaluator = _player(_net_of(net, decision), quantised)
    n = one.games or games
    while (worst := max(m.se for m in one.moves if m.games is None)) >= target_se:
        n = max(math.ceil(n * 1.05 * (worst / target_se) ** 2), math.ceil(n * 1.25))
        n = -(-n // 36) * 36
        began = time.perf_counter()
        moves = _rolled_out(decision, [m.move for m in one.moves if m.games is None], one.index, n, seed, workers,
                            truncate, evaluator, cancel, checkpoints)
        one = DecisionTruth(one.index, _best_first([*moves, *(m for m in one.moves if m.games is not None)]),
                            one.picks, one.seconds + time.perf_counter() - began, n)
    return one


def complete_truth(decision: Decision, one: DecisionTruth, games: int, seed: int, *, workers: int | None = 1,
                   truncate: bool = True, net: Net | str | None = None, quantised: bool = False,
                   cancel: threading.Event | None = None, every_move: bool = False,
                   checkpoints: str | os.PathLike[str] | None = None) -> DecisionTruth:
    """`one` (the truth of `decision`) with every move within `WINDOW` of the 2-ply best rolled
    out: the moves it lacks are screened against its best with the decision's games and seed
    (`rollout_moves(stop_early=True)`: rounds of 1, 1, 2, 4, ... blocks of 1,296 games, a move
    whose 95% interval of its difference to the round's leader lies wholly below zero rolled
    out no further). A move that plays every game joins the candidates; if one beats the best,
    the candidates are rolled out again with it (their numbers bit for bit, else
    CheckpointError). A screened-out move keeps its games and its difference to the screen's
    best over the games both played. `every_move`: the window is drawn by every move's 2-ply
    value, not the search's (whose move filter leaves most moves at their 1-ply value).
    `checkpoints` as in `decision_truth`: the screen too resumes mid-way, its rounds kept."""
    evaluator = _net_of(net, decision)
    known = {m.move for m in one.moves}
    missing = [h.move.notation for h in hint(decision.position, decision.dice, 2, net=evaluator, every_move=every_move)
               if h.loss <= WINDOW and h.move.notation not in known]
    if not missing:
        return one
    n, player = one.games or games, _player(evaluator, quantised)
    rolled = [m for m in one.moves if m.games is None]
    began = time.perf_counter()
    screen = _rolled_out(decision, [rolled[0].move, *missing], one.index, n, seed, workers, truncate, player,
                         cancel, checkpoints, screen=True)
    _same_numbers(one.index, rolled[:1], screen, ulps=True)
    joined = [m for m in screen if m.games is None and m.move != rolled[0].move]
    if screen[0].move == rolled[0].move:
        moves = [*rolled, *joined]
    else:  # a screened move beat the best: every difference is to it
        moves = list(_rolled_out(decision, [*(m.move for m in rolled), *(m.move for m in joined)], one.index, n, seed,
                                 workers, truncate, player, cancel, checkpoints))
        _same_numbers(one.index, rolled, moves, ulps=True)  # a move that joined by a screen: its rounds summed
    names = {m.move for m in moves}  # the best screened against may be out, and rolled out again
    out = [m for m in screen if m.games is not None and m.move not in names]
    kept = [m for m in one.moves if m.games is not None]
    return DecisionTruth(one.index, _best_first([*moves, *kept, *out]), one.picks,
                         one.seconds + time.perf_counter() - began, one.games)


@dataclass(frozen=True)
class Truth:
    """The truth file: its settings (which decide every number in it) and the decisions done."""

    settings: dict[str, Any]
    decisions: tuple[DecisionTruth, ...]

    def to_json(self) -> str:
        return json.dumps({"format": TRUTH_FORMAT, "settings": self.settings,
                           "decisions": [d.to_dict() for d in self.decisions]}, indent=None) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Truth:
        data = _json_of(text, TRUTH_FORMAT, "truth")
        with _fields("truth"):
            settings = {"game": "fevga", **data["settings"]}  # files written before Gioul were Fevga's
            decisions = tuple(DecisionTruth.from_dict(d) for d in data["decisions"])
            for key, low in (("corpus_size", len(decisions)), ("games", 1), ("seed", 0)):
                if type(settings[key]) is not int or settings[key] < low:
                    raise ValueError(f"setting {key} {settings[key]!r} must be an integer >= {low}")
            players = settings["players"]
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                raise ValueError(f"setting players {players!r} must be a list of names")
            for k, d in enumerate(decisions):
                if d.index != k or not set(d.picks) <= set(players):
                    raise ValueError(f"decision {k} must be the corpus's decision {k} with picks of the players")
            return cls(settings, decisions)


def load_truth(path: str | os.PathLike[str]) -> Truth:
    return _loaded(path, "truth", Truth.from_json)


def run_truth(corpus: Corpus, path: str | os.PathLike[str], games: int, seed: int, *, workers: int | None = 1,
              truncate: bool = True, limit: int | None = None, net: Net | str | None = None,
              target_se: float | None = None, quantised: bool = False, every_move: bool = False,
              on_decision: Callable[[DecisionTruth, int], None] | None = None) -> Truth:
    """Establish the truth of `corpus` into `path`, resuming from what `path` holds.

    Each decision: its first candidates and picks rolled out (`decision_truth`), raised to
    `target_se` if given (`raise_truth`: `games` first, more where needed), the rest of the
    window screened in (`complete_truth`), and raised again for the moves that joined. The
    file is rewritten atomically after each decision. A file made with other settings
    (corpus, games, seed, truncation, net, target SE) raises CheckpointError; one made for
    fewer players is extended first, decision by decision (`extend_truth`), and one made
    without a target SE or without the screen is raised or completed the same way.
    `quantised` plays the rollouts with the net's int16 tables (the float net still ranks the
    candidates and makes the picks); the file records it. `every_move` draws the window by every
    move's 2-ply value (the file records it; a truth made without it is completed to it in
    place, as one made before the screen is). `limit` stops after that many
    decisions in all (None: the whole corpus); `on_decision(truth, total)` is called after
    each new, extended, raised or completed one is saved.

    `workers` decisions run at a time, each rolled out on `workers` threads (None: every
    core; fewer threads a decision where the product would pass MAX_NESTED_THREADS); the
    file is the same for any count. New decisions are saved in the corpus's order. The
    rollouts of the decisions not yet saved keep their progress in the folder
    ``<path>.rollouts`` (`decision_truth`'s `checkpoints`; a decision's files are removed
    once it is saved, the folder once the run is whole), so Ctrl-C or a killed process loses
    only the blocks in flight (1,296 games of every move a rollout plays): a rerun resumes
    every rollout where it stopped, to the same numbers.
    """
    games, seed = check_int("games", games, 1), check_int("seed", seed, 0)
    threads, workers = nested_threads(workers)
    if target_se is not None:
        target_se = check_real("target_se", target_se, 0.001, 1.0)
    every_move = check_flag("every_move", every_move)
    evaluator = _truth_net(net, corpus.game, quantised)
    if evaluator.checksum != corpus.net:
        raise InvalidArgumentError(f"the corpus was made by net {corpus.net[:12]}, not {evaluator.checksum[:12]}")
    players = list(players_of(corpus.game))
    settings = {"game": corpus.game, "corpus_seed": corpus.seed, "corpus_size": len(corpus.decisions),
                "net": corpus.net, "games": games, "seed": seed, "truncate": bool(truncate), "policy": "net",
                "window": WINDOW, "max_candidates": MAX_CANDIDATES, "screened": True, "players": players,
                **({} if target_se is None else {"target_se": target_se}),
                **({"quantised": True} if quantised else {}), **({"every_move": True} if every_move else {})}
    done: tuple[DecisionTruth, ...] = ()
    old = None
    if Path(path).exists():
        old = load_truth(path)
        # a truth made for fewer players, with no target SE, before the screen or with the
        # search's window is extended, raised or completed below; any other difference is refused
        fewer = set(old.settings.get("players", ())) <= set(players)
        loose = {"screened": True, **({} if old.settings.get("target_se") is not None else {"target_se": target_se}),
                 **({} if old.settings.get("every_move") else {"every_move": every_move})}
        if not fewer or {**old.settings, "players": players, **loose} != {**settings, **loose}:
            changed = sorted(k for k in settings.keys() | old.settings.keys() if settings.get(k) != old.settings.get(k))
            raise CheckpointError(f"{os.fspath(path)!r} holds the truth of other settings ({', '.join(changed)}): "
                                  "remove it or give its settings")
        done = old.decisions
    total = len(corpus.decisions) if limit is None else min(len(corpus.decisions), check_int("limit", limit, 0))
    truth = Truth(settings, done)
    checkpoints = _checkpoint_folder(path)

    written = None if old is None else old.settings

    def save(one: DecisionTruth | None) -> None:
        nonlocal written
        text = truth.to_json().encode()
        atomic_write(path, lambda handle: handle.write(text), "truth")
        written = settings
        if on_decision is not None and one is not None:
            on_decision(one, total)

    def settle(index: int, cancel: threading.Event) -> DecisionTruth:
        """Decision `index` made, or the file's extended, raised and completed (in a worker thread)."""
        decision = corpus.decisions[index]
        if index < len(done):
            one = done[index]
            if set(one.picks) != set(players):
                new = picks(decision, evaluator, [p for p in players if p not in one.picks])
                one = extend_truth(decision, one, new, games, seed, workers=workers, truncate=truncate,
                                   net=evaluator, quantised=quantised, cancel=cancel, checkpoints=checkpoints)
        else:
            one = decision_truth(decision, index, games, seed, workers=workers, truncate=truncate, net=evaluator,
                                 quantised=quantised, cancel=cancel, every_move=every_move, checkpoints=checkpoints)
        return _settled(decision, one, games, seed, workers, truncate, evaluator, quantised, target_se, cancel,
                        every_move, checkpoints)

    held: dict[int, DecisionTruth] = {}  # new decisions that ended before one started ahead of them

    def finished(index: int, one: DecisionTruth) -> None:
        nonlocal truth
        if index < len(done):
            if one != done[index]:
                truth = Truth(settings, truth.decisions[:index] + (one,) + truth.decisions[index + 1:])
                save(one)
            _clear_checkpoints(checkpoints, index)
            return
        held[index] = one
        while len(truth.decisions) in held:
            one = held.pop(len(truth.decisions))
            truth = Truth(settings, truth.decisions + (one,))
            save(one)
            _clear_checkpoints(checkpoints, one.index)

    # Decisions run `workers` at a time, each rollout on `workers` threads too, so both the
    # screen's one-block first rounds and a last long decision keep every core busy; the
    # numbers do not depend on it. New decisions are saved in order: at most 2 * workers run
    # ahead of the oldest unfinished one.
    run_tasks(range(len(done)), threads, settle, finished)
    run_tasks(range(len(done), total), threads, settle, finished, ahead=2 * threads)
    if written is not None and written != settings:  # every decision already met the new settings
        save(None)
    _remove_checkpoint_folder(checkpoints)
    return truth


def _checkpoint_folder(path: str | os.PathLike[str]) -> Path:
    """The folder ``<path>.rollouts`` where a truth's running rollouts keep their progress, made
    if need be (CheckpointError if it cannot be)."""
    folder = Path(f"{os.fspath(path)}.rollouts")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"cannot make the rollouts' folder {str(folder)!r}: {exc.strerror or exc}") from None
    return folder


def _remove_checkpoint_folder(folder: Path) -> None:
    """Remove a whole run's folder of rollout checkpoints, with any left by other runs."""
    _clear_checkpoints(folder)
    try:
        folder.rmdir()
    except OSError:  # something else put there: kept
        pass


def _settled(decision: Decision, one: DecisionTruth, games: int, seed: int, workers: int | None, truncate: bool,
             net: Net, quantised: bool, target_se: float | None, cancel: threading.Event | None,
             every_move: bool, checkpoints: Path | None = None) -> DecisionTruth:
    """`one` raised to `target_se` (if any), completed to the whole window, and raised again
    for the moves the screen let in: the order a decision of run_truth goes through."""
    if target_se is not None:
        one = raise_truth(decision, one, target_se, games, seed, workers=workers, truncate=truncate, net=net,
                          quantised=quantised, cancel=cancel, checkpoints=checkpoints)
    one = complete_truth(decision, one, games, seed, workers=workers, truncate=truncate, net=net, quantised=quantised,
                         cancel=cancel, every_move=every_move, checkpoints=checkpoints)
    if target_se is not None:
        one = raise_truth(decision, one, target_se, games, seed, workers=workers, truncate=truncate, net=net,
                          quantised=quantised, cancel=cancel, checkpoints=checkpoints)
    return one


def judge_truth(corpus: Corpus, source: str | os.PathLike[str], path: str | os.PathLike[str], judged: Net | str,
                plies: int = 1, name: str | None = None, *, workers: int | None = 1, net: Net | str | None = None,
                every_move: bool | None = None,
                on_decision: Callable[[DecisionTruth, int], None] | None = None) -> Truth:
    """The truth in `source` (of `corpus`) with one more player, written to `path`: the net
    `judged` (a candidate net of the corpus's game) choosing as `hint(..., plies, every_move=)`
    does (None: the game's default search, every move in Gioul), named `name` (default "net
    <its sha256[:12]> <plies>-ply", then " every move" for an every-move search). Its picks are judged by the truth's own rollouts
    (`extend_truth`, the truth's net `net` playing them out), so its losses compare with every
    other player's. `path` is rewritten atomically after each decision and resumed from, and
    the rollouts running keep their progress in ``<path>.rollouts`` as `run_truth`'s do; its
    settings record the player's net and plies.

    A net that is to replace the shipped one is judged this way on the shipped net's truth."""
    truth = load_truth(source)
    settings = dict(truth.settings)
    judge = net_of(judged, corpus.game)
    plies = check_int("plies", plies, 1, 3)
    every_move = every_move_of(corpus.game, every_move) and plies > 1  # at 1 ply every move is valued anyway
    threads, workers = nested_threads(workers)
    name = f"net {judge.checksum[:12]} {search_name(plies, every_move)}" if name is None else name
    if name in settings["players"]:
        raise InvalidArgumentError(f"the truth already has a player named {name!r}")
    evaluator = _truth_net(net, corpus.game, settings.get("quantised", False))
    if evaluator.checksum != settings["net"] or corpus.net != settings["net"] or \
            len(corpus.decisions) != settings["corpus_size"] or corpus.seed != settings["corpus_seed"]:
        raise CheckpointError(f"{os.fspath(source)!r} is not a truth of this corpus rolled out by net "
                              f"{evaluator.checksum[:12]}")
    settings["players"] = [*settings["players"], name]
    settings["judged"] = {**settings.get("judged", {}), name: {"net": judge.checksum, "plies": plies,
                                                               **({"every_move": True} if every_move else {})}}
    decisions = truth.decisions
    if Path(path).exists():
        done = load_truth(path)
        if done.settings != settings:
            raise CheckpointError(f"{os.fspath(path)!r} holds another judgement: remove it or give its settings")
        decisions = done.decisions + decisions[len(done.decisions):]  # the source may have grown since
    truncate, quantised = settings["truncate"], settings.get("quantised", False)
    checkpoints = _checkpoint_folder(path)

    def judged_one(index: int, cancel: threading.Event) -> DecisionTruth:
        """Decision `index` with the judged net's pick (in a worker thread)."""
        decision, old = corpus.decisions[index], decisions[index]
        pick = hint(decision.position, decision.dice, plies, net=judge, every_move=every_move)[0].move
        one = extend_truth(decision, old, {name: pick}, settings["games"], settings["seed"], workers=workers,
                           truncate=truncate, net=evaluator, quantised=quantised, cancel=cancel,
                           checkpoints=checkpoints)
        if settings.get("target_se") is not None:  # a pick rolled out anew meets the truth's target too
            one = raise_truth(decision, one, settings["target_se"], settings["games"], settings["seed"],
                              workers=workers, truncate=truncate, net=evaluator, quantised=quantised, cancel=cancel,
                              checkpoints=checkpoints)
        return one

    def finished(index: int, one: DecisionTruth) -> None:
        nonlocal decisions
        decisions = decisions[:index] + (one,) + decisions[index + 1:]
        text = Truth(settings, decisions).to_json().encode()
        atomic_write(path, lambda handle: handle.write(text), "truth")
        _clear_checkpoints(checkpoints, index)
        if on_decision is not None:
            on_decision(one, len(decisions))

    # decisions `workers` at a time, as in run_truth
    run_tasks([k for k, old in enumerate(decisions) if name not in old.picks], threads, judged_one, finished)
    _remove_checkpoint_folder(checkpoints)
    return Truth(settings, decisions)


@dataclass(frozen=True)
class ErrorRate:
    """A player's mean loss per decision with its 95% interval over the decisions, and the
    rollouts' mean standard error of its per-decision losses."""

    player: str
    decisions: int
    mean: float
    ci95: float
    mean_se: float
    zero: float  # share of decisions where it picked the rolled-out best
    bias: float  # the part of `mean` that rollout noise alone would add (selection_bias)


def error_rates(decisions: Sequence[DecisionTruth], players: Sequence[str] | None = None,
                seed: int = 0) -> list[ErrorRate]:
    """Mean loss per decision of each player (default: every player the truth has picks of;
    95% interval: 1.96 x sd / sqrt(n) over decisions), with its estimated selection bias
    (`selection_bias`, drawn with `seed`)."""
    if not decisions:
        raise InvalidArgumentError("no decisions to rate: the truth is empty")
    players = tuple(decisions[0].picks) if players is None else players
    for d in decisions:
        if not set(players) <= set(d.picks):
            lacking = sorted(set(players) - set(d.picks))
            raise InvalidArgumentError(f"decision {d.index} has no pick of {', '.join(map(repr, lacking))} (a truth "
                                       "extended to new players part way: run it to the end)")
    out = []
    for player in players:
        losses = np.array([d.loss(player) for d in decisions], dtype=float)
        ses = np.array([d.loss_se(player) for d in decisions], dtype=float)
        n = len(losses)
        spread = float(losses.std(ddof=1)) if n > 1 else math.nan
        out.append(ErrorRate(player, n, float(losses.mean()), Z95 * spread / math.sqrt(n), float(ses.mean()),
                             float(np.mean(losses == 0.0)), selection_bias(decisions, player, seed)))
    return out


def selection_bias(decisions: Sequence[DecisionTruth], player: str, seed: int = 0, draws: int = 200) -> float:
    """How much rollout noise alone adds to `player`'s mean loss: the best candidate is the one
    whose estimate came out highest, so the loss of a pick as good as the best is not 0 but
    the noise of the winner. Estimated by parametric bootstrap: taking each decision's
    rolled-out equities as true, draw each candidate's estimate again with independent normal
    noise of its own standard error, and average (max of the draws - the pick's draw) minus
    (max - pick) of the equities. Independent noise ignores the positive correlation common
    random numbers give, so this errs on the large side. The best is drawn from the rolled-out
    candidates: a screened-out move was ruled out by its own test, not by the maximum."""
    rng = np.random.default_rng(np.random.SeedSequence(check_int("seed", seed, 0)))
    extra = 0.0
    for d in decisions:
        rolled = [m for m in d.moves if m.games is None]
        equity = np.array([m.equity for m in rolled])
        se = np.array([m.se for m in rolled])
        pick = [m.move for m in rolled].index(d.picks[player])
        noisy = equity + rng.standard_normal((draws, len(equity))) * se
        extra += float(np.mean(noisy.max(axis=1) - noisy[:, pick])) - float(equity.max() - equity[pick])
    return extra / len(decisions)


def markdown_table(rates: Sequence[ErrorRate]) -> str:
    """The error rates as a markdown table (equity in points per decision)."""
    lines = ["| player | decisions | mean equity lost per decision (95% CI) | of which rollout noise (est.) | "
             "best move picked | mean rollout SE of its loss (0 when it picked the best) |",
             "|---|---|---|---|---|---|"]
    for r in rates:
        lines.append(f"| {r.player} | {r.decisions} | {r.mean:.4f} ± {r.ci95:.4f} | {r.bias:.4f} | "
                     f"{100 * r.zero:.1f}% | {r.mean_se:.4f} |")
    return "\n".join(lines)


def _read(path: str | os.PathLike[str], what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidArgumentError(f"cannot read the {what} file {os.fspath(path)!r}: {exc}") from None


def _loaded(path: str | os.PathLike[str], what: str, parse: Callable[[str], T]) -> T:
    """The corpus or truth file at `path`, parsed; a malformed one is a CheckpointError naming it."""
    text = _read(path, what)
    try:
        return parse(text)
    except CheckpointError as exc:
        raise CheckpointError(f"{os.fspath(path)!r}: {exc}") from None


@contextmanager
def _fields(what: str) -> Iterator[None]:
    """A missing or malformed field of a corpus or truth file is one CheckpointError (a bad
    position ID or dice already is a FevgaError, which passes through)."""
    try:
        yield
    except FevgaError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CheckpointError(f"the {what} file is malformed: {type(exc).__name__} {exc}") from None


def _json_of(text: str, expected: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"the {what} file is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != expected:
        raise CheckpointError(f"not a {what} file (format {expected!r} expected)")
    return data
