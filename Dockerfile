# One image for the API (default) and the bot workers (`python -m bootstrap.worker`).
FROM python:3.11-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY domain domain
COPY eventstore eventstore
COPY service service
COPY api api
COPY workers workers
COPY bootstrap bootstrap
COPY cli cli
RUN pip install --no-cache-dir .
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
CMD ["sh", "-c", "exec gunicorn --workers ${WEB_CONCURRENCY:-4} --bind ${HOST}:${PORT} bootstrap.wsgi:app"]
