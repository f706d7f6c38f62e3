"""The browser board of `fevga serve`: its routes probed over HTTP, then the page itself in a real
browser (Chromium from the system packages, driven by Selenium through Debian's chromedriver).

The browser tests click as a person does (a checker, then a point; the chosen checker again for
its highest die; the tray to bear off), ask for hints, undo, open records and step through
their analysis, in both games, and check screenshots pixel by pixel. Without a browser they are
skipped, except under FEVGA_REQUIRE_BROWSER=1 (set by .ci/run), where they fail. They share one
browser session and one load of the page, and wait on the page's own busy/ready state, so that
each takes a few seconds. The checked screenshots go to tmp_path; with $FEVGA_SCREENSHOTS
naming a folder they are copied there, beside pictures of the whole window (docs/images).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_http import Server, request
from test_ubgi import GIOUL_EVERY_MOVE_ID

from fevga import GioulPosition, Position, evaluate, hint
from fevga.cli.human import Console, Engine, play_human_game
from fevga.game import play_game
from fevga.notation import other_point
from fevga.position import BLACK
from fevga.records import write_match
from fevga.rules import Rules
from fevga.service.http import Limits
from fevga.service.play import PlayedItem, PlayError, PlayRequest, replay

API = "/api/v1"
LIMITS = Limits(seconds=60.0, workers=2)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = Server(LIMITS)
    yield server.port
    server.stop()


def post(port: int, path: str, body: Any) -> tuple[int, Any]:
    status, data, _ = request(port, "POST", path, body if isinstance(body, (dict, str)) else json.dumps(body))
    return status, data


def refused(status: int, data: Any, code: str) -> None:
    assert 400 <= status < 500 and data["error"]["code"] == code, (status, data)
    assert "Traceback" not in json.dumps(data)


# ---------------------------------------------------------------------- the routes


def test_page_and_its_files_are_served_with_a_strict_policy(port: int) -> None:
    status, page, headers = request(port, "GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert 'src="static/board.js"' in page and 'href="static/board.css"' in page and "<script>" not in page
    assert "script-src 'self'" in headers["content-security-policy"]
    for name, kind in (("board.js", "text/javascript"), ("board.css", "text/css")):
        status, body, headers = request(port, "GET", f"/static/{name}")
        assert status == 200 and headers["content-type"].startswith(kind) and len(body) > 1000
    for name in ("index.html", "../http.py", "%2e%2e%2fhttp.py", "nothing.js"):
        status, data, _ = request(port, "GET", f"/static/{name}")
        assert status == 404 and data["error"]["code"] == "not_found", name


def svg_of(port: int, query: str) -> tuple[int, Any, dict[str, str]]:
    status, data, headers = request(port, "GET", f"{API}/svg?{query}")
    return status, data.decode() if status == 200 else data, headers


def test_svg_route_is_fevga_svg(port: int) -> None:
    from fevga import svg

    position = Position.initial().play("24/13", (6, 5))
    status, text, headers = svg_of(port, f"position={position.id}&dice=3%203&perspective=black")
    assert status == 200 and headers["content-type"] == "image/svg+xml; charset=utf-8"
    assert text == svg.board(position, dice=(3, 3), perspective=BLACK)
    assert text.count('class="point"') == 24 and text.count('class="die"') == 2
    gioul = GioulPosition.initial().rolled((5, 5))
    status, text, _ = svg_of(port, f"position={gioul.id}&dice=5%205%205%205")
    assert status == 200 and text == svg.board(gioul.board(), dice=(5, 5, 5, 5))
    mid = json.dumps({"white": [0] * 19 + [1] + [0] * 4 + [14], "black": [0] * 24 + [15], "turn": "white"})
    status, text, _ = svg_of(port, f"position={quote(mid)}")
    assert status == 200 and 'data-point="19"' in text
    for query, code in (("position=zz", "invalid_notation"), ("position=start&dice=7", "invalid_dice"),
                        ("position=start&dice=1%202%203%204%205", "invalid_dice"), ("position=start&size=5", "invalid_request"),
                        ("position=start&perspective=red", "invalid_request")):
        status, data, _ = request(port, "GET", f"{API}/svg?{query}")
        refused(status, data, code)


def test_position_route_gives_counts_and_pending_dice(port: int) -> None:
    status, data, _ = request(port, "GET", f"{API}/position?position=start")
    assert status == 200 and data["white"] == [0] * 24 + [15] and data["turn"] == "white" and data["game"] == "fevga"
    assert data["max_plies"] == {"evaluate": 3, "hint": 4}  # what the board's depth menus are clipped to
    state = GioulPosition.initial().rolled((4, 4))
    status, data, _ = request(port, "GET", f"{API}/position?position={state.id}")
    assert status == 200 and data["game"] == "gioul" and data["pending"] == [4, 4, 4, 4]
    assert data["decision_dice"] == [4, 4, 4, 4] and GioulPosition.from_json(data["json"]) == state
    assert data["max_plies"] == {"evaluate": 2, "hint": 3}  # a Gioul move choice searches one ply deeper
    status, data, _ = request(port, "GET", f"{API}/position?position=start&game=gioul")
    assert status == 200 and data["game"] == "gioul" and data["id"] == GioulPosition.initial().id


def test_play_route_replays_and_refuses_bad_histories(port: int) -> None:
    body = {"game": "fevga", "seed": 11, "human": "white", "engine": "heuristic"}
    status, state = post(port, f"{API}/play", body)
    assert status == 200 and state["status"] == "your_turn" and state["turn"]["mover"] == "white"
    turn = state["turn"]
    position = Position.from_id(state["position"]["id"])
    legal = position.legal_moves(tuple(turn["dice"]))
    assert sorted(m["move"] for m in turn["moves"]) == sorted(m.notation for m in legal)
    move = turn["moves"][-1]
    history = [{"move": h["move"], "roll": h["roll"]} for h in state["history"]] + [{"move": move["move"], "roll": turn["roll"]}]
    status, after = post(port, f"{API}/play", {**body, "history": history, "draws": state["draws"]})
    assert status == 200 and after["known"] == len(history) and len(after["history"]) > len(history)
    assert after["history"][len(history) - 1]["after"]["id"] == move["after"]
    for bad, code in ((history[:-1] + [{"move": "1/off", "roll": turn["roll"]}], "play"),
                      (history[:-1] + [{"move": move["move"], "roll": state["draws"]}], "play"),
                      (history[:-1] + [{"move": move["move"], "roll": None}], "play")):
        status, data = post(port, f"{API}/play", {**body, "history": bad, "draws": state["draws"]})
        refused(status, data, code)
    for hostile in ({**body, "seed": -1}, {**body, "engine": "random"}, {**body, "human": "both"},
                    {**body, "history": [{"move": "x" * 500}]}, {**body, "draws": 10**9}, {**body, "extra": 1}):
        status, data = post(port, f"{API}/play", hostile)
        refused(status, data, "invalid_request")
    status, data = post(port, f"{API}/play", {"game": "gioul", "engine": "random"})  # the browser offers no random
    refused(status, data, "invalid_request")
    status, data = post(port, f"{API}/play", {"game": "gioul", "engine": "net2"})  # the Gioul 2-ply search plays
    assert status == 200, data
    status, data = post(port, f"{API}/play", {**body, "undo": True})
    refused(status, data, "play")


def _human_moves(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for h in state["history"] if h["human"]]


def _play_on(request_: PlayRequest, state: dict[str, Any], choose: int = 0) -> tuple[PlayRequest, dict[str, Any]]:
    from dataclasses import replace

    turn = state["turn"]
    history = tuple(PlayedItem(h["move"], h["roll"]) for h in state["history"])
    played = replace(request_, history=history + (PlayedItem(turn["moves"][choose % len(turn["moves"])]["move"], turn["roll"]),),
                     draws=state["draws"], undo=False)
    return played, replay(played)


@pytest.mark.parametrize("game", ["fevga", "gioul"])
def test_a_browser_game_is_the_terminal_game_of_the_same_seed(game: str) -> None:
    """The same seed and the same human moves give the same record as `fevga play --human`."""
    start = PlayRequest(game=game, seed=5, human="black", engine="heuristic")
    state = replay(start)
    current = start
    chosen: list[str] = []
    for k in range(6):
        if state["status"] != "your_turn":
            break
        choice = 3 * k + 1
        chosen.append(state["turn"]["moves"][choice % len(state["turn"]["moves"])]["move"])
        current, state = _play_on(current, state, choice)
    assert len(chosen) >= 3
    console = Console(stdin=io.StringIO("\n".join(chosen) + "\nquit\n"), stdout=io.StringIO())
    rules = Rules.gioul() if game == "gioul" else Rules()
    record = play_human_game("black", seed=5, rules=rules, console=console, engine=Engine("heuristic", game))
    terminal = record.to_dict()
    browser = state["record"]
    if state["status"] == "your_turn":  # the terminal game stopped at the same decision
        assert terminal["result"] == browser["result"] == "truncated"
    assert terminal == browser


def test_undo_gives_the_same_dice_and_fresh_dice_after() -> None:
    start = PlayRequest(game="fevga", seed=3, human="white", engine="heuristic")
    state = replay(start)
    first_dice = state["turn"]["dice"]
    current, after = _play_on(start, state, 1)
    assert after["status"] == "your_turn"
    undone = replay(PlayRequest(**{**current.__dict__, "history": tuple(PlayedItem(h["move"], h["roll"]) for h in after["history"]),
                                   "draws": after["draws"], "undo": True}))
    assert undone["turn"]["dice"] == first_dice and undone["turn"]["roll"] == state["turn"]["roll"]
    assert len(_human_moves(undone)) == len(_human_moves(state))
    assert undone["draws"] == after["draws"]  # the dice drawn before the undo stay drawn
    # playing the same move again gives the same move, and the engine then rolls fresh dice
    again = replay(PlayRequest(**{**current.__dict__, "history": tuple(
        PlayedItem(h["move"], h["roll"]) for h in undone["history"]) + (current.history[-1],), "draws": undone["draws"]}))
    engine_rolls = [h["roll"] for h in again["history"][len(current.history):] if h["roll"] is not None]
    assert engine_rolls and min(engine_rolls) >= after["draws"]


def test_play_error_names_the_problem() -> None:
    with pytest.raises(PlayError, match=r"history\[0\].*illegal"):
        replay(PlayRequest(seed=1, human="white", engine="heuristic", history=(PlayedItem("24/1", 0),), draws=1))
    with pytest.raises(PlayError, match="roll must be"):
        replay(PlayRequest(seed=1, human="white", engine="heuristic", history=(PlayedItem("24/13", 5),), draws=1))


def test_gioul_play_shows_decisions_one_by_one() -> None:
    """A Gioul game: chains come as blocks of four, hand-overs as their own decisions, each with
    its dice and boards step by step."""
    request_ = PlayRequest(game="gioul", seed=2, human="white", engine="heuristic")
    state = replay(request_)
    kinds: set[str] = set()
    for k in range(60):
        if state["status"] != "your_turn":
            break
        for entry in state["history"]:
            kinds.add(entry["kind"])
            assert len(entry["frames"]) == len(entry["steps"])
            if entry["steps"]:  # the last frame is the board after the decision (the mover still on turn)
                last, after = Position.from_id(entry["frames"][-1]), Position.from_id(entry["after"]["board"])
                assert last.counts(0) == after.counts(0) and last.counts(1) == after.counts(1)
        assert state["turn"]["decision_dice"] and len(state["turn"]["decision_dice"]) in (1, 2, 3, 4)
        request_, state = _play_on(request_, state, k)
    assert {"roll", "block"} <= kinds, kinds


def test_record_route_steps_through_both_games(port: int) -> None:
    fevga = play_game(seed=4, policy="heuristic", max_plies=30)
    status, data = post(port, f"{API}/record", write_match(fevga))
    assert status == 200 and data["game"] == "fevga"
    decisions = data["games"][0]["decisions"]
    positions = fevga.positions()
    assert [d["before"] for d in decisions] == [p.id for p in positions[:-1]]
    assert [d["move"] for d in decisions] == [p.notation for p in fevga.plies]
    gioul = play_game(game="gioul", seed=4, policy="heuristic")
    status, data = post(port, f"{API}/record", gioul.to_json())
    assert status == 200 and data["game"] == "gioul"
    decisions = data["games"][0]["decisions"]
    assert len(decisions) == len(gioul.decisions) and {d["kind"] for d in decisions} <= {"roll", "block", "hand-over"}
    assert decisions[-1]["after"] == gioul.final.id
    for body, code in (("", "invalid_record"), ("{", "invalid_record"), ("Game 1\n 1) 65: 24/1\n", "record")):
        status, data = post(port, f"{API}/record", body)
        refused(status, data, code)
    status, data = post(port, f"{API}/analyse?graphs=true", write_match(fevga))
    assert status == 200 and data["games"][0]["graph"].startswith("<svg") and "polyline" in data["games"][0]["graph"]


# ---------------------------------------------------------------------- the browser


def _browser() -> Any:
    """A headless Chromium under Selenium, or a skip (a failure with FEVGA_REQUIRE_BROWSER=1)."""
    required = os.environ.get("FEVGA_REQUIRE_BROWSER", "0") == "1"

    def missing(why: str) -> None:
        if required:
            pytest.fail(f"FEVGA_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)

    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed (pip install 'fevga[test]')")
    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        missing(f"no {'chromium' if binary is None else 'chromedriver'} on PATH (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1500",
                 "--force-device-scale-factor=1", "--lang=en"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


# Resolves once the page is ready (body[data-state], busy from each action until its work is
# done) and `until` holds, and is still so after the tasks already queued have run.
WAIT = """
const done = arguments[arguments.length - 1];
const ok = () => document.body.dataset.state === "ready" && (%s);
const wait = () => (ok() ? setTimeout(() => (ok() ? done(true) : wait()), 0) : setTimeout(wait, 5));
wait();
"""


class Page:
    """The board page in one browser session, with waits on its data-state."""

    def __init__(self, driver: Any, port: int, query: str = "") -> None:
        self.driver, self.port = driver, port
        self.shots = Path(".")
        driver.get(f"http://127.0.0.1:{port}/{query}")
        self.settle()

    def settle(self, until: str = "true", timeout: float = 60.0) -> None:
        from selenium.common.exceptions import TimeoutException

        self.driver.set_script_timeout(timeout)
        try:
            self.driver.execute_async_script(WAIT % until)
        except TimeoutException:
            pytest.fail(f"the page stayed busy or not {until}: {self.text('play-status')!r}")
        # a script error fails the test; a refused request (a 4xx the page shows) does not
        errors = [e["message"] for e in self.driver.get_log("browser")
                  if e["level"] == "SEVERE" and "Failed to load resource" not in e["message"]]
        assert not errors, errors

    def el(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def els(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return list(self.driver.find_elements(By.CSS_SELECTOR, css))

    def text(self, id_: str) -> str:
        return str(self.driver.execute_script(f"return document.getElementById('{id_}').textContent"))

    def click(self, css: str) -> None:
        self.el(css).click()
        self.settle()

    def choose(self, id_: str, value: str) -> None:
        from selenium.webdriver.support.ui import Select

        Select(self.el(f"#{id_}")).select_by_value(value)

    def fill(self, id_: str, text: str) -> None:
        field = self.el(f"#{id_}")
        field.clear()
        field.send_keys(text)

    def board_id(self, board: str) -> str:
        return str(self.el(f"#{board} svg").get_attribute("data-position"))

    def click_point(self, board: str, printed: int) -> None:
        """A click on a point as a person makes it: on its top checker if it has any (the
        checkers lie over the point), else on the point."""
        checkers = self.els(f"#{board} .checker[data-point='{printed}']")
        target = checkers[-1] if checkers else self.el(f"#{board} polygon.point[data-point='{printed}']")
        target.click()
        self.settle()

    def upload(self, path: Path) -> None:
        """Choose `path` in the record view's file field, as a person does, and wait for its analysis."""
        self.driver.execute_script("document.getElementById('rec-status').textContent = ''")
        self.el("#rec-file").send_keys(str(path))
        self.settle("document.getElementById('rec-status').textContent !== ''")

    def click_off(self, board: str) -> None:
        self.el(f"#{board} .tray-frame").click()
        self.settle()

    def shot(self, name: str, css: str) -> Any:
        """A screenshot of the element `css` as an RGB array (saved, and kept as `keep` does)."""
        import matplotlib.image

        path = self.shots / f"{name}.png"
        self.el(css).screenshot(str(path))
        self._keep(path)
        pixels = matplotlib.image.imread(str(path))
        return (pixels[:, :, :3] * 255).round().astype(int)

    def keep(self, name: str) -> None:
        """The whole window into $FEVGA_SCREENSHOTS (the pictures of docs/http.md), if set."""
        if os.environ.get("FEVGA_SCREENSHOTS"):
            path = self.shots / f"{name}.png"
            self.driver.save_screenshot(str(path))
            self._keep(path)

    @staticmethod
    def _keep(path: Path) -> None:
        keep = os.environ.get("FEVGA_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(keep) / path.name)


@pytest.fixture(scope="module")
def browser_page(port: int) -> Iterator[Page]:
    """One browser session and one load of the page for the module's browser tests."""
    driver = _browser()
    driver.set_page_load_timeout(60)
    try:
        # the settings in the address: a short first game, no replay delay (the default is 450 ms a step)
        page = Page(driver, port, "?game=fevga&side=black&engine=heuristic&seed=4&speed=0")
        settings = [page.el(f"#play-{name}").get_property("value") for name in ("game", "side", "engine", "seed", "speed")]
        assert settings == ["fevga", "black", "heuristic", "4", "0"], settings
        yield page
    finally:
        driver.quit()


@pytest.fixture
def page(browser_page: Page, tmp_path: Path) -> Page:
    """The page, its screenshots going to this test's tmp_path."""
    browser_page.shots = tmp_path
    browser_page.settle()
    return browser_page


def _near(pixel: Any, color: str, tolerance: int = 24) -> bool:
    want = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, want))


