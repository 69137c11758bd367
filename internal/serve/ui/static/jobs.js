// The jobs: their list, and the live view of one, drawn from its event stream as it runs (or
// replayed from the server's buffer when the page opens late).

import { getJSON, postJSON, getText, events } from "./api.js";
import { el, num, when, stateBadge } from "./dom.js";
import { palette } from "./meta.js";

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

// tile is one counter; it shows once the stream measures it (a remote server's CPU never does).
function tile(key, label, big) {
  const v = el("div", { class: "v", "data-tile": key }, "–");
  return { node: el("div", { class: "tile" + (big ? " big" : ""), hidden: !big }, el("div", { class: "k" }, label), v), v };
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

// jobView is the live view of one job: counters, throughput and latency over time, per-core CPU,
// top waits, a study's steps and setting changes, the log and a Stop button.
export async function jobView(main, id, signal) {
  const job = await getJSON("/api/v1/jobs/" + encodeURIComponent(id));
  if (signal.aborted) { return; }

  const badge = el("span", { id: "job-state" }, stateBadge(job.state));
  const stop = el("button", { class: "stop", id: "stop", type: "button" }, "Stop");
  const resultLink = el("span", { id: "job-result" });
  const errorLine = el("p", { class: "warn", id: "job-error" });
  const tiles = {
    tps: tile("tps", "TPS", true), qps: tile("qps", "QPS"), p95: tile("p95", "p95 ms"), p99: tile("p99", "p99 ms"),
    errors: tile("errors", "errors"), retries: tile("retries", "retries"), vus: tile("vus", "VUs"),
    host: tile("host", "host CPU %"), server: tile("server", "server CPU %"), phase: tile("phase", "phase"),
  };
  const chartDivs = {
    throughput: el("div", { class: "chart", "data-chart-id": "throughput" }),
    latency: el("div", { class: "chart", "data-chart-id": "latency" }),
    cores: el("div", { class: "chart", "data-chart-id": "cores" }),
    waits: el("div", { class: "chart", "data-chart-id": "waits" }),
  };
  const stepText = el("span", { id: "step-text" });
  const stepBar = el("div");
  const settingsBody = el("tbody");
  const study = el("section", { class: "item", id: "study", hidden: true },
    el("h3", {}, "Steps"), stepText, el("div", { class: "progress" }, stepBar),
    el("table", { class: "data", id: "settings" },
      el("thead", {}, el("tr", {}, el("th", { class: "n" }, "at s"), el("th", {}, "setting"), el("th", {}, "value"), el("th", {}, "read back"), el("th", {}, "when"))),
      settingsBody));
  // A workload's own tests (TPC-H's power and throughput tests) tell each timed query as it ends.
  const queryBody = el("tbody");
  const queries = el("section", { class: "item", id: "queries", hidden: true },
    el("h3", {}, "Queries"),
    el("table", { class: "data" },
      el("thead", {}, el("tr", {}, el("th", {}, "stream"), el("th", {}, "query"), el("th", { class: "n" }, "seconds"), el("th", {}, "rows"))),
      queryBody));
  const logPre = el("pre", { class: "log", id: "log" });

  main.replaceChildren(
    el("section", { class: "item" },
      el("div", { class: "bar" },
        el("h2", { class: "grow" }, "Job " + job.id + ": " + job.kind + (job.workload ? " " + job.workload : "") + (job.target ? " on " + job.target : "")),
        badge, resultLink, stop),
      el("p", { class: "notes" }, "created " + when(job.created_at) + " UTC" + (job.started_at ? " · started " + when(job.started_at) + " UTC" : "")),
      errorLine,
      el("details", {}, el("summary", {}, "Spec"), el("pre", {}, job.spec || ""))),
    el("div", { class: "tiles" }, Object.values(tiles).map((t) => t.node)),
    study,
    el("div", { class: "charts" }, Object.values(chartDivs)),
    queries,
    el("section", { class: "item" }, el("h3", {}, "Log"), logPre));

  const charts = {
    throughput: echarts.init(chartDivs.throughput),
    latency: echarts.init(chartDivs.latency),
    cores: echarts.init(chartDivs.cores),
    waits: echarts.init(chartDivs.waits),
  };
  const resize = () => Object.values(charts).forEach((c) => c.resize());
  window.addEventListener("resize", resize);
  signal.addEventListener("abort", () => {
    window.removeEventListener("resize", resize);
    Object.values(charts).forEach((c) => c.dispose());
  }, { once: true });

  let state = job.state;
  let stopping = false; // asked: the job stops as Ctrl-C stops a run, which takes a moment
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
  };
  showState(job.state, job.result_id, job.error);
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
    s = { offset: 0, last: 0, x: 0, tps: [], qps: [], p50: [], p95: [], p99: [], marks: [], cores: [], waits: [], log: [] };
    logPre.textContent = "";
    settingsBody.replaceChildren();
    queryBody.replaceChildren();
  };

  const initial = () => {
    charts.throughput.setOption(lineOption("Throughput", "per s", ["TPS", "QPS"], palette));
    charts.latency.setOption(lineOption("Latency, all transactions", "ms", ["p50", "p95", "p99"], palette.slice(2)));
    charts.cores.setOption({
      animation: false, color: palette,
      title: { text: "CPU per core, last second", left: 10, top: 8, textStyle: { fontSize: 14 } },
      tooltip: { trigger: "axis", valueFormatter: (v) => num(v) + "%" },
      grid: { left: 64, right: 36, top: 64, bottom: 36 },
      xAxis: { type: "category", data: [] },
      yAxis: { type: "value", min: 0, max: 100, name: "% busy" },
      series: [{ name: "busy", type: "bar", data: [] }],
    });
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
    charts.throughput.setOption({ legend: legend(["TPS", "QPS"], [s.tps, s.qps]), series: [
      { data: s.tps, markLine: { symbol: "none", silent: true, label: { formatter: "{b}", position: "insideEndTop", fontSize: 11 }, lineStyle: { color: "#9b2226", type: "dashed" }, data: s.marks } },
      { data: s.qps },
    ] });
    charts.latency.setOption({ legend: legend(["p50", "p95", "p99"], [s.p50, s.p95, s.p99]), series: [{ data: s.p50 }, { data: s.p95 }, { data: s.p99 }] });
    charts.cores.setOption({ xAxis: { data: s.cores.map((_, i) => "cpu" + i) }, series: [{ data: s.cores }] });
    // share is a fraction of the interval's waits
    charts.waits.setOption({
      title: { subtext: s.waits.length ? "" : "none measured yet: PostgreSQL and MySQL/MariaDB report them" },
      yAxis: { data: s.waits.map((w) => w.name) },
      series: [{ data: s.waits.map((w) => 100 * (w.share || 0)) }],
    });
    logPre.textContent = s.log.join("\n");
    logPre.scrollTop = logPre.scrollHeight;
  };
  // Drawing waits for a tenth of a second so that a late page, replaying a run's past events at
  // once, draws them once.
  const later = () => { if (!pending) { pending = true; setTimeout(draw, 100); } };

  const put = (key, v) => {
    if (v !== undefined && v !== null) {
      tiles[key].v.textContent = num(v);
      tiles[key].node.hidden = false;
    }
  };
  const onTick = (t) => {
    const e = t.elapsed_s || 0;
    if (e < s.last) { s.offset += s.last; }
    s.last = e;
    const x = Math.round((s.offset + e) * 10) / 10;
    s.x = x;
    if (t.tps !== undefined) { s.tps.push([x, t.tps]); }
    if (t.qps !== undefined) { s.qps.push([x, t.qps]); }
    if (t.p50_ms !== undefined) { s.p50.push([x, t.p50_ms]); }
    if (t.p95_ms !== undefined) { s.p95.push([x, t.p95_ms]); }
    if (t.p99_ms !== undefined) { s.p99.push([x, t.p99_ms]); }
    if (Array.isArray(t.cores)) { s.cores = t.cores; }
    if (Array.isArray(t.waits)) { s.waits = t.waits.slice(0, 10); }
    put("tps", t.tps); put("qps", t.qps); put("p95", t.p95_ms); put("p99", t.p99_ms);
    put("errors", t.errors); put("retries", t.retries); put("vus", t.vus);
    put("host", t.host_cpu); put("server", t.server_cpu);
    if (t.phase) {
      tiles.phase.v.textContent = t.phase + " " + Math.round(e) + " s";
      tiles.phase.node.hidden = false;
    }
    later();
  };
  const onStep = (st) => {
    study.hidden = false;
    const n = st.n || 0;
    const i = Math.min((st.i || 0) + 1, n || 1);
    stepText.textContent = "run " + i + " of " + n + (st.case ? " · case " + st.case : "") + " · " + st.vu + " VUs" + (st.repeat !== undefined ? " · repeat " + ((st.repeat || 0) + 1) : "");
    stepBar.style.width = n ? (100 * (i - 1) / n) + "%" : "0";
  };
  const onSetting = (st) => {
    study.hidden = false;
    settingsBody.append(el("tr", {},
      el("td", { class: "n" }, num(s.x)), el("td", {}, st.name), el("td", {}, String(st.value ?? "")),
      el("td", {}, String(st.read_back ?? "")),
      // a restore is told with no read-back
      el("td", {}, st.live ? "live, in the window" : st.read_back ? "before the run" : "restored")));
    if (st.live) { s.marks.push({ xAxis: s.x, name: st.name + "=" + st.value }); later(); }
  };

  const onQuery = (q) => {
    queries.hidden = false;
    queryBody.append(el("tr", {},
      el("td", {}, q.stream_name), el("td", {}, q.name), el("td", { class: "n" }, (q.seconds || 0).toFixed(3)),
      el("td", {}, q.error ? "ERROR " + q.error : String(q.rows ?? 0))));
  };

  const onEvent = (name, data) => {
    switch (name) {
      case "tick": onTick(data); break;
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
  if (state === "done") { stepBar.style.width = "100%"; }
  // The buffer of past events is bounded: the log of a finished job is read whole.
  try {
    s.log = (await getText("/api/v1/jobs/" + encodeURIComponent(id) + "/log")).replace(/\n$/, "").split("\n");
    draw();
  } catch (e) { /* the streamed lines stay */ }
}
