"""`cardroom bot`: plays every turn an account owes, told by the account's feed, with a built-in policy, and
answers the challenges the feed announces: accepted from whom `accept` names (default: anyone), else declined.
With `--seek GAME` it also keeps the account on the ladder (Seeker): it seeks a match, plays the one it is given
from the feed like any other, and seeks again once that match is over, forever.

The policies are the ones the workers run (domain/bots), given what a worker gives them: the seat's view,
its legal moves and an rng. The rng is seeded by (match, seat, version), so a turn played again after a
crash picks the same move, and its Idempotency-Key (`turn-<version>`) makes the server answer the first
move instead of playing twice. Whatever goes wrong (the stream drops, the server restarts, this process
is killed), the client connects again and the feed's first frames tell it every turn it owes, so none is
lost. It uses the standard library's urllib only: the package needs no HTTP client to serve, and a bot
author can copy this file and run it with nothing else installed.
"""
import json
import logging
import random
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator

from domain.bots import BOTS, BotKind
from domain.games import get_game

log = logging.getLogger("cardroom.bot")
# seconds without a byte before the feed counts as dropped: the server sends a keep-alive every
# STREAM_KEEP_ALIVE (10 s by default), so only a dead connection stays silent this long
READ_TIMEOUT = 60.0
CALL_TIMEOUT = 30.0
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 30.0  # reconnecting after a failure: doubling pauses, with jitter
NDJSON = "application/x-ndjson"
GZIP_WRAPPER = 16 + zlib.MAX_WBITS  # zlib's window bits for a gzip header and trailer
READ_CHUNK = 1 << 16


class HttpError(Exception):
    def __init__(self, status: int, body: dict, retry_after: float | None):
        super().__init__(f"{status} {body.get('reason', '')}: {body.get('message', '')}")
        self.status, self.reason, self.retry_after = status, body.get("reason"), retry_after


