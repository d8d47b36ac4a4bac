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

  // The subgraph, drawn by Cytoscape.js (inlined): entities captioned by name, a force
  // layout (cose) that counts each caption in its node's size so captions do not overlap,
  // pan, zoom and drag, and a click on an entity adds the context edges left out at first.
  const COLORS = { answer: "#2a9d3a", distractor: "#f08c00", path: "#8e44ad",
    related: "#2f7fd1", random: "#8a8a8a", question: "#1d2b53", context: "#d9d9d9" };
  const STYLE = [
    { selector: "node", style: { "background-color": "data(color)", label: "data(caption)",
      "font-size": 10, "text-wrap": "wrap", "text-max-width": 120, "text-valign": "bottom",
      "text-margin-y": 3, width: 14, height: 14, "border-width": 1, "border-color": "#777",
      "text-background-color": "#fff", "text-background-opacity": 0.8,
      "text-background-padding": 1 } },
    { selector: "node.strong", style: { "font-weight": "bold", width: 18, height: 18 } },
    { selector: "node.expandable", style: { "border-color": "#2f7fd1", "border-width": 2 } },
    { selector: "node.chosen", style: { "border-width": 3, "border-color": "#d11",
      "border-style": "dashed" } }, // after expandable: the chosen ring wins
    { selector: "edge", style: { width: 1, "line-color": "#bbb", "curve-style": "bezier",
      "target-arrow-shape": "triangle", "target-arrow-color": "#bbb", "arrow-scale": 0.8 } },
    { selector: "edge.question", style: { width: 2.5, "line-color": "#223",
      "target-arrow-color": "#223", label: "data(relation)", "font-size": 9,
      "text-rotation": "autorotate", "text-background-color": "#fff",
      "text-background-opacity": 0.8 } },
    { selector: "edge.added", style: { "line-style": "dashed" } }];

  function graphView(graph, chosen, prompt) {
    if (!graph) return null; // built without networkx: the page says so above the list
    const box = el("div", { class: "kgx-cy", role: "img",
      "aria-label": "the sample's subgraph: " + graph.nodes.length + " entities" });
    const info = el("p", { class: "kgx-note kgx-cy-info" },
      "Drag to pan, scroll to zoom, drag an entity to move it; click an entity for its " +
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
  const READABLE = 0.75; // the least zoom a drawing opens at: captions stay legible
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
  function settle(cy, fit) {
    for (let i = 0; i < LAYOUTS.length; i++) {
      const p = LAYOUTS[i];
      cy.layout({ name: "cose", nodeDimensionsIncludeLabels: true, randomize: false,
        animate: false, nodeRepulsion: function () { return p[0]; },
        idealEdgeLength: function () { return p[1]; }, nodeOverlap: p[2], gravity: p[3],
        numIter: 5000, componentSpacing: 120, padding: 16, fit: fit }).run();
      if (!overlaps(cy)) break;
    }
    if (fit && cy.zoom() < READABLE) { // a big drawing opens on its question, legible
      cy.zoom(READABLE);
      cy.center(cy.nodes(".question, .answer"));
    }
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
    });
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
