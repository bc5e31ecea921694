"""Charts drawn on the server as SVG (the pages need no script): lines of
cumulative winnings, a rating with its interval, and leaderboard sparklines."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

#: a palette that stays apart for the colour-blind (Okabe-Ito), one per seat: the stylesheet's
#: classes ``s0``.. ``s9`` (templates/style.css; the pages' Content-Security-Policy allows no
#: inline style, so a colour is a class, never a ``style`` attribute)
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
           "#999999", "#882255")


def colour_class(i: int) -> str:
    """The stylesheet's class of the ``i``-th line's colour (the same in the chart and its legend)."""
    return f"s{i % len(COLOURS)}"


def lines_chart(series: Sequence[tuple[str, Sequence[float]]], *, title: str, x_label: str,
                width: int = 480, height: int = 220, band: Sequence[tuple[float, float]] | None = None,
                xs: Sequence[float] | None = None) -> Markup:
    """One line per ``(label, values)`` over the points 1..n (or ``xs``);
    ``band``: a (low, high) per point, drawn as a shaded interval behind the
    first line. Scales to its container (viewBox); the legend is below."""
    n = max((len(v) for _, v in series), default=0)
    if n == 0:
        return Markup("")
    xs = list(xs) if xs is not None else list(range(1, n + 1))
    values = [x for _, v in series for x in v] + [0.0] + [b for pair in band or () for b in pair]
    left, right, top, bottom = 52, 12, 12, 30
    ylo, yhi = min(values), max(values)
    ky = (height - top - bottom) / ((yhi - ylo) or 1)
    x0, x1 = min(xs), max(xs)
    kx = (width - left - right) / ((x1 - x0) or 1)

    def px(x: float) -> float:
        return left + (x - x0) * kx

    def py(y: float) -> float:
        return height - bottom - (y - ylo) * ky

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>']
    if band:
        parts.append(_band(xs, band, px, py))
    for y in sorted({yhi, ylo, 0.0}):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
                     f'stroke="#bbb" stroke-width="{1 if y == 0 else 0.5}"/>'
                     f'<text x="{left - 4}" y="{py(y) + 4:.1f}" text-anchor="end" font-size="13">{y:.4g}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}" font-size="13">{x0:g}</text>'
                 f'<text x="{width - right}" y="{height - 8}" font-size="13" text-anchor="end">{x1:g}</text>'
                 f'<text x="{(left + width - right) / 2:.0f}" y="{height - 8}" font-size="13" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    for i, (label, v) in enumerate(series):
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, v))
        # (stroke: the stylesheet's colour; currentColor only where no stylesheet applies)
        parts.append(f'<polyline class="line {colour_class(i)}" fill="none" stroke="currentColor" stroke-width="2" '
                     f'points="{points}">'
                     f'<title>{escape(label)}: {v[-1]:g}</title></polyline>')
    parts.append("</svg>")
    return Markup("".join(parts) + _legend(series))


def _legend(series: Sequence[tuple[str, Sequence[float]]]) -> str:
    """Each line's colour (the stylesheet's class), label and last value, below the chart (none for
    a single line). The key is drawn by the stylesheet too: a page without it still names every line."""
    if len(series) <= 1:
        return ""
    items = "".join(f'<li><span class="key {colour_class(i)}" aria-hidden="true">'
                    f'</span>{escape(label)} <b>{v[-1]:+g}</b></li>' for i, (label, v) in enumerate(series) if v)
    return f'<ul class="legend" aria-label="lines of the chart">{items}</ul>'


def _band(xs: Sequence[float], band: Sequence[tuple[float, float]], px: Callable[[float], float],
          py: Callable[[float], float]) -> str:
    """The shaded interval behind the first line."""
    upper = " ".join(f"{px(x):.1f},{py(hi):.1f}" for x, (_, hi) in zip(xs, band))
    lower = " ".join(f"{px(x):.1f},{py(lo):.1f}" for x, (lo, _) in reversed(list(zip(xs, band))))
    return f'<polygon class="band" points="{upper} {lower}"/>'


def sparkline(values: Sequence[float], *, width: int = 80, height: int = 18) -> Markup:
    """A small line of ``values`` (a rating over time) for a table cell."""
    if len(values) < 2:
        return Markup("")
    lo, hi = min(values), max(values)
    k = (height - 2) / ((hi - lo) or 1)
    step = width / (len(values) - 1)
    points = " ".join(f"{i * step:.1f},{height - 1 - (v - lo) * k:.1f}" for i, v in enumerate(values))
    return Markup(f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
                  f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="rating from {values[0]:.1f} '
                  f'to {values[-1]:.1f}"><polyline fill="none" stroke="#1f5fbf" stroke-width="1.5" '
                  f'points="{points}"/></svg>')


def cumulative(hands: Sequence[dict], seats: int) -> list[list[float]]:
    """Each seat's running total over ``hands`` (``GamePlugin.hands_of``)."""
    totals = [0.0] * seats
    out: list[list[float]] = [[0.0] for _ in range(seats)]  # from 0, before the first hand
    for h in hands:
        for s in h["seats"]:
            if s["seat"] < seats:
                totals[s["seat"]] += s["profit"]
        for i in range(seats):
            out[i].append(totals[i])
    return out
