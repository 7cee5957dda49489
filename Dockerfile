# One image for the API (default), the bot workers (`python -m bootstrap.worker`) and RQ's scheduler
# (`python -m bootstrap.scheduler`); docker-compose.yml runs each as a service that is restarted when it dies.
FROM python:3.11-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY domain domain
COPY eventstore eventstore
COPY service service
# api/ holds the viewer's pages and ES modules too (api/static, also package data in pyproject.toml)
COPY api api
COPY workers workers
COPY bootstrap bootstrap
COPY cli cli
# the rules pages served at /docs/games
COPY docs/games docs/games
RUN pip install --no-cache-dir .
ENV HOST=0.0.0.0 PORT=8000 RULES_DIR=/app/docs/games
# gunicorn's workers add up their figures for GET /metrics here (docs/operations.md); the worker and scheduler
# containers write to their own copy, which no scrape reads
ENV PROMETHEUS_MULTIPROC_DIR=/tmp/cardroom-metrics
RUN mkdir -p /tmp/cardroom-metrics
EXPOSE 8000
CMD ["gunicorn", "-c", "bootstrap/gunicorn_conf.py", "bootstrap.wsgi:app"]
