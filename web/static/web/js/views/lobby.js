// The lobby: start a game, today's challenge, races and arenas, my games, and the public
// games being played now (asked again every few seconds while the page is visible, with a
// conditional GET: nothing comes back until the list changes).

import * as api from "../api.js";
import { clock, h, modal, replace, toast } from "../dom.js";
import { ago, plural, t, when } from "../i18n.js";
import { startGame } from "../gamebits.js";
import { navigate } from "../router.js";
import { clockOffset, countdown, gameRow, poll, rulesDescription, rulesets, rulesTitle } from "../widgets.js";

export const name = "lobby";

/** How often the list of live games is asked for again (If-None-Match: a 304 is a few bytes). */
const LIVE_POLL_MS = 8000;

export function mount(root) {
  const me = api.session();
  const stops = [];
  const newGame = h("section", { class: "panel new-game", "aria-labelledby": "new-game-title" });
  const daily = h("section", { class: "panel daily-card", "aria-labelledby": "daily-title" });
  const mine = h("section", { class: "panel", "aria-labelledby": "my-games-title" });
  const live = h("section", { class: "panel", "aria-labelledby": "live-title" });
  const next = h("section", { class: "panel", id: "starts-next", "aria-labelledby": "next-title" });
  const more = h("section", { class: "panel more", "aria-labelledby": "more-title" },
    h("h2", { id: "more-title", text: t("lobby.more") }),
    h("ul", { class: "more-list" },
      h("li", {}, h("a", { href: "/races", id: "races-link", text: t("lobby.races") }), h("span", { class: "muted small", text: t("lobby.races_about") })),
      h("li", {}, h("a", { href: "/arenas", text: t("lobby.arenas") }), h("span", { class: "muted small", text: t("lobby.arenas_about") })),
      h("li", {}, h("a", { href: "/tv", text: t("lobby.tv") }), h("span", { class: "muted small", text: t("lobby.tv_about") })),
      h("li", {}, h("a", { href: "/leaderboards", text: t("lobby.boards") }), h("span", { class: "muted small", text: t("lobby.boards_about") })),
    ),
  );
  root.append(
    h("div", { class: "lobby" },
      h("div", { class: "lobby-main" }, newGame, me ? mine : null),
      h("div", { class: "lobby-side" }, daily, next, more, live),
    ),
  );

  rulesets()
    .then((rules) => {
      renderNewGame(newGame, rules, me);
      if (me) loadMine(mine, me, rules).catch(() => {});
      let etag = null;
      stops.push(poll(async () => {
        const answer = await api.getIfChanged("/games/live?limit=12", etag);
        etag = answer.etag;
        if (answer.data) showLive(live, me, rules, answer.data.results);
      }, LIVE_POLL_MS));
    })
    .catch(() => replace(newGame, h("p", { class: "form-error", text: t("error.network") })));
  loadDaily(daily, stops);
  loadNext(next, stops);
  return () => stops.forEach((stop) => stop());
}

/** How many coming contests the lobby lists. */
const NEXT_SHOWN = 3;

/** What starts next: the coming arenas and public races, soonest first, each with the time
 *  left to its start, and the arena running now that closes first. */
async function loadNext(panel, stops) {
  const title = h("h2", { id: "next-title", text: t("lobby.next") });
  replace(panel, title, h("p", { class: "muted", text: "…" }));
  try {
    const [{ data: arenas, response }, races, running] = await Promise.all([
      api.request("/arenas?status=scheduled&limit=200"),
      api.get("/races?status=scheduled&limit=200"),
      api.get("/arenas?status=running&limit=200"),
    ]);
    const offset = clockOffset(response);
    const coming = [
      ...arenas.results.map((c) => ({ ...c, href: `/arenas/${c.code || c.id}`, kind: "arena" })),
      ...races.results.filter((c) => c.public).map((c) => ({ ...c, href: `/races/${c.code}`, kind: "race" })),
    ].sort((a, b) => a.starts_at.localeCompare(b.starts_at)).slice(0, NEXT_SHOWN);
    const open = running.results.sort((a, b) => a.ends_at.localeCompare(b.ends_at))[0];
    const lefts = [];
    const row = (contest, target, soon, later) => {
      const left = h("span", { class: "next-left" });
      lefts.push([left, contest[target], soon, later]);
      return h("li", { "data-kind": contest.kind || "arena" },
        h("a", { href: contest.href || `/arenas/${contest.id}`, text: contest.title || t("races.by", { player: contest.creator || "?" }) }),
        h("span", { class: "muted small block" }, left, " · ", when(contest[target], { weekday: "short", hour: "2-digit", minute: "2-digit" })));
    };
    replace(panel, title,
      coming.length || open
        ? h("ul", { class: "more-list", id: "next-list" },
            open ? row(open, "ends_at", "races.ends_in", "lobby.ends") : null,
            coming.map((c) => row(c, "starts_at", "races.starts_in", "lobby.starts")))
        : h("p", { class: "muted", text: t("arena.none") }),
      h("a", { href: "/arenas#new-arena", class: "small", id: "new-arena-link", text: t("arena.create_own") }));
    // Within the hour a running clock ("Starts in 4:59"), else words ("Starts in 7 days").
    const tick = () => lefts.forEach(([el, at, soon, later]) => {
      const ms = new Date(at) - (Date.now() + offset);
      el.textContent = ms < 3600_000 ? `${t(soon)} ${clock(ms)}` : `${t(later)} ${ago(new Date(Date.parse(at) - offset).toISOString())}`;
    });
    tick();
    const timer = setInterval(tick, 1000);
    stops.push(() => clearInterval(timer));
  } catch {
    replace(panel, title, h("p", { class: "form-error", text: t("error.network") }));
  }
}

