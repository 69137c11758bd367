// The form that starts a job from a spec: a run spec (one VU count is a run, a list a profile) or
// a study, validated by the server as cairn run --spec and cairn study plan validate, with the
// message shown beside the line of the key it names.

import { getJSON, postJSON } from "./api.js";
import { fields } from "./fields.js";
import { el } from "./dom.js";
import { locate } from "./yamlpath.js";

// A study's example; the run specs' are docs/examples, served by GET /api/v1/examples.
const studyExample = `# A small study: TPC-C on SQLite at 1 and 2 VUs, twice each, in random order. A study on
# PostgreSQL or MySQL names its settings here and gives db as a URL whose password is
# \${CAIRN_PASSWORD}, read from cairn serve's environment (cairn serve --allow-env names the
# variables it may read; \${VAR} is read nowhere else).
name: sqlite-vus
workload: tpcc
db: sqlite://cairn-serve.db
prepare: {warehouses: 1}
vu: [1, 2]
rampup: 1s
duration: 10s
pause: 0s
repeat: 2
order: random
`;

let examples = null;
async function loadExamples() {
  if (!examples) { examples = (await getJSON("/api/v1/examples")).examples; }
  return examples;
}

const LINE = 18; // px: the editor's line height (style.css)
const PAD = 8; // px: its padding

let draft = null; // what the user typed, kept while the page stays open

