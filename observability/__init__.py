"""The service's figures for Prometheus (GET /metrics): metrics.py defines them and counts into them,
exposition.py gathers every process's figures for a scrape."""
