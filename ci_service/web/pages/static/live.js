// Live pages, without reloading.
// 1. Job progress: every element with data-progress-url polls that JSON endpoint
//    ({job: {...}}, the same job record as GET /api/jobs/{id}) and updates its fields until
//    the job ends.
// 2. Live regions: while a job on the page runs or an element carries data-live-pending
//    (a competitor's PENDING / PROCESSING badge), the page's own URL is fetched every few
//    seconds and each [data-live-region="NAME"] whose HTML changed is swapped for the fresh
//    one; it stops when nothing runs or is pending any more. A polite status line says
//    "Updated" for screen readers.
// Without this script the page shows the values at render time (a reload shows the rest).
"use strict";

(function () {
  const INTERVAL_MS = 2000;
  const PAGE_INTERVAL_MS = 2500;
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

  function isRunning(root) {
    const status = field(root, "status");
    return !status || status.textContent.trim() === "running";
  }

  function follow(root) {
    if (root.dataset.liveFollowed) return; // a region swap brings the same widget back
    root.dataset.liveFollowed = "1";
    let failures = 0;
    async function poll() {
      if (!root.isConnected) return; // swapped out by a region refresh: the new one polls
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
        else regions.kick(); // the job ended: show what it changed now
      } catch (error) {
        failures += 1; // signed out, gone or offline: stop after a few tries
        if (failures < MAX_FAILURES) window.setTimeout(poll, INTERVAL_MS * failures);
      }
    }
    if (isRunning(root)) window.setTimeout(poll, INTERVAL_MS);
  }

  function followAll(scope) {
    scope.querySelectorAll("[data-progress-url]").forEach(follow);
  }

  // -- live regions ------------------------------------------------------------------------

  const regions = {
    timer: null,
    busy: false,
    failures: 0,
    announcer: null,

    present: function () {
      return document.querySelector("[data-live-region]") !== null;
    },

    // Something on the page is still moving: a pending badge or a running job.
    active: function () {
      if (document.querySelector("[data-live-pending]")) return true;
      return Array.prototype.some.call(
        document.querySelectorAll("[data-progress-url]"),
        isRunning
      );
    },

    announce: function (text) {
      if (!this.announcer) return;
      // Cleared first so the same word is announced again.
      this.announcer.textContent = "";
      const announcer = this.announcer;
      window.setTimeout(function () {
        announcer.textContent = text;
      }, 50);
    },

    schedule: function (delay) {
      if (this.timer !== null || !this.present()) return;
      const self = this;
      this.timer = window.setTimeout(function () {
        self.timer = null;
        self.refresh();
      }, delay);
    },

    // A job just ended: refresh soon, once more even if nothing is pending any more.
    kick: function () {
      if (this.timer !== null) {
        window.clearTimeout(this.timer);
        this.timer = null;
      }
      this.schedule(300);
    },

    refresh: async function () {
      if (this.busy) return;
      this.busy = true;
      let again = false;
      try {
        const response = await fetch(window.location.href, {
          credentials: "same-origin",
          headers: { Accept: "text/html" },
        });
        if (!response.ok) throw new Error(response.statusText);
        const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
        this.failures = 0;
        again = this.swap(fresh);
      } catch (error) {
        this.failures += 1; // signed out, gone or offline: stop after a few tries
        if (this.failures >= MAX_FAILURES) {
          this.busy = false;
          return;
        }
        again = true;
      }
      this.busy = false;
      if (again || this.active()) this.schedule(PAGE_INTERVAL_MS * Math.max(1, this.failures));
    },

    // The HTML the server last sent for each region: compared with the fresh copy rather
    // than the page's, which the job widgets update in place.
    served: {},

    remember: function () {
      const served = this.served;
      document.querySelectorAll("[data-live-region]").forEach(function (region) {
        served[region.getAttribute("data-live-region")] = region.outerHTML;
      });
    },

    // Swap each changed region; true when one was kept back (it holds the focus).
    swap: function (fresh) {
      const served = this.served;
      let news = false;
      let deferred = false;
      document.querySelectorAll("[data-live-region]").forEach(function (current) {
        const name = current.getAttribute("data-live-region");
        const next = fresh.querySelector('[data-live-region="' + CSS.escape(name) + '"]');
        if (!next || next.outerHTML === served[name]) return;
        const focused = document.activeElement;
        if (focused && focused !== document.body && current.contains(focused)) {
          deferred = true; // never pull a control from under someone using it
          return;
        }
        served[name] = next.outerHTML;
        const node = document.importNode(next, true);
        current.replaceWith(node);
        followAll(node);
        if (node.matches("[data-progress-url]")) follow(node);
        // A running job's progress is announced by its own widget, not as "Updated".
        if (!Array.prototype.some.call(node.querySelectorAll("[data-progress-url]"), isRunning)) {
          news = true;
        }
      });
      if (news) this.announce("Updated");
      return deferred;
    },

    start: function () {
      if (!this.present()) return;
      const line = document.createElement("p");
      line.className = "visually-hidden";
      line.setAttribute("role", "status");
      line.setAttribute("aria-live", "polite");
      line.setAttribute("data-live-status", "");
      document.body.appendChild(line);
      this.announcer = line;
      if (this.active()) this.schedule(PAGE_INTERVAL_MS);
    },
  };

  document.addEventListener("DOMContentLoaded", function () {
    regions.remember(); // before the widgets mark themselves
    followAll(document);
    regions.start();
  });
})();
