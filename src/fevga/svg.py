"""SVG board pictures (pure functions, in the style of ``chess.svg``): the project's one board drawing.

A board shows the 24 points, the checkers, a borne-off tray for each side (right of the board),
optionally the dice to play, and a caption with the pips and borne-off counts. Its parts carry
stable classes and data attributes so that a page can style them or make them clickable:

* ``<svg class="fevga-board" data-position="ID" data-turn="white">``;
* each point ``<polygon class="point" data-point="P">`` (standalone boards: shared ones refer
  to one drawing), P in printed (White's) numbering (Black's own point is
  ``fevga.position.other_point(P)``);
* each checker ``class="checker white" data-point="P" data-index="i"`` (i = 0 at the point's
  base; standalone boards); the tray ``class="tray white" data-off="N"``; each die
  ``class="die" data-value="d"``.

``board(..., shared=True)`` draws the parts that every board has in common (frame, points,
numbers, the checker shapes) by reference (``<use href="#fevga-...">``) to the definitions of
`board_defs()`, included once per HTML page: a page of many boards then carries one copy of the
drawing (the analysis report). A standalone board (the default) is a complete SVG file.

>>> from fevga import Position
>>> board(Position.initial()).startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from fevga.errors import InvalidArgumentError
from fevga.files import atomic_write
from fevga_core.gioul import CoreGioul
from fevga.limits import bounded, check_flag, check_int
from fevga.notation import other_point
from fevga.position import BLACK, COLOR_NAMES, WHITE, BasePosition, Position

import importlib
import shutil
import subprocess

_COLORS = {
    "frame": "#5b3a1e",
    "board": "#e8d3a9",
    "dark": "#9c5a2c",
    "light": "#d9b26f",
    "white": "#fbfbf4",
    "black": "#222222",
    "text": "#222222",
    "label": "#f4e6c8",
    "tray": "#7a5230",
}

# The drawing's own units (the viewBox); `size` scales it.
POINT_W = 34.0  # width of a point (and of the bar)
FRAME = 22.0  # frame above and below (the point numbers are written in it) and left of the board
INNER_H = 330.0  # playing area's height
TRAY_GAP = 10.0  # frame between the board and the tray
TRAY_W = 40.0  # width of the borne-off tray
BOARD_W = FRAME + 13 * POINT_W + TRAY_GAP + TRAY_W + TRAY_GAP  # 12 points and the bar, the tray
BOARD_H = 2 * FRAME + INNER_H
CAPTION_H = 30.0
RADIUS = POINT_W * 0.45
TRI_H = INNER_H * 0.42
STACK = 5  # checkers drawn on a point before the rest is written as a number
DIE = 30.0
MAX_SIZE = 10_000  # pixels of a board's width (`board(size=)`)
MAX_DICE = 24  # dice drawn on a board: a Gioul chain from 1-1 leaves at most 24 pending


def _column_x(index: int) -> float:
    """Centre of column `index` (0..11 from the left; the bar after six columns)."""
    return FRAME + POINT_W * (index + 0.5 + (1 if index >= 6 else 0))


def _layout(perspective: int) -> list[tuple[int, int, bool]]:
    """(printed point, label, on top) of the 24 points, as `perspective` numbers its own points:
    13-24 on top from the left, 12-1 below (White's view is the printed numbering)."""
    out = []
    for label in range(1, 25):
        printed = other_point(label) if perspective == BLACK else label
        out.append((printed, label, label >= 13))
    return out


def _point_xy(label: int) -> tuple[float, float, float]:
    """(centre x, base y, tip y) of the point labelled `label`."""
    top = label >= 13
    index = label - 13 if top else 12 - label
    cx = _column_x(index)
    base = FRAME if top else FRAME + INNER_H
    return cx, base, base + TRI_H if top else base - TRI_H


def _frame() -> list[str]:
    return [
        f'<rect x="0" y="0" width="{BOARD_W:.0f}" height="{BOARD_H:.0f}" fill="{_COLORS["frame"]}"/>',
        f'<rect x="{FRAME:.0f}" y="{FRAME:.0f}" width="{13 * POINT_W:.0f}" height="{INNER_H:.0f}" '
        f'fill="{_COLORS["board"]}"/>',
        f'<rect x="{FRAME + 6 * POINT_W:.0f}" y="{FRAME:.0f}" width="{POINT_W:.0f}" height="{INNER_H:.0f}" '
        f'fill="{_COLORS["frame"]}"/>',
        f'<rect class="tray-frame" x="{FRAME + 13 * POINT_W + TRAY_GAP:.0f}" y="{FRAME:.0f}" width="{TRAY_W:.0f}" '
        f'height="{INNER_H:.0f}" fill="{_COLORS["tray"]}"/>',
    ]


def _points(perspective: int, coordinates: bool, data: bool) -> list[str]:
    parts = []
    half = POINT_W * 0.46
    for printed, label, top in _layout(perspective):
        cx, base, tip = _point_xy(label)
        fill = _COLORS["dark"] if label % 2 else _COLORS["light"]
        attributes = f' class="point" data-point="{printed}"' if data else ""
        parts.append(f'<polygon{attributes} points="{cx - half:.1f},{base:.1f} {cx + half:.1f},{base:.1f} '
                     f'{cx:.1f},{tip:.1f}" fill="{fill}"/>')
        if coordinates:
            y = FRAME * 0.72 if top else BOARD_H - FRAME * 0.25
            parts.append(f'<text x="{cx:.1f}" y="{y:.1f}" font-size="14" text-anchor="middle" '
                         f'fill="{_COLORS["label"]}" font-family="sans-serif">{label}</text>')
    return parts


def _checker_shape(color: str) -> str:
    fill, stroke = (_COLORS["white"], "#777") if color == "white" else (_COLORS["black"], "#000")
    return f'<circle cx="0" cy="0" r="{RADIUS:.1f}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>'


def board_defs() -> str:
    """The shared drawing that `board(..., shared=True)` refers to: include it once per HTML page
    (an invisible SVG holding the frame, points and numbers of both views and the checkers)."""
    groups = []
    for perspective, name in ((WHITE, "white"), (BLACK, "black")):
        for coordinates in (True, False):
            body = "".join(_frame() + _points(perspective, coordinates, False))
            groups.append(f'<g id="fevga-board-{name}{"" if coordinates else "-plain"}">{body}</g>')
    checkers = "".join(f'<g id="fevga-checker-{c}">{_checker_shape(c)}</g><g id="fevga-slab-{c}">{_slab_shape(c)}</g>'
                       for c in ("white", "black"))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" '
            f'aria-hidden="true"><defs>{"".join(groups)}{checkers}</defs></svg>')


