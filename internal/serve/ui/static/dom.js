// Small DOM helpers: every value from the server is set as text, never parsed as HTML.

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) { continue; }
    if (k.startsWith("on")) { node.addEventListener(k.slice(2), v); } else if (k === "text") { node.textContent = v; } else { node.setAttribute(k, v === true ? "" : v); }
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) { continue; }
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// num mirrors num in the report (internal/report/html.go): whole numbers from 100 up, three
// significant digits below.
export function num(v) {
  if (v === null || v === undefined || Number.isNaN(v)) { return "–"; }
  const a = Math.abs(v);
  if (a >= 100) { return Math.round(v).toLocaleString("en-US"); }
  if (a === 0) { return "0"; }
  return String(Number(v.toPrecision(3)));
}

export function when(t) {
  if (!t) { return ""; }
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) { return String(t); }
  return d.toISOString().replace("T", " ").slice(0, 19);
}

export function stateBadge(state) {
  return el("span", { class: "state " + (state || ""), "data-state": state || "" }, state || "?");
}
