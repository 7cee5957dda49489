"""Every figure the service exports, in prometheus-client's multiprocess mode when PROMETHEUS_MULTIPROC_DIR is
set (make run sets it): each process (gunicorn's web workers, the RQ workers and their janitor, the RQ scheduler)
writes its figures to its own files there, and a scrape adds them up (observability/exposition.py).

Labels stay bounded: routes are Flask's rule templates, games and bot kinds come from the catalog, reasons are
the API's fixed error reasons; never a match id, an account or a raw path."""
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram

# Seconds: from a fraction of a millisecond (an append, a move's request) to a long search or a stalled worker.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# A bot's turn includes its think time (about a second for a person-paced bot) and the queue's wait.
BOT_TURN_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60)
# A timer fires up to the scheduler's poll (0.2 s) late; the janitor's pass catches a lost one STALL_AFTER late.
LATENESS_BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10, 30)
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

http_requests = Counter("cardroom_http_requests", "HTTP requests answered, by route template, method and status",
                        ["route", "method", "status"])
http_seconds = Histogram("cardroom_http_request_duration_seconds", "Seconds from a request's start to its answer's "
                         "headers (a stream's or a play socket's: to its end)", ["route", "method"],
                         buckets=LATENCY_BUCKETS)
moves = Counter("cardroom_moves", "Moves appended (people's and bots'), by game", ["game"])
append_seconds = Histogram("cardroom_append_duration_seconds", "Seconds an append to the event store took",
                           buckets=LATENCY_BUCKETS)
bot_turns = Counter("cardroom_bot_turns", "Bot turns taken, by bot kind and outcome (played, or stale: the turn "
                    "was gone)", ["kind", "outcome"])
bot_turn_seconds = Histogram("cardroom_bot_turn_delay_seconds", "Seconds from the append that made it a bot's turn "
                             "to the bot's move appended (queue wait, search and think time)", ["kind"],
                             buckets=BOT_TURN_BUCKETS)
clock_timeouts = Counter("cardroom_clock_timeouts", "Seats timed out by their turn clock")
clock_lateness = Histogram("cardroom_clock_timeout_lateness_seconds", "Seconds between a turn clock's deadline "
                           "and its timeout appended", buckets=LATENESS_BUCKETS)
open_connections = Gauge("cardroom_open_connections", "Connections held open, by kind (stream, feed, "
                         "play_socket, export)", ["kind"], multiprocess_mode="livesum")
refusals = Counter("cardroom_refusals", "Answers 429 (rate limited) and 503 (unavailable), by status and reason",
                   ["status", "reason"])
redis_errors = Counter("cardroom_redis_errors", "Redis unreachable or too slow, by where it was met (api: an "
                       "answer 503; janitor: a pass skipped; metrics: a scrape without queue figures; worker, "
                       "scheduler, stream_hub: an outage, once however long it lasts)", ["where"])
tournament_matches = Counter("cardroom_tournament_matches_finished", "Matches of tournaments finished")
seek_pairings = Counter("cardroom_seek_pairings", "The seek pools' pairing passes, by game and what they did "
                        "(paired: a pairing decided; started: its match created; refused: its match could not be)",
                        ["game", "what"])
seeks_expired = Counter("cardroom_seeks_expired", "Seeks that expired unpaired, by game", ["game"])
janitor_requeued = Counter("cardroom_janitor_requeued", "Work the janitor found stalled and enqueued again, by what "
                           "(bot_turn, tournament)", ["what"])
janitor_pass = Gauge("cardroom_janitor_last_pass_timestamp_seconds", "When a janitor last finished a pass (seconds "
                     "since the epoch)", multiprocess_mode="max")
scheduler_pass = Gauge("cardroom_scheduler_last_pass_timestamp_seconds", "When the RQ scheduler last looked for "
                       "due jobs (seconds since the epoch)", multiprocess_mode="max")

OPEN_KINDS = ("stream", "feed", "play_socket")
for _kind in OPEN_KINDS:  # exported at 0 before the first one opens, so a dashboard shows the line
    open_connections.labels(_kind)


class PrometheusMetrics:
    """service.ports.Metrics, counted into the figures above."""

    def appended(self, seconds: float) -> None:
        append_seconds.observe(seconds)

    def move_played(self, game: str) -> None:
        moves.labels(game).inc()

    def bot_turn(self, kind: str, outcome: str, waited: float | None) -> None:
        bot_turns.labels(kind, outcome).inc()
        if waited is not None:
            bot_turn_seconds.labels(kind).observe(waited)

    def clock_timed_out(self, lateness: float) -> None:
        clock_timeouts.inc()
        clock_lateness.observe(max(0.0, lateness))

    def tournament_match_finished(self) -> None:
        tournament_matches.inc()


def request_answered(route: str, method: str, status: int, seconds: float) -> None:
    method = method if method in HTTP_METHODS else "other"  # any token is a method to werkzeug
    http_requests.labels(route, method, str(status)).inc()
    http_seconds.labels(route, method).observe(seconds)


def refused(status: int, reason: str) -> None:
    refusals.labels(str(status), reason).inc()


def redis_error(where: str) -> None:
    redis_errors.labels(where).inc()


@contextmanager
def held_open(kind: str):
    """Counts a connection of `kind` open for as long as the block runs."""
    gauge = open_connections.labels(kind)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def janitor_passed(requeued_turns: int, requeued_tournaments: int, at: float) -> None:
    janitor_requeued.labels("bot_turn").inc(requeued_turns)
    janitor_requeued.labels("tournament").inc(requeued_tournaments)
    janitor_pass.set(at)


def seek_pass(game: str, done: dict) -> None:
    """A pairing pass's counts (service/seeks.py, SeekService.pair)."""
    for what in ("paired", "started", "refused"):
        seek_pairings.labels(game, what).inc(done[what])
    seeks_expired.labels(game).inc(done["expired"])


def scheduler_passed(at: float) -> None:
    scheduler_pass.set(at)