def check_board_picture(page: Page, board: str, name: str) -> Any:
    """The board's screenshot is the drawing: the frame's brown in its corner, each side's
    checker colour at the centre of one of its checkers, many colours (not a blank)."""
    pixels = page.shot(name, f"#{board} svg")
    height, width, _ = pixels.shape
    assert width > 400 and height > 300, pixels.shape
    assert _near(pixels[3, 3], "#5b3a1e"), pixels[3, 3]
    import numpy as np

    packed = pixels.reshape(-1, 3)[::11] @ np.array([1 << 16, 1 << 8, 1])
    assert len(np.unique(packed)) > 30
    origin = page.el(f"#{board} svg").rect
    for color, ink in (("white", "#fbfbf4"), ("black", "#222222")):
        checker = page.els(f"#{board} .checker.{color}")
        if not checker:
            continue
        box = checker[0].rect
        x = int(box["x"] - origin["x"] + box["width"] / 2)
        y = int(box["y"] - origin["y"] + box["height"] / 2)
        assert _near(pixels[y, x], ink), (color, pixels[y, x])
    return pixels


def _state(port: int, body: dict[str, Any]) -> dict[str, Any]:
    status, state = post(port, f"{API}/play", body)
    assert status == 200, state
    return state


def _printed(own: int, color: str) -> int:
    return own if color == "white" else other_point(own)


