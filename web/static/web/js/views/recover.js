// A forgotten password and a confirmed email address, the two links the server emails.
// /account/reset asks for the address a link goes to; the link opens it with its uid and
// token after "#" (a browser never sends that part to a server), and a new password is set.
// /account/verify#<token> confirms an address. The fragment is read once and dropped from
// the address bar, so the link does not stay in the history.

import * as api from "../api.js";
import { h, replace, toast } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { reasonOf } from "../widgets.js";

export const name = "recover";

export function mount(root, { step }) {
  const fragment = location.hash.slice(1);
  if (fragment) history.replaceState(null, "", location.pathname);
  const panel = h("section", { class: "panel narrow auth" });
  root.append(panel);
  if (step === "verify") verify(panel, fragment);
  else if (fragment) newPassword(panel, fragment);
  else askForLink(panel);
}


function askForLink(panel) {
  const email = h("input", { id: "reset-email", name: "email", type: "email", autocomplete: "email", required: true, maxlength: 254 });
  const error = h("p", { class: "form-error", role: "alert", id: "reset-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "reset-submit", text: t("recover.send") });
  const form = h("form", { class: "auth-form", novalidate: true },
    h("label", { for: "reset-email", text: t("recover.email") }), email, error, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    if (!email.value.trim()) {
      error.textContent = t("recover.missing");
      return;
    }
    submit.disabled = true;
    try {
      await api.post("/auth/password/reset", { email: email.value.trim() });
      replace(panel,
        h("h1", { text: t("recover.sent_title") }),
        h("p", { id: "reset-sent", text: t("recover.sent", { email: email.value.trim() }) }),
        h("a", { href: "/signin", text: t("nav.signin") }),
      );
    } catch (err) {
      error.textContent = reasonOf(err);
    } finally {
      submit.disabled = false;
    }
  });
  replace(panel,
    h("h1", { text: t("recover.title") }),
    h("p", { class: "muted", text: t("recover.about") }),
    form,
  );
  email.focus();
}

function newPassword(panel, fragment) {
  const [uid, token] = fragment.split("/");
  const password = h("input", { id: "reset-password", name: "password", type: "password", autocomplete: "new-password", required: true });
  const error = h("p", { class: "form-error", role: "alert", id: "reset-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "reset-submit", text: t("recover.set") });
  const form = h("form", { class: "auth-form", novalidate: true },
    h("label", { for: "reset-password", text: t("account.new_password") }), password,
    h("p", { class: "muted small", text: t("auth.password_rules") }), error, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      await api.resetPassword(uid || "", token || "", password.value);
      toast(t("recover.done"));
      navigate("/", { replace: true });
    } catch (err) {
      error.textContent = reasonOf(err);
      if (err instanceof api.ApiError && err.code === "link_invalid") {
        error.append(" ", h("a", { href: "/account/reset", text: t("recover.again") }));
      }
    } finally {
      submit.disabled = false;
    }
  });
  replace(panel, h("h1", { text: t("recover.new_title") }), form);
  password.focus();
}

async function verify(panel, token) {
  replace(panel, h("h1", { text: t("recover.verify_title") }), h("p", { class: "muted", text: t("loading") }));
  try {
    const { email } = await api.post("/auth/email/verify", { token });
    replace(panel,
      h("h1", { text: t("recover.verify_title") }),
      h("p", { id: "verify-result", text: t("recover.verified", { email }) }),
      h("a", { href: "/account", class: "btn btn-primary", text: t("nav.account") }),
    );
  } catch (err) {
    replace(panel,
      h("h1", { text: t("recover.verify_title") }),
      h("p", { class: "form-error", id: "verify-result", text: reasonOf(err) }),
      h("a", { href: "/account", text: t("nav.account") }),
    );
  }
}
