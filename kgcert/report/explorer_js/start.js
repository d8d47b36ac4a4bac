// Sample explorer, part 7 of 7: the table's first page, or the sample a permalink names.
// Joined in order with the other parts inside one function (see base.js).
  if (typeof DecompressionStream === "undefined") {
    root.replaceChildren(el("p", {}, "This browser cannot open the samples (it lacks " +
      "DecompressionStream); open the report in a current Chrome, Firefox, Safari or Edge."));
    return;
  }
  root.replaceChildren(controls(), constant, count, pager, el("div", { class: "kgx-scroll" }, table));
  refresh(false);
  const linked = rowOfLink(location.hash);
  if (linked !== null) show(linked);
