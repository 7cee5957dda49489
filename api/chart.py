"""The ratings chart of a tournament as SVG: one row per entrant, best first, its openskill mu as a dot and the
95% interval (mu -+ 1.96 sigma) as a bar, on one shared axis. Plain SVG text: no plotting library."""
from html import escape

ROW, LEFT, WIDTH, TOP = 28, 180, 440, 40


def ratings_svg(title: str, rows: list[dict]) -> str:
    """`rows`: standings rows (service/tournaments.py with_ratings), each with name and rating {mu, low, high}."""
    low = min((r["rating"]["low"] for r in rows), default=0.0)
    high = max((r["rating"]["high"] for r in rows), default=1.0)
    span = (high - low) or 1.0

    def x(value: float) -> float:
        return round(LEFT + (value - low) / span * WIDTH, 1)

    height = TOP + ROW * len(rows) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 40}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>']
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
