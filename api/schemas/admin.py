"""The schemas of /v1/admin: an operator's action, an account as the operator sees it, the bot turns awaited."""
from marshmallow import Schema, fields, validate


class AdminAction(Schema):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                           metadata={"description": "why: logged with the action (and in the log of a match aborted)"})
    by = fields.String(load_default="admin", validate=validate.Length(min=1, max=100),
                       metadata={"description": "who asks, for the log"})


class AdminAccount(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True)
    created_at = fields.String(required=True)
    challenges = fields.Raw(required=True)
    disabled = fields.String(allow_none=True, required=True, metadata={"description": "the reason, or null"})
    withdrawn_from = fields.List(fields.String(), required=True, metadata={
        "description": "the matches the account was taken out of (resigned, left or declined)"})
    seeks_canceled = fields.List(fields.String(), required=True, metadata={
        "description": "the account's open seeks, canceled (reason account_disabled)"})


class BotTurn(Schema):
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)


class BotTurns(Schema):
    bot_turns = fields.List(fields.Nested(BotTurn), required=True)
