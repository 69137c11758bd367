package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"github.com/cairn-bench/cairn/docs"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// The form's routes: the options of every workload, read from the declarations that make the
// flags, the specs and docs/spec.schema.json; the spec's text edited by the form's fields; the
// example specs and the docs, from the binary.

// option is one declared option as the form shows it.
type option struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"`
	Help  string   `json:"help"`
	Group string   `json:"group,omitempty"`
	Enum  []string `json:"enum,omitempty"`
	// Min and Max are written as the option takes them (30s for a duration).
	Min string `json:"min,omitempty"`
	Max string `json:"max,omitempty"`
	// Default is the value the option has when left out; Auto says it is then decided from
	// the others or from what is prepared (Default is then empty).
	Default string `json:"default"`
	Auto    bool   `json:"auto,omitempty"`
	// ZeroOff: 0 is accepted as none, beside what Min and Max allow.
	ZeroOff bool   `json:"zero_off,omitempty"`
	Alias   string `json:"alias,omitempty"`
	// Profile: a profile's alone (vu: a list).
	Profile bool `json:"profile,omitempty"`
	// ProfileDefault is the default in a profile, where it differs from a run's.
	ProfileDefault *string `json:"profile_default,omitempty"`
}

// workloadForm is one workload's part of GET /api/v1/workloads.
type workloadForm struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Short string `json:"short"`
	// Doc names its page under /api/v1/docs/.
	Doc     string   `json:"doc,omitempty"`
	Profile bool     `json:"profile"`
	Check   bool     `json:"check"`
	Engine  []option `json:"engine"`
	Run     []option `json:"run"`
	Prepare []option `json:"prepare"`
}

func optionsOf(v any, group string, def any) []option {
	var out []option
	for _, f := range options.Fields(v) {
		if f.Hidden {
			continue
		}
		o := option{Name: f.Name, Kind: string(f.Kind), Help: f.Help, Group: group, Enum: f.Enum, ZeroOff: f.ZeroOff, Alias: f.Alias}
		bound := func(b *float64) string {
			if b == nil {
				return ""
			}
			if f.Kind == options.Duration {
				return options.FormatDuration(time.Duration(*b))
			}
			return strconv.FormatFloat(*b, 'f', -1, 64)
		}
		o.Min, o.Max = bound(f.Min), bound(f.Max)
		o.Default = f.Default
		if def != nil {
			if g, ok := options.Lookup(def, f.Name); ok {
				o.Default = options.Format(g.Get(def))
			}
		}
		if f.HasUnset {
			o.Auto, o.Default = true, ""
		}
		out = append(out, o)
	}
	return out
}

// workloadForms lists every workload's options: the engine settings it reads with its defaults
// (a run's, and a profile's where they differ), its run options and its prepare options.
func workloadForms() []workloadForm {
	var out []workloadForm
	for _, w := range workload.All() {
		info := w.Info()
		run, prof := spec.EngineDefaults(info, false), spec.EngineDefaults(info, true)
		wf := workloadForm{Name: info.Name, Title: info.Title, Short: info.Short, Profile: info.Profile,
			Run: optionsOf(w.RunOptions(), "options", nil), Prepare: optionsOf(w.PrepareOptions(), "prepare", nil)}
		if _, err := fs.Stat(docs.FS, info.Name+".md"); err == nil {
			wf.Doc = info.Name + ".md"
		}
		_, wf.Check = w.(workload.Checker)
		for _, g := range []struct {
			name         string
			v, def, pdef any
		}{{"run", &run.Engine, &run.Engine, &prof.Engine}, {"observation", &run.Observation, &run.Observation, &prof.Observation},
			{"binding", &run.Binding, &run.Binding, &prof.Binding}, {"connecting", &run.Connecting, &run.Connecting, &prof.Connecting},
			{"parting", &run.Parting, &run.Parting, &prof.Parting}} {
			for _, o := range optionsOf(g.v, g.name, g.def) {
				if !info.Uses(o.Name) {
					continue
				}
				o.Profile = spec.ProfileOnly(o.Name)
				if f, ok := options.Lookup(g.pdef, o.Name); ok && !o.Auto {
					if p := options.Format(f.Get(g.pdef)); p != o.Default {
						o.ProfileDefault = &p
					}
				}
				wf.Engine = append(wf.Engine, o)
			}
		}
		out = append(out, wf)
	}
	return out
}

