"""gunicorn's entry point: gunicorn bootstrap.wsgi:app"""
from bootstrap import build_app, settings
from bootstrap.body_deadline import body_deadline

app = body_deadline(build_app(settings()), settings().body_timeout)
