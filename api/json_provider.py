"""JSON answers encoded by orjson: the same JSON as Flask's own provider (keys sorted, compact, a newline at
the end), several times faster to produce (bench/json_answers.py).

Only answers: request bodies keep the strict parser of api/limits.py. What orjson cannot encode as Flask
would is left to Flask's provider: dates and dataclasses go through its `default` (orjson's own date format
differs), and an integer beyond 64 bits, which orjson refuses, falls back to json.dumps for that answer.
Non-ASCII text is sent as UTF-8 rather than as \\u escapes: the same JSON value.
"""
import orjson
from flask import Flask
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response

OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
           | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS)


class OrjsonProvider(DefaultJSONProvider):
    # flask types its provider's app as the sansio App, whose response_class takes no body; this one serves a Flask
    _app: Flask

    def response(self, *args, **kwargs) -> Response:
        if self._app.debug or self.compact is False:
            return super().response(*args, **kwargs)  # indented, for people reading it
        obj = self._prepare_response_obj(args, kwargs)
        return self._app.response_class(self._encode(obj), mimetype=self.mimetype)

    def dumps(self, obj, **kwargs) -> str:
        if kwargs:
            return super().dumps(obj, **kwargs)  # options orjson does not have (indent, separators, ...)
        return self._encode(obj)[:-1].decode()

    def _encode(self, obj) -> bytes:
        try:
            return orjson.dumps(obj, default=self.default, option=OPTIONS)
        except orjson.JSONEncodeError:
            return (super().dumps(obj, separators=(",", ":")) + "\n").encode()
