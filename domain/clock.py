"""Turn clocks: how long a seat may take over a decision, and when it has run out (docs/clocks.md).

Pure: the time of each step is the time of the event that made it (milliseconds since the epoch, read from
the stored event's `time`), so replaying the log gives the same clocks.

A spec (`POST /v1/matches {"clock": {...}}`, every part optional):
    move_ms        a decision a seat owes alone may take at most this long (0: no per-move limit)
    bank_ms        each seat's time bank: its turns are charged to it (0: no bank)
    increment_ms   added to a seat's bank after each of its own moves
    first_move_ms  the limit of each seat's first decision (not charged to its bank); missing it aborts
    reaction_ms    the limit of a decision several seats owe at once (9STAX's answers to an effect)
    on_timeout     "substitute": the greedy bot decides for the seat; "forfeit": the seat is out
    zombie_after   after this many timeouts a seat is played by the greedy bot to the end (0: never)

The state, one entry per seat in each list (JSON keys would turn seats into strings):
    {"spec", "bank": [ms], "since": [ms | None], "kind": [FIRST | TURN | REACTION | None],
     "moved": [bool], "timeouts": [int]}
`since` is when the seat's pending decision began (None: it owes none, or the server plays it).
"""
from datetime import datetime

from domain.errors import InvalidSetup
from domain.protocol import Option, fill_options

FIRST, TURN, REACTION = "first", "turn", "reaction"
SUBSTITUTE, FORFEIT = "substitute", "forfeit"
DAY_MS = 86_400_000
SPEC = (
    Option("move_ms", "integer", 60_000, "the longest a decision a seat owes alone may take (0: no limit)",
           bounds=(0, DAY_MS)),
    Option("bank_ms", "integer", 0, "each seat's time bank, charged with its turns (0: no bank)", bounds=(0, DAY_MS)),
    Option("increment_ms", "integer", 0, "added to a seat's bank after each of its moves", bounds=(0, DAY_MS)),
    Option("first_move_ms", "integer", 60_000, "the limit of each seat's first decision; missing it aborts "
                                               "the match", bounds=(100, DAY_MS)),
    Option("reaction_ms", "integer", 30_000, "the limit of a decision several seats owe at once",
           bounds=(100, DAY_MS)),
    Option("on_timeout", "string", SUBSTITUTE, "what a timeout does: the greedy bot moves for the seat, or the "
                                               "seat is out", choices=(SUBSTITUTE, FORFEIT)),
    Option("zombie_after", "integer", 3, "timeouts after which the greedy bot plays the seat to the end "
                                         "(0: never)", bounds=(0, 1000)),
)


def spec(raw: dict) -> dict:
    """The clock spec with defaults filled in; refuses unknown or out-of-range parts (422 invalid_clock)."""
    try:
        checked = fill_options("the clock", SPEC, raw)
    except InvalidSetup as refused:
        raise InvalidSetup("invalid_clock", refused.message) from None
    if checked["move_ms"] == 0 and checked["bank_ms"] == 0:
        raise InvalidSetup("invalid_clock", "a clock needs a per-move limit (move_ms) or a bank (bank_ms)")
    return checked


def start(clock_spec: dict, seats: int) -> dict:
    return {"spec": clock_spec, "bank": [clock_spec["bank_ms"]] * seats, "since": [None] * seats,
            "kind": [None] * seats, "moved": [False] * seats, "timeouts": [0] * seats}


def millis(time: str) -> int:
    """An event's time (ISO 8601 UTC, as the store writes it) in milliseconds since the epoch."""
    return round(datetime.fromisoformat(time.replace("Z", "+00:00")).timestamp() * 1000)


# --- evolving ---------------------------------------------------------------------------------------
def moved(clock: dict, seat: int, now: int) -> dict:
    """The seat decided: a turn is charged to its bank, which then gets the increment."""
    bank = list(clock["bank"])
    if clock["kind"][seat] == TURN and clock["spec"]["bank_ms"]:
        bank[seat] = max(0, bank[seat] - (now - clock["since"][seat])) + clock["spec"]["increment_ms"]
    return _with(clock, seat, bank=bank[seat], since=None, kind=None, moved=True)


def timed_out(clock: dict, seat: int) -> dict:
    """The seat ran out: a turn empties its bank; the decision is made for it (or it is out)."""
    bank = 0 if clock["kind"][seat] == TURN and clock["spec"]["bank_ms"] else clock["bank"][seat]
    return _with(clock, seat, bank=bank, since=None, kind=None, timeouts=clock["timeouts"][seat] + 1)


def awaiting(clock: dict, owed: list[int], together: bool, now: int) -> dict:
    """Start the clock of each seat that begins to owe a decision at `now`; stop the others' (a window that
    closed without their answer costs them nothing). `owed`: the seats to act that the server does not play;
    `together`: whether several seats (played by the server or not) owe a decision at once."""
    clock = {**clock, "since": list(clock["since"]), "kind": list(clock["kind"])}
    for seat in range(len(clock["since"])):
        if seat not in owed:
            clock["since"][seat] = clock["kind"][seat] = None
        elif clock["since"][seat] is None:
            clock["since"][seat] = now
            clock["kind"][seat] = REACTION if together else TURN if clock["moved"][seat] else FIRST
    return clock


def is_zombie(clock: dict, seat: int) -> bool:
    after = clock["spec"]["zombie_after"]
    return bool(after) and clock["timeouts"][seat] >= after


def _with(clock: dict, seat: int, **values) -> dict:
    changed = dict(clock)
    for name, value in values.items():
        changed[name] = [*clock[name][:seat], value, *clock[name][seat + 1:]]
    return changed


# --- reading ----------------------------------------------------------------------------------------
def deadline(clock: dict, seat: int) -> int | None:
    """When the seat's pending decision times out (ms since the epoch), None if it owes none on the clock."""
    since, kind, limits = clock["since"][seat], clock["kind"][seat], clock["spec"]
    if since is None:
        return None
    if kind == FIRST:
        return since + limits["first_move_ms"]
    if kind == REACTION:
        return since + limits["reaction_ms"]
    allowed = [limit for limit, on in ((limits["move_ms"], limits["move_ms"]),
                                       (clock["bank"][seat], limits["bank_ms"])) if on]
    return since + min(allowed)


def due(clock: dict, now: int) -> list[int]:
    """The seats whose decision has timed out at `now`, the earliest deadline first."""
    late = [(d, seat) for seat in range(len(clock["since"])) if (d := deadline(clock, seat)) is not None and d <= now]
    return [seat for _, seat in sorted(late)]


def aborts(clock: dict, seat: int) -> bool:
    """A missed first turn (a decision the seat owes alone before it ever moved) aborts the match (no result
    counts), as a chess server aborts a game whose first move never comes."""
    return clock["kind"][seat] == FIRST
