"""`fevga serve`: the engine as an HTTP JSON API (FastAPI on uvicorn; the ``fevga[serve]`` extra).

Routes (all under ``/api/v1/``; the OpenAPI description is at ``/openapi.json``, the
interactive one at ``/docs``; docs/http.md has examples):

========================  ==========================================================
``GET  moves``            legal moves of ``position`` with ``dice``
``GET  evaluate``         evaluation of ``position`` at ``plies``
``GET  hint``             every move of ``position`` with ``dice``, best first
``POST moves|evaluate|hint``  the same for many positions (JSON body)
``POST rollouts``         start a rollout job (202); ``GET rollouts/{id}`` its
                          progress and result, ``DELETE rollouts/{id}`` cancels it
``POST analyse``          analysis of a record (JSON or the text match format), as
                          JSON or the HTML report
``GET  limits``           the limits below, as enforced
========================  ==========================================================

``position`` is an ID (16 characters for Fevga, 20 for a Gioul state), ``start`` or the
JSON form; ``game`` (``fevga``/``gioul``) chooses the game where the text cannot tell
(``start``). Every error is a 4xx with a JSON body ``{"error": {"status", "code",
"message"}}`` naming the problem; no traceback is ever shown. Searches, batches, analyses
and rollouts run in worker threads (the core releases the GIL), so the event loop keeps
serving, under a time limit per request; the GET routes' legal moves, 0-ply evaluations and
1-ply hints, a fraction of a millisecond mostly under the GIL, run on the event loop
(`HotRoutes`). `Limits` bounds every size.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal
from urllib.parse import parse_qsl

import numpy as np

from fevga import batch
from fevga.analyser import ApiEvaluator, HeuristicEvaluator, analyse
from fevga.analysis import MAX_PLIES, deepest_plies, evaluate, every_move_of, hint, search_name
from fevga.checks import validate_dice
from fevga.errors import FevgaError, InvalidArgumentError, InvalidNotationError, RecordError
from fevga.gioul import GIOUL_WIDTH, GioulPosition, validate_states
from fevga.net import Net
from fevga.notation import parse_dice
from fevga.policy import GIOUL_POLICIES
from fevga.position import COLOR_NAMES, Position
from fevga.records import GioulGameRecord, GioulMatchRecord, is_json_record, read_json, read_match, record_from_data
from fevga.report import graph
from fevga.rollout import rollout, rollout_moves
from fevga.rules import Rules
from fevga.service.errors import ApiError
from fevga.service.jobs import JobQueue, TooManyJobs
from fevga.version import __version__

try:
    import orjson
    from fastapi import Body, FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, Response
    from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
    from starlette.exceptions import HTTPException
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise InvalidArgumentError(
        f"fevga serve needs the serve extra: pip install 'fevga[serve]' ({exc.name} is missing)") from None

from fevga.service import board  # noqa: E402  (its routes need FastAPI, checked just above)

__all__ = ["Limits", "create_app", "serve"]

API = "/api/v1"


@dataclass(frozen=True)
class Limits:
    """Every bound the server enforces (also served at ``GET /api/v1/limits``)."""

    body_bytes: int = 1 << 20  # a request body (413 past it)
    text_chars: int = 1000  # a position or dice text in a query or batch item
    batch_positions: int = 10_000  # items of one batch request
    plies_evaluate: int = MAX_PLIES  # GET evaluate (batch: batch_plies)
    plies_hint: int = MAX_PLIES + 1  # GET hint
    batch_plies: int = 2  # plies of a batch evaluate/hint
    rollout_games: int = 1_000_000  # games of one rollout job (per move for a roll)
    rollout_workers: int = 2  # threads of one rollout job
    jobs: int = 4  # rollout jobs queued or running at once (429 past it)
    keep_jobs: int = 64  # finished jobs remembered
    record_games: int = 64  # games of a record to analyse
    record_plies: int = 4000  # plies of a record to analyse, all games together
    analyse_plies: int = 2  # evaluator plies of an analysis
    seconds: float = 30.0  # compute time of one request (408 past it)
    workers: int = os.cpu_count() or 1  # threads for the requests' core work

    @classmethod
    def default(cls) -> Limits:
        """The limits `fevga serve` uses unless told otherwise."""
        return cls()

    def with_overrides(self, *, workers: int | None = None, jobs: int | None = None,
                       seconds: float | None = None) -> Limits:
        """These limits with the command line's overrides (None keeps a value)."""
        for name, value in (("workers", workers), ("max-jobs", jobs)):
            if value is not None and not 1 <= value <= 256:
                raise InvalidArgumentError(f"--{name} {value} must be 1-256")
        if seconds is not None and not 0 < seconds <= 3600:
            raise InvalidArgumentError(f"--timeout {seconds} must be more than 0 and at most 3600 seconds")
        changes: dict[str, Any] = {k: v for k, v in (("workers", workers), ("jobs", jobs), ("seconds", seconds))
                                   if v is not None}
        return replace(self, **changes)


# ---------------------------------------------------------------------- errors


def _code_of(exc: FevgaError) -> str:
    """``InvalidPositionError`` -> ``invalid_position``."""
    name = type(exc).__name__.removesuffix("Error")
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_") or "fevga"


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "code": code, "message": " ".join(message.split())}},
                        status_code=status)


def _refusal(exc: ApiError | FevgaError) -> JSONResponse:
    """The answer to a refused request: an ApiError as it says, a FevgaError as 400 named after its class."""
    if isinstance(exc, ApiError):
        return _error(exc.status, exc.code, exc.message)
    return _error(400, _code_of(exc), str(exc))


