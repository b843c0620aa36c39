// The REST client: the public API of /api/v1 and nothing else. It sends the token
// (Authorization header only: never in a page URL), Accept-Language, and JSON; commands carry
// expected_version and an Idempotency-Key that stays the same across retries.

import { isCarried, isEarly, takeCarried, takeEarly } from "./boot.js";
import { getLang } from "./i18n.js";

const BASE = "/api/v1";
const TOKEN = "scorpion.token";
const USERNAME = "scorpion.username";
/** Set while the session is a guest's (a visitor playing with no account yet). */
const GUEST = "scorpion.guest";

/** An error answer of the API: its HTTP status, stable `code`, localised `detail`. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.detail || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code || "http_error";
    this.detail = body?.detail || this.message;
    this.body = body || {};
  }
}

/** The network failed before an answer came (offline, connection reset, …). */
export class NetworkError extends Error {}

const listeners = new Set();

/** The signed-in player: {username, token, guest}, or null. */
export function session() {
  const token = localStorage.getItem(TOKEN);
  const username = localStorage.getItem(USERNAME);
  return token && username ? { token, username, guest: localStorage.getItem(GUEST) === "1" } : null;
}

/** `listener(session, why)` on every sign-in and sign-out; `why` is "stale" when the
 *  server no longer knew the key (revoked, expired), so the page shown is redrawn signed
 *  out, "signup" after a sign-up and "signin" after a sign-in. */
export function onSessionChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setSession(username, token, { guest = false, why = null } = {}) {
  if (token) {
    localStorage.setItem(TOKEN, token);
    localStorage.setItem(USERNAME, username);
    if (guest) localStorage.setItem(GUEST, "1");
    else localStorage.removeItem(GUEST);
  } else {
    localStorage.removeItem(TOKEN);
    localStorage.removeItem(USERNAME);
    localStorage.removeItem(GUEST);
  }
  for (const listener of listeners) listener(session(), why);
}

/** A key the server no longer knows was sent: it is forgotten, and the request asked
 *  again without it (whatever it was, a signed-out visitor sees the page, never an error). */
class StaleKey extends Error {}

/**
 * One request. Throws ApiError for an error answer, NetworkError when none came.
 * `credentials: "same-origin"` sends the cookies too (only the guest's, scoped to /auth/).
 */
