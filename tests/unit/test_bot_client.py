"""`cardroom bot` against a scripted server: given these feeds and answers, when it runs, then these
requests (the HTTP itself is tested end to end in tests/e2e/test_bot_client.py)."""
import pytest

from cli import main
from cli.bot import FIRST_PAUSE, SEEK_POLL, Bot, HttpError, Seeker

VIEW = {"game": "mantis", "version": 7}


class ScriptedServer:
    """Each feed() serves the next script: frames, then the error it ends with (None: it ends cleanly)."""

    def __init__(self, feeds, moves):
        self._feeds, self._moves = list(feeds), list(moves)
        self.connected_after, self.posted = [], []

    def feed(self, after):
        self.connected_after.append(after)
        frames, ending = self._feeds.pop(0)
        yield from frames
        if ending:
            raise ending

    def call(self, method, path, body=None, headers=None):
        if path.endswith("/legal-moves"):
            return {"version": 7, "seat": 0, "moves": [{"action": "steal", "target": t} for t in range(20)]}
        if method == "GET":
            return {**VIEW, "view": {}}
        self.posted.append((body, headers))
        answer = self._moves.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def turn(version=7, position=3):
    return {"type": "your_turn", "match": "m", "seat": 0, "version": version, "position": position}


@pytest.fixture
def pauses():
    return []


def test_a_dropped_feed_is_resumed_after_its_last_position_and_a_429_retries_the_same_move(pauses):
    server = ScriptedServer([([turn()], OSError("reset")), ([], None)],
                            [HttpError(429, {"reason": "rate_limited"}, 2.0), {"version": 8}])
    bot = Bot(server, "random", sleep=pauses.append)
    bot.run(stop=lambda: not server._feeds)
    assert server.connected_after == [None, 3]
    (first, first_headers), (second, second_headers) = server.posted
    assert first == second and first["expected_version"] == 7 and first_headers == {"Idempotency-Key": "turn-7"}
    assert pauses[0] == 2.0  # the Retry-After, then a reconnection pause
    assert 0.4 <= pauses[1] <= 0.6  # the first pause after a drop (0.5 s, with jitter)


def test_a_turn_already_gone_is_left_to_the_feed_and_a_refused_key_stops_the_bot(pauses):
    server = ScriptedServer([([turn()], HttpError(401, {"reason": "key_rejected"}, None))],
                            [HttpError(409, {"reason": "version_conflict"}, None)])
    with pytest.raises(HttpError) as refused:
        Bot(server, "random", sleep=pauses.append).run()
    assert refused.value.status == 401 and len(server.posted) == 1


def test_a_turn_replayed_after_a_crash_picks_the_same_move_of_twenty():
    moves = []
    for _ in range(2):  # two processes, one after the other
        server = ScriptedServer([([turn()], None)], [{"version": 8}])
        bot = Bot(server, "random", sleep=lambda seconds: None)
        bot.run(stop=lambda: not server._feeds)
        moves += [body for body, _ in server.posted]
    assert moves[0] == moves[1]


def test_a_turn_whose_version_has_moved_on_is_not_played(pauses):
    server = ScriptedServer([([turn(version=6)], None)], [])
    Bot(server, "random", sleep=pauses.append).run(stop=lambda: not server._feeds)
    assert server.posted == []


class SeekServer:
    """Answers a Seeker's calls from scripts: the account's open seeks, each seek's states in turn, each match's."""

    def __init__(self, mine=(), seeks=None, matches=None, refusals=()):
        self.mine, self.seeks, self.matches = list(mine), seeks or {}, matches or {}
        self.refusals = list(refusals)
        self.opened: list[dict] = []

    def call(self, method, path, body=None, headers=None):
        if method == "POST":
            if self.refusals:
                raise self.refusals.pop(0)
            self.opened.append(body)
            return {"id": f"s{len(self.opened)}"}
        if path == "/v1/accounts/me/seeks":
            return {"seeks": self.mine}
        kind, name = path.split("/")[2:4]
        states = (self.seeks if kind == "seeks" else self.matches)[name]
        return states.pop(0) if len(states) > 1 else states[0]


