package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/report"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// maxBody bounds a request's body: a spec is a few kilobytes.
const maxBody = 1 << 20

type api struct {
	cfg Config
	m   *manager
}

// route is one route of the service; docs/openapi.yaml lists each (Paths: its paths there,
// when the pattern serves several).
type route struct {
	Method, Pattern string
	Paths           []string
	h               func(a *api, w http.ResponseWriter, r *http.Request)
}

// routes are every route the service has (TestOpenAPIListsEveryRoute holds docs/openapi.yaml to
// them).
var routes = []route{
	{"GET", "/healthz", nil, (*api).healthz},
	{"GET", "/api/v1/host", nil, (*api).host},
	{"POST", "/api/v1/validate", nil, (*api).validate},
	{"GET", "/api/v1/workloads", nil, (*api).workloads},
	{"GET", "/api/v1/examples", nil, (*api).examples},
	{"POST", "/api/v1/edit", nil, (*api).edit},
	{"GET", "/api/v1/docs", nil, (*api).docList},
	{"GET", "/api/v1/docs/{name}", nil, (*api).doc},
	{"POST", "/api/v1/jobs", nil, (*api).create},
	{"GET", "/api/v1/jobs", nil, (*api).jobs},
	{"GET", "/api/v1/jobs/{id}", nil, (*api).job},
	{"GET", "/api/v1/jobs/{id}/log", nil, (*api).log},
	{"GET", "/api/v1/jobs/{id}/events", nil, (*api).events},
	{"POST", "/api/v1/jobs/{id}/stop", nil, (*api).stop},
	{"GET", "/api/v1/results", nil, (*api).results},
	{"GET", "/api/v1/results/{id}", nil, (*api).result},
	{"GET", "/api/v1/results/{id}/report", nil, (*api).report},
	{"GET", "/api/v1/results/{id}/export", nil, (*api).export},
	{"GET", "/api/v1/results/{id}/spec", nil, (*api).spec},
	{"GET", "/api/v1/compare", nil, (*api).compare},
	{"GET", "/api/v1/report", nil, (*api).reports},
	{"GET", "/metrics", nil, (*api).metrics},
	{"GET", "/", []string{"/", "/ui/{path}"}, (*api).ui},
}

func (a *api) handler(tok string) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		h := rt.h
		mux.HandleFunc(rt.Method+" "+rt.Pattern, func(w http.ResponseWriter, r *http.Request) {
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			}
			h(a, w, r)
		})
	}
	return authorized(tok, mux)
}

// apiError is the body of every error: the command line's one-line message, and the spec key
// at fault when known.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, apiError{Error: msg, Field: field})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// fail answers an error as the command line words it: the user's to fix 400 (an unknown id
// 404), anything else 500.
func fail(w http.ResponseWriter, err error) {
	var nf *resultstore.NotFoundError
	var se *spec.Error
	var ue *target.URLError
	var bi interface{ BadInput() }
	field := ""
	switch {
	case errors.As(err, &se):
		field = se.Key
	case errors.As(err, &ue):
		field = "db" // a URL's problem is db's
	}
	switch {
	case errors.As(err, &nf):
		writeError(w, http.StatusNotFound, oneLine(err.Error()), "")
	case errors.As(err, &bi):
		writeError(w, http.StatusBadRequest, oneLine(err.Error()), field)
	default:
		writeError(w, http.StatusInternalServerError, oneLine(err.Error()), "")
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (a *api) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func (a *api) host(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, observe.ReadHost(true))
}

func (a *api) metrics(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Metrics == nil {
		http.NotFound(w, r)
		return
	}
	a.cfg.Metrics.ServeHTTP(w, r)
}

func (a *api) ui(w http.ResponseWriter, r *http.Request) {
	if a.cfg.UI == nil {
		http.NotFound(w, r)
		return
	}
	a.cfg.UI.ServeHTTP(w, r)
}

// request is the body of POST /api/v1/validate and /api/v1/jobs.
type request struct {
	Kind string `json:"kind"`
	Spec string `json:"spec"`
}

var kinds = []string{"run", "study", "prepare", "check", "cleanup"}

// readRequest reads a JSON body; only application/json is taken, so that a page of another
// origin cannot post one without the browser asking first (and no CORS header answers).
func readRequest(w http.ResponseWriter, r *http.Request, allowed []string) (request, bool) {
	var q request
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusBadRequest, "send the body as application/json: {\"kind\": …, \"spec\": …}", "")
		return q, false
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxBody), "")
			return q, false
		}
		writeError(w, http.StatusBadRequest, "the body is not {\"kind\": …, \"spec\": …}: "+err.Error(), "")
		return q, false
	}
	ok := false
	for _, k := range allowed {
		ok = ok || q.Kind == k
	}
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("kind %q: use %s", q.Kind, strings.Join(allowed, ", ")), "kind")
		return q, false
	}
	if strings.TrimSpace(q.Spec) == "" {
		writeError(w, http.StatusBadRequest, "spec: give the spec's text (YAML or JSON)", "spec")
		return q, false
	}
	return q, true
}

