// Sample explorer, part 3 of 7: the controls (filters, search, views, pager), one page's table.
// Joined in order with the other parts inside one function (see base.js).
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

  // Columns that hold one value in every sample are stated once above the list, not in
  // every row (a one-run, one-spec report gives the question the room).
  const SINGLE = ["run", "spec", "setting", "model"].filter(function (name) {
    const first = key(ROWS[0], name);
    return ROWS.every(function (row) { return key(row, name) === first; });
  });
  function varies(name) { return SINGLE.indexOf(name) < 0; }
  const constant = el("p", { id: "kgx-constant", class: "kgx-constant" }, SINGLE.length
    ? ["Every sample: ", SINGLE.map(function (name, i) {
      return [i ? "; " : "", name + " ", el("b", {}, String(val(ROWS[0], name)))];
    })] : null);

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
      ? ["run", "spec", "setting", "model"].filter(varies)
        .concat(["index", "outcome", "chosen", "correct"], OPTIONAL.filter(shown), ["question"])
      : ["run", "spec", "setting"].filter(varies)
        .concat(["index", "correct"], models, ["question"]);
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
