// Sample explorer, part 4 of 7: a row and its details: the answer as read, question, prompt.
// Joined in order with the other parts inside one function (see base.js).
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
      ["run", "spec", "setting", "model"].filter(varies).map(function (name) {
        return cellOf(val(row, name));
      }),
      el("td", { class: "num" }, val(row, "index")), el("td", {}, outcomeMark(val(row, "outcome"))),
      cellOf(option(val(row, "chosen"), val(row, "chosen_name"))),
      cellOf(option(val(row, "correct"), val(row, "correct_name"))),
      OPTIONAL.filter(shown).map(function (name) {
        return el("td", name === "path" ? { class: "num" } : {}, optional[name]);
      }), questionCell(val(row, "question") || "-"));
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
      ["run", "spec", "setting"].filter(varies).map(function (name) {
        return el("td", {}, val(first, name));
      }), el("td", { class: "num" }, val(first, "index")),
      el("td", {}, option(val(first, "correct"), val(first, "correct_name"))), cells,
      questionCell(val(first, "question") || "-"));
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
  // The question in full, wrapped: it is what a reader scans the list by.
  function questionCell(text) {
    return el("td", { class: "kgx-q" }, text);
  }
