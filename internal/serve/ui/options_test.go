package ui_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// setField sets a form field as choosing or typing it would (its change event), and waits for
// the YAML to hold want.
func setField(t *testing.T, ctx context.Context, id, value, want string) {
	t.Helper()
	b, _ := json.Marshal(value)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#`+id+`"); if (e.type === "checkbox") { e.checked = `+string(b)+` === "true"; } else { e.value=`+string(b)+`; } e.dispatchEvent(new Event("change"));})()`)); err != nil {
		t.Fatalf("set #%s: %v", id, err)
	}
	wb, _ := json.Marshal(want)
	until[bool](t, ctx, "the YAML to hold "+want, 15*time.Second, `document.querySelector("#spec").value.indexOf(`+string(wb)+`) >= 0`)
}

// specText is the YAML the form holds.
func specText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#spec").value`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testConnection clicks Test connection and returns what it says.
func testConnection(t *testing.T, ctx context.Context) string {
	t.Helper()
	click(t, ctx, "#test-conn")
	return until[string](t, ctx, "Test connection's answer", 30*time.Second, `(function () {
	  var c = document.querySelector("#connection"); return c && !c.hidden && c.textContent !== "connecting…" && !document.querySelector("#test-conn").disabled ? c.textContent : "";
	})()`)
}

// TestUIFormAndYAMLInStep: a field changed is written into the YAML, with the comments and the
// keys the form does not show kept; YAML typed shows in the fields (a VU list makes a profile,
// whose own settings then appear); a workload's option links to its doc, which the page shows
// from the binary; an unreadable YAML leaves the fields waiting, saying why.
func TestUIFormAndYAMLInStep(t *testing.T) {
	_, _, ctx := openForm(t)
	until[bool](t, ctx, "the form's fields", 15*time.Second, `!!document.querySelector("#f-vu")`)
	fillSpec(t, ctx, "# mine\nworkload: tpcb\ndb: sqlite://in-step.db\nvu: 3\nunknown-key: kept # as is\noptions:\n  script: select-only\n")
	type seen struct {
		Workload, VU, Script, File, Kind string
		Repeat                           bool
	}
	read := `(function () {
	  var q = function (s) { var e = document.querySelector(s); return e ? e.value : ""; };
	  return { workload: q("#f-workload"), vu: q("#f-vu"), script: q("#f-options-script"), file: q("#db-file"), kind: q("#db-kind"), repeat: !!document.querySelector("#f-repeat") };
	})()`
	v := until[seen](t, ctx, "the fields to show the YAML", 15*time.Second, `(function () { var v = `+read+`; return v.workload === "tpcb" && v.vu === "3" ? v : null; })()`)
	if v.Script != "select-only" || v.File != "in-step.db" || v.Kind != "sqlite" || v.Repeat {
		t.Errorf("the fields show %+v: want tpcb, 3 VUs, script select-only, sqlite file in-step.db, no profile settings", v)
	}
	setField(t, ctx, "f-options-script", "simple-update", "script: simple-update")
	setField(t, ctx, "f-latency-limit", "50ms", "latency-limit: 50ms")
	setField(t, ctx, "f-vu", "1,2", "vu: [1, 2]")
	text := specText(t, ctx)
	for _, want := range []string{"# mine\n", "unknown-key: kept # as is\n", "db: sqlite://in-step.db\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the YAML after the fields changed lacks %q:\n%s", want, text)
		}
	}
	until[bool](t, ctx, "a profile's settings", 10*time.Second, `!!document.querySelector("#f-repeat") && !!document.querySelector("#f-pause")`)
	setField(t, ctx, "f-repeat", "2", "repeat: 2")
	// a field emptied takes its key out
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#f-latency-limit"); e.value=""; e.dispatchEvent(new Event("change"));})()`)); err != nil {
		t.Fatal(err)
	}
	until[bool](t, ctx, "latency-limit emptied to leave the YAML", 10*time.Second, `document.querySelector("#spec").value.indexOf("latency-limit") < 0`)
	shot(t, ctx, "form-in-step")

	// Another workload: the options and engine settings it does not read leave the YAML (TPC-H
	// has no script and no VUs); what it reads and the keys the form does not show stay.
	setField(t, ctx, "f-workload", "tpch", "workload: tpch")
	text = specText(t, ctx)
	for _, gone := range []string{"script:", "vu:", "repeat:"} {
		if strings.Contains(text, gone) {
			t.Errorf("after the switch to tpch the YAML keeps %s:\n%s", gone, text)
		}
	}
	if !strings.Contains(text, "unknown-key: kept") || !strings.Contains(text, "db: sqlite://in-step.db") {
		t.Errorf("the switch to tpch lost keys it should keep:\n%s", text)
	}
	if n := until[int](t, ctx, "tpch's fields", 10*time.Second, `document.querySelector("#f-vu") ? 0 : document.querySelectorAll("[data-option]").length`); n < 5 {
		t.Errorf("tpch shows %d options", n)
	}

	// Bad YAML: the fields wait and say so.
	fillSpec(t, ctx, "workload: [tpcb\n")
	until[string](t, ctx, "the fields to wait", 10*time.Second, `(function () { var s = document.querySelector("#fields-state").textContent; return /not YAML/.test(s) ? s : ""; })()`)

	// The docs: the workload's, from an option's link, and the whole list.
	fillSpec(t, ctx, "workload: tpcc\n")
	until[bool](t, ctx, "tpcc's fields", 10*time.Second, `document.querySelector("#f-workload").value === "tpcc" && !!document.querySelector('[data-option="prepare.warehouses"] a.doc')`)
	click(t, ctx, `[data-option="prepare.warehouses"] a.doc`)
	type docView struct {
		Name, Title string
		Tables      int
		CLILink     bool `json:"cliLink"`
	}
	const readDoc = `(function () {
	  var d = document.querySelector("#doc"), h = d && d.querySelector("h1");
	  return h ? { name: d.dataset.doc, title: h.textContent, tables: d.querySelectorAll("table").length,
	    cliLink: !!d.querySelector('a[href^="#/docs/cli.md"]') } : null;
	})()`
	d := until[docView](t, ctx, "the TPC-C doc", 15*time.Second, readDoc)
	if d.Name != "tpcc.md" || d.Title != "The TPC-C workload" || d.Tables < 3 || !d.CLILink {
		t.Errorf("the doc opened from the form: %+v, want tpcc.md rendered (its title, its tables) with its link to cli.md kept in the page", d)
	}
	shot(t, ctx, "docs")
	click(t, ctx, `#doc a[href^="#/docs/cli.md"]`)
	until[bool](t, ctx, "the linked doc", 15*time.Second, `(function () { var d = document.querySelector("#doc"); return !!d && d.dataset.doc === "cli.md" && !!d.querySelector("h1"); })()`)
}

