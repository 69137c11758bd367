// The jobs: their list, and the live view of one, drawn from its event stream as it runs (or
// replayed from the server's buffer when the page opens late).

import { getJSON, postJSON, getText, events } from "./api.js";
import { el, num, when, stateBadge } from "./dom.js";
import { palette } from "./meta.js";
import { againButtons } from "./again.js";

const finalStates = new Set(["done", "failed", "stopped", "interrupted"]);

export async function jobList(main, signal) {
  const body = el("tbody");
  const table = el("table", { class: "data", id: "jobs" },
    el("thead", {}, el("tr", {},
      el("th", {}, "job"), el("th", {}, "kind"), el("th", {}, "state"), el("th", {}, "workload"),
      el("th", {}, "target"), el("th", {}, "created (UTC)"), el("th", {}, "ended (UTC)"), el("th", {}, "result"), el("th", {}, "error"))),
    body);
  const empty = el("p", { class: "notes", id: "jobs-empty", hidden: true }, "No jobs yet: start one from ", el("a", { href: "#/new" }, "New job"), ".");
  main.replaceChildren(el("section", { class: "item" }, el("h2", {}, "Jobs"), table, empty));
  for (;;) {
    const { jobs } = await getJSON("/api/v1/jobs");
    if (signal.aborted) { return; }
    empty.hidden = jobs.length > 0;
    body.replaceChildren(...jobs.map((j) => el("tr", { "data-job": j.id },
      el("td", {}, el("a", { href: "#/jobs/" + encodeURIComponent(j.id) }, j.id)),
      el("td", {}, j.kind), el("td", {}, stateBadge(j.state)), el("td", {}, j.workload || ""),
      el("td", {}, j.target || ""), el("td", {}, when(j.created_at)), el("td", {}, when(j.ended_at)),
      el("td", {}, j.result_id ? el("a", { href: "#/results/" + encodeURIComponent(j.result_id) }, "result " + j.result_id) : ""),
      el("td", { class: "warn" }, j.error || ""))));
    await sleep(2000, signal);
    if (signal.aborted) { return; }
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

// tile is one counter: its label, its value and a note on where the figure comes from. It shows
// once the stream measures it, so a job shows only the tiles that fit it (no TPS for a build).
function tile(key, label, big) {
  const k = el("div", { class: "k" }, label);
  const v = el("div", { class: "v", "data-tile": key }, "–");
  const n = el("div", { class: "n", "data-note": key });
  return { node: el("div", { class: "tile" + (big ? " big" : ""), hidden: true }, k, v, n), k, v, n };
}

// markLine draws the run's edges, its steps and a study's live changes on a chart's first series.
function markLine(marks) {
  return { symbol: "none", silent: true, label: { formatter: "{b}", position: "insideEndTop", fontSize: 11 },
    lineStyle: { color: "#9b2226", type: "dashed" }, data: marks };
}

function lineOption(title, yName, names, colors) {
  return {
    animation: false,
    color: colors,
    title: { text: title, left: 10, top: 8, textStyle: { fontSize: 14 } },
    tooltip: { trigger: "axis", valueFormatter: (v) => num(v) },
    legend: { top: 8, right: 10, data: names.slice(0, 1) },
    grid: { left: 64, right: 36, top: 64, bottom: 36 },
    xAxis: { type: "value", name: "s", nameLocation: "end", minInterval: 1, axisLabel: { formatter: (v) => String(v) } },
    yAxis: { type: "value", name: yName, min: 0, axisLabel: { formatter: (v) => num(v) } },
    series: names.map((n) => ({ name: n, type: "line", showSymbol: false, data: [] })),
  };
}

// secs words a duration in seconds as the terminal does: 1h2m3s, 4m5s, 6s.
function secs(v) {
  let t = Math.max(0, Math.round(v));
  const h = Math.floor(t / 3600); t -= 3600 * h;
  const m = Math.floor(t / 60); t -= 60 * m;
  return (h ? h + "h" : "") + (h || m ? m + "m" : "") + t + "s";
}

// jobView is the live view of one job: counters, NOPM and TPM as the progress line counts them,
// throughput and latency over time with the run's marks, per-core CPU, top waits, a build's
// progress per table and loader, a study's steps and setting changes, the log and a Stop button.
// A finished job's page replays the events the service kept, after a restart too, and shows the
// stored result's figures in the tiles.
export async function jobView(main, id, signal) {
  const job = await getJSON("/api/v1/jobs/" + encodeURIComponent(id));
  if (signal.aborted) { return; }

  const badge = el("span", { id: "job-state" }, stateBadge(job.state));
  const stop = el("button", { class: "stop", id: "stop", type: "button" }, "Stop");
  const resultLink = el("span", { id: "job-result" });
  const again = el("span", { class: "bar", id: "job-again" }); // Run again, once the job has ended
  const errorLine = el("p", { class: "warn", id: "job-error" });
  const tiles = {
    headline: tile("headline", "NOPM", true), tpm: tile("tpm", "TPM", true),
    tps: tile("tps", "TPS"), qps: tile("qps", "QPS"), p95: tile("p95", "p95 ms"), p99: tile("p99", "p99 ms"),
    errors: tile("errors", "errors"), retries: tile("retries", "retries"), vus: tile("vus", "VUs"),
    host: tile("host", "host CPU %"), server: tile("server", "server CPU %"),
    diskw: tile("diskw", "disk writes/s"), diskmb: tile("diskmb", "disk MB/s"), phase: tile("phase", "phase"),
    rows: tile("rows", "rows loaded", true), rate: tile("rate", "rows/s"), left: tile("left", "time left"),
  };
  const chartDivs = {
    rates: el("div", { class: "chart", "data-chart-id": "rates" }),
    throughput: el("div", { class: "chart", "data-chart-id": "throughput" }),
    latency: el("div", { class: "chart", "data-chart-id": "latency" }),
    cores: el("div", { class: "chart", "data-chart-id": "cores" }),
    waits: el("div", { class: "chart", "data-chart-id": "waits" }),
    sessions: el("div", { class: "chart", "data-chart-id": "sessions" }),
  };
  const perType = el("input", { type: "checkbox", id: "per-type" });
  const chartBox = el("div", { id: "run-charts", hidden: true },
    el("label", { class: "notes" }, perType, " each transaction type: its completions per minute on the NOPM/TPM chart (counted by cairn, each second) and its p95 on the latency chart (each progress interval)"),
    el("div", { class: "charts" }, Object.values(chartDivs)));
  const stepText = el("span", { id: "step-text" });
  const stepBar = el("div");
  const settingsBody = el("tbody");
  const study = el("section", { class: "item", id: "study", hidden: true },
    el("h3", {}, "Steps"), stepText, el("div", { class: "progress" }, stepBar),
    el("table", { class: "data", id: "settings" },
      el("thead", {}, el("tr", {}, el("th", { class: "n" }, "at s"), el("th", {}, "setting"), el("th", {}, "value"), el("th", {}, "read back"), el("th", {}, "when"))),
      settingsBody));
  // A build: the rows loaded of those expected, per table and per loader, with their rates.
  const loadBar = el("div", { id: "load-bar" });
  const loadText = el("p", { class: "notes", id: "load-text" });
  const loadTables = el("tbody");
  const loadLoaders = el("tbody");
  const loadChartDiv = el("div", { class: "chart", "data-chart-id": "loading" });
  const loading = el("section", { class: "item", id: "loading", hidden: true },
    el("h3", {}, "Build"), el("div", { class: "progress" }, loadBar), loadText,
    el("div", { class: "charts" },
      el("div", {},
        el("table", { class: "data", id: "load-tables" },
          el("thead", {}, el("tr", {}, el("th", {}, "table"), el("th", { class: "n" }, "rows"), el("th", { class: "n" }, "rows/s"))), loadTables),
        el("table", { class: "data", id: "load-loaders" },
          el("thead", {}, el("tr", {}, el("th", {}, "loader"), el("th", { class: "n" }, "rows"), el("th", { class: "n" }, "rows/s"))), loadLoaders)),
      loadChartDiv));
  // A workload's own tests (TPC-H's power and throughput tests) tell each timed query as it ends.
  const queryBody = el("tbody");
  const queries = el("section", { class: "item", id: "queries", hidden: true },
    el("h3", {}, "Queries"),
    el("table", { class: "data" },
      el("thead", {}, el("tr", {}, el("th", {}, "stream"), el("th", {}, "query"), el("th", { class: "n" }, "seconds"), el("th", {}, "rows"))),
      queryBody));
  const logPre = el("pre", { class: "log", id: "log" });
  const kept = el("p", { class: "notes", id: "no-events", hidden: true },
    "cairn serve ended while this job ran: its live events were not kept; its log and its result (if stored) were.");

  main.replaceChildren(
    el("section", { class: "item" },
      el("div", { class: "bar" },
        el("h2", { class: "grow" }, "Job " + job.id + ": " + job.kind + (job.workload ? " " + job.workload : "") + (job.target ? " on " + job.target : "")),
        badge, resultLink, again, stop),
      el("p", { class: "notes" }, "created " + when(job.created_at) + " UTC" + (job.started_at ? " · started " + when(job.started_at) + " UTC" : "")),
      errorLine, kept,
      el("details", {}, el("summary", {}, "Spec"), el("pre", {}, job.spec || ""))),
    el("div", { class: "tiles" }, Object.values(tiles).map((t) => t.node)),
    loading,
    study,
    chartBox,
    queries,
    el("section", { class: "item" }, el("h3", {}, "Log"), logPre));

  const charts = {};
  for (const [k, d] of Object.entries(chartDivs)) { charts[k] = echarts.init(d); }
  charts.loading = echarts.init(loadChartDiv);
  const resize = () => Object.values(charts).forEach((c) => c.resize());
  window.addEventListener("resize", resize);
  signal.addEventListener("abort", () => {
    window.removeEventListener("resize", resize);
    Object.values(charts).forEach((c) => c.dispose());
  }, { once: true });
  // A section shown after its charts were made draws them at its size.
  const show = (node) => { if (node.hidden) { node.hidden = false; resize(); } };

  let state = job.state;
  let stopping = false; // asked: the job stops as Ctrl-C stops a run, which takes a moment
  let storedShown = "";
  const showState = (st, resultID, error) => {
    // A reply taken before the job ended (Stop's, on a queued job) must not undo the final
    // state its event stream told first.
    if (finalStates.has(state) && !finalStates.has(st)) { st = state; }
    state = st || state;
    badge.replaceChildren(stateBadge(state));
    stop.disabled = stopping || finalStates.has(state);
    if (resultID) {
      resultLink.replaceChildren(el("a", { href: "#/results/" + encodeURIComponent(resultID), id: "open-result" }, "result " + resultID + ": report"));
    }
    errorLine.textContent = error || "";
    if (finalStates.has(state) && resultID && storedShown !== resultID) {
      storedShown = resultID;
      stored(resultID);
    }
    if (finalStates.has(state) && !again.firstChild) { again.append(...againButtons("job/" + id, job.kind, errorLine)); }
  };
  stop.addEventListener("click", async () => {
    stopping = true;
    stop.disabled = true;
    try {
      const j = await postJSON("/api/v1/jobs/" + encodeURIComponent(id) + "/stop");
      showState(j.state, j.result_id, j.error);
    } catch (e) {
      stopping = false;
      errorLine.textContent = e.message;
      stop.disabled = finalStates.has(state);
    }
  });

  // The series: x is seconds since the job's first run started its clock; a run that starts its
  // clock again (a profile's or a study's next step) continues from where the last one ended.
  let s;
  const reset = () => {
    s = { offset: 0, last: 0, x: 0, phase: "", ws: null, tps: [], qps: [], p50: [], p95: [], p99: [], marks: [], cores: [], waits: [], log: [],
      sessions: {}, sessionX: [],
      headline: [], tpm: [], headlineName: "", types: {}, typeP95: {}, load: {}, loadRate: [], loadPrev: null, events: 0 };
    logPre.textContent = "";
    settingsBody.replaceChildren();
    queryBody.replaceChildren();
  };

  const initial = () => {
    charts.rates.setOption(lineOption("NOPM and TPM (per minute, each progress interval)", "per min", ["NOPM", "TPM"], palette));
    charts.throughput.setOption(lineOption("Throughput", "per s", ["TPS", "QPS"], palette));
    charts.latency.setOption(lineOption("Latency, all transactions", "ms", ["p50", "p95", "p99"], palette.slice(2)));
    charts.loading.setOption(lineOption("Rows loaded per second", "rows/s", ["all tables"], palette));
    // many tables, many types: their legends scroll in a line of their own, under the title
    for (const c of [charts.loading, charts.rates, charts.latency]) {
      c.setOption({ legend: { type: "scroll", top: 32, left: 10, right: 10 }, grid: { top: 84 } });
    }
    charts.cores.setOption({
      animation: false, color: palette,
      title: { text: "CPU per core, last second", left: 10, top: 8, textStyle: { fontSize: 14 } },
      tooltip: { trigger: "axis", valueFormatter: (v) => num(v) + "%" },
      grid: { left: 64, right: 36, top: 64, bottom: 36 },
      xAxis: { type: "category", data: [] },
      yAxis: { type: "value", min: 0, max: 100, name: "% busy" },
      series: [{ name: "busy", type: "bar", data: [] }],
    });
    charts.sessions.setOption(lineOption("Active sessions per wait class (the session history, each second)", "sessions", [], palette));
    charts.sessions.setOption({ legend: { type: "scroll", top: 32, left: 10, right: 10 }, grid: { top: 84 } });
    charts.waits.setOption({
      animation: false, color: palette.slice(3),
      title: { text: "Top waits, last progress interval", left: 10, top: 8, textStyle: { fontSize: 14 },
        subtextStyle: { fontSize: 12 }, subtext: "none measured yet: PostgreSQL and MySQL/MariaDB report them" },
      tooltip: { trigger: "axis", valueFormatter: (v) => num(v) + "%" },
      grid: { left: 16, right: 36, top: 64, bottom: 40, containLabel: true },
      // the axis's name under it, centred: at its end it ran out of the chart
      xAxis: { type: "value", min: 0, name: "% of waits", nameLocation: "middle", nameGap: 24 },
      yAxis: { type: "category", inverse: true, data: [], axisLabel: { width: 260, overflow: "truncate" } },
      series: [{ name: "share", type: "bar", data: [] }],
    });
  };

  let pending = false;
  const draw = () => {
    pending = false;
    if (signal.aborted) { return; }
    // a series shows in the legend once the stream measures it
    const legend = (names, lists) => ({ data: names.filter((_, i) => lists[i].length > 0) });
    const hname = s.headlineName || "NOPM";
    const rateNames = [hname, "TPM"];
    const rateSeries = [
      { name: hname, type: "line", showSymbol: true, symbolSize: 4, data: s.headline, markLine: markLine(s.marks) },
      { name: "TPM", type: "line", showSymbol: true, symbolSize: 4, data: s.tpm },
    ];
    if (perType.checked) {
      for (const [name, data] of Object.entries(s.types)) {
        rateNames.push(name + " /min");
        rateSeries.push({ name: name + " /min", type: "line", showSymbol: false, lineStyle: { width: 1 }, data });
      }
    }
    charts.rates.setOption({ title: { text: hname + " and TPM (per minute, each progress interval)" },
      legend: { data: rateNames.filter((_, i) => rateSeries[i].data.length > 0) }, series: rateSeries }, { replaceMerge: ["series"] });
    charts.throughput.setOption({ legend: legend(["TPS", "QPS"], [s.tps, s.qps]), series: [
      { data: s.tps, markLine: markLine(s.marks) },
      { data: s.qps },
    ] });
    const latSeries = [{ name: "p50", type: "line", showSymbol: false, data: s.p50, markLine: markLine(s.marks) },
      { name: "p95", type: "line", showSymbol: false, data: s.p95 }, { name: "p99", type: "line", showSymbol: false, data: s.p99 }];
    if (perType.checked) {
      for (const [name, data] of Object.entries(s.typeP95)) {
        latSeries.push({ name: name + " p95", type: "line", showSymbol: true, symbolSize: 4, lineStyle: { width: 1 }, data });
      }
    }
    charts.latency.setOption({ legend: { data: latSeries.filter((x) => x.data.length > 0).map((x) => x.name) }, series: latSeries }, { replaceMerge: ["series"] });
    charts.cores.setOption({ xAxis: { data: s.cores.map((_, i) => "cpu" + i) }, series: [{ data: s.cores }] });
    // share is a fraction of the interval's waits
    charts.waits.setOption({
      title: { subtext: s.waits.length ? "" : "none measured yet: PostgreSQL and MySQL/MariaDB report them" },
      yAxis: { data: s.waits.map((w) => w.name) },
      series: [{ data: s.waits.map((w) => 100 * (w.share || 0)) }],
    });
    const classes = Object.keys(s.sessions);
    charts.sessions.setOption({ legend: { data: classes },
      series: classes.map((c, i) => ({ name: c, type: "line", stack: "sessions", showSymbol: false, lineStyle: { width: 1 },
        areaStyle: { opacity: 0.75 }, data: s.sessions[c], markLine: i === 0 ? markLine(s.marks) : undefined })) }, { replaceMerge: ["series"] });
    const tables = Object.keys(s.load);
    charts.loading.setOption({ legend: { data: ["all tables", ...tables] },
      // a load of a second or two has a point or two: drawn as dots, a line needs two
      series: [{ name: "all tables", type: "line", showSymbol: s.loadRate.length < 3, data: s.loadRate },
        ...tables.map((t) => ({ name: t, type: "line", showSymbol: s.load[t].series.length < 3, lineStyle: { width: 1 }, data: s.load[t].series }))] }, { replaceMerge: ["series"] });
    logPre.textContent = s.log.join("\n");
    logPre.scrollTop = logPre.scrollHeight;
  };
  perType.addEventListener("change", () => draw());
  // Drawing waits for a tenth of a second so that a late page, replaying a run's past events at
  // once, draws them once.
  const later = () => { if (!pending) { pending = true; setTimeout(draw, 100); } };

  // A tile that shows the stored result's figure keeps it: the replayed events come after it.
  const put = (key, v, note) => {
    if (v !== undefined && v !== null && tiles[key].node.dataset.source !== "stored") {
      tiles[key].v.textContent = num(v);
      tiles[key].node.hidden = false;
      tiles[key].node.dataset.source = "live";
      if (note !== undefined) { tiles[key].n.textContent = note; }
    }
  };
  const mark = (x, name) => { s.marks.push({ xAxis: Math.round(x * 10) / 10, name }); later(); };
  const onTick = (t) => {
    show(chartBox);
    // a run that prepared first: its build's tiles give way to the run's (its section stays)
    for (const k of ["rows", "rate", "left"]) { tiles[k].node.hidden = true; }
    const e = t.elapsed_s || 0;
    if (e < s.last) { s.offset += s.last; }
    s.last = e;
    const x = Math.round((s.offset + e) * 10) / 10;
    s.x = x;
    // The window starts where the first tick in it says (its time in the window, back from its
    // time since the run's start); it ends at the last tick.
    if (t.phase === "window" && s.phase !== "window") {
      s.ws = s.offset + e - (t.in_window_s || 0);
      mark(s.ws, "window start");
    }
    if (t.phase === "done" && s.phase === "window") { mark(x, "window end"); }
    s.phase = t.phase || s.phase;
    if (t.tps !== undefined) { s.tps.push([x, t.tps]); }
    if (t.qps !== undefined) { s.qps.push([x, t.qps]); }
    if (t.p50_ms !== undefined) { s.p50.push([x, t.p50_ms]); }
    if (t.p95_ms !== undefined) { s.p95.push([x, t.p95_ms]); }
    if (t.p99_ms !== undefined) { s.p99.push([x, t.p99_ms]); }
    if (t.types) {
      for (const [name, n] of Object.entries(t.types)) { (s.types[name] = s.types[name] || []).push([x, 60 * n]); }
    }
    if (Array.isArray(t.cores)) { s.cores = t.cores; }
    if (Array.isArray(t.waits)) { s.waits = t.waits.slice(0, 10); }
    // Each class has a point every second the sampler counted, 0 where it saw none in it, so
    // that the classes stack.
    if (t.sessions) {
      for (const c of Object.keys(t.sessions)) {
        if (!s.sessions[c]) { s.sessions[c] = s.sessionX.map((px) => [px, 0]); }
      }
      s.sessionX.push(x);
      for (const [c, pts] of Object.entries(s.sessions)) { pts.push([x, t.sessions[c] || 0]); }
    }
    const sec = "last second, counted by cairn";
    put("tps", t.tps, sec); put("qps", t.qps, sec); put("p95", t.p95_ms, sec); put("p99", t.p99_ms, sec);
    put("errors", t.errors, "last second"); put("retries", t.retries, "last second"); put("vus", t.vus);
    put("host", t.host_cpu, "last second"); put("server", t.server_cpu, "last second");
    // the first device is the one under the data directory (docs/result-format.md#disk-io)
    if (Array.isArray(t.disks) && t.disks.length > 0) {
      const d = t.disks[0];
      put("diskw", d.w_s, "last second, " + d.device); put("diskmb", (d.read_mb_s || 0) + (d.write_mb_s || 0), "last second, " + d.device);
      tiles.diskw.node.title = tiles.diskmb.node.title = d.device;
    }
    if (t.phase && !finalStates.has(state)) {
      tiles.phase.v.textContent = t.phase + " " + Math.round(e) + " s";
      tiles.phase.node.hidden = false;
    }
    later();
  };
  // A progress sample: the headline and TPM over the interval, as the progress line counts them.
  const onProgress = (p) => {
    show(chartBox);
    const e = p.elapsed_s || 0;
    const x = Math.round((s.offset + (e + 1 < s.last ? s.last + e : e)) * 10) / 10;
    const note = (p.source === "server" ? "counted by the server" : "counted by cairn") + ", last " + num(p.interval_s) + " s";
    s.headlineName = p.headline_name || s.headlineName;
    if (tiles.headline.node.dataset.source !== "stored") { tiles.headline.k.textContent = p.headline_name; }
    if (p.headline_pm !== undefined) {
      s.headline.push([x, p.headline_pm]);
      put("headline", p.headline_pm, note);
    } else {
      // a headline that is not a per-minute count is the interval's transactions per second
      s.headline.push([x, p.tps]);
      put("headline", p.tps, "counted by cairn, last " + num(p.interval_s) + " s");
    }
    s.tpm.push([x, p.tpm]);
    for (const [name, ms] of Object.entries(p.p95_ms || {})) { (s.typeP95[name] = s.typeP95[name] || []).push([x, ms]); }
    put("tpm", p.tpm, note);
    later();
  };
  const onLoading = (l) => {
    show(loading);
    const el_ = l.elapsed_s || 0;
    const prev = s.loadPrev;
    const dt = prev ? el_ - prev.elapsed_s : el_;
    const rateOf = (now, before) => (dt > 0 ? (now - before) / dt : 0);
    s.loadRate.push([Math.round(el_ * 10) / 10, rateOf(l.rows, prev ? prev.rows : 0)]);
    const before = {};
    for (const t of (prev && prev.tables) || []) { before[t.name] = t.rows; }
    loadTables.replaceChildren(...(l.tables || []).map((t) => {
      const r = rateOf(t.rows, before[t.name] || 0);
      (s.load[t.name] = s.load[t.name] || { series: [] }).series.push([Math.round(el_ * 10) / 10, r]);
      return el("tr", { "data-table": t.name }, el("td", {}, t.name), el("td", { class: "n" }, num(t.rows)), el("td", { class: "n" }, num(r)));
    }));
    const lprev = (prev && prev.loaders) || [];
    loadLoaders.replaceChildren(...(l.loaders || []).map((n, i) => el("tr", { "data-loader": String(i) },
      el("td", {}, "loader " + (i + 1)), el("td", { class: "n" }, num(n)), el("td", { class: "n" }, num(rateOf(n, lprev[i] || 0))))));
    const pct = l.total > 0 ? Math.min(100, 100 * l.rows / l.total) : 0;
    loadBar.style.width = (l.done ? 100 : pct) + "%";
    loadText.textContent = l.done
      ? "loaded " + num(l.rows) + " rows in " + secs(el_) + ", " + num(l.rate) + " rows/s"
      : num(l.rows) + " of about " + num(l.total) + " rows (" + num(pct) + "%), " + num(l.rate) + " rows/s since the load began" +
        (l.left_s !== undefined ? ", about " + secs(l.left_s) + " left at that rate" : "");
    put("rows", l.rows, l.done ? "loaded" : "of about " + num(l.total));
    put("rate", l.rate, "since the load began");
    if (l.left_s !== undefined && !l.done) { tiles.left.v.textContent = secs(l.left_s); tiles.left.node.hidden = false; tiles.left.n.textContent = "at the rate so far"; }
    if (l.done) { tiles.left.node.hidden = true; }
    s.loadPrev = l;
    later();
  };
  const onStep = (st) => {
    study.hidden = false;
    const n = st.n || 0;
    const i = Math.min((st.i || 0) + 1, n || 1);
    stepText.textContent = "run " + i + " of " + n + (st.case ? " · case " + st.case : "") + " · " + st.vu + " VUs" + (st.repeat !== undefined ? " · repeat " + ((st.repeat || 0) + 1) : "");
    stepBar.style.width = n ? (100 * (i - 1) / n) + "%" : "0";
    // the next run's clock starts where the last one's ended: the boundary between two steps
    s.phase = "";
    if (i > 1) { mark(s.offset + s.last, "step " + i + ": " + st.vu + " VUs"); }
  };
  const onSetting = (st) => {
    study.hidden = false;
    // a live change is planned for an instant from the window's start
    const x = st.live && st.at_s !== undefined && s.ws !== null ? s.ws + st.at_s : s.x;
    settingsBody.append(el("tr", {},
      el("td", { class: "n" }, num(x)), el("td", {}, st.name), el("td", {}, String(st.value ?? "")),
      el("td", {}, String(st.read_back ?? "")),
      // a restore is told with no read-back
      el("td", {}, st.live ? "live, in the window" : st.read_back ? "before the run" : "restored")));
    if (st.live) { mark(x, st.name + "=" + st.value); }
  };

  const onQuery = (q) => {
    queries.hidden = false;
    queryBody.append(el("tr", {},
      el("td", {}, q.stream_name), el("td", {}, q.name), el("td", { class: "n" }, (q.seconds || 0).toFixed(3)),
      el("td", {}, q.error ? "ERROR " + q.error : String(q.rows ?? 0))));
  };

  // stored shows, once the job has ended, its stored result's figures in the tiles in place of
  // the last interval's: the headline, TPM, TPS and the main type's latency as the result holds
  // them (a profile's or a study's steps each have their own: its report shows them).
  const stored = async (resultID) => {
    let d;
    try { d = await getJSON("/api/v1/results/" + encodeURIComponent(resultID)); } catch (e) { return; }
    if (signal.aborted) { return; }
    const note = "stored result " + resultID;
    const set = (key, v, label, n) => {
      const t = tiles[key];
      if (v === undefined || v === null) { t.node.hidden = true; return; }
      if (label) { t.k.textContent = label; }
      t.v.textContent = num(v);
      t.n.textContent = n || note;
      t.node.hidden = false;
      t.node.dataset.source = "stored";
    };
    if (d.kind === "profile" && d.marks && d.marks.peak_vu) {
      // a profile's figure is its peak step's, as its report ranks the steps
      const step = (d.steps || []).find((x) => x.vu === d.marks.peak_vu);
      if (step) {
        const sm = step.summary;
        const pn = "stored profile " + resultID + ": the peak step, " + step.vu + " VUs" + (sm.headline.n > 1 ? ", mean of " + sm.headline.n + " runs" : "");
        set("headline", sm.headline.mean, d.headline, pn);
        set("tpm", d.headline === "TPS" ? undefined : sm.tpm.n ? sm.tpm.mean : undefined, "TPM", pn);
        set("p95", sm.main_p95_ms.mean, "p95 ms", pn + ", " + d.main_transaction);
        set("p99", sm.main_p99_ms.mean, "p99 ms", pn + ", " + d.main_transaction);
        for (const k of ["tps", "qps", "errors", "retries", "host", "server", "diskw", "diskmb"]) { tiles[k].node.hidden = true; tiles[k].node.dataset.source = "stored"; }
        tiles.phase.v.textContent = "ended";
        return;
      }
    }
    if (d.kind !== "run") {
      for (const k of ["headline", "tpm", "tps", "qps", "p95", "p99"]) {
        if (!tiles[k].node.hidden) { tiles[k].n.textContent = "last interval; every step's figures: the result's report"; }
      }
      return;
    }
    const r = d.result || {};
    const h = r.headline;
    set("headline", h && h.value, h && h.name, h && note + ", counted by " + (h.source === "server" ? "the server" : "cairn"));
    // TPM repeats a TPS headline: shown where the headline is another figure
    set("tpm", h && h.name === "TPS" ? undefined : r.tpm, "TPM", note + (r.tpm_source ? ", " + r.tpm_source : ""));
    set("tps", h && h.name === "TPS" ? undefined : r.tps, "TPS", note + ", the window's mean");
    set("qps", r.qps, "QPS", note + ", the window's mean");
    const main = d.transactions && d.transactions[d.main_transaction];
    const lat = main && main.latency_ms;
    set("p95", lat && lat.p95, "p95 ms", note + ", " + d.main_transaction);
    set("p99", lat && lat.p99, "p99 ms", note + ", " + d.main_transaction);
    const sum = (k) => Object.values(d.transactions || {}).reduce((a, t) => a + (t[k] || 0), 0);
    set("errors", sum("errors"), "errors", note + ", the window's");
    set("retries", sum("retries"), "retries", note + ", the window's");
    // the last second's CPU is no figure of the run: the report has the window's
    for (const k of ["host", "server", "diskw", "diskmb"]) { tiles[k].node.hidden = true; tiles[k].node.dataset.source = "stored"; }
    tiles.phase.v.textContent = "ended";
  };
  showState(job.state, job.result_id, job.error);

  const onEvent = (name, data) => {
    s.events++;
    switch (name) {
      case "tick": onTick(data); break;
      case "progress": onProgress(data); break;
      case "loading": onLoading(data); break;
      case "log": s.log.push(data.line); if (s.log.length > 5000) { s.log.splice(0, s.log.length - 5000); } later(); break;
      case "step": onStep(data); break;
      case "setting": onSetting(data); break;
      case "query": onQuery(data); break;
      case "state": showState(data.state, data.result_id, data.error); break;
    }
  };

  // Read the stream; if it breaks before the job ends, read it again from the server's buffer.
  for (;;) {
    reset();
    initial();
    try {
      await events("/api/v1/jobs/" + encodeURIComponent(id) + "/events", onEvent, signal);
    } catch (e) {
      if (signal.aborted) { return; }
      errorLine.textContent = "event stream: " + e.message;
    }
    if (signal.aborted) { return; }
    if (finalStates.has(state)) { break; }
    await sleep(2000, signal);
    if (signal.aborted) { return; }
  }
  // A job that ran when serve ended kept no events: only its final state comes back.
  kept.hidden = !(state === "interrupted" && s.events <= 1);
  if (state === "done") { stepBar.style.width = "100%"; }
  // The buffer of past events is bounded: the log of a finished job is read whole.
  try {
    s.log = (await getText("/api/v1/jobs/" + encodeURIComponent(id) + "/log")).replace(/\n$/, "").split("\n");
    draw();
  } catch (e) { /* the streamed lines stay */ }
}
