"""Bot turns: a turn owed by a seat the server plays is noted as awaited before the append, enqueued after it, and
released once no bot is owed; the janitor re-enqueues the turns awaited too long (`stalled`), which a crashed worker
may have lost.

ONE_BOT_AT_A_TIME: when several bot seats are to act at once (9STAX's answers to an effect), only the first is
scheduled; its move makes a new version, which schedules the next. So one match never holds more than one worker,
and no search is thrown away because another seat's move got in first.
"""
import json
import logging

from domain import match
from eventstore.base import EventStore, Head
from service.matches.reactions import Change
from service.ports import BotScheduler

STALLED_BATCH = 1000  # awaited bot turns looked at per janitor pass, oldest first
log = logging.getLogger("service.matches")


class BotTurns:
    def __init__(self, store: EventStore, bots: BotScheduler):
        self._store = store
        self._bots = bots

    def before(self, change: Change) -> None:
        if bots_to_act(change.after):
            self._store.await_bot(change.match_id, change.at)

    def after(self, change: Change, head: Head) -> None:
        owed = bots_to_act(change.after)
        if not owed and change.before and bots_to_act(change.before):
            # only a bot owed before can have been noted; a note left by a crash or a lost race is the janitor's
            self._store.release_bot(change.match_id, change.at)
        for seat in owed[:1]:  # one at a time: the next append schedules the next (ONE_BOT_AT_A_TIME)
            self._bots.schedule(change.match_id, seat, head.version)


def stalled(store: EventStore, now: float, stall_after: float, give_up_after: float) -> list[tuple[str, int, int]]:
    """(match, seat, version) of bot turns awaited for more than `stall_after` seconds: the turns a crashed worker
    may have lost. Reads only the matches noted as awaiting a bot that long; forgets those that no longer do, and
    gives up on a turn awaited more than `give_up_after` seconds (a bot that fails every time), so the janitor's
    work stays bounded."""
    noted = store.bots_awaited(now - stall_after, STALLED_BATCH)
    found = []
    for (match_id, since), found_meta in zip(noted, store.metas([m for m, _ in noted])):
        meta = found_meta or {}
        seats = _bot_seats_to_act(meta) if "status" in meta else []
        if not seats:
            store.release_bot(match_id, since)  # its bot played, or its creation never got appended
        elif now - since > give_up_after:
            log.error("gave up on the bot turn of match %s at version %s, awaited %.0f s",
                      match_id, meta["version"], now - since)
            store.release_bot(match_id, since)
        elif now - float(meta["updated_at"]) >= stall_after:
            found.append((match_id, seats[0], int(meta["version"])))  # the one scheduled
    return found


def bots_to_act(state: dict) -> list[int]:
    return [seat for seat in match.to_act(state) if match.played_by_server(state, seat)]


def _bot_seats_to_act(meta: dict) -> list[int]:
    """bots_to_act from a match's meta (the janitor reads metas, not states)."""
    seated = {"seats": json.loads(meta["seats"])}
    return [seat for seat in json.loads(meta["to_act"]) if match.played_by_server(seated, seat)]
