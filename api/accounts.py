"""Accounts: register, read yourself, rotate your key, list your matches (send 'Authorization: Bearer <key>')."""
from flask.views import MethodView

from api.context import accounts, credential, service, vary_on_authorization
from api.etags import Blueprint
from api.schemas.accounts import (UNSTATED_ACCOUNT_RULES, Account, AccountWithKey, Challenges, CreateAccount,
                                  UpdateAccount)
from api.schemas.matches import AccountMatchPage, AccountMatchQuery
from api.schemas.new_match import unstated
from api.schemas.ratings import AccountPage
from api.ratings import ladders
from service.accounts import public

account_routes = Blueprint("accounts", __name__, url_prefix="/v1/accounts",
                           description="Accounts of players and bots. The API key is shown once, when the account "
                                       "is created or its key rotated; send it as 'Authorization: Bearer KEY'. It "
                                       "acts for every seat the account holds.")
ACCOUNT_KEY: list[dict[str, list[str]]] = [{"accountKey": []}]
RECENT_MATCHES = 10  # on an account's public page


account_routes.after_request(vary_on_authorization)


@account_routes.route("")
class Accounts(MethodView):
    @account_routes.arguments(CreateAccount)
    @account_routes.response(201, AccountWithKey)
    @account_routes.doc(operationId="createAccount")
    def post(self, body):
        """Create an account; 409 name_taken if the name is taken in any case. Keep the api_key: it is shown once."""
        return accounts().register(body["name"], body["kind"])


@account_routes.route("/me")
class Me(MethodView):
    @account_routes.response(200, Account)
    @account_routes.doc(security=ACCOUNT_KEY, operationId="getMe")
    def get(self):
        """The account whose key you send."""
        return accounts().me(credential())

    @account_routes.arguments(UpdateAccount)
    @account_routes.response(200, Account)
    @account_routes.doc(security=ACCOUNT_KEY, operationId="updateMe",
                        description=unstated(UNSTATED_ACCOUNT_RULES))
    def patch(self, body):
        """Set who may invite your account (`challenges`) and how many matches it is seated in unasked at once.

        `auto_accept_max` bounds the matches others seat it in when `challenges` is auto; past it they invite it.
        What is left out is left as it is (docs/challenges.md)."""
        if "challenges" in body:
            accounts().set_challenges(credential(), body["challenges"])
        if "auto_accept_max" in body:
            accounts().set_auto_accept_max(credential(), body["auto_accept_max"])
        return accounts().me(credential())


@account_routes.route("/me/keys")
class Keys(MethodView):
    @account_routes.response(201, AccountWithKey)
    @account_routes.doc(security=ACCOUNT_KEY, operationId="rotateKey")
    def post(self):
        """A new API key; the key you sent stops working at once."""
        return accounts().rotate_key(credential())


@account_routes.route("/me/matches")
class MyMatches(MethodView):
    @account_routes.arguments(AccountMatchQuery, location="query")
    @account_routes.response(200, AccountMatchPage)
    @account_routes.doc(security=ACCOUNT_KEY, operationId="listMyMatches")
    def get(self, query):
        """Your account's matches, newest first, each with your seat; filter by status, page with next_cursor."""
        return service().account_matches(credential(), query.get("status"), query.get("cursor"), query["limit"])


@account_routes.route("/me/challenges")
class MyChallenges(MethodView):
    @account_routes.response(200, Challenges)
    @account_routes.doc(security=ACCOUNT_KEY, operationId="listMyChallenges")
    def get(self):
        """The invitations awaiting your answer, oldest first: accept or decline each at
        POST /v1/matches/<match>/accept or .../decline (the feed announces them as `challenge`)."""
        return service().invitations(credential())


@account_routes.route("/<reference>")
class AccountDetail(MethodView):
    @account_routes.response(200, AccountPage)
    @account_routes.doc(operationId="getAccount")
    def get(self, reference):
        """An account's public page, by id or name: its ratings on each ladder (with their history) and its
        last matches; 404 account_not_found."""
        account = public(accounts().resolve(reference))
        rated = ladders()
        return {**account, "ratings": rated.ratings_of(account["id"]) if rated else [],
                "recent_matches": service().matches_of(account["id"], None, None, RECENT_MATCHES)["matches"]}
