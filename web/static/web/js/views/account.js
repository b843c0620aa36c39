// The account page (reached from the header): the password, the email address that
// recovers it, the keys this account is signed in with (each revocable) and signing out
// everywhere, one's own data to download, and closing the account. A guest is told what a
// guest is and offered an account that keeps its games.

import * as api from "../api.js";
import { h, modal, replace, toast } from "../dom.js";
import { t, when } from "../i18n.js";
import { navigate } from "../router.js";
import { reasonOf } from "../widgets.js";

export const name = "account";

export function mount(root) {
  const me = api.session();
  const page = h("div", { class: "account" });
  root.append(page);
  if (!me) {
    replace(page, h("section", { class: "panel narrow" },
      h("h1", { text: t("account.title") }),
      h("p", { text: t("account.signed_out") }),
      h("a", { href: "/signin?next=/account", class: "btn btn-primary", id: "account-signin", text: t("nav.signin") }),
    ));
    return;
  }
  if (me.guest) {
    replace(page, guestPanel());
    page.append(settingsPanel(), dataPanel());
    return;
  }
  let alive = true;
  replace(page, h("p", { class: "muted loading", text: t("loading") }));
  api.me()
    .then((account) => {
      if (!alive) return;
      const keys = h("section", { class: "panel", "aria-labelledby": "keys-title" });
      replace(page,
        h("section", { class: "panel account-head" },
          h("h1", { class: "player-name", id: "account-name", text: account.username }),
          h("p", { class: "muted", text: t("account.joined", { date: when(account.joined_at, { dateStyle: "long" }) }) }),
          h("a", { href: `/players/${encodeURIComponent(account.username)}`, text: t("account.profile") }),
        ),
        settingsPanel(),
        passwordPanel(),
        emailPanel(account),
        keys,
        dataPanel(),
        closePanel(),
      );
      showKeys(keys);
    })
    .catch((error) => alive && replace(page, h("p", { class: "form-error", text: error.detail || t("error.network") })));
  return () => (alive = false);
}

/** Where the settings are (the header's ⚙ opens the same dialog). */
function settingsPanel() {
  return h("section", { class: "panel", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title", text: t("settings.title") }),
    h("p", { text: t("settings.where") }),
    h("button", { type: "button", class: "btn", id: "account-settings", text: t("account.settings_open"), onclick: () => import("../settings.js").then((m) => m.showSettings()) }),
  );
}

function guestPanel() {
  return h("section", { class: "panel", id: "guest-panel" },
    h("h1", { text: t("account.guest_title") }),
    h("p", { text: t("account.guest_about") }),
    h("p", { class: "muted small", text: t("account.guest_expiry") }),
    h("a", { href: "/signin?mode=signup&next=/account", class: "btn btn-primary", id: "guest-signup", text: t("account.guest_signup") }),
  );
}

/** A form whose submit runs `action`, showing its errors (each field's reasons) below it. */
function form(id, fields, submitLabel, action, { danger = false } = {}) {
  const error = h("p", { class: "form-error", role: "alert", id: `${id}-error` });
  const submit = h("button", { type: "submit", class: `btn ${danger ? "btn-danger" : "btn-primary"}`, id: `${id}-submit`, text: submitLabel });
  const element = h("form", { class: "auth-form account-form", id, novalidate: true }, fields, error, submit);
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      await action();
    } catch (err) {
      error.textContent = reasonOf(err);
    } finally {
      submit.disabled = false;
    }
  });
  return element;
}


function field(id, label, props = {}) {
  const input = h("input", { id, name: id, ...props });
  return [h("label", { for: id, text: label }), input];
}

function passwordPanel() {
  const [currentLabel, current] = field("current-password", t("account.current_password"), { type: "password", autocomplete: "current-password", required: true });
  const [nextLabel, next] = field("new-password", t("account.new_password"), { type: "password", autocomplete: "new-password", required: true });
  return h("section", { class: "panel", "aria-labelledby": "password-title" },
    h("h2", { id: "password-title", text: t("account.password") }),
    h("p", { class: "muted small", text: t("account.password_about") }),
    form("password-form", [currentLabel, current, nextLabel, next, h("p", { class: "muted small", text: t("auth.password_rules") })], t("account.change_password"), async () => {
      await api.changePassword(current.value, next.value);
      current.value = next.value = "";
      toast(t("account.password_changed"));
    }),
  );
}

function emailPanel(account) {
  const status = h("p", { id: "email-status" });
  const show = (email) => {
    replace(status, email ? [t("account.email_is") + " ", h("strong", { text: email }), " ", h("span", { class: "badge badge-won", text: t("account.email_confirmed") })] : t("account.email_none"));
    remove.hidden = !email;
  };
  const remove = h("button", { type: "button", class: "btn btn-small", id: "email-remove", text: t("account.email_remove"), onclick: async () => {
    try {
      await api.del("/auth/email");
      show(null);
    } catch (error) {
      toast(reasonOf(error), "error");
    }
  } });
  const [label, input] = field("email", t("account.email_new"), { type: "email", autocomplete: "email", required: true, maxlength: 254 });
  const sent = h("p", { class: "muted small", id: "email-sent", role: "status" });
  const panel = h("section", { class: "panel", "aria-labelledby": "email-title" },
    h("h2", { id: "email-title", text: t("account.email") }),
    h("p", { class: "muted small", text: t("account.email_about") }),
    h("div", { class: "email-row" }, status, remove),
    form("email-form", [label, input], t("account.email_send"), async () => {
      await api.post("/auth/email", { email: input.value.trim() });
      sent.textContent = t("account.email_sent", { email: input.value.trim() });
      input.value = "";
    }),
    sent,
  );
  show(account.email);
  return panel;
}

