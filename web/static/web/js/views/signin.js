// Sign in, or create an account: the API's token is kept in localStorage, never in a URL.

import * as api from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { reasonOf } from "../widgets.js";

export const name = "signin";

/** Set once this browser has signed in: only then does the page greet with "Welcome back". */
const RETURNING = "scorpion.returning";

export function mount(root, _params, query) {
  let mode = query.get("mode") === "signup" ? "signup" : "signin";
  const next = safeNext(query.get("next"));
  const error = h("p", { class: "form-error", role: "alert", id: "auth-error" });
  const username = h("input", { id: "username", name: "username", autocomplete: "username", required: true, maxlength: 150, spellcheck: "false", autocapitalize: "none" });
  const password = h("input", { id: "password", name: "password", type: "password", required: true });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "auth-submit" });
  const title = h("h1", {});
  const hint = h("p", { class: "muted small" });
  const forgot = h("p", { class: "small forgot" }, h("a", { href: "/account/reset", id: "forgot-link", text: t("auth.forgot") }));
  const tabs = h("div", { class: "tabs", role: "tablist" });
  // A guest signing up keeps its games: the guest becomes the account.
  const guest = h("p", { class: "muted small", id: "guest-keeps", text: t("auth.guest_keeps") });
  const form = h(
    "form",
    { class: "auth-form", novalidate: true },
    h("label", { for: "username", text: t("auth.username") }),
    username,
    h("label", { for: "password", text: t("auth.password") }),
    password,
    hint,
    guest,
    error,
    submit,
    forgot,
  );

  function show() {
    const returning = localStorage.getItem(RETURNING);
    title.textContent = mode === "signup" ? t("auth.signup_title") : returning ? t("auth.welcome_back") : t("auth.signin_title");
    submit.textContent = mode === "signup" ? t("auth.signup") : t("auth.signin");
    password.autocomplete = mode === "signup" ? "new-password" : "current-password";
    hint.textContent = mode === "signup" ? t("auth.password_rules") : "";
    forgot.hidden = mode === "signup";
    guest.hidden = !(mode === "signup" && api.session()?.guest);
    tabs.replaceChildren(
      ...["signin", "signup"].map((m) =>
        h("button", {
          type: "button",
          role: "tab",
          class: "tab",
          id: `tab-${m}`,
          "aria-selected": String(m === mode),
          text: m === "signup" ? t("auth.signup") : t("auth.signin"),
          onclick: () => {
            mode = m;
            error.textContent = "";
            show();
          },
        }),
      ),
    );
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (!username.value.trim() || !password.value) {
      error.textContent = t("auth.missing");
      return;
    }
    submit.disabled = true;
    try {
      if (mode === "signup") await api.signUp(username.value.trim(), password.value);
      else await api.signIn(username.value.trim(), password.value);
      localStorage.setItem(RETURNING, "1");
      navigate(next, { replace: true });
    } catch (err) {
      error.textContent = reasonOf(err);
    } finally {
      submit.disabled = false;
    }
  });

  show();
  root.append(h("div", { class: "panel narrow auth" }, title, tabs, form));
  username.focus();
}


/** Only a path of this site, never another site's address. */
function safeNext(next) {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}
