// TV: a live game worth watching (the server's pick: the longest public game in play),
// followed to the next one when it ends. With nobody playing, it asks again now and then
// with a conditional GET (a 304 costs almost nothing).

import * as api from "../api.js";
import { h, replace } from "../dom.js";
import { t } from "../i18n.js";
import { mountWatch } from "../watch.js";
import { rulesets } from "../widgets.js";

export const name = "tv";

const NEXT_GAME_MS = 5000;
const IDLE_ASK_MS = 15000;

export function mount(root) {
  let alive = true;
  let etag = null;
  let timer = null;
  let stopWatch = null;
  let shownId = null;
  const page = h("div", { class: "tv" }, h("p", { class: "muted loading", text: t("loading") }));
  root.append(page);

  async function pick() {
    clearTimeout(timer);
    if (!alive) return;
    try {
      const [{ data, etag: tag }, rules] = await Promise.all([api.getIfChanged("/tv", etag), rulesets()]);
      etag = tag;
      if (!alive) return;
      const game = data?.game;
      if (data && game && game.id !== shownId) {
        stopWatch?.();
        shownId = game.id;
        page.replaceChildren();
        stopWatch = mountWatch(page, game, rules.byName[game.rules], {
          tags: [h("span", { class: "tag tag-tv", text: t("tv.tag") })],
          onEnd: (done) => {
            page.querySelector(".watch-main")?.append(h("div", { class: "banner", id: "tv-next", role: "status", text: t(`tv.ended_${done.status}`, { player: done.owner }) }));
            timer = setTimeout(pick, NEXT_GAME_MS);
          },
        });
      } else if (data && !game) {
        stopWatch?.();
        stopWatch = null;
        shownId = null;
        replace(page, h("div", { class: "panel narrow", id: "tv-idle" }, h("h1", { text: t("tv.title") }), h("p", { text: t("tv.nobody") }), h("a", { href: "/", class: "btn btn-primary", text: t("tv.play") })));
      }
      if (!game || data === null) timer = setTimeout(pick, IDLE_ASK_MS);
    } catch {
      timer = setTimeout(pick, IDLE_ASK_MS);
    }
  }
  pick();
  return () => {
    alive = false;
    clearTimeout(timer);
    stopWatch?.();
  };
}