def _problems(errors: list[Any], where: str = "") -> str:
    """The first few of pydantic's `errors` named by where they are (``query.plies: Input
    should be ...``); `where` prefixes locations that lack it."""
    problems = []
    for e in errors[:5]:
        problems.append(f"{'.'.join(str(p) for p in (*((where,) if where else ()), *e.get('loc', ())))}: "
                        f"{e.get('msg', 'invalid')}")
    return "; ".join(problems) or "invalid request"


def _invalid(errors: list[Any], where: str = "") -> JSONResponse:
    """422 invalid_request naming the problems of pydantic's `errors` (`_problems`)."""
    return _error(422, "invalid_request", _problems(errors, where))


def _is_json(content_type: str) -> bool:
    """Whether a Content-Type names JSON (``application/json``, ``application/...+json``)."""
    kind = content_type.split(";")[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


def _batch_request(body: bytes) -> BatchRequest:
    """A batch body read by pydantic's own JSON parser, 422 invalid_request naming what is wrong."""
    try:
        return BatchRequest.model_validate_json(body)
    except ValidationError as exc:
        raise ApiError(422, "invalid_request", _problems(list(exc.errors()), "body")) from None


class BodyLimit:
    """ASGI middleware: refuse a request body over `limit` bytes with 413, whether it says
    its length or streams it in chunks. The body (bounded) is read before the app sees it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await self._refuse(send, 413 if declared.isdigit() else 400)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await self._refuse(send, 413)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # then wait for the disconnect, as a server would

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, status: int) -> None:
        if status == 413:
            error = {"status": 413, "code": "body_too_large", "message": f"request body over the limit of {self.limit} bytes"}
        else:
            error = {"status": 400, "code": "invalid_request", "message": "Content-Length is not a number"}
        body = json.dumps({"error": error}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


# ---------------------------------------------------------------------- inputs


Game = Literal["fevga", "gioul"]
RulesName = Literal["default", "strict"]  # Rules.named presets (docs/rules.md 9)


def parse_position(text: str, game: str | None, limits: Limits) -> Position | GioulPosition:
    """The position of an ID, ``start`` or JSON text; `game` where the text cannot tell."""
    if len(text) > limits.text_chars:
        raise ApiError(422, "too_long", f"position text of {len(text)} characters (limit {limits.text_chars})")
    stripped = text.strip()
    if game is None:
        if len(stripped) == 20 or (stripped.startswith("{") and '"gioul"' in stripped):
            game = "gioul"
        else:
            game = "fevga"
    if game == "gioul":
        return GioulPosition.parse(stripped)
    if len(stripped) == 20:
        raise InvalidNotationError(f"position {stripped!r} is a Gioul ID, but game=fevga")
    return Position.parse(stripped)


def _dice(position: Position | GioulPosition, text: str | None) -> tuple[int, int] | None:
    """The dice of a move request: required for a Fevga position and a Gioul state due to
    roll, refused for a Gioul state with dice pending."""
    if isinstance(position, GioulPosition) and position.pending:
        if text is not None:
            raise ApiError(422, "dice_pending", f"{position.id} has dice pending "
                           f"({' '.join(map(str, position.pending))}): leave dice out")
        return None
    if text is None:
        raise ApiError(422, "missing_dice", "dice are required, e.g. dice=6-5")
    if len(text) > 16:
        raise ApiError(422, "invalid_dice", f"dice text of {len(text)} characters: expected e.g. 6-5")
    return parse_dice(text)


def _plies(plies: int, high: int) -> int:
    if not 0 <= plies <= high:
        raise ApiError(422, "plies_limit", f"plies={plies} must be 0..{high} here")
    return plies


def _position_dict(position: Position | GioulPosition) -> dict[str, Any]:
    game = "gioul" if isinstance(position, GioulPosition) else "fevga"
    out: dict[str, Any] = {"id": position.id, "game": game, "turn": COLOR_NAMES[position.turn]}
    if isinstance(position, GioulPosition):
        out["pending"] = list(position.pending)
    return out


def _rules(name: str, position: Position | GioulPosition) -> Rules | None:
    """The rules preset `name` for `position`'s game (None: the game's defaults)."""
    if name == "default":
        return None
    if isinstance(position, GioulPosition):
        raise ApiError(422, "unsupported", f"rules={name}: Gioul has no Fevga rule options (docs/rules.md)")
    return Rules.named(name)


def _moves_of(position: Position | GioulPosition, dice: tuple[int, int] | None,
              rules: str = "default") -> dict[str, Any]:
    if position.winner() is not None:
        raise ApiError(422, "game_over", f"position {position.id} is already finished")
    moves = position.legal_moves(dice, _rules(rules, position))
    return {"position": _position_dict(position), "dice": list(dice) if dice else None, "count": len(moves),
            "moves": [{"move": m.notation, "after": m.position.id} for m in moves]}


def _gioul_plies(position: Position | GioulPosition, plies: int, shallowest: int) -> None:
    """422 plies_limit for a Gioul state judged deeper than the Gioul net offers (deepest_plies:
    evaluate from 0, hint from 1)."""
    deepest = deepest_plies("gioul", shallowest == 1)
    if isinstance(position, GioulPosition) and plies > deepest:
        raise ApiError(422, "plies_limit", f"plies={plies}: a Gioul state is judged at plies {shallowest}.."
                       f"{deepest} (docs/net.md, Gioul net)")


def _net(game: str, quantised: bool) -> Net | None:
    """The net a request asks for: its game's shipped net, quantised or (None) the float default."""
    return Net.default(game).quantised() if quantised else None


def _game(position: Position | GioulPosition) -> str:
    return "gioul" if isinstance(position, GioulPosition) else "fevga"


def _evaluation_of(position: Position | GioulPosition, plies: int, rules: str = "default",
                   quantised: bool = False) -> dict[str, Any]:
    _gioul_plies(position, plies, 0)
    e = evaluate(position, plies, _rules(rules, position), net=_net(_game(position), quantised))
    return {"position": _position_dict(position), "plies": plies, **e.to_dict()}


