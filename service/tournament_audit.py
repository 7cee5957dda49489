"""Verifying a tournament from its export alone (GET /v1/tournaments/<id>/export; `cardroom verify FILE`).
Like service/audit.py it needs only the domain and the hash chain. Checked in this order, the first fault is
the verdict:
  1. the tournament's hash chain;
  2. complete exports: the revealed seed and salt against the commitment, and each deal's commitment;
  3. every round's pairing again: round_paired must be what domain/tournament.pair_round gives from the
     results recorded before it and the revealed seed (Swiss tie-breaks included);
  4. every match: its export verifies (service/audit.py), it sits the table's entrants in the paired seats,
     its result is the one recorded (each match recorded once), and a duplicate deal's match was played with
     that deal's seed — so every rotation of a deal had the same cards;
  5. the end: tournament_finished comes when the last planned round is fully recorded.
"""
from domain import tournament
from domain.match import commitment
from service.audit import Fault, Verdict, check_chain, verify_export
from service.tournaments import EXPORT_FORMAT


def verify_tournament(document: dict) -> Verdict:
    events = document.get("events")
    if document.get("format") != EXPORT_FORMAT:
        return Verdict(False, False, 0, None, f"not a {EXPORT_FORMAT} document")
    if not isinstance(events, list) or not events or not all(isinstance(e, dict) for e in events):
        return Verdict(False, False, 0, None, "the document has no events")
    matches = {m.get("match_id"): m for m in document.get("matches") or [] if isinstance(m, dict)}
    checked: list[str] = []
    try:
        check_chain(events, checked)
        finished = events[-1]["type"] == "tournament_finished"
        if not finished:
            raise Fault(None, "the tournament is not finished: its seed is not revealed yet")
        seed, salt = events[-1]["data"]["seed"], events[-1]["data"]["salt"]
        _check_commitments(events[0], seed, salt)
        checked.append("seed and deal commitments")
        verified = _replay(events, matches, seed)
        checked += ["every pairing", f"{verified} matches (logs, seats, results, deal seeds)", "the end"]
    except (Fault, KeyError, TypeError, IndexError, ValueError) as fault:
        problem = fault.problem if isinstance(fault, Fault) else f"malformed tournament log ({fault!r})"
        return Verdict(False, True, len(events), getattr(fault, "version", None), problem, checked)
    return Verdict(True, True, len(events), checked=checked)


def _check_commitments(created: dict, seed: str, salt: str) -> None:
    if created.get("type") != "tournament_created":
        raise Fault(1, "the log does not start with tournament_created")
    data = created["data"]
    if commitment(seed, salt) != data["commitment"]:
        raise Fault(1, "the revealed seed and salt do not match the commitment")
    for deal, committed in enumerate(data["deal_commitments"]):
        if commitment(tournament.deal_seed(seed, deal), salt) != committed:
            raise Fault(1, f"deal {deal}'s seed does not match its commitment")


def _replay(events: list[dict], matches: dict, seed: str) -> int:
    state, verified = tournament.evolve(None, events[0]), 0
    if events[1]["type"] != "round_paired":
        raise Fault(2, "the first round is not paired at creation")
    for event in events[1:]:
        version, data = event["version"], event["data"]
        if event["type"] == "round_paired":
            if tournament.pair_round(state, seed)["data"] != data:
                raise Fault(version, f"round {data['round']} is not the pairing the rules give")
        elif event["type"] == "match_recorded":
            table = state["rounds"][data["round"] - 1]["tables"][data["table"]]
            if table["match"] != data["match"] or table["result"] is not None:
                raise Fault(version, "a match recorded that was not started for this table, or twice")
            _check_match(version, state, table, matches.get(data["match"]), data["result"], seed)
            verified += 1
        elif event["type"] == "tournament_finished":
            if state.get("canceled") is None and (any(t["result"] is None for r in state["rounds"] for t in r["tables"])
                                                  or len(state["rounds"]) != state["rounds_planned"]):
                raise Fault(version, "the tournament finished before its last match was recorded")
        elif event["type"] in ("entry_accepted", "entry_declined"):
            if data["entrant"] not in tournament.invited_entrants(state):
                raise Fault(version, f"entrant {data['entrant']} answered no pending invitation")
        elif event["type"] == "tournament_canceled":
            if state["status"] != tournament.WAITING:
                raise Fault(version, "a tournament was canceled after it started")
        elif event["type"] != "match_started":
            raise Fault(version, f"no tournament event is called {event['type']!r}")
        state = tournament.evolve(state, event)
    return verified


def _check_match(version: int, state: dict, table: dict, exported: dict | None, result: dict, seed: str) -> None:
    if exported is None:
        raise Fault(version, f"the export lacks match {table['match']}")
    verdict = verify_export(exported)
    if not (verdict.ok and verdict.complete):
        raise Fault(version, f"match {table['match']}: {verdict.summary()}")
    logged = exported["events"]
    seats = logged[0]["data"]["seats"]
    expected = [state["entrants"][e] for e in table["entrants"]]
    if [(s["name"], s.get("bot"), s.get("account")) for s in seats] != \
            [(e["name"], e.get("bot"), e.get("account")) for e in expected]:
        raise Fault(version, f"match {table['match']} does not seat the paired entrants in their seats")
    if logged[-1]["data"]["result"] != result:
        raise Fault(version, f"match {table['match']}'s result is not the one recorded")
    if "deal" in table and logged[-1]["data"]["seed"] != tournament.deal_seed(seed, table["deal"]):
        raise Fault(version, f"match {table['match']} was not dealt from deal {table['deal']}'s seed")