// TestUIExamplesValidate: each example on the page loads into the YAML and the fields; the
// SQLite one validates as it is, the PostgreSQL one once its fields name the test's server.
func TestUIExamplesValidate(t *testing.T) {
	pg := testutil.PG(t)
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	t.Setenv("CAIRN_PASSWORD", pw)
	_, _, ctx := openForm(t)
	until[bool](t, ctx, "the form's fields", 15*time.Second, `!!document.querySelector("#f-vu")`)
	names := until[[]string](t, ctx, "the examples", 10*time.Second, `Array.from(document.querySelectorAll("#example option")).map(function (o) { return o.value; }).filter(Boolean)`)
	for _, want := range []string{"sqlite-tpcc", "postgres-tpcc", "mysql-tpcc"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("examples %v: no %s", names, want)
		}
	}
	load := func(name string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(function(){var e=document.querySelector("#example"); e.value="`+name+`"; e.dispatchEvent(new Event("change"));})()`)); err != nil {
			t.Fatal(err)
		}
	}
	validate := func() string {
		t.Helper()
		click(t, ctx, "#validate")
		return until[string](t, ctx, "validate's answer", 30*time.Second, `(function () {
		  var st = document.querySelector("#status").textContent, m = document.querySelector("#mark"), tg = document.querySelector("#target");
		  if (!st || document.querySelector("#validate").disabled) { return ""; }
		  return st + " " + (m ? m.textContent : "") + " " + (tg.hidden ? "" : tg.textContent);
		})()`)
	}
	load("sqlite-tpcc")
	until[bool](t, ctx, "the SQLite example in the fields", 10*time.Second, `document.querySelector("#db-kind").value === "sqlite" && document.querySelector("#db-file").value === "cairn-serve.db"`)
	if a := validate(); !strings.HasPrefix(a, "Valid.") {
		t.Errorf("the SQLite example: %s", a)
	}
	load("postgres-tpcc")
	until[bool](t, ctx, "the PostgreSQL example in the fields", 10*time.Second, `document.querySelector("#db-kind").value === "postgres" && document.querySelector("#db-password").value === "CAIRN_PASSWORD"`)
	setField(t, ctx, "db-port", u.Port(), ":"+u.Port()+"/")
	setField(t, ctx, "db-name", strings.TrimPrefix(u.Path, "/"), u.Path+"\n")
	setField(t, ctx, "db-user", u.User.Username(), "postgres://"+u.User.Username()+":")
	if a := validate(); !strings.HasPrefix(a, "Valid.") || !strings.Contains(a, "PostgreSQL 15") {
		t.Errorf("the PostgreSQL example on the test's server: %s", a)
	}
	if !strings.Contains(specText(t, ctx), "# PostgreSQL: TPC-C") {
		t.Errorf("the example's comments are gone after its fields changed:\n%s", specText(t, ctx))
	}
}
