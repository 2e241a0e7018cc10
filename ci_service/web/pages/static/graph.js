// ci-service: the knowledge graph drawing. Our own small script: it reads the layout the
// server computed (/graph/layout.json) and draws it on a canvas. By default the nodes are
// arranged in one group per kind (competitors in the centre, each other kind in a cluster
// around them, the best connected nodes in the middle of their cluster); "By links" uses
// the server's force layout. Names are drawn in an SVG layer over the canvas (real text:
// readable, testable, crisp), for the most important nodes in view that fit without
// overlapping: the selection and its neighbours, then competitors, our company, products...,
// then by number of links. Drag or arrow keys pan, the wheel, the buttons or +/- zoom, 0
// fits, a click (or "Find a node") selects a node and lists its neighbours with a link to
// its record. Text is only ever set with textContent.
"use strict";

(function () {
  const view = document.getElementById("graph-view");
  if (!view) return;
  const canvas = document.getElementById("graph-canvas");
  const panel = document.getElementById("graph-panel");
  const status = document.getElementById("graph-status");
  const layer = document.getElementById("graph-labels");
  const ctx = canvas.getContext("2d");
  const SVG = "http://www.w3.org/2000/svg";
  const KIND_ORDER = ["COMPETITOR", "ORGANIZATION", "OFFERING", "CAPABILITY", "PERSON", "DEAL",
    "ARGUMENT", "MARKET_EVENT", "TOPIC", "DOCUMENT"];
  const MAX_LABELS = 160;
  const state = {
    nodes: [], byId: new Map(), edges: [], adjacent: new Map(), hidden: new Set(),
    scale: 1, tx: 0, ty: 0, fitScale: 1, selected: null, width: 0, height: 0, frame: 0,
    ranked: [], groups: [], arrange: "kind", kindNames: new Map(),
  };

  function kindRank(label) {
    const i = KIND_ORDER.indexOf(label);
    return i < 0 ? KIND_ORDER.length : i;
  }

  function kindName(label) { return state.kindNames.get(label) || label; }

  // Competitors stand out: bigger dots and bold names.
  function important(n) { return n.label === "COMPETITOR"; }

  // One cluster per kind, the best connected nodes first: competitors in the centre as a
  // block of rows with room for every name (``unit`` is one row), each other kind on a
  // sunflower spiral on a ring around them, each given an arc as wide as the cluster (plus
  // room for names) so that clusters never overlap.
  function arrangeByKind(unit) {
    const byKind = new Map();
    state.nodes.forEach(function (n) {
      if (!byKind.has(n.label)) byKind.set(n.label, []);
      byKind.get(n.label).push(n);
    });
    const kinds = Array.from(byKind.keys()).sort(function (a, b) {
      return kindRank(a) - kindRank(b) || (a < b ? -1 : 1);
    });
    const golden = Math.PI * (3 - Math.sqrt(5));
    const clusters = kinds.map(function (kind) {
      const members = byKind.get(kind).slice().sort(function (a, b) {
        return b.degree - a.degree || (a.name < b.name ? -1 : 1);
      });
      return { kind: kind, members: members, r: 12 * Math.sqrt(members.length) + 14 };
    });
    const centre = clusters[0];
    const block = centre.kind === "COMPETITOR";
    const cols = Math.ceil(Math.sqrt((centre.members.length * 1.3) / 8));
    const rows = Math.ceil(centre.members.length / cols);
    if (block) centre.r = Math.max(cols * 8 * unit, rows * 1.3 * unit) / 2 + 14;
    const ring = clusters.slice(1);
    const widest = ring.reduce(function (m, c) { return Math.max(m, c.r); }, 0);
    // Each cluster's arc is its width plus a margin for the names to its right; the ring is
    // made 10 % wider than the arcs need, as the straight gap is shorter than the arc.
    const arcs = ring.map(function (c) { return 2.3 * c.r + 70; });
    const total = arcs.reduce(function (a, b) { return a + b; }, 0);
    const radius = ring.length ? Math.max(centre.r + widest + 80, (1.1 * total) / (2 * Math.PI)) : 0;
    let angle = -Math.PI / 2;
    centre.cx = 0; centre.cy = 0;
    ring.forEach(function (c, i) {
      const share = (arcs[i] / total) * 2 * Math.PI;
      const a = ring.length === 1 ? 0 : angle + share / 2;
      c.cx = radius * Math.cos(a); c.cy = radius * Math.sin(a);
      angle += share;
    });
    clusters.forEach(function (c) {
      c.members.forEach(function (n, i) {
        if (block && c === centre) {
          const col = Math.floor(i / rows), row = i % rows;
          n.gx = (col - (cols - 1) / 2) * 8 * unit - 3 * unit;
          n.gy = (row - (rows - 1) / 2) * 1.3 * unit;
          return;
        }
        const r = c.members.length === 1 ? 0 : 12 * Math.sqrt(i + 0.5);
        n.gx = c.cx + r * Math.cos(i * golden);
        n.gy = c.cy + r * Math.sin(i * golden);
      });
    });
    state.groups = clusters;
  }

  // The competitor rows' unit such that, once the whole drawing is fitted to the canvas, a
  // row is about 20 px: every competitor's name fits on the first view (a few rounds, as
  // the block's size changes the drawing's; a huge block just stays as big as it gets).
  function arrangeToFit() {
    let unit = 20;
    for (let round = 0; round < 5; round += 1) {
      arrangeByKind(unit);
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      state.nodes.forEach(function (n) {
        minX = Math.min(minX, n.gx); maxX = Math.max(maxX, n.gx);
        minY = Math.min(minY, n.gy); maxY = Math.max(maxY, n.gy);
      });
      const scale = Math.min((state.width - 144) / Math.max(maxX - minX, 1),
        (state.height - 60) / Math.max(maxY - minY, 1));
      const wanted = 20 / (1.3 * Math.max(scale, 1e-6));
      if (Math.abs(wanted - unit) < 0.1 * unit) break;
      unit = Math.min(wanted, unit * 4);
    }
  }

  function applyArrangement() {
    const byKind = state.arrange === "kind";
    state.nodes.forEach(function (n) {
      n.x = byKind ? n.gx : n.lx;
      n.y = byKind ? n.gy : n.ly;
    });
  }

  function localUrl(url) {
    return typeof url === "string" && url.startsWith("/") && !url.startsWith("//") ? url : null;
  }

  function visible(node) { return !state.hidden.has(node.label); }

  function load(data) {
    state.nodes = data.nodes;
    state.nodes.forEach(function (n) {
      n.name = n.name || "(unnamed)";
      n.lx = n.x; n.ly = n.y; n.degree = 0;
      state.byId.set(n.id, n); state.adjacent.set(n.id, []);
    });
    data.edges.forEach(function (e) {
      const s = state.byId.get(e.source), t = state.byId.get(e.target);
      if (!s || !t) return;
      state.edges.push({ s: s, t: t, label: e.label });
      state.adjacent.get(s.id).push({ node: t, label: e.label, out: true });
      state.adjacent.get(t.id).push({ node: s, label: e.label, out: false });
      s.degree += 1; t.degree += 1;
    });
    document.querySelectorAll('#graph-filters input[name="label"]').forEach(function (box) {
      state.kindNames.set(box.value, box.dataset.name || box.value);
    });
    // Who gets a name first when names would overlap.
    state.ranked = state.nodes.slice().sort(function (a, b) {
      return kindRank(a.label) - kindRank(b.label) || b.degree - a.degree;
    });
    view.hidden = false;
    resize();
    arrangeToFit();
    applyArrangement();
    const names = document.getElementById("graph-names");
    state.nodes.slice(0, 5000).forEach(function (n) {
      const option = document.createElement("option");
      option.value = n.name;
      names.appendChild(option);
    });
    readFilters();
    fit();
    status.textContent = state.nodes.length + " nodes, " + state.edges.length + " relationships drawn.";
  }

  function resize() {
    const rect = canvas.getBoundingClientRect();
    layer.setAttribute("viewBox", "0 0 " + Math.max(1, rect.width) + " " + Math.max(1, rect.height));
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
    // Room for a group's title above it and for names to the right of the dots.
    const pad = { l: 24, r: Math.min(120, state.width / 5), t: 40, b: 20 };
    const spanX = Math.max(maxX - minX, 1), spanY = Math.max(maxY - minY, 1);
    state.scale = Math.min((state.width - pad.l - pad.r) / spanX, (state.height - pad.t - pad.b) / spanY);
    if (!isFinite(state.scale) || state.scale <= 0) state.scale = 1;
    state.fitScale = state.scale;
    state.tx = pad.l + (state.width - pad.l - pad.r) / 2 - ((minX + maxX) / 2) * state.scale;
    state.ty = pad.t + (state.height - pad.t - pad.b) / 2 - ((minY + maxY) / 2) * state.scale;
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
    const grouped = state.arrange === "kind";
    ctx.lineWidth = 1;
    // Grouped, most edges run between clusters: kept faint so the groups read first.
    // Many edges: each fainter, so thousands make a light haze rather than a grey blot.
    const faint = Math.max(0.05, Math.min(1, Math.sqrt(300 / Math.max(1, state.edges.length))));
    const alpha = selected ? 0.12 : (grouped ? 0.22 : 0.45) * faint;
    ctx.strokeStyle = "rgba(120,130,150," + alpha.toFixed(3) + ")";
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
    state.nodes.forEach(function (n) {
      if (!visible(n) || !onScreen(n, 20)) return;
      const x = sx(n), y = sy(n);
      const isSelected = selected && n.id === selected.id;
      const isNear = near.has(n.id);
      const r = dotRadius(n, radius);
      ctx.globalAlpha = selected && !isSelected && !isNear ? 0.35 : 1;
      ctx.fillStyle = n.color;
      ctx.beginPath();
      ctx.arc(x, y, isSelected ? r + 4 : isNear ? r + 1.5 : r, 0, Math.PI * 2);
      ctx.fill();
      if (important(n)) { ctx.lineWidth = 1.5; ctx.strokeStyle = "#fff"; ctx.stroke(); }
      if (isSelected) { ctx.lineWidth = 2; ctx.strokeStyle = "#f5a524"; ctx.stroke(); }
    });
    ctx.globalAlpha = 1;
    drawLabels(radius, near);
  }

  function onScreen(n, margin) {
    const x = sx(n), y = sy(n);
    return x >= -margin && y >= -margin && x <= state.width + margin && y <= state.height + margin;
  }

  function dotRadius(n, radius) { return important(n) ? radius + 3 : radius + Math.min(2, n.degree / 20); }

  function svgText(text, x, y, className) {
    const el = document.createElementNS(SVG, "text");
    el.setAttribute("x", x.toFixed(1));
    el.setAttribute("y", y.toFixed(1));
    el.setAttribute("class", className);
    el.textContent = text;
    return el;
  }

  // Names of the nodes in view, most important first, each placed only where it overlaps
  // no name (or group title) already placed: so the first view is readable at any size.
  function drawLabels(radius, near) {
    const out = document.createDocumentFragment();
    // Placed boxes in a grid of 64 px cells, so a check looks at a few boxes, not all.
    const grid = new Map();
    const CELL = 64;
    function cells(box, visit) {
      for (let gx = Math.floor(box.l / CELL); gx <= Math.floor(box.r / CELL); gx += 1) {
        for (let gy = Math.floor(box.t / CELL); gy <= Math.floor(box.b / CELL); gy += 1) {
          if (visit(gx + ":" + gy)) return true;
        }
      }
      return false;
    }
    function fits(box) {
      return !cells(box, function (key) {
        return (grid.get(key) || []).some(function (o) {
          return box.l < o.r && box.r > o.l && box.t < o.b && box.b > o.t;
        });
      });
    }
    const taken = {
      push: function (box) {
        cells(box, function (key) {
          if (!grid.has(key)) grid.set(key, []);
          grid.get(key).push(box);
          return false;
        });
      },
    };
    if (state.arrange === "kind") {
      ctx.font = "600 14px system-ui, sans-serif";
      state.groups.forEach(function (g) {
        if (state.hidden.has(g.kind)) return;
        const title = kindName(g.kind) + " (" + g.members.length + ")";
        const width = ctx.measureText(title).width;
        const middle = g.cx * state.scale + state.tx - width / 2;
        const x = Math.max(4, Math.min(middle, state.width - width - 4)); // never cut off
        const top = g.members.reduce(function (m, n) { return Math.min(m, n.gy); }, Infinity);
        const y = top * state.scale + state.ty - 12;
        if (Math.abs(x - middle) > width || y < 14 || y > state.height) return;
        if (!g.members.some(function (n) { return onScreen(n, 0); })) return;
        const box = { l: x - 2, r: x + width + 2, t: y - 14, b: y + 4 };
        if (!fits(box)) return;
        taken.push(box);
        out.appendChild(svgText(title, x, y, "kind-title"));
      });
    }
    const selected = state.selected;
    const order = [];
    if (selected && visible(selected)) order.push(selected);
    if (selected) state.adjacent.get(selected.id).forEach(function (a) { order.push(a.node); });
    let placed = 0;
    const push = function (n) {
      if (placed >= MAX_LABELS || !visible(n) || !onScreen(n, 0)) return;
      const bold = important(n) || (selected && n.id === selected.id);
      const text = n.name.length > 32 ? n.name.slice(0, 31) + "…" : n.name;
      const font = (bold ? "600 13px" : "12px") + " system-ui, sans-serif";
      if (n.textFont !== font) { // measured once per node and font, not on every frame
        ctx.font = font;
        n.textWidth = ctx.measureText(text).width;
        n.textFont = font;
      }
      const width = n.textWidth;
      const x = sx(n) + dotRadius(n, radius) + 3, y = sy(n) + 4;
      const box = { l: x - 1, r: x + width + 1, t: y - 12, b: y + 3 };
      if (box.r > state.width || !fits(box)) return;
      taken.push(box);
      placed += 1;
      out.appendChild(svgText(text, x, y, bold ? "node-name strong" : near.has(n.id) ? "node-name near" : "node-name"));
    };
    order.forEach(push);
    for (let i = 0; i < state.ranked.length && placed < MAX_LABELS; i += 1) push(state.ranked[i]);
    layer.replaceChildren(out);
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
  view.querySelectorAll('input[name="arrange"]').forEach(function (radio) {
    radio.addEventListener("change", function () {
      if (!radio.checked) return;
      state.arrange = radio.value;
      applyArrangement();
      fit();
    });
  });
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