def _click_move(page: Page, move: dict[str, Any], color: str) -> None:
    """Play `move` by clicks: each step's checker, then its landing point (the tray to bear off)."""
    for source, target in move["steps"]:
        page.click_point("play-board", _printed(source, color))
        targets = page.els("#play-board .point.target, #play-board .tray-frame.target")
        assert targets, f"no target highlighted after choosing {source}: {page.text('play-status')}"
        if target == 0:
            page.click_off("play-board")
        else:
            page.click_point("play-board", _printed(target, color))


def _new_game(page: Page, game: str, side: str, seed: int, engine: str, speed: str = "0") -> None:
    page.click("#tab-play")
    page.choose("play-game", game)
    page.choose("play-engine", engine)
    page.choose("play-side", side)
    page.choose("play-speed", speed)
    page.fill("play-seed", str(seed))
    page.click("#play-new")


@pytest.mark.parametrize("game, side, seed, engine, speed", [("fevga", "white", 8, "net", "0"),
                                                             ("gioul", "black", 9, "heuristic", "120")])
def test_play_by_clicking_with_hint_and_undo(page: Page, port: int, game: str, side: str, seed: int, engine: str,
                                            speed: str) -> None:
    _new_game(page, game, side, seed, engine, speed)  # Gioul's engine moves replayed step by step
    body: dict[str, Any] = {"game": game, "seed": seed, "human": side, "engine": engine}
    state = _state(port, body)
    assert page.board_id("play-board") == Position.from_json(json.dumps({
        "white": state["turn"]["counts"] if side == "white" else state["turn"]["opponent"],
        "black": state["turn"]["opponent"] if side == "white" else state["turn"]["counts"],
        "turn": side})).id
    assert "your move" in page.text("play-status")
    assert page.el("#play-after").is_displayed() == bool(state["history"])  # nothing to analyse before a move
    dice_on_board = [int(d.get_attribute("data-value")) for d in page.els("#play-board .die")]
    assert dice_on_board == state["turn"]["decision_dice"]

    # a hint: the server's ranking, best first
    page.click("#play-hint")
    rows = page.els("#play-hints tr")
    assert len(rows) == len(state["turn"]["moves"]) + 1
    if game == "fevga":
        best = hint(Position.from_id(state["position"]["id"]), tuple(state["turn"]["dice"]), 1)[0].move.notation
    else:  # the shipped Gioul net's ranking of the decision (its dice pending, or the roll's)
        holder = GioulPosition.from_id(state["position"]["id"])
        best = hint(holder, None if holder.pending else tuple(state["turn"]["dice"]))[0].move.notation
    assert rows[1].find_element("css selector", "td:nth-child(2)").text == best

    # choose a checker: its targets light up (the picture shows them), then play a move by clicks
    move = max(state["turn"]["moves"], key=lambda m: len(m["steps"]))
    source = move["steps"][0][0]
    page.click_point("play-board", _printed(source, side))
    assert page.els("#play-board .point.selected")
    pixels = check_board_picture(page, "play-board", f"{game}-play-selected")
    page.keep(f"{game}-play-hint")  # the whole page: the hint, the chosen checker's targets
    target = page.els("#play-board .point.target")[0]
    box, origin = target.rect, page.el("#play-board svg").rect
    cx = int(box["x"] - origin["x"] + box["width"] / 2)
    cy = int(box["y"] - origin["y"] + (box["height"] * (0.25 if box["y"] - origin["y"] < 50 else 0.75)))
    assert _near(pixels[cy, cx], "#7fc97f", 40) or _near(pixels[cy, cx], "#145214", 40), pixels[cy, cx]
    # a click where the chosen checker cannot go is refused: nothing moves, the choice is dropped
    targets = {_printed(int(t.get_attribute("data-point")), side) for t in page.els("#play-board .point.target")}
    illegal = next(p for p in range(source - 1, 0, -1) if p not in targets and state["turn"]["counts"][p] == 0)
    board = page.board_id("play-board")
    page.click_point("play-board", _printed(illegal, side))
    assert page.board_id("play-board") == board and not page.els("#play-board .selected, #play-board .target")
    assert page.el("#play-submit").get_property("disabled") and page.el("#play-reset").get_property("disabled")
    page.click_point("play-board", _printed(source, side))
    page.click("#play-reset")
    assert not page.els("#play-board .point.selected")
    _click_move(page, move, side)
    assert not page.el("#play-submit").get_property("disabled"), page.text("play-status")
    page.click("#play-submit")
    after = _state(port, {**body, "history": [{"move": h["move"], "roll": h["roll"]} for h in state["history"]]
                          + [{"move": move["move"], "roll": state["turn"]["roll"]}], "draws": state["draws"]})
    log = page.els("#play-log li")
    assert len(log) == len(after["history"]) and move["move"] in log[len(state["history"])].text
    assert any(not h["human"] for h in after["history"][len(state["history"]) + 1:]) or after["status"] == "over"
    shown = page.board_id("play-board")
    if after["status"] == "your_turn":
        assert "your move" in page.text("play-status")

    # undo: back to the same dice, the log as before the move
    page.click("#play-undo")
    assert len(page.els("#play-log li")) == len(state["history"])
    assert [int(d.get_attribute("data-value")) for d in page.els("#play-board .die")] == dice_on_board
    assert shown != page.board_id("play-board") or after["status"] == "over"

    # the highest die at one click of the chosen checker, then the rest typed with the keyboard
    sources = sorted({m["steps"][0][0] for m in state["turn"]["moves"] if m["steps"]})
    page.click_point("play-board", _printed(sources[-1], side))
    page.click_point("play-board", _printed(sources[-1], side))
    assert "played" in page.text("play-status")
    page.click("#play-reset")
    from selenium.webdriver.common.keys import Keys

    page.fill("play-text", "24/1")  # not a legal move: refused by the server, shown, nothing played
    page.el("#play-text").send_keys(Keys.ENTER)
    page.settle()
    assert page.els("#play-status.error") and "illegal" in page.text("play-status"), page.text("play-status")
    assert len(page.els("#play-log li")) == len(state["history"])
    page.fill("play-text", state["turn"]["moves"][0]["move"])
    page.el("#play-text").send_keys(Keys.ENTER)
    page.settle()
    assert state["turn"]["moves"][0]["move"] in page.els("#play-log li")[len(state["history"])].text
    page.keep(f"{game}-play-page")


