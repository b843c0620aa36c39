// Puzzles: find the winning move of a position from real play, judged by the server's solver.
// Three ways to play (rated training, the puzzle of the day, Streak) and the dashboard of
// themes. The board is the game's board (board.js); every move is sent and judged by the
// server, which alone knows the answer: a right move is played, a wrong one ends the
// attempt with why it loses, and then the answer, the themes and the rating change show.

import * as api from "../api.js";
import { Board } from "../board.js";
import { cardName, short } from "../cards.js";
import { announce, h, replace, toast } from "../dom.js";
import { num, plural, t } from "../i18n.js";
import { navigate } from "../router.js";
import { problem, ratingText, rulesets, rulesTitle } from "../widgets.js";

export const name = "puzzles";

const MODES = [
  ["training", "/puzzles"],
  ["daily", "/puzzles/daily"],
  ["streak", "/puzzles/streak"],
  ["dashboard", "/puzzles/dashboard"],
];

export function mount(root, { mode = "training" }) {
  let alive = true;
  const stops = [() => (alive = false)];
  const me = api.session();
  const body = h("div", { class: "puzzle-body" }, h("p", { class: "muted loading", text: t("loading") }));
  const page = h("div", { class: "puzzles" }, tabs(mode), body);
  root.append(page);
  // A guest is never rated (docs/api.md#guests): Streak is theirs, the rest needs an account.
  if ((!me && mode !== "daily") || (me && me.guest && (mode === "training" || mode === "dashboard"))) {
    replace(body, h("div", { class: "panel narrow" },
      h("h1", { text: t("puzzle.title") }),
      h("p", { text: t(me ? "puzzle.guest_about" : "puzzle.about") }),
      signIn(location.pathname, me, "signin-link-puzzles"),
    ));
    return () => stops.forEach((stop) => stop());
  }
  const shown = mode === "dashboard" ? dashboard(body, me) : play(body, mode, () => alive, stops);
  shown.catch((error) => alive && replace(body, problem(error, { notFound: t("puzzle.none"), title: t("puzzle.none_title") })));
  return () => stops.forEach((stop) => stop());
}

function tabs(mode) {
  return h("nav", { class: "tabs puzzle-tabs", "aria-label": t("puzzle.modes") },
    MODES.map(([key, href]) => h("a", { href, class: "tab", id: `puzzle-tab-${key}`, "aria-selected": key === mode ? "true" : "false", text: t(`puzzle.mode_${key}`) })));
}

/** The attempt of `mode` as the server deals it: {attempt, streak}. */
async function deal(mode) {
  if (mode === "daily") {
    const day = await api.get("/puzzles/daily");
    const me = api.session();
    if (!me || me.guest) return { attempt: null, day };
    return { attempt: day.attempt || (await api.post("/puzzles/daily")), day };
  }
  if (mode === "streak") {
    const { streak, attempt } = await api.post("/puzzles/streak");
    return { attempt, streak };
  }
  return { attempt: await api.post("/puzzles/next") };
}

