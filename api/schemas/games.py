"""Each game's moves and view as OpenAPI components, built from the game's INFO (domain/games/*.py), so
that a generated client has one typed class per action and per view.

    <Game><Action>  one action's move, e.g. MantisSteal = {"action": "steal", "target": 1}
    <Game>Move      one of the game's actions, told apart by `action` (a discriminator)
    <Game>View      what a seat sees of the game: every field typed
    <Game><Name>    a shape the view uses in several places, named in the domain: MantisCard, FlipoutColour
<Game> is the game's id as an identifier: "9stax" -> "NineStax", "mantis" -> "Mantis".
"""
from domain.games import GAMES
from domain.protocol import GameInfo

DIGITS = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")


def schema_name(game_id: str) -> str:
    """A game id as the start of a valid identifier: leading digits spelled out, each word capitalised."""
    words = game_id.replace("-", "_").split("_")
    digits = len(words[0]) - len(words[0].lstrip("0123456789"))
    words = [DIGITS[int(d)] for d in words[0][:digits]] + [words[0][digits:]] + words[1:]
    return "".join(word.capitalize() for word in words if word)


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def each_game(kind: str) -> list[dict]:
    """References to every game's `kind` component ("Move" or "View")."""
    return [ref(f"{schema_name(game_id)}{kind}") for game_id in GAMES]


def components(info: GameInfo) -> dict[str, dict]:
    """The game's components by name: one per action, the game's Move and its View."""
    game = schema_name(info.id)
    actions = {action: f"{game}{schema_name(action)}" for action in info.actions}
    found = {actions[action]: action_schema(action, doc, fields) for action, (doc, fields) in info.actions.items()}
    found[f"{game}Move"] = {
        "description": f"a move in {info.name}: one of its actions (GET /v1/games/{info.id})",
        "oneOf": [ref(name) for name in actions.values()],
        "discriminator": {"propertyName": "action", "mapping": {a: ref(n)["$ref"] for a, n in actions.items()}},
    }
    properties = {name: _described(_hoisted(field.shape, game, found), field.description)
                  for name, field in info.view.items()}
    found[f"{game}View"] = {
        "type": "object", "description": f"what a seat sees of a {info.name} match; rules: /docs/games/{info.id}",
        "properties": properties, "required": list(info.view), "additionalProperties": False,
    }
    return found


def _hoisted(shape, game: str, found: dict):
    """The shape with every named part (a shape with a title) moved to the component <Game><title> and
    referred to; a nullable use refers to it as `oneOf: [ref], nullable: true`."""
    if isinstance(shape, list):
        return [_hoisted(item, game, found) for item in shape]
    if not isinstance(shape, dict):
        return shape
    inner = {key: _hoisted(value, game, found) for key, value in shape.items()}
    if "type" not in inner or not isinstance(inner.get("title"), str):
        return inner  # not a named shape (a `properties` map has no "type" of its own)
    name = game + inner.pop("title")
    nullable = inner.pop("nullable", False)
    found[name] = inner
    return {"oneOf": [ref(name)], "nullable": True} if nullable else ref(name)


def _described(schema: dict, description: str) -> dict:
    # OpenAPI 3.0 ignores the siblings of a $ref, so a described reference is wrapped in allOf.
    if "$ref" in schema:
        return {"allOf": [schema], "description": description}
    return {**schema, "description": description}


def action_schema(action: str, doc: str, fields: dict) -> dict:
    properties = {"action": {"type": "string", "enum": [action]}}
    for name, field in fields.items():
        properties[name] = {"type": field.type, "description": field.description,
                            **({"enum": list(field.choices)} if field.choices else {})}
    return {"type": "object", "description": doc, "properties": properties,
            "required": ["action", *[name for name, field in fields.items() if field.required]],
            "additionalProperties": False}
