"""The schemas of the catalog (/v1/games, /v1/bots) and of the health checks (/health, /live, /ready)."""
from marshmallow import Schema, fields


class Option(Schema):
    name = fields.String()
    type = fields.String()
    default = fields.Raw()
    description = fields.String()
    choices = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()


class Game(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    summary = fields.String(required=True)
    players = fields.Dict(required=True, keys=fields.String(), values=fields.Integer())
    options = fields.List(fields.Nested(Option), required=True)
    actions = fields.Dict(required=True, metadata={"description": "action -> {description, fields}"})
    rules = fields.String(required=True, metadata={"description": "the rules page, as the engine plays them"})
    rules_version = fields.Integer(required=True, metadata={
        "description": "the version of the rules new matches are played by, logged in their match_created "
                       "(docs/fairness.md, Rules versions)"})


class Games(Schema):
    games = fields.List(fields.Nested(Game), required=True)


class Bot(Schema):
    id = fields.String(required=True)
    description = fields.String(required=True)
    options = fields.List(fields.Nested(Option), required=True)


class Bots(Schema):
    bots = fields.List(fields.Nested(Bot), required=True)


class Health(Schema):
    status = fields.String(required=True)
    redis = fields.String(required=True)


class Live(Schema):
    status = fields.String(required=True, metadata={"description": "live"})


READINESS_CHECKS = ("each check by name (redis, bot_workers, scheduler): ok, or what fails; after a check finds "
                    "Redis unreachable the later ones are not run")


class Ready(Schema):
    status = fields.String(required=True, metadata={"description": "ready"})
    checks = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                         metadata={"description": READINESS_CHECKS})
