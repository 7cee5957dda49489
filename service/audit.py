"""Verifying a match from its log alone. `cardroom verify FILE` runs this offline; GET .../audit runs it
on the stored log. It needs nothing but the domain and the hash chain (no Redis, no server).

A complete log is checked in this order; the first fault is the verdict, naming its event:
  1. the hash chain: versions 1, 2, 3, ...; each prev is the hash before it; each hash matches its content;
  2. the seed: SHA-256("<salt>:<seed>") equals the commitment published in match_created;
  3. every command again, by the rules the match was made with (the game's rules version and the engine version
     logged in match_created; a log that names none is version 1 of both, docs/fairness.md "Rules versions"):
     match_created is re-created from its own content, each join, move, resignation
     and timeout is re-decided (the deal, every shuffle and every substitute move are re-derived from the
     seed; a timeout must come at or after its deadline, by the clock folded from the events' times) and
     must give exactly the logged events; a command the rules refuse is a fault;
  4. the end: the log ends with match_finished, whose result is the one the rules give.
"""
from dataclasses import asdict, dataclass, field

from domain import clock, match
from domain.errors import RuleViolation
from domain.games import FIRST_RULES
from domain.lifecycle import Invitation, SeatSpec
from eventstore.chain import GENESIS, first_break

EXPORT_FORMAT = "cardroom-export/1"


@dataclass
class Verdict:
    ok: bool
    complete: bool
    events: int
    first_bad_event: int | None = None
    problem: str | None = None
    checked: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        scope = "complete" if self.complete else "partial (the match was not finished when exported)"
        if self.ok:
            return f"OK: {self.events} events, {scope}; checked: {', '.join(self.checked)}"
        return f"FAULT at event {self.first_bad_event}: {self.problem}"


class Fault(Exception):
    def __init__(self, version: int | None, problem: str):
        super().__init__(problem)
        self.version = version
        self.problem = problem


def verify_export(document: dict) -> Verdict:
    """An export (GET .../export): complete once the match is finished, redacted before."""
    if document.get("format") != EXPORT_FORMAT:
        return Verdict(False, False, 0, None, f"not a {EXPORT_FORMAT} document")
    events = document.get("events")
    if not isinstance(events, list) or not events or not all(isinstance(e, dict) for e in events):
        return Verdict(False, False, 0, None, "the document has no events")
    if not document.get("complete"):
        return _verify_links(events)
    return verify_log(events)


def check_chain(events: list[dict], checked: list[str]) -> None:
    """Raises the Fault at the first event whose hash or link to the one before is wrong; else notes it checked."""
    broken = first_break(events)
    if broken:
        raise Fault(*broken)
    checked.append("hash chain")


def verify_log(events: list[dict], seed: str | None = None, salt: str | None = None) -> Verdict:
    """A whole, unredacted log. The seed and salt come from match_finished, or are given (the server's
    own audit of a match still going on)."""
    checked: list[str] = []
    try:
        check_chain(events, checked)
        finished = events[-1]["type"] == "match_finished"
        if finished:
            seed, salt = events[-1]["data"].get("seed"), events[-1]["data"].get("salt")
        if seed is None or salt is None:
            raise Fault(None, "the seed is not revealed: the match is not finished")
        _check_commitment(events[0], seed, salt)
        checked.append("seed commitment")
        checked.append(_rules(events[0]["data"]))
        _replay(events, seed, salt, finished)
        checked += ["deal and shuffles", "every move", "result" if finished else "no result yet"]
    except Fault as fault:
        return Verdict(False, True, len(events), fault.version, fault.problem, checked)
    return Verdict(True, True, len(events), checked=checked)


def _verify_links(events: list[dict]) -> Verdict:
    """A redacted export: its data cannot be hashed, but its numbering and links must hold."""
    prev: str | None = GENESIS
    for position, event in enumerate(events, start=1):
        if event.get("version") != position:
            return Verdict(False, False, len(events), position, f"expected version {position}")
        if event.get("prev") != prev:
            return Verdict(False, False, len(events), position, "its prev does not match the hash before it")
        prev = event.get("hash")
    return Verdict(True, False, len(events), checked=["versions and links (the data is redacted until the end)"])


def _check_commitment(created: dict, seed: str, salt: str) -> None:
    if created.get("type") != "match_created":
        raise Fault(1, "the log does not start with match_created")
    if match.commitment(seed, salt) != created["data"].get("commitment"):
        raise Fault(1, "the revealed seed and salt do not match the commitment")