def _hint_of(position: Position | GioulPosition, dice: tuple[int, int] | None, plies: int,
             after: bool = False, rules: str = "default", quantised: bool = False,
             every_move: bool | None = None) -> dict[str, Any]:
    """The ranked moves; with `after`, each move's resulting position ID too (encoding the
    IDs costs more than ranking the moves at 1 ply, so it is asked for); `every_move` as
    `fevga.hint` takes it (None: the game's default search)."""
    if position.winner() is not None:
        raise ApiError(422, "game_over", f"position {position.id} is already finished")
    head = {"position": _position_dict(position), "dice": list(dice) if dice else None}
    if plies < 1:
        raise ApiError(422, "plies_limit", "hint plies must be at least 1 (a move is rated by its result)")
    _gioul_plies(position, plies, 1)
    every = every_move_of(_game(position), every_move)
    hints: list[Any] = hint(position, dice, plies, _rules(rules, position), net=_net(_game(position), quantised),
                            every_move=every)
    return {**head, "method": f"net {search_name(plies, every)}", "moves": [
        {**h.to_dict(), **({"after": h.move.position.id} if after else {})} for h in hints]}


def _hint_only(request: BatchRequest, route: str) -> None:
    """422 for a batch asking `route` for what only hint does (every_move true; false, the
    move filter, is what the other routes' evaluations search anyway)."""
    if request.every_move:
        raise ApiError(422, "invalid_request", f"every_move chooses which moves a hint searches: only hint takes it, "
                       f"not {route}")


# ---------------------------------------------------------------------- bodies


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BatchItem(_Strict):
    """One position of a batch request, with its dice where moves are asked for."""

    position: str = Field(max_length=1000, description="an ID, 'start' or the JSON form")
    dice: str | None = Field(default=None, max_length=16, description="e.g. '6-5' (moves and hint)")


class BatchRequest(_Strict):
    """Many positions at once (at most `Limits.batch_positions`): `items`, or `rows`, the
    base64 text of an (n, 51) uint8 array in fevga.batch's row layout (Gioul: (n, 58))."""

    items: list[BatchItem] = Field(default_factory=list)
    rows: str | None = Field(default=None, description="moves, evaluate, hint: base64 of n x 51 bytes (fevga.batch "
                             "rows), or with game=gioul n x 58 (fevga.gioul.to_array's Gioul state rows)")
    dice_rows: str | None = Field(default=None, description="moves, hint: base64 of n x 2 bytes, the dice of each row")
    game: Game | None = None
    rules: RulesName = "default"
    after: bool = Field(default=False, description="hint: also each move's resulting position ID")
    plies: int | None = Field(default=None, ge=0, le=MAX_PLIES + 1,
                              description="evaluate: 0 (default) ..; hint: 1 (default) ..")
    quantised: bool = Field(default=False, description="evaluate, hint: judge with the quantised net (docs/net.md)")
    every_move: bool | None = Field(default=None, description="hint: every move searched at 2 plies, not only the "
                                    "move filter's (default: the game's, every move in Gioul; docs/net.md)")


class RolloutRequest(_Strict):
    """A rollout job: a position (every move of a roll when `dice` is given)."""

    position: str = Field(max_length=1000)
    game: Game | None = None
    dice: str | None = Field(default=None, max_length=16, description="roll out every move of this roll")
    games: int = Field(default=1296, ge=1, description="games (per move with dice)")
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    policy: Literal["random", "heuristic", "bearoff", "lookahead", "net", "net2"] = "heuristic"
    truncate: bool = False
    luck: bool = False
    workers: int = Field(default=1, ge=1)


# ---------------------------------------------------------------------- hot routes


def _query_fields(limits: Limits) -> dict[str, Any]:
    """The query parameters of the GET routes, as pydantic fields (name: (type, Field)), in
    the order they are listed: the position, then a route's own, then game and rules."""
    return {
        "position": (str, Field(max_length=limits.text_chars, description="an ID, 'start' or the JSON form")),
        "dice": (str | None, Field(None, max_length=16, description="two dice, e.g. 6-5")),
        "plies_evaluate": (int, Field(0, ge=0, le=limits.plies_evaluate, description="plies of the evaluation")),
        "plies_hint": (int, Field(1, ge=1, le=limits.plies_hint, description="plies of the ranking")),
        "game": (Game | None, Field(None, description="fevga or gioul, where the position text cannot tell")),
        "rules": (RulesName, Field("default", description="the rules preset: default or strict (docs/rules.md 9)")),
        "after": (bool, Field(False, description="also each move's resulting position ID")),
        "quantised": (bool, Field(False, description="judge with the game's quantised net (docs/net.md)")),
        "every_move": (bool | None, Field(None, description="every move searched at 2 plies, not only the move "
                                                            "filter's (default: the game's, every move in Gioul; "
                                                            "docs/net.md)")),
    }


def _query_model(route: str, limits: Limits, own: tuple[str, ...]) -> type[BaseModel]:
    """The pydantic model of a GET route's query: position, the route's `own` fields (a
    ``plies_*`` field is its ``plies``), game, rules (and hint's ``after``; evaluate's and
    hint's ``quantised``; hint's ``every_move``)."""
    fields = _query_fields(limits)
    names = ("position", *own, "game", "rules", *(("after",) if route == "hint" else ()),
             *(("quantised",) if route != "moves" else ()), *(("every_move",) if route == "hint" else ()))
    model: type[BaseModel] = create_model(
        f"{route.capitalize()}Query",
        **{"plies" if name.startswith("plies_") else name: fields[name] for name in names})
    return model


