// Package serve is cairn serve: the HTTP API over the same run specs, studies and results store
// as the command line. A job is a run spec, profile, study, prepare, check or cleanup run by
// internal/session, the command line's own code path; the service is one more subscriber to its
// events. docs/serve.md and docs/openapi.yaml describe it.
package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/target"
)

// Config is what cairn serve is started with.
type Config struct {
	Listen    string // host:port
	TokenFile string // "" : none (a token is generated when the address is not loopback)
	Store     string // the results store's path; job records are kept beside it
	Version   string // cairn's
	Log       io.Writer
	// UI serves the web UI at / and /ui/; Metrics the OpenMetrics text at /metrics. nil: 404.
	UI, Metrics http.Handler
	// JobMetrics, when set, is told of every running job's seconds and progress.
	JobMetrics func(id, workload, target string) JobMetrics
	// Ready is told the address the service listens on, once it does (a test's port 0).
	Ready func(addr string)
	// AllowEnv names the variables a spec may read as ${VAR}, and only in db's password (the
	// userinfo's, ?password=, ?sslpassword=): nil is CAIRN_PASSWORD alone (cairn serve
	// --allow-env). A client must not read the service's environment back through a plan, an
	// error or a record.
	AllowEnv []string
	// AllowRestart lets a posted study run its restart command (cairn serve --allow-restart):
	// the command runs in a shell as the service's user, so without the operator's word a client
	// that may post could run anything there, and read the service's environment in the job's log.
	AllowRestart bool
}

// env is how the service reads its specs' ${VAR}s.
func (cfg Config) env() target.Env {
	allow := cfg.AllowEnv
	if allow == nil {
		allow = []string{target.DefaultAllowEnv}
	}
	return target.ServeEnv(allow)
}

// JobMetrics is the metrics of one job (internal/openmetrics): a subscriber of the job's events.
type JobMetrics interface {
	event.Subscriber
	// Done freezes the job's series once it has ended.
	Done()
}

// ListenError is an address cairn serve cannot listen on, or a token it cannot read.
type ListenError struct{ Msg string }

func (e *ListenError) Error() string { return e.Msg }
func (e *ListenError) BadInput()     {}

// DefaultPort is the port cairn serve listens on when --listen names none.
const DefaultPort = "8321"

// listenAddr is a --listen address with the default port when it names none (127.0.0.1, ::1,
// [::1], localhost), so that a host alone is the address meant, on loopback or not.
func listenAddr(listen string) (string, error) {
	if strings.TrimSpace(listen) == "" {
		return "", &ListenError{"--listen: give an address, like 127.0.0.1:" + DefaultPort}
	}
	if _, _, err := net.SplitHostPort(listen); err == nil {
		return listen, nil
	}
	host := strings.TrimSuffix(strings.TrimPrefix(listen, "["), "]")
	return net.JoinHostPort(host, DefaultPort), nil
}

// Loopback reports whether a listen address stays on this host's loopback: 127.0.0.1, ::1 or
// localhost. Any other address, 127.0.0.2 included, needs a token.
func Loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	return host == "127.0.0.1" || host == "::1" || host == "localhost"
}

// token reads the token file, or makes one when the address is not loopback (printed once).
func token(cfg Config) (string, error) {
	if cfg.TokenFile != "" {
		b, err := os.ReadFile(cfg.TokenFile)
		if err != nil {
			return "", &ListenError{fmt.Sprintf("--token-file %s: %v", cfg.TokenFile, unwrapPath(err))}
		}
		t := strings.TrimSpace(string(b))
		if len(t) < 16 {
			return "", &ListenError{fmt.Sprintf("--token-file %s: the token must be at least 16 characters", cfg.TokenFile)}
		}
		return t, nil
	}
	if Loopback(cfg.Listen) {
		return "", nil
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	t := hex.EncodeToString(b)
	fmt.Fprintf(cfg.Log, "cairn serve: %s is beyond loopback: every request needs 'Authorization: Bearer %s' (printed once; --token-file keeps one)\n", cfg.Listen, t)
	return t, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Run serves until ctx ends (SIGTERM, Ctrl-C): then every running job stops as on Ctrl-C, keeps
// what it measured and restores what it changed, and Run returns nil.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	listen, err := listenAddr(cfg.Listen)
	if err != nil {
		return err
	}
	cfg.Listen = listen
	// The store is never a job's database, whatever path names it.
	ctx = target.WithReserved(ctx, "cairn serve's results store", cfg.Store)
	// One service per store, before anything of it is read or written: the jobs of a running
	// one are its own.
	lock, err := lockStore(cfg.Store, jobDir(cfg.Store))
	if err != nil {
		return err
	}
	defer lock.Close()
	// The address is checked by listening on it before a token is made: a service that cannot
	// start prints none.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return &ListenError{fmt.Sprintf("--listen %s: %v", cfg.Listen, err)}
	}
	tok, err := token(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	jobsCtx, stopJobs := context.WithCancel(ctx)
	defer stopJobs()
	m, err := newManager(jobsCtx, cfg)
	if err != nil {
		ln.Close()
		return err
	}
	a := &api{cfg: cfg, m: m}
	srv := &http.Server{Handler: a.handler(tok), ReadHeaderTimeout: 10 * time.Second,
		// A request reads what the service's context holds (its reserved store), not its end.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	fmt.Fprintf(cfg.Log, "cairn serve: listening on http://%s (results store %s)\n", ln.Addr(), cfg.Store)
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		stopJobs()
		m.wait()
		return err
	case <-ctx.Done():
	}
	// Jobs stop first, so that clients watching see their final state; then the server closes.
	m.wait()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	fmt.Fprintln(cfg.Log, "cairn serve: stopped")
	return nil
}

// authorized wraps h: with a token, every request carries it but GET /healthz and the web UI's
// page and files, which hold no data (a browser cannot add a header to the request that loads a
// page: the page asks for the token and sends it with each API call).
func authorized(tok string, h http.Handler) http.Handler {
	if tok == "" {
		return h
	}
	want := []byte(tok)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public(r) {
			h.ServeHTTP(w, r)
			return
		}
		// The scheme is case-insensitive (RFC 7235 section 2.1): "bearer" is "Bearer".
		scheme, given, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		given = strings.TrimLeft(given, " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(given), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			writeError(w, http.StatusUnauthorized, "give the token as 'Authorization: Bearer TOKEN' (cairn serve printed it at start, or it is in its --token-file)", "")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// public reports whether r needs no token: GET or HEAD of /healthz, the UI's page (/) or its files
// (/ui/…).
func public(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/healthz" || p == "/" || strings.HasPrefix(p, "/ui/")
}