/** The keys of the account, most recently used first, each with a revoke button. */
async function showKeys(panel) {
  const list = h("ul", { class: "key-list", id: "keys" });
  const everywhere = h("button", { type: "button", class: "btn btn-danger", id: "signout-everywhere", text: t("account.signout_everywhere"), onclick: async () => {
    const answer = await modal({
      title: t("account.signout_everywhere_title"),
      body: [h("p", { text: t("account.signout_everywhere_text") })],
      buttons: [
        { label: t("dialog.cancel"), value: "cancel", primary: true },
        { label: t("account.signout_everywhere"), value: "yes", danger: true },
      ],
    });
    if (answer !== "yes") return;
    try {
      await api.signOutEverywhere();
      toast(t("account.signed_out_everywhere"));
      navigate("/signin?next=/account");
    } catch (error) {
      toast(reasonOf(error), "error");
    }
  } });
  replace(panel,
    h("h2", { id: "keys-title", text: t("account.keys") }),
    h("p", { class: "muted small", text: t("account.keys_about") }),
    list,
    everywhere,
  );
  const draw = async () => {
    const { results } = await api.keys();
    replace(list, results.map((key) => keyRow(key, draw)));
  };
  try {
    await draw();
  } catch (error) {
    replace(list, h("li", { class: "form-error", text: reasonOf(error) }));
  }
}

function keyRow(key, redraw) {
  const where = [key.last_address, key.last_user_agent].filter(Boolean).join(" · ");
  const revoke = h("button", { type: "button", class: "btn btn-small", "data-key": key.id, text: key.current ? t("account.revoke_this") : t("account.revoke"), onclick: async () => {
    try {
      if (key.current) {
        await api.signOut();
        navigate("/");
        return;
      }
      await api.del(`/auth/keys/${key.id}`);
      toast(t("account.revoked", { name: key.name }));
      await redraw();
    } catch (error) {
      toast(reasonOf(error), "error");
    }
  } });
  return h("li", { class: "key-row", "data-prefix": key.prefix },
    h("div", { class: "key-name" },
      h("strong", { text: key.name || key.prefix }),
      h("code", { class: "key-prefix", text: `${key.prefix}…` }),
      key.current ? h("span", { class: "tag", text: t("account.this_browser") }) : null,
    ),
    h("dl", { class: "key-facts" },
      h("dt", { text: t("account.created") }), h("dd", { text: when(key.created_at) }),
      h("dt", { text: t("account.last_used") }), h("dd", { text: when(key.last_used_at) }),
      h("dt", { text: t("account.where") }), h("dd", { class: "key-where", text: where || "—" }),
    ),
    revoke,
  );
}

function dataPanel() {
  const status = h("p", { class: "muted small", id: "data-status", role: "status" });
  const button = (format, label) => h("button", { type: "button", class: "btn", id: `data-${format}`, text: label, onclick: async (event) => {
    event.target.disabled = true;
    status.textContent = t("loading");
    try {
      const file = await api.myData(format);
      const link = h("a", { href: URL.createObjectURL(file), download: `scorpion-games.${format}` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      status.textContent = "";
    } catch (error) {
      status.textContent = reasonOf(error);
    } finally {
      event.target.disabled = false;
    }
  } });
  return h("section", { class: "panel", "aria-labelledby": "data-title" },
    h("h2", { id: "data-title", text: t("account.data") }),
    h("p", { class: "muted small", text: t("account.data_about") }),
    h("div", { class: "button-row start" }, button("scorpion", t("account.data_notation")), button("ndjson", t("account.data_ndjson"))),
    status,
  );
}

function closePanel() {
  const [label, input] = field("close-password", t("account.current_password"), { type: "password", autocomplete: "current-password", required: true });
  return h("section", { class: "panel danger-zone", "aria-labelledby": "close-title" },
    h("h2", { id: "close-title", text: t("account.close") }),
    h("p", { class: "small", text: t("account.close_about") }),
    form("close-form", [label, input], t("account.close_button"), async () => {
      const answer = await modal({
        title: t("account.close_title"),
        body: [h("p", { text: t("account.close_text") })],
        buttons: [
          { label: t("dialog.cancel"), value: "cancel", primary: true },
          { label: t("account.close_button"), value: "yes", danger: true },
        ],
      });
      if (answer !== "yes") return;
      await api.closeAccount(input.value);
      toast(t("account.closed"));
      navigate("/");
    }, { danger: true }),
  );
}