def _checker(cx: float, cy: float, color: str, shared: bool, attributes: str) -> str:
    if shared:  # a report's many small boards: the shape by reference, nothing else
        return f'<use href="#fevga-checker-{color}" x="{cx:.0f}" y="{cy:.0f}"/>'
    shape = _checker_shape(color).replace('cx="0" cy="0"', f'cx="{cx:.1f}" cy="{cy:.1f}"')
    return shape.replace("<circle", f"<circle{attributes}", 1)


def _stack(printed: int, label: int, count: int, color: str, shared: bool) -> list[str]:
    cx, base, _ = _point_xy(label)
    direction = 1 if label >= 13 else -1
    parts = []
    shown = min(count, STACK)
    for i in range(shown):
        cy = base + direction * (RADIUS + 2 * RADIUS * i)
        parts.append(_checker(cx, cy, color, shared,
                              f' class="checker {color}" data-point="{printed}" data-index="{i}"'))
    if count > STACK:
        cy = base + direction * (RADIUS + 2 * RADIUS * (shown - 1))
        ink = "#000" if color == "white" else "#fff"
        parts.append(f'<text x="{cx:.1f}" y="{cy + 5:.1f}" font-size="15" font-weight="bold" text-anchor="middle" '
                     f'fill="{ink}" font-family="sans-serif">{count}</text>')
    return parts


SLAB = 9.0  # height of a borne-off checker seen edge-on in the tray
TRAY_X = FRAME + 13 * POINT_W + TRAY_GAP


