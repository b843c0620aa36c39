"""JSON as the API reads it (api.parsers): depth read without recursion, lone surrogates
refused, everything else as ``json.loads``."""

import json

import pytest
from django.utils import translation

from api import parsers


@pytest.fixture(autouse=True)
def _english():
    """The messages are matched in English, whatever an earlier test left active."""
    with translation.override("en"):
        yield


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('"[[[[["', 0),  # brackets inside a string do not nest
        ('["\\"[[[", {}]', 2),  # nor after an escaped quote
        ('["\\\\", [[]]]', 3),  # an escaped backslash ends before the quote
        ("[" * 5000, 5000),
    ],
)
def test_depth_is_read_from_the_text(text, depth):
    assert parsers.depth(text) == depth


def test_nesting_past_the_limit_is_refused_before_parsing():
    with pytest.raises(parsers.BadJson, match="nested deeper than 32"):
        parsers.loads("[" * 33 + "]" * 33)
    assert parsers.loads("[" * 32 + "]" * 32) == json.loads("[" * 32 + "]" * 32)


@pytest.mark.parametrize(
    "text", ['"\\ud800"', '{"\\udfff": 1}', '["ok", {"x": "a\\uDBFFb"}]', '"\\ude00\\ud83d"']
)
def test_a_lone_surrogate_is_refused(text):
    with pytest.raises(parsers.BadJson, match="lone surrogate"):
        parsers.loads(text)


def test_a_surrogate_pair_is_text():
    assert parsers.loads('{"\\ud83d\\ude00": "\\ud83d\\ude00"}') == {"\U0001f600": "\U0001f600"}


@pytest.mark.parametrize("text", ["", "[", "{'a': 1}", "NaN", "[Infinity]", "01"])
def test_malformed_json_is_refused(text):
    with pytest.raises(parsers.BadJson, match="not valid JSON"):
        parsers.loads(text)


def test_the_renderer_escapes_what_utf8_cannot_carry():
    rendered = parsers.JSONRenderer().render({"\ud800": "caf\u00e9"})
    assert rendered == b'{"\\ud800":"caf\\u00e9"}'
    assert parsers.JSONRenderer().render({"k": "caf\u00e9"}) == '{"k":"café"}'.encode()
