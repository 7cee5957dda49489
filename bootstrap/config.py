"""The one place that reads the environment."""
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    redis_url: str | None      # REDIS_URL: the Redis to use; unset = start an embedded one (make run)
    host: str                  # HOST: the address gunicorn binds (0.0.0.0 in the container)
    port: int                  # PORT: where gunicorn listens
    embedded_redis_port: int   # EMBEDDED_REDIS_PORT: the port of the Redis `make run` starts; 0 = any free one
    data_dir: Path             # DATA_DIR: the embedded Redis keeps its AOF here
    snapshot_every: int        # SNAPSHOT_EVERY: store a snapshot each time the log passes a multiple of this
    workers: int               # WORKERS: RQ worker processes started by `make run`
    web_workers: int           # WEB_CONCURRENCY: gunicorn worker processes
    queue: str                 # QUEUE: the RQ queue for bot turns
    max_body_bytes: int        # MAX_BODY_BYTES: larger request bodies get 413
    stall_after: float         # STALL_AFTER: seconds a bot turn may be awaited before the janitor re-enqueues it
    janitor_every: float       # JANITOR_EVERY: seconds between janitor passes

    @classmethod
    def from_env(cls, env=os.environ) -> "Settings":
        cores = os.cpu_count() or 1
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            host=env.get("HOST", "127.0.0.1"),
            port=int(env.get("PORT", "8000")),
            embedded_redis_port=int(env.get("EMBEDDED_REDIS_PORT", "0")),
            data_dir=Path(env.get("DATA_DIR", "var")),
            snapshot_every=int(env.get("SNAPSHOT_EVERY", "25")),
            workers=int(env.get("WORKERS", str(cores))),
            web_workers=int(env.get("WEB_CONCURRENCY", str(2 * cores))),
            queue=env.get("QUEUE", "bots"),
            max_body_bytes=int(env.get("MAX_BODY_BYTES", "65536")),
            stall_after=float(env.get("STALL_AFTER", "5")),
            janitor_every=float(env.get("JANITOR_EVERY", "1")),
        )
