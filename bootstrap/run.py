"""`make run`: an embedded Redis (unless REDIS_URL is set), gunicorn serving the API, and RQ workers.
Ctrl-C (or SIGTERM) stops everything it started."""
import os
import signal
import subprocess
import sys
import time

from bootstrap.config import Settings
from bootstrap.embedded_redis import EmbeddedRedis


def main() -> int:
    config = Settings.from_env()
    env = dict(os.environ)
    redis_server = None
    if not config.redis_url:
        redis_server = EmbeddedRedis(config.data_dir / "redis", port=config.embedded_redis_port).start()
        env["REDIS_URL"] = redis_server.url
        print(f"cardroom: embedded Redis on {redis_server.url}, AOF in {redis_server.data_dir}/", flush=True)
    children = [subprocess.Popen([sys.executable, "-m", "gunicorn", "--workers", str(config.web_workers),
                                  "--bind", f"{config.host}:{config.port}", "bootstrap.wsgi:app"], env=env)]
    children += [subprocess.Popen([sys.executable, "-m", "bootstrap.worker"], env=env) for _ in range(config.workers)]
    print(f"cardroom: API on http://{config.host}:{config.port} (docs at /docs), {config.workers} bot worker(s); "
          "Ctrl-C stops everything", flush=True)
    stopping = False

    def stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        while not stopping and all(child.poll() is None for child in children):
            time.sleep(0.2)
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
        if redis_server:
            redis_server.stop()
    failed = [child.args for child in children if child.returncode not in (0, -signal.SIGTERM, None)]
    return 1 if failed and not stopping else 0


if __name__ == "__main__":
    sys.exit(main())