def seek_state(seek_id, status, match=None):
    return {"id": seek_id, "status": status, "match": match, "seat": 1 if match else None, "reason": None}


TERMS = {"game": "flipout", "players": 2}


def test_a_seeker_seeks_waits_for_its_match_to_end_and_seeks_again():
    server = SeekServer(seeks={"s1": [seek_state("s1", "open"), seek_state("s1", "paired", "m1")],
                               "s2": [seek_state("s2", "open")]},
                        matches={"m1": [{"status": "active"}, {"status": "finished"}]})
    seeker = Seeker(server, TERMS)
    seeker.step()
    assert server.opened == [TERMS] and seeker.seek == "s1"
    seeker.step()  # open: it waits
    seeker.step()  # paired
    assert (seeker.seek, seeker.match, seeker.matches) == (None, "m1", ["m1"])
    seeker.step()  # the match goes on: no seek
    assert server.opened == [TERMS]
    seeker.step()  # over: it seeks again
    assert server.opened == [TERMS, TERMS] and (seeker.seek, seeker.match) == ("s2", None)


def test_a_seek_that_expired_is_replaced():
    server = SeekServer(seeks={"s1": [seek_state("s1", "expired")]})
    seeker = Seeker(server, TERMS)
    seeker.step()
    seeker.step()
    assert len(server.opened) == 2 and seeker.seek == "s2"


def test_a_seeker_started_again_takes_up_its_open_seek_of_the_game_rather_than_open_another():
    server = SeekServer(mine=[{"id": "other", "game": "mantis"}, {"id": "left", "game": "flipout"}],
                        seeks={"left": [seek_state("left", "open")]})
    seeker = Seeker(server, TERMS)
    seeker.step()
    assert server.opened == [] and seeker.seek == "left"


def test_a_refused_seek_is_tried_again_after_a_pause_but_a_refused_key_ends_the_seeker(pauses):
    busy = HttpError(409, {"reason": "too_many_open_matches"}, None)
    server = SeekServer(seeks={"s1": [seek_state("s1", "open")]}, refusals=[busy])
    Seeker(server, TERMS, sleep=pauses.append).run(stop=lambda: len(pauses) == 2)
    assert pauses == [FIRST_PAUSE, SEEK_POLL] and server.opened == [TERMS]
    server = SeekServer(refusals=[HttpError(401, {"reason": "key_rejected"}, None)])
    with pytest.raises(HttpError):
        Seeker(server, TERMS, sleep=pauses.append).run()


def test_cardroom_bot_seeking_terms_the_server_refuses_ends_with_the_reason(monkeypatch, capsys):
    def refused(self, method, path, body=None, headers=None):
        if method == "POST":
            raise HttpError(422, {"reason": "clock_required", "message": "a rated seek needs a clock"}, None)
        return {"seeks": []}

    monkeypatch.setattr("cli.bot.Client.call", refused)
    assert main(["bot", "--url", "http://127.0.0.1:9", "--key", "crk_x", "--seek", "mantis", "--rated"]) == 2
    assert "clock_required" in capsys.readouterr().err


def test_cardroom_bot_seeking_a_server_not_up_yet_leaves_the_seek_to_its_retries(monkeypatch):
    def down(self, method, path, body=None, headers=None):
        raise OSError("connection refused")

    started = []

    class Thread:  # the seeker's thread, not started: its retries are tested above
        def __init__(self, target, **kwargs):
            self.target = target

        def start(self):
            started.append("seeker")

    monkeypatch.setattr("cli.bot.Client.call", down)
    monkeypatch.setattr("cli.threading.Thread", Thread)
    monkeypatch.setattr("cli.Bot.run", lambda self: started.append("player"))
    assert main(["bot", "--url", "http://127.0.0.1:9", "--key", "crk_x", "--seek", "mantis"]) == 0
    assert started == ["seeker", "player"]
