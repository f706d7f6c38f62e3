"""One vocabulary for the public API (issue 15): the same names for the same things in every
public function of both games, and the old names of renamed parameters still accepted."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import fevga
from fevga import analysis, bearoff, game, strength, train
from fevga.bearoff import race_estimate

# A name on the left is the public name of what the right names elsewhere.
SYNONYMS = {
    "rules": {"ruleset", "rule"},
    "bearoff": {"two_sided", "two_sided_db"},
    "one_sided": {"db", "one_sided_db"},
    "workers": {"threads", "n_workers", "processes", "jobs"},
    "seed": {"random_seed", "rng"},
    "plies": {"depth", "ply"},
    "progress": {"show_progress", "verbose", "progress_bar"},
    "on_block": {"callback", "on_progress", "progress_callback"},
}
# Old names kept, keyword-only with default None, only to warn and forward (see below); and
# perft, whose depth counts decisions of either game, the word perft always uses.
ALLOWED = {("expectimax", "depth"), ("race_estimate", "db"), ("perft", "depth")}


def public_functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    """The functions, classmethods and methods a user reaches: fevga's and fevga.bearoff's
    __all__, and what analysis, game, strength and train define themselves."""
    for module in (fevga, analysis, bearoff, game, strength, train):
        for name in getattr(module, "__all__", dir(module)):
            value = getattr(module, name)
            home = getattr(value, "__module__", "")
            if (name.startswith("_") or not callable(value) or not home.startswith("fevga")
                    or (not hasattr(module, "__all__") and home != module.__name__)):
                continue
            targets = [value] if inspect.isfunction(value) else [
                member for member_name, member in vars(value).items()
                if not member_name.startswith("_") and (inspect.isfunction(member) or isinstance(member, classmethod))
            ] if inspect.isclass(value) else []
            for target in targets:
                function = target.__func__ if isinstance(target, classmethod) else target
                yield function.__qualname__, function


def test_the_walk_finds_the_public_functions() -> None:
    names = {name for name, _ in public_functions()}
    assert {"rollout", "rollout_moves", "expectimax", "evaluate", "hint", "analyse", "play_game",
            "race_estimate", "duel", "train", "OneSidedDB.build", "TwoSidedDB.build"} <= names


def test_public_parameters_use_the_shared_names() -> None:
    stray = []
    for qualname, function in public_functions():
        for parameter in inspect.signature(function).parameters.values():
            for name, others in SYNONYMS.items():
                if parameter.name in others and (qualname.split(".")[-1], parameter.name) not in ALLOWED:
                    stray.append(f"{function.__module__}.{qualname}({parameter.name}=): call it {name}=")
            if parameter.name == "progress":  # a switch: True, False (or None: the default for a terminal)
                assert parameter.default in (None, False), qualname
    assert not stray, stray


def test_old_names_warn_and_give_the_same_result() -> None:
    start = fevga.Position.initial()
    with pytest.warns(DeprecationWarning, match=r"expectimax\(depth=\) is now expectimax\(plies=\)"):
        old = fevga.expectimax(start, depth=1)
    assert old == fevga.expectimax(start, plies=1) == fevga.expectimax(start, 1)
    table = bearoff.OneSidedDB.build(6, 3)
    race = fevga.Position.from_counts([12, 1, 1, 1] + [0] * 21, [13, 0, 1, 0, 1] + [0] * 20, fevga.WHITE)
    with pytest.warns(DeprecationWarning, match=r"race_estimate\(db=\) is now race_estimate\(one_sided=\)"):
        old_estimate = race_estimate(race, db=table)
    assert old_estimate == race_estimate(race, one_sided=table) == race_estimate(race, None, table)
    for qualname, name in (("expectimax", "depth"), ("race_estimate", "db")):
        parameter = inspect.signature(dict(public_functions())[qualname]).parameters[name]
        assert parameter.kind is parameter.KEYWORD_ONLY and parameter.default is None
