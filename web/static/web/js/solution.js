// A closed day's solution, played on a replay board: every card face up (the day is over),
// a scrubber over its steps and the same controls as a game's replay.

import * as api from "./api.js";
import { Board } from "./board.js";
import { h, toast } from "./dom.js";
import { describe } from "./gamebits.js";
import { t } from "./i18n.js";
import { icon } from "./replay.js";

const PLAY_MS = 600;

/** Show day `day`'s solution in `container` (the day must be closed), with `extra` (a
 *  button) beside its title; a stop function. */
export function mountSolution(container, day, rules, { extra = null } = {}) {
  const steps = day.solution.length;
  const states = new Map();
  const fetchStep = (n) => {
    if (!states.has(n)) states.set(n, api.solutionStep(day.date, n).catch((error) => { states.delete(n); throw error; }));
    return states.get(n);
  };
  let at = 0;
  let playing = null;
  const board = new Board({ rules, label: t("solution.board") });
  const range = h("input", { type: "range", min: 0, max: steps, value: 0, id: "solution-scrubber", class: "scrubber", "aria-label": t("replay.position") });
  const position = h("output", { class: "position", id: "solution-position", for: "solution-scrubber" });
  const said = h("p", { class: "solution-step", id: "solution-step", "aria-live": "polite" });
  const ctl = (id, label, shape, onclick) => h("button", { type: "button", class: "btn btn-tool btn-icon", id, "aria-label": label, title: label, onclick }, icon(shape));
  const play = ctl("solution-play", t("replay.play"), "play", () => (playing ? pause() : start()));
  const panel = h("section", { class: "solution", "aria-labelledby": "solution-title" },
    h("div", { class: "solution-head" }, h("h2", { id: "solution-title", text: t("solution.title") }), extra),
    h("div", { class: "toolbar replay-bar", role: "toolbar", "aria-label": t("replay.controls") },
      ctl("solution-first", t("replay.first"), "first", () => go(0)),
      ctl("solution-back", t("replay.back"), "back", () => go(at - 1)),
      play,
      ctl("solution-forward", t("replay.forward"), "forward", () => go(at + 1)),
      ctl("solution-last", t("replay.last"), "last", () => go(steps)),
      range,
      position,
    ),
    said,
    board.el,
  );
  container.append(panel);
  range.addEventListener("input", () => go(Number(range.value)));

  let shown = 0;
  async function go(step) {
    step = Math.max(0, Math.min(steps, step));
    const from = at;
    at = step;
    range.value = String(step);
    position.textContent = t("replay.at", { n: step, total: steps });
    const ticket = ++shown;
    try {
      const [now, before] = await Promise.all([fetchStep(step), step > 0 ? fetchStep(step - 1) : null]);
      if (ticket !== shown) return;
      const event = now.action ? { seq: step, type: now.action.type === "deal" ? "dealt" : "moved", data: now.action } : null;
      board.update(now, { event: before && event, previous: before, animate: step === from + 1 });
      said.textContent = event && before ? describe(event, before).spoken : t("solution.start");
      for (let n = step + 1; n <= Math.min(steps, step + 3); n += 1) fetchStep(n).catch(() => {});
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
      pause();
    }
  }
  function start() {
    if (at >= steps) go(0);
    play.replaceChildren(icon("pause"));
    play.setAttribute("aria-label", t("replay.pause"));
    playing = setInterval(() => (at >= steps ? pause() : go(at + 1)), PLAY_MS);
  }
  function pause() {
    clearInterval(playing);
    playing = null;
    play.replaceChildren(icon("play"));
    play.setAttribute("aria-label", t("replay.play"));
  }
  go(0);
  return () => {
    pause();
    board.destroy();
    panel.remove();
  };
}
