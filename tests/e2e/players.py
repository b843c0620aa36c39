"""Accounts and screenshots the end-to-end tests share: a player signed up through the API
as a client would, and a picture of a page at its viewport's size."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx


def token_for(base: str, name: str) -> str:
    """A new account ``name`` on the server at ``base``, signed up through the API: its key."""
    response = httpx.post(
        f"{base}/api/v1/auth/register",
        json={"username": name, "password": f"pw-{name}-Cards-2026"},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def register(base: str, name: str) -> httpx.Client:
    """A new account's client, rooted at the server (paths start ``/api/v1/``); its key is
    its ``token``."""
    token = token_for(base, name)
    client = httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60)
    client.token = token  # type: ignore[attr-defined]
    return client


def signed_up(server: Any, name: str) -> SimpleNamespace:
    """A new account on a live ``server``: its name, key and a client rooted at the API."""
    token = token_for(server.http, name)
    api = httpx.Client(
        base_url=f"{server.http}/api/v1", headers={"Authorization": f"Token {token}"}, timeout=60
    )
    return SimpleNamespace(name=name, token=token, api=api)


def shoot(page: Any, shots: Path, name: str) -> None:
    """A screenshot of the whole page at its size, after any animation has settled."""
    size = page.viewport_size
    page.wait_for_timeout(400)
    page.screenshot(
        path=str(shots / f"{name}-{size['width']}x{size['height']}.png"), full_page=True
    )


def open_at(pages: Any, size: tuple[int, int], player: Any = None, path: str = "/") -> Any:
    """A page of ``pages`` (the browser fixture) at ``size``, a touch screen when narrow."""
    return pages(player, path=path, size=size, touch=size[0] < 600)