/** The rulesets where fewer than 90% of deals can be won (docs/solvability.md): a new game
 *  of these is dealt from the winnable pool unless the player unticks it. */
const MOSTLY_LOST = new Set(["classic", "traditional", "open", "wasp", "cards4", "scorpion2", "three_blind_mice"]);

function renderNewGame(panel, rules, me) {
  let chosen = rules.default;
  const winnable = h("input", { id: "winnable", type: "checkbox", checked: MOSTLY_LOST.has(chosen) || undefined });
  let winnableTouched = false;
  winnable.addEventListener("change", () => (winnableTouched = true));
  const choose = (name) => {
    chosen = name;
    if (!winnableTouched) winnable.checked = MOSTLY_LOST.has(name);
  };
  const options = rules.list.map((r) =>
    h(
      "label",
      { class: "rule-option" },
      h("input", { type: "radio", name: "rules", value: r.name, checked: r.name === chosen || undefined, onchange: () => choose(r.name) }),
      h("span", { class: "rule-text" },
        h("span", { class: "rule-title", text: rulesTitle(r) }),
        h("span", { class: "rule-about", text: rulesDescription(r) }),
      ),
    ),
  );
  const seed = h("input", { id: "seed", name: "seed", inputmode: "numeric", pattern: "[0-9]*", placeholder: t("lobby.seed_placeholder"), autocomplete: "off" });
  const visible = h("input", { id: "public", type: "checkbox", checked: true });
  // A rated game: the player against a certified deal rated near them (docs/ratings.md),
  // first, so that it is what Enter starts; a guest plays casual games only.
  const account = me && !me.guest;
  const start = h("button", { type: "submit", class: `btn ${account ? "" : "btn-primary "}btn-wide`, id: "start-game", text: account ? t("lobby.casual") : me ? t("lobby.start") : t("lobby.play_now") });
  const rated = account ? h("button", { type: "submit", class: "btn btn-gold btn-wide", id: "start-rated", value: "rated", text: t("lobby.rated"), title: t("lobby.rated_help") }) : null;
  const ratedNote = account ? h("p", { class: "muted small", id: "rated-note", text: t("lobby.rated_or_casual") }) : null;
  // A rated game's deal is the server's: a chosen seed makes the game casual, and Enter in
  // the seed's field starts that casual game rather than the rated one.
  if (rated) {
    seed.addEventListener("input", () => (rated.disabled = Boolean(seed.value.trim())));
    seed.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      start.closest("form").requestSubmit(start);
    });
  }
  // A visitor plays at once, as a guest (docs/api.md#guests); an account keeps the games.
  const guestNote = !me || me.guest
    ? h("p", { class: "muted small guest-note", id: "guest-note" }, t(me ? "lobby.guest_playing" : "lobby.guest_about") + " ",
        h("a", { href: me ? "/signin?mode=signup&next=/" : "/signin?next=/", text: me ? t("account.guest_signup") : t("nav.signin") }))
    : null;
  const form = h(
    "form",
    { class: "new-game-form" },
    h("fieldset", { class: "rule-list" }, h("legend", { text: t("lobby.ruleset") }), options),
    h("div", { class: "option-row check winnable-row" }, winnable,
      h("label", { for: "winnable" }, t("lobby.winnable"), h("span", { class: "muted small block", text: t("lobby.winnable_help") })),
    ),
    h("details", { class: "advanced" },
      h("summary", { text: t("lobby.options") }),
      h("div", { class: "option-row" },
        h("label", { for: "seed", text: t("lobby.seed") }), seed,
      ),
      h("div", { class: "option-row check" }, visible, h("label", { for: "public", text: t("lobby.public") })),
      h("p", { class: "muted small", text: t("lobby.public_help") }),
    ),
    h("div", { class: "start-row" }, rated, start),
    ratedNote,
    guestNote,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { rules: chosen, public: visible.checked };
    if (event.submitter === rated) body.rated = true; // always a certified deal of the server's choice
    // A chosen seed is that deal; otherwise a certified one when asked for.
    else if (seed.value.trim()) body.seed = Number(seed.value.trim());
    else if (winnable.checked) body.winnable = true;
    start.disabled = true;
    if (rated) rated.disabled = true;
    try {
      // A new rated game resigns an unfinished one of the ruleset (a loss): ask first.
      if (body.rated && !(await mayAbandonRated(me, chosen))) return;
      if (!api.session()) await api.playAsGuest();
      const game = await startGame(body);
      if (game) navigate(`/games/${game.id}`);
    } catch (error) {
      const fields = error.body?.fields ? Object.values(error.body.fields).flat().join(" ") : "";
      toast(fields || error.detail || t("error.network"), "error");
    } finally {
      start.disabled = false;
      if (rated) rated.disabled = Boolean(seed.value.trim());
    }
  });
  replace(panel, h("h1", { id: "new-game-title", text: t("lobby.new_game") }), form);
}