def _rules(created: dict) -> str:
    """Which rules the log is checked by; a log made by an engine this verifier does not know is a fault."""
    engine = created.get("engine_version", FIRST_RULES)
    if engine != match.ENGINE_VERSION:
        raise Fault(1, f"made by engine version {engine!r}; this verifier knows version {match.ENGINE_VERSION}")
    return f"by {created.get('game')} rules version {match.rules_version(created)}, engine version {engine}"


def _replay(events: list[dict], seed: str, salt: str, finished: bool) -> None:
    created = events[0]["data"]
    _expect(events, 0, _decided(1, lambda: _created_again(created)))
    state = match.evolve(None, events[0])
    position = 1 + _expect(events, 1, match.open_events(state, seed))
    state = match.evolve_all(state, events[1:position])
    while position < len(events):
        event = events[position]
        version = event["version"]
        if event["type"] == "seat_joined":
            decided = _decided(version, lambda: match.join(state, event["data"]["name"], seed,
                                                               event["data"].get("account"))[1])
        elif event["type"] == "seat_left":
            decided = _decided(version, lambda: match.leave(state, event["data"]["seat"]))
        elif event["type"] == "seat_accepted":
            decided = _decided(version, lambda: match.accept(state, event["data"]["seat"], seed))
        elif event["type"] == "seat_declined":
            decided = _decided(version, lambda: match.decline(state, event["data"]["seat"], seed, salt))
        elif event["type"] == "match_aborted":  # by the operator (a timeout's comes with turn_timed_out)
            decided = _decided(version, lambda: match.abort(state, event["data"]["reason"], seed, salt))
        elif event["type"] == "match_canceled":
            decided = _decided(version, lambda: match.expire_invitations(state, clock.millis(event["time"]),
                                                                         seed, salt))
        elif event["type"] == "moved":
            data = event["data"]
            decided = _decided(version, lambda: match.decide(state, data["seat"], data["move"], seed, salt))
        elif event["type"] == "seat_resigned":
            decided = _decided(version, lambda: match.resign(state, event["data"]["seat"], seed, salt))
        elif event["type"] == "turn_timed_out":
            decided = _decided(version, lambda: match.time_out(state, event["data"]["seat"],
                                                                   clock.millis(event["time"]), seed, salt))
        else:
            raise Fault(version, f"no command produces a {event['type']!r} event here")
        count = _expect(events, position, decided)
        state = match.evolve_all(state, events[position:position + count])
        position += count
    if finished != (state["status"] == match.FINISHED):
        raise Fault(len(events), "the log ends before the rules end the match")


def _created_again(created: dict) -> list[dict]:
    """match_created as the match's own rules version makes it from the logged request; a log made before versions
    were logged names none, and is version 1 by definition."""
    specs = [_seat_spec(seat) for seat in created["seats"]]
    again = match.create(created["game"], created["options"], specs, created["commitment"], created["seed_source"],
                         created.get("owner"), created.get("clock"), _invitation(created),
                         rated=bool(created.get("rated")), rematch_of=created.get("rematch_of"),
                         rules_version=match.rules_version(created))
    if "rules_version" not in created and "engine_version" not in created:
        return [{**event, "data": {key: value for key, value in event["data"].items()
                                   if key not in ("rules_version", "engine_version")}} for event in again]
    return again


def _decided(version: int, command) -> list[dict]:
    try:
        return command()
    except RuleViolation as refusal:
        raise Fault(version, f"the rules refuse this command: {refusal.reason} ({refusal.message})") from None


def _expect(events: list[dict], start: int, decided: list[dict]) -> int:
    """The logged events from `start` must be exactly the decided ones; returns how many they are."""
    for offset, expected in enumerate(decided):
        if start + offset >= len(events):
            raise Fault(len(events), f"the log ends where the rules add a {expected['type']!r} event")
        logged = events[start + offset]
        if (logged.get("type"), logged.get("data")) != (expected["type"], expected["data"]):
            raise Fault(logged.get("version"), f"the rules give a different event here: expected a "
                                               f"{expected['type']!r} event with other data than logged")
    return len(decided)


def _seat_spec(seat: dict) -> SeatSpec:
    """The creation request that gives this logged seat."""
    if seat.get("open"):
        return {"open": True}
    if seat.get("bot"):
        return {"bot": seat["bot"], "name": seat["name"], "bot_options": seat.get("bot_options", {})}
    if seat.get("account"):
        return {"name": seat["name"], "account": seat["account"], "invited": seat.get("invited", False)}
    return {"name": seat["name"]}


def _invitation(created: dict) -> Invitation | None:
    return {"by": created["invited_by"], "until": created["invited_until"]} if "invited_by" in created else None
