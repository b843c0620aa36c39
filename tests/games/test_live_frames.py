"""The live frames on the wire (docs/api.md#websocket): each class's text, key for key and in
order, and the layer messages read back as they were made."""

from __future__ import annotations

import json

import pytest

from games.live import frames, messages

BODY = {"id": "r1", "status": "running", "starts_at": "2026-11-30T12:00:00.000Z"}


@pytest.mark.parametrize(
    ("frame", "text"),
    [
        (frames.Snapshot({"version": 1}), '{"type": "snapshot", "game": {"version": 1}}'),
        (
            frames.Event({"seq": 2}, {"version": 2}),
            '{"type": "event", "event": {"seq": 2}, "game": {"version": 2}}',
        ),
        (frames.Watchers(3), '{"type": "watchers", "count": 3}'),
        (
            frames.Standings('[{"rank": 1, "player": "alice"}]'),
            '{"type": "standings", "results": [{"rank": 1, "player": "alice"}]}',
        ),
        (frames.Standings("[]"), '{"type": "standings", "results": []}'),
        (frames.contest("race", BODY), json.dumps({"type": "race", "race": BODY})),
        (frames.contest("arena", BODY), json.dumps({"type": "arena", "arena": BODY})),
        (
            frames.Countdown(59, "2026-11-30T12:00:00.000Z"),
            '{"type": "countdown", "seconds": 59, "starts_at": "2026-11-30T12:00:00.000Z"}',
        ),
        (frames.Start("race", BODY), json.dumps({"type": "start", "race": BODY})),
        (
            frames.Finish("arena", BODY, [{"rank": 1}]),
            json.dumps({"type": "finish", "arena": BODY, "results": [{"rank": 1}]}),
        ),
        (frames.Pong(), '{"type": "pong"}'),
        (frames.Error("bad_after"), '{"type": "error", "code": "bad_after"}'),
    ],
)
def test_each_frame_sends_its_documented_json(frame: frames.Frame, text: str) -> None:
    assert frame.text() == text
    assert json.loads(text) == frame.to_json()
    assert next(iter(frame.to_json())) == "type" == next(iter(json.loads(text)))


@pytest.mark.parametrize(
    "message",
    [
        messages.GameEvent(4, {"readers": "{}", "staff": "{}"}),
        messages.GameWatchers(7, 2),
        messages.StandingsChanged(),
        messages.StandingsChanged({"game": "g1", "version": 3}),
        messages.ContestPhase(),
    ],
)
def test_each_layer_message_reads_back_as_it_was_made(message: messages.Message) -> None:
    assert messages.parse(message.to_message()) == message


def test_a_message_this_server_does_not_know_is_ignored() -> None:
    assert messages.parse({"type": "game.renamed", "name": "x"}) is None
