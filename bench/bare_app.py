"""The production app plus one bare endpoint, so both are measured on the same gunicorn."""
from bootstrap.wsgi import app

app.add_url_rule("/bench/bare", "bench_bare", lambda: {"ok": True})