def test_position_evaluation_ranking_and_set_up(page: Page) -> None:
    page.click("#tab-position")
    position = Position.initial().play("24/13", (6, 5))
    page.fill("pos-text", position.id)
    page.click("#pos-show")
    assert page.board_id("pos-board") == position.id
    assert "equity" in page.text("pos-eval") and "%" in page.text("pos-eval")
    page.choose("pos-d1", "3")
    page.choose("pos-d2", "1")
    page.click("#pos-rank-go")
    ranked = hint(position, (3, 1), 1)
    rows = page.els("#pos-moves tr")[1:]
    assert [r.find_element("css selector", "td:nth-child(2)").text for r in rows] == [h.move.notation for h in ranked]
    rows[0].find_element("css selector", "button").click()
    page.settle()
    assert page.board_id("pos-board") == ranked[0].move.position.id
    check_board_picture(page, "pos-board", "position-ranked")
    page.keep("position-page")
    # set up: remove a checker of White's from point 13, add a Black one on point 1
    page.click("#pos-show")
    page.el("input[name=pos-tool][value=remove]").click()
    page.click_point("pos-board", 13)
    edited = json.loads(page.el("#pos-text").get_property("value"))
    assert edited["white"][13] == 0 and edited["white"][0] == 1
    page.el("input[name=pos-tool][value=black]").click()
    page.click_point("pos-board", 1)
    assert "has no borne-off checker" in page.text("pos-status")
    # a Gioul state: the board and its pending dice, its evaluation and ranking by the Gioul net
    state = GioulPosition.initial().rolled((4, 4))
    page.el("input[name=pos-tool][value='']").click()
    page.fill("pos-text", state.id)
    page.click("#pos-show")
    assert len(page.els("#pos-board .die")) == 4 and "4 4 4 4" in page.text("pos-status")
    assert not page.els("#pos-eval .unsupported") and f"equity {evaluate(state, 1).equity:+.3f}" in page.text("pos-eval")
    page.click("#pos-rank-go")
    assert len(page.els("#pos-moves tr")) == len(state.legal_moves()) + 1
    assert page.els("#pos-moves tr")[1].find_element("css selector", "td:nth-child(2)").text == \
        hint(state, None)[0].move.notation
    # 2 plies over every move, or over the 1-ply filter's few, or the game's own search (every
    # move in Gioul): on a Gioul decision whose filter drops the move every move's 2-ply search
    # ranks best (tests/test_ubgi.py)
    state = GioulPosition.from_id(GIOUL_EVERY_MOVE_ID)
    page.fill("pos-text", state.id)
    page.click("#pos-show")
    page.choose("pos-d1", "6")
    page.choose("pos-d2", "5")
    for choice, every_move in (("2f", False), ("2e", True), ("2", True)):
        page.choose("pos-hint-plies", choice)
        page.click("#pos-rank-go")
        best = hint(state, "6-5", 2, every_move=every_move)[0].move.notation
        assert page.els("#pos-moves tr")[1].find_element("css selector", "td:nth-child(2)").text == best
        assert f"By net 2-ply{' every move' if every_move else ''}, " in page.text("pos-moves")
    page.choose("pos-hint-plies", "1")  # as the next tests find the page