/** Whether the player has no rated game of `rules` in play, or agrees to resign it. */
async function mayAbandonRated(me, rules) {
  const page = await api.gamesPage({ owner: me.username, status: "playing", rules, limit: 50 });
  const open = page.results.find((g) => g.rated && g.owner === me.username);
  if (!open) return true;
  const answer = await modal({
    title: t("rated.abandon_title"),
    body: [h("p", { text: t("rated.abandon_text") }), h("p", {}, h("a", { href: `/games/${open.id}`, id: "rated-open", text: t("rated.abandon_open") }))],
    buttons: [
      { label: t("dialog.cancel"), value: "cancel", primary: true },
      { label: t("rated.abandon_yes"), value: "yes", danger: true },
    ],
  });
  return answer === "yes";
}

async function loadDaily(panel, stops) {
  replace(panel, h("h2", { id: "daily-title", text: t("daily.title") }), h("p", { class: "muted", text: "…" }));
  try {
    const { data, response } = await api.request("/challenges/today");
    const left = h("time", { class: "countdown", id: "daily-countdown" });
    stops.push(countdown(left, data.ends_at, clockOffset(response)));
    replace(
      panel,
      h("h2", { id: "daily-title", text: t("daily.title") }),
      h("p", { class: "daily-date" }, data.date, " ", h("span", { class: "tag tag-rated", id: "daily-rated", text: t("rating.rated_tag") })),
      h("p", { class: "daily-left" }, h("span", { class: "muted", text: t("daily.ends_in") + " " }), left),
      h("p", { class: "muted", text: plural("daily.participants", data.participants) }),
      h("a", { href: "/daily", class: "btn btn-gold btn-wide", id: "daily-link", text: t("daily.race") }),
      h("a", { href: "/archive", class: "small archive-link", text: t("archive.link") }),
    );
  } catch (error) {
    // The server's own reason when it answered (a day still being prepared), else the network.
    const reason = error instanceof api.ApiError ? error.detail : t("error.network");
    replace(panel, h("h2", { id: "daily-title", text: t("daily.title") }), h("p", { class: error instanceof api.ApiError ? "muted" : "form-error", id: "daily-problem", text: reason }));
  }
}

async function loadMine(panel, me, rules) {
  const page = await api.gamesPage({ owner: me.username, limit: 20 });
  const games = page.results.filter((g) => g.owner === me.username);
  if (unchanged(panel, games)) return;
  replace(
    panel,
    h("h2", { id: "my-games-title", text: t("lobby.my_games") }),
    games.length
      ? h("ul", { class: "game-list", id: "my-games" }, games.map((g) => gameRow(g, { showOwner: false }, rules.byName)))
      : h("p", { class: "muted", text: t("lobby.no_games") }),
  );
}

function showLive(panel, me, rules, results) {
  const games = results.filter((g) => g.owner !== me?.username);
  if (unchanged(panel, games)) return;
  replace(
    panel,
    h("h2", { id: "live-title" }, h("span", { class: "live-dot", "aria-hidden": "true" }), t("lobby.live")),
    games.length
      ? h("ul", { class: "game-list", id: "live-games" }, games.map((g) => gameRow(g, {}, rules.byName)))
      : h("p", { class: "muted", text: t("lobby.no_live") }),
  );
}

/** Whether `games` are what `panel` shows already (then it is left alone: focus stays). */
function unchanged(panel, games) {
  const signature = games.map((g) => `${g.id}:${g.version}`).join(",") || "none";
  if (panel.dataset.signature === signature) return true;
  panel.dataset.signature = signature;
  return false;
}
