// kgcert report: the sample explorer. Reads the rows from #kgx-data and the gzip-compressed
// details from #kgx-chunk-N (inflated on demand). Every text from the KG or a model enters
// the page as a text node or an attribute value, never as markup.
(function () {
  "use strict";
  const root = document.getElementById("kgx");
  const meta = JSON.parse(document.getElementById("kgx-data").textContent);
  const FIELD = {};
  meta.fields.forEach(function (name, i) { FIELD[name] = i; });
  const TEXT = new Set(["run", "spec", "setting", "model", "outcome", "chosen_name",
    "correct_name", "role", "task", "format"]);
  const ROWS = meta.rows;
  const PAGE = 50;
  const NONE = "\u0000none";
  const SVGNS = "http://www.w3.org/2000/svg";
  const FILTERS = [["run", "run"], ["spec", "spec"], ["setting", "setting"],
    ["model", "model"], ["outcome", "outcome"], ["role", "chosen role"],
    ["path_length", "path length"], ["task", "task"], ["format", "format"]];
  const state = { filters: {}, terms: [], deep: false, view: "samples", page: 0,
    open: new Set() };
  const chunks = new Map();
  const deepText = new Map(); // row -> lower-case prompt, reply and parse note
  let matched = [];

  function val(row, name) {
    const v = row[FIELD[name]];
    return TEXT.has(name) && v !== null ? meta.strings[v] : v;
  }
  function key(row, name) {
    const v = val(row, name);
    return v === null || v === undefined ? NONE : String(v);
  }

  function el(tag, attrs) {
    const node = document.createElement(tag);
    for (const name in attrs || {}) {
      const value = attrs[name];
      if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  function svg(tag, attrs) {
    const node = document.createElementNS(SVGNS, tag);
    for (const name in attrs || {}) node.setAttribute(name, attrs[name]);
    for (let i = 2; i < arguments.length; i++) {
      const child = arguments[i];
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return node;
  }

  // Details: one chunk per CHUNK prompts, base64 gzip JSON, inflated by the browser.
  function chunk(prompt) {
    const number = Math.floor(prompt / meta.chunk);
    if (!chunks.has(number)) {
      const text = document.getElementById("kgx-chunk-" + number).textContent;
      const binary = atob(text);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      chunks.set(number, new Response(stream).text().then(JSON.parse));
    }
    return chunks.get(number);
  }
  function details(r) {
    const pid = ROWS[r][FIELD.prompt];
    return chunk(pid).then(function (body) {
      return { prompt: body.prompts[String(pid)], sample: body.samples[String(r)] };
    });
  }

  // Filters and search.
  const columns = {}; // filter name -> every row's key, computed once
  function column(name) {
    if (!columns[name]) columns[name] = ROWS.map(function (row) { return key(row, name); });
    return columns[name];
  }
  function passes(r) {
    for (const name in state.filters) {
      const wanted = state.filters[name];
      if (wanted !== "" && column(name)[r] !== wanted) return false;
    }
    if (!state.terms.length) return true;
    let hay = haystack(r);
    if (state.deep && deepText.has(r)) hay += " " + deepText.get(r);
    return state.terms.every(function (t) { return hay.indexOf(t) >= 0; });
  }
  const hays = new Array(ROWS.length);
  function haystack(r) {
    if (hays[r] === undefined) {
      const row = ROWS[r];
      hays[r] = ["run", "spec", "setting", "model", "index", "outcome", "chosen_name",
        "correct_name", "role", "task", "format"].map(function (n) {
        const v = val(row, n);
        return v === null ? "" : String(v);
      }).join(" ").toLowerCase();
    }
    return hays[r];
  }
  function loadDeep() {
    // a sample's details sit in its prompt's chunk, so each chunk is complete on its own
    const waits = [];
    for (let c = 0; c < meta.chunks; c++) {
      waits.push(chunk(c * meta.chunk).then(function (body) {
        for (const r in body.samples) {
          const s = body.samples[r];
          const p = body.prompts[String(ROWS[r][FIELD.prompt])];
          deepText.set(Number(r), [s.response, s.error, s.parse_note, p.text].join(" ")
            .toLowerCase());
        }
      }));
    }
    return Promise.all(waits);
  }

  function groups() {
    // one draw (spec, setting, seed, index) answered by several models; each model's prompt
    // is the same unless the models had different prompt budgets
    const byDraw = new Map();
    for (let r = 0; r < ROWS.length; r++) {
      const draw = ROWS[r][FIELD.draw];
      if (!byDraw.has(draw)) byDraw.set(draw, []);
      byDraw.get(draw).push(r);
    }
    const found = [];
    byDraw.forEach(function (members) {
      const right = members.filter(function (r) { return val(ROWS[r], "outcome") === "correct"; });
      const answered = members.filter(function (r) {
        const o = val(ROWS[r], "outcome");
        return o === "correct" || o === "wrong" || o === "unparseable";
      });
      if (right.length && answered.length > right.length) found.push(members);
    });
    return found;
  }
  let disagreements = null;

  function refresh(keepPage) {
    if (state.view === "samples") {
      matched = [];
      for (let r = 0; r < ROWS.length; r++) if (passes(r)) matched.push(r);
    } else {
      if (disagreements === null) disagreements = groups();
      matched = disagreements.filter(function (members) { return members.some(passes); });
    }
    if (!keepPage) state.page = 0;
    render();
  }

  // Controls.
  const count = el("p", { id: "kgx-count", class: "kgx-count", "aria-live": "polite" });
  const models = Array.from(new Set(ROWS.map(function (row) { return val(row, "model"); })))
    .sort();
  function controls() {
    const box = el("div", { class: "kgx-controls" });
    FILTERS.forEach(function (pair) {
      const name = pair[0];
      const values = new Map();
      const keys = column(name);
      ROWS.forEach(function (row, r) {
        if (!values.has(keys[r])) values.set(keys[r], val(row, name));
      });
      if (values.size === 1 && values.has(NONE)) return;
      const sorted = Array.from(values.keys()).sort(function (a, b) {
        const x = values.get(a), y = values.get(b);
        if (typeof x === "number" && typeof y === "number") return x - y;
        return a < b ? -1 : a > b ? 1 : 0;
      });
      const select = el("select", { id: "kgx-filter-" + name, "data-filter": name,
        onchange: function (event) {
          state.filters[name] = event.target.value;
          refresh(false);
        } }, el("option", { value: "" }, "all"));
      sorted.forEach(function (k) {
        append(select, el("option", { value: k }, k === NONE ? "(none)" : k));
      });
      append(box, el("label", {}, pair[1] + " ", select));
    });
    let timer = null;
    const search = el("input", { id: "kgx-search", type: "search",
      placeholder: "search (all words)", oninput: function (event) {
        clearTimeout(timer);
        timer = setTimeout(function () {
          state.terms = event.target.value.toLowerCase().split(/\s+/).filter(Boolean);
          refresh(false);
        }, 150);
      } });
    const deep = el("input", { id: "kgx-deep", type: "checkbox", onchange: function (event) {
      state.deep = event.target.checked;
      if (state.deep && deepText.size < ROWS.length) {
        count.textContent = "reading every prompt and reply...";
        loadDeep().then(function () { refresh(false); });
      } else refresh(false);
    } });
    append(box, [el("label", {}, search),
      el("label", {}, deep, " also search prompts and replies")]);
    const views = el("div", { class: "kgx-views" });
    [["samples", "all samples"], ["disagree", "models disagree"]].forEach(function (pair) {
      const button = el("button", { type: "button", id: "kgx-view-" + pair[0],
        onclick: function () {
          state.view = pair[0];
          state.open.clear();
          refresh(false);
        } }, pair[1]);
      if (pair[0] === "disagree" && models.length < 2) button.disabled = true;
      append(views, button);
    });
    append(box, views);
    return box;
  }

  const table = el("table", { class: "kgx-table" });
  const pager = el("div", { class: "kgx-pager" });

  function outcomeMark(outcome) {
    return el("span", { class: "kgx-o kgx-o-" + outcome }, outcome);
  }
  function option(number, name) {
    if (number === null || number === undefined) return "-";
    return name === null ? String(number) : number + ". " + name;
  }

  function render() {
    const pages = Math.max(1, Math.ceil(matched.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    const noun = state.view === "samples" ? "samples" : "prompts where models disagree";
    count.textContent = matched.length.toLocaleString("en") + " " + noun + " match";
    count.setAttribute("data-count", String(matched.length));
    table.replaceChildren();
    const head = state.view === "samples"
      ? ["run", "spec", "setting", "model", "index", "outcome", "chosen", "correct", "role",
        "path", "task", "format"]
      : ["run", "spec", "setting", "index", "correct"].concat(models);
    append(table, el("thead", {}, el("tr", {}, head.map(function (h) {
      return el("th", {}, h);
    }))));
    const body = el("tbody", { id: "kgx-rows" });
    const start = state.page * PAGE;
    matched.slice(start, start + PAGE).forEach(function (item) {
      if (state.view === "samples") sampleRow(body, item, head.length);
      else groupRow(body, item, head.length);
    });
    append(table, body);
    pager.replaceChildren(
      el("button", { type: "button", id: "kgx-prev", onclick: function () {
        state.page -= 1; render();
      } }, "\u2039 previous"),
      el("span", {}, " page " + (state.page + 1) + " of " + pages + " "),
      el("button", { type: "button", id: "kgx-next", onclick: function () {
        state.page += 1; render();
      } }, "next \u203a"));
    pager.firstChild.disabled = state.page === 0;
    pager.lastChild.disabled = state.page >= pages - 1;
  }

  function toggle(body, tr, id, width, fill) {
    const open = state.open.has(id);
    if (open) {
      state.open.delete(id);
      if (tr.nextSibling && tr.nextSibling.classList.contains("kgx-detail")) {
        tr.nextSibling.remove();
      }
      tr.classList.remove("kgx-open");
      return;
    }
    state.open.add(id);
    tr.classList.add("kgx-open");
    const cell = el("td", { colspan: String(width) }, "loading...");
    tr.after(el("tr", { class: "kgx-detail" }, cell));
    fill(cell);
  }

  function sampleRow(body, r, width) {
    const row = ROWS[r];
    const tr = el("tr", { class: "kgx-row", "data-row": String(r), tabindex: "0" },
      el("td", {}, val(row, "run")), el("td", {}, val(row, "spec")),
      el("td", {}, val(row, "setting")), el("td", {}, val(row, "model")),
      el("td", { class: "num" }, val(row, "index")), el("td", {}, outcomeMark(val(row, "outcome"))),
      el("td", {}, option(val(row, "chosen"), val(row, "chosen_name"))),
      el("td", {}, option(val(row, "correct"), val(row, "correct_name"))),
      el("td", {}, val(row, "role") || "-"), el("td", { class: "num" }, val(row, "path_length") ?? "-"),
      el("td", {}, val(row, "task") || "-"), el("td", {}, val(row, "format") || "-"));
    const open = function () {
      toggle(body, tr, r, width, function (cell) {
        details(r).then(function (d) {
          const chosen = {};
          if (d.sample.chosen_id) chosen[d.sample.chosen_id] = [val(row, "model")];
          cell.replaceChildren(el("div", { class: "kgx-panel" },
            el("div", { class: "kgx-side" }, graphView(d.prompt.graph, chosen, d.prompt),
              provenanceView(d.prompt, d.sample)),
            el("div", { class: "kgx-main" }, answerView(row, d.prompt, d.sample),
              promptView(d.prompt))));
        }).catch(function (error) { cell.textContent = "could not read the sample: " + error; });
      });
    };
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", function (e) { if (e.key === "Enter") open(); });
    append(body, tr);
    if (state.open.has(r)) { state.open.delete(r); open(); }
  }

  function groupRow(body, members, width) {
    const first = ROWS[members[0]];
    const byModel = {};
    members.forEach(function (r) { byModel[val(ROWS[r], "model")] = r; });
    const cells = models.map(function (m) {
      if (!(m in byModel)) return el("td", {}, "-");
      const row = ROWS[byModel[m]];
      return el("td", {}, outcomeMark(val(row, "outcome")), " ",
        option(val(row, "chosen"), val(row, "chosen_name")),
        val(row, "role") ? " (" + val(row, "role") + ")" : "");
    });
    const id = "g" + first[FIELD.draw];
    const tr = el("tr", { class: "kgx-row", tabindex: "0" },
      el("td", {}, val(first, "run")), el("td", {}, val(first, "spec")),
      el("td", {}, val(first, "setting")), el("td", { class: "num" }, val(first, "index")),
      el("td", {}, option(val(first, "correct"), val(first, "correct_name"))), cells);
    const open = function () {
      toggle(body, tr, id, width, function (cell) {
        Promise.all(members.map(details)).then(function (all) {
          const chosen = {};
          const same = members.every(function (r) {
            return ROWS[r][FIELD.prompt] === first[FIELD.prompt];
          });
          const columns = all.map(function (d, i) {
            const row = ROWS[members[i]];
            const id = d.sample.chosen_id;
            if (id) (chosen[id] = chosen[id] || []).push(val(row, "model"));
            return el("div", { class: "kgx-model" }, el("h4", {}, val(row, "model")),
              answerView(row, d.prompt, d.sample), same ? null : promptView(d.prompt));
          });
          cell.replaceChildren(el("div", { class: "kgx-panel" },
            el("div", { class: "kgx-side" }, graphView(all[0].prompt.graph, chosen, all[0].prompt),
              provenanceView(all[0].prompt, null)),
            el("div", { class: "kgx-main" }, el("div", { class: "kgx-models" }, columns),
              same ? promptView(all[0].prompt) : el("p", { class: "kgx-note" },
                "The models were asked different prompts for this draw (their prompt budgets " +
                "differ); each column shows its own."))));
        });
      });
    };
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", function (e) { if (e.key === "Enter") open(); });
    append(body, tr);
    if (state.open.has(id)) { state.open.delete(id); open(); }
  }

  function answerView(row, prompt, sample) {
    const list = el("ol", { class: "kgx-options" });
    prompt.options.forEach(function (name, i) {
      const number = i + 1;
      const marks = [];
      if (number === prompt.correct_option) marks.push("correct");
      if (number === val(row, "chosen")) marks.push("chosen");
      append(list, el("li", { class: marks.map(function (m) { return "kgx-" + m; }).join(" ") },
        name, " ", el("span", { class: "kgx-id" }, "[" + (prompt.option_ids[i] || "") + "]"),
        prompt.roles[i] ? " " + prompt.roles[i] : "",
        marks.length ? el("b", {}, " \u2190 " + marks.join(", ")) : ""));
    });
    const parts = [el("p", {}, "outcome: ", outcomeMark(val(row, "outcome")))];
    if (prompt.options.length) parts.push(list);
    if (prompt.answers.length) {
      parts.push(el("p", {}, "accepted answers: " + prompt.answers.join(" | ") +
        (prompt.more_answers ? " (+" + prompt.more_answers + " more)" : "")));
    }
    if (sample.exact !== null && sample.exact !== undefined) {
      parts.push(el("p", {}, "scored: exact " + sample.exact + ", flexible " + sample.flexible));
    }
    if (prompt.skipped || sample.skip_reason) {
      parts.push(el("p", {}, "skipped: " + (sample.skip_reason || prompt.skipped)));
    }
    if (sample.error) parts.push(el("p", {}, "the call failed: " + sample.error));
    if (sample.response !== null && sample.response !== undefined) {
      parts.push(el("h4", {}, "response"), el("pre", { class: "kgx-response" }, sample.response));
    }
    parts.push(el("p", { class: "kgx-note" }, "parse note: " + (sample.parse_note || "(none)")));
    const cost = [];
    if (sample.latency_s !== null && sample.latency_s !== undefined) {
      cost.push("latency " + Number(sample.latency_s).toFixed(3) + " s");
    }
    if (sample.prompt_tokens !== null && sample.prompt_tokens !== undefined) {
      cost.push(sample.prompt_tokens + " prompt tokens");
    }
    if (sample.completion_tokens !== null && sample.completion_tokens !== undefined) {
      cost.push(sample.completion_tokens + " completion tokens");
    }
    if (sample.cached) cost.push("from the cache");
    if (cost.length) parts.push(el("p", { class: "kgx-note" }, cost.join(", ")));
    return el("div", { class: "kgx-answer" }, parts);
  }

  function promptView(prompt) {
    return el("details", { class: "kgx-prompt-box", open: "" }, el("summary", {}, "prompt"),
      el("pre", { class: "kgx-prompt" }, prompt.text || "(no text: the prompt was skipped)"));
  }

  function provenanceView(prompt, sample) {
    const p = prompt.provenance;
    const rows = [["spec hash", p.spec_hash], ["run seed", p.seed], ["sample seed", p.sample_seed],
      ["kind", p.kind], ["template", p.template], ["textualization", p.textualization],
      ["answer id", prompt.answer_id], ["chosen id", sample ? sample.chosen_id : null],
      ["question entities", Object.keys(p.nodes || {}).map(function (k) {
        return k + ": " + p.nodes[k];
      }).join(", ")],
      ["question edges", (p.edges || []).length],
      ["distractors in context", (p.distractors || []).join(", ")],
      ["context edges", p.context_edges],
      ["other correct answers", p.other_correct_answers],
      ["rejected draws / prompts", p.rejected_draws + " / " + p.rejected_prompts]];
    return el("table", { class: "kgx-prov" }, rows.filter(function (pair) {
      return pair[1] !== null && pair[1] !== undefined && pair[1] !== "";
    }).map(function (pair) {
      return el("tr", {}, el("th", {}, pair[0]), el("td", {}, String(pair[1])));
    }));
  }

  const KINDS = [["answer", "answer"], ["distractor", "distractor (Def. 2.3)"],
    ["path", "option: on the path"], ["related", "option: related"],
    ["random", "option: random"], ["question", "question entity"], ["context", "context"]];

  function nodeKind(node, prompt) {
    if (node.role === "answer" || node.id === prompt.answer_id) return "answer";
    if (node.distractor || node.role === "distractor") return "distractor";
    if (node.role) return node.role;
    if (node.question) return "question";
    return "context";
  }

  function graphView(graph, chosen, prompt) {
    if (!graph) return null; // built without networkx: the page says so above the list
    const W = 560, H = 400, M = 46, R = 8;
    const where = {};
    graph.nodes.forEach(function (n) {
      where[n.id] = [M + n.x / 1000 * (W - 2 * M), M + n.y / 1000 * (H - 2 * M)];
    });
    const canvas = svg("svg", { class: "kgx-graph", viewBox: "0 0 " + W + " " + H,
      width: String(W), height: String(H), role: "img" },
    svg("title", {}, "the sample's subgraph"));
    const defs = svg("defs");
    ["question", "context"].forEach(function (kind) {
      append(defs, svg("marker", { id: "kgx-arrow-" + kind, viewBox: "0 0 10 10", refX: "10",
        refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "kgx-arrow-" + kind })));
    });
    canvas.append(defs);
    graph.edges.forEach(function (e) {
      const a = where[e.source], b = where[e.target];
      if (!a || !b) return;
      const dx = b[0] - a[0], dy = b[1] - a[1], length = Math.hypot(dx, dy) || 1;
      const line = svg("line", { x1: a[0] + dx / length * R, y1: a[1] + dy / length * R,
        x2: b[0] - dx / length * (R + 2), y2: b[1] - dy / length * (R + 2),
        class: "kgx-e-" + e.kind, "marker-end": "url(#kgx-arrow-" + e.kind + ")" },
      svg("title", {}, e.source + " \u2014" + e.relation + "\u2192 " + e.target + " (" + e.kind + ")"));
      canvas.append(line);
      if (e.kind === "question") {
        canvas.append(svg("text", { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 - 3,
          class: "kgx-rel" }, e.relation.length > 24 ? e.relation.slice(0, 23) + "\u2026" : e.relation));
      }
    });
    graph.nodes.forEach(function (n) {
      const p = where[n.id];
      const kind = nodeKind(n, prompt);
      const group = svg("g", { class: "kgx-node" });
      const picked = chosen[n.id];
      if (picked) {
        group.append(svg("circle", { cx: p[0], cy: p[1], r: R + 5, class: "kgx-chosen" }));
      }
      const label = n.label.length > 26 ? n.label.slice(0, 25) + "\u2026" : n.label;
      const about = [n.label + " [" + n.id + "]", kind];
      if (n.option) about.push("option " + n.option);
      if (typeof n.question === "string") about.push("pattern variable " + n.question);
      if (picked) about.push("chosen by " + picked.join(", "));
      group.append(svg("circle", { cx: p[0], cy: p[1], r: R, class: "kgx-n-" + kind },
        svg("title", {}, about.join("; "))));
      group.append(svg("text", { x: p[0] + R + 3, y: p[1] + 4,
        class: "kgx-label" + (n.option || n.question ? " kgx-strong" : "") },
      (n.option ? n.option + ". " : "") + label));
      canvas.append(group);
    });
    const legend = el("div", { class: "kgx-legend" }, KINDS.map(function (pair) {
      return el("span", {}, el("i", { class: "kgx-sw kgx-sw-" + pair[0] }), pair[1]);
    }), el("span", {}, el("i", { class: "kgx-sw kgx-sw-chosen" }), "chosen"),
    el("span", {}, el("i", { class: "kgx-sw kgx-sw-qedge" }), "question edge"));
    const note = graph.omitted ? el("p", { class: "kgx-note" }, graph.omitted +
      " more context edges not drawn (the graph keeps " + graph.nodes.length + " entities)") : null;
    return el("figure", { class: "kgx-figure" }, canvas, legend, note);
  }

  if (typeof DecompressionStream === "undefined") {
    root.replaceChildren(el("p", {}, "This browser cannot open the samples (it lacks " +
      "DecompressionStream); open the report in a current Chrome, Firefox, Safari or Edge."));
    return;
  }
  root.replaceChildren(controls(), count, pager, el("div", { class: "kgx-scroll" }, table));
  refresh(false);
})();
