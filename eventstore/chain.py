"""The hash chain over a match's events; pure, shared by the stores and the offline verifier.

A stored event is {version, type, data, time, nonce, prev, hash}:
    hash = SHA-256 hex of the canonical JSON of {version, type, data, time, nonce, prev}
    canonical JSON = keys sorted, no spaces (separators "," and ":"), UTF-8, non-ASCII kept as is
    prev = the previous event's hash; GENESIS for the first event
The nonce (random, per event) keeps a redacted event's hidden content from being guessed from its hash.
"""
import hashlib
import json
import secrets

GENESIS = "0" * 64
HASHED_FIELDS = ("version", "type", "data", "time", "nonce", "prev")
NONCE_BYTES = 16


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def event_hash(event: dict) -> str:
    return hashlib.sha256(canonical({k: event[k] for k in HASHED_FIELDS})).hexdigest()


def seal(events: list[dict], version: int, prev: str, time: str) -> list[dict]:
    """The events as stored after `version` whose last hash is `prev`: numbered, timed and chained."""
    sealed, nonces = [], secrets.token_hex(NONCE_BYTES * len(events))  # one call to the OS's randomness
    for offset, event in enumerate(events, start=1):
        nonce = nonces[2 * NONCE_BYTES * (offset - 1):2 * NONCE_BYTES * offset]
        stored = {"version": version + offset, "type": event["type"], "data": event["data"], "time": time,
                  "nonce": nonce, "prev": prev}
        stored["hash"] = prev = event_hash(stored)
        sealed.append(stored)
    return sealed


def first_break(events: list[dict]) -> tuple[int, str] | None:
    """The first event whose number, link or hash is wrong, with why; None when the chain holds."""
    prev = GENESIS
    for position, event in enumerate(events, start=1):
        if event.get("version") != position:
            return position, f"expected version {position}, found {event.get('version')}"
        if event.get("prev") != prev:
            return position, "its prev does not match the hash of the event before it"
        if event.get("hash") != event_hash(event):
            return position, "its hash does not match its content"
        prev = event["hash"]
    return None
