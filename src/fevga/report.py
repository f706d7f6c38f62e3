"""Analysis reports written game by game: text, JSON and one self-contained HTML page.

Each report is a writer over an open text stream: ``begin(header)``, then ``game(g)`` for each
`GameAnalysis` as the analysis yields it (`fevga.analyser.Analyser`), then ``end(players,
score, elapsed)``; the HTML page is opened by ``begin_page(title)`` and closed by
``end_page()`` and may hold several analyses (one per record file) and their totals. Nothing
but the current game is kept, so memory stays flat however many games a record holds;
`Analysis.to_text/to_json/to_html` write the same reports into a string.

The HTML page has inline CSS and SVG, no scripts and no external files: per game its result,
an equity and luck graph across the game, every ply (flagged rows coloured and linked), and for
each flagged decision three boards (before the move with its dice, after the played move,
after the best move, drawn once by `fevga.svg` and shared by reference) and the top-ranked
moves with their differences; the players' totals are shown at the top.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any, TextIO

from fevga import svg
from fevga.position import COLOR_NAMES, WHITE
from fevga.analyser import band_legend, signed, unsigned

if TYPE_CHECKING:
    from fevga.analyser import AnalysisHeader, GameAnalysis, PlayerSummary, PlyAnalysis


def _signed(value: float) -> str:
    return signed(value)


def _unsigned(value: float) -> str:
    return unsigned(value)


def _kind(header: AnalysisHeader) -> str:
    return f"{header.length} point match" if header.length else "session"


def _totals_rows(players: Sequence[PlayerSummary]) -> list[tuple[str, list[str]]]:
    """The rows of a players' totals table (text and HTML)."""
    return [
        ("unforced decisions", [str(p.decisions) for p in players]),
        ("forced plies", [str(p.forced) for p in players]),
        ("doubtful", [str(p.marks["doubtful"]) for p in players]),
        ("bad", [str(p.marks["bad"]) for p in players]),
        ("very bad", [str(p.marks["very bad"]) for p in players]),
        ("total equity loss", [_unsigned(p.total_loss) for p in players]),
        ("loss per decision", [f"{p.mean_loss:.4f}" for p in players]),
        ("performance rating", [f"{p.rating:.1f}" for p in players]),
        ("rating band", [p.band or "-" for p in players]),
        ("luck total", [_signed(p.luck) for p in players]),
        ("very lucky / lucky", [f"{p.luck_marks['very lucky']} / {p.luck_marks['lucky']}" for p in players]),
        ("unlucky / very unlucky", [f"{p.luck_marks['unlucky']} / {p.luck_marks['very unlucky']}" for p in players]),
    ]


# ---------------------------------------------------------------------------------------
# Text


class TextReport:
    """The readable report: flagged decisions (or every ply) per game, then the players' totals."""

    def __init__(self, out: TextIO, all_plies: bool = False) -> None:
        self.out = out
        self.all_plies = all_plies
        self.names: tuple[str, str] = ("White", "Black")

    def begin(self, header: AnalysisHeader) -> None:
        """The opening line."""
        self.names = header.player_names
        self.out.write(f"Analysis by {header.evaluator} (luck: {header.luck_evaluator}); {_kind(header)}, "
                       f"{header.games} game(s); "
                       + ("equities are normalised match equity (EMG)" if header.match_aware else "equities in points")
                       + "\n")

    def game(self, game: GameAnalysis) -> None:
        """One game's heading and its flagged plies (every ply with `all_plies`)."""
        names = self.names
        lines = ["", f"Game {game.number} (score {names[0]} {game.score[0]}, {names[1]} {game.score[1]}): "
                     f"{game.result_text(names)}"]
        for p in game.plies:
            if not (self.all_plies or p.mark or p.luck_mark.startswith("very")):
                continue
            text = f"  {p.move:3d}) {names[p.turn]:<10} {p.dice_text.replace('-', '')}: {p.played.notation:<24}"
            if p.forced:
                text += " (forced)"
            elif p.played.position == p.best.position:
                text += " (best)"
            elif p.mark or self.all_plies:
                text += f" best {p.best.notation:<24} loss {_unsigned(p.loss)}" + (f"  {p.mark}" if p.mark else "")
            if p.rollout_games:
                text += (f" (rollout {p.rollout_games} games, +- {_unsigned(p.rollout_se or 0.0)}; evaluator "
                         f"{_unsigned(p.evaluator_loss or 0.0)})")
            if p.rollout_cut is not None:
                text += f" (re-check cut short after {p.rollout_cut} games: not used, the evaluator's verdict stands)"
            if p.luck_mark or self.all_plies:
                text += f"  luck {_signed(p.luck)}" + (f" {p.luck_mark}" if p.luck_mark else "")
            lines.append(text)
        self.out.write("\n".join(lines) + "\n")

    def interrupted(self, note: str) -> None:
        """Say that Ctrl-C stopped the analysis and what it covers (before the totals)."""
        self.out.write(f"\nINTERRUPTED (Ctrl-C): {note}\n")

    def end(self, players: Sequence[PlayerSummary], score: tuple[int, int], elapsed: float) -> None:
        """The players' totals."""
        self.out.write("\n" + totals_table(players) + "\n")


