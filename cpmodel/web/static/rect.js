// Rectangles: solve with the CLI's rect command in a worker, watch it live, stop it.
"use strict";
(() => {
  const {$, el, say, fail, startJob, problem, letterGrid, table} = cp;
  let job = null, started = 0, shown = 0;

  function body() {
    const value = (id) => $(id).value.trim();
    const fields = {puzzle: "rect", size: value("#size"), mode: value("#mode"), solver: value("#solver"),
                    distinct: $("#distinct").checked, symmetric: $("#symmetric").checked};
    if (value("#top")) fields.top = value("#top");
    if (value("#pattern")) fields.pattern = value("#pattern");
    if (fields.mode === "limit") fields.limit = value("#limit");
    if (value("#time")) fields.time_limit = value("#time");
    return fields;
  }

  function showRectangle(rows, caption) {
    const board = $("#board");
    board.replaceChildren(letterGrid(rows), el("div", {className: "status", id: "caption"}, caption));
    if (!document.body.dataset.firstMs) document.body.dataset.firstMs = String(Math.round(performance.now() - started));
  }

  function running(on) {
    $("#solve").disabled = on;
    $("#stop").disabled = !on;
    document.body.dataset.state = on ? "running" : "idle";
  }

  function onSolutions(batch, mode) {
    for (const rows of batch) {
      shown += 1;
      if (mode === "all" || mode === "limit") {
        $("#solutions").append(el("div", {}, `#${shown} ${rows.join(" ")}`));
        if (shown === 1) showRectangle(rows, "first rectangle");
      } else {
        showRectangle(rows, mode === "familiar" ? "found, improving…" : "found");
      }
    }
  }

  function verdict(doc, mode) {
    const parts = [];
    if (doc.status === "found" && doc.objective) {
      const proven = mode === "familiar" ? doc.proven : doc.complete;
      parts.push(el("span", {className: "pill " + (proven ? "proven" : "unproven"), id: "proof"},
                    proven ? "proven most familiar" : `not proven (stopped by ${doc.stopped_by})`));
      parts.push(` largest word rank ${doc.objective.max_rank.toLocaleString()}, rank sum ${doc.objective.sum_rank.toLocaleString()}`);
    } else {
      const what = mode === "count" ? `count ${doc.count.toLocaleString()}` : `${doc.status}, ${doc.count.toLocaleString()} rectangle(s)`;
      parts.push(el("span", {className: "pill " + (doc.complete ? "proven" : "unproven"), id: "proof"},
                    doc.complete ? "complete" : `stopped by ${doc.stopped_by}: at least this many`), ` ${what}`);
    }
    parts.push(el("div", {className: "status"}, `${doc.seconds} s` + (doc.answered_by ? ` · answered by ${doc.answered_by}` : "")
                  + (doc.solver && doc.solver !== "auto" ? ` · solver ${doc.solver}` : "")));
    return el("div", {id: "result"}, ...parts);
  }

  function crossCheck(doc) {
    if (!doc.solvers) return null;
    const rows = Object.entries(doc.solvers).map(([name, r]) =>
      [name, r.status, String(r.count), r.complete ? "yes" : "no", r.stopped_by || "", String(r.seconds)]);
    return el("div", {id: "crosscheck"}, el("h2", {}, "cross-check"),
              table(["engine", "status", "count", "complete", "stopped by", "seconds"], rows),
              el("p", {id: "agreement"}, `agreement: ${doc.agreement}`));
  }

  function onDone(result, mode) {
    running(false);
    job = null;
    const trouble = problem(result);
    if (trouble && !result.doc) { fail(trouble); $("#status").textContent = ""; return; }
    const doc = result.doc;
    if (doc.solutions && doc.solutions.length && mode !== "all" && mode !== "limit") {
      showRectangle(doc.solutions[0], mode === "familiar" ? (doc.proven ? "most familiar rectangle" : "most familiar found so far") : "rectangle");
    } else if (doc.solutions && mode === "all" && shown < doc.solutions.length) {
      $("#solutions").replaceChildren(...doc.solutions.slice(0, 500).map((rows, k) => el("div", {}, `#${k + 1} ${rows.join(" ")}`)));
      if (doc.solutions.length && !$("#board").children.length) showRectangle(doc.solutions[0], "first rectangle");
    } else if (doc.status === "none") {
      $("#board").replaceChildren(el("p", {}, "no rectangle exists (proven)"));
    }
    $("#verdict").replaceChildren(verdict(doc, mode));
    const check = crossCheck(doc);
    $("#details").replaceChildren(...(check ? [check] : []));
    say(result.cancelled ? "stopped: the answer keeps what was found" : "done", result.cancelled ? "" : "ok");
    document.body.dataset.state = "done";
  }

  async function solve(event) {
    event.preventDefault();
    if (job) return;
    const fields = body();
    say("");
    for (const id of ["#board", "#verdict", "#details", "#solutions", "#status"]) $(id).replaceChildren();
    delete document.body.dataset.firstMs;
    started = performance.now();
    shown = 0;
    running(true);
    try {
      job = await startJob(fields, {
        queued: (position) => { $("#status").textContent = `queued: position ${position}`; },
        running: () => { $("#status").textContent = "running…"; },
        progress: (d) => { $("#status").textContent = d.line; },
        solutions: (batch) => onSolutions(batch, fields.mode),
        done: (result) => onDone(result, fields.mode),
      });
    } catch (error) {
      running(false);
      fail(error.message);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("#form").addEventListener("submit", solve);
    $("#stop").addEventListener("click", () => { if (job) { job.cancel(); $("#status").textContent = "stopping…"; } });
    document.body.dataset.state = "idle";
  });
})();
