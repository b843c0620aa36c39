// A finished game (or a game of a race that is over) as a replay: a scrubber over every
// version, step and play controls, the move list, each move named by its card, and the
// game in the notation to download. Under the result, what the solver found (analysis.js):
// whether the deal could be won, where the win was lost, and a winning line from the last
// winnable position, played on the same board.

import { analysisPanel } from "./analysis.js";
import * as api from "./api.js";
import { Board } from "./board.js";
import { h, replace, toast } from "./dom.js";
import { describe, header, moveList, playDealButton, scorebar } from "./gamebits.js";
import { plural, t } from "./i18n.js";
import { playLine } from "./line.js";

const PLAY_MS = 700;

/** Replay `final` in `container`; returns a stop function. With `showLine`, the winning
 *  line (if the deal had one) is played as soon as the analysis is in. */
export function mountReplay(container, final, rules, { showLine = new URLSearchParams(location.search).has("line") } = {}) {
  const states = new Map([[final.version, final]]);
  const fetchState = (v) => {
    if (!states.has(v)) states.set(v, api.state(final.id, v).catch((error) => { states.delete(v); throw error; }));
    return Promise.resolve(states.get(v));
  };
  let events = [];
  let at = final.version;
  let line = null; // while the winning line is shown: its steps (line.js), from its start
  let playing = null;
  const score = scorebar(rules);
  const board = new Board({ rules, label: t("board.replay_label") });
  const range = h("input", { type: "range", min: 1, max: final.version, value: final.version, id: "scrubber", class: "scrubber", "aria-label": t("replay.position") });
  const position = h("output", { class: "position", id: "position", for: "scrubber" });
  const ctl = (id, label, shape, onclick) => h("button", { type: "button", class: "btn btn-tool btn-icon", id, "aria-label": label, title: label, onclick }, icon(shape));
  const play = ctl("replay-play", t("replay.play"), "play", () => (playing ? pause() : start()));
  const controls = h("div", { class: "toolbar replay-bar", role: "toolbar", "aria-label": t("replay.controls") },
    ctl("replay-first", t("replay.first"), "first", () => go(first())),
    ctl("replay-back", t("replay.back"), "back", () => go(at - 1)),
    play,
    ctl("replay-forward", t("replay.forward"), "forward", () => go(at + 1)),
    ctl("replay-last", t("replay.last"), "last", () => go(last())),
    range,
    position,
    h("button", { type: "button", class: "btn btn-tool", id: "replay-download", title: t("replay.download"), onclick: download }, ".scorpion"),
  );
  const history = moveList();
  const result = h("div", { class: "banner banner-result", id: "banner" }, t(`end.replay_${final.status}`, { player: final.owner }));
  const solver = final.status === "playing" ? null : analysisPanel(final, { onLine: (analysis) => showWinningLine(analysis) });
  const lineBar = h("div", { class: "banner banner-line", id: "line-banner", hidden: true });
  const lineList = moveList();
  lineList.el.hidden = true;
  lineList.el.querySelector("h2").textContent = t("analysis.line_title");
  lineList.list.id = "line-list";
  const page = h("div", { class: "watch replay" },
    h("div", { class: "watch-main" }, header(final, rules, [h("span", { class: "tag", text: t("replay.tag") }), playDealButton(final)]), h("div", { class: "bar" }, score.el), result, solver?.el, lineBar, controls, board.el),
    history.el,
    lineList.el,
  );
  container.append(page);
  range.addEventListener("input", () => go(Number(range.value)));
  history.list.addEventListener("click", (event) => {
    const item = event.target.closest("[data-seq]");
    if (item) go(Number(item.dataset.seq));
  });
  lineList.list.addEventListener("click", (event) => {
    const item = event.target.closest("[data-seq]");
    if (item) go(Number(item.dataset.seq));
  });
  const marks = []; // drawn again once the move list is in
  solver?.ready.then((analysis) => {
    if (!analysis) return;
    if (analysis.winnable && analysis.lost_at) {
      // The move after which the deal could no longer be won is marked in the move list.
      const mark = () => history.list.querySelector(`[data-seq="${analysis.lost_at}"]`)?.classList.add("lost-here");
      mark();
      marks.push(mark);
    }
    if (showLine) showWinningLine(analysis);
  });

  /** Show the analysis' winning line on the board, from its last winnable position. */
  async function showWinningLine(analysis) {
    if (!analysis.line?.length || !analysis.last_winnable) return;
    pause();
    let start;
    try {
      start = await fetchState(analysis.last_winnable);
    } catch (error) {
      return toast(error.detail || t("error.network"), "error");
    }
    line = playLine(start, analysis.line, rules);
    replace(lineList.list);
    line.slice(1).forEach((step, i) => lineList.add(step.event, line[i].game));
    replace(lineBar,
      h("span", { text: plural("analysis.line_banner", analysis.line.length, { from: analysis.last_winnable }) + " " }),
      h("button", { type: "button", class: "btn btn-small", id: "line-exit", text: t("analysis.back_to_game"), onclick: leaveLine }),
    );
    lineBar.hidden = false;
    if (solver) solver.el.hidden = true; // the line's banner says it all meanwhile
    history.el.hidden = true;
    lineList.el.hidden = false;
    range.min = "0";
    range.max = String(analysis.line.length);
    range.setAttribute("aria-label", t("analysis.line_position"));
    board.refit(); // the banners above it changed: the cards take the room there is
    go(0);
    startPlaying();
  }
  function leaveLine() {
    pause();
    line = null;
    lineBar.hidden = true;
    if (solver) solver.el.hidden = false;
    history.el.hidden = false;
    lineList.el.hidden = true;
    range.min = "1";
    range.max = String(final.version);
    range.setAttribute("aria-label", t("replay.position"));
    board.refit();
    go(final.version);
  }
  /** Step `n` of the line shown: its position, and the one before it to slide from. */
  function lineStep(n) {
    n = Math.max(0, Math.min(line.length - 1, n));
    at = n;
    range.value = String(n);
    position.textContent = t("replay.at", { n, total: line.length - 1 });
    const { game, event } = line[n];
    score.update({ ...game, finished_at: final.finished_at || final.created_at });
    board.update(game, { event, previous: n ? line[n - 1].game : null, animate: true });
    for (const item of lineList.list.children) item.classList.toggle("current", Number(item.dataset.seq) === n);
    lineList.list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
  }
  const last = () => (line ? line.length - 1 : final.version);
  const first = () => (line ? 0 : 1);

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
    if (line) return lineStep(version);
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
    if (at >= last()) go(first());
    startPlaying();
  }
  function startPlaying() {
    clearInterval(playing);
    play.replaceChildren(icon("pause"));
    play.setAttribute("aria-label", t("replay.pause"));
    play.title = t("replay.pause");
    playing = setInterval(() => (at >= last() ? pause() : go(at + 1)), PLAY_MS);
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
    const actions = { Home: () => go(first()), End: () => go(last()), ArrowLeft: () => go(at - 1), ArrowRight: () => go(at + 1), " ": () => (playing ? pause() : start()) };
    if (actions[event.key] && !(event.target === range && event.key.startsWith("Arrow"))) {
      event.preventDefault();
      actions[event.key]();
    }
  };
  document.addEventListener("keydown", keys);
  api.events(final.id).then((all) => {
    events = all;
    for (const event of all) history.add(event, null);
    marks.forEach((mark) => mark());
    if (!line) go(at);
  }).catch(() => line || go(at));
  return () => {
    pause();
    solver?.stop();
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
