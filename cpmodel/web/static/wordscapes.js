// Wordscapes: the CLI's wordscapes command on a typed board; the fill and its words.
"use strict";
(() => {
  const {$, el, say, fail, post, letterGrid, table} = cp;

  // every across and down run of two or more letters in the filled rows
  function slotWords(rows) {
    const open = (r, c) => r >= 0 && r < rows.length && c >= 0 && c < rows[r].length && /[a-z]/.test(rows[r][c]);
    const found = [];
    rows.forEach((row, r) => [...row].forEach((_, c) => {
      for (const [dr, dc, name] of [[0, 1, "across"], [1, 0, "down"]]) {
        if (!open(r, c) || open(r - dr, c - dc) || !open(r + dr, c + dc)) continue;
        let word = "";
        for (let k = 0; open(r + k * dr, c + k * dc); k++) word += rows[r + k * dr][c + k * dc];
        found.push([name, `row ${r + 1}, column ${c + 1}`, word]);
      }
    }));
    return found;
  }

  async function solve(event) {
    event.preventDefault();
    say("");
    $("#board").replaceChildren();
    $("#words").replaceChildren();
    document.body.dataset.state = "running";
    try {
      const doc = await post("/api/wordscapes", {board: $("#ws-board").value, letters: $("#letters").value,
                                                 mode: $("#mode").value, solver: $("#solver").value});
      document.body.dataset.state = "done";
      $("#status").textContent = `${doc.status} · ${doc.count} fill(s)${doc.complete ? "" : " (stopped: " + doc.stopped_by + ")"} · ${doc.seconds} s`
        + (doc.answered_by ? ` · answered by ${doc.answered_by}` : "") + (doc.agreement ? ` · agreement: ${doc.agreement}` : "");
      if (!doc.solutions || !doc.solutions.length) return say(doc.status === "none" ? "no fill exists (proven)" : "no fill found");
      const rows = doc.solutions[0];
      $("#board").replaceChildren(letterGrid(rows));
      $("#words").replaceChildren(table(["direction", "starts at", "word"], slotWords(rows)));
      say("filled", "ok");
    } catch (error) {
      document.body.dataset.state = "error";
      fail(error.message);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#form").addEventListener("submit", solve);
    document.body.dataset.state = "idle";
  });
})();
