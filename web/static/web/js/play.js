// The owner's board with its commands: used by a game's own page, the daily race, a race's
// deals and an arena's. In a daily, race or arena game the first hint asks first, and says
// what it costs (the server records it and the standings mark the player as aided). With
// auto-finish on (prefs.js), once every card is face up and the reserve dealt, the server's
// winning line (GET /games/{id}/finish) is played out as ordinary commands, one at a time.

import * as api from "./api.js";
import { Board } from "./board.js";
import { cardName } from "./cards.js";
import { announce, clock, h, modal, toast } from "./dom.js";
import { header, describe, scorebar, startGame } from "./gamebits.js";
import { num, plural, t } from "./i18n.js";
import { moving } from "./motion.js";
import { prefs } from "./prefs.js";
import { navigate } from "./router.js";
import { play as sound, soundOf } from "./sound.js";
import { ratingText } from "./widgets.js";

const HINTED = "scorpion.hinted";
const CELEBRATION_PAUSE_MS = 1200;
/** Between the moves of an auto-finish: long enough to see each slide (short without). */
const FINISH_STEP_MS = 260;
const FINISH_STEP_STILL_MS = 60;

/** Whether this browser already showed a hint in game `id` (so no second warning). */
function hintedBefore(id) {
  return JSON.parse(localStorage.getItem(HINTED) || "[]").includes(id);
}

function rememberHint(id) {
  const seen = JSON.parse(localStorage.getItem(HINTED) || "[]").filter((other) => other !== id);
  localStorage.setItem(HINTED, JSON.stringify([id, ...seen].slice(0, 50)));
}

/** What a game races in, for the hint's warning: "daily", "race", "arena" or null. */
function contestOf(game, kind) {
  if (game.challenge) return "daily";
  if (game.contest) return kind || "race";
  return null;
}

/**
 * Mount the owner's board of `initial` in `container`; returns a stop function.
 * `onChange(game)` hears every new state; `onFinished(game)`, if given, replaces the end
 * dialog (a race moves on to its next deal); `kind` names the contest ("race", "arena").
 */
/** The shortcuts dialog, loaded when first asked for. */
function showHelp() {
  return import("./help.js").then((m) => m.showHelp());
}

