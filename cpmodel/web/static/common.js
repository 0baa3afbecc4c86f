// cpmodel serve: helpers every page shares. User text only ever goes into the
// page as text (textContent, text nodes), never as HTML.
"use strict";

const cp = (() => {
  const $ = (selector, root = document) => root.querySelector(selector);

  // el("td", {className: "x", dataset: {r: 1}}, "text", otherNode)
  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key in node) node[key] = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function say(text, kind = "") {
    const box = $("#message");
    box.textContent = text || "";
    box.className = "message " + kind;
  }
  const fail = (text) => say(text, "error");

  // POST JSON; resolves to the answer's JSON, rejects with the server's one-line message.
  // Every POST goes through here: the server refuses one without Content-Type: application/json (415).
  async function post(url, body) {
    const answer = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify(body || {})});
    let data = null;
    try { data = await answer.json(); } catch (e) { data = {error: `HTTP ${answer.status}`}; }
    if (!answer.ok) throw new Error(data.error || `HTTP ${answer.status}`);
    return data;
  }

  // Start a job and follow its server-sent events. handlers: queued(position), running(),
  // progress(data), solutions(batch), done(result). Returns {cancel}.
  async function startJob(body, handlers) {
    let source = null, finished = false, id = null;
    const job = {
      cancel() {
        if (id && !finished) post(`/api/jobs/${id}/cancel`).catch(() => {});  // JSON, as every POST must be
      },
    };
    const answer = await post("/api/jobs", body);  // 400 (bad input) and 503 (busy) reject here
    id = answer.id;
    source = new EventSource(answer.events);
    const on = (kind, fn) => source.addEventListener(kind, (event) => fn(JSON.parse(event.data)));
    on("queued", (d) => handlers.queued && handlers.queued(d.position));
    on("running", () => handlers.running && handlers.running());
    on("progress", (d) => handlers.progress && handlers.progress(d));
    on("solutions", (d) => handlers.solutions && handlers.solutions(d.batch));
    on("done", (d) => { finished = true; source.close(); handlers.done && handlers.done(d); });
    let lost = "lost the connection to the server";
    on("shutdown", (d) => { lost = d.message; });  // the server says it is stopping: the stream ends next
    source.onerror = () => {
      if (!finished) { finished = true; source.close(); handlers.done && handlers.done({code: null, doc: null, message: lost}); }
    };
    return job;
  }

  // A job's end as one line for the page: the CLI's message, or null when there is a document.
  function problem(result) {
    if (result.code === 2) return (result.message || "bad input").replace(/^error: /, "");
    if (!result.doc) return result.cancelled ? "cancelled" : (result.message || `the job ended with exit code ${result.code}`);
    return null;
  }

  // A grid of cells drawn as rows (no inline style: the policy forbids it), each cell made by
  // cell(r, c). Returns the container; props go to it (className "letters" unless given).
  function cellGrid(height, width, cell, props = {}) {
    const line = (r) => el("div", {className: "line", role: "row"}, ...Array.from({length: width}, (_, c) => cell(r, c)));
    return el("div", {className: "letters", role: "grid", ...props}, ...Array.from({length: height}, (_, r) => line(r)));
  }

  // A grid of letters: rows of text, '#' or ' ' blocked, '.' open. Returns the container.
  function letterGrid(rows) {
    const width = Math.max(...rows.map((row) => row.length));
    return cellGrid(rows.length, width, (r, c) => {
      const ch = rows[r][c] || "#";
      const blocked = ch === "#" || ch === " ";
      return el("div", {className: "cell" + (blocked ? " blocked" : ch === "." ? " open" : ""),
                        dataset: {r, c}, role: "gridcell"}, blocked || ch === "." ? "" : ch);
    });
  }

  function table(headers, rows, className = "data") {
    return el("table", {className},
      el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))),
      el("tbody", {}, ...rows.map((row) => el("tr", {}, ...row.map((cell) => el("td", {}, cell))))));
  }

  // A field only some choices read says so: <label data-shown-with="mode=limit"> (choices split
  // by |) is hidden unless the select #mode holds one of them, so a page never shows a field that
  // its selected mode does not send.
  function showOnlyFieldsRead() {
    for (const label of document.querySelectorAll("[data-shown-with]")) {
      const [id, choices] = label.dataset.shownWith.split("=");
      const select = document.getElementById(id);
      const update = () => { label.hidden = !choices.split("|").includes(select.value); };
      select.addEventListener("change", update);
      update();
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    showOnlyFieldsRead();
    if (!document.body.dataset.state) document.body.dataset.state = "idle";  // pages with no script of their own
  });

  return {$, el, say, fail, post, startJob, problem, cellGrid, letterGrid, table};
})();
