// Package ui is the web UI of cairn serve: plain ES modules, HTML and CSS embedded in the binary,
// with the report's own ECharts and palette, so that it works offline and draws as the reports do.
// It holds no data: every figure it shows it asks of the server's API.
package ui

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/report"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

//go:embed static
var static embed.FS

// Handler serves the UI: the page at / and its files under /ui/. It is mounted at / and answers
// only GET and HEAD; any other path is 404, so it never hides an API route.
func Handler() http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	fileServer := http.StripPrefix("/ui/", http.FileServerFS(files))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		headers(w, "text/html; charset=utf-8")
		http.ServeFileFS(w, r, files, "index.html")
	})
	mux.HandleFunc("GET /ui/echarts.min.js", func(w http.ResponseWriter, r *http.Request) {
		headers(w, "text/javascript; charset=utf-8")
		_, _ = io.WriteString(w, report.ECharts())
	})
	mux.HandleFunc("GET /ui/meta.js", func(w http.ResponseWriter, r *http.Request) {
		headers(w, "text/javascript; charset=utf-8")
		_, _ = io.WriteString(w, meta())
	})
	mux.HandleFunc("GET /ui/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		headers(w, "")
		fileServer.ServeHTTP(w, r)
	})
	return mux
}

// headers marks every file as one to revalidate (a new binary may serve new files at the same
// path) and not to be sniffed or framed by another site.
func headers(w http.ResponseWriter, contentType string) {
	h := w.Header()
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Referrer-Policy", "no-referrer")
}

// meta is a module of what the UI takes from the program rather than a copy of its own: the
// report's palette, and the workloads and database kinds registered (the results filters).
func meta() string {
	var workloads []string
	for _, w := range workload.All() {
		workloads = append(workloads, w.Info().Name)
	}
	targets := target.Dialects()
	sort.Strings(targets)
	var b strings.Builder
	for _, v := range []struct {
		name  string
		value []string
	}{{"palette", report.Palette()}, {"workloads", workloads}, {"targets", targets}} {
		j, err := json.Marshal(v.value)
		if err != nil {
			panic(err) // a list of strings
		}
		fmt.Fprintf(&b, "export const %s = %s;\n", v.name, j)
	}
	return b.String()
}
