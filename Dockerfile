# The Scorpion server image: one daphne process serving HTTP and WebSocket.
# docker-compose.yml runs several of these behind a proxy (docs/operations.md#scaling-out).
# BASE is any Python 3.11 image with pip (scripts/compose-smoke builds a local one).
ARG BASE=python:3.11-slim

# The native solver core (games/engine/solver/csrc/), built in a stage of its own: the
# compiler stays here, and the image below gets only the extension. setup.py builds it
# optionally (an install without a compiler falls back to the Python core); here a failed
# build fails the image, which must run the native core.
FROM ${BASE} AS native
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Python's headers come with the official image; a Debian-built Python needs python3-dev.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && if ! python -c "import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"; then \
        apt-get install -y --no-install-recommends python3-dev; fi \
    && rm -rf /var/lib/apt/lists/* \
    && pip install "setuptools>=68"
WORKDIR /build
COPY setup.py ./
COPY games/engine/solver/csrc games/engine/solver/csrc
RUN python setup.py build_ext --inplace \
    && ls games/engine/solver/_native*.so

FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SCORPION_DATA_DIR=/var/lib/scorpion

WORKDIR /app
# The dependencies first, read from pyproject.toml alone: this layer is rebuilt only when
# they change, not on every change of the code.
COPY pyproject.toml ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt \
    && useradd --system --home /var/lib/scorpion scorpion \
    && mkdir -p /var/lib/scorpion && chown scorpion /var/lib/scorpion
# The whole project (.dockerignore keeps out what is not the server), run from /app, and
# the native solver core built above.
COPY . ./
COPY --from=native /build/games/engine/solver/_native*.so games/engine/solver/
USER scorpion

EXPOSE 8000
# Migrations run once, from the compose file's "migrate" service, not in every replica.
CMD ["python", "manage.py", "serve", "--no-migrate"]