async function play(body, mode, alive, stops) {
  const [dealt, rules] = await Promise.all([deal(mode), rulesets()]);
  if (!alive()) return;
  if (!dealt.attempt) return showDay(body, dealt.day);
  let attempt = dealt.attempt;
  const ruleset = rules.byName[attempt.puzzle.rules];
  let busy = false;
  const board = new Board({ rules: ruleset, onAction: (action) => move(action), label: t("puzzle.board") });
  stops.push(() => board.destroy());
  const prompt = h("div", { class: "banner puzzle-prompt", role: "status", id: "puzzle-prompt" });
  const facts = h("p", { class: "puzzle-facts muted", id: "puzzle-facts" });
  const tools = h("div", { class: "toolbar puzzle-tools", role: "toolbar" });
  const after = h("div", { class: "puzzle-after", id: "puzzle-after" });
  const heading = h("h1", { class: "puzzle-heading", text: t(`puzzle.heading_${mode}`) });
  const wrap = h("div", { class: "play puzzle-play" }, h("div", { class: "puzzle-head" }, heading, facts), prompt, tools, board.el, after);
  replace(body, wrap);

  const view = (a) => ({ ...a.position, id: a.id, status: a.position.status });

  function render(event = null, previous = null) {
    board.update(view(attempt), { event, previous: previous && view(previous) });
    board.setMoves(attempt.status === "playing" ? attempt.legal : []);
    const puzzle = attempt.puzzle;
    replace(facts,
      h("span", { text: rulesTitle(ruleset) }), " · ",
      h("span", { id: "puzzle-rating", text: t("puzzle.rated_at", { rating: num(Math.round(puzzle.rating)) }) }), " · ",
      h("span", { text: plural("puzzle.moves_to_find", puzzle.length) }),
      attempt.streak ? [" · ", h("span", { id: "streak-count", class: "tag tag-streak", text: plural("puzzle.streak_count", attempt.streak.solved) })] : null,
    );
    replace(tools,
      attempt.status === "playing"
        ? h("button", { type: "button", class: "btn btn-tool btn-danger-ghost", id: "puzzle-give-up", text: t("puzzle.give_up"), onclick: () => giveUp() })
        : h("button", { type: "button", class: "btn btn-primary", id: "puzzle-next", text: nextLabel(), onclick: () => next() }),
    );
    prompt.className = `banner puzzle-prompt puzzle-${attempt.status}`;
    if (attempt.status === "playing") {
      const played = attempt.moves.length;
      prompt.textContent = played ? t("puzzle.keep_going", { n: played + 1, of: puzzle.length }) : t("puzzle.find");
    } else {
      prompt.textContent = attempt.status === "solved" ? t("puzzle.solved") : attempt.reason?.code === "gave_up" ? t("puzzle.gave_up") : t("puzzle.wrong");
    }
    replace(after, attempt.status === "playing" ? null : ended());
  }

  function nextLabel() {
    if (mode === "daily") return t("puzzle.train");
    if (mode === "streak") return attempt.streak?.status === "ended" ? t("puzzle.streak_again") : t("puzzle.next");
    return t("puzzle.next");
  }

  /** What the end shows: why it failed, the rating change, the themes, the answer. */
  function ended() {
    const puzzle = attempt.puzzle;
    const rating = attempt.rating;
    const change = rating ? Math.round(rating.change) : null;
    return h("section", { class: "panel puzzle-result", "aria-labelledby": "puzzle-result-title" },
      h("h2", { id: "puzzle-result-title", text: attempt.status === "solved" ? t("puzzle.result_solved") : t("puzzle.result_failed") }),
      attempt.reason && attempt.reason.code !== "gave_up"
        ? h("p", { class: "puzzle-reason", id: "puzzle-reason" },
            attempt.wrong ? h("strong", { text: (attempt.wrong.type === "deal" ? t("puzzle.your_deal") : t("puzzle.your_move", { card: cardName(attempt.wrong.card), to: attempt.wrong.to })) + " " }) : null,
            attempt.reason.detail)
        : null,
      h("dl", { class: "end-stats puzzle-stats" },
        rating ? [h("dt", { text: t("puzzle.your_rating") }), h("dd", { id: "puzzle-rating-change" },
          ratingText(rating.after, rating.provisional), " ",
          h("span", { class: `rating-change ${change > 0 ? "up" : change < 0 ? "down" : ""}`, id: "rating-change", text: change > 0 ? `+${num(change)}` : change < 0 ? `−${num(-change)}` : "±0" }))] : null,
        attempt.streak ? [h("dt", { text: t("puzzle.streak") }), h("dd", { id: "streak-result", text: t("puzzle.streak_best", { n: attempt.streak.solved, best: attempt.streak.best }) })] : null,
        h("dt", { text: t("puzzle.themes") }),
        h("dd", { id: "puzzle-themes", class: "themes" }, (puzzle.themes || []).length
          ? puzzle.themes.map((theme) => h("span", { class: "tag theme", "data-theme": theme, title: t(`theme.${theme}.about`), text: t(`theme.${theme}`) }))
          : t("puzzle.no_theme")),
        h("dt", { text: t("puzzle.solution") }),
        h("dd", { id: "puzzle-solution" }, h("ol", { class: "solution-list" }, (puzzle.solution || []).map((step) => h("li", { text: stepText(step) })))),
        puzzle.game ? [h("dt", { text: t("puzzle.found_in") }), h("dd", {}, h("a", { href: `/games/${puzzle.game}`, id: "puzzle-source", text: t("puzzle.the_game", { version: puzzle.version }) }),
          puzzle.played ? [" · ", h("span", { text: (puzzle.mistake ? t("puzzle.played_mistake") : t("puzzle.played")) + " " + stepText(puzzle.played) })] : null)] : null,
      ),
      attempt.status === "failed" ? h("button", { type: "button", class: "btn btn-small", id: "puzzle-show-answer", text: t("puzzle.show_answer"), onclick: () => showAnswer() }) : null,
    );
  }

  async function move(action) {
    if (busy || attempt.status !== "playing") return;
    busy = true;
    wrap.classList.add("busy");
    try {
      const previous = attempt;
      const answer = await api.post(`/puzzles/attempts/${attempt.id}/moves`, { ...action, ply: attempt.moves.length });
      attempt = answer.attempt;
      if (answer.verdict === "right") {
        render(answer.event, previous);
        announce(attempt.status === "solved" ? t("puzzle.solved") : t("puzzle.right"));
      } else {
        render();
        board.showHint(answer.attempt.wrong);
        announce(t("puzzle.wrong") + " " + (attempt.reason?.detail || ""));
      }
    } catch (error) {
      if (error instanceof api.ApiError && error.status === 409) attempt = await api.get(`/puzzles/attempts/${attempt.id}`);
      else toast(error.detail || t("error.network"), "error");
      render();
    } finally {
      busy = false;
      wrap.classList.remove("busy");
    }
  }

  async function giveUp() {
    try {
      attempt = await api.post(`/puzzles/attempts/${attempt.id}/give-up`);
      render();
    } catch (error) {
      toast(error.detail || t("error.network"), "error");
    }
  }

  async function next() {
    if (mode === "daily") return navigate("/puzzles");
    try {
      const dealt = await deal(mode);
      if (!dealt.attempt) {
        toast(t("puzzle.streak_complete"), "info");
        return;
      }
      if (dealt.attempt.puzzle.rules !== attempt.puzzle.rules) return navigate(location.pathname, { replace: true });
      attempt = dealt.attempt;
      render();
    } catch (error) {
      if (error instanceof api.ApiError) replace(body, problem(error, { notFound: t("puzzle.none"), title: t("puzzle.none_title") }));
      else toast(t("error.network"), "error");
    }
  }

  /** Point at the right move where the attempt went wrong (or at the line's first). */
  function showAnswer() {
    const right = attempt.answers?.[0] || attempt.puzzle.solution?.[attempt.moves.length];
    if (right) board.showHint(right);
  }

  render();
}

