# The Scorpion server image: one daphne process serving HTTP and WebSocket.
# docker-compose.yml runs several of these behind a proxy (see README, "Scaling out").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    SCORPION_DATA_DIR=/var/lib/scorpion

WORKDIR /app
COPY pyproject.toml README.md ./
COPY scorpion_server ./scorpion_server
COPY games ./games
COPY api ./api
COPY web ./web
COPY locale ./locale
COPY manage.py ./
RUN pip install . && useradd --system --home /var/lib/scorpion scorpion \
    && mkdir -p /var/lib/scorpion && chown scorpion /var/lib/scorpion
USER scorpion

EXPOSE 8000
# Migrations run once, from the compose file's "migrate" service, not in every replica.
CMD ["python", "manage.py", "serve", "--no-migrate"]
