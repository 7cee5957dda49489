"""The transparency log's schemas: the signed tree head and the two proofs (docs/fairness.md, "Transparency")."""
from marshmallow import Schema, fields, validate

from service.transparency import HEAD_FORMAT

HEX_HASH = {"description": "a SHA-256 hash, 64 hex digits"}
SIZE = validate.Range(min=0, max=2**53)


class TreeHead(Schema):
    format = fields.String(required=True, metadata={"enum": [HEAD_FORMAT]})
    tree_size = fields.Integer(required=True, metadata={"description": "the finished matches the tree holds"})
    root_hash = fields.String(required=True, metadata={"description": "the tree's root, RFC 6962's MTH, in hex"})
    timestamp = fields.Integer(required=True, metadata={"description": "when it was signed, ms since the epoch"})
    public_key = fields.String(required=True, metadata={"description": "the server's Ed25519 public key (32 bytes, "
                                                                       "hex): GET /v1/transparency/key"})
    signature = fields.String(required=True, metadata={
        "description": "Ed25519 over the canonical JSON (keys sorted, no spaces) of format, tree_size, root_hash and "
                       "timestamp, in hex"})


class PublicKey(Schema):
    public_key = fields.String(required=True, metadata={"description": "the server's Ed25519 public key, hex"})


class InclusionQuery(Schema):
    match = fields.String(required=True, validate=validate.Length(min=1, max=200),
                          metadata={"description": "the finished match's id"})
    tree_size = fields.Integer(validate=validate.Range(min=1, max=2**53), metadata={
        "description": "the tree to prove it in, e.g. a saved head's tree_size (default: the tree now)"})


class InclusionProof(Schema):
    match = fields.String(required=True)
    leaf_index = fields.Integer(required=True, metadata={"description": "its leaf's place, from 0"})
    tree_size = fields.Integer(required=True)
    leaf_hash = fields.String(required=True, metadata={
        "description": "SHA-256(0x00 || canonical JSON of {head, match}), head the hash of the match's last event"})
    audit_path = fields.List(fields.String(metadata=HEX_HASH), required=True,
                             metadata={"description": "RFC 6962's PATH, from the leaf up"})


class ConsistencyQuery(Schema):
    first = fields.Integer(required=True, validate=SIZE, metadata={"description": "the older tree's size"})
    second = fields.Integer(validate=SIZE, metadata={"description": "the newer tree's size (default: the tree now)"})


class ConsistencyProof(Schema):
    first = fields.Integer(required=True)
    second = fields.Integer(required=True)
    proof = fields.List(fields.String(metadata=HEX_HASH), required=True,
                        metadata={"description": "RFC 6962's PROOF(first, D[second])"})
