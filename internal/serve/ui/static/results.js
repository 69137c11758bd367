// The results browser: the stored results with filters, a result's report, and a comparison of
// two or more of them, as cairn results list, report and results compare give them, with the
// report's charts of them overlaid.

import { getJSON, request } from "./api.js";
import { el, num, when } from "./dom.js";
import { workloads, targets } from "./meta.js";
import { againButtons } from "./again.js";

const kinds = ["run", "profile", "study"];

function select(id, values, value) {
  return el("select", { id }, ["", ...values].map((v) => el("option", { value: v, selected: v === value }, v || "any")));
}

function resultFigure(e) {
  if (e.live) { return "live study"; }
  if (e.headline === undefined || e.headline === null) { return ""; }
  // a profile (and a study, by its first case) is listed by its peak step, as results list says
  return (e.kind === "run" ? "" : "peak ") + num(e.headline) + " " + (e.headline_name || "");
}

// stepsText says what a profile's (or a study's) steps measure: the unit of the figure they are
// ranked by and the VU range, as "NOPM, 8–64 VU, 5 steps".
function stepsText(e) {
  const vus = String(e.vu || "").split(",").map(Number).filter((v) => v > 0);
  if (!vus.length) { return e.vu || ""; }
  const lo = Math.min(...vus);
  const hi = Math.max(...vus);
  const n = new Set(vus).size;
  return [e.headline_name, (lo === hi ? lo : lo + "–" + hi) + " VU", n + (n === 1 ? " step" : " steps")].filter(Boolean).join(", ");
}

export async function resultList(main, query, signal) {
  const workload = select("f-workload", workloads, query.get("workload") || "");
  const kind = select("f-kind", kinds, query.get("kind") || "");
  const target = select("f-target", targets, query.get("target") || "");
  const compare = el("button", { class: "primary", id: "compare", type: "button", disabled: true }, "Compare selected");
  const filter = () => {
    const q = new URLSearchParams();
    if (workload.value) { q.set("workload", workload.value); }
    if (kind.value) { q.set("kind", kind.value); }
    if (target.value) { q.set("target", target.value); }
    location.hash = "#/results" + (q.toString() ? "?" + q : "");
  };
  workload.addEventListener("change", filter);
  kind.addEventListener("change", filter);
  target.addEventListener("change", filter);

  const body = el("tbody");
  const picked = new Set();
  const note = el("span", { class: "notes" }, "Pick two or more to compare.");
  compare.addEventListener("click", () => {
    // Each picked result is one side of the comparison: arguments are separated by + (a space),
    // as results compare takes them; a comma would make them one group of repeated runs.
    location.hash = "#/compare?ids=" + [...picked].join("+");
  });
  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("h2", { class: "grow" }, "Results"),
      el("label", {}, "workload ", workload), el("label", {}, "kind ", kind), el("label", {}, "target ", target), note, compare),
    el("table", { class: "data", id: "results" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", { class: "n" }, "ID"), el("th", {}, "kind"), el("th", {}, "started (UTC)"),
        el("th", {}, "workload"), el("th", {}, "target"), el("th", { class: "n" }, "VUs"), el("th", { class: "n" }, "result"),
        el("th", { class: "n" }, "main p95 ms"), el("th", { class: "n" }, "window s"), el("th", {}, ""))),
      body)));

  const q = new URLSearchParams(query);
  if (!q.has("limit")) { q.set("limit", "200"); }
  const { results } = await getJSON("/api/v1/results?" + q);
  if (signal.aborted) { return; }
  if (!results || results.length === 0) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: 11, class: "notes" }, "No stored results match.")));
    return;
  }
  body.replaceChildren(...results.map((e) => {
    const id = String(e.id);
    const box = el("input", { type: "checkbox", "data-id": id });
    const row = el("tr", { "data-result": id },
      el("td", {}, box),
      el("td", { class: "n" }, el("a", { href: "#/results/" + encodeURIComponent(id) }, id)),
      el("td", {}, e.kind + (e.profile_id ? " of " + e.profile_id : "")),
      el("td", {}, when(e.started_at)),
      el("td", {}, e.workload || ""),
      el("td", {}, [e.target_name, e.target_version].filter(Boolean).join(" ")),
      e.kind === "run" ? el("td", { class: "n" }, e.vu || "")
        : el("td", { class: "n", "data-steps": "", title: "VUs " + (e.vu || "") }, stepsText(e)),
      el("td", { class: "n" }, resultFigure(e)),
      el("td", { class: "n" }, e.main_p95_ms === undefined ? "" : num(e.main_p95_ms)),
      el("td", { class: "n" }, e.kind === "run" ? num(e.window_seconds) : ""),
      el("td", { class: "warn" }, e.interrupted ? "interrupted" : ""));
    box.addEventListener("change", () => {
      if (box.checked) { picked.add(id); } else { picked.delete(id); }
      row.classList.toggle("sel", box.checked);
      compare.disabled = picked.size < 2;
      compare.textContent = "Compare selected" + (picked.size ? " (" + picked.size + ")" : "");
    });
    return row;
  }));
}

