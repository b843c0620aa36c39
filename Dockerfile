# The Scorpion server image: one daphne process serving HTTP and WebSocket.
# docker-compose.yml runs several of these behind a proxy (docs/operations.md#scaling-out).
# BASE is any Python 3.11 image with pip (scripts/compose-smoke builds a local one).
ARG BASE=python:3.11-slim
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
# The whole project (.dockerignore keeps out what is not the server), run from /app.
COPY . ./
USER scorpion

EXPOSE 8000
# Migrations run once, from the compose file's "migrate" service, not in every replica.
CMD ["python", "manage.py", "serve", "--no-migrate"]
