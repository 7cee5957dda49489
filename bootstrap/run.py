"""`make run`: supervisord runs the embedded Redis (unless REDIS_URL is set), gunicorn serving the API, the
RQ workers and the RQ scheduler, and starts again whatever of them dies. Ctrl-C (or SIGTERM) stops all.

supervisor rather than a loop of our own: it restarts a dead program at once, backs off (1 s, 2 s, 3 s, ...)
from one that dies within `startsecs` of starting, logs each program to its own rotated file, and
`supervisorctl` shows and controls them while they run."""
import os
import pwd
import secrets
import shlex
import sys
from pathlib import Path

from supervisor.supervisord import main as supervisord

from bootstrap.config import Settings
from bootstrap.embedded_redis import EmbeddedRedis
from service.signing import write_key_if_missing

# gunicorn reads its settings from this file by its path (bootstrap/gunicorn_conf.py says why)
GUNICORN_CONF = Path(__file__).with_name("gunicorn_conf.py")

SUPERVISORD = """\
[supervisord]
nodaemon=true
user={user}
logfile={logs}/supervisord.log
pidfile={data}/supervisord.pid
childlogdir={logs}
{environment}

[unix_http_server]
file={data}/supervisor.sock
chmod=0700
username={control_user}
password={control_password}

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://{data}/supervisor.sock
username={control_user}
password={control_password}
"""
# supervisord's control socket asks for a password (without one it logs a CRIT line at every start, though the socket
# is the user's alone); supervisorctl reads it from the same file, written readable by the user only. A new one each
# run: nothing else needs to know it.
CONTROL_USER = "cardroom"

# startretries is high because each of our programs waits for Redis rather than dying without it: a
# program that still dies on start is retried for about 3.5 minutes (1 + 2 + ... + 20 s) before it is FATAL.
PROGRAM = """
[program:{name}]
command={command}
process_name={process_name}
numprocs={numprocs}
priority={priority}
directory={cwd}
autorestart=true
startsecs=1
startretries=20
stopwaitsecs=10
stopasgroup=true
killasgroup=true
redirect_stderr=true
stdout_logfile={logs}/{process_name}.log
stdout_logfile_maxbytes=10MB
stdout_logfile_backups=3
"""


def program(name: str, argv: list[str], logs: Path, numprocs: int = 1, priority: int = 10) -> str:
    """One supervised program; several processes of it are named name-0, name-1, ..."""
    process_name = f"{name}-%(process_num)d" if numprocs > 1 else name
    return PROGRAM.format(name=name, command=shlex.join(argv).replace("%", "%%"), process_name=process_name,
                          numprocs=numprocs, priority=priority, cwd=Path.cwd(), logs=logs)


def fresh_metrics_dir(config: Settings) -> Path:
    """PROMETHEUS_MULTIPROC_DIR (default DATA_DIR/metrics), emptied of the figures of a previous run's processes:
    their counters would add to this run's, and their pids may be reused."""
    metrics = (config.metrics_dir or config.data_dir / "metrics").resolve()
    metrics.mkdir(parents=True, exist_ok=True)
    for leftover in metrics.glob("*.db"):
        leftover.unlink()
    return metrics


def transparency_key(config: Settings) -> Path:
    """TRANSPARENCY_KEY, or DATA_DIR/transparency.pem, written the first time: the key that signs the transparency
    log's heads must stay the same across restarts, or a saved head could not be checked against later ones."""
    path = (config.transparency_key or config.data_dir / "transparency.pem").resolve()
    write_key_if_missing(path)
    return path


def supervisord_conf(config: Settings) -> tuple[str, str]:
    """The supervisord configuration for `make run`, and a line saying what it runs."""
    data = config.data_dir.resolve()
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    programs = [program("web", [python, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "bootstrap.wsgi:app"], logs),
                program("worker", [python, "-m", "bootstrap.worker"], logs, numprocs=config.workers),
                program("scheduler", [python, "-m", "bootstrap.scheduler"], logs)]
    # the children inherit REDIS_URL, REDIS_CLUSTER_NODES and RQ_REDIS_URL when set (not printed: they may hold
    # a password); with a cluster but no plain Redis for RQ, the embedded one serves RQ. Every process writes its
    # figures for GET /metrics to one directory (observability/metrics.py).
    environment = {"PROMETHEUS_MULTIPROC_DIR": str(fresh_metrics_dir(config)),
                   "TRANSPARENCY_KEY": str(transparency_key(config))}
    where = "the Redis Cluster at REDIS_CLUSTER_NODES" if config.redis_cluster_nodes else "the Redis at REDIS_URL"
    if not config.rq_redis_url:
        # The port and the AOF directory are fixed here, so a restarted Redis serves the same data.
        embedded = EmbeddedRedis(data / "redis", port=config.embedded_redis_port, appendfsync=config.redis_appendfsync)
        programs.insert(0, program("redis", embedded.command(), logs, priority=1))  # started first, stopped last
        environment["REDIS_URL"] = embedded.url
        where = (f"{where}, RQ on an " if config.redis_cluster_nodes else "") + \
            f"embedded Redis on {embedded.url} (AOF in {embedded.data_dir}/)"
    user = pwd.getpwuid(os.getuid()).pw_name  # the user we are: supervisord then neither drops nor warns
    text = SUPERVISORD.format(user=user, data=data, logs=logs, control_user=CONTROL_USER,
                              control_password=secrets.token_urlsafe(24), environment="environment=" + ",".join(
        f'{name}="{value}"' for name, value in environment.items())) + "".join(programs)
    supervisorctl = Path(sys.executable).with_name("supervisorctl")  # installed beside this Python
    summary = (f"cardroom: API on http://{config.host}:{config.port} (docs at /docs), {config.workers} bot "
               f"worker(s), {where}; logs in {logs}/; `{supervisorctl} -c {data}/supervisord.conf status` shows "
               "what runs; Ctrl-C stops everything")
    return text, summary


def write_private(path: Path, text: str) -> None:
    """Writes `text` to `path`, readable and writable by this user only (it holds the control socket's password)."""
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as private:
        private.write(text)


def main() -> int:
    config = Settings.from_env()
    text, summary = supervisord_conf(config)
    conf = config.data_dir.resolve() / "supervisord.conf"
    write_private(conf, text)
    print(summary, flush=True)
    supervisord(["-c", str(conf)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
