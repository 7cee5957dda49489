"""What the API accepts before a view runs, so that bad input is a 4xx in the one error shape and never a 500:
URLs and headers up to a size, request bodies only as JSON, and one strict JSON parser for every body.

Python's own json module accepts things the rest of the server cannot take, or fails on them with an
exception that would be a 500: NaN and Infinity (not JSON, and the hash chain would write them back out),
floats beyond 64 bits (read as infinity), integers over 4,300 digits (a ValueError), nesting deep enough to
exhaust the stack (a RecursionError), and escaped lone surrogates ("\\ud800") that no UTF-8 encoder (the
hash chain, Redis) can write. Each is refused here with its own reason.
"""
import json
import math
import re
from functools import wraps

import flask_smorest
from flask import current_app, request
from flask_smorest import abort
from marshmallow import RAISE
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.routing import UnicodeConverter

# gunicorn answers longer request lines and header fields itself (bootstrap/gunicorn_conf.py sets its limits
# above these), in plain text; below them the server answers 414/431 in its error shape.
MAX_URL_BYTES = 4096        # the path and query string of a request
MAX_HEADER_BYTES = 8192     # all header names and values of a request together
# Every path parameter (ids, names, games) is far shorter. The bound is in the document (maxLength), so that every
# request it allows fits MAX_URL_BYTES: two parameters of 4-byte characters are 800 bytes.
MAX_PATH_PARAMETER_CHARS = 100
MAX_JSON_DEPTH = 32         # arrays/objects inside each other; the deepest valid request needs 4
MAX_INTEGER_DIGITS = 100    # the largest valid number has 16 digits
LONGEST_INTEGER = 10**MAX_INTEGER_DIGITS
# Strictly decoded UTF-8 holds no surrogates, so only an escape can make one; most bodies have none and
# skip the check of every string.
ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


class PathParameter(UnicodeConverter):
    """Every route's default converter: a path segment of 1 to MAX_PATH_PARAMETER_CHARS characters. A longer one
    matches no route (404); without the bound the document would allow requests the server refuses with 414."""

    def __init__(self, url_map, minlength: int = 1, maxlength: int = MAX_PATH_PARAMETER_CHARS,
                 length: int | None = None):
        super().__init__(url_map, minlength, maxlength, length)


def refuse_oversized_request():
    """Flask before_request hook: a URL or headers beyond the documented limits get 414/431."""
    if len(request.full_path.encode()) > MAX_URL_BYTES:
        abort(414, reason="uri_too_long", message=f"the path and query are limited to {MAX_URL_BYTES} bytes")
    if sum(len(name) + len(value) for name, value in request.headers.items()) > MAX_HEADER_BYTES:
        abort(431, reason="headers_too_large",
              message=f"the request's headers are limited to {MAX_HEADER_BYTES} bytes together")


def loads(body: bytes):
    """The one JSON parser for request bodies: RFC 8259 JSON within the limits above, or a 400 saying why."""
    try:
        value = DECODER.decode(body.decode("utf-8"))
    except UnicodeDecodeError as error:
        abort(400, reason="invalid_json", message=f"the body is not UTF-8 (byte {error.start})")
    except json.JSONDecodeError as error:
        abort(400, reason="invalid_json",
              message=f"the body is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})")
    except RecursionError:
        _too_deep()
    except ValueError:  # Python's own limit on the digits of an integer (4,300), far beyond ours
        _too_long()
    _check(value, may_hold_surrogates=ESCAPED_SURROGATE.search(body) is not None)
    return value


def _refuse_constant(name: str):
    abort(400, reason="invalid_json", message=f"{name} is not a JSON number")


DECODER = json.JSONDecoder(parse_constant=_refuse_constant)  # built once: json.loads builds one per call with options


class StrictParser(FlaskParser):
    """webargs' Flask parser with bodies read by `loads` and anything but JSON refused with 415."""

    # a query parameter the operation does not take is refused (422), not dropped: a misspelt one would
    # otherwise be answered as if it were not there
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": RAISE}

    def _raw_load_json(self, req):
        if "chunked" in req.headers.get("Transfer-Encoding", "") and not req.environ.get("wsgi.input_terminated"):
            # werkzeug would read such a body as empty: refuse it rather than drop it (gunicorn sets the flag)
            abort(411, reason="length_required",
                  message="this server cannot read chunked bodies; send Content-Length")
        body = _read_body(req)
        if not is_json_request(req):
            if req.mimetype or body:
                abort(415, reason="unsupported_media_type",
                      message="send the body as JSON with 'Content-Type: application/json'")
            return core.missing
        return loads(body) if body else core.missing


def _read_body(req) -> bytes:
    """The body; 413 past MAX_CONTENT_LENGTH with or without Content-Length. werkzeug checks a Content-Length
    but stops reading a chunked body at the limit without a word, so a body that fills the limit is probed:
    reading on at the limit raises RequestEntityTooLarge (so a chunked body of exactly the limit is refused)."""
    body = req.get_data(cache=True)
    if req.content_length is None and req.max_content_length is not None and len(body) >= req.max_content_length:
        req.stream.read(1)
    return body


class StrictBlueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint whose @arguments read JSON bodies through StrictParser."""

    ARGUMENTS_PARSER = StrictParser()

    def response(self, status_code, schema=None, *, dump: bool = True, **kwargs):
        """`dump=False`: the view's answer is already the documented shape, made of JSON types, and is sent as
        it is; the schema only documents it (schemathesis checks answers against it, tests/unit/test_api_fuzz.py).
        For the hottest answers, whose dump only copied them (docs/performance.md)."""
        documented = super().response(status_code, schema, **kwargs)
        if dump:
            return documented

        def decorator(view):
            @wraps(view)
            def as_is(*args, **kwargs):
                answer = current_app.json.response(view(*args, **kwargs))
                answer.status_code = status_code
                return answer
            return documented(as_is)
        return decorator

    def arguments(self, schema, *args, **kwargs):
        """One schema object per route: given a class, webargs builds (deep-copies) a new one per request, a
        large share of a move's CPU for nothing (docs/performance.md)."""
        return super().arguments(schema() if isinstance(schema, type) else schema, *args, **kwargs)


def _check(value, may_hold_surrogates: bool):
    """Depth, numbers and (if the body escapes a surrogate at all) strings, in one walk without recursion."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                _too_deep()
            if isinstance(item, dict):
                pending.extend((key, depth) for key in item)
            pending.extend((inner, depth + 1) for inner in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, str):
            if may_hold_surrogates:
                _check_text(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and abs(item) >= LONGEST_INTEGER:
            _too_long()
        elif isinstance(item, float) and not math.isfinite(item):
            abort(400, reason="number_too_large", message="a number in the body is too large for a 64-bit float")


def _check_text(text: str):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        abort(400, reason="invalid_text", message=f"a string in the body holds a lone surrogate "
                                                  f"(\\u{ord(text[error.start]):04x}), which is not Unicode text")


def _too_long():
    abort(400, reason="number_too_long", message=f"an integer in the body has more than {MAX_INTEGER_DIGITS} digits")


def _too_deep():
    abort(400, reason="json_too_deep",
          message=f"the body nests arrays and objects more than {MAX_JSON_DEPTH} deep")
