"""gunicorn's settings, read from the one config module: `gunicorn -c python:bootstrap.gunicorn_conf
bootstrap.wsgi:app` (make run and the container both start it this way)."""
from bootstrap.config import Settings

_config = Settings.from_env()

bind = f"{_config.host}:{_config.port}"
workers = _config.web_workers
# gevent: an idle stream or a slow client holds a greenlet, not a whole worker process.
worker_class = "gevent"
worker_connections = 1000
keepalive = 5
# Above api/limits.py's MAX_URL_BYTES and MAX_HEADER_BYTES, so that the API answers those with 414/431 in its
# error shape; gunicorn refuses a request line or one header field beyond these itself (a plain-text 400).
limit_request_line = 8190
limit_request_field_size = 8190
