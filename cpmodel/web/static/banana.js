// Bananagrams: a solo game. The server deals, checks every move with the project's validator,
// and solves (the CLI's banana command); the page only holds where the tiles lie.
"use strict";
(() => {
  const {$, el, say, fail, post, cellGrid} = cp;
  const key = (r, c) => `${r},${c}`;
  const state = {game: null, board: new Map(), rack: [], cursor: {r: 0, c: 0}, across: true, selected: -1, bad: new Set(), busy: false};

  // ---- the board as text, and back ------------------------------------------------------
  function bounds(cells) {
    const rs = [...cells.keys()].map((k) => +k.split(",")[0]), cs = [...cells.keys()].map((k) => +k.split(",")[1]);
    return {top: Math.min(...rs), left: Math.min(...cs), bottom: Math.max(...rs), right: Math.max(...cs)};
  }

  function layoutText() {  // rows of the bounding box, '.' for an empty square (the CLI's layout format)
    if (!state.board.size) return {text: "", top: 0, left: 0};
    const b = bounds(state.board);
    const rows = [];
    for (let r = b.top; r <= b.bottom; r++) {
      let row = "";
      for (let c = b.left; c <= b.right; c++) row += state.board.get(key(r, c)) || ".";
      rows.push(row);
    }
    return {text: rows.join("\n"), top: b.top, left: b.left};
  }

  function cellsOf(rows) {
    const cells = new Map();
    rows.forEach((row, r) => [...row].forEach((ch, c) => { if (/[a-z]/.test(ch)) cells.set(key(r, c), ch); }));
    return cells;
  }

  // ---- drawing ------------------------------------------------------------------------------
  function draw() {
    const cells = new Map(state.board);
    cells.set(key(state.cursor.r, state.cursor.c), cells.get(key(state.cursor.r, state.cursor.c)) || "");
    const b = state.board.size ? bounds(cells) : {top: state.cursor.r, left: state.cursor.c, bottom: state.cursor.r, right: state.cursor.c};
    const margin = 2, least = 11;
    let top = b.top - margin, left = b.left - margin, bottom = b.bottom + margin, right = b.right + margin;
    while (bottom - top + 1 < least) { top -= 1; if (bottom - top + 1 < least) bottom += 1; }
    while (right - left + 1 < least) { left -= 1; if (right - left + 1 < least) right += 1; }
    const square = (row, column) => {
      const r = top + row, c = left + column, letter = state.board.get(key(r, c));
      const classes = ["cell", letter ? "tile" : "empty"];
      if (state.bad.has(key(r, c))) classes.push("bad");
      if (r === state.cursor.r && c === state.cursor.c) classes.push("cursor");
      return el("div", {className: classes.join(" "), dataset: {r, c}, role: "gridcell", onclick: () => clickCell(r, c)},
                letter || "");
    };
    $("#board").replaceChildren(cellGrid(bottom - top + 1, right - left + 1, square, {className: "letters small", id: "tiles"}));
    $("#rack").replaceChildren(...state.rack.map((letter, k) => el("button", {
      type: "button", className: "tile" + (k === state.selected ? " selected" : ""), dataset: {letter},
      onclick: () => { state.selected = state.selected === k ? -1 : k; draw(); }}, letter)));
    const g = state.game;
    if (g) {
      $("#game-info").textContent = `${g.tiles} tiles held · ${state.rack.length} in the rack · ${g.bag_left} in the bag · `
        + `${g.peels} peels · ${g.dumps} dumps` + (g.finished ? " · Bananas!" : "")
        + ` · cursor at row ${state.cursor.r}, column ${state.cursor.c}`;
      $("#peel").textContent = g.bag_left ? "Peel" : "Bananas!";
    }
    for (const id of ["#check", "#peel", "#hint", "#solve-layout", "#clear"]) $(id).disabled = !g || g.finished || state.busy;
    $("#dump").disabled = !g || g.finished || state.busy || state.selected < 0 || g.bag_left < 3;
    document.body.dataset.rack = String(state.rack.length);
    document.body.dataset.finished = g && g.finished ? "1" : "0";
  }

  // ---- placing tiles ----------------------------------------------------------------------
  function place(r, c, letter) {
    const k = state.rack.indexOf(letter);
    if (k < 0 || state.board.has(key(r, c))) return false;
    state.rack.splice(k, 1);
    state.board.set(key(r, c), letter);
    state.bad.clear();
    return true;
  }

  function takeBack(r, c) {
    const letter = state.board.get(key(r, c));
    if (!letter) return;
    state.board.delete(key(r, c));
    state.rack.push(letter);
    state.rack.sort();
    state.bad.clear();
  }

  function clickCell(r, c) {
    if (state.board.has(key(r, c))) takeBack(r, c);
    else if (state.selected >= 0) { place(r, c, state.rack[state.selected]); state.selected = -1; }
    state.cursor = {r, c};
    draw();
    $("#board").focus();
  }

  function onKey(event) {
    const moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]};
    const {r, c} = state.cursor;
    const [dr, dc] = state.across ? [0, 1] : [1, 0];
    if (moves[event.key]) {
      state.cursor = {r: r + moves[event.key][0], c: c + moves[event.key][1]};
    } else if (/^[a-zA-Z]$/.test(event.key) && !event.ctrlKey && !event.metaKey) {
      if (state.board.has(key(r, c))) takeBack(r, c);
      if (place(r, c, event.key.toLowerCase())) state.cursor = {r: r + dr, c: c + dc};
      else say(`no ${event.key.toUpperCase()} in your rack`, "error");
    } else if (event.key === "Backspace") {
      const back = state.board.has(key(r, c)) ? {r, c} : {r: r - dr, c: c - dc};
      takeBack(back.r, back.c);
      state.cursor = back;
    } else if (event.key === "Delete") {
      takeBack(r, c);
    } else if (event.key === " ") {
      state.across = !state.across;
      say(state.across ? "typing across" : "typing down");
    } else {
      return;
    }
    event.preventDefault();
    draw();
  }

  // ---- the server's moves ---------------------------------------------------------------------
  function apply(answer) {
    state.game = answer;
  }

  // The server's answer names positions on this board (the layout is sent with its top and left):
  // the problems' words say them, and `marked` lists the tiles to mark.
  function markProblems(answer) {
    state.bad = new Set(answer.marked.map(([r, c]) => key(r, c)));
    $("#problems").replaceChildren(...answer.problems.map((p) => el("li", {}, p)));
  }

  async function move(name) {
    const layout = layoutText();
    const answer = await post(`/api/banana/game/${state.game.id}/${name}`, {layout: layout.text, top: layout.top, left: layout.left});
    apply({...answer, id: state.game.id});
    return answer;
  }

  async function run(task) {
    if (state.busy) return;
    state.busy = true;
    draw();
    document.body.dataset.state = "running";
    try {
      await task();
      document.body.dataset.state = "idle";
    } catch (error) {
      fail(error.message);
      document.body.dataset.state = "error";
    } finally {
      state.busy = false;
      draw();
    }
  }

  async function check() {
    const answer = await move("check");
    markProblems(answer);
    if (answer.valid) say("valid: one connected crossword of every tile you hold, every word in the dictionary", "ok");
    else say(`${answer.problems.length} broken rule(s), marked on the board`, "error");
  }

  async function peel() {
    const answer = await move("peel");
    markProblems(answer);
    if (!answer.valid) return say("no peel yet: fix the marked rule(s) first", "error");
    if (answer.finished) return say(`Bananas! Every one of your ${answer.tiles} tiles is in one valid layout.`, "ok");
    state.rack.push(...answer.drawn);
    state.rack.sort();
    say(`Peel! You drew ${answer.drawn.toUpperCase()}.`, "ok");
  }

  async function dump() {
    const tile = state.rack[state.selected];
    const answer = await post(`/api/banana/game/${state.game.id}/dump`, {tile, layout: layoutText().text});
    apply({...answer, id: state.game.id});
    state.rack.splice(state.selected, 1);
    state.rack.push(...answer.drawn);
    state.rack.sort();
    state.selected = -1;
    say(`Dumped ${tile.toUpperCase()}, drew ${answer.drawn.toUpperCase()}.`);
  }

  // The solver's layout of every tile held: the current layout with the rack peeled into it
  // (banana --peel, few tiles moved) when the board is valid, else a fresh layout (banana HAND).
  async function solverLayout() {
    const layout = layoutText();
    const rack = state.rack.join("");
    if (state.board.size && rack) {
      try {
        const doc = await post("/api/banana", {action: "peel", layout: layout.text, hand: rack, time_limit: 20});
        if (doc.grid) return doc.grid;
      } catch (error) { /* the board is not a valid layout yet: solve from scratch */ }
    } else if (state.board.size && !rack) {
      if ((await move("check")).valid) return null;
    }
    const doc = await post("/api/banana", {hand: state.game.held, time_limit: 30});
    if (!doc.grid) throw new Error(`the solver found no layout (${doc.status}, stopped by ${doc.stopped_by})`);
    return doc.grid;
  }

  // Shift the solver's layout to keep the most tiles where they already lie.
  function aligned(rows) {
    const cells = cellsOf(rows);
    const votes = new Map();
    for (const [k, letter] of cells) {
      const [r, c] = k.split(",").map(Number);
      for (const [bk, bl] of state.board) {
        if (bl !== letter) continue;
        const [br, bc] = bk.split(",").map(Number);
        const shift = key(br - r, bc - c);
        votes.set(shift, (votes.get(shift) || 0) + 1);
      }
    }
    let best = state.board.size ? [bounds(state.board).top, bounds(state.board).left] : [state.cursor.r, state.cursor.c];
    let most = 0;
    for (const [shift, n] of votes) if (n > most) { most = n; best = shift.split(",").map(Number); }
    const out = new Map();
    for (const [k, letter] of cells) {
      const [r, c] = k.split(",").map(Number);
      out.set(key(r + best[0], c + best[1]), letter);
    }
    return out;
  }

  function wordsOf(cells) {  // every run of two or more tiles: [cells of the run]
    const runs = [];
    for (const k of cells.keys()) {
      const [r, c] = k.split(",").map(Number);
      for (const [dr, dc] of [[0, 1], [1, 0]]) {
        if (cells.has(key(r - dr, c - dc)) || !cells.has(key(r + dr, c + dc))) continue;
        const run = [];
        for (let i = 0; cells.has(key(r + i * dr, c + i * dc)); i++) run.push(key(r + i * dr, c + i * dc));
        runs.push(run);
      }
    }
    return runs;
  }

  async function solveWhole() {
    const rows = await solverLayout();
    if (!rows) return say("your layout is already valid: peel!", "ok");
    const target = aligned(rows);
    state.rack.push(...state.board.values());
    state.board.clear();
    for (const [k, letter] of target) {
      const [r, c] = k.split(",").map(Number);
      place(r, c, letter);
    }
    state.rack.sort();
    say(state.rack.length ? "the solver's layout (some tiles left over)" : "the solver's layout: every tile placed; peel!", "ok");
  }

  async function hint() {
    const rows = await solverLayout();
    if (!rows) return say("your layout is already valid: peel!", "ok");
    const target = aligned(rows);
    const run = wordsOf(target).find((cells) => cells.some((k) => state.board.get(k) !== target.get(k)));
    if (!run) return solveWhole();
    for (const k of run) {
      if (state.board.get(k) === target.get(k)) continue;
      if (state.board.has(k)) takeBack(...k.split(",").map(Number));
      const letter = target.get(k);
      if (!state.rack.includes(letter)) {  // take it from a tile that is not where the solver has it
        const spare = [...state.board].find(([bk, bl]) => bl === letter && target.get(bk) !== bl);
        if (spare) takeBack(...spare[0].split(",").map(Number));
      }
      place(...k.split(",").map(Number), letter);
    }
    say(`hint: ${run.map((k) => target.get(k)).join("").toUpperCase()}`, "ok");
  }

  function start(answer) {
    state.game = answer;
    state.board.clear();
    state.rack = [...answer.rack];
    state.cursor = {r: 0, c: 0};
    state.selected = -1;
    state.bad.clear();
    $("#problems").replaceChildren();
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#new-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run(async () => {
        start(await post("/api/banana/game", {bag: $("#bag").value, seed: $("#seed").value}));
        say(`new game: ${state.rack.length} tiles dealt`);
      });
    });
    $("#use-hand").addEventListener("click", () => run(async () => {
      start(await post("/api/banana/game", {hand: $("#hand").value}));
      say(`your hand: ${state.rack.length} tiles; the bag is empty, so a valid layout is Bananas`);
    }));
    $("#check").addEventListener("click", () => run(check));
    $("#peel").addEventListener("click", () => run(peel));
    $("#dump").addEventListener("click", () => run(dump));
    $("#hint").addEventListener("click", () => run(hint));
    $("#solve-layout").addEventListener("click", () => run(solveWhole));
    $("#clear").addEventListener("click", () => {
      for (const k of [...state.board.keys()]) takeBack(...k.split(",").map(Number));
      draw();
    });
    $("#board").addEventListener("keydown", onKey);
    document.body.dataset.state = "idle";
    draw();
  });
})();
