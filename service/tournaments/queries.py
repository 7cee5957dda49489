"""The tournament's reads: its document, its standings, the listing, and its export with its matches'."""
from domain import tournament
from eventstore.clock import utc_now
from service.repository import tournament_key
from service.tournaments.base import CATALOG, TournamentBase
from service.tournaments.documents import document, summary, with_ratings

EXPORT_FORMAT = "cardroom-tournament/1"


class TournamentQueries(TournamentBase):
    def get(self, tournament_id: str) -> dict:
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        return document(tournament_id, state, meta)

    def state(self, tournament_id: str) -> tuple[dict, dict]:
        """The folded state and the document, for a stream that follows the log from there."""
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        return state, document(tournament_id, state, meta)

    def standings(self, tournament_id: str) -> dict:
        state = self._load(tournament_id).state
        return with_ratings(state)

    def list_tournaments(self, game: str | None, cursor: int | None, limit: int) -> dict:
        listed = self._store.matches(game, cursor, limit, catalog=CATALOG)
        metas = self._store.metas([tournament_key(t) for _, t in listed])
        found = [summary(t, meta) for (_, t), meta in zip(listed, metas) if meta and "status" in meta]
        return {"tournaments": found, "next_cursor": listed[-1][0] if len(listed) == limit else None}

    def export(self, tournament_id: str) -> dict:
        """The tournament's log and every started match's export: what `cardroom verify` checks offline."""
        state = self._load(tournament_id).state
        match_ids = [t["match"] for r in state["rounds"] for t in r["tables"] if t["match"]]
        return {"format": EXPORT_FORMAT, "tournament_id": tournament_id,
                "complete": state["status"] == tournament.FINISHED, "exported_at": utc_now(),
                "events": self._store.read(tournament_key(tournament_id)),
                "matches": [self._matches.export(m, None) for m in match_ids]}
