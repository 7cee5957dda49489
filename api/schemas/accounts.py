"""The schemas of /v1/accounts: an account, its challenge policy and the invitations it is sent."""
from marshmallow import Schema, ValidationError, fields, validate

from service.accounts import ANYONE, AUTO, DEFAULT_AUTO_ACCEPT_MAX, KINDS, MAX_CHALLENGERS, NAME_PATTERN, NOBODY


class CreateAccount(Schema):
    name = fields.String(required=True, validate=validate.Regexp(NAME_PATTERN), metadata={
        "description": "2 to 30 letters, digits, '_', '-' or '.', starting with a letter or digit; unique in any case"})
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))


class ChallengePolicy(fields.Field):
    """One of NOBODY, ANYONE, AUTO, or a list of the accounts (ids or names) that may invite."""
    CHOICES = (NOBODY, ANYONE, AUTO)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and value in self.CHOICES:
            return value
        if isinstance(value, list) and len(value) <= MAX_CHALLENGERS and all(
                isinstance(v, str) and 1 <= len(v) <= 40 for v in value):
            return value
        raise ValidationError(f"one of {', '.join(self.CHOICES)}, or a list of at most {MAX_CHALLENGERS} account "
                              "ids or names")


CHALLENGES_DOC = {"oneOf": [{"type": "string", "enum": list(ChallengePolicy.CHOICES)},
                            {"type": "array", "maxItems": MAX_CHALLENGERS,
                             "items": {"type": "string", "minLength": 1, "maxLength": 40}}],
                  "description": "who may seat you by naming your account: nobody; anyone (you accept or decline "
                                 "each invitation); auto (anyone, accepted at once); or a list of accounts (whose "
                                 "invitations you accept or decline). Default: anyone (docs/challenges.md)"}


# the rules UpdateAccount's schema cannot state (they ask another resource or a setting), by their 422 reasons
UNSTATED_ACCOUNT_RULES = {"account_not_found": "a listed challenger that is no account",
                          "invalid_auto_accept_max": "an auto_accept_max above the server's MAX_OPEN_MATCHES"}
AUTO_ACCEPT_DOC = {"description": "with challenges auto: how many unfinished matches you are seated in unasked at "
                                  "once; past it, invitations wait for your answer and do not count against your open "
                                  f"matches. 0 to MAX_OPEN_MATCHES; default {DEFAULT_AUTO_ACCEPT_MAX} "
                                  "(docs/challenges.md)"}


class Account(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": list(KINDS)})
    created_at = fields.String(required=True)
    challenges = fields.Raw(required=True, metadata=CHALLENGES_DOC)
    auto_accept_max = fields.Integer(required=True, metadata=AUTO_ACCEPT_DOC)


class UpdateAccount(Schema):
    challenges = ChallengePolicy(metadata=CHALLENGES_DOC)
    auto_accept_max = fields.Integer(strict=True, validate=validate.Range(min=0), metadata=AUTO_ACCEPT_DOC)


class Inviter(Schema):
    account = fields.String(required=True)
    name = fields.String(required=True)


class Challenge(Schema):
    match = fields.String(metadata={"description": "the match you are invited to (accept at POST "
                                                   "/v1/matches/<match>/accept)"})
    seat = fields.Integer(metadata={"description": "your seat in that match"})
    tournament = fields.String(metadata={"description": "or the tournament you are invited to enter (accept at "
                                                        "POST /v1/tournaments/<tournament>/accept)"})
    game = fields.String(required=True)
    by = fields.Nested(Inviter, required=True, metadata={"description": "the account that invites you"})
    expires_at = fields.String(required=True, metadata={"description": "when the match is canceled unless you "
                                                                       "accept (UTC)"})
    created_at = fields.String(required=True)


class Challenges(Schema):
    challenges = fields.List(fields.Nested(Challenge), required=True)


class AccountWithKey(Account):
    api_key = fields.String(required=True, metadata={
        "description": "send it as 'Authorization: Bearer <api_key>'; shown only in this answer"})