def _slab_shape(color: str, x: float = 0.0, y: float = 0.0) -> str:
    fill, stroke = (_COLORS["white"], "#777") if color == "white" else (_COLORS["black"], "#000")
    return (f'<rect x="{x + 3:.0f}" y="{y:.0f}" width="{TRAY_W - 6:.0f}" height="{SLAB - 1:.0f}" rx="2" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="0.8"/>')


def _tray(color: str, off: int, bottom: bool, shared: bool) -> list[str]:
    """The side's borne-off checkers, stacked edge-on from the tray's end, and their number."""
    x = TRAY_X
    slab = SLAB
    parts = [f'<g class="tray {color}" data-off="{off}">']
    for i in range(off):
        y = FRAME + INNER_H - (i + 1) * slab - 2 if bottom else FRAME + i * slab + 2
        parts.append(f'<use href="#fevga-slab-{color}" x="{x:.0f}" y="{y:.0f}"/>' if shared
                     else _slab_shape(color, x, y))
    if off:
        y = FRAME + INNER_H - off * slab - 8 if bottom else FRAME + off * slab + 18
        parts.append(f'<text x="{x + TRAY_W / 2:.1f}" y="{y:.1f}" font-size="14" font-weight="bold" '
                     f'text-anchor="middle" fill="{_COLORS["label"]}" font-family="sans-serif">{off}</text>')
    parts.append("</g>")
    return parts


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _dice(dice: tuple[int, ...], color: str) -> list[str]:
    """The dice to play, side by side in the middle of the right half of the board."""
    fill, ink = (_COLORS["white"], "#000") if color == "white" else (_COLORS["black"], "#fff")
    centre_x = _column_x(9)
    centre_y = FRAME + INNER_H / 2
    gap = 8.0
    width = len(dice) * DIE + (len(dice) - 1) * gap
    parts = []
    for k, value in enumerate(dice):
        x = centre_x - width / 2 + k * (DIE + gap)
        y = centre_y - DIE / 2
        parts.append(f'<g class="die" data-value="{value}"><rect x="{x:.1f}" y="{y:.1f}" width="{DIE:.0f}" '
                     f'height="{DIE:.0f}" rx="5" fill="{fill}" stroke="#000" stroke-width="1.2"/>')
        for dx, dy in _PIPS[value]:
            parts.append(f'<circle cx="{x + DIE / 2 + dx * DIE * 0.27:.1f}" cy="{y + DIE / 2 + dy * DIE * 0.27:.1f}" '
                         f'r="{DIE * 0.085:.1f}" fill="{ink}"/>')
        parts.append("</g>")
    return parts


def caption(position: BasePosition) -> str:
    """The board's caption in words: both sides' pips and borne-off counts, and who is to play."""
    winner = position.winner()
    status = f"{COLOR_NAMES[winner].capitalize()} wins" if winner is not None else \
        f"{COLOR_NAMES[position.turn].capitalize()} to play"
    return (f"White {position.pips(WHITE)} pips, {position.counts(WHITE)[0]} off · "
            f"Black {position.pips(BLACK)} pips, {position.counts(BLACK)[0]} off · {status}")


