"""Local stand-ins for postgres:16, redis:7, nginx:1.27 and python:3.11-slim.

No image registry can be reached from the test machines, so the smoke test builds its
images from Debian's packages: ``debootstrap --variant=minbase bookworm`` into a folder,
``docker import`` of that folder as a base image, then one small Dockerfile per service
(``deploy/smoke/images/<name>/``) built on it with ``apt-get`` from the machine's own
Debian mirror.

Every image is tagged with a hash of everything it is made from (the Debian suite, the
mirror and apt sources, the CA bundle, the Dockerfile folder, the base's tag), so an
image that exists is reused as it is and a changed recipe builds a new one. The cache
between runs is Docker's own image store on the machine (``/var/lib/docker``), never a
file in the clone: a clean clone on a machine that built them before starts warm, a new
machine starts cold, and both give the same images.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
IMAGES = Path(__file__).resolve().parent / "images"
SUITE = "bookworm"
#: Where debootstrap gets its packages when the machine's apt sources name no mirror.
DEFAULT_MIRROR = "http://deb.debian.org/debian"
#: The machine's Debian sources (deb822), copied into the base so apt uses them there too.
HOST_SOURCES = Path("/etc/apt/sources.list.d/debian.sources")
DEFAULT_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DEBOOTSTRAP = ["debootstrap", "--variant=minbase", "--include=ca-certificates", SUITE]
#: Files added to the debootstrap folder: package installs in image builds are quick and
#: inert, as in Debian's own images.
BASE_FILES = {
    # Services must not start while packages install in an image build.
    "usr/sbin/policy-rc.d": "#!/bin/sh\nexit 101\n",
    # A failed image build is thrown away: dpkg need not fsync every file it unpacks.
    "etc/dpkg/dpkg.cfg.d/unsafe-io": "force-unsafe-io\n",
    "etc/apt/apt.conf.d/no-languages": 'Acquire::Languages "none";\n',
}
#: The stand-in of each public image, by the compose file's variable that names it.
STAND_INS = {
    "POSTGRES_IMAGE": "postgres",
    "REDIS_IMAGE": "redis",
    "NGINX_IMAGE": "nginx",
    "PYTHON_IMAGE": "python",
}

Log = Callable[[str], None]


def build_all(log: Log = print) -> dict[str, str]:
    """Build what is missing; return each compose variable's local image.

    The longest chain is base, python, then the app's Dockerfile on it (pip's downloads),
    so python builds alone first; then the app builds beside the other stand-ins, whose
    time goes on downloads and unpacking. Building the app here fills Docker's build
    cache, so docker-compose's own build of it then takes seconds.
    """
    base = base_image(log)
    python = service_image(STAND_INS["PYTHON_IMAGE"], base, log)
    with ThreadPoolExecutor(max_workers=len(STAND_INS)) as pool:
        builds = {
            variable: pool.submit(service_image, name, base, log)
            for variable, name in STAND_INS.items()
            if variable != "PYTHON_IMAGE"
        }
        pool.submit(warm_app_build, python, log).result()
        built = {v: build.result() for v, build in builds.items()}
        # The scale profile's PgBouncer image is built on plain Debian: the base itself.
        return {"PYTHON_IMAGE": python, "DEBIAN_IMAGE": base, **built}


def base_image(log: Log = print) -> str:
    """``scorpion-local/bookworm:<hash>``: a minbase debootstrap that trusts what pip trusts.

    The machine reaches PyPI through a TLS proxy whose certificate authority only the
    machine's CA bundle holds (the one its pip configuration names), so the base gets that
    bundle added to its own: pip and apt inside the images then work as they do outside.
    """
    mirror = apt_mirror()
    sources = HOST_SOURCES.read_bytes() if HOST_SOURCES.exists() else b""
    bundle = ca_bundle().read_bytes()
    recipe = [*map(str.encode, [*DEBOOTSTRAP, mirror, PATH, repr(BASE_FILES)]), sources, bundle]
    tag = f"scorpion-local/{SUITE}:{digest(recipe)}"
    if image_exists(tag):
        log(f"{tag}: cached")
        return tag
    log(f"{tag}: debootstrap --variant=minbase {SUITE} from {mirror}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="scorpion-rootfs-", dir="/var/tmp") as folder:
        root = Path(folder) / "rootfs"
        try:
            run([*DEBOOTSTRAP, str(root), mirror])
            for name, text in BASE_FILES.items():
                (root / name).write_text(text)
            (root / "usr/sbin/policy-rc.d").chmod(0o755)
            shutil.copyfile(ca_bundle(), root / "usr/local/share/ca-certificates/host.crt")
            run(["chroot", str(root), "update-ca-certificates"])
            if sources:
                (root / "etc/apt/sources.list").unlink(missing_ok=True)
                (root / HOST_SOURCES.relative_to("/")).write_bytes(sources)
            for leftovers in ("var/cache/apt/archives", "var/lib/apt/lists"):
                for path in (root / leftovers).glob("*"):
                    if path.is_file():
                        path.unlink()
            log(f"{tag}: debootstrap done in {time.monotonic() - started:.0f} s; docker import")
            tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
            changes = ["--change", f"ENV PATH={PATH}", "--change", 'CMD ["bash"]']
            run(["docker", "import", *changes, "-", tag], stdin=tar.stdout)
            if tar.wait() != 0:
                raise RuntimeError("tar of the debootstrap folder failed")
        finally:
            unmount_under(root)
    return tag


def service_image(name: str, base: str, log: Log = print) -> str:
    """``scorpion-local/<name>:<hash>``, built from ``images/<name>/`` on ``base``."""
    folder = IMAGES / name
    recipe = [base.encode()]
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            recipe += [str(path.relative_to(folder)).encode(), path.read_bytes()]
    tag = f"scorpion-local/{name}:{digest(recipe)}"
    if image_exists(tag):
        log(f"{tag}: cached")
        return tag
    started = time.monotonic()
    build = ["docker", "build", "--network", "host", "--build-arg", f"BASE={base}"]
    run([*build, "--tag", tag, str(folder)])
    log(f"{tag}: built in {time.monotonic() - started:.0f} s")
    return tag


def warm_app_build(python: str, log: Log = print) -> None:
    """Build the repository's Dockerfile on ``python``, for its layers only (no tag)."""
    started = time.monotonic()
    run(["docker", "build", "--network", "host", "--build-arg", f"BASE={python}", str(ROOT)])
    log(f"the app's Dockerfile: built in {time.monotonic() - started:.0f} s")