def totals_table(players: Sequence[PlayerSummary], title: str = "") -> str:
    """The players' totals as a text table, one column per player, and the rating's legend."""
    lines = [f"{title:<22}" + "".join(f"{p.name:>14}" for p in players)]
    for label, cells in _totals_rows(players):
        lines.append(f"{label:<22}" + "".join(f"{c:>14}" for c in cells))
    lines.append("performance rating = 500 x mean equity loss per unforced decision (0 = perfect); bands: "
                 + band_legend())
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# JSON


class JsonReport:
    """The analysis as one JSON object, written game by game: the header's fields, then
    ``"games": [...]`` (each `GameAnalysis.to_dict`), then ``"players"``, ``"score"`` and
    ``"elapsed"``."""

    def __init__(self, out: TextIO, indent: int | None = None) -> None:
        self.out = out
        self.indent = indent
        self.first = True
        self.note = ""

    def _dump(self, value: Any) -> str:
        return json.dumps(value, indent=self.indent)

    def begin(self, header: AnalysisHeader) -> None:
        """The header's fields and the opening of the games."""
        t = header.thresholds
        fields = {
            "evaluator": header.evaluator, "luck_evaluator": header.luck_evaluator,
            "thresholds": {"doubtful": t.doubtful, "bad": t.bad, "very_bad": t.very_bad, "lucky": t.lucky,
                           "very_lucky": t.very_lucky},
            "length": header.length, "match_aware": header.match_aware, "units": header.units,
            "player_names": list(header.player_names),
        }
        self.out.write("{" + ", ".join(f"{json.dumps(k)}: {self._dump(v)}" for k, v in fields.items())
                       + ', "games": [\n')
        self.first = True

    def game(self, game: GameAnalysis) -> None:
        """One game."""
        self.out.write(("" if self.first else ",\n") + self._dump(game.to_dict()))
        self.first = False

    def interrupted(self, note: str) -> None:
        """Ctrl-C stopped the analysis: the object ends with ``"interrupted": note``."""
        self.note = note

    def end(self, players: Sequence[PlayerSummary], score: tuple[int, int], elapsed: float) -> None:
        """The totals and the end of the object."""
        stopped = f', "interrupted": {json.dumps(self.note)}' if self.note else ""
        self.out.write(f'\n], "players": {self._dump([p.to_dict() for p in players])}, '
                       f'"score": {list(score)}, "elapsed": {json.dumps(elapsed)}{stopped}}}')


# ---------------------------------------------------------------------------------------
# HTML

