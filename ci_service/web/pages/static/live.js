// Live job progress: every element with data-progress-url polls that JSON endpoint
// ({job: {...}}, the same job record as GET /api/jobs/{id}) and updates its fields until
// the job ends. Without this script the page shows the values at render time.
"use strict";

(function () {
  const INTERVAL_MS = 2000;
  const MAX_FAILURES = 5;

  function field(root, name) {
    return root.querySelector('[data-field="' + name + '"]');
  }

  function setText(element, text) {
    if (element) element.textContent = text;
  }

  function setBadge(element, status) {
    if (!element) return;
    element.textContent = status;
    element.className = "badge " + status;
  }

  function render(root, job) {
    setBadge(field(root, "status"), job.status);
    const bar = field(root, "progress");
    if (bar) {
      bar.value = job.progress;
      bar.textContent = job.progress + "%";
    }
    setText(field(root, "percent"), job.progress + "%");
    setText(field(root, "currentStep"), job.currentStep);
    setText(field(root, "message"), job.progressMessage ? " · " + job.progressMessage : "");
    const error = field(root, "error");
    if (error) {
      error.textContent = job.error || "";
      error.hidden = !job.error;
    }
    (job.steps || []).forEach(function (step) {
      root.querySelectorAll("[data-step-id]").forEach(function (item) {
        if (item.dataset.stepId === step.id) setBadge(field(item, "step-status"), step.status);
      });
    });
    if (job.status !== "running") {
      const cancel = field(root, "cancel");
      if (cancel) cancel.hidden = true;
      const done = field(root, "done");
      if (done && root.dataset.doneNote) {
        done.textContent = root.dataset.doneNote;
        done.hidden = false;
      }
    }
  }

  function follow(root) {
    let failures = 0;
    async function poll() {
      try {
        const response = await fetch(root.dataset.progressUrl, {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        if (!response.ok) throw new Error(response.statusText);
        const data = await response.json();
        failures = 0;
        render(root, data.job);
        if (data.job.status === "running") window.setTimeout(poll, INTERVAL_MS);
      } catch (error) {
        failures += 1; // signed out, gone or offline: stop after a few tries
        if (failures < MAX_FAILURES) window.setTimeout(poll, INTERVAL_MS * failures);
      }
    }
    const status = field(root, "status");
    if (!status || status.textContent.trim() === "running") window.setTimeout(poll, INTERVAL_MS);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-progress-url]").forEach(follow);
  });
})();
