"""The transparency log of finished matches: its signed tree head and the proofs (docs/fairness.md, "Transparency")."""
from flask import current_app
from flask.views import MethodView

from api.etags import Blueprint
from api.schemas.transparency import (ConsistencyProof, ConsistencyQuery, InclusionProof, InclusionQuery, PublicKey,
                                      TreeHead)
from service.transparency import TransparencyService

transparency_routes = Blueprint("transparency", __name__, url_prefix="/v1/transparency",
                                description="Every finished match's head hash in an append-only Merkle tree (RFC "
                                            "6962) whose head the server signs: save a head, and later prove that "
                                            "nothing in it was changed or dropped (cardroom verify).")


def transparency() -> TransparencyService:
    return current_app.extensions["cardroom.transparency"]


@transparency_routes.route("/head")
class Head(MethodView):
    @transparency_routes.response(200, TreeHead)
    @transparency_routes.doc(operationId="getTreeHead")
    def get(self):
        """The signed tree head now; save it to check later heads against it. 503 transparency_unsigned when the
        server has no TRANSPARENCY_KEY."""
        return transparency().head()


@transparency_routes.route("/key")
class Key(MethodView):
    @transparency_routes.response(200, PublicKey)
    @transparency_routes.doc(operationId="getTransparencyKey")
    def get(self):
        """The public key that signs the tree heads (503 transparency_unsigned without one)."""
        return {"public_key": transparency().public_key()}


@transparency_routes.route("/proof/inclusion")
class Inclusion(MethodView):
    @transparency_routes.arguments(InclusionQuery, location="query")
    @transparency_routes.response(200, InclusionProof)
    @transparency_routes.doc(operationId="getInclusionProof")
    def get(self, query):
        """The audit path of a finished match's leaf in the tree of `tree_size` leaves. 404 match_not_in_log for a
        match unknown or not finished; 422 tree_size_out_of_range for a tree the log does not have or that
        precedes the match."""
        return transparency().inclusion(query["match"], query.get("tree_size"))


@transparency_routes.route("/proof/consistency")
class Consistency(MethodView):
    @transparency_routes.arguments(ConsistencyQuery, location="query")
    @transparency_routes.response(200, ConsistencyProof)
    @transparency_routes.doc(operationId="getConsistencyProof")
    def get(self, query):
        """The proof that the tree of `first` leaves is the start of the tree of `second`: that nothing of a head
        saved at `first` was changed or dropped since. 422 tree_size_out_of_range unless 0 <= first <= second <=
        the tree's size now."""
        return transparency().consistency(query["first"], query.get("second"))