def apt_mirror() -> str:
    """The machine's Debian mirror: SMOKE_DEBIAN_MIRROR, or its apt sources' first one."""
    if mirror := os.environ.get("SMOKE_DEBIAN_MIRROR"):
        return mirror
    if HOST_SOURCES.exists():
        for stanza in HOST_SOURCES.read_text().split("\n\n"):
            fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, flags=re.MULTILINE))
            if SUITE in fields.get("Suites", "").split() and "URIs" in fields:
                return fields["URIs"].split()[0]
    sources_list = Path("/etc/apt/sources.list")
    if sources_list.exists():
        pattern = rf"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+{SUITE}\s"
        if found := re.search(pattern, sources_list.read_text(), flags=re.MULTILINE):
            return found.group(1)
    return DEFAULT_MIRROR


def ca_bundle() -> Path:
    """The CA bundle pip uses on this machine (PIP_CERT, pip's configuration, or Debian's)."""
    if cert := os.environ.get("PIP_CERT"):
        return Path(cert)
    listing = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    if found := re.search(r"^[\w:.]*\.cert='([^']+)'$", listing, flags=re.MULTILINE):
        return Path(found.group(1))
    return DEFAULT_CA_BUNDLE


def image_exists(tag: str) -> bool:
    inspect = ["docker", "image", "inspect", tag]
    return subprocess.run(inspect, capture_output=True, check=False).returncode == 0


def digest(parts: list[bytes]) -> str:
    sha = hashlib.sha256()
    for part in parts:
        sha.update(len(part).to_bytes(8, "big") + part)
    return sha.hexdigest()[:12]


def unmount_under(root: Path) -> None:
    """Unmount what a failed debootstrap may have left mounted in ``root`` (proc, sys…)."""
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    for mount in sorted((m for m in mounts if m.startswith(f"{root}/")), reverse=True):
        subprocess.run(["umount", "-l", mount], check=False)


def run(command: list[str], stdin: IO[bytes] | None = None) -> None:
    """Run ``command``, showing the end of its output only if it fails."""
    result = subprocess.run(
        command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False
    )
    if result.returncode != 0:
        print(result.stdout[-4000:].decode(errors="replace"))
        raise subprocess.CalledProcessError(result.returncode, command)


if __name__ == "__main__":
    # scripts/compose-smoke builds the images this way, with the standard library alone,
    # while the virtual environment that the smoke test itself needs is being made.
    began = time.monotonic()
    build_all(lambda message: print(f"   [images {time.monotonic() - began:5.0f} s] {message}"))
