"""The sample deal printed in the rules (000/003) and its first move, exactly."""

from games.engine import RULESETS, Move, apply, new_game, parse_cards, player_view


def test_initial_view_matches_the_printed_deal(sample_fixture: dict) -> None:
    state = new_game(RULESETS["classic"], parse_cards(sample_fixture["deal"]))
    view = player_view(state)
    assert view["columns"][0] == [None, None, None, "3D", "JH", "TH", "3S"]
    assert view["columns"][1] == [None, None, None, "QH", "3C", "4H", "7S"]
    assert view["columns"][4] == ["6H", "8C", "JS", "4C", "9C", "8D", "5C"]
    assert view["columns"][6] == ["AD", "QD", "9D", "6S", "2H", "TD", "5H"]
    assert view["reserve"] == 3
    assert view["removed"] == []
    assert (view["score"], view["moves"], view["status"], view["blocked"]) == (
        0,
        0,
        "playing",
        False,
    )


def test_first_move_carries_the_group_and_scores(sample_fixture: dict) -> None:
    first = sample_fixture["first_move"]
    state = new_game(RULESETS[sample_fixture["rules"]], parse_cards(sample_fixture["deal"]))
    assert state.card_at(first["from"], first["index"]) == parse_cards([first["card"]])[0]
    after, effects = apply(state, Move(first["from"], first["index"], first["to"]))
    view = player_view(after)
    for column, cards in first["columns_after"].items():
        assert view["columns"][int(column) - 1] == cards
    assert view["columns"][6][-2:] == first["carries"]
    assert effects.points == first["points"] == view["score"]
    assert effects.flipped == () and effects.removed == ()
    assert view["moves"] == 1
