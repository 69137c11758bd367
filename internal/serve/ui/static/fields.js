// The New job form's fields: the database, the workload and every option it declares, made from
// GET /api/v1/workloads (the declarations that make the flags, the spec and its JSON schema).
// The fields and the YAML are one spec: a field changed is written into the text by the server
// (POST /api/v1/edit, which keeps comments and keys the form does not show), and the text edited
// is read back into the fields by the same route.

import { getJSON, postJSON } from "./api.js";
import { el } from "./dom.js";

const groups = [
  ["run", "Run", true],
  ["options", "Workload options", true],
  ["prepare", "Prepare", true],
  ["observation", "Observation", false],
  ["connecting", "Connecting", false],
  ["binding", "CPU binding", false],
  ["parting", "Parts", false],
];

// A database URL the form can show as fields: scheme://user[:${VAR}]@host[:port]/db[?query].
const serverURL = /^(postgres|postgresql|mysql|mariadb):\/\/([^:@/]*)(?::\$\{([A-Za-z_][A-Za-z0-9_]*)\})?@([^:/@,]+)(?::(\d+))?\/([^?/]*)(\?.*)?$/;

let meta = null;
async function loadMeta() {
  if (!meta) { meta = await getJSON("/api/v1/workloads"); }
  return meta;
}

