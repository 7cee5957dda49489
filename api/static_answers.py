"""Answers that do not change while a process runs (the OpenAPI document, the Swagger UI's files, the rules pages, the
viewer's pages and files), built at their first request and from then on served from memory: their bytes, their
gzipped bytes and their ETag are computed once per process. Building the document or a rules page costs several
times what serving any answer does, and flask-compress leaves files alone (they are streamed), so they went
uncompressed (docs/reliability.md#reads).

A client whose copy is current (If-None-Match) gets 304. The gzipped answer's tag is the plain one's with
":gzip" appended, as flask-compress tags the API's compressed answers (api/etags.py)."""
import gzip
import hashlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from flask import Flask, Response, current_app, request
from flask.typing import ResponseReturnValue

from api.etags import CODINGS


@dataclass(frozen=True)
class Built:
    plain: bytes
    gzipped: bytes | None  # None: not worth compressing (small, or a type that is compressed already)
    etag: str
    mimetype: str


def serve(key: Hashable, build: Callable[[], ResponseReturnValue]) -> Response:
    """The answer built once under `key` in this app by `build` (a view's 200 answer), as this request asks for it.
    What `build` raises, or answers with another status, is not kept: only answers that exist are, so the keys
    stay those of the app's few documents and files."""
    answers: dict[Hashable, Built] = current_app.extensions.setdefault("cardroom.static_answers", {})
    if key not in answers:
        answer = current_app.make_response(build())
        if answer.status_code != 200:
            return answer
        answers[key] = built(current_app, answer)
    return respond(answers[key])


def built(app: Flask, answer: Response) -> Built:
    answer.direct_passthrough = False  # a file's answer: read it whole
    body = answer.get_data()
    worth_compressing = answer.mimetype in app.config["COMPRESS_MIMETYPES"] and \
        len(body) >= app.config["COMPRESS_MIN_SIZE"]
    # level 9 once, rather than flask-compress's level 1 on every request: the bundle of Swagger UI, 1.7 MB, goes to
    # 0.5 MB
    return Built(body, gzip.compress(body, compresslevel=9, mtime=0) if worth_compressing else None,
                 hashlib.sha256(body).hexdigest()[:32], answer.mimetype or "application/octet-stream")


def respond(answer: Built) -> Response:
    zipped = answer.gzipped is not None and request.accept_encodings["gzip"] > 0
    tag = f"{answer.etag}:{CODINGS[0]}" if zipped else answer.etag
    if any(known in request.if_none_match for known in (answer.etag, *(f"{answer.etag}:{c}" for c in CODINGS))):
        response = Response(status=304)
    else:
        response = Response(answer.gzipped if zipped else answer.plain, mimetype=answer.mimetype)
        if zipped:
            response.headers["Content-Encoding"] = CODINGS[0]
    response.set_etag(tag)
    response.vary.add("Accept-Encoding")
    return response
