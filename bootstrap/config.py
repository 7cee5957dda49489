"""The one place that reads the environment."""
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    redis_url: str | None      # REDIS_URL: the Redis to use; unset = start an embedded one (make run)
    port: int                  # PORT: where gunicorn listens
    data_dir: Path             # DATA_DIR: the embedded Redis keeps its AOF here
    snapshot_every: int        # SNAPSHOT_EVERY: store a snapshot each time the log passes a multiple of this
    workers: int               # WORKERS: RQ worker processes started by `make run`
    web_workers: int           # WEB_CONCURRENCY: gunicorn worker processes
    queue: str                 # QUEUE: the RQ queue for bot turns
    max_body_bytes: int        # MAX_BODY_BYTES: larger request bodies get 413

    @classmethod
    def from_env(cls, env=os.environ) -> "Settings":
        cores = os.cpu_count() or 1
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            port=int(env.get("PORT", "8000")),
            data_dir=Path(env.get("DATA_DIR", "var")),
            snapshot_every=int(env.get("SNAPSHOT_EVERY", "25")),
            workers=int(env.get("WORKERS", str(cores))),
            web_workers=int(env.get("WEB_CONCURRENCY", str(2 * cores))),
            queue=env.get("QUEUE", "bots"),
            max_body_bytes=int(env.get("MAX_BODY_BYTES", "65536")),
        )
