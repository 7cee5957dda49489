"""Conditional reads (ETag / If-None-Match -> 304) for a match's resources.

A read of a match depends only on where its log ends (version and head, the hash of its last event) and on
who reads it (the seat of the caller's token): the service gives those from the match's meta in one cheap
call (`MatchService.tag`), flask-smorest hashes them into the ETag, and a client whose copy is current gets
304 before the log is loaded or folded. The tag is read before the answer is built: if a move lands in
between, the answer is newer than its tag, and that tag can never match again (versions only grow), so the
race costs one extra 200, never a stale 304. Answers vary on Authorization (the seat) as well.
GET of a match itself, the most frequent read, takes its tag and its answer from one load instead
(`MatchService.tagged_get`): one Redis call, not two; for a match the process remembers (service/repository.py)
that load carries only the meta and no event to fold, and a 304 still builds no answer.
"""
from flask import Response, request
from flask_smorest.exceptions import NotModified as SmorestNotModified

from api.limits import StrictBlueprint

# The content codings api/app.py compresses with: flask-compress tags a compressed answer "<tag>:gzip".
CODINGS = ("gzip",)


class NotModified(SmorestNotModified):
    """304, carrying the tag the client's copy has."""

    def __init__(self, etag: str):
        super().__init__()
        self.etag = etag

    def get_response(self, environ=None, scope=None) -> Response:
        response = Response(status=304)
        response.set_etag(self.etag)
        return response


class Blueprint(StrictBlueprint):
    """The strict-JSON Blueprint whose If-None-Match check also knows the tags of compressed answers: a client
    sends back the tag it was given, and most clients accept gzip."""

    def _check_not_modified(self, etag):
        if request.method not in self.METHODS_CHECKING_NOT_MODIFIED:
            return
        for tag in (etag, *(f"{etag}:{coding}" for coding in CODINGS)):
            if tag in request.if_none_match:
                raise NotModified(tag)