// fields builds the form into box, bound to the editor text; onSpec is told when the text was
// rewritten from the fields. It returns { read } to read the text into the fields again, and
// { values } the last values read.
export async function fields(box, text, onSpec) {
  const m = await loadMeta();
  const byName = Object.fromEntries(m.workloads.map((w) => [w.name, w]));
  let values = {};
  const state = el("p", { class: "notes", id: "fields-state" });

  // Edits go one after another, each on the text the last one left: two fields changed at once
  // must not both edit the same old text.
  let chain = Promise.resolve();
  const send = (set) => { chain = chain.then(() => edit(set)); return chain; };
  const edit = async (set) => {
    try {
      const r = await postJSON("/api/v1/edit", { spec: text.value, set });
      if (set) { text.value = r.spec; onSpec(); }
      state.textContent = "";
      state.className = "notes";
      show(r.values);
    } catch (e) {
      state.textContent = "The fields wait for the YAML to read: " + e.message;
      state.className = "warn";
    }
  };
  const field = (path) => (ev) => {
    const v = ev.target.type === "checkbox" ? String(ev.target.checked) : ev.target.value.trim();
    send({ [path]: v === "" || (ev.target.type === "checkbox" && v === "false") ? null : v });
  };

  // The database.
  const dbKind = el("select", { id: "db-kind" }, ["sqlite", "postgres", "mysql"].map((k) => el("option", { value: k }, k === "mysql" ? "mysql (MySQL, MariaDB)" : k)));
  const input = (id, label, attrs) => el("label", { class: "fld" }, el("span", { class: "k" }, label), el("input", { id, type: "text", autocomplete: "off", spellcheck: "false", ...attrs }));
  const file = input("db-file", "file", { placeholder: "cairn.db" });
  const host = input("db-host", "host", { placeholder: "127.0.0.1" });
  const port = input("db-port", "port", { placeholder: "5432", inputmode: "numeric", size: 6 });
  const user = input("db-user", "user", { placeholder: "cairn" });
  const name = input("db-name", "database", { placeholder: "cairn" });
  const pwVar = el("select", { id: "db-password" }, el("option", { value: "" }, "none"), (m.allow_env || []).map((n) => el("option", { value: n }, "${" + n + "}")));
  const pw = el("label", { class: "fld" }, el("span", { class: "k" }, "password"), pwVar);
  const dbNote = el("p", { class: "notes", id: "db-note" });
  let query = "";
  const q = (id) => box.querySelector("#" + id);
  const composeDB = () => {
    const kind = dbKind.value;
    if (kind === "sqlite") { return "sqlite://" + (q("db-file").value.trim() || "cairn.db"); }
    const u = q("db-user").value.trim(), h = q("db-host").value.trim() || "127.0.0.1", p = q("db-port").value.trim(), d = q("db-name").value.trim();
    const ref = pwVar.value ? ":${" + pwVar.value + "}" : "";
    return kind + "://" + u + ref + "@" + h + (p ? ":" + p : "") + "/" + d + query;
  };
  const dbChanged = () => send({ db: composeDB() });
  const showDB = (db) => {
    const server = [host, port, user, name, pw];
    let kind = "sqlite";
    let ok = true;
    dbNote.textContent = "";
    if (!db) {
      q("db-file").value = "";
    } else if (db.startsWith("sqlite://")) {
      q("db-file").value = db.slice("sqlite://".length);
    } else {
      const x = db.match(serverURL);
      if (x) {
        kind = x[1].startsWith("postgres") ? "postgres" : "mysql";
        q("db-user").value = x[2]; pwVar.value = x[3] || ""; q("db-host").value = x[4]; q("db-port").value = x[5] || ""; q("db-name").value = x[6]; query = x[7] || "";
        if (x[3] && !(m.allow_env || []).includes(x[3])) { dbNote.textContent = "${" + x[3] + "} is not a variable this cairn serve may read (cairn serve --allow-env)."; dbNote.className = "warn"; }
      } else {
        ok = false;
        kind = /^(postgres|postgresql):/.test(db) ? "postgres" : "mysql";
        dbNote.textContent = "db is edited in the YAML: a shard set, or a URL the fields do not hold (a password is written as ${VAR}, never in the URL).";
        dbNote.className = "notes";
      }
    }
    dbKind.value = kind;
    file.hidden = kind !== "sqlite";
    for (const f of server) { f.hidden = kind === "sqlite"; f.querySelectorAll("input,select").forEach((i) => { i.disabled = !ok; }); }
  };
  dbKind.addEventListener("change", () => {
    query = "";
    if (dbKind.value !== "sqlite" && !q("db-port").value) { q("db-port").value = dbKind.value === "postgres" ? "5432" : "3306"; }
    if (dbKind.value !== "sqlite" && !pwVar.value && (m.allow_env || []).length) { pwVar.value = m.allow_env[0]; }
    dbChanged();
  });
  [file, host, port, user, name].forEach((l) => l.querySelector("input").addEventListener("change", dbChanged));
  pwVar.addEventListener("change", dbChanged);

  const wl = el("select", { id: "f-workload" }, m.workloads.map((w) => el("option", { value: w.name }, w.name + " — " + w.title)));
  const docLink = el("a", { id: "f-doc", target: "_self" }, "docs");
  wl.addEventListener("change", () => {
    // the options of the workload left are not the new one's: take them out
    const w = byName[wl.value];
    const set = { workload: wl.value };
    const engine = new Set(m.workloads.flatMap((x) => x.engine.map((o) => o.name)));
    for (const k of Object.keys(values)) {
      const [g, n] = k.split(".");
      if (n === undefined) {
        // an engine setting the new workload does not read (TPC-H has no vu)
        if (engine.has(k) && !w.engine.some((o) => o.name === k)) { set[k] = null; }
        continue;
      }
      const list = g === "options" ? w.run : g === "prepare" ? w.prepare : null;
      if (list && !list.some((o) => o.name === n)) { set[k] = null; }
    }
    send(set);
  });

  const head = el("div", { class: "fgrid" },
    el("label", { class: "fld" }, el("span", { class: "k" }, "database kind"), dbKind),
    file, host, port, user, name, pw,
    el("label", { class: "fld" }, el("span", { class: "k" }, "workload"), wl), el("span", { class: "fld" }, docLink));
  const optionBox = el("div", { id: "f-options" });
  // A study's own keys (docs/studies.md): its name, which its results are stored under, and the
  // order of its runs. Shown for the study kind; its settings and schedule are the YAML's.
  const studyName = el("input", { id: "f-name", type: "text", "data-path": "name", placeholder: "required", autocomplete: "off", spellcheck: "false", size: 16 });
  const studyOrder = el("select", { id: "f-order", "data-path": "order" }, el("option", { value: "" }, "default (sequential)"),
    ["sequential", "interleaved", "random"].map((v) => el("option", { value: v }, v)));
  studyName.addEventListener("change", field("name"));
  studyOrder.addEventListener("change", field("order"));
  const studyBox = el("details", { class: "group", open: true, "data-group": "study", hidden: true }, el("summary", {}, "Study"),
    el("div", { class: "fgrid" },
      el("label", { class: "fld", "data-option": "name" }, el("span", { class: "k" }, "name"), studyName,
        el("span", { class: "help" }, "the study's name, its results stored under it ", el("a", { href: "#/docs/studies.md", class: "doc" }, "docs"))),
      el("label", { class: "fld", "data-option": "order" }, el("span", { class: "k" }, "order"), studyOrder,
        el("span", { class: "help" }, "the order of its runs: each case's in turn, the cases interleaved, or at random")),
      el("p", { class: "notes wide" }, "The settings a study sweeps or changes live, and its schedule, are written in the YAML below.")));
  box.replaceChildren(el("h3", {}, "Form"), state, head, dbNote, studyBox, optionBox);

  let built = null;
  const build = (w, profile) => {
    const key = w.name + (profile ? ":profile" : "");
    if (built === key) { return; }
    built = key;
    docLink.href = w.doc ? "#/docs/" + encodeURIComponent(w.doc) : "#/docs";
    docLink.textContent = w.doc ? w.title + " docs (" + w.doc + ")" : "docs";
    const sections = [];
    for (const [g, title, open] of groups) {
      const opts = g === "options" ? w.run : g === "prepare" ? w.prepare : w.engine.filter((o) => o.group === g && (profile || !o.profile));
      if (!opts.length && g !== "prepare") { continue; }
      const rows = opts.map((o) => row(o, g === "options" || g === "prepare" ? g + "." + o.name : o.name, w, profile));
      if (g === "prepare") {
        const cb = el("input", { type: "checkbox", id: "f-prepare", "data-path": "prepare" });
        cb.addEventListener("change", field("prepare"));
        rows.unshift(el("label", { class: "fld wide" }, cb, " prepare the schema first when the database has none (a run's prepare: key; a prepare job always prepares)"));
      }
      sections.push(el("details", { class: "group", open: open || null, "data-group": g }, el("summary", {}, title), el("div", { class: "fgrid" }, rows)));
    }
    optionBox.replaceChildren(...sections);
  };
  const row = (o, path, w, profile) => {
    const id = "f-" + path.replace(/\./g, "-");
    let ctl;
    if (o.kind === "bool" || (o.enum && o.enum.length)) {
      const vals = o.kind === "bool" ? ["true", "false"] : o.enum;
      const dflt = o.auto ? "auto" : o.default;
      ctl = el("select", { id, "data-path": path }, el("option", { value: "" }, "default (" + (dflt || "none") + ")"), vals.map((v) => el("option", { value: v }, v)));
    } else {
      const dflt = o.auto ? "auto" : profile && o.profile_default !== undefined ? o.profile_default : o.default;
      ctl = el("input", { id, type: "text", "data-path": path, placeholder: dflt, autocomplete: "off", spellcheck: "false", size: 10 });
    }
    ctl.addEventListener("change", field(path));
    const limits = [o.min !== undefined && o.min !== "" ? "≥ " + o.min : "", o.max ? "≤ " + o.max : "", o.zero_off ? "0: none" : ""].filter(Boolean).join(", ");
    const help = el("span", { class: "help" }, o.help, limits ? " (" + limits + ")" : "", " ",
      w.doc && (path.startsWith("options.") || path.startsWith("prepare.")) ? el("a", { href: "#/docs/" + encodeURIComponent(w.doc), class: "doc" }, "docs") : null);
    return el("label", { class: "fld", title: o.help, "data-option": path }, el("span", { class: "k" }, o.name), ctl, help);
  };

  const show = (v) => {
    values = v || {};
    const w = byName[values.workload] || byName.tpcc || m.workloads[0];
    wl.value = w.name;
    build(w, (values.vu || "").includes(","));
    showDB(values.db || "");
    box.querySelectorAll("[data-path]").forEach((c) => {
      const p = c.dataset.path;
      if (c.type === "checkbox") { c.checked = values[p] === "true"; } else if (document.activeElement !== c || c.tagName === "SELECT") { c.value = values[p] || ""; }
    });
  };

  let timer = null;
  const read = () => { clearTimeout(timer); timer = setTimeout(() => send(null), 300); };
  await send(null);
  // kind shows the study's own fields for a study.
  const kind = (k) => { studyBox.hidden = k !== "study"; };
  return { read, values: () => values, kind };
}