class Client:
    """The few calls a bot makes, with its account's key (none: anonymous calls)."""

    def __init__(self, url: str, key: str | None = None):
        self._url = url.rstrip("/")
        self._auth = {"Authorization": f"Bearer {key}"} if key else {}

    def call(self, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self._url + path, data=data, method=method, headers={
            **self._auth, **({"Content-Type": "application/json"} if data else {}), **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=CALL_TIMEOUT) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            raise _http_error(error) from None

    def feed(self, after: int | None) -> Iterator[dict]:
        """The account's feed as NDJSON frames (keep-alives skipped), resumed after `after` if given."""
        query = "" if after is None else f"?after={after}"
        request = urllib.request.Request(f"{self._url}/v1/accounts/me/stream{query}",
                                         headers={**self._auth, "Accept": NDJSON})
        try:
            response = urllib.request.urlopen(request, timeout=READ_TIMEOUT)
        except urllib.error.HTTPError as error:
            raise _http_error(error) from None
        with response:
            for line in response:
                if line.strip():
                    yield json.loads(line)


    def lines(self, path: str) -> Iterator[bytes]:
        """An NDJSON answer's lines (GET), gzipped on the way: what the streams of exports send."""
        request = urllib.request.Request(self._url + path, headers={**self._auth, "Accept-Encoding": "gzip"})
        try:
            response = urllib.request.urlopen(request, timeout=READ_TIMEOUT)
        except urllib.error.HTTPError as error:
            raise _http_error(error) from None
        with response:
            gunzip = zlib.decompressobj(GZIP_WRAPPER) if response.headers.get("Content-Encoding") == "gzip" else None
            pending = b""
            for chunk in iter(lambda: response.read(READ_CHUNK), b""):
                *complete, pending = (pending + (gunzip.decompress(chunk) if gunzip else chunk)).split(b"\n")
                yield from complete


ANYONE = "anyone"  # accept every challenge; NOBODY declines them all; else a set of account ids and names
NOBODY = "nobody"


class Bot:
    def __init__(self, client: Client, policy: str | BotKind, options: dict | None = None, sleep=time.sleep,
                 accept: str | set[str] = ANYONE):
        """`policy`: a built-in bot's id, or a kind of the caller's own, played the same way (a bench's bot)."""
        self._client = client
        self._kind = BOTS[policy] if isinstance(policy, str) else policy
        self._options = self._kind.checked_options(options or {})
        self._sleep = sleep
        self._accept = accept
        self.position: int | None = None  # the feed's position: where a reconnection resumes

    def run(self, stop=lambda: False) -> None:
        """Plays what the feed tells until `stop()`; reconnects after any failure but a refused key."""
        pause = FIRST_PAUSE
        while not stop():
            try:
                for frame in self._client.feed(self.position):
                    pause = FIRST_PAUSE
                    self.position = frame["position"]
                    self.on_frame(frame)
                    if stop():
                        return
                log.warning("the feed ended (the server restarted?): connecting again")
                wait = 0.0
            except HttpError as error:
                if error.status in (401, 403):
                    raise
                log.warning("feed or move refused (%s): connecting again", error)
                wait = error.retry_after or pause
            except (OSError, ValueError) as error:  # dropped, refused, timed out, or cut mid-line
                log.warning("feed lost (%s): connecting again", error)
                wait = pause
            pause = min(2 * pause, LONGEST_PAUSE)
            self._sleep(wait * random.uniform(0.8, 1.2))

    def on_frame(self, frame: dict) -> None:
        if frame["type"] == "your_turn":
            self.play(frame["match"], frame["seat"], frame["version"])
        elif frame["type"] == "challenge":
            self.answer(frame["match"], frame["by"])
        elif frame["type"] == "match_finished":
            log.info("match %s finished: %s", frame["match"], frame["result"])

    def answer(self, match_id: str, by: dict) -> None:
        """Accepts or declines an invitation, by who sent it; one answered already (or canceled) is let be."""
        welcome = self._accept == ANYONE or (isinstance(self._accept, set) and {by["account"], by["name"]} & self._accept)
        answer = "accept" if welcome else "decline"
        try:
            self._client.call("POST", f"/v1/matches/{match_id}/{answer}")
            log.info("match %s: %sed the challenge of %s", match_id, answer, by["name"])
        except HttpError as error:
            if error.status != 409:  # 409: it was answered, or it expired, meanwhile
                raise
            log.info("match %s: challenge no longer pending (%s)", match_id, error)

    def play(self, match_id: str, seat: int, version: int) -> None:
        """Plays the turn owed at `version`, unless it is gone (another seat moved first, or this turn was
        played before a crash): the feed tells the next one."""
        legal = self._client.call("GET", f"/v1/matches/{match_id}/legal-moves")
        table = self._client.call("GET", f"/v1/matches/{match_id}")
        if not legal["moves"] or not legal["version"] == table["version"] == version:
            return
        rng = random.Random(f"{match_id}:{seat}:{version}")
        move = self._kind.policy(get_game(table["game"]), table["view"], seat, legal["moves"], rng, **self._options)
        while True:
            try:
                self._client.call("POST", f"/v1/matches/{match_id}/moves",
                                  {"move": move, "expected_version": version},
                                  {"Idempotency-Key": f"turn-{version}"})
                log.info("match %s version %d: played %s", match_id, version, json.dumps(move))
                return
            except HttpError as error:
                if error.status == 429:
                    self._sleep(error.retry_after or FIRST_PAUSE)
                elif error.status in (409, 422):  # stale version, not our turn, or this turn already played
                    log.info("match %s version %d: %s", match_id, version, error)
                    return
                else:
                    raise


def _http_error(error: urllib.error.HTTPError) -> HttpError:
    try:
        body = json.load(error)
    except ValueError:
        body = {}
    retry_after = error.headers.get("Retry-After")
    return HttpError(error.code, body if isinstance(body, dict) else {},
                     float(retry_after) if retry_after and retry_after.isdigit() else None)


SEEK_POLL = 1.0  # seconds between looks at the seek (open, paired, expired) and at the match it was given


class Seeker:
    """Keeps one seek of the account open while no match of its seeking is in play: seeks (`terms`, the body of
    POST /v1/seeks), waits until the seek is paired and its match is over (or the seek expired), and seeks again.
    Started again after a crash, it takes up the account's open seek of the same terms rather than open another."""

    def __init__(self, client: Client, terms: dict, sleep=time.sleep, poll: float = SEEK_POLL):
        self._client = client
        self._terms = terms
        self._sleep = sleep
        self._poll = poll
        self.seek: str | None = None
        self.match: str | None = None
        self.matches: list[str] = []  # every match its seeks were given, oldest first

    def run(self, stop=lambda: False) -> None:
        """Seeks until `stop()`; a refused key ends it, any other failure is tried again after a pause."""
        pause = FIRST_PAUSE
        while not stop():
            try:
                self.step()
                pause = FIRST_PAUSE
                wait = self._poll
            except HttpError as error:
                if error.status in (401, 403):
                    raise
                log.warning("seeking refused (%s): trying again", error)
                wait, pause = error.retry_after or pause, min(2 * pause, LONGEST_PAUSE)
            except (OSError, ValueError) as error:
                log.warning("seeking failed (%s): trying again", error)
                wait, pause = pause, min(2 * pause, LONGEST_PAUSE)
            self._sleep(wait)

    def step(self) -> None:
        """One look: the match given still on, the seek still open, or else a new seek."""
        if self.match is not None:
            if self._client.call("GET", f"/v1/matches/{self.match}")["status"] != "finished":
                return
            self.match = None
        if self.seek is None:
            self.seek = self._adopted()
        if self.seek is not None:
            found = self._client.call("GET", f"/v1/seeks/{self.seek}")
            if found["status"] == "open":
                return
            self.seek = None
            if found["status"] == "paired":
                self.match = found["match"]
                self.matches.append(found["match"])
                log.info("seek paired: match %s, seat %d", found["match"], found["seat"])
                return
            log.info("seek %s %s%s", found["id"], found["status"], f" ({found['reason']})" if found["reason"] else "")
        self.seek = self._client.call("POST", "/v1/seeks", self._terms)["id"]
        log.info("seeking %s: seek %s", self._terms["game"], self.seek)

    def _adopted(self) -> str | None:
        """The account's open seek of this game, if one is left from before a restart."""
        mine = self._client.call("GET", "/v1/accounts/me/seeks")["seeks"]
        return next((s["id"] for s in mine if s["game"] == self._terms["game"]), None)
