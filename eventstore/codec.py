"""JSON as the stores write and read events, snapshots and archives: orjson, which encodes and decodes these
several times faster than the json module (docs/performance.md), and gives the same values back. Not the
hash chain's canonical form (eventstore/chain.py): that is specified byte for byte and stays on json.

What orjson refuses to encode, the json module writes: an integer beyond 64 bits, or text that is not
Unicode (the API refuses both in requests, so only a caller inside the server could hand one over).
Keys that are not strings become strings, as the json module makes them."""
import json

import orjson


def dumps(value) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(value).encode()


loads = orjson.loads
