package target

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// URLError is a --db value that cannot be used as given (the command line exits 2 on it).
type URLError struct{ Msg string }

func (e *URLError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix.
func (e *URLError) BadInput() {}

func urlErrorf(format string, a ...any) error { return &URLError{Msg: fmt.Sprintf(format, a...)} }

// URLErrorf builds a URLError, for the targets' own checks of a URL.
func URLErrorf(format string, a ...any) error { return urlErrorf(format, a...) }

// Param is one URL query parameter a database accepts. Every other parameter is refused: the
// drivers pass unknown ones on to the server (go-sql-driver/mysql as SET statements, pgx as startup
// parameters), which would let a URL run SQL or change settings behind the benchmark's back.
type Param struct {
	Name string
	Doc  string // what it does and what it takes, for the refusal and docs/cli.md
	// Secret values are masked wherever the URL is shown or stored.
	Secret bool
	// Check validates a value; nil accepts any.
	Check func(v string) error
}

// Scheme is one database's registration: the URL schemes that name it, the parameters its URLs
// may carry, and how to open it.
type Scheme struct {
	Names  []string // URL schemes; the first is the canonical one ("postgres", then "postgresql")
	File   bool     // the URL names a file (sqlite://FILE), not a server
	Params []Param
	Open   Opener
	// TestEnv names the environment variable that gives the tests a server of this kind, and
	// TestURL is the one they try without it; a File scheme gets a new file instead. Every test
	// over all databases, the conformance suite first, takes its list from the registrations.
	TestEnv, TestURL string
}

// Opener connects to a database given its parsed URL.
type Opener func(ctx context.Context, u URL) (Target, error)

var (
	mu      sync.Mutex
	schemes = map[string]*Scheme{} // by every name
)

// Register makes a database available; target packages call it from init.
func Register(s Scheme) {
	mu.Lock()
	defer mu.Unlock()
	for _, n := range s.Names {
		schemes[n] = &s
	}
}

// Schemes lists the registered URL scheme names.
func Schemes() []string {
	mu.Lock()
	defer mu.Unlock()
	var s []string
	for k := range schemes {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Registered lists the registrations, once each, in the order of their canonical names.
func Registered() []Scheme {
	mu.Lock()
	defer mu.Unlock()
	seen := map[*Scheme]bool{}
	var out []Scheme
	for _, s := range schemes {
		if !seen[s] {
			seen[s] = true
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Names[0] < out[j].Names[0] })
	return out
}

func lookup(name string) *Scheme {
	mu.Lock()
	defer mu.Unlock()
	return schemes[name]
}

// URL is a parsed --db value. Its String is the redacted form; the password is only in Password
// and in raw, which only the opener reads (Raw).
type URL struct {
	Scheme   string   // the canonical scheme: "sqlite", "postgres", "mysql"
	Parsed   *url.URL // nil for a file URL
	Path     string   // the file of a file URL
	Params   map[string]string
	Password string // from the userinfo or a secret query parameter
	raw      string
}

// Raw is the URL as given, password included: for the driver, never for output.
func (u URL) Raw() string { return u.raw }

// String is the URL with every password masked.
func (u URL) String() string { return Redact(u.raw) }

// ParseURL validates a --db value without connecting: the scheme is registered, the URL names a
// host and a database (or a file), and every query parameter is one the scheme accepts, with a
// value it accepts. For a shard set it checks every member and returns the first (ParseSet
// returns them all).
func ParseURL(raw string) (URL, error) {
	if raw == "" {
		raw = DefaultURL
	}
	if IsSet(raw) {
		us, err := ParseSet(raw)
		if err != nil {
			return URL{}, err
		}
		return us[0], nil
	}
	// A --db value the command line was given is the user's, read from their own environment; a
	// front end with another policy (cairn serve) expands a spec's db before it comes here.
	raw, err := UserEnv.ExpandURL(raw)
	if err != nil {
		return URL{}, err
	}
	shown := Redact(raw)
	i := strings.Index(raw, "://")
	if i <= 0 {
		// Not echoed: a value without a scheme may be a password pasted in the wrong place.
		return URL{}, urlErrorf("--db is not a URL (no scheme://): use sqlite://FILE, postgres://user:pass@host:port/db or mysql://user:pass@host:port/db")
	}
	name := strings.ToLower(raw[:i])
	s := lookup(name)
	if s == nil {
		return URL{}, urlErrorf("--db %q: unknown scheme %q (use %s)", shown, name, strings.Join(Schemes(), ", "))
	}
	u := URL{Scheme: s.Names[0], raw: raw}
	var query string
	if s.File {
		p := raw[i+3:]
		p, query, _ = strings.Cut(p, "?")
		if p == "" {
			return URL{}, urlErrorf("--db %q names no file: use %s://cairn.db or %s:///abs/path.db", shown, name, name)
		}
		u.Path = filepath.Clean(p)
	} else {
		if strings.Contains(raw, "#") {
			// url.Parse would cut the URL there, and what follows (a password's tail, most
			// often) would be taken for a fragment and shown or sent as something else.
			return URL{}, urlErrorf("--db %q holds a '#', which would end the URL: percent-encode it as %%23 (in a password too), or give the password as ${VAR}", shown)
		}
		p, err := url.Parse(raw)
		if err != nil {
			return URL{}, urlErrorf("--db %q is malformed: %s", shown, parseProblem(err))
		}
		if p.Host == "" {
			return URL{}, urlErrorf("--db %q names no host: use %s://user:pass@host:port/db", shown, name)
		}
		if port := p.Port(); port != "" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return URL{}, urlErrorf("--db %q has a bad port %q: use a number from 1 to 65535", shown, port)
			}
		}
		if strings.Trim(p.Path, "/") == "" {
			return URL{}, urlErrorf("--db %q names no database: add /DBNAME to the URL", shown)
		}
		u.Parsed = p
		u.Password, _ = p.User.Password()
		query = p.RawQuery
	}
	params, err := checkParams(s, name, query)
	if err != nil {
		return URL{}, err
	}
	u.Params = params
	if pw, ok := params["password"]; ok {
		if u.Password != "" {
			return URL{}, urlErrorf("--db %q gives a password twice, in the userinfo and as ?password=: give it once", shown)
		}
		u.Password = pw
	}
	return u, nil
}

// checkParams decodes a query string and checks each parameter against the scheme's list.
func checkParams(s *Scheme, name, query string) (map[string]string, error) {
	out := map[string]string{}
	if query == "" {
		return out, nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		// Not the parser's words: they quote the bad piece, which may be a piece of a password.
		return nil, urlErrorf("--db: the URL's parameters are malformed: a %%-escape is not two hex digits, or a ';' stands between them: write a %% as %%25, and separate parameters with &")
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var p *Param
		for i := range s.Params {
			if s.Params[i].Name == k {
				p = &s.Params[i]
			}
		}
		if p == nil {
			if len(s.Params) == 0 {
				return nil, urlErrorf("--db: %s URLs take no parameters, got %q", name, k)
			}
			return nil, urlErrorf("--db: URL parameter %q is not accepted for %s (accepted: %s; see docs/cli.md)", k, name, paramNames(s))
		}
		v := vals[k]
		if len(v) > 1 {
			return nil, urlErrorf("--db: URL parameter %q is given %d times; give it once", k, len(v))
		}
		if p.Check != nil {
			if err := p.Check(v[0]); err != nil {
				shown := v[0]
				if p.Secret {
					shown = mask
				}
				return nil, urlErrorf("--db: URL parameter %s=%q: %v", k, shown, err)
			}
		}
		out[k] = v[0]
	}
	return out, nil
}

func paramNames(s *Scheme) string {
	n := make([]string, len(s.Params))
	for i, p := range s.Params {
		n[i] = p.Name
	}
	return strings.Join(n, ", ")
}

// parseProblem words url.Parse's error without quoting the URL: its messages quote pieces of
// their input, which may be pieces of a password.
func parseProblem(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "invalid port"):
		return "the port is not a number: use host:port, like 127.0.0.1:5432"
	case strings.Contains(msg, "invalid URL escape"):
		return "a %-escape is not two hex digits: write a % in a password as %25"
	case strings.Contains(msg, "missing ']'"):
		return "an IPv6 host lacks its closing ]: use [::1]:5432"
	case strings.Contains(msg, "invalid character") || strings.Contains(msg, "invalid userinfo"):
		return "a character is not allowed where it stands: percent-encode special characters in the user and password"
	}
	return "it does not parse as a URL"
}

