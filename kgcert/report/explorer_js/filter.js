// Sample explorer, part 2 of 7: filters, search (rows; prompts, replies), grouping, sorting.
// Joined in order with the other parts inside one function (see base.js).
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
