// ci-service: the knowledge graph drawing. Our own small script: it reads the layout the
// server computed (/graph/layout.json) and draws it on a canvas. Drag or arrow keys pan,
// the wheel, the buttons or +/- zoom, 0 fits, a click (or "Find a node") selects a node and
// lists its neighbours with a link to its record. Text is only ever set with textContent.
"use strict";

(function () {
  const view = document.getElementById("graph-view");
  if (!view) return;
  const canvas = document.getElementById("graph-canvas");
  const panel = document.getElementById("graph-panel");
  const status = document.getElementById("graph-status");
  const ctx = canvas.getContext("2d");
  const state = {
    nodes: [], byId: new Map(), edges: [], adjacent: new Map(), hidden: new Set(),
    scale: 1, tx: 0, ty: 0, fitScale: 1, selected: null, width: 0, height: 0, frame: 0,
  };

  function localUrl(url) {
    return typeof url === "string" && url.startsWith("/") && !url.startsWith("//") ? url : null;
  }

  function visible(node) { return !state.hidden.has(node.label); }

  function load(data) {
    state.nodes = data.nodes;
    state.nodes.forEach(function (n) { state.byId.set(n.id, n); state.adjacent.set(n.id, []); });
    data.edges.forEach(function (e) {
      const s = state.byId.get(e.source), t = state.byId.get(e.target);
      if (!s || !t) return;
      state.edges.push({ s: s, t: t, label: e.label });
      state.adjacent.get(s.id).push({ node: t, label: e.label, out: true });
      state.adjacent.get(t.id).push({ node: s, label: e.label, out: false });
    });
    const names = document.getElementById("graph-names");
    state.nodes.slice(0, 5000).forEach(function (n) {
      const option = document.createElement("option");
      option.value = n.name;
      names.appendChild(option);
    });
    view.hidden = false;
    readFilters();
    resize();
    fit();
    status.textContent = state.nodes.length + " nodes, " + state.edges.length + " relationships drawn.";
  }

  function resize() {
    const rect = canvas.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    state.width = Math.max(1, rect.width);
    state.height = Math.max(1, rect.height);
    canvas.width = Math.round(state.width * ratio);
    canvas.height = Math.round(state.height * ratio);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    redraw();
  }

  function fit() {
    const shown = state.nodes.filter(visible);
    if (!shown.length) { redraw(); return; }
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    shown.forEach(function (n) {
      minX = Math.min(minX, n.x); maxX = Math.max(maxX, n.x);
      minY = Math.min(minY, n.y); maxY = Math.max(maxY, n.y);
    });
    const pad = 30;
    const spanX = Math.max(maxX - minX, 1), spanY = Math.max(maxY - minY, 1);
    state.scale = Math.min((state.width - 2 * pad) / spanX, (state.height - 2 * pad) / spanY);
    if (!isFinite(state.scale) || state.scale <= 0) state.scale = 1;
    state.fitScale = state.scale;
    state.tx = state.width / 2 - ((minX + maxX) / 2) * state.scale;
    state.ty = state.height / 2 - ((minY + maxY) / 2) * state.scale;
    redraw();
  }

  function zoom(factor, cx, cy) {
    const x = cx === undefined ? state.width / 2 : cx;
    const y = cy === undefined ? state.height / 2 : cy;
    const next = Math.min(Math.max(state.scale * factor, state.fitScale / 4), state.fitScale * 200);
    const applied = next / state.scale;
    state.tx = x - (x - state.tx) * applied;
    state.ty = y - (y - state.ty) * applied;
    state.scale = next;
    redraw();
  }

  function pan(dx, dy) { state.tx += dx; state.ty += dy; redraw(); }

  function sx(n) { return n.x * state.scale + state.tx; }
  function sy(n) { return n.y * state.scale + state.ty; }

  function redraw() {
    if (state.frame) return;
    state.frame = window.requestAnimationFrame(draw);
  }

  function draw() {
    state.frame = 0;
    ctx.clearRect(0, 0, state.width, state.height);
    const selected = state.selected;
    const near = new Set();
    if (selected) state.adjacent.get(selected.id).forEach(function (a) { near.add(a.node.id); });
    ctx.lineWidth = 1;
    ctx.strokeStyle = selected ? "rgba(120,130,150,0.18)" : "rgba(120,130,150,0.45)";
    ctx.beginPath();
    state.edges.forEach(function (e) {
      if (!visible(e.s) || !visible(e.t)) return;
      ctx.moveTo(sx(e.s), sy(e.s));
      ctx.lineTo(sx(e.t), sy(e.t));
    });
    ctx.stroke();
    if (selected && visible(selected)) {
      ctx.strokeStyle = "#1d2433";
      ctx.lineWidth = 2;
      ctx.beginPath();
      state.adjacent.get(selected.id).forEach(function (a) {
        if (!visible(a.node)) return;
        ctx.moveTo(sx(selected), sy(selected));
        ctx.lineTo(sx(a.node), sy(a.node));
      });
      ctx.stroke();
    }
    const radius = Math.max(2.5, Math.min(8, 3 * Math.sqrt(state.scale / state.fitScale)));
    const labels = [];
    let first = null;
    const zoomedIn = state.scale / state.fitScale > 2.5;
    state.nodes.forEach(function (n) {
      if (!visible(n)) return;
      const x = sx(n), y = sy(n);
      if (x < -20 || y < -20 || x > state.width + 20 || y > state.height + 20) return;
      const isSelected = selected && n.id === selected.id;
      const isNear = near.has(n.id);
      ctx.globalAlpha = selected && !isSelected && !isNear ? 0.35 : 1;
      ctx.fillStyle = n.color;
      ctx.beginPath();
      ctx.arc(x, y, isSelected ? radius + 4 : isNear ? radius + 1.5 : radius, 0, Math.PI * 2);
      ctx.fill();
      if (isSelected) { ctx.lineWidth = 2; ctx.strokeStyle = "#f5a524"; ctx.stroke(); }
      if (isSelected) first = n;
      else if (isNear) labels.unshift(n);
      else if (zoomedIn && labels.length < 400) labels.push(n);
    });
    if (first) labels.unshift(first);
    ctx.globalAlpha = 1;
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = "#1d2433";
    // Labels that would overlap one already drawn are left out (the selection's first).
    const taken = [];
    labels.forEach(function (n) {
      const text = n.name.length > 40 ? n.name.slice(0, 39) + "…" : n.name;
      const x = sx(n) + radius + 3, y = sy(n) + 4;
      const box = { l: x, r: x + ctx.measureText(text).width, t: y - 11, b: y + 3 };
      const clash = taken.some(function (o) {
        return box.l < o.r && box.r > o.l && box.t < o.b && box.b > o.t;
      });
      if (clash) return;
      taken.push(box);
      ctx.fillText(text, x, y);
    });
  }

  function nodeAt(x, y) {
    let best = null, bestDistance = 12 * 12;
    state.nodes.forEach(function (n) {
      if (!visible(n)) return;
      const dx = sx(n) - x, dy = sy(n) - y, d = dx * dx + dy * dy;
      if (d <= bestDistance) { best = n; bestDistance = d; }
    });
    return best;
  }

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function select(node, center) {
    state.selected = node;
    panel.replaceChildren();
    if (!node) {
      panel.appendChild(element("p", "Click a node to see its neighbours.", "muted"));
      redraw();
      return;
    }
    if (center) {
      state.tx = state.width / 2 - node.x * state.scale;
      state.ty = state.height / 2 - node.y * state.scale;
    }
    panel.appendChild(element("h2", node.name || "(unnamed)"));
    const badge = element("p", node.label, "node-label");
    panel.appendChild(badge);
    if (node.title) panel.appendChild(element("p", node.title, "muted"));
    if (node.date) panel.appendChild(element("p", node.date, "muted"));
    const url = localUrl(node.url);
    if (url) {
      const link = element("a", "Open the record", "button");
      link.href = url;
      panel.appendChild(element("p")).appendChild(link);
    }
    const neighbours = state.adjacent.get(node.id);
    panel.appendChild(element("h3", "Neighbours (" + neighbours.length + ")"));
    const list = element("ul", undefined, "plain neighbours");
    neighbours.slice(0, 200).forEach(function (a) {
      const item = element("li");
      const button = element("button", a.node.name || "(unnamed)", "link");
      button.type = "button";
      button.addEventListener("click", function () { select(a.node, true); });
      item.appendChild(element("span", (a.out ? a.label + " → " : "← " + a.label) + " ", "muted"));
      item.appendChild(button);
      item.appendChild(element("span", " " + a.node.label, "muted small"));
      list.appendChild(item);
    });
    if (neighbours.length > 200) list.appendChild(element("li", "… and " + (neighbours.length - 200) + " more", "muted"));
    panel.appendChild(list);
    redraw();
  }

  // Zoom so a node and its neighbours fill most of the drawing.
  function focusOn(node) {
    let span = 0;
    state.adjacent.get(node.id).forEach(function (a) {
      span = Math.max(span, Math.abs(a.node.x - node.x), Math.abs(a.node.y - node.y));
    });
    const wanted = (Math.min(state.width, state.height) * 0.4) / Math.max(span, 1);
    state.scale = Math.min(Math.max(wanted, state.fitScale), state.fitScale * 200);
  }

  function readFilters() {
    state.hidden = new Set();
    document.querySelectorAll('#graph-filters input[name="label"]').forEach(function (box) {
      if (!box.checked) state.hidden.add(box.value);
    });
    if (state.selected && !visible(state.selected)) select(null);
    redraw();
  }

  // Pointer: drag pans, a click without movement selects.
  let drag = null;
  canvas.addEventListener("pointerdown", function (event) {
    drag = { x: event.clientX, y: event.clientY, moved: false };
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener("pointermove", function (event) {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!drag.moved && dx * dx + dy * dy < 16) return;
    drag.moved = true;
    drag.x = event.clientX; drag.y = event.clientY;
    pan(dx, dy);
  });
  canvas.addEventListener("pointerup", function (event) {
    if (drag && !drag.moved) {
      const rect = canvas.getBoundingClientRect();
      select(nodeAt(event.clientX - rect.left, event.clientY - rect.top), false);
    }
    drag = null;
  });
  canvas.addEventListener("pointercancel", function () { drag = null; });
  canvas.addEventListener("wheel", function (event) {
    event.preventDefault();
    const rect = canvas.getBoundingClientRect();
    zoom(event.deltaY < 0 ? 1.2 : 1 / 1.2, event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });
  canvas.addEventListener("keydown", function (event) {
    const step = 50;
    const actions = {
      "+": function () { zoom(1.25); }, "=": function () { zoom(1.25); },
      "-": function () { zoom(0.8); }, "_": function () { zoom(0.8); },
      "0": fit, "Escape": function () { select(null); },
      "ArrowLeft": function () { pan(step, 0); }, "ArrowRight": function () { pan(-step, 0); },
      "ArrowUp": function () { pan(0, step); }, "ArrowDown": function () { pan(0, -step); },
    };
    const action = actions[event.key];
    if (action) { event.preventDefault(); action(); }
  });
  view.querySelectorAll("button[data-action]").forEach(function (button) {
    button.addEventListener("click", function () {
      const action = button.dataset.action;
      if (action === "zoom-in") zoom(1.25);
      else if (action === "zoom-out") zoom(0.8);
      else fit();
    });
  });
  document.getElementById("graph-find").addEventListener("submit", function (event) {
    event.preventDefault();
    const wanted = document.getElementById("graph-find-input").value.trim().toLowerCase();
    if (!wanted) return;
    const found = state.nodes.find(function (n) { return n.name.toLowerCase() === wanted; }) ||
      state.nodes.find(function (n) { return n.name.toLowerCase().includes(wanted); });
    if (found) {
      if (!visible(found)) {
        const box = document.getElementById("gl-" + found.label);
        if (box) box.checked = true;
        readFilters();
      }
      focusOn(found);
      select(found, true);
      canvas.focus();
    } else {
      status.textContent = "No node named like “" + wanted + "”.";
    }
  });
  document.getElementById("graph-filters").addEventListener("change", readFilters);
  window.addEventListener("resize", resize);

  fetch(view.dataset.layoutUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (response) {
      if (!response.ok) throw new Error(response.statusText);
      return response.json();
    })
    .then(load)
    .catch(function (error) {
      view.hidden = false;
      status.textContent = "The drawing could not be loaded (" + error.message + "); the list below has every node.";
    });
})();
