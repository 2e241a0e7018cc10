// ci-service settings pages: add and remove price plan rows, copy an invite link. The forms
// work without it (the server draws blank plan rows, and the link can be selected and
// copied by hand); it only adds the "Add row", "Remove" and "Copy link" buttons.
"use strict";

(function () {
  function renumber(rows) {
    // People see the rows counted 1, 2, 3 after a removal; the field names keep their
    // numbers, which only order the plans on the server.
    rows.querySelectorAll(":scope > .plan-row").forEach(function (row, index) {
      row.querySelectorAll(".plan-number").forEach(function (el) {
        el.textContent = String(index + 1);
      });
    });
  }

  function setUpRemove(button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      const row = button.closest(".plan-row");
      const rows = row.parentElement;
      const add = rows.parentElement.querySelector(".plan-add");
      row.remove();
      renumber(rows);
      if (add) add.focus(); // focus must not be lost with the removed button
    });
  }

  function setUpAdd(button) {
    const rows = document.getElementById(button.dataset.rows);
    const template = document.getElementById(button.dataset.template);
    if (!rows || !template) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      const next = Number(rows.dataset.next || "0");
      rows.dataset.next = String(next + 1);
      const count = rows.querySelectorAll(":scope > .plan-row").length + 1;
      const holder = document.createElement("template");
      holder.innerHTML = template.innerHTML
        .split("__N__").join(String(next))
        .split("__K__").join(String(count));
      const row = holder.content.querySelector(".plan-row");
      rows.appendChild(holder.content);
      row.querySelectorAll(".plan-remove").forEach(setUpRemove);
      const name = row.querySelector("input");
      if (name) name.focus();
    });
  }

  function say(button, text) {
    const status = document.getElementById(button.dataset.status);
    if (status) status.textContent = text;
  }

  function setUpCopy(button) {
    const source = document.getElementById(button.dataset.source);
    if (!source) return;
    button.hidden = false;
    button.addEventListener("click", async function () {
      const copied = await window.ci.copyField(source);
      say(button, copied ? "Copied." : "Link selected: press Ctrl+C (Cmd+C) to copy it.");
    });
  }

  function start() {
    document.querySelectorAll(".plan-add").forEach(setUpAdd);
    document.querySelectorAll(".plan-rows .plan-remove").forEach(setUpRemove);
    document.querySelectorAll("button.copy-link").forEach(setUpCopy);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