const mask = "xxxxx"

// secretKey reports query parameter names whose values are secrets, whatever the database:
// password, passwd, sslpassword, pwd, … (over-masking a harmless one is the safe mistake).
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"pass", "pwd", "secret", "token"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// Redact masks every password in a --db value: the userinfo's and those of secret query
// parameters. It works on the text, not on a parse, so a URL too broken to parse is masked as well;
// where the text is ambiguous it masks too much rather than too little.
func Redact(raw string) string {
	return ReplaceSecrets(raw, func(string, string) string { return mask })
}

// ReplaceSecrets replaces each secret of a --db value by what repl returns for it, as Redact
// finds them (Redact is ReplaceSecrets with a mask): param is the secret's URL parameter, "" for
// the userinfo's password; secret is its text as written.
func ReplaceSecrets(raw string, repl func(param, secret string) string) string {
	r, _ := redact(raw, repl)
	return r
}

// redact returns the replaced text and the secrets it replaced, as they stood in raw.
func redact(raw string, repl func(param, secret string) string) (string, []string) {
	if f := setFields(raw); len(f) > 1 {
		var all []string
		for i, x := range f {
			r, s := redact(x, repl)
			f[i], all = r, append(all, s...)
		}
		return JoinSet(f), all
	}
	var secrets []string
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	// Secret parameters first: a value holding an '@' would otherwise pass for the end of the
	// userinfo, and all after it for a host. A value runs to the next '&': a '#' or a '?' in it
	// is the password's, not a fragment's or another query's.
	var b strings.Builder
	last := 0
	for i := 0; i < len(rest); i++ {
		if rest[i] != '?' && rest[i] != '&' {
			continue
		}
		eq := strings.IndexByte(rest[i+1:], '=')
		if eq < 0 {
			break
		}
		k := rest[i+1 : i+1+eq]
		if strings.ContainsAny(k, "?&") {
			continue // no '=' before the next parameter: not a key
		}
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if !secretKey(k) {
			continue
		}
		start, end := i+1+eq+1, len(rest)
		if amp := strings.IndexByte(rest[start:], '&'); amp >= 0 {
			end = start + amp
		}
		secrets = append(secrets, rest[start:end])
		b.WriteString(rest[last:start])
		b.WriteString(repl(k, rest[start:end]))
		last, i = end, end-1
	}
	b.WriteString(rest[last:])
	rest = b.String()
	if prefix != "" {
		// The userinfo ends at the last '@': a password may hold an unescaped '@', '/' or '?'.
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if c := strings.IndexByte(rest[:at], ':'); c >= 0 {
				secrets = append(secrets, rest[c+1:at])
				rest = rest[:c+1] + repl("", rest[c+1:at]) + rest[at:]
			}
		}
	}
	return prefix + rest, secrets
}

