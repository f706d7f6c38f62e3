"""The HTML analysis report: one self-contained page (inline CSS and SVG, no scripts), readable offline.

Every flagged decision gets three boards (before the move, after the played move, after
the best move, drawn by `fevga.svg.board`) and its ranked moves with their equities.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from fevga import svg
from fevga.position import COLOR_NAMES

if TYPE_CHECKING:
    from fevga.analyser import Analysis, PlyAnalysis

_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fdfaf3; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8b99a; padding: 0.2em 0.6em; text-align: left; }
th { background: #eadcbf; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.doubtful td { background: #fff4c2; } tr.bad td { background: #ffd9a8; } tr.very-bad td { background: #ffb3a8; }
tr.played td { font-weight: bold; } tr.best td { color: #145214; }
.boards { display: flex; flex-wrap: wrap; gap: 1em; }
.boards figure { margin: 0; } figcaption { font-size: 0.9em; text-align: center; }
.decision { border-top: 2px solid #c8b99a; margin-top: 1.5em; padding-top: 0.5em; }
.mark { font-weight: bold; }
"""


def _fmt(value: float) -> str:
    return f"{value:+.3f}"


def _summary_table(analysis: Analysis) -> str:
    players = analysis.players
    rows = [
        ("Unforced decisions", [str(p.decisions) for p in players]),
        ("Forced plies", [str(p.forced) for p in players]),
        ("Doubtful", [str(p.marks["doubtful"]) for p in players]),
        ("Bad", [str(p.marks["bad"]) for p in players]),
        ("Very bad", [str(p.marks["very bad"]) for p in players]),
        ("Total equity loss", [f"{p.total_loss:.3f}" for p in players]),
        ("Loss per decision", [f"{p.mean_loss:.4f}" for p in players]),
        ("Performance rating", [f"{p.rating:.1f}" for p in players]),
        ("Rating band", [p.band or "-" for p in players]),
        ("Luck total", [_fmt(p.luck) for p in players]),
        ("Very lucky / lucky rolls", [f"{p.luck_marks['very lucky']} / {p.luck_marks['lucky']}" for p in players]),
        ("Unlucky / very unlucky rolls",
         [f"{p.luck_marks['unlucky']} / {p.luck_marks['very unlucky']}" for p in players]),
    ]
    head = "<tr><th></th>" + "".join(f"<th>{escape(p.name)} ({COLOR_NAMES[p.color]})</th>" for p in players) + "</tr>"
    body = "".join(f"<tr><th>{escape(label)}</th>" + "".join(f'<td class="num">{escape(c)}</td>' for c in cells)
                   + "</tr>" for label, cells in rows)
    return f'<table class="summary">{head}{body}</table>'


def _anchor(ply: PlyAnalysis) -> str:
    return f"g{ply.game}p{ply.number}"


def _ply_rows(analysis: Analysis, plies: tuple[PlyAnalysis, ...]) -> str:
    out = ["<table><tr><th>#</th><th>Player</th><th>Dice</th><th>Played</th><th>Best</th><th>Loss</th>"
           "<th>Mark</th><th>Luck</th></tr>"]
    for p in plies:
        css = p.mark.replace(" ", "-")
        played = escape(p.played.notation)
        if p.mark:
            played = f'<a href="#{_anchor(p)}">{played}</a>'
        best = "" if p.forced or p.loss == 0 else escape(p.best.notation)
        loss = "forced" if p.forced else f"{p.loss:.3f}"
        luck = _fmt(p.luck) + (f" ({escape(p.luck_mark)})" if p.luck_mark else "")
        out.append(f'<tr class="{css}"><td class="num">{p.number}</td><td>{escape(analysis.player_names[p.turn])}'
                   f'</td><td>{p.dice[0]}-{p.dice[1]}</td><td>{played}</td><td>{best}</td>'
                   f'<td class="num">{loss}</td><td class="mark">{escape(p.mark)}</td><td class="num">{luck}</td></tr>')
    out.append("</table>")
    return "".join(out)


def _decision(analysis: Analysis, p: PlyAnalysis) -> str:
    name = escape(analysis.player_names[p.turn])
    boards = [
        (p.position, f"Before: {name} to play {p.dice[0]}-{p.dice[1]}"),
        (p.played.position, f"Played {escape(p.played.notation)}: {_fmt(p.played.equity)}"),
        (p.best.position, f"Best {escape(p.best.notation)}: {_fmt(p.best.equity)}"),
    ]
    figures = "".join(f"<figure>{svg.board(pos, size=360)}<figcaption>{caption}</figcaption></figure>"
                      for pos, caption in boards)
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
                    f'<td class="num">{_fmt(m.equity)}</td><td class="num">{m.equity - p.best.equity:+.3f}</td></tr>')
    table = ("<table><tr><th>Rank</th><th>Move</th><th>Equity</th><th>Difference</th></tr>" + "".join(rows)
             + "</table>")
    return (f'<div class="decision" id="{_anchor(p)}"><h3>Game {p.game}, ply {p.number}: {name} '
            f'{p.dice[0]}-{p.dice[1]}, <span class="mark">{escape(p.mark)}</span> (loss {p.loss:.3f}, '
            f'luck {_fmt(p.luck)})</h3><p>Position <code>{p.position.id}</code>; played move ranked {p.rank} '
            f'of {p.legal_moves}.</p><div class="boards">{figures}</div>{table}</div>')


def analysis_html(analysis: Analysis) -> str:
    """The full report as one HTML document."""
    from fevga.analyser import band_legend

    t = analysis.thresholds
    kind = f"{analysis.length} point match" if analysis.length else "session"
    title = f"fevga analysis: {analysis.player_names[0]} - {analysis.player_names[1]}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(kind)}, {len(analysis.games)} game(s), final score {analysis.score[0]}-{analysis.score[1]}. "
        f"Decisions by {escape(analysis.evaluator)}; luck by {escape(analysis.luck_evaluator)}. "
        f"Marks: doubtful &ge; {t.doubtful}, bad &ge; {t.bad}, very bad &ge; {t.very_bad}; "
        f"luck marks at &plusmn;{t.lucky} and &plusmn;{t.very_lucky}. "
        + ("Equities are normalised match equity (EMG: a single game won +1, lost -1 at the score) for the "
           "player to move.</p>" if analysis.match_aware else
           "Equities in points for the player to move (a mars counts 2).</p>"),
        "<h2>Players</h2>", _summary_table(analysis),
        "<p>Performance rating = 500 &times; mean equity loss per unforced decision (0 = perfect play); bands: "
        + escape(band_legend()) + " (docs/analysis.md).</p>",
    ]
    for game in analysis.games:
        parts.append(f'<h2 id="game{game.number}">Game {game.number}: score {analysis.player_names[0]} '
                     f'{game.score[0]}, {analysis.player_names[1]} {game.score[1]}; result {escape(game.result)}'
                     + (f", {game.points} point(s)" if game.points else "") + "</h2>")
        parts.append(_ply_rows(analysis, game.plies))
    flagged = analysis.flagged()
    parts.append(f"<h2>Flagged decisions ({len(flagged)})</h2>")
    parts.extend(_decision(analysis, p) for p in flagged)
    parts.append("</body></html>")
    return "\n".join(parts)