def board(position: BasePosition, *, size: int = 480, coordinates: bool = True, dice: tuple[int, ...] | None = None,
          perspective: int = 0, captioned: bool = True, shared: bool = False) -> str:
    """An SVG picture of `position`, `size` pixels wide.

    Points are numbered as `perspective` numbers its own (default White's: the printed
    numbering, 13-24 on top; ``perspective=BLACK`` turns the board for Black). White
    checkers are light, Black dark; each side's borne-off checkers are in the tray right of
    the board (the viewer's below). `dice` (e.g. ``(6, 5)``) are drawn in the colour of the
    side on roll. `captioned` writes the pips, borne-off counts and the side on roll
    underneath (`caption`); `shared` refers to `board_defs()` for the common drawing.
    """
    if not isinstance(position, (Position, CoreGioul)):
        raise InvalidArgumentError(f"position {repr(position)[:80]} must be a fevga.Position or a GioulPosition")
    size = check_int("size", size, 1, MAX_SIZE)
    perspective = check_int("perspective", perspective, 0, 1)
    coordinates, captioned, shared = (check_flag(name, value) for name, value in
                                      (("coordinates", coordinates), ("captioned", captioned), ("shared", shared)))
    if dice is not None:
        if not isinstance(dice, Iterable) or isinstance(dice, (str, bytes)):
            raise InvalidArgumentError(f"dice {repr(dice)[:60]} must be a sequence of numbers 1-6")
        dice = tuple(check_int("die", value, 1, 6) for value in bounded(dice, "dice", MAX_DICE))
    height = BOARD_H + (CAPTION_H if captioned else 0)
    scale = size / BOARD_W
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="fevga-board" viewBox="0 0 {BOARD_W:.0f} {height:.0f}" '
        f'width="{size}" height="{height * scale:.0f}" data-position="{position.id}" '
        f'data-turn="{COLOR_NAMES[position.turn]}">'
    ]
    if shared:
        name = ("black" if perspective == BLACK else "white") + ("" if coordinates else "-plain")
        parts.append(f'<use href="#fevga-board-{name}"/>')
    else:
        parts += _frame() + _points(perspective, coordinates, True)
    white_counts, black_counts = position.counts(WHITE), position.counts(BLACK)
    for printed, label, _ in _layout(perspective):
        white = white_counts[printed]
        black = black_counts[other_point(printed)]
        if white or black:
            parts += _stack(printed, label, white or black, "white" if white else "black", shared)
    viewer = BLACK if perspective == BLACK else WHITE
    parts += _tray(COLOR_NAMES[viewer], position.counts(viewer)[0], True, shared)
    parts += _tray(COLOR_NAMES[1 - viewer], position.counts(1 - viewer)[0], False, shared)
    if dice:
        parts += _dice(tuple(dice), COLOR_NAMES[position.turn])
    if captioned:
        parts.append(f'<text class="caption" x="{BOARD_W / 2:.1f}" y="{BOARD_H + 21:.1f}" font-size="17" '
                     f'text-anchor="middle" fill="{_COLORS["text"]}" font-family="sans-serif">'
                     f'{escape(caption(position))}</text>')
    parts.append("</svg>")
    return "".join(parts) if shared else "\n".join(parts)


def save(position: Position, path: str, image: str | None = None, **options: Any) -> None:
    """Write `board(position, **options)` to `path`, atomically: as SVG, or as PNG (by CairoSVG,
    the ``png`` extra, else the system's ``rsvg-convert``) when `image` is "png" or, without
    `image`, the path ends in ``.png``."""
    kind = image or ("png" if str(path).lower().endswith(".png") else "svg")
    if kind not in ("svg", "png"):
        raise InvalidArgumentError(f"image {image!r} must be 'svg' or 'png'")
    text = board(position, **options)
    data = text.encode("utf-8") if kind == "svg" else to_png(text)
    atomic_write(Path(path), lambda handle: handle.write(data), what="board image")


def to_png(svg_text: str) -> bytes:
    """PNG bytes of an SVG text: CairoSVG (``pip install 'fevga[png]'``) or, without it, the
    system's ``rsvg-convert`` (librsvg); InvalidArgumentError naming both when neither is there."""
    try:
        cairosvg = importlib.import_module("cairosvg")
    except (ImportError, OSError):  # OSError: the package is there, the cairo library is not
        cairosvg = None
    if cairosvg is not None:
        png: bytes = cairosvg.svg2png(bytestring=svg_text.encode("utf-8"))
        return png
    tool = shutil.which("rsvg-convert")
    if tool is None:
        raise InvalidArgumentError("PNG output needs CairoSVG (pip install 'fevga[png]') or the rsvg-convert "
                                   "tool (apt-get install librsvg2-bin); --svg FILE needs neither")
    run = subprocess.run([tool, "--format=png"], input=svg_text.encode("utf-8"), capture_output=True, check=False)
    if run.returncode != 0 or not run.stdout:
        raise InvalidArgumentError(f"rsvg-convert failed: {run.stderr.decode(errors='replace').strip()[:200]}")
    return run.stdout
