"""Ratings charts as SVG, plain text with no plotting library: a tournament's entrants (one row each, best first, its
openskill mu as a dot and the 95% interval mu -+ 1.96 sigma as a bar, on one shared axis), and a player's rating
history on a ladder (its mu after each rated match as a line, the 95% interval as a band around it)."""
from html import escape

from domain.standings import Z95

ROW, LEFT, WIDTH, TOP = 28, 180, 440, 40
HISTORY_HEIGHT = 200


def ratings_svg(title: str, rows: list[dict]) -> str:
    """`rows`: standings rows (service/tournaments/documents.py with_ratings), each with name and rating {mu, low, high}."""
    low = min((r["rating"]["low"] for r in rows), default=0.0)
    high = max((r["rating"]["high"] for r in rows), default=1.0)
    x = _scale(low, high, LEFT, LEFT + WIDTH)
    height = TOP + ROW * len(rows) + 30
    parts = _open(title, height)
    for i, row in enumerate(rows):
        rating, y = row["rating"], TOP + ROW * i + ROW / 2
        parts += [f'<text x="10" y="{y + 4}">{escape(row["name"])}</text>',
                  f'<line x1="{x(rating["low"])}" y1="{y}" x2="{x(rating["high"])}" y2="{y}" stroke="#4a78b5" '
                  f'stroke-width="4"><title>95% interval {rating["low"]:.1f} to {rating["high"]:.1f}</title></line>',
                  f'<circle cx="{x(rating["mu"])}" cy="{y}" r="5" fill="#1d3f6e"><title>mu {rating["mu"]:.2f}, '
                  f'sigma {rating["sigma"]:.2f}, ordinal {rating["ordinal"]:.2f}</title></circle>']
    axis = TOP + ROW * len(rows) + 10
    parts += [f'<line x1="{LEFT}" y1="{axis}" x2="{LEFT + WIDTH}" y2="{axis}" stroke="#888"/>',
              f'<text x="{LEFT}" y="{axis + 15}" fill="#555">{low:.1f}</text>',
              f'<text x="{LEFT + WIDTH}" y="{axis + 15}" fill="#555" text-anchor="end">{high:.1f}</text>',
              f'<text x="{LEFT + WIDTH / 2}" y="{axis + 15}" fill="#555" text-anchor="middle">openskill mu, '
              f'95% interval</text>', "</svg>"]
    return "\n".join(parts)


def history_svg(title: str, points: list[dict]) -> str:
    """`points`: the player's rating after each rated match, oldest first, each {match, mu, sigma}."""
    lows = [p["mu"] - Z95 * p["sigma"] for p in points]
    highs = [p["mu"] + Z95 * p["sigma"] for p in points]
    bottom = TOP + HISTORY_HEIGHT
    y = _scale(min(lows, default=0.0), max(highs, default=1.0), bottom, TOP)
    x = _scale(0, max(len(points) - 1, 1), LEFT, LEFT + WIDTH)
    parts = _open(title, bottom + 30)
    band = [f"{x(i)},{y(v)}" for i, v in enumerate(highs)] + [f"{x(i)},{y(v)}" for i, v in reversed(list(enumerate(lows)))]
    line = [f"{x(i)},{y(point['mu'])}" for i, point in enumerate(points)]
    parts += [f'<polygon points="{" ".join(band)}" fill="#c9d8ec"><title>95% interval</title></polygon>',
              f'<polyline points="{" ".join(line)}" fill="none" stroke="#1d3f6e" stroke-width="2"/>']
    parts += [f'<circle cx="{x(i)}" cy="{y(point["mu"])}" r="3" fill="#1d3f6e" data-match="{escape(point["match"])}">'
              f'<title>after match {i + 1}: mu {point["mu"]:.2f}, sigma {point["sigma"]:.2f}</title></circle>'
              for i, point in enumerate(points)]
    parts += [f'<line x1="{LEFT}" y1="{bottom + 10}" x2="{LEFT + WIDTH}" y2="{bottom + 10}" stroke="#888"/>',
              f'<text x="10" y="{TOP + 4}" fill="#555">{max(highs, default=1.0):.1f}</text>',
              f'<text x="10" y="{bottom + 4}" fill="#555">{min(lows, default=0.0):.1f}</text>',
              f'<text x="{LEFT + WIDTH / 2}" y="{bottom + 25}" fill="#555" text-anchor="middle">openskill mu after '
              f'each of {len(points)} rated matches, 95% interval</text>', "</svg>"]
    return "\n".join(parts)


def _open(title: str, height: float) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 40}" height="{height}" '
            f'font-family="sans-serif" font-size="12">',
            f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>']


def _scale(low: float, high: float, start: float, end: float):
    """The function placing a value of [low, high] on [start, end] (a flat range on its start)."""
    span = (high - low) or 1.0
    return lambda value: round(start + (value - low) / span * (end - start), 1)
