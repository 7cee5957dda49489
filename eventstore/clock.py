from datetime import datetime, timezone


def utc_now() -> str:
    return utc_at(datetime.now(timezone.utc).timestamp())


def utc_at(seconds: float) -> str:
    """A time (seconds since the epoch) as the store writes it: ISO 8601 UTC to the millisecond."""
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