export function mountPlay(container, initial, rules, { onChange, onFinished, kind = null, heading = true } = {}) {
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
    h("button", { type: "button", class: "btn btn-tool btn-icon help-button", "aria-label": t("help.title"), title: t("help.title"), text: "?", onclick: () => showHelp() }));
  const banner = h("div", { class: "banner", role: "status", id: "banner", hidden: true });
  const wrap = h("div", { class: "play" }, heading ? header(game, rules) : null, h("div", { class: "bar" }, score.el, toolbar), banner, board.el);
  container.append(wrap);

  board.el.addEventListener("picked", (event) => {
    const { code, count, targets } = event.detail;
    announce(
      plural("play.picked", count, { card: cardName(code) }) + " " +
      (targets.length ? t("play.targets", { cols: targets.join(", ") }) : t("play.no_targets")),
    );
  });

  function show(next, event = null, previous = null) {
    game = next;
    score.update(game); // first: the board fits the room the score bar leaves it
    board.update(game, { event, previous });
    if (tools.deal) tools.deal.disabled = game.reserve === 0 || game.status !== "playing";
    tools.undo.disabled = rules.undo_depth === 0 || game.status !== "playing";
    for (const b of [tools.hint, tools.restart, tools.resign]) b.disabled = game.status !== "playing";
    banner.textContent = game.status === "playing" && game.blocked ? t("play.blocked") : "";
    banner.hidden = !banner.textContent;
    onChange?.(game);
    if (event) {
      announce(describe(event, previous).spoken);
      sound(soundOf(event, game));
    }
    if (event?.type === "undone" || event?.type === "restarted") finishLost = false;
    if (game.status === "playing") {
      refreshMoves();
      autoFinish();
    } else if (event) setTimeout(finished, game.status === "won" && moving() ? CELEBRATION_PAUSE_MS : 0);
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

  // Auto-finish: asked once per version while nothing is hidden; a position the solver
  // proved lost stays lost whatever is played, until an undo or a restart.
  let finishAskedAt = null;
  let finishLost = false;
  let finishing = false;

  async function autoFinish() {
    const hidden = game.reserve > 0 || game.columns.some((column) => column.some((code) => !code));
    if (!prefs().auto_finish || hidden || finishing || finishLost || finishAskedAt === game.version) return;
    finishAskedAt = game.version;
    let answer = null;
    // Asked again after Retry-After while the solver is busy (twice at most, while the
    // board is unchanged); not offered here (a race, a rated game): the player plays on.
    for (let tries = 0; !answer && tries < 3; tries += 1) {
      try {
        answer = await api.get(`/games/${encodeURIComponent(game.id)}/finish`);
      } catch (error) {
        const later = error instanceof api.ApiError && (error.status === 429 || error.status === 503);
        if (!later || stopped || finishAskedAt !== game.version) return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5, error.retryAfter || 1) * 1000));
      }
    }
    if (!answer) return;
    finishLost = answer.verdict === "lost";
    if (answer.verdict !== "won" || stopped || game.version !== answer.version) return;
    finishing = true;
    toast(t("play.finishing"), "info", 2500);
    try {
      for (const command of answer.line) {
        await new Promise((resolve) => setTimeout(resolve, moving() ? FINISH_STEP_MS : FINISH_STEP_STILL_MS));
        const before = game.version;
        if (stopped || busy || game.status !== "playing" || !prefs().auto_finish) return;
        await act(command);
        if (game.version === before) return; // refused or lost in transit: the player goes on
      }
    } finally {
      finishing = false;
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
        sound("refused");
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

  /** In a contest the first hint is confirmed first: it is recorded, and it costs. */
  async function confirmHint() {
    const contest = contestOf(game, kind);
    if (!contest || hintedBefore(game.id)) return true;
    const answer = await modal({
      title: t("confirm.hint_title"),
      className: "hint-confirm",
      body: [h("p", { text: t(`confirm.hint_${contest}`) }), h("p", { class: "muted", text: t("confirm.hint_recorded") })],
      buttons: [
        { label: t("dialog.cancel"), value: "cancel", primary: true },
        { label: t("confirm.hint_yes"), value: "yes" },
      ],
    });
    return answer === "yes";
  }

  async function showHint() {
    if (game.status !== "playing" || !(await confirmHint()) || stopped) return;
    try {
      const { move, recorded, version } = await api.hint(game.id);
      if (recorded) rememberHint(game.id);
      // In a contest the hint is recorded as an event: the board is unchanged, the version is not.
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
    if (stopped) return;
    if (onFinished) return onFinished(game);
    const won = game.status === "won";
    // What the solver says of the deal: could it be won, and where was the win lost. Its
    // module loads only now, so that a game's first view does not wait for it.
    const { analysisPanel, hasLine } = await import("./analysis.js");
    const solver = analysisPanel(game, { id: "end-analysis" });
    const rating = game.rated ? h("dd", { id: "end-rating", text: "…" }) : null;
    if (rating) showRatingChange(rating, game);
    // The daily's streak of days in a row, as the game's end leaves it.
    const streak = game.challenge ? h("dd", { id: "end-streak", text: "…" }) : null;
    if (streak) api.player(game.owner).then((record) => (streak.textContent = plural("daily.streak_days", record.streak))).catch(() => (streak.textContent = "—"));
    solver.ready.then((analysis) => {
      if (analysis && hasLine(analysis)) {
        solver.el.append(" ", h("button", { type: "button", class: "btn btn-small", id: "end-line", "data-close": "line", text: t("analysis.show_line") }));
      }
    });
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
          rating ? [h("dt", { text: t("rating.label") }), rating] : null,
          streak ? [h("dt", { text: t("profile.streak") }), streak] : null,
        ),
        solver.el,
      ],
      buttons: [
        ...(game.challenge ? [] : [{ label: t("end.again"), value: "again", primary: true }]),
        { label: t("end.replay"), value: "replay", primary: Boolean(game.challenge) },
        { label: t("end.lobby"), value: "lobby" },
      ],
    });
    solver.stop();
    if (stopped) return;
    if (answer === "line") navigate(`/games/${game.id}?line`, { replace: true });
    else if (answer === "again") {
      try {
        // The same kind of game again: rated, or a certified deal, if this one was.
        const kind = game.rated ? { rated: true } : game.certified ? { winnable: true } : {};
        const next = await startGame({ rules: game.rules, public: game.public, ...kind });
        navigate(next ? `/games/${next.id}` : "/");
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
    const actions = { d: () => act({ type: "deal" }), u: () => act({ type: "undo" }), h: showHint, r: () => confirmThen("restart"), x: () => confirmThen("resign"), "?": () => showHelp() };
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
    wrap.remove();
  };
}

/** A rated game's rating change in `cell` ("1689 +189"): from the game's `rating` (the last
 *  command's answer carries it), else read once more, as the score may come just after. */
async function showRatingChange(cell, game) {
  let rating = game.rating;
  for (let tries = 0; !rating && tries < 3; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, tries ? 700 : 0));
    rating = (await api.game(game.id).catch(() => null))?.rating;
  }
  if (!rating) {
    cell.textContent = "—";
    return;
  }
  const change = Math.round(rating.change);
  cell.replaceChildren(
    ratingText(rating.after, rating.provisional),
    " ",
    h("span", { class: `rating-change ${change > 0 ? "up" : change < 0 ? "down" : ""}`, id: "rating-change", text: change > 0 ? `+${num(change)}` : change < 0 ? `−${num(-change)}` : "±0" }),
  );
}
