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
    "correct_name", "role", "task", "format", "question", "names"]);
  const ROWS = meta.rows;
  const PAGE = 50;
  const NONE = "\u0000none";
  const SVGNS = "http://www.w3.org/2000/svg";
  const FILTERS = [["run", "run"], ["spec", "spec"], ["setting", "setting"],
    ["model", "model"], ["outcome", "outcome"], ["role", "chosen role"],
    ["path_length", "path length"], ["task", "task"], ["format", "format"]];
  // filters: name -> Set of wanted keys (empty: all); sort: [column, 1 | -1] or null
  const state = { filters: {}, terms: [], deep: false, view: "samples", page: 0,
    open: new Set(), sort: null, current: null };
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
      if (wanted.size && !wanted.has(column(name)[r])) return false;
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
        "correct_name", "role", "task", "format", "question", "names"].map(function (n) {
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
    if (state.sort) sortMatched();
    if (!keepPage) state.page = 0;
    render();
  }

  // Sorting: by any column, numbers as numbers, missing values last; ties keep file order.
  function sortValue(item, name) {
    const row = ROWS[Array.isArray(item) ? item[0] : item];
    if (name === "chosen" || name === "correct") return row[FIELD[name]];
    if (name === "path") return row[FIELD.path_length];
    return FIELD[name] === undefined ? null : val(row, name);
  }
  function sortMatched() {
    const name = state.sort[0], dir = state.sort[1];
    const keyed = matched.map(function (item, i) { return [sortValue(item, name), i, item]; });
    keyed.sort(function (a, b) {
      const x = a[0], y = b[0];
      const xm = x === null || x === undefined, ym = y === null || y === undefined;
      if (xm || ym) return xm === ym ? a[1] - b[1] : (xm ? 1 : -1);
      const c = typeof x === "number" && typeof y === "number" ? x - y
        : String(x).localeCompare(String(y));
      return c ? c * dir : a[1] - b[1];
    });
    matched = keyed.map(function (k) { return k[2]; });
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
      // several values at once (wrong or unparseable): a dropdown of checkboxes
      const wanted = state.filters[name] = new Set();
      const counts = new Map();
      keys.forEach(function (k) { counts.set(k, (counts.get(k) || 0) + 1); });
      const summary = el("summary", {}, pair[1] + ": all");
      const menu = el("div", { class: "kgx-menu" });
      sorted.forEach(function (k) {
        append(menu, el("label", {}, el("input", { type: "checkbox", value: k,
          onchange: function (event) {
            if (event.target.checked) wanted.add(k); else wanted.delete(k);
            summary.textContent = pair[1] + ": " + (wanted.size ? Array.from(wanted).map(
              function (w) { return w === NONE ? "(none)" : w; }).join(", ") : "all");
            refresh(false);
          } }), " " + (k === NONE ? "(none)" : k) + " (" + counts.get(k) + ")"));
      });
      append(box, el("details", { id: "kgx-filter-" + name, class: "kgx-filter",
        "data-filter": name }, summary, menu));
    });
    let timer = null;
    const search = el("input", { id: "kgx-search", type: "search",
      placeholder: "search: names, question, model... (all words)", oninput: function (event) {
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
      ? ["run", "spec", "setting", "model", "index", "outcome", "chosen", "correct"]
        .concat(OPTIONAL.filter(shown), ["question"])
      : ["run", "spec", "setting", "index", "correct"].concat(models, ["question"]);
    append(table, el("thead", {}, el("tr", {}, head.map(function (h) {
      const sortable = models.indexOf(h) < 0 || state.view === "samples";
      const mark = state.sort && state.sort[0] === h ? (state.sort[1] > 0 ? " \u25b2" : " \u25bc")
        : "";
      return el("th", { class: "kgx-c-" + (models.indexOf(h) < 0 ? h : "model"),
        title: sortable ? "sort by " + h : "",
        onclick: sortable ? function () {
          state.sort = state.sort && state.sort[0] === h ? [h, -state.sort[1]] : [h, 1];
          refresh(false);
        } : null }, h + mark);
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

  // Columns shown only when some row has a value (a run of relation specs has no task).
  const OPTIONAL = ["role", "path", "task", "format"];
  const shownColumns = {};
  function shown(name) {
    if (!(name in shownColumns)) {
      const field = FIELD[name === "path" ? "path_length" : name];
      shownColumns[name] = ROWS.some(function (row) {
        return row[field] !== null && row[field] !== undefined;
      });
    }
    return shownColumns[name];
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
    const optional = { role: val(row, "role") || "-", path: val(row, "path_length") ?? "-",
      task: val(row, "task") || "-", format: val(row, "format") || "-" };
    const tr = el("tr", { class: "kgx-row", "data-row": String(r), tabindex: "0" },
      cellOf(val(row, "run")), cellOf(val(row, "spec")),
      cellOf(val(row, "setting")), cellOf(val(row, "model")),
      el("td", { class: "num" }, val(row, "index")), el("td", {}, outcomeMark(val(row, "outcome"))),
      cellOf(option(val(row, "chosen"), val(row, "chosen_name"))),
      cellOf(option(val(row, "correct"), val(row, "correct_name"))),
      OPTIONAL.filter(shown).map(function (name) {
        return el("td", name === "path" ? { class: "num" } : {}, optional[name]);
      }), cellOf(val(row, "question") || "-"));
    const open = function () {
      if (!state.open.has(r)) { state.current = r; setLink(r); }
      toggle(body, tr, r, width, function (cell) {
        details(r).then(function (d) {
          const chosen = {};
          if (d.sample.chosen_id) chosen[d.sample.chosen_id] = [val(row, "model")];
          cell.replaceChildren(el("div", { class: "kgx-panel" },
            el("div", { class: "kgx-side" }, graphView(d.prompt.graph, chosen, d.prompt),
              provenanceView(d.prompt, d.sample)),
            el("div", { class: "kgx-main" }, questionView(row, d.prompt),
              answerView(row, d.prompt, d.sample), promptView(d.prompt),
              el("p", { class: "kgx-note" }, el("a", { href: "#" + linkOf(r),
                class: "kgx-link" }, "link to this sample"),
              " \u00b7 keys: j next, k previous sample"))));
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
      el("td", {}, option(val(first, "correct"), val(first, "correct_name"))), cells,
      cellOf(val(first, "question") || "-"));
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
            el("div", { class: "kgx-main" }, questionView(first, all[0].prompt),
              el("div", { class: "kgx-models" }, columns),
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
    const probs = sample.choice_probs && sample.choice_probs.length === prompt.options.length
      ? sample.choice_probs : null; // choice mode: the probability the model gave each option
    prompt.options.forEach(function (name, i) {
      const number = i + 1;
      const marks = [];
      if (number === prompt.correct_option) marks.push("correct");
      if (number === val(row, "chosen")) marks.push("chosen");
      append(list, el("li", { class: marks.map(function (m) { return "kgx-" + m; }).join(" ") },
        name, " ", el("span", { class: "kgx-id" }, "[" + (prompt.option_ids[i] || "") + "]"),
        prompt.roles[i] ? " " + prompt.roles[i] : "",
        probs ? el("span", { class: "kgx-prob" }, " p = " + Number(probs[i]).toFixed(3)) : "",
        marks.length ? el("b", {}, " \u2190 " + marks.join(", ")) : ""));
    });
    const parts = [el("p", {}, "outcome: ", outcomeMark(val(row, "outcome")))];
    if (prompt.options.length) parts.push(list);
    if (probs) parts.push(el("p", { class: "kgx-note" }, "choice mode: p is the model's " +
      "probability of each option number; it answered the most probable"));
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

  function questionView(row, prompt) {
    const q = val(row, "question");
    return q ? el("p", { class: "kgx-question" }, "Question: " + q) : null;
  }

  function promptView(prompt) {
    const at = prompt.question_at || 0;
    const head = prompt.text.slice(0, at);
    return el("div", { class: "kgx-prompt-box" },
      el("details", { open: "" }, el("summary", {}, "prompt: the question's part"),
        el("pre", { class: "kgx-prompt" },
          prompt.text.slice(at) || "(no text: the prompt was skipped)")),
      head ? el("details", { class: "kgx-head" }, el("summary", {},
        "instructions and worked examples (" + head.length.toLocaleString("en") +
        " characters before the question)"), el("pre", { class: "kgx-prompt-head" }, head))
        : null);
  }

  function cellOf(text) {
    return el("td", { title: String(text) }, text);
  }

  // Permalinks (#sample=run/spec/setting/model/index) and keyboard next / previous.
  function linkOf(r) {
    const row = ROWS[r];
    return "sample=" + ["run", "spec", "setting", "model", "index"].map(function (n) {
      return encodeURIComponent(String(val(row, n)));
    }).join("/");
  }
  function setLink(r) {
    if (history.replaceState) history.replaceState(null, "", "#" + linkOf(r));
  }
  function rowOfLink(hash) {
    const text = hash.replace(/^#/, "");
    if (text.indexOf("sample=") !== 0) return null;
    const wanted = text.slice(7);
    for (let r = 0; r < ROWS.length; r++) if (linkOf(r).slice(7) === wanted) return r;
    return null;
  }
  function show(r) {
    // the row's page in the current list, or the whole list when a filter hides it
    if (state.view !== "samples") { state.view = "samples"; state.open.clear(); refresh(false); }
    let at = matched.indexOf(r);
    if (at < 0) {
      clearFilters();
      at = matched.indexOf(r);
    }
    state.page = Math.floor(at / PAGE);
    state.open.clear();
    state.open.add(r);
    state.current = r;
    render();
    const tr = table.querySelector('tr.kgx-row[data-row="' + r + '"]');
    if (tr) { tr.scrollIntoView({ block: "start" }); tr.focus({ preventScroll: true }); }
  }
  function clearFilters() {
    for (const name in state.filters) state.filters[name].clear();
    root.querySelectorAll(".kgx-filter input").forEach(function (box) { box.checked = false; });
    root.querySelectorAll(".kgx-filter summary").forEach(function (summary) {
      summary.textContent = summary.textContent.replace(/: .*$/, ": all");
    });
    state.terms = [];
    const search = document.getElementById("kgx-search");
    if (search) search.value = "";
    refresh(false);
  }
  function step(by) {
    if (state.view !== "samples" || !matched.length) return;
    const at = state.current === null ? -1 : matched.indexOf(state.current);
    const next = Math.min(Math.max(at + by, 0), matched.length - 1);
    if (at === next) return;
    show(matched[next]);
    setLink(matched[next]);
  }
  document.addEventListener("keydown", function (event) {
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea" || event.ctrlKey ||
        event.metaKey || event.altKey) return;
    if (event.key === "j") step(1);
    else if (event.key === "k") step(-1);
  });
  window.addEventListener("hashchange", function () {
    const r = rowOfLink(location.hash);
    if (r !== null) show(r);
  });

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
  const linked = rowOfLink(location.hash);
  if (linked !== null) show(linked);
})();
