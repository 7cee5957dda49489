"""What a client is shown of a match: the document (GET /v1/matches/<id>), its events as the caller may see them,
the summaries of listings, and a pending invitation."""
import json

from domain import match
from eventstore.clock import utc_at
from service.repository import TOURNAMENT

REMATCH = "rematch"  # the meta field of a finished match naming its rematch (service/matches/rematches.py)


def document(match_id: str, state: dict, seat: int | None, rematch: str | None = None) -> dict:
    """The match at `state` as `seat` (None: a spectator) may see it: what GET /v1/matches/<id> answers.
    `rematch`: its rematch's id, which its meta names once one was offered (service/matches/rematches.py)."""
    return {
        "id": match_id, "game": state["game"], "options": state["options"], "status": state["status"],
        "version": state["version"], "rematch_of": state.get("rematch_of"), "rematch": rematch,
        "seats": seats(state["seats"], state), "to_act": match.to_act(state), "result": state["result"],
        "you": seat, "commitment": state["commitment"], "seed_source": state["seed_source"],
        "rated": bool(state.get("rated")), "view": match.view(state, seat), **_clock_document(state),
    }


def owed_moves(state: dict, seat: int | None) -> list[dict]:
    """The moves `seat` may make now: none when it is not to act, or when the server plays it (a zombie seat)."""
    owes = seat is not None and seat in match.to_act(state) and not match.played_by_server(state, seat)
    return match.legal_moves(state, seat) if owes and seat is not None else []


def present(game_ref: dict, finished: bool, stored: dict, seat: int | None) -> dict:
    """A stored event as the caller may see it (`game_ref`: the match's state or meta, naming its game and rules);
    the nonce only once the match is over."""
    shown = match.redact(game_ref, finished, stored, seat)
    presented = {"version": stored["version"], "type": stored["type"], "data": shown["data"],
                 "time": stored["time"], "prev": stored["prev"], "hash": stored["hash"]}
    if finished:
        presented["nonce"] = stored["nonce"]
    return presented


def summary(match_id: str, meta: dict) -> dict:
    return {"id": match_id, "game": meta["game"], "status": meta["status"], "version": int(meta["version"]),
            "seats": seats(json.loads(meta["seats"])),
            "to_act": json.loads(meta["to_act"]), "result": json.loads(meta["result"]),
            "created_at": meta["created_at"], "seed_source": meta.get("seed_source")}


def seats(seated: list[dict], state: dict | None = None) -> list[dict]:
    """The seats as shown; with the match's `state`, also why a seat is out."""
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "open": s["open"], "account": s.get("account"),
             "invited": bool(s.get("invited")), "zombie": bool(s.get("zombie")),
             **({"out": match.seat_out(state, i)} if state else {})}
            for i, s in enumerate(seated)]


def _clock_document(state: dict) -> dict:
    """The turn clock as a client shows it: `deadline`, when the first decision awaited times out (absolute
    UTC, so a countdown does not drift), and per seat its bank as its pending decision began, that
    decision's deadline and its timeouts so far. Nothing for a match without a clock."""
    timer = state.get("clock")
    if timer is None:
        return {}
    deadlines = match.deadlines(state)
    per_seat = [{"bank_ms": timer["bank"][seat] if timer["spec"]["bank_ms"] else None,
              "deadline": utc_at(deadlines[seat] / 1000) if seat in deadlines else None,
              "timeouts": timer["timeouts"][seat]} for seat in range(len(state["seats"]))]
    return {"clock": {**timer["spec"], "seats": per_seat},
            "deadline": utc_at(min(deadlines.values()) / 1000) if deadlines else None}


def invitation_document(ref: str, meta: dict, seat: int | None) -> dict:
    """A pending invitation as the invited account is told of it (GET /v1/accounts/me/challenges, the feed):
    to a match's `seat`, or to a tournament (`ref` "t:<id>", no seat)."""
    invitation = json.loads(meta["invitation"])
    to = {"tournament": ref.removeprefix(TOURNAMENT)} if ref.startswith(TOURNAMENT) else {"match": ref, "seat": seat}
    return {**to, "game": meta["game"], "by": invitation["by"], "expires_at": utc_at(invitation["until"] / 1000),
            "created_at": meta["created_at"]}

