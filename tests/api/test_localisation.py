"""Messages follow Accept-Language (en, it, es, pt); codes never change."""

import pytest
from django.utils import translation

from api.messages import MESSAGES
from games import engine
from games.writes import services

pytestmark = pytest.mark.django_db

# Classic seed 1: moving column 6 onto column 2 empties column 6 (its King heads it).
EMPTY_COLUMN_6 = {"type": "move", "from": 6, "index": 0, "to": 2}
TWO_OF_DIAMONDS_TO_EMPTY = {"type": "move", "from": 5, "index": 6, "to": 6}
TWO_OF_DIAMONDS_TO_THREE_OF_CLUBS = {"type": "move", "from": 5, "index": 6, "to": 2}

EXPECTED = {
    "only_king_on_empty": {
        "en": "Only a King can go onto an empty column.",
        "it": "Solo un Re può andare su una colonna vuota",
        "es": "Solo un rey puede ir a una columna vacía",
        "pt": "Só um Rei pode ir para uma coluna vazia",
    },
    "not_same_suit": {
        "en": "Rule: cards must be of the same suit.",
        "it": "Regola: le carte devono essere dello stesso seme",
        "es": "Regla: las cartas deben ser del mismo palo",
        "pt": "Regra: as cartas devem ser do mesmo naipe",
    },
}


@pytest.fixture
def path(alice):
    game_id = services.game_create(owner=alice[0], seed=1).game_id
    services.game_command(game_id=game_id, actor=alice[0], command=EMPTY_COLUMN_6)
    return f"/api/v1/games/{game_id}/commands"


@pytest.mark.parametrize("language", ["en", "it", "es", "pt"])
@pytest.mark.parametrize(
    ("command", "code"),
    [
        (TWO_OF_DIAMONDS_TO_EMPTY, "only_king_on_empty"),
        (TWO_OF_DIAMONDS_TO_THREE_OF_CLUBS, "not_same_suit"),
    ],
)
def test_the_same_refusal_in_every_language(as_alice, path, language, command, code):
    response = as_alice.in_language(language).post(path, command)

    assert response.status_code == 422
    assert response.json() == {"code": code, "detail": EXPECTED[code][language]}
    assert response["Content-Language"] == language


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("pt-BR,pt;q=0.9", "Regra: as cartas devem ser do mesmo naipe"),
        ("es-ES", "Regla: las cartas deben ser del mismo palo"),
        ("fr, it;q=0.5", "Regola: le carte devono essere dello stesso seme"),
        ("de", "Rule: cards must be of the same suit."),
    ],
)
def test_language_negotiation(as_alice, path, header, detail):
    response = as_alice.post(
        path, TWO_OF_DIAMONDS_TO_THREE_OF_CLUBS, headers={"Accept-Language": header}
    )

    assert response.json()["detail"] == detail


def test_api_errors_and_field_messages_are_translated(as_alice, path):
    italian = as_alice.in_language("it")

    unknown = italian.post(path, {"type": "deal", "extra": 1}).json()
    assert unknown == {
        "code": "invalid",
        "detail": "La richiesta non è valida; vedi fields.",
        "fields": {"extra": ["Campo sconosciuto."]},
    }
    # DRF's own field messages follow too.
    required = as_alice.in_language("es").post(path, {"type": "move"}).json()
    assert required["fields"]["to"] == ["Este campo es requerido."]
    missing = as_alice.in_language("pt").get("/api/v1/games/nope").json()
    assert missing == {"code": "not_found", "detail": "Não encontrado."}


def test_every_code_has_a_message_in_every_language():
    assert set(engine.REJECTIONS) <= set(MESSAGES)
    for code, message in MESSAGES.items():
        with translation.override("en"):
            english = str(message)
        for language in ("it", "es", "pt"):
            with translation.override(language):
                assert str(message) != english, (code, language)


def test_english_rejections_match_the_engine():
    with translation.override("en"):
        for code, english in engine.REJECTIONS.items():
            assert str(MESSAGES[code]) == english
