"""The production app plus one bare endpoint, served as bootstrap/wsgi.py serves it, so both are measured on the
same gunicorn."""
from bootstrap import build_app, settings
from bootstrap.body_deadline import body_deadline

flask_app = build_app(settings())
flask_app.add_url_rule("/bench/bare", "bench_bare", lambda: {"ok": True})
app = body_deadline(flask_app, settings().body_timeout)
