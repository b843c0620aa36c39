"""A command passes each layer once: followed call by call from the view to its answer.

``sys.setprofile`` records every Python call while ``GameCommandApi.post`` runs. Calls are
grouped by the layer of the module they run in (``api`` is the transport, then each package
of ``games``; ``games.metrics``, ``games.clock`` and ``games.errors`` sit beside the layers
and are not counted), and each entry into another layer becomes a node under the layer that
made it. Only the orchestrating layers' nodes keep children (the transport, the write
service and the projections): what a layer does inside itself, or through the libraries it
uses (the store calling the engine's card codes, say), is that layer's business; of the
projections, only the append statement and the publishing count (:func:`followed`). The
tree must be exactly the path docs/architecture.md#the-command-path describes.
"""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import pytest

from api.views import games as views
from games import clock
from games import jobs as _jobs  # noqa: F401 - loaded, as once any process has queued a job

pytestmark = pytest.mark.django_db(transaction=True)

#: The layers whose calls are followed into other layers.
ORCHESTRATORS = {"transport", "games.writes", "games.projections"}
#: Modules beside the layers (every layer may use them).
BESIDE = {"metrics", "clock", "errors"}


def layer(module: str) -> str | None:
    """The layer of ``module``: ``transport`` for ``api``, ``games.<package>`` for the app
    (``games.store.append``, the statement, apart), ``None`` for anything else (libraries,
    and the modules beside the layers)."""
    parts = module.split(".")
    if parts[0] == "api":
        return "transport"
    if parts[0] != "games" or len(parts) < 2 or parts[1] in BESIDE:
        return None
    if module == "games.store.append":
        return module
    return f"games.{parts[1]}"


def followed(caller: str, callee: str) -> bool:
    """Whether a call from layer ``caller`` into ``callee`` is a stop of the path. The
    projections' own computations (the stream after the event, their rows from the domain's
    helpers, their follow-ups) are theirs: what they must do is write once and then
    publish."""
    if caller == "games.projections":
        return callee in ("games.store.append", "games.live")
    return caller in ORCHESTRATORS


@dataclass
class Node:
    layer: str
    children: list[Node] = field(default_factory=list)

    def shape(self) -> tuple[Any, ...]:
        """``(layer, (child shapes…))`` with repeated neighbours merged: entering the same
        layer twice in a row (two calls in one step) is one stop."""
        merged: list[Node] = []
        for child in self.children:
            if merged and merged[-1].layer == child.layer and not child.children:
                continue
            merged.append(child)
        return (self.layer, tuple(child.shape() for child in merged))


def follow(client: Any, path: str, body: dict[str, Any]) -> tuple[Any, int]:
    """``(the tree of layers, status)`` of one ``POST`` to the command view."""
    root = Node("transport")
    stack: list[tuple[str, Node | None]] = []
    original = views.GameCommandApi.post

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call":
            here, node = stack[-1]
            entered = layer(frame.f_globals.get("__name__", "")) or here
            if entered == here:
                stack.append((here, node))
            elif node is not None and followed(here, entered):
                child = Node(entered)
                node.children.append(child)
                stack.append((entered, child))
            else:
                stack.append((entered, None))
        elif event == "return" and len(stack) > 1:
            stack.pop()

    def traced(self: Any, request: Any, game_id: str) -> Any:
        stack.append(("transport", root))
        sys.setprofile(profile)
        try:
            return original(self, request, game_id)
        finally:
            sys.setprofile(None)

    views.GameCommandApi.post = traced  # type: ignore[method-assign]
    try:
        response = client.post(path, body)
    finally:
        views.GameCommandApi.post = original  # type: ignore[method-assign]
    return root.shape(), response.status_code


def stop(name: str, *children: tuple[Any, ...]) -> tuple[Any, ...]:
    return (name, tuple(children))


#: The write: the stream the process holds (the store's cache), the engine's decision, then
#: the projections, which append in one statement and publish (live).
APPEND = stop("games.projections", stop("games.store.append"), stop("games.live"))
#: The whole path of a command of a game that races nobody.
PLAIN = stop(
    "transport",
    stop("games.writes", stop("games.store"), stop("games.engine"), APPEND),
    stop("games.reads"),
)


def first_move(client: Any, game: str) -> dict[str, Any]:
    moves = client.get(f"/api/v1/games/{game}/moves").json()["moves"]
    return {key: value for key, value in moves[0].items() if key != "card"}


def test_a_command_passes_each_layer_once(as_alice) -> None:
    game = as_alice.post("/api/v1/games", {"rules": "classic", "seed": 7}).json()["id"]
    commands = f"/api/v1/games/{game}/commands"
    tree, status = follow(as_alice, commands, first_move(as_alice, game))
    assert status == 201
    assert tree == PLAIN, tree


def test_a_contest_command_asks_the_contest_clock_once_before_the_engine(as_alice, as_bob) -> None:
    """A race's game adds one stop: the contest's clock says whether it takes commands;
    its result is still the projections' business, written in the same statement."""
    moving = [dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)]
    with clock.frozen(lambda: moving[0]):
        race = as_alice.post(
            "/api/v1/races", {"deals": 1, "time_limit": 600, "countdown": 60}
        ).json()
        as_bob.post(f"/api/v1/races/{race['code']}/join")
        moving[0] += dt.timedelta(seconds=61)
        game = as_alice.post(f"/api/v1/races/{race['code']}/games").json()["results"][0]["id"]
        tree, status = follow(as_alice, f"/api/v1/games/{game}/commands", {"type": "resign"})
    assert status == 201
    writes = stop(
        "games.writes", stop("games.store"), stop("games.dailies"), stop("games.engine"), APPEND
    )
    assert tree == stop("transport", writes, stop("games.reads")), tree