// parsed is a checked request: what it runs, on what.
type parsed struct {
	kind, workload string
	db             string
	binds          bool
	plan           []byte
	// footprint is the workload's schema, for a kind that works on one: validate surveys it.
	footprint *workload.Footprint
	// fits says whether a surveyed database suits the kind: a run needs a complete schema, or a
	// prepare step where there is none.
	fits func(workload.Surveyed) error
	do   func(ctx context.Context, o session.Options) error
}

// parse checks a request as 'cairn run --spec' (every kind but study) or 'cairn study plan'
// (a study, which connects to its server and changes nothing) checks it. A study whose target
// busy says a job of this service loads is checked against its server when it starts: read
// now, the running job's settings would pass for the server's own.
func parse(ctx context.Context, q request, cfg Config, busy func(key string) bool) (*parsed, error) {
	text := []byte(q.Spec)
	env := cfg.env()
	if q.Kind == "study" {
		st, err := study.ReadEnv(text, env)
		if err != nil {
			return nil, err
		}
		if st.Restart != "" && !cfg.AllowRestart {
			return nil, &spec.Error{Key: "restart", Msg: "cairn serve runs no command a client sends: run this study with 'cairn study run', or start cairn serve with --allow-restart (then anyone who may post runs such commands as its user)"}
		}
		if err := target.CheckReserved(ctx, st.Spec.DB); err != nil {
			return nil, err
		}
		var plan bytes.Buffer
		if busy(where(st.Spec.DB)) {
			fmt.Fprintf(&plan, "%s is busy with another job: the study is checked against it when it starts\n", where(st.Spec.DB))
		} else if err := session.Plan(ctx, st, &plan); err != nil {
			return nil, err
		}
		binds := false
		for _, c := range st.ClientCPUs {
			binds = binds || c != ""
		}
		return &parsed{kind: q.Kind, workload: st.Spec.Workload, db: st.Spec.DB, binds: binds, plan: plan.Bytes(),
			do: func(ctx context.Context, o session.Options) error { return session.Study(ctx, st, o) }}, nil
	}
	s, err := spec.ReadEnv(text, env)
	if err != nil {
		return nil, err
	}
	if s.DB == "" {
		s.DB = target.DefaultDB()
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := target.CheckReserved(ctx, s.DB); err != nil {
		return nil, err
	}
	p := &parsed{kind: q.Kind, workload: s.Workload, db: s.DB, binds: s.ClientCPUs != "", plan: session.SpecText(s)}
	w := s.WorkloadOf()
	f := w.Info().Footprint
	p.footprint = &f
	p.fits = func(workload.Surveyed) error { return nil }
	switch q.Kind {
	case "run":
		p.do = func(ctx context.Context, o session.Options) error { return session.Execute(ctx, s, o) }
		p.fits = func(f workload.Surveyed) error {
			sc := f.Schema
			switch {
			case sc.State == workload.StateNone && s.Prepare != nil:
				return nil
			case sc.State == workload.StateNone:
				return &spec.Error{Key: "db", Msg: fmt.Sprintf("%s holds no %s schema: add a prepare: key to the spec (its run prepares one first), or start a prepare job first", f.Where, sc.Title)}
			}
			return schemaErr(sc.Ready())
		}
	case "prepare":
		s.AskPrepare()
		p.do = func(ctx context.Context, o session.Options) error {
			return session.Prepare(ctx, w, s.DB, s.Prepare.Options, o)
		}
	case "check":
		c, ok := w.(workload.Checker)
		if !ok {
			return nil, &spec.Error{Key: "workload", Msg: s.Workload + " has no check"}
		}
		opts := c.CheckOptions()
		p.do = func(ctx context.Context, o session.Options) error { return session.Check(ctx, w, s.DB, opts, o) }
		p.fits = func(f workload.Surveyed) error { return schemaErr(f.Schema.Ready()) }
	case "cleanup":
		p.do = func(ctx context.Context, o session.Options) error {
			return session.Cleanup(ctx, s.DB, w.Info().Footprint, o)
		}
	}
	return p, nil
}

// where is a database's target as the service names it and queues by: host:port, or the SQLite
// file; never a password.
func where(db string) string {
	u, err := target.ParseURL(db)
	if err != nil {
		return target.Redact(db)
	}
	if u.Parsed == nil {
		return u.Path
	}
	return u.Parsed.Host
}

// jobDB is the database a stored job's spec names (its ${VAR} read as the service reads them).
func jobDB(kind, text string, env target.Env) (string, error) {
	if kind == "study" {
		st, err := study.ReadEnv([]byte(text), env)
		if err != nil {
			return "", err
		}
		return st.Spec.DB, nil
	}
	s, err := spec.ReadEnv([]byte(text), env)
	if err != nil {
		return "", err
	}
	return s.DB, nil
}

// validate checks a request as create does, and for a run, prepare, check or cleanup connects to
// its database, as the job would, and says what it holds of the workload's schema: what Start
// would do there, before it is started (a database that does not exist, a run with no schema to
// run on, a cleanup's drops).
func (a *api) validate(w http.ResponseWriter, r *http.Request) {
	q, ok := readRequest(w, r, kinds)
	if !ok {
		return
	}
	p, err := parse(r.Context(), q, a.m.cfg, a.m.busy)
	if err != nil {
		fail(w, err)
		return
	}
	out := validation{Kind: q.Kind, Plan: string(p.plan)}
	if p.footprint != nil {
		ctx, cancel := context.WithTimeout(r.Context(), surveyTimeout)
		defer cancel()
		found, err := workload.Survey(ctx, p.db, *p.footprint)
		if err != nil {
			fail(w, &spec.Error{Key: "db", Msg: oneLine(session.Unreachable(err).Error())})
			return
		}
		for _, f := range found {
			out.Target = append(out.Target, f.Line())
			if err := p.fits(f); err != nil {
				fail(w, err)
				return
			}
			if q.Kind == "cleanup" && f.Schema.State != workload.StateNone {
				out.Drops = append(out.Drops, fmt.Sprintf("the %s schema at %s: %s and its meta table %s",
					f.Schema.Title, f.Where, f.Schema.Contents(), f.Schema.MetaTable()))
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// schemaErr words a schema the job cannot use as the spec's db's fault.
func schemaErr(err error) error {
	if err == nil {
		return nil
	}
	return &spec.Error{Key: "db", Msg: oneLine(err.Error())}
}

// surveyTimeout bounds validate's look at the database: a server that does not answer is said so.
const surveyTimeout = 15 * time.Second

// validation is the body of a valid request's answer.
type validation struct {
	Kind string `json:"kind"`
	Plan string `json:"plan"`
	// Target says what the database holds of the workload's schema, a line per database.
	Target []string `json:"target,omitempty"`
	// Drops says what a cleanup would drop; empty when nothing.
	Drops []string `json:"drops,omitempty"`
}

func (a *api) create(w http.ResponseWriter, r *http.Request) {
	q, ok := readRequest(w, r, kinds)
	if !ok {
		return
	}
	p, err := parse(r.Context(), q, a.m.cfg, a.m.busy)
	if err != nil {
		fail(w, err)
		return
	}
	j := a.m.add(&running{Job: Job{Kind: q.Kind, Workload: p.workload, Target: where(p.db), Spec: q.Spec},
		key: where(p.db), binds: p.binds, do: p.do})
	w.Header().Set("Location", "/api/v1/jobs/"+j.ID)
	writeJSON(w, http.StatusCreated, j)
}

func (a *api) jobs(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]Job{"jobs": a.m.list()})
}

func noJob(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("no job %s (GET /api/v1/jobs lists them)", id), "")
}

func (a *api) job(w http.ResponseWriter, r *http.Request) {
	j, ok := a.m.get(r.PathValue("id"))
	if !ok {
		noJob(w, r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, j)
}

func (a *api) log(w http.ResponseWriter, r *http.Request) {
	b, ok := a.m.logText(r.PathValue("id"))
	if !ok {
		noJob(w, r.PathValue("id"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

func (a *api) stop(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	j, ok := a.m.stop(id)
	if !ok {
		noJob(w, id)
		return
	}
	if j.State != Running && j.State != Queued {
		writeError(w, http.StatusConflict, fmt.Sprintf("job %s has ended (%s): there is nothing to stop", id, j.State), "")
		return
	}
	writeJSON(w, http.StatusAccepted, j)
}

// events streams a job's events: those it kept first, then the live ones, until its final
// state; a client that goes away costs its goroutine only until the next event or its context.
func (a *api) events(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	past, live, ok := a.m.watch(id)
	if !ok {
		noJob(w, id)
		return
	}
	if live != nil {
		defer a.m.unwatch(id, live)
	}
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(e Event) bool {
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Name, e.Data); err != nil {
			return false
		}
		return true
	}
	for _, e := range past {
		if !send(e) {
			return
		}
	}
	if fl != nil {
		fl.Flush()
	}
	if live == nil {
		return
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case e, ok := <-live:
			if !ok || !send(e) {
				return
			}
		case <-keep.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// entry is one line of 'cairn results list'.
type entry struct {
	ID            string   `json:"id"`
	Kind          string   `json:"kind"`
	ProfileID     string   `json:"profile_id,omitempty"`
	Workload      string   `json:"workload"`
	TargetKind    string   `json:"target_kind"`
	TargetName    string   `json:"target_name"`
	TargetVersion string   `json:"target_version"`
	StartedAt     string   `json:"started_at"`
	VU            string   `json:"vu"`
	HeadlineName  string   `json:"headline_name,omitempty"`
	Headline      *float64 `json:"headline,omitempty"`
	TPM           *float64 `json:"tpm,omitempty"`
	MainP95ms     *float64 `json:"main_p95_ms,omitempty"`
	WindowSeconds float64  `json:"window_seconds"`
	Interrupted   bool     `json:"interrupted"`
	// NotAsPlanned are the codes of the result's mark (docs/result-format.md#not_as_planned).
	NotAsPlanned []string `json:"not_as_planned,omitempty"`
	Live         bool     `json:"live"`
}

func (a *api) results(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := resultstore.Filter{Workload: q.Get("workload"), Target: q.Get("target"), Limit: 20}
	if _, ok := target.DialectNamed(f.Target); f.Target != "" && !ok {
		names := target.Dialects()
		sort.Strings(names)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("target %q: use %s", f.Target, strings.Join(names, ", ")), "target")
		return
	}
	var ue *workload.UnknownError
	if _, err := workload.Get(f.Workload); f.Workload != "" && errors.As(err, &ue) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("workload %q: use %s", f.Workload, strings.Join(ue.Known, ", ")), "workload")
		return
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit %q: must be 0 (all) or more", l), "limit")
			return
		}
		f.Limit = n
	}
	kind := q.Get("kind")
	if kind != "" && kind != results.KindRun && kind != results.KindProfile && kind != results.KindStudy {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("kind %q: use run, profile or study", kind), "kind")
		return
	}
	es, _, err := resultstore.ListAt(r.Context(), a.cfg.Store, f)
	if err != nil {
		fail(w, err)
		return
	}
	out := []entry{}
	for _, e := range es {
		if kind != "" && e.Kind != kind {
			continue
		}
		x := entry{ID: strconv.FormatInt(e.ID, 10), Kind: e.Kind, Workload: e.Workload, TargetKind: e.TargetKind,
			TargetName: e.TargetName, TargetVersion: e.TargetVersion, StartedAt: e.StartedAt.UTC().Format(time.RFC3339),
			VU: e.VU, HeadlineName: e.HeadlineName, Headline: e.Headline, TPM: e.TPM, MainP95ms: e.MainP95ms,
			WindowSeconds: e.WindowSeconds, Interrupted: e.Interrupted, NotAsPlanned: e.NotAsPlanned, Live: e.Live}
		if e.ProfileID != 0 {
			x.ProfileID = strconv.FormatInt(e.ProfileID, 10)
		}
		out = append(out, x)
	}
	writeJSON(w, http.StatusOK, map[string][]entry{"results": out})
}

func (a *api) load(w http.ResponseWriter, r *http.Request) (results.Loaded, bool) {
	ls, err := resultstore.Read(r.Context(), a.cfg.Store, []string{r.PathValue("id")})
	if err != nil {
		fail(w, err)
		return results.Loaded{}, false
	}
	return ls[0], true
}

// result is the stored document, as 'cairn results export ID' writes it.
func (a *api) result(w http.ResponseWriter, r *http.Request) {
	l, ok := a.load(w, r)
	if !ok {
		return
	}
	var b bytes.Buffer
	if err := results.Export(&b, l, false, false); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

func (a *api) export(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "csv" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q: use json or csv", format), "format")
		return
	}
	var series bool
	switch v := r.URL.Query().Get("series"); v {
	case "", "false":
	case "true":
		series = true
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("series %q: use true or false", v), "series")
		return
	}
	l, ok := a.load(w, r)
	if !ok {
		return
	}
	var b bytes.Buffer
	if err := results.Export(&b, l, format == "csv", series); err != nil {
		fail(w, err)
		return
	}
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	_, _ = w.Write(b.Bytes())
}

// report is the offline HTML report of a result, as 'cairn report ID' writes it.
func (a *api) report(w http.ResponseWriter, r *http.Request) {
	a.writeReport(w, r, []string{r.PathValue("id")})
}

// reports is the offline HTML report of several results overlaid, as 'cairn report 1 2' writes
// it: ids as compare takes them (1+2, 1,2,3+4), each id of a group drawn on its own.
func (a *api) reports(w http.ResponseWriter, r *http.Request) {
	ids := strings.FieldsFunc(r.URL.Query().Get("ids"), func(c rune) bool { return c == ',' || c == '+' || c == ' ' })
	if len(ids) == 0 {
		writeError(w, http.StatusBadRequest, "ids: give one or more result ids: ids=1+2", "ids")
		return
	}
	a.writeReport(w, r, ids)
}

func (a *api) writeReport(w http.ResponseWriter, r *http.Request, ids []string) {
	ls, err := resultstore.Read(r.Context(), a.cfg.Store, ids)
	if err != nil {
		fail(w, err)
		return
	}
	items, err := report.Items(ls, nil)
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	if err := report.HTML(&b, items, "cairn report: "+strings.Join(ids, ", ")); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// storedSpec is the body of GET /api/v1/results/{id}/spec: what POST /api/v1/jobs takes.
type storedSpec struct {
	Kind string `json:"kind"`
	Spec string `json:"spec"`
}

// spec is what a stored result ran with, as 'cairn results show ID --spec' prints it, with the
// job kind that runs it again; its passwords are the ${VAR} references the result stores.
func (a *api) spec(w http.ResponseWriter, r *http.Request) {
	l, ok := a.load(w, r)
	if !ok {
		return
	}
	kind, text, err := session.StoredSpec(l)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, storedSpec{Kind: kind, Spec: string(text)})
}

// compare is what 'cairn results compare' prints: ids=1,2,3+4 (a + or a space between
// arguments, commas joining a group of repeats).
func (a *api) compare(w http.ResponseWriter, r *http.Request) {
	args := strings.Fields(r.URL.Query().Get("ids"))
	if len(args) == 0 {
		writeError(w, http.StatusBadRequest, "ids: give at least two ids (or groups like 3,4,5), or one study's id: ids=1+2", "ids")
		return
	}
	var b bytes.Buffer
	if err := session.Compare(r.Context(), a.cfg.Store, args, &b); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"text": b.String()})
}

// Routes lists every route the service answers: its method and its paths as docs/openapi.yaml
// writes them.
func Routes() map[string][]string {
	out := map[string][]string{}
	for _, rt := range routes {
		paths := rt.Paths
		if paths == nil {
			paths = []string{rt.Pattern}
		}
		for _, p := range paths {
			out[p] = append(out[p], strings.ToLower(rt.Method))
		}
	}
	return out
}
