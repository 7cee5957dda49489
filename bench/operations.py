"""The operations dashboard from a real run (docs/operations.md, docs/screenshots/operations.png): the whole
service (`python -m bootstrap.run`) under a mixed load for `--seconds`, GET /metrics scraped every `--every`
seconds, and the dashboard's main panels (docs/operations/grafana-dashboard.json) drawn from those scrapes with
the same arithmetic as its PromQL (rates of counters, histogram_quantile over bucket increases).

The load: `--clients` threads playing two-seat Mantis matches over HTTP, `--bot-players` threads each playing
a random and a greedy bot, `--streams` clients following a match, and `--clocked` matches left idle on a one-second
turn clock so that their clocks time out. Prints the figures it drew and what a scrape costs.
Usage: python bench/operations.py [--seconds 60] [--every 5] [--clients 3] [--bot-players 2] [--streams 20]
"""
import argparse
import threading
import time
from collections import defaultdict
from pathlib import Path

import matplotlib
import requests
from prometheus_client.parser import text_string_to_metric_families

from clocks import idle_match, whole_service
from common import embedded_redis, median, play_two_seat_matches

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file backend)

PICTURE = Path(__file__).resolve().parents[1] / "docs" / "screenshots" / "operations.png"
MOVES = "/v1/matches/<match_id>/moves"


def scrape(base: str) -> dict[tuple, float]:
    text = requests.get(f"{base}/metrics", timeout=10).text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def play_bots(base: str, stop: threading.Event) -> None:
    """A person (this thread) against a random and a greedy bot, match after match."""
    session = requests.Session()
    while not stop.is_set():
        created = session.post(f"{base}/v1/matches", json={
            "game": "mantis", "seats": [{"name": "ann"}, {"bot": "random"}, {"bot": "greedy"}]}).json()
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        while not stop.is_set():
            legal = session.get(f"{base}/v1/matches/{created['id']}/legal-moves", headers=auth).json()
            if not legal["moves"] and session.get(f"{base}/v1/matches/{created['id']}").json()["status"] == "finished":
                break
            if legal["moves"]:
                session.post(f"{base}/v1/matches/{created['id']}/moves", headers=auth,
                             json={"move": legal["moves"][0], "expected_version": legal["version"]})
            else:
                time.sleep(0.05)  # the bots' turn


def follow(base: str, match_id: str, stop: threading.Event) -> None:
    with requests.get(f"{base}/v1/matches/{match_id}/stream", stream=True, timeout=30) as stream:
        for _ in stream.iter_lines():
            if stop.is_set():
                return


def rate(scrapes, name: str, by: str | None = None, **match) -> dict[str, list[tuple[float, float]]]:
    """Per-second increase of a counter between consecutive scrapes, summed by the label `by`."""
    lines = defaultdict(list)
    for (t0, before), (t1, after) in zip(scrapes, scrapes[1:]):
        sums = defaultdict(float)
        for (sample, labels), value in after.items():
            labels = dict(labels)
            if sample == name and all(labels.get(k) == v for k, v in match.items()):
                sums[labels.get(by, name) if by else name] += value - before.get((sample, tuple(sorted(labels.items()))), 0)
        for key, increase in sums.items():
            lines[key].append((t1, increase / (t1 - t0)))
    return lines


def quantile(q: float, scrapes, name: str, by: str | None = None, **match) -> dict[str, list[tuple[float, float]]]:
    """histogram_quantile(q, increase of `name`_bucket between consecutive scrapes), by the label `by`."""
    lines = defaultdict(list)
    for (_, before), (t1, after) in zip(scrapes, scrapes[1:]):
        buckets = defaultdict(dict)
        for (sample, labels), value in after.items():
            labels = dict(labels)
            if sample == f"{name}_bucket" and all(labels.get(k) == v for k, v in match.items()):
                key = labels.get(by, name) if by else name
                le = float(labels["le"])
                buckets[key][le] = buckets[key].get(le, 0) + value - before.get((sample, tuple(sorted(labels.items()))), 0)
        for key, counts in buckets.items():
            value = _histogram_quantile(q, sorted(counts.items()))
            if value is not None:
                lines[key].append((t1, value))
    return lines


