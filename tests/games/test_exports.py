"""Monthly exports of the public log: written once the month is over, exactly its games, in
the log's order, with their checksum; verified by replaying; a corrupt file refused with
the line and the reason (docs/operations.md#monthly-exports)."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from games import clock
from games.store import notation
from games.writes import exports, services

pytestmark = pytest.mark.django_db(transaction=True)

NOVEMBER = dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC)
AFTER = dt.datetime(2026, 12, 1, 1, tzinfo=dt.UTC)


@pytest.fixture
def exported(settings, tmp_path, alice):
    """Three public games finished in November (one private), one in December, exported."""
    settings.EXPORT_DIR = tmp_path
    ids = []
    with clock.frozen(NOVEMBER):
        for seed in (1, 2, 3):
            game = services.game_create(owner=alice, seed=seed)
            services.game_command(game_id=game.game_id, actor=alice, command={"type": "deal"})
            services.game_command(game_id=game.game_id, actor=alice, command={"type": "resign"})
            ids.append(game.game_id)
        private = services.game_create(owner=alice, seed=4, public=False)
        services.game_command(game_id=private.game_id, actor=alice, command={"type": "resign"})
    with clock.frozen(AFTER - dt.timedelta(minutes=30)):
        december = services.game_create(owner=alice, seed=5)
        services.game_command(game_id=december.game_id, actor=alice, command={"type": "resign"})
    with clock.frozen(AFTER):
        written = exports.export_month("2026-11")
    return ids, written


def test_a_month_is_exported_once_over_with_its_games_and_checksum(exported, tmp_path) -> None:
    ids, written = exported
    path = tmp_path / "2026-11.scorpion.gz"
    assert written.path == path and written.export.games == 3
    data = path.read_bytes()
    assert written.export.sha256 == hashlib.sha256(data).hexdigest()
    assert written.export.bytes == len(data)
    line = (tmp_path / "2026-11.scorpion.gz.sha256").read_text()
    assert line == f"{written.export.sha256}  2026-11.scorpion.gz\n"
    games = list(notation.read(io.StringIO(gzip.decompress(data).decode())))
    assert [game.game_id for game in games] == ids
    assert json.loads((tmp_path / "2026-11.json").read_text())["games"] == 3
    assert exports.verify(path) == 3


def test_a_month_not_over_or_exported_already_is_refused(exported) -> None:
    with clock.frozen(AFTER), pytest.raises(exports.ExportRefused, match="already"):
        exports.export_month("2026-11")
    with clock.frozen(AFTER), pytest.raises(exports.ExportRefused, match="not over"):
        exports.export_month("2026-12")
    for month in ("2026-13", "26-11", "9999-12", "0000-01"):
        with pytest.raises(ValueError):
            exports.month_bounds(month)
    with clock.frozen(AFTER):
        assert exports.export_month("2026-11", replace=True).export == exported[1].export


def test_the_api_lists_the_month_and_streams_its_files(exported) -> None:
    export = exported[1].export
    client = Client()
    (listed,) = client.get("/api/v1/exports").json()["results"]
    assert listed["month"] == "2026-11" and listed["sha256"] == export.sha256
    response = client.get("/api/v1/exports/2026-11.scorpion.gz")
    assert response.streaming and response["Content-Type"] == "application/gzip"
    assert hashlib.sha256(b"".join(response.streaming_content)).hexdigest() == export.sha256
    checksum = b"".join(client.get("/api/v1/exports/2026-11.scorpion.gz.sha256").streaming_content)
    assert checksum.decode().startswith(export.sha256)
    for name in ("2026-10.scorpion.gz", "2026-11.json", "2026-11.scorpion", "..%2F2026-11.json"):
        assert client.get(f"/api/v1/exports/{name}").status_code == 404


def test_import_verifies_and_refuses_a_corrupt_file_with_line_and_reason(exported, tmp_path):
    path = tmp_path / "2026-11.scorpion.gz"
    out = io.StringIO()
    call_command("import_games", str(path), stdout=out)
    assert "3 game(s), every one replayed" in out.getvalue()

    text = gzip.decompress(path.read_bytes()).decode()
    lines = text.splitlines(keepends=True)
    number = next(n for n, line in enumerate(lines, 1) if "deal" in line and "[" not in line)
    lines[number - 1] = lines[number - 1].replace("deal", "undo", 1)  # nothing to undo there
    corrupt = tmp_path / "corrupt.scorpion.gz"
    corrupt.write_bytes(gzip.compress("".join(lines).encode()))
    with pytest.raises(CommandError, match=f"refused, line {number}: "):
        call_command("import_games", str(corrupt))

    data = path.read_bytes()
    (tmp_path / "tampered.scorpion.gz").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    (tmp_path / "tampered.scorpion.gz.sha256").write_text(
        (tmp_path / "2026-11.scorpion.gz.sha256").read_text()
    )
    with pytest.raises(CommandError, match="sha256"):
        call_command("import_games", str(tmp_path / "tampered.scorpion.gz"))

    (tmp_path / "cut.scorpion.gz").write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(CommandError, match="cannot be read"):
        call_command("import_games", str(tmp_path / "cut.scorpion.gz"))


def test_the_export_command_says_what_it_wrote(settings, tmp_path) -> None:
    settings.EXPORT_DIR = tmp_path
    out = io.StringIO()
    with clock.frozen(AFTER):
        call_command("export_games", "--month", "2026-11", stdout=out)
        assert "0 game(s)" in out.getvalue()
        with pytest.raises(CommandError, match="not over"):
            call_command("export_games", "--month", "2026-12")
        with pytest.raises(CommandError, match="not a month"):
            call_command("export_games", "--month", "november")
