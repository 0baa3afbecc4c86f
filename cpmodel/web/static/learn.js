// Learn: the CLI's explain command; counts, families with their math, and the source lines.
"use strict";
(() => {
  const {$, el, say, fail, post, table} = cp;

  function fields() {
    const puzzle = $("#puzzle").value;
    if (puzzle === "rect") return {puzzle, size: $("#size").value, top: $("#top").value, encoding: $("#encoding").value};
    if (puzzle === "banana") return {puzzle, hand: $("#hand").value};
    return {puzzle, board: $("#ws-board").value, letters: $("#letters").value};
  }

  function render(doc) {
    const kinds = Object.entries(doc.constraints).sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, n.toLocaleString()]);
    const families = doc.families.map((f) => el("div", {className: "family"},
      el("h3", {}, f.name), el("div", {className: "math"}, f.math), el("div", {className: "status"}, `added by ${f.code}`),
      f.source ? el("pre", {className: "source"}, f.source) : null));
    $("#model").replaceChildren(
      el("h2", {}, doc.model), el("p", {}, `lexicon: ${doc.lexicon}`),
      el("p", {id: "counts"}, `${doc.variables.toLocaleString()} variables (${doc.booleans.toLocaleString()} Boolean, ${doc.integers.toLocaleString()} integer)`),
      el("div", {className: "row"}, table(["constraint kind", "count"], kinds),
         table(["slot", "allowed words"], doc.slots.map((s) => [s.slot, s.words.toLocaleString()]))),
      el("h2", {}, "constraint families"), ...families);
  }

  async function explain(event) {
    event.preventDefault();
    say("");
    document.body.dataset.state = "running";
    try {
      render(await post("/api/explain", fields()));
      document.body.dataset.state = "done";
    } catch (error) {
      document.body.dataset.state = "error";
      fail(error.message);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#form").addEventListener("submit", explain);
    document.body.dataset.state = "idle";
  });
})();
