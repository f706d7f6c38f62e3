"""SVG board pictures (pure functions, in the style of ``chess.svg``).

>>> from fevga import Position
>>> board(Position.initial()).startswith("<svg")
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from fevga.position import Position

_COLORS = {
    "frame": "#5b3a1e",
    "board": "#e8d3a9",
    "dark": "#9c5a2c",
    "light": "#d9b26f",
    "white": "#fbfbf4",
    "black": "#222222",
    "text": "#333333",
}


def _checker_stack(cx: float, base_y: float, direction: int, count: int, color: str, radius: float) -> list[str]:
    fill, stroke, ink = (_COLORS["white"], "#777", "#000") if color == "white" else (_COLORS["black"], "#000", "#fff")
    parts = []
    shown = min(count, 5)
    for i in range(shown):
        cy = base_y + direction * (radius + 2 * radius * i)
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>')
    if count > 5:
        cy = base_y + direction * (radius + 2 * radius * (shown - 1))
        parts.append(f'<text x="{cx:.1f}" y="{cy + radius * 0.35:.1f}" font-size="{radius:.0f}" text-anchor="middle" '
                     f'fill="{ink}" font-family="sans-serif">{count}</text>')
    return parts


def board(position: Position, *, size: int = 480, coordinates: bool = True) -> str:
    """An SVG picture of `position` in printed numbering (White's own points; 13-24 on top).

    White checkers are light, Black dark; borne-off counts and the side on roll are written
    underneath.
    """
    from fevga.position import BLACK, COLOR_NAMES, WHITE, other_point

    width = size
    point_w = width / 13.0          # 12 points + the middle bar
    height = size * 0.75
    margin = point_w * 0.6
    inner_h = height - 2 * margin
    tri_h = inner_h * 0.42
    radius = point_w * 0.42
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height + margin:.0f}" '
        f'width="{width:.0f}" height="{height + margin:.0f}">',
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="{_COLORS["frame"]}"/>',
        f'<rect x="{margin * 0.3:.1f}" y="{margin:.1f}" width="{width - margin * 0.6:.1f}" height="{inner_h:.1f}" '
        f'fill="{_COLORS["board"]}"/>',
    ]

    def column_x(index: int) -> float:  # index 0..11 from the left, bar after 6 columns
        return margin * 0.3 + point_w * (index + 0.5 + (1 if index >= 6 else 0)) * (width - margin * 0.6) / width

    for printed in range(1, 25):
        top = printed >= 13
        index = printed - 13 if top else 12 - printed
        cx = column_x(index)
        half = point_w * 0.45 * (width - margin * 0.6) / width
        base_y = margin if top else margin + inner_h
        tip_y = base_y + tri_h if top else base_y - tri_h
        fill = _COLORS["dark"] if printed % 2 else _COLORS["light"]
        parts.append(f'<polygon points="{cx - half:.1f},{base_y:.1f} {cx + half:.1f},{base_y:.1f} {cx:.1f},{tip_y:.1f}" fill="{fill}"/>')
        if coordinates:
            label_y = margin * 0.7 if top else height - margin * 0.25
            parts.append(f'<text x="{cx:.1f}" y="{label_y:.1f}" font-size="{margin * 0.5:.0f}" text-anchor="middle" '
                         f'fill="#f4e6c8" font-family="sans-serif">{printed}</text>')
        white = position.counts(WHITE)[printed]
        black = position.counts(BLACK)[other_point(printed)]
        if white or black:
            parts += _checker_stack(cx, base_y, 1 if top else -1, white or black, "white" if white else "black", radius)
    winner = position.winner()
    status = f"{COLOR_NAMES[winner]} wins" if winner is not None else f"{COLOR_NAMES[position.turn]} to play"

    caption = (f"White off {position.counts(WHITE)[0]}, pips {position.pips(WHITE)} | "
               f"Black off {position.counts(BLACK)[0]}, pips {position.pips(BLACK)} | {status}")
    parts.append(f'<text x="{width / 2:.1f}" y="{height + margin * 0.7:.1f}" font-size="{margin * 0.45:.0f}" '
                 f'text-anchor="middle" fill="{_COLORS["text"]}" font-family="sans-serif">{escape(caption)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
