// ci-service: our own small script. Pages work without it for reading; it adds the live
// parts. Every request it sends carries the page's CSRF token.
"use strict";

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

async function sendJson(url, method, body) {
  const response = await fetch(url, {
    method: method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = data.error && data.error.message ? data.error.message : response.statusText;
    throw new Error(message);
  }
  return data;
}

// Copy a text field's value to the clipboard; where the clipboard is not allowed (a page
// over plain http, a refusal), select the text so Ctrl+C / Cmd+C copies it. Resolves to
// true when copied, false when only selected.
async function copyField(source) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(source.value);
      return true;
    } catch (error) {
      // fall through to selecting the text
    }
  }
  source.focus();
  source.select();
  try {
    return document.execCommand("copy");
  } catch (error) {
    return false;
  }
}

window.ci = { csrfToken: csrfToken, sendJson: sendJson, copyField: copyField };

// The header's Menu button on a phone: shown only when this script runs (without it the
// links stay visible under the header row); Escape closes it and returns focus.
function setupMenu() {
  const button = document.querySelector("header.top .menu-toggle");
  if (!button) return;
  const header = button.closest("header.top");
  const setOpen = (open) => {
    button.setAttribute("aria-expanded", String(open));
    header.classList.toggle("menu-open", open);
  };
  button.hidden = false;
  header.classList.add("has-menu");
  button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
  header.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
      setOpen(false);
      button.focus();
    }
  });
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", setupMenu);
} else {
  setupMenu();
}
