"""GET /rules: every ruleset with its parameters, and the default."""

from games import engine


def test_rules_lists_every_ruleset_and_marks_the_default(api, db):
    response = api.get("/api/v1/rules")

    assert response.status_code == 200
    body = response.json()
    assert body["default"] == "classic"
    assert [rules["name"] for rules in body["results"]] == list(engine.RULESETS)
    classic = body["results"][0]
    assert classic == engine.RULESETS["classic"].describe()
    assert (classic["columns"], classic["reserve"], classic["undo_depth"]) == (7, 3, 100)
    double = next(rules for rules in body["results"] if rules["name"] == "double")
    assert (double["decks"], double["sequences_to_win"]) == (2, 8)
