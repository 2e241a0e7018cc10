// ci-service battlecard page: copy as Markdown, print, and the live note while the card is
// generated. The page reads and prints without it; it only adds these buttons.
"use strict";

(function () {
  function say(text) {
    const status = document.getElementById("bc-copy-status");
    if (status) status.textContent = text;
  }

  function selectSource(source) {
    // The fallback: show the Markdown and select it, so Ctrl+C / Cmd+C copies it.
    const box = document.getElementById("bc-markdown-box");
    if (box) box.open = true;
    source.focus();
    source.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    say(copied ? "Markdown copied." : "Markdown selected below: press Ctrl+C (Cmd+C) to copy.");
  }

  function setUpCopy() {
    const button = document.getElementById("bc-copy");
    if (!button) return;
    const source = document.getElementById(button.dataset.source);
    if (!source) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.value).then(
          function () { say("Markdown copied."); },
          function () { selectSource(source); }
        );
      } else {
        selectSource(source);
      }
    });
  }

  function setUpPrint() {
    const button = document.getElementById("bc-print");
    if (!button) return;
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  }

  function setUpLive() {
    const note = document.getElementById("bc-live");
    if (!note || !note.dataset.statusUrl) return;
    note.querySelectorAll(".bc-live-js").forEach(function (el) { el.hidden = false; });
    const started = Date.now();
    const limit = 15 * 60 * 1000;
    function poll() {
      fetch(note.dataset.statusUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (data && data.battlecard && data.battlecard.status !== "GENERATING") {
            window.location.reload();
          } else if (Date.now() - started < limit) {
            window.setTimeout(poll, 3000);
          }
        })
        .catch(function () {
          if (Date.now() - started < limit) window.setTimeout(poll, 10000);
        });
    }
    window.setTimeout(poll, 2000);
  }

  function start() {
    setUpCopy();
    setUpPrint();
    setUpLive();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
