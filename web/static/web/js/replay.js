// A finished game (or a game of a race that is over) as a replay: a scrubber over every
// version, step and play controls, the move list, each move named by its card, and the
// game in the notation to download.

import * as api from "./api.js";
import { Board } from "./board.js";
import { h, toast } from "./dom.js";
import { describe, header, moveList, scorebar } from "./gamebits.js";
import { t } from "./i18n.js";

const PLAY_MS = 700;

/** Replay `final` in `container`; returns a stop function. */
export function mountReplay(container, final, rules) {
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
    h("button", { type: "button", class: "btn btn-tool", id: "replay-download", title: t("replay.download"), onclick: download }, ".scorpion"),
  );
  const history = moveList();
  const result = h("div", { class: "banner banner-result", id: "banner" }, t(`end.replay_${final.status}`, { player: final.owner }));
  const page = h("div", { class: "watch replay" },
    h("div", { class: "watch-main" }, header(final, rules, [h("span", { class: "tag", text: t("replay.tag") })]), h("div", { class: "bar" }, score.el), result, controls, board.el),
    history.el,
  );
  container.append(page);
  range.addEventListener("input", () => go(Number(range.value)));
  history.list.addEventListener("click", (event) => {
    const item = event.target.closest("[data-seq]");
    if (item) go(Number(item.dataset.seq));
  });

  // The game in the notation, saved as a file (fetched with the token: a link carries none).
  async function download() {
    try {
      const url = URL.createObjectURL(await api.notation(final.id));
      const link = h("a", { href: url, download: `${final.id}.scorpion`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
    }
  }

  let shown = 0;
  async function go(version) {
    version = Math.max(1, Math.min(final.version, version));
    const from = at;
    at = version;
    range.value = String(version);
    position.textContent = t("replay.at", { n: version, total: final.version });
    const ticket = ++shown;
    try {
      const [game, previous] = await Promise.all([fetchState(version), version > 1 ? fetchState(version - 1) : null]);
      if (ticket !== shown) return;
      const event = events.find((e) => e.seq === version) || null;
      // The clock of a replay stops at the time of the event shown.
      score.update({ ...game, finished_at: game.finished_at || event?.at || final.finished_at || final.created_at });
      // One step forward slides the cards; a jump just shows the position.
      board.update(game, { event: previous ? event : null, previous, animate: version === from + 1 });
      for (const item of history.list.children) item.classList.toggle("current", Number(item.dataset.seq) === version);
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
    play.title = t("replay.pause");
    playing = setInterval(() => (at >= final.version ? pause() : go(at + 1)), PLAY_MS);
  }
  function pause() {
    clearInterval(playing);
    playing = null;
    play.replaceChildren(icon("play"));
    play.setAttribute("aria-label", t("replay.play"));
    play.title = t("replay.play");
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
  api.events(final.id).then((all) => {
    events = all;
    for (const event of all) history.add(event, null);
    go(at);
  }).catch(() => go(at));
  return () => {
    pause();
    document.removeEventListener("keydown", keys);
    score.stop();
    board.destroy();
    page.remove();
  };
}

/** Media-control icons drawn as SVG (fonts on many systems have no ⏮ or ⏭): step back and
 *  step forward are double triangles, so that neither looks like play. */
const ICONS = {
  first: "M5 4h2v16H5zM19 4v16L8 12z",
  back: "M21 5v14l-8-7zM12 5v14l-8-7z",
  play: "M7 4v16l12-8z",
  pause: "M6 4h4v16H6zM14 4h4v16h-4z",
  forward: "M3 5v14l8-7zM12 5v14l8-7z",
  last: "M17 4h2v16h-2zM5 4v16l11-8z",
};

export function icon(shape) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  svg.dataset.shape = shape;
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[shape]);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}
