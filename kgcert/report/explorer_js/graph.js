// Sample explorer, part 6 of 7: the subgraph of a prompt, drawn with Cytoscape.js.
// Joined in order with the other parts inside one function (see base.js).
  // The subgraph, drawn by Cytoscape.js (inlined): entities captioned by name, a force
  // layout (cose) that counts each caption in its node's size so captions do not overlap,
  // pan, zoom and drag, and a click on an entity adds the context edges left out at first.
  const COLORS = { answer: "#2a9d3a", distractor: "#f08c00", path: "#8e44ad",
    related: "#2f7fd1", random: "#8a8a8a", question: "#1d2b53", context: "#d9d9d9" };
  const CAPTION_PX = 11; // the least caption and relation-label size on screen
  const STYLE = [
    { selector: "node", style: { "background-color": "data(color)", label: "data(caption)",
      "font-size": CAPTION_PX, "text-wrap": "wrap", "text-max-width": 130,
      "text-valign": "bottom", "text-margin-y": 3, width: 14, height: 14, "border-width": 1,
      "border-color": "#777", "text-background-color": "#fff",
      "text-background-opacity": 0.8, "text-background-padding": 1 } },
    { selector: "node.strong", style: { "font-weight": "bold", width: 18, height: 18 } },
    { selector: "node.expandable", style: { "border-color": "#2f7fd1", "border-width": 2 } },
    { selector: "node.chosen", style: { "border-width": 3, "border-color": "#d11",
      "border-style": "dashed" } }, // after expandable: the chosen ring wins
    { selector: "edge", style: { width: 1, "line-color": "#bbb", "curve-style": "bezier",
      "target-arrow-shape": "triangle", "target-arrow-color": "#bbb", "arrow-scale": 0.8,
      "font-size": CAPTION_PX, "text-rotation": "autorotate", "text-background-color": "#fff",
      "text-background-opacity": 0.9 } },
    { selector: "edge.question", style: { width: 2.5, "line-color": "#223",
      "target-arrow-color": "#223", label: "data(relation)" } },
    // a context edge names its relation while the pointer is on it (or on one of its ends)
    { selector: "edge.hover", style: { label: "data(relation)", "line-color": "#2f7fd1",
      "target-arrow-color": "#2f7fd1", width: 2 } },
    { selector: "edge.added", style: { "line-style": "dashed" } },
    // zoomed out below 1:1, a context entity's caption waits for the pointer (the captions
    // shown stay legible and apart); the question's entities and options keep theirs
    { selector: "node.quiet", style: { label: "" } },
    { selector: "node.quiet.hover", style: { label: "data(caption)" } }];

  function graphView(graph, chosen, prompt) {
    if (!graph) return null; // built without networkx: the page says so above the list
    const box = el("div", { class: "kgx-cy", role: "img",
      "aria-label": "the sample's subgraph: " + graph.nodes.length + " entities" });
    const info = el("p", { class: "kgx-note kgx-cy-info" },
      "Drag to pan, scroll to zoom, drag an entity to move it; point at an edge or an " +
      "entity to name its relations; click an entity for its " +
      "details" + (graph.more && graph.more.length ? " and the context edges left out " +
      "(entities with a blue ring have some)" : "") + ".");
    const legend = el("div", { class: "kgx-legend" }, KINDS.map(function (pair) {
      return el("span", {}, el("i", { class: "kgx-sw kgx-sw-" + pair[0] }), pair[1]);
    }), el("span", {}, el("i", { class: "kgx-sw kgx-sw-chosen" }), "chosen"),
    el("span", {}, el("i", { class: "kgx-sw kgx-sw-qedge" }), "question edge"));
    const note = graph.omitted ? el("p", { class: "kgx-note" }, graph.omitted +
      " more context edges not drawn (the graph keeps " + graph.nodes.length + " entities)") : null;
    const figure = el("figure", { class: "kgx-figure" }, box, info, legend, note);
    setTimeout(function () { drawGraph(box, info, graph, chosen, prompt); }, 0);
    return figure;
  }

  // cose, stronger each time while two captioned entities still overlap (a force layout
  // settles most graphs at once; dense ones need longer edges and more repulsion).
  const LAYOUTS = [[12000, 70, 40, 1], [400000, 120, 200, 0.25],
    [2000000, 160, 1000, 0.25], [4000000, 220, 4000, 0.25], [8000000, 300, 10000, 0.1]];
  function overlaps(cy) {
    const boxes = cy.nodes().map(function (n) {
      return n.boundingBox({ includeLabels: true, includeOverlays: false });
    });
    let found = 0;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) found++;
      }
    }
    return found;
  }
  function apart(cy, fit) {
    for (let i = 0; i < LAYOUTS.length; i++) {
      const p = LAYOUTS[i];
      cy.layout({ name: "cose", nodeDimensionsIncludeLabels: true, randomize: false,
        animate: false, nodeRepulsion: function () { return p[0]; },
        idealEdgeLength: function () { return p[1]; }, nodeOverlap: p[2], gravity: p[3],
        numIter: 5000, componentSpacing: 120, padding: 16, fit: fit }).run();
      if (!overlaps(cy)) break;
    }
  }
  // Framed, the captions grow in the graph's units to stay legible, which can make two of
  // them touch: lay out again with their new size, a few times at most. A dense graph can
  // still end with two captions touching: those are then pushed apart at the sizes shown.
  function settle(cy, fit) {
    for (let round = 0; round < 3; round++) {
      apart(cy, fit);
      if (fit) frame(cy);
      if (!overlaps(cy)) return;
      if (!fit) break;
    }
    separate(cy);
    if (fit) cy.center(cy.nodes(KEY)); // pan only: the zoom, and so the caption sizes, stay
  }
  // Moves each pair of overlapping entities apart along the axis where they overlap less,
  // each by half the overlap (and a margin); a grid that counts the captions is the last
  // resort, since it cannot overlap.
  function separate(cy) {
    const nodes = cy.nodes();
    for (let pass = 0; pass < 200; pass++) {
      let moved = false;
      for (let i = 0; i < nodes.length; i++) {
        for (let j = i + 1; j < nodes.length; j++) {
          const a = nodes[i].boundingBox({ includeLabels: true, includeOverlays: false });
          const b = nodes[j].boundingBox({ includeLabels: true, includeOverlays: false });
          const dx = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
          const dy = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
          if (dx <= 0 || dy <= 0) continue;
          const pa = nodes[i].position(), pb = nodes[j].position();
          const horizontal = dx < dy;
          const sign = (horizontal ? pa.x - pb.x : pa.y - pb.y) < 0 ? -1 : 1;
          const step = sign * ((horizontal ? dx : dy) / 2 + 2);
          nodes[i].position(horizontal ? { x: pa.x + step, y: pa.y } : { x: pa.x, y: pa.y + step });
          nodes[j].position(horizontal ? { x: pb.x - step, y: pb.y } : { x: pb.x, y: pb.y - step });
          moved = true;
        }
      }
      if (!moved) return;
    }
    cy.layout({ name: "grid", avoidOverlap: true, nodeDimensionsIncludeLabels: true,
      avoidOverlapPadding: 8, animate: false, fit: false }).run();
  }

  // At open every entity the question names, every option (the answer and the chosen one
  // among them) is in view; captions and relation labels are never under CAPTION_PX on
  // screen, however far the drawing is zoomed out (they grow in the graph's units instead).
  const KEY = "node.strong, node.chosen";
  function frame(cy) {
    cy.fit(cy.nodes(KEY), 28);
    if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(cy.nodes(KEY)); }
    readable(cy);
    // captions grown to stay legible may reach past the edge: fit once more with them
    const box = cy.nodes(KEY).boundingBox({ includeLabels: true });
    const w = cy.width(), h = cy.height();
    const zoom = Math.min(cy.zoom(), (w - 16) / Math.max(box.w, 1), (h - 16) / Math.max(box.h, 1));
    if (zoom < cy.zoom()) {
      cy.zoom(zoom);
      readable(cy);
      const again = cy.nodes(KEY).boundingBox({ includeLabels: true });
      cy.pan({ x: w / 2 - zoom * (again.x1 + again.x2) / 2,
        y: h / 2 - zoom * (again.y1 + again.y2) / 2 });
    }
  }
  function readable(cy) {
    const size = CAPTION_PX / Math.min(cy.zoom(), 1);
    const quiet = cy.zoom() < 1;
    cy.batch(function () {
      cy.elements().style("font-size", size);
      cy.nodes().not(KEY).toggleClass("quiet", quiet);
    });
  }

  function drawGraph(box, info, graph, chosen, prompt) {
    if (typeof cytoscape === "undefined") { box.textContent = "(drawing unavailable)"; return; }
    const more = graph.more || [];
    const names = graph.names || {};
    const elements = [];
    const about = {};
    graph.nodes.forEach(function (n) {
      const kind = nodeKind(n, prompt);
      const picked = chosen[n.id];
      const classes = [kind];
      if (n.option || n.question) classes.push("strong");
      if (picked) classes.push("chosen");
      const text = [n.label + " [" + n.id + "]", kind];
      if (n.option) text.push("option " + n.option);
      if (typeof n.question === "string") text.push("pattern variable " + n.question);
      if (picked) text.push("chosen by " + picked.join(", "));
      about[n.id] = text.join("; ");
      elements.push({ group: "nodes", classes: classes.join(" "),
        data: { id: n.id, caption: (n.option ? n.option + ". " : "") + n.label, kind: kind,
          color: COLORS[kind] || COLORS.context },
        position: { x: n.x * 0.6, y: n.y * 0.45 } });
    });
    graph.edges.forEach(function (e, i) {
      elements.push({ group: "edges", classes: e.kind,
        data: { id: "e" + i, source: e.source, target: e.target, relation: e.relation } });
    });
    const cy = cytoscape({ container: box, elements: elements, style: STYLE,
      minZoom: 0.2, maxZoom: 4 });
    box.kgxCy = cy; // for tests and the console
    settle(cy, true);
    cy.on("zoom", function () { readable(cy); });
    cy.on("mouseover", "edge", function (event) { event.target.addClass("hover"); });
    cy.on("mouseout", "edge", function (event) { event.target.removeClass("hover"); });
    cy.on("mouseover", "node", function (event) {
      event.target.addClass("hover").connectedEdges(".context").addClass("hover");
    });
    cy.on("mouseout", "node", function (event) {
      event.target.removeClass("hover").connectedEdges(".context").removeClass("hover");
    });
    const hidden = {};
    more.forEach(function (e) {
      [e.source, e.target].forEach(function (id) { (hidden[id] = hidden[id] || []).push(e); });
    });
    cy.nodes().forEach(function (node) {
      if (hidden[node.id()]) node.addClass("expandable");
    });
    let added = 0;
    cy.on("tap", "node", function (event) {
      const node = event.target;
      const id = node.id();
      const edges = (hidden[id] || []).filter(function (e) { return !e.shown; });
      info.textContent = (about[id] || names[id] || id) + (edges.length ? " \u2014 added " +
        edges.length + " context edge" + (edges.length > 1 ? "s" : "") + " left out" : "");
      if (!edges.length) return;
      const at = node.position();
      edges.forEach(function (e, i) {
        e.shown = true;
        [e.source, e.target].forEach(function (end) {
          if (cy.getElementById(end).empty()) {
            const angle = 2 * Math.PI * (i + 0.5) / edges.length;
            about[end] = (names[end] || end) + " [" + end + "]; context (added)";
            cy.add({ group: "nodes", classes: "context" + (hidden[end] ? " expandable" : ""),
              data: { id: end, caption: names[end] || end, kind: "context",
                color: COLORS.context },
              position: { x: at.x + 90 * Math.cos(angle), y: at.y + 90 * Math.sin(angle) } });
          }
        });
        cy.add({ group: "edges", classes: "context added", data: { id: "m" + (added++),
          source: e.source, target: e.target, relation: e.relation } });
      });
      node.removeClass("expandable");
      settle(cy, false);
      readable(cy);
    });
  }
