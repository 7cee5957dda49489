"""gunicorn's settings, read from the one config module: `gunicorn -c bootstrap/gunicorn_conf.py
bootstrap.wsgi:app` (make run and the container both start it this way; bootstrap.run.GUNICORN_CONF).

Loaded by its path, and it loads its siblings by theirs: importing any module of the bootstrap package runs
bootstrap/__init__.py, which imports the whole app (redis, which imports ssl's names) in gunicorn's master,
before the gevent workers patch the standard library, and gevent warns (MonkeyPatchWarning)."""
import importlib.util
import sys
from pathlib import Path


def _sibling(name: str):
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"cardroom_gunicorn_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"no loader for {path}")
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_config = _sibling("config").Settings.from_env()
# the app's lines and gunicorn's own in one format (bootstrap/logs.py); the app writes the access lines
logconfig_dict = _sibling("logs").gunicorn_logconfig("web", _config.log_format)

bind = f"{_config.host}:{_config.port}"
workers = _config.web_workers
# gevent: an idle stream or a slow client holds a greenlet, not a whole worker process; one address holds at
# most MAX_CONNECTIONS_PER_ADDRESS of a worker's connections (bootstrap/gunicorn_worker.py)
# ... and the rest of a body the app did not read is drained, within BODY_TIMEOUT, before the connection is closed
worker_class = _sibling("gunicorn_worker").bounded_worker(_config.max_connections_per_address,
                                                          _config.body_timeout)
worker_connections = 1000
# gunicorn waits this long for a request's line and headers, idle time before them included (a kept-alive
# connection's too); bodies have their own deadline (bootstrap/body_deadline.py)
keepalive = _config.header_timeout
# Above api/limits.py's MAX_URL_BYTES and MAX_HEADER_BYTES, so that the API answers those with 414/431 in its
# error shape; gunicorn refuses a request line or one header field beyond these itself (a plain-text 400).
limit_request_line = 8190
limit_request_field_size = 8190
# gunicorn's control socket would be ~/.gunicorn/gunicorn.ctl, one path for every gunicorn a user runs;
# supervisorctl controls the service (docs/reliability.md)
control_socket_disable = True


def child_exit(server, worker):
    """A dead worker's gauges of open connections no longer count (prometheus-client's multiprocess mode,
    `livesum`). Imported here, in the master, only once a worker has died: prometheus-client imports ssl, which
    the workers must not inherit before gevent patches it (see above)."""
    if not _config.metrics_dir:  # a gunicorn started without make run's metrics directory (the benches')
        return
    from prometheus_client import multiprocess
    multiprocess.mark_process_dead(worker.pid)
