// What the solver knows of a finished game, told to its players: whether the deal could be
// won, the move after which the win was lost (the analysis' `lost_at`), and whether a
// winning line from the last winnable position can be shown (replay.js plays it).

import * as api from "./api.js";
import { h } from "./dom.js";
import { t, when } from "./i18n.js";

/** The longest the page waits for a search the server runs in the background. */
const WAIT_MS = 120_000;

const pause = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("stopped", "AbortError"));
    });
  });

/**
 * GET /games/{id}/analysis. A long search is answered 202 while it runs in the background,
 * a caller past their bounds of solver work 429, and a server whose solver is fully busy
 * 503 solver_overloaded: the same address is asked again after its Retry-After (1 to 10 s)
 * until the answer comes.
 * Resolves to the analysis; rejects with the API's error (one's own game of a daily whose
 * day is open, or of a contest still running, is 403 analysis_not_yet) or, past WAIT_MS, an ApiError coded "analysis_pending".
 */
export async function loadAnalysis(id, { signal } = {}) {
  const path = `/games/${encodeURIComponent(id)}/analysis`;
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    let retryAfter;
    try {
      const { data, response } = await api.request(path, { signal });
      if (response.status !== 202) return data;
      retryAfter = Number(response.headers.get("Retry-After"));
    } catch (error) {
      // 429 solver_busy or solver_throttled: the caller's solver work is at its bounds;
      // 503 solver_overloaded: the server's is. Nothing was queued: asked again later.
      const later = error.status === 429 || error.code === "solver_overloaded";
      if (!later || performance.now() > deadline) throw error;
      retryAfter = error.retryAfter;
    }
    if (performance.now() > deadline) throw new api.ApiError(202, { code: "analysis_pending", detail: t("analysis.pending") });
    await pause(Math.min(10, Math.max(1, retryAfter || 1)) * 1000, signal);
  }
}

/** When the day `date` (YYYY-MM-DD) closes: midnight UTC after it, as an ISO instant. */
export function dayCloses(date) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString();
}

/** "The solver's verdict comes when the day closes: Tue 01:00 CET", in the reader's time. */
export function verdictAt(date) {
  return t("analysis.after_daily", { time: when(dayCloses(date), { weekday: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" }) });
}

/** Whether `analysis` has a winning line to show (from its last winnable position). */
export function hasLine(analysis) {
  return Boolean(analysis?.winnable && analysis.line?.length && analysis.last_winnable);
}

/** The sentence that says what the solver found, for `game` (finished). */
export function verdict(analysis, game) {
  if (analysis.winnable === false) return t("analysis.never");
  if (analysis.winnable !== true) return t("analysis.unknown");
  if (game.status === "won") return t("analysis.won");
  if (analysis.lost_at) return t("analysis.lost_at", { n: analysis.lost_at });
  return t("analysis.still_winnable");
}

/**
 * A panel that asks for the analysis of `game` and says what it found, with a button that
 * shows the winning line (`onLine(analysis)`), when there is one and `onLine` is given.
 * Returns {el, stop, ready}: `ready` resolves to the analysis (or null when there is none).
 */
export function analysisPanel(game, { onLine = null, id = "analysis" } = {}) {
  const text = h("span", { class: "analysis-text", text: t("analysis.asking") });
  const el = h("div", { class: "analysis", id, role: "status" }, text);
  const stopper = new AbortController();
  const ready = loadAnalysis(game.id, { signal: stopper.signal })
    .then((analysis) => {
      text.textContent = verdict(analysis, game);
      el.dataset.verdict = analysis.winnable === true ? "winnable" : analysis.winnable === false ? "lost" : "unknown";
      if (onLine && hasLine(analysis)) {
        el.append(" ", h("button", { type: "button", class: "btn btn-small", id: `${id}-line`, text: t("analysis.show_line"), onclick: () => onLine(analysis) }));
      }
      return analysis;
    })
    .catch((error) => {
      if (error.name === "AbortError") return null;
      // A day still open keeps its games' analyses for later, and says when that is; anything
      // else is said plainly.
      const later = error.code === "analysis_not_yet" || error.code === "challenge_in_progress";
      text.textContent = later && game.challenge ? verdictAt(game.challenge)
        : later ? t("analysis.after_day")
        : error.code === "analysis_pending" ? t("analysis.pending") : t("analysis.unavailable");
      el.dataset.verdict = "none";
      return null;
    });
  return { el, ready, stop: () => stopper.abort() };
}
