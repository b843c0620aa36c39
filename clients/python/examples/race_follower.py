"""A bot that follows a race's standings until the race is finished.

    python examples/race_follower.py http://127.0.0.1:8000 RACECODE

It watches the race's live feed (reopened if the connection drops) and prints one line
per standings frame, ``rank player won/finished``, then the final results, and stops at
the race's ``finish`` frame. With ``--async`` it does the same with the asyncio client.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from scorpion_client import AsyncClient, Client


def line(results: list[dict[str, Any]]) -> str:
    return " | ".join(
        f"{row['rank']} {row['player']} {row.get('won', 0)}/{row.get('finished', 0)}"
        for row in results
    )


def follow(server: str, race: str) -> list[dict[str, Any]]:
    """Print the race's standings as they change; its final results."""
    with Client(server) as client:
        for frame in client.watch_race(race):
            if frame["type"] == "standings":
                print("standings", line(frame["results"]), flush=True)
            elif frame["type"] in ("race", "start"):
                print(frame["type"], frame["race"]["status"], flush=True)
            elif frame["type"] == "finish":
                print("finish", line(frame["results"]), flush=True)
                results: list[dict[str, Any]] = frame["results"]
                return results
    return []


async def follow_async(server: str, race: str) -> list[dict[str, Any]]:
    """:func:`follow` with the asyncio client."""
    async with AsyncClient(server) as client:
        async for frame in client.watch_race(race):
            if frame["type"] == "standings":
                print("standings", line(frame["results"]), flush=True)
            elif frame["type"] == "finish":
                print("finish", line(frame["results"]), flush=True)
                results: list[dict[str, Any]] = frame["results"]
                return results
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server")
    parser.add_argument("race", help="the race's id or short code")
    parser.add_argument("--async", dest="use_async", action="store_true")
    args = parser.parse_args(argv)
    if args.use_async:
        asyncio.run(follow_async(args.server, args.race))
    else:
        follow(args.server, args.race)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
