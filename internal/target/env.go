package target

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Env is how a front end reads the ${VAR} references of a run spec, a study or a --db value. The
// command line reads its user's own environment, anywhere (UserEnv); cairn serve reads only the
// variables its operator allows, and only where a secret goes (ServeEnv): a client that may post
// a spec must not be able to read the service's environment back through a plan, an error, a
// log or a stored config.
type Env struct {
	// Allow names the variables that may be read; nil allows every one.
	Allow []string
	// SecretsOnly expands a reference only where a secret goes — the password of a URL's
	// userinfo, the value of a secret URL parameter (password=, sslpassword=): every place
	// Redact masks — and refuses one anywhere else. A secret must then be one reference: a
	// secret written literally would be kept, listed and returned to every client.
	SecretsOnly bool
	// Of names whose environment it is, for messages; "" is "the environment".
	Of string
	// Lookup reads a variable; nil is os.LookupEnv.
	Lookup func(string) (string, bool)
}

// UserEnv is the command line's: every variable of the user's own environment, anywhere.
var UserEnv = Env{}

// DefaultAllowEnv is the variable cairn serve reads unless told otherwise: the one every shipped
// study and every spec cairn writes names its password by.
const DefaultAllowEnv = "CAIRN_PASSWORD"

// ServeEnv is cairn serve's: the allowed variables, only where a secret goes.
func ServeEnv(allow []string) Env {
	return Env{Allow: allow, SecretsOnly: true, Of: "cairn serve's environment"}
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// VarName is what a variable's name may be: what a ${VAR} reference names.
var VarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// RefError is a ${VAR} reference an Env does not expand: not set, not allowed, or where it reads
// none. Its message names the reference, never a value.
type RefError struct {
	Msg   string
	Unset bool // the variable is allowed here but not set
}

func (e *RefError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix.
func (e *RefError) BadInput() {}

func (e Env) of() string {
	if e.Of == "" {
		return "the environment"
	}
	return e.Of
}

// read returns the value of a variable the Env may read.
func (e Env) read(name string) (string, error) {
	if e.Allow != nil && !contains(e.Allow, name) {
		return "", &RefError{Msg: fmt.Sprintf("${%s} is not a variable cairn serve may read (it reads %s: its option --allow-env)", name, listOr(e.Allow))}
	}
	lookup := e.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, ok := lookup(name)
	if !ok {
		return "", &RefError{Msg: fmt.Sprintf("${%s} is not set in %s", name, e.of()), Unset: true}
	}
	return v, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func listOr(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	refs := make([]string, len(l))
	for i, n := range l {
		refs[i] = "${" + n + "}"
	}
	return strings.Join(refs, ", ")
}

// HasRef reports whether text holds a ${…} (a reference, or something written like one).
func HasRef(text string) bool { return strings.Contains(text, "${") }

// Expand replaces each ${VAR} in a value that is not a URL (a spec's vu, duration, an option).
// SecretsOnly refuses any: no secret goes there.
func (e Env) Expand(text string) (string, error) {
	if !HasRef(text) {
		return text, nil
	}
	if e.SecretsOnly {
		return "", &RefError{Msg: "cairn serve reads ${VAR} only in db's password (the URL's userinfo, ?password=, ?sslpassword=): write the value itself here"}
	}
	var err error
	out := varRef.ReplaceAllStringFunc(text, func(m string) string {
		v, rerr := e.read(m[2 : len(m)-1])
		if rerr != nil && err == nil {
			err = rerr
		}
		return v
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

// ExpandURL replaces each ${VAR} in a database URL (each URL of a shard set) by its value. A value
// is percent-encoded for where it lands — in the userinfo as a userinfo is, in a query parameter's
// value as a query is — so that a password holding / # ? % @ : & = or a space stays one password;
// elsewhere (the host, the path) it goes in as it is. With SecretsOnly a reference anywhere but a
// secret's place is refused, and so is a secret written literally.
func (e Env) ExpandURL(raw string) (string, error) {
	if f := setFields(raw); len(f) > 1 {
		for i, x := range f {
			y, err := e.ExpandURL(x)
			if err != nil {
				return "", err
			}
			f[i] = y
		}
		return JoinSet(f), nil
	}
	if !e.SecretsOnly && !HasRef(raw) {
		return raw, nil
	}
	parts := urlParts(raw)
	if e.SecretsOnly {
		for _, p := range parts {
			if !p.secret() {
				if HasRef(raw[p.start:p.end]) {
					return "", &URLError{Msg: fmt.Sprintf("--db: a ${VAR} in the URL's %s: cairn serve reads ${VAR} only in the password (the userinfo's, ?password=, ?sslpassword=): write the %s itself", p.what(), p.what())}
				}
				continue
			}
			if v := raw[p.start:p.end]; v != "" && !oneRef(v) {
				return "", &URLError{Msg: fmt.Sprintf("--db: the %s is written in the URL: give it as ${VAR}, which cairn serve reads from its own environment (its option --allow-env), so that no record, response or log holds it", p.what())}
			}
		}
		// Redact reads more text as secret than a parse does (all before the last '@'); what
		// it would mask must be a reference too, or a literal could pass for a host.
		if _, secrets := redact(raw, func(string, string) string { return "" }); len(secrets) > 0 {
			for _, v := range secrets {
				if v != "" && !oneRef(v) {
					return "", &URLError{Msg: "--db: the text between the URL's :// and its last '@' is taken for a user and password: give the password as ${VAR}, and percent-encode an '@' elsewhere in the URL as %40"}
				}
			}
		}
	}
	var b strings.Builder
	last := 0
	for _, m := range varRef.FindAllStringSubmatchIndex(raw, -1) {
		v, err := e.read(raw[m[2]:m[3]])
		if err != nil {
			re := err.(*RefError)
			msg := "--db: " + re.Msg
			switch {
			case re.Unset && e.SecretsOnly:
				// the client cannot set it, nor write a password in the URL (refused above)
				msg += ": start cairn serve with it set"
			case re.Unset:
				msg += ": set it, or write the value in the URL"
			}
			return "", &URLError{Msg: msg}
		}
		switch partAt(parts, m[0]).kind {
		case partUser:
			v = url.User(v).String()
		case partPassword:
			v = strings.TrimPrefix(url.UserPassword("", v).String(), ":")
		case partValue:
			v = url.QueryEscape(v)
		}
		b.WriteString(raw[last:m[0]])
		b.WriteString(v)
		last = m[1]
	}
	b.WriteString(raw[last:])
	return b.String(), nil
}

// The parts of a URL's text a reference may stand in.
const (
	partScheme = iota
	partUser
	partPassword
	partHost
	partPath
	partKey   // a query parameter's name
	partValue // a query parameter's value
	partFragment
)

type urlPart struct {
	kind       int
	start, end int    // in the text
	param      string // a partValue's parameter
}

// secret reports a part Redact masks: the userinfo's password, a secret parameter's value.
func (p urlPart) secret() bool {
	return p.kind == partPassword || p.kind == partValue && secretKey(p.param)
}

// what names the part, for a message.
func (p urlPart) what() string {
	switch p.kind {
	case partScheme:
		return "scheme"
	case partUser:
		return "user name"
	case partPassword:
		return "password"
	case partHost:
		return "host"
	case partPath:
		return "database (path)"
	case partKey:
		return "parameter names"
	case partValue:
		return p.param + "= value"
	}
	return "fragment"
}

// urlParts splits a URL's text into its parts, working on the text as Redact does: the userinfo
// ends at the authority's last '@'. A ${VAR} holds none of the characters that end a part
// (: @ / ? # & =), so where a reference stands in the unexpanded text is where its value lands. A
// text without a scheme starts at its host (the tail of a compact shard set).
func urlParts(raw string) []urlPart {
	var out []urlPart
	pos := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		out = append(out, urlPart{kind: partScheme, start: 0, end: i})
		pos = i + 3
	}
	authEnd := len(raw)
	if j := strings.IndexAny(raw[pos:], "/?#"); j >= 0 {
		authEnd = pos + j
	}
	if at := strings.LastIndexByte(raw[pos:authEnd], '@'); at >= 0 && pos > 0 {
		at += pos
		if c := strings.IndexByte(raw[pos:at], ':'); c >= 0 {
			out = append(out, urlPart{kind: partUser, start: pos, end: pos + c}, urlPart{kind: partPassword, start: pos + c + 1, end: at})
		} else {
			out = append(out, urlPart{kind: partUser, start: pos, end: at})
		}
		pos = at + 1
	}
	out = append(out, urlPart{kind: partHost, start: pos, end: authEnd})
	pos = authEnd
	end := len(raw)
	if h := strings.IndexByte(raw[pos:], '#'); h >= 0 {
		end = pos + h
		out = append(out, urlPart{kind: partFragment, start: end + 1, end: len(raw)})
	}
	q := strings.IndexByte(raw[pos:end], '?')
	if q < 0 {
		return append(out, urlPart{kind: partPath, start: pos, end: end})
	}
	q += pos
	out = append(out, urlPart{kind: partPath, start: pos, end: q})
	for start := q + 1; start <= end; {
		stop := strings.IndexByte(raw[start:end], '&')
		if stop < 0 {
			stop = end
		} else {
			stop += start
		}
		k, _, hasValue := strings.Cut(raw[start:stop], "=")
		if !hasValue {
			out = append(out, urlPart{kind: partKey, start: start, end: stop})
		} else {
			name := k
			if dk, err := url.QueryUnescape(k); err == nil {
				name = dk
			}
			out = append(out, urlPart{kind: partKey, start: start, end: start + len(k)},
				urlPart{kind: partValue, start: start + len(k) + 1, end: stop, param: name})
		}
		start = stop + 1
	}
	return out
}

// oneRef reports a text that is one ${VAR} reference and nothing else.
func oneRef(v string) bool {
	loc := varRef.FindStringIndex(v)
	return loc != nil && loc[0] == 0 && loc[1] == len(v)
}

// partAt is the part that holds position i.
func partAt(parts []urlPart, i int) urlPart {
	for _, p := range parts {
		if i >= p.start && i < p.end {
			return p
		}
	}
	return urlPart{kind: partFragment}
}
