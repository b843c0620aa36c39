// A game's page: the owner plays it; anyone else watches it live (snapshot, then events, resumed
// with ?after=N after a drop); a finished game opens as a replay with a scrubber.

import * as api from "../api.js";
import { Board } from "../board.js";
import { cardName, short } from "../cards.js";
import { announce, clock, h, modal, replace, toast } from "../dom.js";
import { showHelp } from "../help.js";
import { num, t } from "../i18n.js";
import { GameFeed } from "../live.js";
import { navigate } from "../router.js";
import { problem, rulesets, rulesTitle, statusBadge } from "../widgets.js";

export const name = "game";

export function mount(root, { id }) {
  const stops = [];
  const page = h("div", { class: "game-page" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);
  let alive = true;
  stops.push(() => (alive = false));
  Promise.all([api.game(id), rulesets()])
    .then(([game, rules]) => {
      if (!alive) return;
      const me = api.session();
      const ruleset = rules.byName[game.rules];
      replace(page);
      // A daily game whose day is over is a replay, finished or not: the race is over.
      const raceOver = game.challenge && game.challenge < new Date().toISOString().slice(0, 10);
      if (raceOver) {
        stops.push(mountReplay(page, game, ruleset));
      } else if (game.status === "playing" && me && game.owner === me.username) {
        stops.push(mountPlay(page, game, ruleset));
      } else if (game.status === "playing") {
        stops.push(mountWatch(page, game, ruleset, stops));
      } else {
        stops.push(mountReplay(page, game, ruleset));
      }
    })
    .catch((error) => {
      if (!alive) return;
      replace(page, problem(error));
    });
  return () => stops.forEach((stop) => stop());
}

// --- pieces ---------------------------------------------------------------------------------------

function header(game, rules, extra = []) {
  return h(
    "div",
    { class: "game-head" },
    h("h1", { class: "game-name" },
      h("span", { text: rulesTitle(rules) }),
      h("span", { class: "muted by" }, " · ", h("a", { href: `/players/${encodeURIComponent(game.owner)}`, class: "owner", text: game.owner })),
    ),
    h("div", { class: "head-tags" }, game.challenge ? h("span", { class: "tag", text: t("lobby.daily_tag", { date: game.challenge }) }) : null, extra),
  );
}

/** Score, moves, sequences, time and status; `update(game)` refreshes it. */
function scorebar(rules) {
  const cells = {};
  const item = (key, label) => {
    cells[key] = h("span", { class: "value", id: `stat-${key}` });
    return h("div", { class: "scoreitem" }, h("span", { class: "label", text: label }), cells[key]);
  };
  const el = h("div", { class: "scorebar", role: "group", "aria-label": t("stats.label") },
    item("score", t("stats.score")),
    item("moves", t("stats.moves")),
    item("sequences", t("stats.sequences")),
    item("time", t("stats.time")),
    h("div", { class: "scoreitem status-item" }, h("span", { class: "label", text: t("stats.status") }), cells.status = h("span", { class: "value", id: "stat-status" })),
  );
  let game = null;
  const tick = () => {
    if (!game) return;
    const end = game.finished_at ? new Date(game.finished_at) : new Date();
    cells.time.textContent = clock(end - new Date(game.created_at));
  };
  const timer = setInterval(tick, 1000);
  return {
    el,
    update(next) {
      game = next;
      cells.score.textContent = num(next.score);
      cells.moves.textContent = num(next.moves);
      cells.sequences.textContent = `${next.removed.length}/${rules.sequences_to_win}`;
      replace(cells.status, statusBadge(next));
      tick();
    },
    stop: () => clearInterval(timer),
  };
}

/** A one-line description of an event, for the move list and for screen readers. */
export function describe(event, previous) {
  const d = event.data || {};
  if (event.type === "moved") {
    const code = previous && (d.cell ? previous.cells?.[d.cell - 1] : previous.columns[d.from - 1]?.[d.index]);
    const from = d.cell ? t("board.cell", { n: d.cell }) : String(d.from);
    const card = code ? short(code) + " " : "";
    return { text: `${card}${from} → ${d.to}`, spoken: code ? t("event.moved_card", { card: cardName(code), to: d.to }) : t("event.moved", { from, to: d.to }) };
  }
  const text = t(`event.${event.type}`);
  return { text, spoken: text };
}

function moveList() {
  const list = h("ol", { class: "move-list", id: "move-list", "aria-label": t("game.moves_list") });
  const panel = h("aside", { class: "panel history" }, h("h2", { text: t("game.history") }), list);
  return {
    el: panel,
    add(event, previous) {
      if (list.querySelector(`[data-seq="${event.seq}"]`)) return; // never twice
      const { text } = describe(event, previous);
      const item = h("li", { "data-seq": event.seq, class: `ev ev-${event.type}` }, h("span", { class: "seq", text: event.seq }), h("span", { text }));
      list.append(item);
      list.querySelector(".current")?.classList.remove("current");
      item.classList.add("current");
      // Scrolled at the next frame: reading scrollHeight now would lay the page out twice.
      requestAnimationFrame(() => (list.scrollTop = list.scrollHeight));
    },
    list,
  };
}

// --- playing ------------------------------------------------------------------------------------

/**
 * The owner's board with its commands. Returns a stop function. `onChange(game)` is told of
 * every new state (the daily page uses it).
 */
export function mountPlay(container, initial, rules, { onChange } = {}) {
  let game = initial;
  let busy = false;
  let stopped = false;
  const score = scorebar(rules);
  const board = new Board({ rules, onAction: (action) => act(action) });
  const button = (id, label, key, onclick, extra = {}) =>
    h("button", { type: "button", class: `btn btn-tool ${extra.class || ""}`, id, onclick, "aria-keyshortcuts": key, title: `${label} (${key})` },
      h("span", { text: label }), h("kbd", { "aria-hidden": "true", text: key }));
  const tools = {
    deal: button("deal", t("action.deal"), "D", () => act({ type: "deal" })),
    undo: button("undo", t("action.undo"), "U", () => act({ type: "undo" })),
    hint: button("hint", t("action.hint"), "H", () => showHint()),
    restart: button("restart", t("action.restart"), "R", () => confirmThen("restart")),
    resign: button("resign", t("action.resign"), "X", () => confirmThen("resign"), { class: "btn-danger-ghost" }),
  };
  if (!rules.reserve) delete tools.deal; // three_blind_mice: nothing to deal
  const toolbar = h("div", { class: "toolbar", role: "toolbar", "aria-label": t("game.actions") }, Object.values(tools),
    h("button", { type: "button", class: "btn btn-tool btn-icon help-button", "aria-label": t("help.title"), title: t("help.title"), text: "?", onclick: showHelp }));
  const banner = h("div", { class: "banner", role: "status", id: "banner" });
  const wrap = h("div", { class: "play", vars: { "--cols": rules.columns } }, header(game, rules), score.el, toolbar, banner, board.el);
  container.append(wrap);

  board.el.addEventListener("picked", (event) => {
    const { code, count, targets } = event.detail;
    announce(
      t("play.picked", { card: cardName(code), count }) + " " +
      (targets.length ? t("play.targets", { cols: targets.join(", ") }) : t("play.no_targets")),
    );
  });

  function show(next, event = null, previous = null) {
    game = next;
    board.update(game, { event, previous });
    score.update(game);
    if (tools.deal) tools.deal.disabled = game.reserve === 0 || game.status !== "playing";
    tools.undo.disabled = rules.undo_depth === 0 || game.status !== "playing";
    for (const b of [tools.hint, tools.restart, tools.resign]) b.disabled = game.status !== "playing";
    banner.textContent = game.status === "playing" && game.blocked ? t("play.blocked") : "";
    banner.hidden = !banner.textContent;
    onChange?.(game);
    if (event) announce(describe(event, previous).spoken);
    if (game.status === "playing") refreshMoves();
    else finished();
  }

  async function refreshMoves() {
    const version = game.version;
    try {
      const { moves } = await api.moves(game.id);
      if (!stopped && game.version === version) board.setMoves(moves);
    } catch {
      // the board stays usable: the server still judges every drop
    }
  }

  async function reload() {
    try {
      show(await api.game(game.id));
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
    }
  }

  async function act(action) {
    if (busy || stopped || game.status !== "playing") return;
    busy = true;
    wrap.classList.add("busy");
    let retrying = null;
    try {
      const previous = game;
      const { event, game: next } = await api.command(game.id, action, game.version, {
        onRetry: () => (retrying ??= toast(t("play.retrying"), "info", 8000)),
      });
      if (!stopped) show(next, event, previous);
    } catch (error) {
      if (error instanceof api.ApiError && error.status === 409) {
        toast(t("play.conflict"), "info");
        await reload();
      } else if (error instanceof api.ApiError) {
        toast(error.detail, "error");
        board.render();
      } else {
        toast(t("error.offline"), "error");
        await reload();
      }
    } finally {
      retrying?.remove();
      busy = false;
      wrap.classList.remove("busy");
    }
  }

  async function showHint() {
    try {
      const { move, recorded, version } = await api.hint(game.id);
      // In a race the hint is recorded as an event: the board is unchanged, the version is not.
      if (recorded && version > game.version) game = { ...game, version };
      if (!move) {
        toast(t("play.no_hint"));
        return;
      }
      board.showHint(move);
      const text = move.type === "deal" ? t("play.hint_deal") : t("play.hint_move", { card: cardName(move.card), to: move.to });
      toast(text, "info", 3000);
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
    }
  }

  async function confirmThen(kind) {
    const answer = await modal({
      title: t(`confirm.${kind}_title`),
      body: [h("p", { text: t(`confirm.${kind}_text`) })],
      buttons: [
        { label: t("dialog.cancel"), value: "cancel" },
        { label: t(`action.${kind}`), value: "yes", primary: true, danger: kind === "resign" },
      ],
    });
    if (answer === "yes") await act({ type: kind });
  }

  async function finished() {
    const won = game.status === "won";
    const answer = await modal({
      title: won ? t("end.won_title") : t("end.over_title"),
      className: won ? "end won" : "end lost",
      body: [
        h("p", { class: "end-lead", text: won ? t("end.won_text") : t(`end.${game.status}_text`) }),
        h("dl", { class: "end-stats" },
          h("dt", { text: t("stats.score") }), h("dd", { text: num(game.score) }),
          h("dt", { text: t("stats.moves") }), h("dd", { text: num(game.moves) }),
          h("dt", { text: t("stats.sequences") }), h("dd", { text: `${game.removed.length}/${rules.sequences_to_win}` }),
          h("dt", { text: t("stats.time") }), h("dd", { text: clock(new Date(game.finished_at || Date.now()) - new Date(game.created_at)) }),
        ),
      ],
      buttons: [
        ...(game.challenge ? [] : [{ label: t("end.again"), value: "again", primary: true }]),
        { label: t("end.replay"), value: "replay", primary: Boolean(game.challenge) },
        { label: t("end.lobby"), value: "lobby" },
      ],
    });
    if (stopped) return;
    if (answer === "again") {
      try {
        const next = await api.post("/games", { rules: game.rules, public: game.public });
        navigate(`/games/${next.id}`);
      } catch (error) {
        toast(error.detail || t("error.network"), "error");
      }
    } else if (answer === "lobby") navigate("/");
    else if (!game.challenge || answer === "replay") navigate(`/games/${game.id}`, { replace: true });
  }

  const keys = (event) => {
    if (event.defaultPrevented || event.altKey || event.metaKey) return;
    if (event.target.closest("input, select, textarea, dialog")) return;
    const key = event.key.toLowerCase();
    if (event.ctrlKey) {
      if (key === "z") {
        event.preventDefault();
        act({ type: "undo" });
      }
      return;
    }
    const actions = { d: () => act({ type: "deal" }), u: () => act({ type: "undo" }), h: showHint, r: () => confirmThen("restart"), x: () => confirmThen("resign"), "?": showHelp };
    if (actions[key]) {
      event.preventDefault();
      actions[key]();
    } else if (event.key === "Escape") board.unpick();
  };
  document.addEventListener("keydown", keys);
  show(game);
  return () => {
    stopped = true;
    document.removeEventListener("keydown", keys);
    score.stop();
    board.destroy();
  };
}

// --- watching -----------------------------------------------------------------------------------

function mountWatch(container, initial, rules, stops) {
  let game = initial;
  const score = scorebar(rules);
  const board = new Board({ rules, label: t("board.watch_label") });
  const connection = h("span", { class: "conn", id: "connection", role: "status" });
  const watching = h("span", { class: "tag tag-live", id: "watchers", hidden: true });
  const history = moveList();
  const over = h("div", { class: "banner", id: "banner", hidden: true });
  container.append(
    h("div", { class: "watch" },
      h("div", { class: "watch-main", vars: { "--cols": rules.columns } }, header(game, rules, [watching, connection]), score.el, over, board.el),
      history.el,
    ),
  );
  const setStatus = (status) => {
    connection.className = `conn conn-${status}`;
    connection.textContent = t(`conn.${status}`);
  };
  // The history so far, then live frames; the list keys entries by seq, so none shows twice.
  api.events(game.id).then((events) => {
    for (const event of events) if (!history.list.querySelector(`[data-seq="${event.seq}"]`) && event.seq <= (feed.version ?? game.version)) history.add(event, null);
    sortList(history.list);
  }).catch(() => {});
  const me = api.session();
  const feed = new GameFeed(game.id, {
    token: !game.public && me && me.username === game.owner ? me.token : null,
    onStatus: setStatus,
    onWatchers: (count) => {
      watching.hidden = false;
      watching.textContent = t("watch.count", { n: count });
    },
    onFatal: (code) => replace(container, problem(new api.ApiError(code - 4000, { code: code === 4403 ? "private_game" : "not_found", detail: t("game.unavailable") }))),
    onGame: (next, event, arrived) => {
      const previous = game;
      game = next;
      board.update(game, { event, previous });
      score.update(game);
      if (event) {
        history.add(event, previous);
        // Measured once laid out as it will be painted (bench/web.py reads these).
        board.el.getBoundingClientRect();
        performance.measure("scorpion:frame-to-board", { start: arrived, end: performance.now() });
      }
      if (game.status !== "playing") {
        over.hidden = false;
        replace(over, h("span", { text: t(`end.watch_${game.status}`, { player: game.owner }) + " " }), h("a", { href: `/games/${game.id}`, class: "btn btn-small", id: "open-replay", text: t("end.open_replay"), onclick: (e) => { e.preventDefault(); navigate(`/games/${game.id}`, { replace: true }); } }));
      }
    },
  });
  stops.push(() => feed.close());
  score.update(game);
  board.update(game);
  return () => {
    score.stop();
    board.destroy();
  };
}

function sortList(list) {
  const items = [...list.children].sort((a, b) => a.dataset.seq - b.dataset.seq);
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
}

// --- replay -------------------------------------------------------------------------------------

const PLAY_MS = 700;

function mountReplay(container, final, rules) {
  const states = new Map([[final.version, final]]);
  const fetchState = (v) => {
    if (!states.has(v)) states.set(v, api.state(final.id, v).catch((error) => { states.delete(v); throw error; }));
    return Promise.resolve(states.get(v));
  };
  let events = [];
  let at = final.version;
  let playing = null;
  const score = scorebar(rules);
  const board = new Board({ rules, label: t("board.replay_label") });
  const range = h("input", { type: "range", min: 1, max: final.version, value: final.version, id: "scrubber", class: "scrubber", "aria-label": t("replay.position") });
  const position = h("output", { class: "position", id: "position", for: "scrubber" });
  const ctl = (id, label, shape, onclick) => h("button", { type: "button", class: "btn btn-tool btn-icon", id, "aria-label": label, title: label, onclick }, icon(shape));
  const play = ctl("replay-play", t("replay.play"), "play", () => (playing ? pause() : start()));
  const controls = h("div", { class: "toolbar replay-bar", role: "toolbar", "aria-label": t("replay.controls") },
    ctl("replay-first", t("replay.first"), "first", () => go(1)),
    ctl("replay-back", t("replay.back"), "back", () => go(at - 1)),
    play,
    ctl("replay-forward", t("replay.forward"), "forward", () => go(at + 1)),
    ctl("replay-last", t("replay.last"), "last", () => go(final.version)),
    range,
    position,
  );
  const history = moveList();
  const result = h("div", { class: "banner banner-result", id: "banner" }, t(`end.replay_${final.status}`, { player: final.owner }));
  container.append(
    h("div", { class: "watch replay" },
      h("div", { class: "watch-main", vars: { "--cols": rules.columns } }, header(final, rules, [h("span", { class: "tag", text: t("replay.tag") })]), score.el, result, controls, board.el),
      history.el,
    ),
  );
  range.addEventListener("input", () => go(Number(range.value)));
  history.list.addEventListener("click", (event) => {
    const item = event.target.closest("[data-seq]");
    if (item) go(Number(item.dataset.seq));
  });

  let shown = 0;
  async function go(version) {
    version = Math.max(1, Math.min(final.version, version));
    at = version;
    range.value = String(version);
    position.textContent = t("replay.at", { n: version, total: final.version });
    const ticket = ++shown;
    try {
      const [game, previous] = await Promise.all([fetchState(version), version > 1 ? fetchState(version - 1) : null]);
      if (ticket !== shown) return;
      const event = events.find((e) => e.seq === version) || null;
      board.update(game, { event: previous ? event : null, previous });
      // The clock of a replay stops at the time of the event shown.
      const at = events.find((e) => e.seq === version)?.at;
      score.update({ ...game, finished_at: game.finished_at || at || final.finished_at || final.created_at });
      for (const item of history.list.children) item.classList.toggle("current", Number(item.dataset.seq) === version);
      // A move's card is read from the state before it, once that state is at hand.
      const item = history.list.querySelector(`[data-seq="${version}"] span:last-child`);
      if (item && event && previous) item.textContent = describe(event, previous).text;
      history.list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
      for (let v = version + 1; v <= Math.min(final.version, version + 3); v += 1) fetchState(v).catch(() => {});
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
      pause();
    }
  }
  function start() {
    if (at >= final.version) go(1);
    play.replaceChildren(icon("pause"));
    play.setAttribute("aria-label", t("replay.pause"));
    playing = setInterval(() => (at >= final.version ? pause() : go(at + 1)), PLAY_MS);
  }
  function pause() {
    clearInterval(playing);
    playing = null;
    play.replaceChildren(icon("play"));
    play.setAttribute("aria-label", t("replay.play"));
  }
  const keys = (event) => {
    if (event.target.closest("input:not([type=range]), select, textarea, dialog") || event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = { Home: () => go(1), End: () => go(final.version), ArrowLeft: () => go(at - 1), ArrowRight: () => go(at + 1), " ": () => (playing ? pause() : start()) };
    if (actions[event.key] && !(event.target === range && event.key.startsWith("Arrow"))) {
      event.preventDefault();
      actions[event.key]();
    }
  };
  document.addEventListener("keydown", keys);
  api.events(final.id).then(async (all) => {
    events = all;
    for (const event of all) history.add(event, null);
    go(at);
  }).catch(() => go(at));
  return () => {
    pause();
    document.removeEventListener("keydown", keys);
    score.stop();
    board.destroy();
  };
}

/** Media-control icons drawn as SVG (fonts on many systems have no ⏮ or ⏭). */
const ICONS = {
  first: "M5 4h2v16H5zM19 4v16L8 12z",
  back: "M18 4v16L6 12z",
  play: "M7 4v16l12-8z",
  pause: "M6 4h4v16H6zM14 4h4v16h-4z",
  forward: "M6 4v16l12-8z",
  last: "M17 4h2v16h-2zM5 4v16l11-8z",
};

function icon(shape) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[shape]);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}