@dataclass(frozen=True)
class HotRoute:
    """A GET route answered by `HotRoutes`: its query model, its work, and which queries'
    work is done on the event loop (`inline`) rather than in a worker thread."""

    summary: str
    query: type[BaseModel]
    work: Callable[[Any], dict[str, Any]]
    inline: Callable[[Any], bool]

    def operation(self, path: str) -> dict[str, Any]:
        """Its OpenAPI operation: the query model's fields as parameters."""
        schema = self.query.model_json_schema()
        parameters = [{"name": name, "in": "query", "required": name in schema.get("required", ()),
                       "description": field.get("description", ""),
                       "schema": {k: v for k, v in field.items() if k != "description"}}
                      for name, field in schema["properties"].items()]
        return {"summary": self.summary, "operationId": path.removeprefix(f"{API}/") + "_get",
                "parameters": parameters,
                "responses": {"200": {"description": "the answer", "content": {"application/json": {}}},
                              "4XX": {"description": 'refused: {"error": {"status", "code", "message"}}'}}}


class HotRoutes:
    """ASGI middleware answering the GET routes that clients ask most (moves, evaluate,
    hint) before FastAPI's routing: FastAPI's per-request dependency and validation machinery
    costs more than a 1-ply hint. The query is validated by the route's pydantic model (the
    validation and 422 errors of FastAPI's query parameters), the work runs on the loop or in
    `core`, and refusals are the same JSON errors as the other routes' (an unexpected
    exception goes on to the app's 500 handler)."""

    def __init__(self, app: ASGIApp, routes: dict[str, HotRoute], core: Callable[..., Any]) -> None:
        self.app, self.routes, self.core = app, routes, core

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self.routes.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "GET" else None
        if route is None:
            return await self.app(scope, receive, send)
        response: Response
        try:
            query = route.query.model_validate(dict(parse_qsl(scope["query_string"].decode("latin-1"),
                                                              keep_blank_values=True)))
            response = _answer(route.work(query)) if route.inline(query) else await self.core(route.work, query)
        except ValidationError as exc:
            response = _invalid(list(exc.errors()), "query")
        except (ApiError, FevgaError) as exc:
            response = _refusal(exc)
        await response(scope, receive, send)


# ---------------------------------------------------------------------- the app


