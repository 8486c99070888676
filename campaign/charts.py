"""Small server-rendered SVG line charts for the roster (no JavaScript)."""

from __future__ import annotations

from django.utils.html import escape

WIDTH, HEIGHT, PAD = 560, 220, 40
COLOURS = ["#4b5320", "#9a3412"]


def line_chart(title: str, series: dict[str, list[tuple[str, int | None]]]) -> str:
    """One polyline per series over the same x labels; missing values are skipped."""
    labels = next(iter(series.values()), [])
    values = [v for pts in series.values() for _, v in pts if v is not None]
    top = max(values + [1])
    n = max(len(labels) - 1, 1)

    def x(i: int) -> float:
        return PAD + i * (WIDTH - 2 * PAD) / n

    def y(v: int) -> float:
        return HEIGHT - PAD - v * (HEIGHT - 2 * PAD) / top

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{PAD}" y="18" class="chart-title">{escape(title)}</text>',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        'stroke="#999"/>',
        f'<text x="4" y="{y(top) + 4:.0f}" font-size="13">{top}</text>',
    ]
    every = max(1, -(-len(labels) // 6))  # at most six date labels, so they stay legible
    for i, (label, _) in enumerate(labels):
        if i % every and i != len(labels) - 1:
            continue
        parts.append(
            f'<text x="{x(i):.0f}" y="{HEIGHT - 12}" font-size="12" text-anchor="middle">'
            f"{escape(label)}</text>"
        )
    for k, (name, pts) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        coords = " ".join(f"{x(i):.0f},{y(v):.0f}" for i, (_, v) in enumerate(pts) if v is not None)
        if coords:
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}"/>'
            )
        # A dot at each value: a series of one scenario is a point, not nothing.
        parts += [
            f'<circle cx="{x(i):.0f}" cy="{y(v):.0f}" r="3.5" fill="{colour}"/>'
            for i, (_, v) in enumerate(pts)
            if v is not None
        ]
        parts.append(
            f'<text x="{WIDTH - PAD - 140}" y="{18 + 16 * k}" font-size="13" fill="{colour}">'
            f"{escape(name)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