/** A move of the answer, as a player writes it: "7♠ → 4", "deal". */
function stepText(step) {
  if (step.type === "deal") return t("puzzle.deal");
  return t("puzzle.step", { card: short(step.card), to: step.to });
}

function showDay(body, day) {
  replace(body, h("div", { class: "panel narrow" },
    h("h1", { text: t("puzzle.heading_daily") }),
    h("p", { text: t("puzzle.day_about", { date: day.date, plays: day.plays }) }),
    signIn("/puzzles/daily", api.session()),
  ));
}

/** The way to an account: signing in for a visitor, signing up for a guest. */
function signIn(next, me, id) {
  const href = `/signin?${me ? "mode=signup&" : ""}next=${encodeURIComponent(next)}`;
  return h("a", { href, class: "btn btn-primary", id, text: t(me ? "account.guest_signup" : "nav.signin") });
}

async function dashboard(body, me) {
  const board = await api.get(`/players/${encodeURIComponent(me.username)}/puzzles`);
  const rows = board.themes;
  replace(body, h("section", { class: "panel puzzle-dashboard", "aria-labelledby": "dashboard-title" },
    h("h1", { id: "dashboard-title", text: t("puzzle.dashboard_title") }),
    h("dl", { class: "end-stats" },
      h("dt", { text: t("puzzle.your_rating") }), h("dd", { id: "dashboard-rating" }, ratingText(board.rating, board.provisional)),
      h("dt", { text: t("puzzle.solved_failed") }), h("dd", { id: "dashboard-counts", text: t("puzzle.counts", { solved: num(board.solved), failed: num(board.failed) }) }),
      h("dt", { text: t("puzzle.best_streak") }), h("dd", { id: "dashboard-streak", text: num(board.best_streak) }),
    ),
    h("h2", { text: t("puzzle.themes_failed") }),
    rows.length
      ? h("table", { class: "table themes-table", id: "themes-table" },
          h("thead", {}, h("tr", {}, h("th", { text: t("puzzle.theme") }), h("th", { text: t("puzzle.attempts") }), h("th", { text: t("puzzle.failed") }), h("th", { text: t("puzzle.failure") }))),
          h("tbody", {}, rows.map((row) => h("tr", { "data-theme": row.theme },
            h("td", {}, h("span", { class: "tag theme", text: t(`theme.${row.theme}`), title: t(`theme.${row.theme}.about`) })),
            h("td", { text: num(row.attempts) }),
            h("td", { text: num(row.failed) }),
            h("td", {}, h("span", { class: "failure-bar", vars: { "--share": String(row.failure) } }), " ", num(Math.round(row.failure * 100)), "%"),
          ))))
      : h("p", { class: "muted", id: "themes-none", text: t("puzzle.no_attempts") }),
    h("p", {}, h("a", { href: "/puzzles", class: "btn btn-primary", text: t("puzzle.train") })),
  ));
}