def test_record_analysis_stepped_through(page: Page, port: int, tmp_path: Path) -> None:
    record = play_game(seed=6, policy="random", max_plies=40)
    page.click("#tab-record")
    path = tmp_path / "game.mat"
    path.write_text(write_match(record))
    page.upload(path)
    assert "Analysed 1 game" in page.text("rec-status"), page.text("rec-status")
    status, analysis = post(port, f"{API}/analyse", write_match(record))
    plies = analysis["games"][0]["plies"]
    assert page.els("#rec-graph svg polyline") and len(page.els("#rec-plies-table tr")) == len(plies) + 1
    assert page.board_id("rec-board") == plies[0]["position"]
    for step in range(1, 4):
        page.click("#rec-next")
        assert page.board_id("rec-board") == plies[step]["position"]
        assert f"ply {step + 1} of {len(plies)} (move {plies[step]['move']})" in page.text("rec-where")
        assert plies[step]["played"]["move"] in page.text("rec-detail")
    worst = max(range(len(plies)), key=lambda i: plies[i]["loss"])
    page.els("#rec-plies-table tr")[worst + 1].find_element("css selector", "button").click()
    page.settle()
    detail = page.text("rec-detail")
    assert plies[worst]["best"]["move"] in detail and f"{plies[worst]['loss']:.3f}" in detail
    page.click("#rec-show-best")
    assert page.board_id("rec-board") == plies[worst]["best"]["position"]
    page.click("#rec-show-before")
    from selenium.webdriver.common.keys import Keys

    page.el("#rec-next").send_keys(Keys.ARROW_LEFT)
    page.settle()
    assert page.board_id("rec-board") == plies[worst - 1]["position"]
    cursor = page.el("#rec-graph .cursor")
    assert cursor.get_attribute("x1") == cursor.get_attribute("x2")
    check_board_picture(page, "rec-board", "record-board")
    graph = page.shot("record-graph", "#rec-graph svg")
    assert any(_near(p, "#1f4e99", 30) for p in graph.reshape(-1, 3)[::3])  # the equity line is drawn
    page.driver.execute_script("window.scrollTo(0, 0)")
    page.keep("record-page")


