// Navigation within the one page. `navigate`, a click on a same-origin link and the browser's
// back and forward buttons all end in the one handler that main.js registers, which shows
// the page for the new address. Views import `navigate` from here, and this module imports
// no view and not main.js, so going from page to page never needs an import circle.

let show = () => {};

/** Register the function that shows the page for the current `location` (main.js). */
export function onNavigate(handler) {
  show = handler;
}

/** Go to a client page without reloading: pushes history (or replaces the current entry). */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  show();
}

// Same-origin links route in the page; the API, the admin and the docs load for real.
document.addEventListener("click", (event) => {
  const a = event.target.closest("a[href]");
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || a.target || a.hasAttribute("download")) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || /^\/(api|admin|static|ws)\//.test(url.pathname)) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
addEventListener("popstate", () => show());