export async function newJob(main, navigate, preset) {
  // Handed a spec ({kind, spec}: Edit and run again, again.js), the form opens with it.
  if (preset) { draft = { text: preset.spec, kind: preset.kind }; }
  const exs = await loadExamples();
  const first = exs.find((e) => e.name.startsWith("sqlite")) || exs[0];
  const exampleOf = (k) => (k === "study" ? studyExample : first.spec);
  const kind = el("select", { id: "kind" }, ["run", "study", "prepare", "check", "cleanup"].map((k) => el("option", { value: k }, k)));
  const text = el("textarea", { id: "spec", spellcheck: "false", autocomplete: "off", "aria-label": "spec" });
  const band = el("div", { class: "band" });
  const marks = el("div", { class: "marks", id: "marks" });
  const status = el("div", { id: "status", class: "notes" });
  const plan = el("pre", { class: "plan", id: "plan", hidden: true });
  const validate = el("button", { type: "button", id: "validate" }, "Validate");
  const start = el("button", { type: "button", class: "primary", id: "start" }, "Start");
  const found = el("ul", { class: "notes", id: "target", hidden: true });
  // A cleanup drops what a prepare may have taken hours to load: it starts only once confirmed,
  // with what it will drop named, read from the database just before.
  const confirmBox = el("div", { class: "confirm", id: "confirm", hidden: true });
  const example = el("select", { id: "example" }, el("option", { value: "" }, "load an example…"), exs.map((e) => el("option", { value: e.name }, e.title)));
  const testConn = el("button", { type: "button", id: "test-conn" }, "Test connection");
  const conn = el("ul", { class: "notes", id: "connection", hidden: true });
  const form = el("div", { class: "fields", id: "fields" });

  text.value = draft ? draft.text : first.spec;
  if (draft) { kind.value = draft.kind; }
  let problem = null;
  let synced = { read: () => {}, kind: () => {} };
  const keep = () => { draft = { text: text.value, kind: kind.value }; };
  kind.addEventListener("change", () => {
    if ([studyExample, ...exs.map((e) => e.spec)].includes(text.value)) { text.value = exampleOf(kind.value); synced.read(); }
    synced.kind(kind.value);
    clear();
    keep();
  });
  example.addEventListener("change", () => {
    const e = exs.find((x) => x.name === example.value);
    if (!e) { return; }
    text.value = e.spec;
    if (kind.value === "study") { kind.value = e.kind; synced.kind(kind.value); }
    example.value = "";
    clear();
    keep();
    synced.read();
  });

  const clear = () => {
    problem = null;
    found.hidden = true;
    confirmBox.hidden = true;
    marks.replaceChildren();
    band.style.display = "none";
    status.textContent = "";
    status.className = "notes";
  };
  // place puts the message at the line of its key, beside the editor, and marks the line.
  const place = () => {
    if (!problem) { return; }
    const line = problem.field ? locate(text.value, problem.field) : -1;
    const top = line < 0 ? 0 : PAD + line * LINE - text.scrollTop;
    // cairn's messages name their key already; one that does not is given it
    const named = !problem.field || problem.message.includes(problem.field);
    const mark = el("div", { class: "mark", id: "mark", "data-field": problem.field || "", "data-line": line },
      named ? null : el("span", { class: "field" }, problem.field), named ? null : ": ", problem.message);
    mark.style.top = Math.max(0, top) + "px";
    marks.replaceChildren(mark);
    if (line >= 0 && top >= 0 && top < text.clientHeight) {
      band.style.display = "block";
      band.style.top = (top + 1) + "px"; // the textarea's border
    } else {
      band.style.display = "none";
    }
  };
  text.addEventListener("scroll", place);
  text.addEventListener("input", () => { clear(); keep(); plan.hidden = true; synced.read(); });

  const show = (e) => {
    problem = { field: e.field || "", message: e.message };
    status.textContent = "Not valid: see beside the spec.";
    status.className = "warn";
    place();
  };
  const busy = (b) => { validate.disabled = b; start.disabled = b; testConn.disabled = b; };

  // Test connection looks at the database as a prepare would find it (the same survey Validate
  // makes): the server and its version, and what it holds of the workload's schema.
  testConn.addEventListener("click", async () => {
    clear();
    busy(true);
    conn.hidden = false;
    conn.replaceChildren(el("li", {}, "connecting…"));
    const v = synced.values ? synced.values() : {};
    const probe = "workload: " + (v.workload || "tpcc") + "\n" + (v.db ? "db: " + JSON.stringify(v.db) + "\n" : "");
    try {
      const r = await postJSON("/api/v1/validate", { kind: "prepare", spec: probe });
      conn.replaceChildren(...(r.target || []).map((l) => el("li", { class: "ok" }, l)));
    } catch (e) {
      conn.replaceChildren(el("li", { class: "warn" }, e.message));
    } finally {
      busy(false);
    }
  });

  // check asks the server to validate the spec and look at its database; null when not valid.
  const check = async () => {
    try {
      const r = await postJSON("/api/v1/validate", { kind: kind.value, spec: text.value });
      found.replaceChildren(...(r.target || []).map((l) => el("li", {}, l)));
      found.hidden = !(r.target || []).length;
      return r;
    } catch (e) {
      plan.hidden = true;
      show(e);
      return null;
    }
  };
  validate.addEventListener("click", async () => {
    clear();
    busy(true);
    try {
      const r = await check();
      if (r) {
        status.textContent = "Valid.";
        status.className = "ok";
        plan.textContent = r.plan || "";
        plan.hidden = !r.plan;
      }
    } finally {
      busy(false);
    }
  });
  const create = async () => {
    const job = await postJSON("/api/v1/jobs", { kind: kind.value, spec: text.value });
    navigate("#/jobs/" + encodeURIComponent(job.id));
  };
  start.addEventListener("click", async () => {
    clear();
    busy(true);
    try {
      if (kind.value === "cleanup") {
        const r = await check();
        if (!r) { return; }
        const drops = r.drops || [];
        const yes = el("button", { type: "button", class: "danger", id: "confirm-drop" }, drops.length ? "Drop it" : "Start the cleanup");
        const no = el("button", { type: "button", id: "confirm-cancel" }, "Cancel");
        yes.addEventListener("click", async () => {
          yes.disabled = true; no.disabled = true;
          try { await create(); } catch (e) { confirmBox.hidden = true; show(e); }
        });
        no.addEventListener("click", () => { confirmBox.hidden = true; });
        confirmBox.replaceChildren(
          el("p", {}, drops.length ? "This cleanup drops:" : "There is nothing of this workload's to drop here."),
          drops.length ? el("ul", {}, drops.map((d) => el("li", {}, d))) : null,
          el("div", { class: "bar" }, yes, no));
        confirmBox.hidden = false;
        return;
      }
      await create();
    } catch (e) {
      show(e);
    } finally {
      busy(false);
    }
  });

  main.replaceChildren(el("section", { class: "item" },
    el("div", { class: "bar" }, el("h2", { class: "grow" }, "New job"), example, el("label", {}, "kind ", kind), testConn, validate, start),
    el("p", { class: "notes" }, "A run spec (YAML or JSON, as cairn run --spec reads; a list of VU counts makes it a profile) or a study (as cairn study run reads). prepare, check and cleanup take a run spec. Passwords are written as ${VAR}: the server reads them from its own environment, only the variables it allows (cairn serve --allow-env, CAIRN_PASSWORD by default), and only in db's password."),
    status,
    conn,
    found,
    confirmBox,
    form,
    el("h3", {}, "YAML"),
    el("div", { class: "editor" },
      el("div", { class: "code" }, el("div", { class: "paper" }), band, text),
      marks),
    plan));
  synced = await fields(form, text, () => { clear(); keep(); plan.hidden = true; });
  synced.kind(kind.value);
}
