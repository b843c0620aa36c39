"""Static files: hashed names when collected, served by ServeStatic before Django sees them.

``manage.py serve`` collects them once per version (:func:`collect_once`): into a folder of
``STATIC_ROOT`` named by a digest of every source file's name, size and time, made under a
name of its own and renamed into place, so that a warm start collects nothing and two
servers started side by side from one checkout never write into the folder the other
serves. ``collectstatic`` writes every file under a name that carries
a hash of its content (``app.3f2c9a1b7e4d.css``), rewrites the client's ES module imports to
those names, and stores a gzip copy beside each. Such a name never changes content, so it is
sent with a year-long ``immutable`` cache header: a returning visitor fetches nothing but the
HTML shell. ServeStatic answers ``/static/`` at the ASGI level, with no Django request, no
thread and the compressed copy when the browser accepts it.

A server whose ``STATIC_ROOT`` holds no collected files (a bare daphne from the source tree,
as the tests start it, each with a data folder of its own) serves the source files under
their plain names, for a minute of cache; with ``DEBUG`` on, it reads them afresh on every
request, so an edit shows on reload. With ``DEBUG`` off, files collected earlier in the
same data folder are what it serves, as collected then.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.utils.functional import empty
from servestatic import ServeStaticASGI
from servestatic.storage import CompressedManifestStaticFilesStorage

#: Django's manifest names: the original name with 12 hex digits of the content's MD5 before
#: the extension.
HASHED_NAME = re.compile(r"\.[0-9a-f]{12}\.[A-Za-z0-9]+$")


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed copies in ``STATIC_ROOT``, with the client's ES module imports
    (``import … from "./x.js"`` and ``import("./x.js")``) rewritten to the hashed names, so
    a module is fetched under one name only. Before ``collectstatic`` has run (no manifest),
    URLs are the plain names of the source files."""

    support_js_module_import_aggregation = True

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:
            return name
        return str(super().stored_name(name))


#: Versions kept in ``STATIC_ROOT`` besides the one in use (a server started just before on
#: an older checkout may still serve one).
KEEP_VERSIONS = 3


def version() -> str:
    """A digest of every static source file the finders find: its name, size and time."""
    entries = []
    for finder in finders.get_finders():
        for path, storage in finder.list(None):
            info = os.stat(storage.path(path))
            entries.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}")
    digest = hashlib.sha256("\n".join(sorted(entries)).encode())
    return "v-" + digest.hexdigest()[:16]


def collect_once() -> bool:
    """Point ``STATIC_ROOT`` at the folder of this version of the static files, collecting
    them there first if no server did (whether it collected)."""
    base = Path(settings.STATIC_ROOT)
    if base.name.startswith("v-"):  # pointed at a version already, in this process
        base = base.parent
    root = base / version()
    made = False
    if not (root / "staticfiles.json").exists():
        building = base / f".{root.name}.{os.getpid()}"
        shutil.rmtree(building, ignore_errors=True)
        _use(building)
        call_command("collectstatic", interactive=False, verbosity=0)
        try:
            building.rename(root)
            made = True
        except OSError:  # another server of this checkout renamed its copy first
            shutil.rmtree(building, ignore_errors=True)
    _use(root)
    _prune(base, root)
    return made


def _use(root: Path) -> None:
    settings.STATIC_ROOT = root
    staticfiles_storage._wrapped = empty  # type: ignore[attr-defined]  # made again, on the new folder, at its next use


def _prune(base: Path, current: Path) -> None:
    """Remove all but the newest :data:`KEEP_VERSIONS` versions (and ``current``)."""
    versions = sorted(
        (path for path in base.glob("v-*") if path != current),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    for old in versions[KEEP_VERSIONS:]:
        shutil.rmtree(old, ignore_errors=True)


def collected() -> bool:
    """Whether ``collectstatic`` wrote a manifest this server can serve from."""
    return bool(getattr(staticfiles_storage, "hashed_files", None))


def static_application(application: Any) -> ServeStaticASGI:
    """``application`` behind ServeStatic for ``STATIC_URL``: the collected files when there
    are, else the source files the finders find (read afresh on each request with ``DEBUG``)."""
    prefix = settings.STATIC_URL
    if collected() and not settings.DEBUG:
        return ServeStaticASGI(
            application,
            root=settings.STATIC_ROOT,
            prefix=prefix,
            max_age=60,
            immutable_file_test=HASHED_NAME.pattern,
        )
    served = ServeStaticASGI(
        application, autorefresh=settings.DEBUG, max_age=0 if settings.DEBUG else 60
    )
    for finder in finders.get_finders():
        for path, storage in finder.list(None):
            url = prefix + path.replace("\\", "/")
            if settings.DEBUG:
                served.insert_directory(storage.location, prefix)
            elif url not in served.files:  # the first finder that has a name wins, as Django's
                served.add_file_to_dictionary(url, storage.path(path))
    return served
