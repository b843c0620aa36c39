"""An account's preferences for the client: read with their defaults, replaced whole by a
PUT that is validated field by field, kept per account."""

import pytest

pytestmark = pytest.mark.django_db

PATH = "/api/v1/auth/preferences"
CHOSEN = {
    "card_size": "small",
    "theme": "contrast",
    "sound": False,
    "animations": False,
    "auto_finish": False,
}


def test_preferences_start_as_the_defaults_and_a_put_replaces_them(as_alice, as_bob, api):
    defaults = as_alice.get(PATH)
    assert defaults.status_code == 200
    assert defaults.json() == {
        "card_size": "large",
        "theme": "light",
        "sound": True,
        "animations": True,
        "auto_finish": True,
    }
    stored = as_alice.put(PATH, CHOSEN)
    assert stored.status_code == 200 and stored.json() == CHOSEN
    assert as_alice.get(PATH).json() == CHOSEN
    assert as_bob.get(PATH).json() == defaults.json()  # each account its own
    assert api.get(PATH).status_code == 401
    assert api.put(PATH, CHOSEN).status_code == 401


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({**CHOSEN, "theme": "purple"}, {"theme"}),
        ({**CHOSEN, "card_size": 3}, {"card_size"}),
        ({**CHOSEN, "sound": "yes", "animations": 1}, {"sound", "animations"}),
        ({k: v for k, v in CHOSEN.items() if k != "auto_finish"}, {"auto_finish"}),
        ({**CHOSEN, "font": "huge"}, {"font"}),
    ],
)
def test_a_bad_preference_is_a_400_naming_its_field_and_stores_nothing(as_alice, body, fields):
    response = as_alice.put(PATH, body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert set(response.json()["fields"]) == fields
    assert as_alice.get(PATH).json()["theme"] == "light"


def test_a_stored_value_no_longer_offered_reads_as_the_default(as_alice, alice):
    from games.store.models import Account

    Account.objects.filter(user=alice[0]).update(preferences={**CHOSEN, "theme": "sepia"})
    assert as_alice.get(PATH).json() == {**CHOSEN, "theme": "light"}