export async function request(
  path,
  { method = "GET", body, headers = {}, signal, credentials = "omit", keepalive = false } = {},
) {
  const sent = { Accept: "application/json", "Accept-Language": getLang(), ...headers };
  const current = session();
  if (current) sent.Authorization = `Token ${current.token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials, // the token is the only credential this client uses
      cache: "no-store",
      keepalive, // outlives the page (a request sent as the player leaves it)
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new NetworkError(error.message);
  }
  try {
    return await read(response, current);
  } catch (error) {
    if (!(error instanceof StaleKey)) throw error;
    return request(path, { method, body, headers, signal, credentials, keepalive });
  }
}

/** The answer `response`, sent with the session `current`: `{data, response}`, or an
 *  ApiError thrown (StaleKey for a key the server no longer knows, once forgotten). */
async function read(response, current) {
  if (response.status === 304) return { data: null, response }; // the caller's copy stands
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    // A key the server no longer knows (revoked, expired, its account closed): forget it
    // and say so, so that the page is shown signed out; the caller asks again without it.
    if (response.status === 401 && current && error.code === "authentication_failed") {
      if (session()?.token === current.token) setSession(null, null, { why: "stale" });
      throw new StaleKey();
    }
    throw error;
  }
  return { data, response };
}

const prefetched = new Map();

/**
 * Start reading `path` now, before the page that needs it has loaded its modules: the next
 * get() of the same path takes this answer instead of asking again (main.js prefetches the
 * data of the page it is opening, so the first board waits one round trip less).
 */
export function prefetch(path) {
  if (isEarly(path) || isCarried(path)) return; // the shell carried it, or boot.js asked
  const answer = request(path);
  answer.catch(() => {}); // whoever takes it handles a failure
  prefetched.set(path, { answer, at: performance.now() });
}

/** A prefetched answer is taken once, and only while fresh (a page left before it used
 *  its data must not show that data later). */
const PREFETCH_FRESH_MS = 3000;

export async function get(path, options) {
  const carried = !options && takeCarried(path);
  if (carried) return carried;
  const loading = !options && takeEarly(path);
  if (loading) {
    let response;
    try {
      response = await loading.response;
    } catch (error) {
      throw new NetworkError(error.message);
    }
    try {
      // Read as sent: with the token boot.js found then (another answer may have found
      // it stale and forgotten it since).
      return (await read(response, loading.token ? { token: loading.token } : null)).data;
    } catch (error) {
      if (!(error instanceof StaleKey)) throw error;
      return (await request(path)).data;
    }
  }
  const early = !options && prefetched.get(path);
  if (early) prefetched.delete(path);
  if (early && performance.now() - early.at < PREFETCH_FRESH_MS) return (await early.answer).data;
  return (await request(path, options)).data;
}

/** Whether the shell carried the answer to `path` and nobody took it yet. */
export { isCarried };

/**
 * Read `path` unless it is still `etag` (a conditional GET): `{data, etag}`, with `data`
 * null when nothing changed (304: nothing was sent again).
 */
export async function getIfChanged(path, etag = null) {
  const { data, response } = await request(path, { headers: etag ? { "If-None-Match": etag } : {} });
  return { data, etag: response.headers.get("ETag") || etag };
}

export async function post(path, body, options = {}) {
  return (await request(path, { ...options, method: "POST", body })).data;
}

export async function put(path, body, options = {}) {
  return (await request(path, { ...options, method: "PUT", body })).data;
}

// --- accounts ----------------------------------------------------------------------------

/** Create an account. A guest's cookie goes along: the guest becomes the account, its
 *  games with it. */
export async function signUp(username, password) {
  const data = (await request("/auth/register", { method: "POST", body: { username, password }, credentials: "same-origin" })).data;
  setSession(data.username, data.token, { why: "signup" });
  return data;
}

/** Play at once with no account: the guest the cookie names, or a new one. */
export async function playAsGuest() {
  const data = (await request("/auth/guest", { method: "POST", credentials: "same-origin" })).data;
  setSession(data.username, data.token, { guest: true });
  return data;
}

export async function signIn(username, password) {
  const data = await post("/auth/token", { username, password });
  setSession(username, data.token, { why: "signin" });
  return data;
}

/** Sign out: revoke the key on the server (a copy of it opens nothing any more), then
 *  forget it here, whatever the server answered. */
export async function signOut() {
  if (session()) {
    try {
      await request("/auth/token", { method: "DELETE" });
    } catch {
      // Offline, or the key is gone already: it is forgotten here all the same.
    }
  }
  setSession(null, null);
}

/** Sign out everywhere: every key of the account ends, this one too. */
export async function signOutEverywhere() {
  await request("/auth/keys", { method: "DELETE" });
  setSession(null, null);
}

/** Change the password: every key ends, and the new one answered is kept. */
export async function changePassword(password, newPassword) {
  const data = await post("/auth/password", { password, new_password: newPassword });
  setSession(session().username, data.token);
  return data;
}

/** Set a new password with a reset link's uid and token: signed in with the key answered. */
export async function resetPassword(uid, token, newPassword) {
  const data = await post("/auth/password/reset/confirm", { uid, token, new_password: newPassword });
  setSession(data.username, data.token);
  return data;
}

/** Close the account: its key ends with it, so it is forgotten here. */
export async function closeAccount(password) {
  await post("/auth/close", { password });
  setSession(null, null);
}

export const me = () => get("/auth/me");
export const keys = () => get("/auth/keys");
export const del = (path) => request(path, { method: "DELETE" });

/** One's own data as a Blob: every game in the notation (`scorpion`) or as NDJSON. */
export async function myData(format) {
  return blob(`/auth/data?format=${encodeURIComponent(format)}`, "*/*");
}

/** A single-use ticket that authenticates one WebSocket for a few seconds. */
export async function wsTicket() {
  return (await post("/auth/ws-ticket")).ticket;
}

// --- commands ----------------------------------------------------------------------------

const RETRY_DELAYS_MS = [250, 750, 1500, 3000, 5000];

/** A fresh Idempotency-Key (crypto.getRandomValues works on plain http too). */
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Play one command on `gameId` at `version`: `{event, game}`. A network failure or a 503 or
 * 429 is retried with the same Idempotency-Key, so the command is applied at most once,
 * whatever happened to the earlier tries. Any other error answer is thrown (a 409
 * `version_conflict` tells the caller to reload).
 */
export async function command(gameId, action, version, { onRetry } = {}) {
  const key = idempotencyKey();
  const body = { ...action, expected_version: version };
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await post(`/games/${encodeURIComponent(gameId)}/commands`, body, {
        headers: { "Idempotency-Key": key },
      });
    } catch (error) {
      const retryable =
        error instanceof NetworkError ||
        (error instanceof ApiError && [429, 502, 503, 504].includes(error.status));
      if (!retryable || attempt >= RETRY_DELAYS_MS.length) throw error;
      onRetry?.(attempt + 1, error);
      await sleep(Math.max(RETRY_DELAYS_MS[attempt], (error.retryAfter || 0) * 1000));
    }
  }
}

// --- reads ---------------------------------------------------------------------------------

export const game = (id) => get(`/games/${encodeURIComponent(id)}`);
export const moves = (id) => get(`/games/${encodeURIComponent(id)}/moves`);
/** Take the hint for game `id` (the owner's: in a daily, race or arena game the server
 *  records it). The one place the client asks for a hint. */
export const hint = (id) => post(`/games/${encodeURIComponent(id)}/hints`);
/** A game in the notation (docs/notation.md) as a Blob, read with the token as every
 *  request is (so a link could not carry it). */
export async function notation(id) {
  return blob(`/games/${encodeURIComponent(id)}?format=scorpion`, "text/x-scorpion");
}

/** A body that is not JSON (a download), read with the token as every request is. */
async function blob(path, accept) {
  const sent = { Accept: accept, "Accept-Language": getLang() };
  const current = session();
  if (current) sent.Authorization = `Token ${current.token}`;
  let response;
  try {
    response = await fetch(BASE + path, { headers: sent, credentials: "omit", cache: "no-store" });
  } catch (error) {
    throw new NetworkError(error.message);
  }
  if (!response.ok) {
    const error = new ApiError(response.status, await response.json().catch(() => null));
    if (response.status === 401 && current && error.code === "authentication_failed" && session()?.token === current.token) {
      setSession(null, null, { why: "stale" });
    }
    throw error;
  }
  return response.blob();
}
export const state = (id, version) => get(`/games/${encodeURIComponent(id)}/states/${version}`);
export const player = (name) => get(`/players/${encodeURIComponent(name)}`);
export const challenge = (date = "today") => get(`/challenges/${encodeURIComponent(date)}`);
export const standings = (date) => get(`/challenges/${encodeURIComponent(date)}/standings`);
export const month = (yyyyMm) => get(`/challenges?month=${encodeURIComponent(yyyyMm)}`);
export const solutionStep = (date, step) => get(`/challenges/${encodeURIComponent(date)}/solution/${step}`);
export const race = (key) => get(`/races/${encodeURIComponent(key)}`);
export const raceStandings = (key) => get(`/races/${encodeURIComponent(key)}/standings`);
export const raceGames = (key) => get(`/races/${encodeURIComponent(key)}/games`);
export const arena = (id) => get(`/arenas/${encodeURIComponent(id)}`);
export const arenaStandings = (id) => get(`/arenas/${encodeURIComponent(id)}/standings`);
export const arenaGames = (id) => get(`/arenas/${encodeURIComponent(id)}/games`);
export const boards = () => get("/leaderboards");
export const ratings = (name) => get(`/players/${encodeURIComponent(name)}/ratings`);
export const ratingHistory = (name, rules) => get(`/players/${encodeURIComponent(name)}/ratings/${encodeURIComponent(rules)}?limit=200`);

/** A page of a leaderboard: `query` holds period, at, limit (and cursor from `next`). */
export function leaderboard(scope, metric, query = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value != null && value !== "") params.set(name, value);
  return get(`/leaderboards/${encodeURIComponent(scope)}/${encodeURIComponent(metric)}?${params}`);
}

/** Every page of a list endpoint that pages with `next` (races, arenas), up to `most`. */
export async function all(path, most = 200) {
  const found = [];
  for (let next = path; next && found.length < most; ) {
    const page = await get(next);
    found.push(...page.results);
    next = page.next ? relative(page.next) : null;
  }
  return found;
}

/** Every event of a game after `after`, following `next` pages. */
export async function events(id, after = 0) {
  const all = [];
  let path = `/games/${encodeURIComponent(id)}/events?after=${after}`;
  while (path) {
    const page = await get(path);
    all.push(...page.results);
    path = page.next ? relative(page.next) : null;
  }
  return all;
}

/** One page of games: {results, next}; `next` is an opaque path for `gamesPage`. */
export async function gamesPage(query = {}, next = null) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value != null) params.set(name, value);
  const page = await get(next || `/games?${params}`);
  return { results: page.results, next: page.next ? relative(page.next) : null };
}

/** The API's `next` links are absolute URLs: keep the path under /api/v1. */
function relative(url) {
  const parsed = new URL(url, location.href);
  return parsed.pathname.replace(/^\/api\/v1/, "") + parsed.search;
}
