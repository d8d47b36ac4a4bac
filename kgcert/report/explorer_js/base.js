// Sample explorer, part 1 of 7: the page's data, DOM helpers, details inflated chunk by chunk.
// kgcert report: the sample explorer. Reads the rows from #kgx-data and the gzip-compressed
// details from #kgx-chunk-N (inflated on demand). Every text from the KG or a model enters
// the page as a text node or an attribute value, never as markup.
// The parts are one script: report/explorer.py joins them in order inside one function,
// so each part uses the names the parts before it define, and none leaks into the page.
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
