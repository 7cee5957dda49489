"""The one place that reads the environment."""
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    redis_url: str | None      # REDIS_URL: the Redis to use; unset = start an embedded one (make run)
    redis_cluster_nodes: tuple[str, ...]  # REDIS_CLUSTER_NODES: host:port,host:port of any reachable nodes of a
                               #   Redis Cluster holding the event log and accounts in place of REDIS_URL
    rq_redis_url: str | None   # RQ_REDIS_URL: the (plain) Redis of the RQ queue; unset = REDIS_URL's
    redis_wait_replicas: int   # REDIS_WAIT_REPLICAS: replicas each append waits for (WAIT); 0 = none
    redis_wait_timeout: float  # REDIS_WAIT_TIMEOUT: seconds an append waits for them at most
    host: str                  # HOST: the address gunicorn binds (0.0.0.0 in the container)
    port: int                  # PORT: where gunicorn listens
    embedded_redis_port: int   # EMBEDDED_REDIS_PORT: the port of the Redis `make run` starts; 0 = any free one
    data_dir: Path             # DATA_DIR: make run keeps the embedded Redis AOF, supervisord.conf and the logs here
    snapshot_every: int        # SNAPSHOT_EVERY: store a snapshot each time the log passes a multiple of this
    workers: int               # WORKERS: RQ worker processes started by `make run`
    web_workers: int           # WEB_CONCURRENCY: gunicorn worker processes
    queue: str                 # QUEUE: the RQ queue for bot turns
    max_body_bytes: int        # MAX_BODY_BYTES: larger request bodies get 413
    stall_after: float         # STALL_AFTER: seconds a bot turn may be awaited without a live worker on it (its
                               #   job gone, or its worker silent: killed) before the janitor re-enqueues it
    janitor_every: float       # JANITOR_EVERY: seconds between janitor passes
    redis_timeout: float       # REDIS_TIMEOUT: seconds to connect to or hear from Redis before a request gets 503
    redis_appendfsync: str     # REDIS_APPENDFSYNC: the embedded Redis's AOF fsync policy (everysec, or always: no loss)
    cors_origins: tuple[str, ...]  # CORS_ORIGINS: comma-separated origins browsers may call the API from; "*" = any
    rules_dir: Path | None     # RULES_DIR: the docs/games folder served at /docs/games; unset = the repository's
    bot_turn_expiry: float     # BOT_TURN_EXPIRY: seconds after which the janitor gives up on a bot turn (a bot
                               #   failing every time), so its passes stay bounded; logged as an error
    keep_finished_extras: int  # KEEP_FINISHED_EXTRAS: seconds a finished match keeps its snapshots and
                               #   idempotency records (its log and meta are kept: they are the audit)
    job_result_ttl: int        # JOB_RESULT_TTL: seconds RQ keeps the record of a bot turn played
    job_failure_ttl: int       # JOB_FAILURE_TTL: seconds RQ keeps the record of a bot turn that failed
    rate_limit_storage: str | None  # RATE_LIMIT_STORAGE: where the rate-limit counters live (a `limits`
                               #   storage URI); unset = the REDIS_URL Redis
    limit_create: str          # LIMIT_CREATE: match creations per account (by its key) or client IP,
                               #   `limits` notation; "" = no limit
    limit_join: str            # LIMIT_JOIN: joins per account or client IP
    limit_moves: str           # LIMIT_MOVES: moves per account or client IP
    limit_accounts: str        # LIMIT_ACCOUNTS: account creations per client IP
    limit_reads: str           # LIMIT_READS: GETs of the API (/v1/) per account or client IP, a listing's page of
                               #   `limit` items counting as limit/20 reads
    max_open_matches: int      # MAX_OPEN_MATCHES: unfinished matches an account may be seated in at once
    keep_alive: float          # STREAM_KEEP_ALIVE: seconds of silence after which a stream sends a keep-alive
    feed_poll: float           # FEED_POLL: seconds between an account feed's counts of its new matches, the fallback
                               #   when the wake-up a new match sends (service/live/feed.py) was lost
    redis_connections: int     # REDIS_CONNECTIONS: connections to Redis per process; more requests wait for one
    archive_after: float       # ARCHIVE_AFTER: seconds after it finished that a match's log is archived
                               #   (compressed, read back transparently); 0 = never
    recent_matches: int        # RECENT_MATCHES: folded states remembered per process (service/repository.py), about
                               #   25-60 KB each; 0 = none (every move loads the match)
    max_tournament_matches: int  # MAX_TOURNAMENT_MATCHES: the most matches one tournament may play
    admin_key: str | None      # ADMIN_KEY: the operator's bearer key for /v1/admin and `cardroom admin`; unset = no admin
    challenge_expiry: float    # CHALLENGE_EXPIRY: seconds an invited account has to accept before the match (or
                               #   tournament) is canceled
    limit_challenges: str      # LIMIT_CHALLENGES: matches and tournaments inviting other accounts, per inviting
                               #   account, `limits` notation; "" = no limit
    header_timeout: int        # HEADER_TIMEOUT: whole seconds a connection has to send a request's line and headers, from
                               #   its opening or its previous answer (an idle kept-alive connection is closed then)
    body_timeout: float        # BODY_TIMEOUT: seconds a request has to send its body once its headers are in; then 408
    max_connections_per_address: int  # MAX_CONNECTIONS_PER_ADDRESS: open connections (streams and play sockets
                               #   included) per client address per web worker process; 0 = no cap
    metrics_dir: Path | None   # PROMETHEUS_MULTIPROC_DIR: where every process writes its figures for GET /metrics
                               #   (prometheus-client's multiprocess mode); make run sets it to DATA_DIR/metrics and
                               #   empties it at start; unset = each process serves its own figures only
    metrics_token: str | None  # METRICS_TOKEN: the bearer token GET /metrics requires; unset = only clients on the
                               #   loopback interface may read it
    seek_expiry: float         # SEEK_EXPIRY: seconds a seek waits in its pool for a pairing before it expires
    max_open_seeks: int        # MAX_OPEN_SEEKS: open seeks an account may hold at once (every game)
    seek_widen: float          # SEEK_WIDEN: how much a seek's rating window widens each second it waits (openskill
                               #   mu points: an account starts at 25 +- 8.3)
    transparency_key: Path | None  # TRANSPARENCY_KEY: the PEM file of the Ed25519 key that signs the transparency
                               #   log's heads; unset = heads unsigned (503), but make run writes DATA_DIR/transparency.pem
    log_format: str            # LOG_FORMAT: "json" for one JSON object a log line (log collectors), else "text"
                               #   for people reading var/logs/ (docs/logging.md)

    @classmethod
    def from_env(cls, env=os.environ) -> "Settings":
        cores = os.cpu_count() or 1
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            redis_cluster_nodes=tuple(node.strip() for node in env.get("REDIS_CLUSTER_NODES", "").split(",")
                                      if node.strip()),
            rq_redis_url=env.get("RQ_REDIS_URL") or env.get("REDIS_URL") or None,
            redis_wait_replicas=int(env.get("REDIS_WAIT_REPLICAS", "0")),
            redis_wait_timeout=float(env.get("REDIS_WAIT_TIMEOUT", "0.5")),
            host=env.get("HOST", "127.0.0.1"),
            port=int(env.get("PORT", "8000")),
            embedded_redis_port=int(env.get("EMBEDDED_REDIS_PORT", "0")),
            data_dir=Path(env.get("DATA_DIR", "var")),
            snapshot_every=int(env.get("SNAPSHOT_EVERY", "25")),
            workers=int(env.get("WORKERS", str(cores))),
            web_workers=int(env.get("WEB_CONCURRENCY", str(2 * cores))),
            queue=env.get("QUEUE", "bots"),
            max_body_bytes=int(env.get("MAX_BODY_BYTES", "65536")),
            # a killed worker's turn resumes about this long after its last beat (a worker beats 4 times in it)
            stall_after=float(env.get("STALL_AFTER", "2")),
            janitor_every=float(env.get("JANITOR_EVERY", "1")),
            redis_timeout=float(env.get("REDIS_TIMEOUT", "2")),
            redis_appendfsync=env.get("REDIS_APPENDFSYNC", "everysec"),
            cors_origins=tuple(origin.strip() for origin in env.get("CORS_ORIGINS", "*").split(",") if origin.strip()),
            rules_dir=Path(env["RULES_DIR"]) if env.get("RULES_DIR") else None,
            bot_turn_expiry=float(env.get("BOT_TURN_EXPIRY", "3600")),
            keep_finished_extras=int(env.get("KEEP_FINISHED_EXTRAS", "86400")),
            job_result_ttl=int(env.get("JOB_RESULT_TTL", "10")),
            job_failure_ttl=int(env.get("JOB_FAILURE_TTL", "86400")),
            rate_limit_storage=env.get("RATE_LIMIT_STORAGE") or None,
            # a burst, a sustained rate, and the quota: 50,000 matches in 110 s was one client's doing
            limit_create=env.get("LIMIT_CREATE", "20/second;120/minute;1000/hour;5000/day"),
            limit_join=env.get("LIMIT_JOIN", "20/second;300/minute"),
            # a program playing bots moves as soon as they answer: tens of moves a second
            limit_moves=env.get("LIMIT_MOVES", "50/second;1800/minute"),
            # a person or a bot farm makes a few accounts, once; a name grab makes thousands
            limit_accounts=env.get("LIMIT_ACCOUNTS", "5/minute;50/day"),
            # a bot at LIMIT_MOVES reads twice a move (its legal moves and the table): 100/s, 3,600/minute
            limit_reads=env.get("LIMIT_READS", "100/second;4000/minute"),
            # a tournament bot plays tens of matches at once; thousands nobody finishes would only fill Redis
            max_open_matches=int(env.get("MAX_OPEN_MATCHES", "100")),
            keep_alive=float(env.get("STREAM_KEEP_ALIVE", "10")),
            feed_poll=float(env.get("FEED_POLL", "1")),
            redis_connections=int(env.get("REDIS_CONNECTIONS", "100")),
            recent_matches=int(env.get("RECENT_MATCHES", "500")),
            # a week: past the days in which a finished match is watched and exported, its log is cold
            archive_after=float(env.get("ARCHIVE_AFTER", "604800")),
            # 100 entrants x 7 Swiss rounds at two seats is 350; a round robin of 100 at two seats is 9,900
            max_tournament_matches=int(env.get("MAX_TOURNAMENT_MATCHES", "10000")),
            # Lichess's challenges expire as fast; a bot that auto-accepts answers in a second
            challenge_expiry=float(env.get("CHALLENGE_EXPIRY", "600")),
            admin_key=env.get("ADMIN_KEY") or None,
            # a person challenges a few friends an hour; a bot author pairing bots, tens: never thousands a day
            limit_challenges=env.get("LIMIT_CHALLENGES", "20/minute;200/hour;1000/day"),
            # a request is sent at once or not at all: seconds of silence mean a client gone or one holding slots
            header_timeout=int(env.get("HEADER_TIMEOUT", "10")),
            body_timeout=float(env.get("BODY_TIMEOUT", "10")),
            # a browser opens a few streams, a bot a stream per match it plays (MAX_OPEN_MATCHES: 100); a worker
            # serves 1,000 connections (bootstrap/gunicorn_conf.py), so one address holds at most a tenth of them
            max_connections_per_address=int(env.get("MAX_CONNECTIONS_PER_ADDRESS", "100")),
            metrics_dir=Path(env["PROMETHEUS_MULTIPROC_DIR"]) if env.get("PROMETHEUS_MULTIPROC_DIR") else None,
            metrics_token=env.get("METRICS_TOKEN") or None,
            # Lichess's seeks wait as long; a bot on the ladder seeks again as soon as its match ends
            seek_expiry=float(env.get("SEEK_EXPIRY", "600")),
            # a bot seeks a few games at once; each open seek holds room for its match (MAX_OPEN_MATCHES)
            max_open_seeks=int(env.get("MAX_OPEN_SEEKS", "5")),
            # a minute's wait widens the window by 6 points, about 3/4 of a new account's sigma
            seek_widen=float(env.get("SEEK_WIDEN", "0.1")),
            log_format=env.get("LOG_FORMAT", "text"),
            transparency_key=Path(env["TRANSPARENCY_KEY"]) if env.get("TRANSPARENCY_KEY") else None,
        )
