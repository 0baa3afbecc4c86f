// Grid games: the words of a board (the CLI's grid command), their paths, a best-board search.
"use strict";
(() => {
  const {$, el, say, fail, post, startJob, problem, cellGrid} = cp;
  let search = null;

  function tileText(tile) {  // "qu", "e+2", "a*3" → what the tile shows
    return tile;
  }

  function tiles(notation) {  // the board notation back into rows of tile labels
    return notation.split("/").map((row) => {
      const out = [];
      for (let i = 0; i < row.length;) {
        let t = row[i] === "[" ? row.slice(i + 1, row.indexOf("]", i)) : row[i];
        i += row[i] === "[" ? t.length + 2 : 1;
        while (i < row.length && (row[i] === "+" || row[i] === "*")) { t += row[i] + row[i + 1]; i += 2; }
        out.push(t);
      }
      return out;
    });
  }

  function drawBoard(notation) {
    const rows = tiles(notation);
    const grid = cellGrid(rows.length, rows[0].length,
      (r, c) => el("div", {className: "cell", dataset: {r, c}, role: "gridcell"}, tileText(rows[r][c])), {id: "grid-board"});
    $("#board").replaceChildren(grid);
  }

  function highlight(path) {
    for (const cell of document.querySelectorAll("#grid-board .cell")) {
      cell.classList.remove("on");
      const order = cell.querySelector(".order");
      if (order) order.remove();
    }
    (path || []).forEach(([r, c], k) => {
      const cell = document.querySelector(`#grid-board .cell[data-r="${r}"][data-c="${c}"]`);
      if (cell) { cell.classList.add("on"); cell.append(el("span", {className: "order"}, String(k + 1))); }
    });
  }

  // Whose path is lit: the focused word's while the keyboard (or a focus change) has control, else
  // the word under the pointer, else the focused one. A key press or a new focus takes control; only
  // a real pointer move gives it back: a list scrolled by Tab under a resting pointer puts another
  // word under it (mouseover, no move), and that word must not take the light from the focused one.
  const lit = {hovered: null, focused: null, focusRules: false, x: null, y: null, item: null};

  function relight() {
    const item = (lit.focusRules && lit.focused) || lit.hovered || lit.focused;
    if (item === lit.item) return;
    if (lit.item) lit.item.classList.remove("lit");
    if (item) item.classList.add("lit");
    lit.item = item;
    highlight(item ? JSON.parse(item.dataset.path) : []);
  }

  function followPointerAndKeyboard(list) {
    const word = (event) => event.target.closest && event.target.closest("#words li");
    list.addEventListener("mouseover", (event) => { lit.hovered = word(event); relight(); });
    list.addEventListener("mouseleave", () => { lit.hovered = null; relight(); });
    list.addEventListener("focusin", (event) => { lit.focused = word(event); lit.focusRules = true; relight(); });
    list.addEventListener("focusout", (event) => { if (!list.contains(event.relatedTarget)) { lit.focused = null; relight(); } });
    // after the key's own work (Tab's focus change lights its word first: nothing else is lit between)
    document.addEventListener("keydown", () => { lit.focusRules = true; requestAnimationFrame(relight); });
    document.addEventListener("mousemove", (event) => {
      if (event.clientX === lit.x && event.clientY === lit.y) return;  // the page moved, not the pointer
      lit.x = event.clientX;
      lit.y = event.clientY;
      lit.hovered = word(event);
      lit.focusRules = false;
      relight();
    });
  }

  function show(doc) {
    drawBoard(doc.board);
    $("#board-input").value = doc.board;
    $("#total").textContent = `${doc.count} words · ${doc.total} points (${doc.score_kind})`
      + (doc.evaluations ? ` · ${doc.evaluations.toLocaleString()} boards tried · a heuristic, not a proven optimum` : "");
    const list = $("#words");
    list.replaceChildren(...doc.words.map((w, k) =>
      el("li", {tabIndex: 0, dataset: {index: k, path: JSON.stringify(w.path)}}, `${w.word} ${w.score}`)));
    Object.assign(lit, {hovered: null, focused: null, item: null});
    document.body.dataset.state = "done";
  }

  async function find(fields) {
    say("");
    document.body.dataset.state = "running";
    try {
      show(await post("/api/grid", {score: $("#score").value, min: $("#min").value, ...fields}));
    } catch (error) {
      document.body.dataset.state = "error";
      fail(error.message);
    }
  }

  async function best(event) {
    event.preventDefault();
    if (search) return;
    say("");
    $("#best-start").disabled = true;
    $("#best-stop").disabled = false;
    document.body.dataset.state = "running";
    const finish = () => { search = null; $("#best-start").disabled = false; $("#best-stop").disabled = true; };
    try {
      search = await startJob({puzzle: "grid", best: $("#best-size").value.trim(), time_limit: $("#best-time").value,
                               seed: $("#seed").value, score: "boggle"}, {
        queued: (position) => { $("#status").textContent = `queued: position ${position}`; },
        running: () => { $("#status").textContent = "searching…"; },
        progress: (d) => { $("#status").textContent = d.line || `best so far: ${d.found} points`; },
        done: (result) => {
          finish();
          const trouble = problem(result);
          const stoppedEarly = !result.doc && result.cancelled && result.code === 143;  // SIGTERM before the CLI began
          if (trouble && !stoppedEarly) { fail(trouble); document.body.dataset.state = "error"; return; }
          if (stoppedEarly || !result.doc.board) {  // stopped before any board was scored: unknown, said plainly
            $("#status").textContent = result.doc
              ? `no board found: stopped by ${result.doc.stopped_by} after ${result.doc.seconds} s`
              : `no board found: stopped by ${result.stopped_by || "cancel"} before the search began`;
            $("#board").replaceChildren();
            $("#words").replaceChildren();
            $("#total").textContent = "";
            document.body.dataset.state = "done";
            return;
          }
          show(result.doc);
          $("#status").textContent = `best board: ${result.doc.total} points (${result.doc.stopped_by || "done"})`;
        },
      });
    } catch (error) {
      finish();
      fail(error.message);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#form").addEventListener("submit", (event) => { event.preventDefault(); find({board: $("#board-input").value}); });
    $("#roll").addEventListener("click", () => find({random: true, seed: $("#seed").value}));
    $("#best-form").addEventListener("submit", best);
    followPointerAndKeyboard($("#words"));
    $("#best-stop").addEventListener("click", () => { if (search) { search.cancel(); $("#status").textContent = "stopping…"; } });
    document.body.dataset.state = "idle";
  });
})();