def _histogram_quantile(q: float, cumulative: list[tuple[float, float]]) -> float | None:
    """Prometheus's: linear within the bucket the rank falls in; the highest finite bound past the last one."""
    total = cumulative[-1][1]
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for upper, count in cumulative:
        if count >= rank:
            if upper == float("inf"):
                return lower
            return lower + (upper - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = upper, count
    return lower


def gauge(scrapes, name: str, by: str) -> dict[str, list[tuple[float, float]]]:
    lines = defaultdict(list)
    for t, samples in scrapes:
        sums = defaultdict(float)
        for (sample, labels), value in samples.items():
            if sample == name:
                sums[dict(labels)[by]] += value
        for key, value in sums.items():
            lines[key].append((t, value))
    return lines


def draw(scrapes) -> dict[str, dict]:
    start = scrapes[0][0]
    panels = {
        "Requests per second by route": rate(scrapes, "cardroom_http_requests_total", "route"),
        "Move latency (POST moves), s": {
            "p50": quantile(0.5, scrapes, "cardroom_http_request_duration_seconds", route=MOVES,
                            method="POST").get("cardroom_http_request_duration_seconds", []),
            "p99": quantile(0.99, scrapes, "cardroom_http_request_duration_seconds", route=MOVES,
                            method="POST").get("cardroom_http_request_duration_seconds", [])},
        "Moves per second by game": rate(scrapes, "cardroom_moves_total", "game"),
        "Event-store append latency, s": {
            "p50": quantile(0.5, scrapes, "cardroom_append_duration_seconds")["cardroom_append_duration_seconds"],
            "p99": quantile(0.99, scrapes, "cardroom_append_duration_seconds")["cardroom_append_duration_seconds"]},
        "Bot turns per second by kind": rate(scrapes, "cardroom_bot_turns_total", "kind", outcome="played"),
        "Bot answer time p95 (move to bot's move), s": quantile(0.95, scrapes, "cardroom_bot_turn_delay_seconds", "kind"),
        "RQ queue depth": gauge(scrapes, "cardroom_queue_jobs", "queue"),
        "Open connections": gauge(scrapes, "cardroom_open_connections", "kind"),
        "Clock timeouts per second": rate(scrapes, "cardroom_clock_timeouts_total"),
        "Clock timeout lateness p99, s": quantile(0.99, scrapes, "cardroom_clock_timeout_lateness_seconds"),
    }
    plt.style.use("dark_background")
    figure, axes = plt.subplots(5, 2, figsize=(14, 16))
    for axis, (title, lines) in zip(axes.flat, panels.items()):
        for label, points in sorted(lines.items()):
            if points:
                axis.plot([t - start for t, _ in points], [v for _, v in points], linewidth=2,
                          label=label.replace("cardroom_", ""))
        axis.set_title(title, loc="left", fontsize=11)
        axis.set_xlabel("seconds into the run", fontsize=8)
        axis.grid(alpha=0.25)
        axis.set_ylim(bottom=0)
        if lines:
            axis.legend(fontsize=7, loc="upper left", framealpha=0.3)
    figure.suptitle("cardroom: GET /metrics scraped during a run of bench/operations.py", fontsize=13)
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    figure.savefig(PICTURE, dpi=80, facecolor="#111217")
    return panels


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--every", type=float, default=5)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--bot-players", type=int, default=2)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--clocked", type=int, default=30)
    args = parser.parse_args()
    with embedded_redis() as redis_url, whole_service(redis_url) as base:
        stop, counter = threading.Event(), []
        watched = [idle_match(base, 1000)[0] for _ in range(args.clocked)]  # each times out its turns
        threads = [threading.Thread(target=play_two_seat_matches, args=(base, stop, counter), daemon=True)
                   for _ in range(args.clients)]
        threads += [threading.Thread(target=play_bots, args=(base, stop), daemon=True) for _ in range(args.bot_players)]
        threads += [threading.Thread(target=follow, args=(base, watched[i % len(watched)], stop), daemon=True)
                    for i in range(args.streams)]
        for thread in threads:
            thread.start()
        scrapes, scrape_ms = [], []
        began = time.monotonic()
        while time.monotonic() - began < args.seconds:
            started = time.perf_counter()
            scrapes.append((time.monotonic(), scrape(base)))
            scrape_ms.append((time.perf_counter() - started) * 1000)
            time.sleep(max(0.0, args.every - (time.perf_counter() - started)))
        stop.set()
        size = len(requests.get(f"{base}/metrics", timeout=10).content)
    panels = draw(scrapes)
    print(f"operations: {len(scrapes)} scrapes over {args.seconds:.0f} s; a scrape took {median(scrape_ms):.1f} ms "
          f"(median; the slowest {max(scrape_ms):.1f} ms) for {size} bytes; drawn into {PICTURE}")
    for title, lines in panels.items():
        figures = ", ".join(f"{label.replace('cardroom_', '')} {median([v for _, v in points]):.3g}"
                            for label, points in sorted(lines.items()) if points)
        print(f"  {title} (median over the run): {figures or 'none'}")


if __name__ == "__main__":
    main()