// Scrub removes from msg every password that the --db value raw carries, as written and decoded:
// for messages built from a parser's or driver's error, which may quote their input.
func Scrub(msg, raw string) string { return scrub(msg, raw) }

func scrub(msg, raw string) string {
	_, secrets := redact(raw, func(string, string) string { return mask })
	for _, s := range secrets {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, s, mask)
		// Decoded, and encoded again the ways a driver re-encodes a URL.
		for _, unescape := range []func(string) (string, error){url.QueryUnescape, url.PathUnescape} {
			d, err := unescape(s)
			if err != nil || d == "" {
				continue
			}
			for _, f := range []string{d, url.QueryEscape(d), url.PathEscape(d), strings.TrimPrefix(url.UserPassword("", d).String(), ":")} {
				msg = strings.ReplaceAll(msg, f, mask)
			}
		}
	}
	return msg
}

// Checks for Param values.

// OneOf accepts exactly the given values.
func OneOf(vals ...string) func(string) error {
	return func(v string) error {
		for _, x := range vals {
			if v == x {
				return nil
			}
		}
		return fmt.Errorf("use one of %s", strings.Join(vals, ", "))
	}
}

// IsDuration accepts a Go duration such as 5s or 1m30s.
func IsDuration(v string) error {
	if d, err := time.ParseDuration(v); err != nil || d < 0 {
		return fmt.Errorf("not a duration: use a number with a unit, like 10s")
	}
	return nil
}

// IsSeconds accepts a whole number of seconds.
func IsSeconds(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 0 {
		return fmt.Errorf("not a whole number of seconds")
	}
	return nil
}

// IsIdent accepts a plain SQL identifier (letters, digits, underscore), for values a driver puts
// into SQL text (MySQL's charset and collation go into SET NAMES).
func IsIdent(v string) error {
	if v == "" {
		return fmt.Errorf("empty")
	}
	for _, r := range v {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("not a name: use letters, digits and underscores only")
		}
	}
	return nil
}

// IsText accepts any value without control characters.
func IsText(v string) error {
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("contains a control character")
		}
	}
	return nil
}

// Open parses raw and connects. Connection failures come back as *ConnectError.
func Open(ctx context.Context, raw string) (Target, error) {
	if IsSet(raw) {
		us, err := ParseSet(raw)
		if err != nil {
			return nil, err
		}
		return openSet(ctx, us)
	}
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return lookup(u.Scheme).Open(ctx, u)
}