def test_record_analysed_with_every_move_searched(page: Page, port: int, tmp_path: Path) -> None:
    record = play_game(seed=6, policy="random", max_plies=12)
    page.click("#tab-record")
    page.choose("rec-plies", "2e")
    path = tmp_path / "game.mat"
    path.write_text(write_match(record))
    try:
        page.upload(path)
    finally:
        page.choose("rec-plies", "1")  # the page is the next tests' too
    assert "(net 2-ply every move)" in page.text("rec-status"), page.text("rec-status")
    status, analysis = post(port, f"{API}/analyse?plies=2&every_move=true", write_match(record))
    assert status == 200 and analysis["evaluator"] == "net 2-ply every move"
    rows = page.els("#rec-plies-table tr")[1:]
    assert [r.find_element("css selector", "td:nth-child(6)").text for r in rows] == \
        ["forced" if p["forced"] else f"{p['loss']:.3f}" for p in analysis["games"][0]["plies"]]


def test_gioul_record_analysed_and_stepped_through(page: Page, tmp_path: Path) -> None:
    record = play_game(game="gioul", seed=7, policy="heuristic")
    page.click("#tab-record")
    path = tmp_path / "gioul.json"
    path.write_text(record.to_json())
    page.upload(path)
    assert "Analysed 1 game" in page.text("rec-status") and "net 1-ply" in page.text("rec-status")
    assert not page.els("#rec-summary .unsupported") and page.els("#rec-graph svg polyline")
    positions = record.positions()
    assert page.board_id("rec-board") == positions[0].board().id
    words = {"roll": "of a new roll", "block": "next block of the chain", "hand-over": "handed over"}
    for step in range(1, 8):
        page.click("#rec-next")
        assert page.board_id("rec-board") == positions[step].board().id
        decision = record.decisions[step]
        detail = page.text("rec-detail")
        assert f"played {decision.notation}" in detail and words[decision.kind] in detail, detail
        assert "Luck of the roll" in detail
    assert len(page.els("#rec-plies-table tr")) == len(record.decisions) + 1
    check_board_picture(page, "rec-board", "gioul-record-board")


def test_play_a_game_to_its_end_and_analyse_it(page: Page) -> None:
    """A whole Fevga game from the page (the human's moves chosen from the list, as a keyboard
    user does), its result shown, then opened in the record view."""
    _new_game(page, "fevga", "white", 9, "heuristic")  # a short game: nine choices
    for _ in range(200):
        if page.els("#play-result:not([hidden])"):
            break
        page.click("#play-pick-go")
    assert page.text("play-result") == "fevga wins 2 points (mars).", page.text("play-result")
    assert page.text("play-status").startswith("Game over.") and page.el("#play-hint").get_property("disabled")
    plies = len(page.els("#play-log li"))
    page.keep("fevga-game-over")
    page.click("#play-analyse")
    assert page.text("rec-status").startswith(f"Analysed 1 game, {plies} moves"), (plies, page.text("rec-status"))
    assert page.els("#rec-graph svg polyline") and len(page.els("#rec-plies-table tr")) == plies + 1



