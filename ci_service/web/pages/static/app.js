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

window.ci = { csrfToken: csrfToken, sendJson: sendJson };
