"""Validating JSON against the published OpenAPI document (3.0: `nullable` is not JSON Schema)."""
import jsonschema_rs


def as_json_schema(schema):
    """OpenAPI 3.0 schema objects as JSON Schema: `nullable: true` becomes 'this, or null'."""
    if isinstance(schema, list):
        return [as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: as_json_schema(value) for key, value in schema.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if schema.get("nullable") is True else converted


def validator(document: dict, schema: dict):
    """A validator for `schema` (which may refer to #/components/schemas/...) within the OpenAPI document."""
    return jsonschema_rs.validator_for({**as_json_schema(schema),
                                        "components": {"schemas": as_json_schema(document["components"]["schemas"])}})


def component(document: dict, name: str):
    return validator(document, {"$ref": f"#/components/schemas/{name}"})
