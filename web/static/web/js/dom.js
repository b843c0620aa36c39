// Small DOM helpers. Text always goes in as text (textContent), never as HTML: a username
// like "<img src=x onerror=alert(1)>" is shown literally, wherever it appears.

/**
 * Create an element. `props` sets attributes (`class`, `aria-*`, `data-*`, …), `on*`
 * functions become listeners, `text` sets textContent; children are nodes or strings.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") el.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "vars") {
      for (const [key, v] of Object.entries(value)) el.style.setProperty(key, v);
    } else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let toastRegion = null;

/** A short message in the polite live region (screen readers read it too). */
export function toast(message, kind = "info", ms = 4000) {
  toastRegion ??= document.getElementById("toasts");
  const item = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  toastRegion.append(item);
  setTimeout(() => item.classList.add("toast-out"), ms);
  setTimeout(() => item.remove(), ms + 400);
  return item;
}

/** Say something to screen readers only. */
export function announce(message) {
  const region = document.getElementById("announcer");
  region.textContent = "";
  // A new text node after a tick, so that the same sentence twice is read twice.
  setTimeout(() => (region.textContent = message), 30);
}

/**
 * A modal dialog (native <dialog>: focus is trapped and Escape closes it). Resolves with the
 * value of the button pressed, or null when dismissed.
 */
export function modal({ title, body = [], buttons = [], className = "" }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: `dialog ${className}`, "aria-labelledby": "dialog-title" });
    const close = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    dialog.append(
      h("h2", { id: "dialog-title", text: title }),
      h("div", { class: "dialog-body" }, body),
      h(
        "div",
        { class: "dialog-actions" },
        buttons.map((b) =>
          h("button", {
            type: "button",
            class: `btn ${b.primary ? "btn-primary" : ""} ${b.danger ? "btn-danger" : ""}`,
            "data-value": b.value,
            text: b.label,
            autofocus: b.primary || undefined,
            onclick: () => close(b.value),
          }),
        ),
      ),
    );
    // A button in the body with data-close answers as the action buttons do.
    dialog.addEventListener("click", (event) => {
      const button = event.target.closest("[data-close]");
      if (button) close(button.dataset.close);
    });
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(null);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** A "1:05:09" or "4:07" clock from milliseconds. */
export function clock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}
