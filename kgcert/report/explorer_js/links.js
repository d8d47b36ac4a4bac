// Sample explorer, part 5 of 7: permalinks, keyboard steps, provenance, subgraph node kinds.
// Joined in order with the other parts inside one function (see base.js).
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
