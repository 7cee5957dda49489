"""Answers encoded by orjson are the JSON Flask's own provider would send."""
import datetime
import json

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from api.json_provider import OrjsonProvider

VALUE = {"b": [1, 2.5, None, True], "a": {"z": "é ☃ 😀", "y": {}}, "3": {2: "int keys", 1: "as strings"}}


def answers(value):
    """(orjson's answer, Flask's answer) to the same value, as the bytes sent."""
    app = Flask("json")
    sent = []
    for provider in (OrjsonProvider(app), DefaultJSONProvider(app)):
        with app.app_context():
            sent.append(provider.response(value).get_data())
    return sent


def test_an_answer_is_the_same_json_with_sorted_keys_and_a_final_newline():
    ours, flasks = answers(VALUE)
    assert json.loads(ours) == json.loads(flasks)
    assert ours.endswith(b"\n") and ours.index(b'"3"') < ours.index(b'"a"') < ours.index(b'"b"')


def test_dates_are_written_as_flask_writes_them():
    ours, flasks = answers({"when": datetime.datetime(2026, 1, 2, 3, 4, 5), "day": datetime.date(2026, 1, 2)})
    assert json.loads(ours) == json.loads(flasks)


def test_an_integer_beyond_64_bits_falls_back_to_pythons_encoder():
    ours, flasks = answers({"big": 2**70})
    assert json.loads(ours) == json.loads(flasks) == {"big": 2**70}


def test_dumps_keeps_flasks_keyword_options():
    app = Flask("json")
    assert OrjsonProvider(app).dumps({"b": 1, "a": 2}, indent=1) == '{\n "a": 2,\n "b": 1\n}'
    assert OrjsonProvider(app).dumps({"b": 1, "a": 2}) == '{"a":2,"b":1}'