// resultView shows a result's report, with Run again and Edit and run again.
export async function resultView(main, id, signal) {
  const frame = el("iframe", { class: "report", id: "report", title: "report of result " + id });
  const problem = el("p", { class: "warn", id: "result-problem" });
  const exportLink = (format) => el("button", { type: "button", onclick: () => download(id, format, problem) }, "Export " + format.toUpperCase());
  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("h2", { class: "grow" }, "Result " + id),
      againButtons("result/" + id, "", problem), exportLink("json"), exportLink("csv"),
      el("a", { href: "#/results" }, "all results")),
    problem, frame));
  await showReport(frame, problem, "/api/v1/results/" + encodeURIComponent(id) + "/report", signal);
}

// showReport loads a report into frame, fetched with the token and shown from a blob, since a
// frame's own request could not carry it; a refusal is told in problem instead.
async function showReport(frame, problem, path, signal) {
  const resp = await request(path);
  if (signal.aborted) { return; }
  if (!resp.ok) {
    let msg = resp.status + " " + resp.statusText;
    try { msg = (await resp.json()).error || msg; } catch (e) { /* the status says it */ }
    problem.textContent = msg;
    frame.remove();
    return;
  }
  const url = URL.createObjectURL(new Blob([await resp.text()], { type: "text/html" }));
  signal.addEventListener("abort", () => URL.revokeObjectURL(url), { once: true });
  frame.src = url;
}

async function download(id, format, problem) {
  const resp = await request("/api/v1/results/" + encodeURIComponent(id) + "/export?format=" + format);
  if (!resp.ok) {
    problem.textContent = "export: " + resp.status + " " + resp.statusText;
    return;
  }
  const url = URL.createObjectURL(await resp.blob());
  const a = el("a", { href: url, download: "cairn-result-" + id + "." + format });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// compareView is what cairn results compare prints, and under it the report of the compared
// results, their charts overlaid (the report's own, as cairn report A B draws them).
export async function compareView(main, query, signal) {
  // the route's + arrives as a space, which the API takes back as +
  const args = (query.get("ids") || "").trim().split(/\s+/).filter(Boolean);
  const ids = args.map(encodeURIComponent).join("+");
  const out = el("pre", { class: "compare", id: "compare-text" }, "…");
  const frame = el("iframe", { class: "report", id: "compare-report", title: "charts of " + args.join(", ") });
  const problem = el("p", { class: "warn", id: "compare-problem" });
  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("h2", { class: "grow" }, "Compare " + args.join(" with ")), el("a", { href: "#/results" }, "all results")),
    out),
  el("section", { class: "item" }, el("h3", {}, "Charts"), problem, frame));
  // The frame opens at the report's charts: the figures of each result stand above them.
  frame.addEventListener("load", () => {
    const w = frame.contentWindow;
    const first = w && w.document.querySelector(".chart");
    if (first) { w.scrollTo(0, first.getBoundingClientRect().top + w.scrollY - 48); }
  }, { once: true });
  const charts = showReport(frame, problem, "/api/v1/report?ids=" + ids, signal);
  try {
    const { text } = await getJSON("/api/v1/compare?ids=" + ids);
    if (!signal.aborted) { out.textContent = text; }
  } catch (e) {
    out.textContent = "";
    out.replaceWith(el("p", { class: "warn", id: "compare-text" }, e.message));
  }
  await charts;
}
