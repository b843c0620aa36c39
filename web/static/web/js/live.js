// Live feeds over the public WebSocket API, resumed after any drop.
//
// A game feed keeps the version it has shown: it reconnects with ?after=<version>, so the
// server sends the game as it was then and every event since, with no gap, and the feed
// drops any event it has already applied (seq <= version), so none is shown twice.

const FATAL = new Set([4400, 4401, 4403, 4404]);
const PING_MS = 20000;
const PONG_TIMEOUT_MS = 8000;
const MAX_BACKOFF_MS = 8000;

function socketUrl(path, params) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams(params).toString();
  return `${scheme}//${location.host}${path}${query ? "?" + query : ""}`;
}

/** A WebSocket that reconnects with backoff, pings, and notices a silent dead link. */
class Resumable {
  constructor({ onFrame, onStatus, onFatal }) {
    this.onFrame = onFrame;
    this.onStatus = onStatus || (() => {});
    this.onFatal = onFatal || (() => {});
    this.closed = false;
    this.backoff = 500;
    this.socket = null;
    this.timers = new Set();
    // The browser knows it went offline before a socket does: show it, and when the network
    // is back reconnect at once instead of waiting out a backoff or a ping.
    this.wake = () => this.reconnectNow();
    this.sleep = () => this.offline();
    addEventListener("online", this.wake);
    addEventListener("offline", this.sleep);
  }

  /** The URL to connect to now, or a promise of it (subclasses add their cursor). */
  url() {
    throw new Error("abstract");
  }

  async open() {
    if (this.closed) return;
    this.onStatus("connecting");
    const opening = (this.opening = {});
    let url;
    try {
      url = await this.url();
    } catch {
      url = null; // no ticket (offline, or signed out meanwhile): try again later
    }
    // Closed, dropped or reopened while the ticket was on its way: this attempt is void.
    if (this.closed || opening !== this.opening || this.socket) return;
    if (url === null) {
      this.onStatus("reconnecting");
      this.later(() => this.open(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
      return;
    }
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.backoff = 500;
      this.onStatus("live");
      this.schedulePing();
    };
    socket.onmessage = (message) => {
      if (socket !== this.socket) return;
      const arrived = performance.now();
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      if (frame.type === "pong") {
        clearTimeout(this.pongTimer);
        return;
      }
      this.onFrame(frame, arrived);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.clearTimers();
      if (this.closed) return;
      if (!navigator.onLine) {
        this.onStatus("offline"); // the "online" event reconnects
        return;
      }
      if (FATAL.has(event.code)) {
        this.closed = true;
        this.onStatus("closed");
        this.onFatal(event.code);
        return;
      }
      this.onStatus("reconnecting");
      this.later(() => this.open(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    };
  }

  later(fn, ms) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  clearTimers() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    clearTimeout(this.pongTimer);
  }

  schedulePing() {
    this.later(() => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
      this.socket.send(JSON.stringify({ type: "ping" }));
      // No pong in time: the link is dead even if the socket does not know it yet.
      this.pongTimer = setTimeout(() => this.drop(), PONG_TIMEOUT_MS);
      this.schedulePing();
    }, PING_MS);
  }

  /** Abandon the current socket and connect again at once (e.g. back online). */
  reconnectNow() {
    if (this.closed) return;
    this.backoff = 500;
    this.drop();
  }

  drop() {
    const socket = this.socket;
    this.socket = null;
    this.clearTimers();
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    if (!this.closed) this.open();
  }

  offline() {
    if (this.closed) return;
    const socket = this.socket;
    this.socket = null;
    this.clearTimers();
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    this.onStatus("offline");
  }

  close() {
    this.closed = true;
    removeEventListener("online", this.wake);
    removeEventListener("offline", this.sleep);
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
  }
}

/**
 * Watch a game: `onGame(game, event|null, arrived)` for the snapshot and each new event, in
 * seq order, each exactly once; `onWatchers(count)`, if given, whenever the number of
 * viewers changes. `ticket`, given only for a private game of the viewer's own, resolves
 * to a fresh single-use ticket for each connection (the API's way to authenticate a
 * WebSocket without a session cookie: a key never goes in a URL).
 */
export class GameFeed extends Resumable {
  constructor(gameId, { onGame, onWatchers, onStatus, onFatal, ticket = null }) {
    super({ onFrame: (frame, arrived) => this.frame(frame, arrived), onStatus, onFatal });
    this.gameId = gameId;
    this.onGame = onGame;
    this.onWatchers = onWatchers;
    this.ticket = ticket;
    this.version = null;
    this.open();
  }

  async url() {
    const params = {};
    if (this.version !== null) params.after = String(this.version);
    if (this.onWatchers) params.watchers = "1";
    if (this.ticket) params.ticket = await this.ticket();
    return socketUrl(`/ws/games/${encodeURIComponent(this.gameId)}/`, params);
  }

  frame(frame, arrived) {
    if (frame.type === "snapshot") {
      // On a resume the snapshot is the version we already show: nothing changes.
      if (this.version === null || frame.game.version !== this.version) {
        this.version = frame.game.version;
        this.onGame(frame.game, null, arrived);
      }
    } else if (frame.type === "watchers") {
      this.onWatchers?.(frame.count);
    } else if (frame.type === "event") {
      const seq = frame.event.seq;
      if (seq <= this.version) return; // already applied
      if (seq !== this.version + 1) {
        this.reconnectNow(); // a gap: the server fills it from ?after=<version>
        return;
      }
      this.version = seq;
      this.onGame(frame.game, frame.event, arrived);
    }
  }
}

/** Watch a day's race: `onStandings(results, arrived)` first and after every change. */
export class StandingsFeed extends Resumable {
  constructor(date, { onStandings, onStatus, onFatal }) {
    super({
      onFrame: (frame, arrived) => frame.type === "standings" && onStandings(frame.results, arrived),
      onStatus,
      onFatal,
    });
    this.date = date;
    this.open();
  }

  url() {
    return socketUrl(`/ws/challenges/${encodeURIComponent(this.date)}/`, {});
  }
}

/**
 * Watch a race (`kind` "races", by id or code) or an arena (`kind` "arenas"): `on.contest(race
 * or arena)` first and at its start and finish, `on.countdown(seconds)` before a race starts,
 * `on.standings(results, arrived)` after every change, `on.start(contest)`, and
 * `on.finish(contest, results)` when the results are final.
 */
export class ContestFeed extends Resumable {
  constructor(kind, key, on) {
    super({ onFrame: (frame, arrived) => this.frame(frame, arrived), onStatus: on.status, onFatal: on.fatal });
    this.kind = kind;
    this.key = key;
    this.on = on;
    this.open();
  }

  url() {
    return socketUrl(`/ws/${this.kind}/${encodeURIComponent(this.key)}/`, {});
  }

  frame(frame, arrived) {
    const on = this.on;
    if (frame.type === "race" || frame.type === "arena") on.contest?.(frame[frame.type]);
    else if (frame.type === "countdown") on.countdown?.(frame.seconds, frame.starts_at);
    else if (frame.type === "standings") on.standings?.(frame.results, arrived);
    else if (frame.type === "start") on.start?.(frame.race || frame.arena);
    else if (frame.type === "finish") on.finish?.(frame.race || frame.arena, frame.results);
  }
}