def create_app(limits: Limits | None = None) -> FastAPI:
    """The ASGI application (wrapped in the body-size middleware) with `limits`."""
    limits = limits or Limits.default()
    pool = ThreadPoolExecutor(max_workers=limits.workers, thread_name_prefix="fevga-http")
    jobs = JobQueue(limits.jobs, limits.keep_jobs)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # load the nets and the bear-off tables before the first request, not during it
        await asyncio.get_running_loop().run_in_executor(pool, hint, Position.initial(), (6, 5))
        await asyncio.get_running_loop().run_in_executor(pool, hint, GioulPosition.initial(), (6, 5))
        yield
        # Ctrl-C / SIGTERM: uvicorn stops taking requests, then the jobs are cancelled here
        await asyncio.get_running_loop().run_in_executor(None, jobs.shutdown)
        pool.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="fevga", version=_version(), description=__doc__ or "", lifespan=lifespan,
                  openapi_url="/openapi.json", docs_url="/docs", redoc_url=None)
    app.state.limits, app.state.jobs, app.state.pool = limits, jobs, pool

    async def core(fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(*args)` in a worker thread within the time limit (408 past it); a dict
        result is serialised there too (JSON of big batches stays off the event loop)."""
        def work() -> Any:
            return _answer(fn(*args))

        future = asyncio.get_running_loop().run_in_executor(pool, work)
        try:
            return await asyncio.wait_for(future, limits.seconds)
        except asyncio.TimeoutError:
            raise ApiError(408, "time_limit", f"the request took more than {limits.seconds:g} s (waiting for a worker "
                           "included); ask for fewer plies or positions") from None

    @app.exception_handler(ApiError)
    @app.exception_handler(FevgaError)
    async def _refused(request: Request, exc: ApiError | FevgaError) -> JSONResponse:
        return _refusal(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _invalid(list(exc.errors()))

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> JSONResponse:
        code = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:  # a bug: never a traceback
        print(f"fevga serve: internal error {type(exc).__name__} on {request.url.path}", file=sys.stderr)
        return _error(500, "internal", f"internal error ({type(exc).__name__}); please report it")

    @app.get(f"{API}/limits", summary="the limits this server enforces")
    async def get_limits() -> dict[str, Any]:
        return asdict(limits)

    def get_moves(query: Any) -> dict[str, Any]:
        p = parse_position(query.position, query.game, limits)
        return _moves_of(p, _dice(p, query.dice), query.rules)

    def get_evaluate(query: Any) -> dict[str, Any]:
        return _evaluation_of(parse_position(query.position, query.game, limits), query.plies, query.rules,
                              query.quantised)

    def get_hint(query: Any) -> dict[str, Any]:
        p = parse_position(query.position, query.game, limits)
        return _hint_of(p, _dice(p, query.dice), query.plies, query.after, query.rules, query.quantised,
                        query.every_move)

    # Legal moves, a 0-ply evaluation and a 1-ply ranking hold the GIL for most of their
    # tenth of a millisecond or so, so a worker thread would only add its hand-overs: they run
    # on the event loop (32 clients asking 1-ply hints: p99 51-76 ms inline against 93-132 ms
    # in the pool, load average 9). The largest case of the benchmark corpus, 925 moves of 1-1,
    # takes 10-20 ms, most of it building Python objects, which a worker would do holding the
    # GIL too. Searches release the GIL for long and run in the pool, under the time limit.
    hot = {f"{API}/{name}": HotRoute(summary, _query_model(name, limits, fields), work, inline)
           for name, summary, fields, work, inline in (
        ("moves", "legal moves of a position with dice", ("dice",), get_moves, lambda query: True),
        ("evaluate", "evaluation of a position for its side on roll", ("plies_evaluate",), get_evaluate,
         lambda query: query.plies == 0),
        ("hint", "every move of a roll, best first", ("dice", "plies_hint"), get_hint, lambda query: query.plies == 1),
    )}
    app.add_middleware(HotRoutes, routes=hot, core=core)
    described = app.openapi

    def openapi() -> dict[str, Any]:
        """FastAPI's description of its routes, the hot routes' (HotRoute.operation) and the
        batch routes' body (batch_body)."""
        schema = described()
        for path, route in hot.items():
            schema["paths"].setdefault(path, {})["get"] = route.operation(path)
        body = BatchRequest.model_json_schema(ref_template="#/components/schemas/{model}")
        schema["components"]["schemas"].update({**body.pop("$defs"), "BatchRequest": body})
        return schema
    app.openapi = openapi  # type: ignore[method-assign]

    def batch(request: BatchRequest, one: Callable[[Position | GioulPosition, BatchItem], Any]) -> Any:
        if len(request.items) > limits.batch_positions:
            raise ApiError(422, "batch_limit", f"{len(request.items)} items (limit {limits.batch_positions})")

        stop = threading.Event()  # set when the request is answered (408 included): the work stops too

        async def run() -> Any:
            def work() -> dict[str, Any]:
                results = []
                for index, item in enumerate(request.items):
                    if stop.is_set():
                        raise ApiError(408, "time_limit", "the batch ran out of time")
                    try:
                        results.append(one(parse_position(item.position, request.game, limits), item))
                    except ApiError as exc:  # first: an ApiError is a FevgaError too
                        raise ApiError(exc.status, exc.code, f"items[{index}]: {exc.message}") from None
                    except FevgaError as exc:
                        raise ApiError(400, _code_of(exc), f"items[{index}]: {exc}") from None
                return {"count": len(results), "results": results}
            try:
                return await core(work)
            finally:
                stop.set()
        return run()

    async def batch_body(http: Request) -> BatchRequest:
        """The body of a batch request, parsed and validated in one pass by pydantic in a worker
        thread: FastAPI's json.loads then validation took a quarter of the server's time for
        10,000 items, on the event loop."""
        if not _is_json(http.headers.get("content-type", "")):
            raise ApiError(422, "invalid_request", "body: send JSON (Content-Type: application/json)")
        request: BatchRequest = await core(_batch_request, await http.body())
        return request

    # the batch routes read their bodies themselves (batch_body); this describes them
    batch_body_schema = {"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/BatchRequest"}}}}}

    @app.post(f"{API}/moves", summary="legal moves of many positions", openapi_extra=batch_body_schema)
    async def post_moves(http: Request) -> Any:
        request = await batch_body(http)
        if request.quantised:
            raise ApiError(422, "invalid_request", "quantised chooses the net of evaluate and hint: moves uses none")
        _hint_only(request, "moves")
        if request.rows is not None or request.dice_rows is not None:
            if request.items or request.rows is None or request.dice_rows is None:
                raise ApiError(422, "invalid_request", "the bulk form takes rows and dice_rows, without items")
            return await core(_moves_rows, request.rows, request.dice_rows, request.game, limits, _binary(http),
                              _bulk_rules(request))
        return await batch(request, lambda p, item: _moves_of(p, _dice(p, item.dice), request.rules))

    @app.post(f"{API}/evaluate", summary="evaluations of many positions", openapi_extra=batch_body_schema)
    async def post_evaluate(http: Request) -> Any:
        request = await batch_body(http)
        _hint_only(request, "evaluate")
        plies = _plies(0 if request.plies is None else request.plies, limits.batch_plies)
        if request.rows is not None:
            if request.items or plies:
                raise ApiError(422, "invalid_request", "rows are evaluated at 0 plies, without items")
            return await core(_evaluate_rows, request.rows, request.game, limits, _binary(http), request.quantised)
        if plies == 0 and request.game != "gioul" and len(request.items) <= limits.batch_positions:
            return await core(_evaluate_items, request.items, limits, request.quantised)  # one call of the batch API
        return await batch(request, lambda p, item: _evaluation_of(p, plies, request.rules, request.quantised))

    @app.post(f"{API}/hint", summary="move rankings of many (position, dice) pairs", openapi_extra=batch_body_schema)
    async def post_hint(http: Request) -> Any:
        request = await batch_body(http)
        plies = _plies(1 if request.plies is None else request.plies, limits.batch_plies)
        if request.rows is not None or request.dice_rows is not None:
            if request.items or request.after or request.rows is None or request.dice_rows is None or plies < 1:
                raise ApiError(422, "invalid_request", "the bulk form takes rows and dice_rows (plies 1..), "
                               "without items or after")
            if request.game == "gioul" and plies > deepest_plies("gioul", True):
                raise ApiError(422, "plies_limit", f"plies={plies}: Gioul states are ranked at plies 1.."
                               f"{deepest_plies('gioul', True)} (docs/net.md, Gioul net)")
            stop = threading.Event()  # set when the request is answered (408 included): the work stops too
            try:
                return await core(_hint_rows, request.rows, request.dice_rows, plies, request.game, limits,
                                  _binary(http), _bulk_rules(request), stop, request.quantised, request.every_move)
            finally:
                stop.set()
        return await batch(request, lambda p, item: _hint_of(p, _dice(p, item.dice), plies, request.after,
                                                             request.rules, request.quantised, request.every_move))

    @app.post(f"{API}/rollouts", status_code=202, summary="start a rollout job")
    async def post_rollout(request: RolloutRequest = Body(...)) -> Any:
        if request.games > limits.rollout_games:
            raise ApiError(422, "games_limit", f"games={request.games} (limit {limits.rollout_games})")
        if request.workers > limits.rollout_workers:
            raise ApiError(422, "workers_limit", f"workers={request.workers} (limit {limits.rollout_workers})")
        position = parse_position(request.position, request.game, limits)
        if position.winner() is not None:
            raise ApiError(422, "game_over", f"position {position.id} is already finished")
        dice = None if request.dice is None else _dice(position, request.dice)
        by_move = request.dice is not None or (isinstance(position, GioulPosition) and bool(position.pending))
        if isinstance(position, GioulPosition) and request.policy not in GIOUL_POLICIES:
            raise ApiError(422, "unsupported", f"Gioul rollouts play the {', '.join(GIOUL_POLICIES)} policies, "
                           f"not {request.policy}")
        work = _rollout_work(position, dice, by_move, request)
        try:
            job = jobs.submit(work, request.games, request.model_dump())
        except TooManyJobs as exc:
            raise ApiError(429, "too_many_jobs", str(exc)) from None
        return JSONResponse(job.to_dict(), status_code=202, headers={"Location": f"{API}/rollouts/{job.id}"})

    @app.get(f"{API}/rollouts", summary="every known rollout job")
    async def list_rollouts() -> Any:
        return {"jobs": [j.to_dict() for j in jobs.list()]}

    def known(job: Any, job_id: str) -> Any:
        if job is None:
            raise ApiError(404, "unknown_job", f"no rollout job {job_id[:40]!r}")
        return job.to_dict()

    @app.get(f"{API}/rollouts/{{job_id}}", summary="a rollout job's progress and result")
    async def get_rollout(job_id: str) -> Any:
        return known(jobs.get(job_id), job_id)

    @app.delete(f"{API}/rollouts/{{job_id}}", summary="cancel a rollout job")
    async def delete_rollout(job_id: str) -> Any:
        return known(jobs.cancel(job_id), job_id)

    @app.post(f"{API}/analyse", summary="analyse a game or match record",
              openapi_extra={"requestBody": {"content": {"application/json": {"schema": {"type": "object"}},
                                                         "text/plain": {"schema": {"type": "string"}}},
                                             "required": True}})
    async def post_analyse(request: Request, format: Literal["json", "html"] = "json",
                           plies: int = Query(1, ge=1, le=limits.analyse_plies),
                           evaluator: Literal["net", "heuristic"] = "net",
                           every_move: bool | None = Query(None, description="net evaluator, plies 2: every move "
                                                           "searched, not only the move filter's (default: the game's, "
                                                           "every move in Gioul; docs/net.md)"),
                           graphs: bool = Query(False, description="json: each game's equity and luck graph (SVG)")
                           ) -> Any:
        raw = await request.body()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "invalid_record", "the record is not UTF-8 text") from None
        stop = threading.Event()
        try:
            report = await core(_analyse, text, plies, evaluator, limits, stop, every_move)
        finally:
            stop.set()  # a timed-out analysis stops after its current game
        if format == "html":
            return HTMLResponse(report.to_html())
        return JSONResponse(_analysis_dict(report, graphs))

    board.install(app, core, lambda text, game: parse_position(text, game, limits),
                  lambda text: _bounded(read_record(text), limits))
    return app


def _evaluate_items(items: list[BatchItem], limits: Limits, quantised: bool = False) -> dict[str, Any]:
    """0-ply evaluations of many items: the Fevga ones by one fevga.batch.evaluate call, a
    Gioul state (an ID that says so) by the Gioul net, each in its place."""
    positions: list[Position | GioulPosition] = []
    for index, item in enumerate(items):
        try:
            positions.append(parse_position(item.position, None, limits))
        except ApiError as exc:  # first: an ApiError is a FevgaError too
            raise ApiError(exc.status, exc.code, f"items[{index}]: {exc.message}") from None
        except FevgaError as exc:
            raise ApiError(400, _code_of(exc), f"items[{index}]: {exc}") from None
    fevga_positions = [p for p in positions if isinstance(p, Position)]
    # as Python floats at once: unpacking each numpy row costs more than its evaluation
    net = _net("fevga", quantised)
    values: Any = iter(batch.evaluate(batch.to_array(fevga_positions), net).tolist() if fevga_positions else [])
    results = []
    for item, position in zip(items, positions):
        if isinstance(position, GioulPosition):
            results.append(_evaluation_of(position, 0, quantised=quantised))
            continue
        win, win_mars, lose_mars = next(values)
        text = item.position.strip()  # a 16-character ID that parsed is canonical: answered as given
        head = {"id": text, "game": "fevga", "turn": COLOR_NAMES[position.turn]} if len(text) == 16 else \
            _position_dict(position)
        results.append({"position": head, "plies": 0, "win": win, "win_mars": win_mars, "lose_mars": lose_mars,
                        "lose": 1.0 - win, "equity": 2.0 * win - 1.0 + win_mars - lose_mars})
    return {"count": len(results), "results": results}


def _bulk(text: str, width: int, what: str, limits: Limits) -> Any:
    """The (n, width) uint8 array of base64 `text` (n within the batch limit)."""
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "invalid_rows", f"{what} must be base64 text (A-Z a-z 0-9 + /)") from None
    if len(data) % width:
        raise ApiError(400, "invalid_rows", f"{what} hold {len(data)} bytes: not a multiple of {width}")
    if len(data) // width > limits.batch_positions:
        raise ApiError(422, "batch_limit", f"{len(data) // width} {what} (limit {limits.batch_positions})")
    return np.frombuffer(data, dtype=np.uint8).reshape(-1, width)


def _json(answer: dict[str, Any]) -> bytes:
    """The JSON text of an answer: orjson's (about 15x faster than the standard library on a
    hint's floats, the same text once parsed), the standard library's where orjson refuses
    (an integer past 64 bits)."""
    try:
        return orjson.dumps(answer)
    except TypeError:
        return json.dumps(answer).encode()


def _answer(result: Any) -> Any:
    """A dict result as its JSON response; anything else (a Response) as it is."""
    return Response(_json(result), media_type="application/json") if isinstance(result, dict) else result


def _b64(array: Any) -> str:
    return base64.b64encode(array.tobytes()).decode("ascii")


BINARY = "application/octet-stream"


def _binary(http: Request) -> bool:
    """Whether the client asks for the bulk answer as raw bytes (Accept: application/octet-stream)."""
    return BINARY in http.headers.get("accept", "")


class ArraysResponse(Response):
    """C-contiguous arrays' bytes one after the other, sent from the arrays themselves: a
    bulk answer is megabytes, and copying it into one bytes object cost a fifth of the server's
    time for 10,000 positions' moves."""

    media_type = BINARY

    def __init__(self, arrays: list[Any], headers: dict[str, str]) -> None:
        self.chunks = [np.ascontiguousarray(a).reshape(-1).view(np.uint8).data for a in arrays]
        super().__init__(None, headers={**headers, "Content-Length": str(sum(len(c) for c in self.chunks))})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        for index, chunk in enumerate(self.chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": index + 1 < len(self.chunks)})


def _raw(arrays: list[Any], **counts: int) -> Response:
    """The arrays' little-endian bytes one after the other, their sizes in X-Fevga-* headers."""
    return ArraysResponse(arrays, {f"X-Fevga-{name.capitalize()}": str(value) for name, value in counts.items()})


def _moves_rows(rows_text: str, dice_text: str, game: str, limits: Limits, binary: bool = False,
                rules: Rules | None = None) -> dict[str, Any] | Response:
    """fevga.batch.legal_moves of base64 rows and dice, answered as its arrays in base64:
    offsets (n + 1, <i8), results (m x 51, u1; Gioul m x 58), steps (m x 4 x 2, u1), nsteps
    (m, u1); or with `binary` those arrays' bytes in that order (headers X-Fevga-Count n,
    X-Fevga-Moves m). fevga.batch validates the rows, their width naming the game."""
    rows = _bulk(rows_text, GIOUL_WIDTH if game == "gioul" else batch.POSITION_WIDTH, "rows", limits)
    dice = _bulk(dice_text, 2, "dice_rows", limits)
    moves = batch.legal_moves(rows, dice, rules)
    if binary:
        return _raw([moves.offsets.astype("<i8"), moves.results, moves.steps, moves.nsteps], count=len(rows),
                    moves=int(moves.offsets[-1]))
    return {"count": len(rows), "moves": int(moves.offsets[-1]), "offsets": _b64(moves.offsets.astype("<i8")),
            "results": _b64(moves.results), "steps": _b64(moves.steps), "nsteps": _b64(moves.nsteps)}


def _bulk_rows(text: str, game: str, limits: Limits) -> Any:
    """The validated rows of a bulk form: Fevga positions (51 bytes a row), or with game=gioul
    Gioul states (58 bytes a row, fevga.gioul.to_array's layout)."""
    if game == "gioul":
        return validate_states(_bulk(text, GIOUL_WIDTH, "rows", limits))
    return batch.validate_positions(_bulk(text, batch.POSITION_WIDTH, "rows", limits))


def _bulk_rules(request: BatchRequest) -> Rules | None:
    """The rules preset of a bulk form (None: the game's defaults); Gioul has no options."""
    if request.rules != "default" and request.game == "gioul":
        raise ApiError(422, "unsupported", f"rules={request.rules}: Gioul has no Fevga rule options (docs/rules.md)")
    return None if request.rules == "default" else Rules.named(request.rules)


def _hint_rows(rows_text: str, dice_text: str, plies: int, game: str, limits: Limits, binary: bool,
               rules: Rules | None, stop: threading.Event, quantised: bool = False,
               every_move: bool | None = None) -> dict[str, Any] | Response:
    """fevga.batch.hint of base64 rows and dice, answered as its arrays: those of `_moves_rows`
    with each pair's moves best first, then values (m x 3, <f8), equities (m, <f8) and plies
    (m, i1); in base64 JSON, or with `binary` their bytes in that order. Ranked a slice of rows
    at a time, so that a request past its time limit (`stop` set) stops within one slice."""
    rows = _bulk_rows(rows_text, game, limits)
    dice = validate_dice(_bulk(dice_text, 2, "dice_rows", limits), len(rows))  # errors name the whole batch's rows
    size = 1 if every_move_of(game or "fevga", every_move) and plies > 1 else max(1, HINT_SLICE_ROWS >> (4 * (plies - 1)))
    parts = []
    for start in range(0, max(len(rows), 1), size):
        if stop.is_set():
            raise ApiError(408, "time_limit", "the bulk hint ran out of time")
        parts.append(batch.hint(rows[start:start + size], dice[start:start + size], plies, rules,
                                net=_net(game or "fevga", quantised), every_move=every_move))
    hints = batch.BatchHints.join(parts)
    arrays = [hints.offsets.astype("<i8"), hints.results, hints.steps, hints.nsteps, hints.values.astype("<f8"),
              hints.equities.astype("<f8"), hints.plies]
    if binary:
        return _raw(arrays, count=len(rows), moves=int(hints.offsets[-1]))
    names = ("offsets", "results", "steps", "nsteps", "values", "equities", "plies")
    return {"count": len(rows), "moves": int(hints.offsets[-1]), **{n: _b64(a) for n, a in zip(names, arrays)}}


HINT_SLICE_ROWS = 256  # rows a bulk hint ranks between two looks at its time limit (1 ply; 16x fewer a ply deeper)


def _evaluate_rows(text: str, game: str, limits: Limits, binary: bool = False,
                   quantised: bool = False) -> dict[str, Any] | Response:
    """0-ply evaluations of base64 rows, answered in bulk too: ``values`` is the base64 text
    of an (n, 3) little-endian float64 array (win, win_mars, lose_mars for the side on roll
    of each row; writing 3n floats as JSON text would cost more than the net), or with
    `binary` that array's bytes (header X-Fevga-Count n). Gioul state rows (game=gioul) are
    valued for their side to decide, as fevga.evaluate values them."""
    rows = _bulk_rows(text, game, limits)
    values = batch.evaluate(rows, _net(game or "fevga", quantised)).astype("<f8")
    if binary:
        return _raw([values], count=len(rows))
    return {"count": len(rows), "plies": 0, "columns": ["win", "win_mars", "lose_mars"], "dtype": "<f8",
            "values": _b64(values)}


def _rollout_work(position: Position | GioulPosition, dice: tuple[int, int] | None, by_move: bool,
                  request: RolloutRequest) -> Callable[[Callable[[int, int], None], threading.Event], Any]:
    options = dict(games=request.games, seed=request.seed, workers=request.workers, policy=request.policy,
                   truncate=request.truncate, luck=request.luck, progress=False)

    def work(on_block: Callable[[int, int], None], cancel: threading.Event) -> Any:
        if by_move:
            ranking = rollout_moves(position, dice, on_block=on_block, cancel=cancel, **options)  # type: ignore[arg-type]
            return {"moves": [m.to_dict() for m in ranking]}
        return rollout(position, on_block=on_block, cancel=cancel, **options).to_dict()  # type: ignore[arg-type]
    return work


def read_record(text: str) -> Any:
    """The match record of a request body: JSON (a game or a match, of either game) or the
    text match format (Fevga); FevgaError (RecordError) naming the problem. JSON goes through
    the records' bounded reader (nesting, integer size, finite numbers: docs/limits.md)."""
    if not text.strip():
        raise ApiError(400, "invalid_record", "the request body is empty: send a record (JSON or text)")
    text = text.removeprefix("\ufeff")
    if not is_json_record(text):
        return read_match(text, "the request body")
    try:
        data = read_json(text, "the request body")
    except RecordError as exc:
        raise ApiError(400, "invalid_record", f"the record is not valid JSON: {exc}") from None
    return record_from_data(data, "the request body")


def _bounded(record: Any, limits: Limits) -> Any:
    """`record` if within the record limits (games, plies or decisions), else 422 record_limit."""
    games = len(record.games)
    total = sum(len(g.decisions) if isinstance(g, GioulGameRecord) else len(g.plies) for g in record.games)
    if games > limits.record_games or total > limits.record_plies:
        raise ApiError(422, "record_limit", f"the record has {games} games and {total} plies "
                       f"(limits {limits.record_games} and {limits.record_plies})")
    return record


def _analyse(text: str, plies: int, evaluator: str, limits: Limits, stop: threading.Event,
             every_move: bool | None = None) -> Any:
    if every_move and evaluator == "heuristic":
        raise ApiError(422, "invalid_request", "every_move chooses what the net evaluator searches, not the heuristic")
    record = _bounded(read_record(text), limits)
    if isinstance(record, GioulMatchRecord) and (evaluator == "heuristic" or plies > deepest_plies("gioul", True)):
        raise ApiError(422, "unsupported", f"a Gioul record is analysed by the Gioul net at plies "
                       f"1..{deepest_plies('gioul', True)} "
                       "(evaluator=net)")

    def progress(done: int, count: int) -> None:
        if stop.is_set():
            raise ApiError(408, "time_limit", "the analysis ran out of time")

    decide = HeuristicEvaluator(plies=plies) if evaluator == "heuristic" else \
        None if every_move is None else ApiEvaluator(plies, every_move=every_move)
    return analyse(record, plies=plies, evaluator=decide, on_game=progress)


def _analysis_dict(report: Any, graphs: bool) -> dict[str, Any]:
    """The analysis as JSON; with `graphs`, each game also carries its equity and luck graph
    (`fevga.report.graph`, the report's own SVG) as ``graph``."""
    data: dict[str, Any] = report.to_dict()
    if graphs:
        for game, analysed in zip(data["games"], report.games):
            game["graph"] = graph(analysed, report.player_names)
    return data


def _version() -> str:
    return __version__


# ---------------------------------------------------------------------- the server


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, which after a graceful stop on Ctrl-C or SIGTERM does not raise
        the signal again (that would end `fevga serve` with a KeyboardInterrupt or a kill):
        the command then says it stopped and exits 0."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                try:
                    yield
                finally:
                    getattr(self, "_captured_signals", []).clear()

    return Server


def serve(host: str = "127.0.0.1", port: int = 8765, limits: Limits | None = None,
          ready: Callable[[str], None] | None = None) -> int:
    """Serve the API on `host`:`port` (0: a free port) until Ctrl-C or SIGTERM, which stop
    it cleanly: running requests finish, rollout jobs are cancelled. Prints the address it
    listens on (and calls `ready(url)`); returns the exit status."""
    import uvicorn

    limits = limits or Limits.default()
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidArgumentError(f"--port {port!r} must be 0-65535")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without, each answer's second write waits for a
    # delayed ACK (40 ms on Linux), since asyncio sets it only on sockets it made itself
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if family == socket.AF_INET6 else host}:{bound}"
    app = create_app(limits)
    # no proxy headers: the server uses no client address, and reading them costs every request
    config = uvicorn.Config(BodyLimit(app, limits.body_bytes), log_level="warning", access_log=False,
                            timeout_graceful_shutdown=5, limit_concurrency=1024, lifespan="on", proxy_headers=False)
    server = _server_class()(config)
    print(f"fevga serve: listening on {url} (the board at {url}/, API at {url}{API}/, OpenAPI at {url}/openapi.json)",
          file=sys.stderr, flush=True)
    if ready is not None:
        ready(url)
    server.run(sockets=[sock])
    print("fevga serve: stopped", file=sys.stderr, flush=True)
    return 0

