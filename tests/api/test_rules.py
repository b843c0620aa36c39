"""GET /rules: every ruleset with its parameters and its description, and the default."""

import pytest

from games import engine

LANGUAGES = ("en", "it", "es", "pt")


def test_rules_lists_every_ruleset_and_marks_the_default(api, db):
    response = api.get("/api/v1/rules")

    assert response.status_code == 200
    body = response.json()
    assert body["default"] == "classic"
    assert [rules["name"] for rules in body["results"]] == list(engine.RULESETS)
    classic = body["results"][0]
    described = {key: classic[key] for key in engine.RULESETS["classic"].describe()}
    assert described == engine.RULESETS["classic"].describe()
    assert (classic["columns"], classic["reserve"], classic["undo_depth"]) == (7, 3, 100)
    double = next(rules for rules in body["results"] if rules["name"] == "double")
    assert (double["decks"], double["sequences_to_win"]) == (2, 8)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_ruleset_is_described_in_every_language(api, db, language):
    body = api.in_language(language).get("/api/v1/rules").json()

    for rules in body["results"]:
        descriptions = rules["descriptions"]
        assert set(descriptions) == set(LANGUAGES), rules["name"]
        # The request's language, and a translation in each other one.
        assert rules["description"] == descriptions[language]
        assert len(set(descriptions.values())) == len(LANGUAGES), descriptions
        assert all(text.endswith(".") and len(text) > 30 for text in descriptions.values())
    texts = [rules["description"] for rules in body["results"]]
    assert len(set(texts)) == len(engine.RULESETS)
