// ci-service battlecard page: each tile's Edit toggle, copy as Markdown, print, and the live
// note while the card is generated. The page reads, prints and edits without it (Edit is
// then a link to ?edit=<section>); it only adds these buttons.
"use strict";

(function () {
  function say(text) {
    const status = document.getElementById("bc-copy-status");
    if (status) status.textContent = text;
  }

  function setUpCopy() {
    const button = document.getElementById("bc-copy");
    if (!button) return;
    const source = document.getElementById(button.dataset.source);
    if (!source) return;
    button.hidden = false;
    button.addEventListener("click", async function () {
      // Where the text is only selected, it must be in view: open the Markdown box first.
      const box = document.getElementById("bc-markdown-box");
      if (box && !(navigator.clipboard && window.isSecureContext)) box.open = true;
      const copied = await window.ci.copyField(source);
      if (box && !copied) box.open = true;
      say(copied ? "Markdown copied." : "Markdown selected below: press Ctrl+C (Cmd+C) to copy.");
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

  // Edit a tile in place: the toggle swaps the tile's lines for its form; Cancel puts the
  // form back as it was and returns focus to the toggle.
  function setUpEdit() {
    document.querySelectorAll(".bc-edit-toggle").forEach(function (button) {
      const tile = document.getElementById(button.dataset.tile);
      const form = document.getElementById(button.getAttribute("aria-controls"));
      const view = document.getElementById("view-" + button.dataset.tile);
      if (!tile || !form || !view) return;
      const link = tile.querySelector(".bc-edit-link");
      if (link) link.hidden = true;
      button.hidden = false;

      function show(editing) {
        button.setAttribute("aria-expanded", editing ? "true" : "false");
        form.hidden = !editing;
        view.hidden = editing;
        if (editing) {
          const first = form.querySelector("input[type=text], textarea");
          if (first) first.focus();
        }
      }

      function cancel() {
        form.reset();
        show(false);
        button.focus();
        // a failed save or ?edit= opened it: reloading should not open it again
        const url = new URL(window.location.href);
        if (url.searchParams.has("edit")) {
          url.searchParams.delete("edit");
          window.history.replaceState(null, "", url.pathname + url.search + url.hash);
        }
      }

      button.addEventListener("click", function () {
        if (button.getAttribute("aria-expanded") === "true") cancel();
        else show(true);
      });
      form.querySelectorAll(".bc-edit-cancel").forEach(function (el) {
        el.addEventListener("click", function (event) {
          event.preventDefault();
          cancel();
        });
      });
      form.addEventListener("keydown", function (event) {
        if (event.key === "Escape") cancel();
      });
    });
  }

  function start() {
    setUpEdit();
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
