"""The server's Prometheus metrics: defined once here, exported at ``/metrics``.

Like ``games.clock`` and ``games.errors``, this module sits beside the layers and imports
none of them: every layer may count here. Children with fixed labels are bound once at
import, so counting on the command path is an attribute lookup and a lock, not a dict
search (docs/architecture.md#metrics).

Each daphne process counts its own. Prometheus scrapes every process (each one is a
target); with ``PROMETHEUS_MULTIPROC_DIR`` set, the processes of one host share files in
that folder and any one of them answers for all (``scorpion_server.observability``).
"""

from __future__ import annotations

import time

from prometheus_client import Counter, Gauge, Histogram

#: Command latency buckets, in seconds: a command on a warm cache takes about a
#: millisecond, a refusal that waited for the row lock tens.
_COMMAND_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

# --- HTTP ------------------------------------------------------------------------------------

http_requests = Counter(
    "scorpion_http_requests",
    "HTTP requests answered, by route name and status code",
    ["route", "method", "status"],
)
http_seconds = Histogram(
    "scorpion_http_request_seconds",
    "Time from the request reaching Django to its response, by route name",
    ["route"],
    buckets=_COMMAND_BUCKETS,
)

# --- the read replica (scorpion_server.replica) ----------------------------------------------

replica_lag = Gauge(
    "scorpion_replica_lag_seconds",
    "How long ago the primary first stood past the log position the read replica has"
    " replayed (0: it has replayed everything), as this process last checked",
    multiprocess_mode="livemax",
)
replica_up = Gauge(
    "scorpion_replica_up",
    "1 while this process sends reads that may lag to the replica (reachable, within"
    " REPLICA_MAX_LAG), 0 while it skips it",
    multiprocess_mode="livemin",
)
_replica_reads = Counter(
    "scorpion_replica_reads",
    "GET and HEAD requests by the side that served their reads: replica, primary, or"
    " retried (answered 400, 401, 403, 404 or 5xx by the replica, then by the primary)",
    ["side"],
)
replica_reads = {side: _replica_reads.labels(side) for side in ("replica", "primary", "retried")}

# --- commands --------------------------------------------------------------------------------

commands = Counter(
    "scorpion_commands",
    "Commands by type and outcome code (ok, replayed, invalid or the error's code)",
    ["type", "code"],
)
command_seconds = Histogram(
    "scorpion_command_seconds",
    "Time of a command's steps: lock (waiting for the game's row lock), replay (reading"
    " and folding events the cache lacked), engine (deciding), projection (the summary and"
    " rows), append (the guarded statement), and total (the service call)",
    ["phase"],
    buckets=_COMMAND_BUCKETS,
)
PHASES = ("lock", "replay", "engine", "projection", "append", "total")
command_phase = {phase: command_seconds.labels(phase) for phase in PHASES}


class Timings:
    """Where a command's time went (:data:`command_seconds`): a few clock reads on the
    command path, observed once at its end."""

    __slots__ = ("started", "lock", "replay", "engine", "projection", "append")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.lock = self.replay = self.engine = self.projection = self.append = 0.0

    def observe(self) -> None:
        command_phase["total"].observe(time.perf_counter() - self.started)
        for phase in ("lock", "replay", "engine", "projection", "append"):
            spent = getattr(self, phase)
            if spent:
                command_phase[phase].observe(spent)


events_appended = Counter(
    "scorpion_events_appended", "Events appended to game streams, by event type", ["type"]
)

# --- the stream cache ------------------------------------------------------------------------

stream_cache_size = Gauge(
    "scorpion_stream_cache_size",
    "Games whose latest stream this process holds in memory",
    multiprocess_mode="livesum",
)
stream_cache_lookups = Counter(
    "scorpion_stream_cache_lookups",
    "Lookups in the stream cache: hit (the wanted version), stale (an older one: only the"
    " tail replayed) or miss (a full replay)",
    ["result"],
)
stream_cache_hit = stream_cache_lookups.labels("hit")
stream_cache_stale = stream_cache_lookups.labels("stale")
stream_cache_miss = stream_cache_lookups.labels("miss")

standings_recomputations = Counter(
    "scorpion_standings_recomputations",
    "Rankings of a daily race read from the standings projection (one per change burst"
    " per process)",
)

# --- live: WebSockets and the channel layer --------------------------------------------------

websockets_open = Gauge(
    "scorpion_websockets_open",
    "Open WebSocket connections, by kind (game, challenge)",
    ["kind"],
    multiprocess_mode="livesum",
)
frames_sent = Counter(
    "scorpion_ws_frames_sent", "Frames sent to WebSocket clients, by kind", ["kind"]
)
gaps_filled = Counter(
    "scorpion_ws_gaps_filled",
    "Events sent to spectators from the event store instead of the channel layer (gaps,"
    " pings, and everything while the layer is down)",
)
channel_layer_errors = Counter(
    "scorpion_channel_layer_errors",
    "Failed channel-layer operations, by operation",
    ["operation"],
)
channel_layer_up = Gauge(
    "scorpion_channel_layer_up",
    "1 while this process's channel layer works, 0 while spectators are fed from the store",
    multiprocess_mode="livemin",
)
channel_layer_up.set(1)
rights_revoked = Counter(
    "scorpion_rights_revoked",
    "WebSockets closed because the rights they were opened with ended (games.live.rights),"
    " by how the process learnt it: notify, sweep, or opening (ended while it opened)",
    ["how"],
)
rights_hold_seconds = Histogram(
    "scorpion_rights_hold_seconds",
    "Time a socket opened with credentials waited for its rights: the listener ready, the"
    " grant registered, the rights read (one query)",
    buckets=_COMMAND_BUCKETS,
)
rights_listening = Gauge(
    "scorpion_rights_listening",
    "1 while this process listens for ended rights, 0 while it reconnects (sockets with"
    " credentials wait, then close 4503); unset before the first socket with credentials",
    multiprocess_mode="livemin",
)


# --- the solver --------------------------------------------------------------------------------

solver_core = Gauge(
    "scorpion_solver_core",
    "1 for the solver core this process runs: native (the C extension) or python (the"
    " reference, where the extension is not built); set when the games app is ready",
    ["core"],
    multiprocess_mode="livemax",
)

solver_requests = Counter(
    "scorpion_solver_requests",
    "Solver work asked for by requests (hints, quick analyses: games.reads.solver_work), by"
    " outcome: ok; busy (the caller's one search running) or throttled (past SOLVER_RATE),"
    " both 429; overloaded (no place in the pool), late (no answer within SOLVER_WAIT_MS)"
    " or crashed (a solver process died), all 503",
    ["outcome"],
)


class CommandOutcome:
    """Counts one command in :data:`commands` when its block ends: the block sets ``type``
    once the command is parsed and ``code`` once it succeeded; an exception names the code
    (the domain error's, ``invalid`` for a malformed command, else ``error``)."""

    __slots__ = ("type", "code")

    def __init__(self) -> None:
        self.type = "unparsed"
        self.code = "error"

    def __enter__(self) -> CommandOutcome:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        if error is not None:
            code = getattr(error, "code", None)
            self.code = code if isinstance(code, str) and code.isidentifier() else "error"
            if type(error).__name__ == "ValidationError":
                self.code = "invalid"
            elif type(error).__name__ in ("OperationalError", "InterfaceError"):
                self.code = "unavailable"
        commands.labels(self.type, self.code).inc()
