"""gunicorn's entry point: gunicorn bootstrap.wsgi:app"""
from bootstrap import build_app, settings

app = build_app(settings())
