"""What a client is shown of a tournament: the document (GET /v1/tournaments/<id>), the standings with their
ratings, and the summaries of the listing."""
from domain import standings as standings_math, tournament
from eventstore.clock import utc_at
from service.ratings import ratings


def document(tournament_id: str, state: dict, meta: dict) -> dict:
    done, total = tournament.progress(state)
    elapsed = float(meta.get("updated_at", meta["started"])) - float(meta["started"])
    running = state["status"] == tournament.RUNNING
    eta = elapsed / done * (total - done) if running and done else None
    return {"id": tournament_id, "name": state["name"], "game": state["game"], "options": state["options"],
            "format": state["format"], "status": state["status"], "version": state["version"],
            "canceled": state.get("canceled"), "invited_until": _utc(state.get("invited_until")),
            "entrants": state["entrants"], "table_size": state["table_size"], "rounds": state["rounds_planned"],
            "deals": state["deals"], "max_parallel": state["max_parallel"], "clock": state.get("clock"),
            "created_at": meta["created_at"], "progress": {"done": done, "total": total},
            "eta_seconds": eta, "commitment": state["commitment"], "deal_commitments": state["deal_commitments"],
            "seed": state["seed"], "salt": state["salt"],
            "pairings": [{"round": n, "byes": r["byes"], "tables": [
                {"table": i, "entrants": t["entrants"], "deal": t.get("deal"), "match": t["match"],
                 "result": t["result"]} for i, t in enumerate(r["tables"])]}
                for n, r in enumerate(state["rounds"], 1)]}


def _utc(millis: int | None) -> str | None:
    return None if millis is None else utc_at(millis / 1000)


def with_ratings(state: dict) -> dict:
    table = standings_math.standings(state)
    rated = ratings(state)
    for row in table["entrants"]:
        row["rating"] = rated[row["entrant"]]
    return table


def summary(tournament_id: str, meta: dict) -> dict:
    return {"id": tournament_id, "name": meta["name"], "game": meta["game"], "format": meta["format"],
            "status": meta["status"], "created_at": meta["created_at"],
            "progress": {"done": int(meta["done"]), "total": int(meta["total"])}}
