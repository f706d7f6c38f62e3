"""The browser board of `fevga serve`: the page at ``/`` (plain HTML, CSS and JavaScript shipped
in ``fevga/service/static``, no build step) and the routes it draws and plays with.

========================  ==========================================================
``GET  /``                the page (play, set up a position, open a record)
``GET  /static/NAME``     its script and style sheet
``GET  svg``              the board of `position` drawn by `fevga.svg` (dice, perspective)
``GET  position``         a position's counts, turn and pending dice (the set-up editor)
``POST play``             a game against the engine replayed from its seed and history
                          and played on to the human's next choice (`fevga.service.play`)
``POST record``           a record's decisions with the position before and after each
                          (both games; a record the analysis refuses is still stepped through)
========================  ==========================================================

The boards are `fevga.svg.board` itself, so the page shows exactly the drawing of ``fevga
show --svg`` and of the analysis report, with its clickable ``data-point`` attributes.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any, Literal

from fastapi import Body, FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from fevga import svg
from fevga.analysis import deepest_plies
from fevga.gioul import GioulPosition
from fevga.position import BLACK, COLOR_NAMES, WHITE, Position
from fevga.service.play import MAX_HISTORY, PlayedItem, PlayRequest, replay
from fevga.service.errors import ApiError
from fevga.records import GioulGameRecord, GioulMatchRecord

__all__ = ["STATIC_FILES", "install"]

API = "/api/v1"
STATIC_FILES = {"board.js": "text/javascript; charset=utf-8", "board.css": "text/css; charset=utf-8"}
# The page loads nothing from elsewhere and runs no inline script: a strict policy costs it nothing.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
DICE = re.compile(r"^\s*[1-6](?:[\s,-]+[1-6]){0,3}\s*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlayedBody(_Strict):
    """One decision of the history: the move, and the number of the roll it began (else null)."""

    move: str = Field(max_length=200)
    roll: int | None = Field(default=None, ge=0, le=MAX_HISTORY)


class PlayBody(_Strict):
    """A game against the engine: its seed, the human's side, the decisions so far."""

    game: Literal["fevga", "gioul"] = "fevga"
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    human: Literal["white", "black"] = "white"
    engine: Literal["net2", "net", "heuristic"] | None = Field(
        default=None, description="the engine's policy (default: net2 for Fevga, net for Gioul)")
    history: list[PlayedBody] = Field(default_factory=list, max_length=MAX_HISTORY)
    draws: int = Field(default=0, ge=0, le=MAX_HISTORY, description="rolls drawn so far (undone ones included)")
    undo: bool = Field(default=False, description="take back the human's last decision first")


def _static(name: str) -> bytes:
    return (resources.files("fevga.service") / "static" / name).read_bytes()


def _dice(text: str | None) -> tuple[int, ...] | None:
    """One to four dice (``6-5``, ``5 5 5 5``) to draw."""
    if text is None or not text.strip():
        return None
    if not DICE.match(text):
        raise ApiError(422, "invalid_dice", f"dice {text[:40]!r}: expected one to four numbers 1-6, e.g. 6-5 or 5 5 5 5")
    return tuple(int(d) for d in re.findall(r"[1-6]", text))


def _board_of(position: Position | GioulPosition) -> Position:
    return position.board() if isinstance(position, GioulPosition) else position


def position_dict(position: Position | GioulPosition) -> dict[str, Any]:
    """A position's ID, game, counts (each side's own numbering), turn, pips and state, and the
    deepest plies its game is judged at (``max_plies``: evaluate, hint)."""
    board = _board_of(position)
    game = "gioul" if isinstance(position, GioulPosition) else "fevga"
    evaluate_plies, hint_plies = deepest_plies(game, False), deepest_plies(game, True)
    winner = position.winner()
    out: dict[str, Any] = {
        "id": position.id, "game": game,
        "turn": COLOR_NAMES[position.turn], "white": list(board.counts(WHITE)), "black": list(board.counts(BLACK)),
        "pips": {"white": board.pips(WHITE), "black": board.pips(BLACK)}, "board": board.id,
        "json": position.to_dict(), "winner": None if winner is None else COLOR_NAMES[winner],
        "caption": svg.caption(board), "max_plies": {"evaluate": evaluate_plies, "hint": hint_plies},
    }
    if isinstance(position, GioulPosition):
        out["pending"] = list(position.pending)
        out["decision_dice"] = list(position.decision_dice)
        out["roller"] = None if position.roller is None else COLOR_NAMES[position.roller]
    return out