// workloads answers the form's options, and the ${VAR}s a spec may name (their names, never a
// value).
func (a *api) workloads(w http.ResponseWriter, _ *http.Request) {
	allow := a.cfg.AllowEnv
	if allow == nil {
		allow = []string{target.DefaultAllowEnv}
	}
	writeJSON(w, http.StatusOK, map[string]any{"workloads": workloadForms(), "allow_env": allow})
}

// example is one example spec of docs/examples.
type example struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Spec  string `json:"spec"`
}

// examples are docs/examples/*.yaml, each titled by its first comment line.
func examples() []example {
	names, _ := fs.Glob(docs.FS, "examples/*.yaml")
	sort.Strings(names)
	var out []example
	for _, n := range names {
		b, err := fs.ReadFile(docs.FS, n)
		if err != nil {
			panic(err) // embedded
		}
		first, _, _ := strings.Cut(string(b), "\n")
		kind := "run"
		if strings.Contains(n, "study") {
			kind = "study"
		}
		out = append(out, example{Name: strings.TrimSuffix(path.Base(n), ".yaml"), Title: strings.TrimSpace(strings.TrimPrefix(first, "#")), Kind: kind, Spec: string(b)})
	}
	return out
}

func (a *api) examples(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]example{"examples": examples()})
}

// docList answers the names of the docs served.
func (a *api) docList(w http.ResponseWriter, _ *http.Request) {
	names, _ := fs.Glob(docs.FS, "*.md")
	sort.Strings(names)
	writeJSON(w, http.StatusOK, map[string][]string{"docs": names})
}

// markdown renders the docs as GitHub shows them (tables, headings with ids for their links);
// raw HTML in a doc is left out, not passed through.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithParserOptions(parser.WithAutoHeadingID()))

// doc answers one doc: its text (Markdown, as in the repository), or with format=html the HTML
// it renders to, for the UI's docs view.
func (a *api) doc(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := fs.ReadFile(docs.FS, name)
	if err != nil || strings.Contains(name, "/") || !strings.HasSuffix(name, ".md") && name != "openapi.yaml" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no doc %q (GET /api/v1/docs lists them)", name), "")
		return
	}
	ct := "text/markdown; charset=utf-8"
	if name == "openapi.yaml" {
		ct = "application/yaml; charset=utf-8"
	}
	switch f := r.URL.Query().Get("format"); {
	case f == "html" && strings.HasSuffix(name, ".md"):
		var out bytes.Buffer
		if err := markdown.Convert(b, &out); err != nil {
			fail(w, fmt.Errorf("render %s: %w", name, err))
			return
		}
		b, ct = out.Bytes(), "text/html; charset=utf-8"
	case f != "" && f != "text":
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q: use text, or html for a .md", f), "format")
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

// editRequest is the body of POST /api/v1/edit.
type editRequest struct {
	Spec string             `json:"spec"`
	Set  map[string]*string `json:"set"`
}

// edit applies a form's fields to a spec's text and answers the text and the values the form
// shows of it: the one way the page's fields and its YAML are kept in step.
func (a *api) edit(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusBadRequest, "send the body as application/json: {\"spec\": …, \"set\": {…}}", "")
		return
	}
	var q editRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxBody), "")
			return
		}
		writeError(w, http.StatusBadRequest, "the body is not {\"spec\": …, \"set\": {…}}: "+err.Error(), "")
		return
	}
	text := []byte(q.Spec)
	if len(q.Set) > 0 {
		out, err := spec.Edit(text, q.Set)
		if err != nil {
			fail(w, err)
			return
		}
		text = out
	}
	values, err := spec.Values(text)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"spec": string(text), "values": values})
}