_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fdfaf3; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 1.5em; } h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8b99a; padding: 0.2em 0.6em; text-align: left; }
th { background: #eadcbf; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.doubtful td { background: #fff4c2; } tr.bad td { background: #ffd9a8; } tr.very-bad td { background: #ffb3a8; }
tr.played td { font-weight: bold; } tr.best td { color: #145214; }
.analysis { display: flex; flex-direction: column; }
.intro { order: -2; } .players { order: -1; }
.boards { display: flex; flex-wrap: wrap; gap: 1em; }
.boards figure { margin: 0; } figcaption { font-size: 1em; line-height: 1.4; max-width: 360px; }
figcaption .pips { display: block; font-size: 0.95em; color: #333; }
.decision { border-top: 2px solid #c8b99a; margin-top: 1.5em; padding-top: 0.5em; }
.mark { font-weight: bold; }
.graph { margin: 0.5em 0; }
"""

MARK_COLORS = {"doubtful": "#d4a800", "bad": "#e07000", "very bad": "#c00000"}


def _anchor(ply: PlyAnalysis, section: int = 1) -> str:
    """The id of a flagged decision: g{game}p{ply}, prefixed s{n} from a page's second analysis on."""
    return ("" if section == 1 else f"s{section}") + f"g{ply.game}p{ply.number}"


def graph(game: GameAnalysis, names: tuple[str, str], width: int = 900, height: int = 220, section: int = 1) -> str:
    """An SVG graph across `game`: White's equity after each ply (a line; flagged decisions as
    dots in their mark's colour) over the luck of each roll for White (bars: up lucky for White,
    down lucky for Black)."""
    plies = game.plies
    left, right, top, bottom = 48.0, 12.0, 14.0, 30.0
    inner_w, inner_h = width - left - right, height - top - bottom
    n = max(len(plies), 1)

    def x(i: float) -> float:
        return left + inner_w * (i + 0.5) / n

    def y(value: float) -> float:
        clipped = max(-2.0, min(2.0, value))
        return top + inner_h * (2.0 - clipped) / 4.0

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="equity and luck across game {game.number}">',
             f'<rect x="{left}" y="{top}" width="{inner_w}" height="{inner_h}" fill="#fff" stroke="#c8b99a"/>']
    for value in (2, 1, 0, -1, -2):
        parts.append(f'<line x1="{left}" x2="{left + inner_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
                     f'stroke="{"#888" if value == 0 else "#e6dcc8"}" stroke-width="1"/>')
        parts.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" font-size="12" text-anchor="end" '
                     f'font-family="sans-serif">{value:+d}</text>' if value else
                     f'<text x="{left - 6}" y="{y(value) + 4:.1f}" font-size="12" text-anchor="end" '
                     f'font-family="sans-serif">0</text>')
    bar = max(inner_w / n * 0.6, 1.0)
    bars: dict[bool, list[str]] = {True: [], False: []}  # one path per colour: small at any length
    for i, p in enumerate(plies):
        luck = p.luck if p.turn == WHITE else -p.luck
        bars[luck >= 0].append(f"M{x(i) - bar / 2:.1f} {y(0):.1f}V{y(luck):.1f}h{bar:.1f}V{y(0):.1f}z")
    for good, path in bars.items():
        if path:
            parts.append(f'<path d="{"".join(path)}" fill="{"#7fb27f" if good else "#c99"}" opacity="0.8"/>')
    points = " ".join(f"{x(i):.1f},{y(p.played.equity if p.turn == WHITE else -p.played.equity):.1f}"
                      for i, p in enumerate(plies))
    if points:
        parts.append(f'<polyline points="{points}" fill="none" stroke="#1f4e99" stroke-width="2"/>')
    for i, p in enumerate(plies):
        if p.mark:
            equity = p.played.equity if p.turn == WHITE else -p.played.equity
            parts.append(f'<a href="#{_anchor(p, section)}"><circle cx="{x(i):.1f}" cy="{y(equity):.1f}" r="5" '
                         f'fill="{MARK_COLORS[p.mark]}" stroke="#000"><title>move {p.move}: {escape(names[p.turn])} '
                         f'{escape(p.mark)} (loss {_unsigned(p.loss)})</title></circle></a>')
    step = max(1, round(len(plies) / 12 / 5) * 5) if len(plies) > 12 else 1
    for i, p in enumerate(plies):
        if i % step == 0:
            parts.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" font-size="12" text-anchor="middle" '
                         f'font-family="sans-serif">{p.move}</text>')
    parts.append(f'<text x="{left}" y="{height - 3}" font-size="12" font-family="sans-serif">line: '
                 f'{escape(names[0])}\'s equity after each move (points, clipped to ±2); bars: luck of each roll '
                 f'(up: good for {escape(names[0])}); dots: flagged decisions; numbers: move</text>')
    parts.append("</svg>")
    return "".join(parts)


class HtmlReport:
    """The HTML page, written game by game (`begin_page`, then per analysis `begin`, `game`...,
    `end`, then optionally `totals`, then `end_page`)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.header: AnalysisHeader | None = None
        self.section = 0

    def begin_page(self, title: str) -> None:
        """The document's head, the shared board drawing and the title."""
        self.out.write("<!DOCTYPE html>\n" '<html lang="en"><head><meta charset="utf-8">'
                       f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>\n"
                       f"{svg.board_defs()}\n<h1>{escape(title)}</h1>\n")

    def begin(self, header: AnalysisHeader, source: str | None = None) -> None:
        """One analysis: its section and how it was judged."""
        self.header = header
        self.section += 1
        t = header.thresholds
        names = header.player_names
        heading = f"<h2>{escape(source)}</h2>" if source else ""
        units = ("Equities are normalised match equity (EMG: a single game won +1, lost -1 at the score) for the "
                 "player to move." if header.match_aware else "Equities in points for the player to move (a mars "
                 "counts 2).")
        self.out.write(
            f'<section class="analysis" id="analysis{self.section}">\n<div class="intro">{heading}'
            f"<p>{escape(names[0])} (White) - {escape(names[1])} (Black): {escape(_kind(header))}, "
            f"{header.games} game(s). Decisions by {escape(header.evaluator)}; luck by "
            f"{escape(header.luck_evaluator)}. Marks: doubtful &ge; {t.doubtful}, bad &ge; {t.bad}, very bad &ge; "
            f"{t.very_bad}; luck marks at &plusmn;{t.lucky} and &plusmn;{t.very_lucky}. {units}</p>"
            "<p>Performance rating = 500 &times; mean equity loss per unforced decision (0 = perfect play); bands: "
            + escape(band_legend()) + " (docs/analysis.md).</p></div>\n")

    def game(self, game: GameAnalysis) -> None:
        """One game: heading, graph, ply table and its flagged decisions."""
        assert self.header is not None
        names = self.header.player_names
        flagged = [p for p in game.plies if p.mark]
        self.out.write(
            f'<div class="game"><h3 id="s{self.section}game{game.number}">Game {game.number}: score '
            f"{escape(names[0])} {game.score[0]}, {escape(names[1])} {game.score[1]}; "
            f"{escape(game.result_text(names))}</h3>\n{graph(game, names, section=self.section)}\n{self._ply_rows(game.plies)}\n"
            f"<p>{len(flagged)} flagged decision(s) in game {game.number}.</p>\n")
        for p in flagged:
            self.out.write(self._decision(p) + "\n")
        self.out.write("</div>\n")

    def end(self, players: Sequence[PlayerSummary], score: tuple[int, int], elapsed: float) -> None:
        """The players' totals (shown at the top of the section) and the section's end."""
        self.out.write(f'<div class="players"><h3>Players (final score {score[0]}-{score[1]})</h3>'
                       f"{_totals_html(players, [f'{p.name} ({COLOR_NAMES[p.color]})' for p in players])}</div>\n"
                       "</section>\n")

    def totals(self, players: Sequence[PlayerSummary], title: str) -> None:
        """A totals table across analyses (players by name)."""
        self.out.write(f'<section class="totals"><h2>{escape(title)}</h2>'
                       f"{_totals_html(players, [p.name for p in players])}</section>\n")

    def end_page(self) -> None:
        """The end of the document."""
        self.out.write("</body></html>\n")

    def _ply_rows(self, plies: Sequence[PlyAnalysis]) -> str:
        assert self.header is not None
        names = self.header.player_names
        out = ["<table><tr><th>Move</th><th>Player</th><th>Dice</th><th>Played</th><th>Best</th><th>Loss</th>"
               "<th>Mark</th><th>Luck</th></tr>"]
        for p in plies:
            css = p.mark.replace(" ", "-")
            played = escape(p.played.notation)
            if p.mark:
                played = f'<a href="#{_anchor(p, self.section)}">{played}</a>'
            best = "" if p.forced or p.loss == 0 else escape(p.best.notation)
            loss = "forced" if p.forced else _unsigned(p.loss)
            rolled = p.kind in ("", "roll")  # a Gioul chain's block or handed-over dice begin no roll: no luck
            luck = _signed(p.luck) + (f" ({escape(p.luck_mark)})" if p.luck_mark else "") if rolled else ""
            dice = p.dice_text if rolled else f"{p.dice_text} ({'block' if p.kind == 'block' else 'handed over'})"
            out.append(f'<tr class="{css}"><td class="num">{p.move})</td><td>{escape(names[p.turn])}'
                       f'</td><td>{dice}</td><td>{played}</td><td>{best}</td>'
                       f'<td class="num">{loss}</td><td class="mark">{escape(p.mark)}</td><td class="num">{luck}</td>'
                       "</tr>")
        out.append("</table>")
        return "".join(out)

    def _decision(self, p: PlyAnalysis) -> str:
        assert self.header is not None
        name = escape(self.header.player_names[p.turn])
        boards = [
            (p.position, p.dice, f"Before: {name} to play {p.dice_text}"),
            (p.played.position, None, f"Played {escape(p.played.notation)}: {_signed(p.played.equity)}"),
            (p.best.position, None, f"Best {escape(p.best.notation)}: {_signed(p.best.equity)}"),
        ]
        figures = "".join(
            f"<figure>{svg.board(pos, size=360, dice=dice, captioned=False, shared=True)}<figcaption>{caption}"
            f'<span class="pips">{escape(svg.caption(pos))}</span></figcaption></figure>'
            for pos, dice, caption in boards)
        rows = []
        ranking = list(p.ranking)
        if all(m.position != p.played.position for m in ranking):
            ranking.append(p.played)
        for i, m in enumerate(ranking, 1):
            classes = []
            if m.position == p.played.position:
                classes.append("played")
            if m.position == p.best.position:
                classes.append("best")
            number = i if i <= len(p.ranking) else p.rank
            rows.append(f'<tr class="{" ".join(classes)}"><td class="num">{number}</td><td>{escape(m.notation)}</td>'
                        f'<td class="num">{_signed(m.equity)}</td><td class="num">{_signed(m.equity - p.best.equity)}'
                        "</td></tr>")
        table = ("<table><tr><th>Rank</th><th>Move</th><th>Equity</th><th>Difference</th></tr>" + "".join(rows)
                 + "</table>")
        return (f'<div class="decision" id="{_anchor(p, self.section)}"><h3>Game {p.game}, move {p.move}: {name} '
                f'{p.dice_text}, <span class="mark">{escape(p.mark)}</span> (loss {_unsigned(p.loss)}, '
                f"luck {_signed(p.luck)})</h3><p>Position <code>{p.position.id}</code>; played move ranked {p.rank} "
                f'of {p.legal_moves}.</p><div class="boards">{figures}</div>{table}</div>')


def _totals_html(players: Sequence[PlayerSummary], heads: Sequence[str]) -> str:
    head = "<tr><th></th>" + "".join(f"<th>{escape(h)}</th>" for h in heads) + "</tr>"
    body = "".join(f"<tr><th>{escape(label.capitalize())}</th>"
                   + "".join(f'<td class="num">{escape(c)}</td>' for c in cells) + "</tr>"
                   for label, cells in _totals_rows(players))
    return f'<table class="summary">{head}{body}</table>'