def record_decisions(record: Any) -> dict[str, Any]:
    """The games of a match record (either game) with each decision's mover, dice, move and
    the positions before and after it."""
    games = []
    for number, game in enumerate(record.games, 1):
        positions = game.positions()
        decisions = []
        if isinstance(game, GioulGameRecord):
            for i, d in enumerate(game.decisions):
                decisions.append({"number": i + 1, "mover": COLOR_NAMES[d.mover], "roller": COLOR_NAMES[d.roller],
                                  "kind": d.kind, "dice": list(d.roll) if d.roll else None,
                                  "decision_dice": list(d.dice), "move": d.notation, "choices": d.choices,
                                  "before": positions[i].id, "before_board": positions[i].board().id,
                                  "after": positions[i + 1].id})
        else:
            for i, p in enumerate(game.plies):
                decisions.append({"number": i + 1, "mover": COLOR_NAMES[p.turn], "kind": "roll",
                                  "dice": list(p.dice), "decision_dice": list(p.dice), "move": p.notation,
                                  "before": positions[i].id, "before_board": positions[i].id,
                                  "after": positions[i + 1].id})
        games.append({"game": number, "result": game.result, "points": game.points, "decisions": decisions,
                      "final": positions[-1].id})
    return {"game": "gioul" if isinstance(record, GioulMatchRecord) else "fevga",
            "length": record.length, "players": list(record.players), "games": games}


def install(app: FastAPI, core: Callable[..., Awaitable[Any]], parse: Callable[[str, str | None], Any],
            read: Callable[[str], Any]) -> None:
    """Add the page and its routes to `app`: `core` runs work in the server's worker threads
    within its time limit, `parse` reads a position text (ID, start, JSON) of a game, `read`
    a record (within the server's record limits)."""
    headers = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return Response(_static("index.html"), media_type="text/html; charset=utf-8", headers=headers)

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        if name not in STATIC_FILES:
            raise ApiError(404, "not_found", f"no static file {name[:60]!r}")
        return Response(_static(name), media_type=STATIC_FILES[name], headers=headers)

    game_q = Query(None, description="fevga or gioul, where the position text cannot tell")

    @app.get(f"{API}/svg", summary="the board of a position as SVG (fevga.svg)",
             response_class=Response, responses={200: {"content": {"image/svg+xml": {}}}})
    async def get_svg(position: str = Query(..., max_length=1000, description="an ID, 'start' or the JSON form"),
                      game: Literal["fevga", "gioul"] | None = game_q,
                      dice: str | None = Query(None, max_length=16, description="1-4 dice to draw, e.g. 6-5"),
                      perspective: Literal["white", "black"] = "white",
                      size: int = Query(480, ge=100, le=2000, description="width in pixels"),
                      captioned: bool = True) -> Response:
        def work() -> Response:
            drawn = _board_of(parse(position, game))
            text = svg.board(drawn, size=size, dice=_dice(dice), perspective=COLOR_NAMES.index(perspective),
                             captioned=captioned)
            return Response(text, media_type="image/svg+xml; charset=utf-8", headers={"Cache-Control": "max-age=3600"})
        result: Response = await core(work)
        return result

    @app.get(f"{API}/position", summary="a position's counts, turn, pips and pending dice")
    async def get_position(position: str = Query(..., max_length=1000), game: Literal["fevga", "gioul"] | None = game_q
                           ) -> Any:
        return await core(lambda: position_dict(parse(position, game)))

    @app.post(f"{API}/play", summary="a game against the engine, replayed and played on to the human's turn")
    async def post_play(request: PlayBody = Body(...)) -> Any:
        play = PlayRequest(game=request.game, seed=request.seed, human=request.human, engine=request.engine,
                           history=tuple(PlayedItem(h.move, h.roll) for h in request.history), draws=request.draws,
                           undo=request.undo)
        return await core(replay, play)

    @app.post(f"{API}/record", summary="a record's decisions and positions (both games)",
              openapi_extra={"requestBody": {"content": {"application/json": {"schema": {"type": "object"}},
                                                         "text/plain": {"schema": {"type": "string"}}},
                                             "required": True}})
    async def post_record(http: Request) -> Any:
        raw = await http.body()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "invalid_record", "the record is not UTF-8 text") from None
        return await core(lambda: record_decisions(read(text)))

