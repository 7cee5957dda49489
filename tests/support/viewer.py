"""What the viewer must draw: the cards a view shows, named as the page names them (`data-card`), and a
headless Chromium to look with (Debian's /usr/bin/chromium: Playwright's own download does not work here;
`make test` installs the package)."""
import contextlib
from collections import Counter
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")


def _nine(card):
    return f"{card['colour'] or 'wild'}-{card['face']}"


def _victory(card):
    return f"{card['colour']}-{card['shape']}"


def shown_cards(game: str, view: dict) -> Counter:
    """Every face-up card of a view, as the page's data-card attributes name them."""
    if game == "mantis":
        cards = [card for tank in view["tanks"] for card in tank] + (view["own_score_pile"] or [])
        return Counter(f"{card['front']}:{'+'.join(card['back'])}" for card in cards)
    if game == "9stax":
        cards = [card for row in view["stacks"] for stack in row for card in stack if card]
        cards += [card for card in (view["discard_pile"]["top"], view["lead"]) if card]
        return Counter(map(_nine, cards))
    if game == "blockers":
        cards = [card for card in view["grid"].values() if card] + [c for stack in view["stacks"] for c in stack]
        cards += [kicker for kicker in view["kickers"] if kicker]
        labels = [label for hand in view["hands"] + view["played"] for label in hand if label is not None]
        return Counter(map(_victory, cards)) + Counter(f"hand-{label}" for label in labels)
    if game == "flipout":
        faces = [f"{side}-{card[side]}" for holder in view["holders"] for card in holder
                 for side in ("inner", "outer") if card[side]]
        faces += [f"{card['colour']}/{card['other']}" for pile in view["score_piles"] for card in pile]
        return Counter(faces + ([f"up-{view['deck']['top']}"] if view["deck"]["top"] else []))
    raise ValueError(game)


# The games' card shapes, and how many faces of each say something: a FlipOut card has two colours.
CARD_FACES = (({"colour", "face"}, 1), ({"back", "front"}, 1), ({"colour", "shape"}, 1), ({"inner", "outer"}, 2),
              ({"up", "down"}, 2), ({"colour", "other"}, 2))


# Blockers' hand cards are labels ("A", "3", "spades") in lists under these keys.
LABEL_CARDS = {"hands", "played"}


def count_faces(value, key: str | None = None) -> int:
    """The faces of the cards in a full state: every object shaped like one of the games' cards."""
    if isinstance(value, dict):
        faces = [count for keys, count in CARD_FACES if keys <= value.keys()]
        return faces[0] if faces else sum(count_faces(item, name) for name, item in value.items())
    if isinstance(value, list):
        return sum(count_faces(item, key) for item in value)
    return 1 if key in LABEL_CARDS and isinstance(value, str) else 0


def shown_faces(cards: Counter) -> int:
    """The faces a page's cards show: a FlipOut score card (`colour/other`) shows both of its faces."""
    return sum(count * (2 if "/" in card else 1) for card, count in cards.items())


def page_cards(page) -> Counter:
    return Counter(page.eval_on_selector_all("#table [data-card]", "cards => cards.map(c => c.dataset.card)"))


@contextlib.contextmanager
def chromium():
    assert CHROMIUM.exists(), "no /usr/bin/chromium: run `make chromium` (apt-get install -y chromium) as root"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


class Viewer:
    """A browser page that keeps every console error and uncaught exception it meets."""

    def __init__(self, browser, base: str):
        self.base, self.errors = base, []
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, path: str, version: int | None = None):
        self.page.goto(f"{self.base}{path}")
        self.wait_for_version(version)
        return self.page

    def wait_for_version(self, version: int | None):
        selector = f"#table[data-version='{version}']" if version else "#table[data-version]"
        self.page.wait_for_selector(selector, timeout=10_000)
