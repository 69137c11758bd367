package target

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A shard set is one --db value naming many databases: URLs separated by spaces (what --db
// repeated and a spec's db list become), each of which may be a compact form, a list of servers
// times a database name pattern: mysql://u:pw@h1:3306,h2:3307/shard_{0..7}. It stays one string so
// that every front end, the stored spec and the study pass it where they pass one URL.

// MaxShards bounds a shard set: each VU holds a connection per shard.
const MaxShards = 4096

var (
	schemePrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	dbRange      = regexp.MustCompile(`\{([0-9]+)\.\.([0-9]+)\}`)
	// braceRange is anything written as a range, {…..…}: one dbRange does not take is refused,
	// not kept as a literal database name.
	braceRange = regexp.MustCompile(`\{[^{}]*\.\.[^{}]*\}`)
)

// setFields splits a --db value into its URLs. A value is a list only when every field starts
// with a scheme, so that a password holding a space is never cut into pieces (and shown).
func setFields(raw string) []string {
	f := strings.Fields(raw)
	if len(f) < 2 {
		return []string{raw}
	}
	for _, x := range f {
		if !schemePrefix.MatchString(x) {
			return []string{raw}
		}
	}
	return f
}

// JoinSet makes one --db value of several URLs (--db given more than once, a spec's db list).
func JoinSet(urls []string) string { return strings.Join(urls, " ") }

// SetURLs returns the URLs a --db value lists as written (compact forms unexpanded), for a spec
// to store them as a list; one URL for a plain value.
func SetURLs(raw string) []string { return setFields(raw) }

// compact splits a URL into its text before the hosts, its hosts, and the path and query after
// them, working on the text: the userinfo ends at the authority's last '@'.
func compact(u string) (head string, hosts []string, tail string, ok bool) {
	i := strings.Index(u, "://")
	if i < 0 {
		return "", nil, "", false
	}
	rest := u[i+3:]
	start := i + 3
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		start += at + 1
	}
	end := len(u)
	if j := strings.IndexAny(u[start:], "/?#"); j >= 0 {
		end = start + j
	}
	return u[:start], strings.Split(u[start:end], ","), u[end:], true
}

// fileScheme reports a URL of a file database (sqlite://), which has no servers to list.
func fileScheme(u string) bool {
	i := strings.Index(u, "://")
	s := lookup(strings.ToLower(u[:max(i, 0)]))
	return s != nil && s.File
}

// ExpandSet returns the member URLs of a --db value: each of its URLs, a compact form expanded to
// every server (in the order given) times every database of its pattern. A plain URL is a set of
// one.
func ExpandSet(raw string) ([]string, error) {
	var out []string
	for _, f := range setFields(raw) {
		head, hosts, tail, ok := compact(f)
		if ok && strings.Contains(f[len(head):], "${") {
			// A ${VAR} may name the servers or the database pattern: expanded here, before they
			// are split (the userinfo's, percent-encoded, are expanded per member by ParseURL).
			rest, err := UserEnv.ExpandURL(f[len(head):])
			if err != nil {
				return nil, err
			}
			head, hosts, tail, ok = compact(head + rest)
		}
		path, query := tail, ""
		if q := strings.IndexAny(tail, "?#"); q >= 0 {
			path, query = tail[:q], tail[q:]
		}
		for _, r := range braceRange.FindAllString(path, -1) {
			if !dbRange.MatchString(r) {
				return nil, urlErrorf("--db %q: the database pattern %s is not a range: give {FIRST..LAST} of whole numbers from 0, like {0..7} or {08..15}", Redact(f), r)
			}
		}
		if !ok || (len(hosts) == 1 && !dbRange.MatchString(path)) || fileScheme(f) {
			out = append(out, f)
			continue
		}
		var dbs []string
		switch m := dbRange.FindAllStringSubmatchIndex(path, -1); len(m) {
		case 0:
			dbs = []string{path}
		case 1:
			lo, err1 := strconv.Atoi(path[m[0][2]:m[0][3]])
			hi, err2 := strconv.Atoi(path[m[0][4]:m[0][5]])
			if err1 != nil || err2 != nil || lo > hi || hi-lo >= MaxShards {
				return nil, urlErrorf("--db %q: the database pattern {%s..%s} needs FIRST <= LAST, at most %d apart", Redact(f), path[m[0][2]:m[0][3]], path[m[0][4]:m[0][5]], MaxShards)
			}
			// As the shell's {08..10}: a bound written with a leading zero pads every name to
			// the wider bound's width (08, 09, 10).
			first, last := path[m[0][2]:m[0][3]], path[m[0][4]:m[0][5]]
			width := 0
			if (len(first) > 1 && first[0] == '0') || (len(last) > 1 && last[0] == '0') {
				width = max(len(first), len(last))
			}
			for n := lo; n <= hi; n++ {
				dbs = append(dbs, fmt.Sprintf("%s%0*d%s", path[:m[0][0]], width, n, path[m[0][1]:]))
			}
		default:
			return nil, urlErrorf("--db %q: give one {FIRST..LAST} in the database name", Redact(f))
		}
		for _, h := range hosts {
			if h == "" {
				return nil, urlErrorf("--db %q: an empty server in the list h1:port,h2:port", Redact(f))
			}
			for _, d := range dbs {
				out = append(out, head+h+d+query)
			}
		}
	}
	if len(out) > MaxShards {
		return nil, urlErrorf("--db: %d databases in the set; at most %d", len(out), MaxShards)
	}
	return out, nil
}

// IsSet reports whether a --db value names more than one database.
func IsSet(raw string) bool {
	m, err := ExpandSet(raw)
	return err != nil || len(m) > 1
}

// ParseSet validates every member of a --db value without connecting: each is a URL ParseURL
// accepts, all of one scheme, none twice.
func ParseSet(raw string) ([]URL, error) {
	members, err := ExpandSet(raw)
	if err != nil {
		return nil, err
	}
	out := make([]URL, 0, len(members))
	seen := map[string]int{}
	for i, m := range members {
		u, err := ParseURL(m)
		if err != nil {
			if len(members) == 1 {
				return nil, err
			}
			return nil, urlErrorf("shard %d of %d: %v", i, len(members), err)
		}
		if i > 0 && u.Scheme != out[0].Scheme {
			return nil, urlErrorf("--db: a shard set is of one kind of database: %s and %s", Redact(members[0]), Redact(m))
		}
		key := u.Scheme + "://" + u.Path
		if u.Parsed != nil {
			key = u.Scheme + "://" + u.Parsed.Host + u.Parsed.Path
		}
		if j, dup := seen[key]; dup {
			return nil, urlErrorf("--db: shards %d and %d are the same database (%s)", j, i, Redact(m))
		}
		seen[key] = i
		out = append(out, u)
	}
	if len(out) > 1 && lookup(out[0].Scheme).File {
		return nil, urlErrorf("--db: a shard set is of database servers, not %s files", out[0].Scheme)
	}
	return out, nil
}

// ShardError is a member of a shard set that could not be opened; it names the shard.
type ShardError struct {
	Index, Of int
	Where     string
	Err       error
}

func (e *ShardError) Error() string {
	return fmt.Sprintf("shard %d of %d (%s): %v", e.Index, e.Of, e.Where, e.Err)
}
func (e *ShardError) Unwrap() error { return e.Err }

// SetError is several members of a shard set that could not be opened, said in one line by
// server: the databases a server lacks, or why it could not be reached. It unwraps to the first
// member's error (a ConnectError, for the exit code).
type SetError struct {
	Failed, Of int
	Msg        string
	First      error
}

func (e *SetError) Error() string { return e.Msg }
func (e *SetError) Unwrap() error { return e.First }

// setError says why members of a set failed to open: nil when none did, the one member's
// ShardError when one did, a SetError when several did.
func setError(us []URL, errs []error) error {
	var failed []int
	for i, err := range errs {
		if err != nil {
			failed = append(failed, i)
		}
	}
	where := func(i int) (server, db string) {
		if us[i].Parsed != nil {
			return us[i].Parsed.Host, us[i].Parsed.Path
		}
		return Redact(us[i].Raw()), ""
	}
	switch len(failed) {
	case 0:
		return nil
	case 1:
		server, db := where(failed[0])
		return &ShardError{Index: failed[0], Of: len(us), Where: server + db, Err: errs[failed[0]]}
	}
	// What each server lacks or says, then the servers that say the same, in the set's order.
	var servers []string
	missing := map[string][]string{}
	other := map[string]string{}
	create := ""
	for _, i := range failed {
		server, _ := where(i)
		if !slices.Contains(servers, server) {
			servers = append(servers, server)
		}
		var ce *ConnectError
		switch {
		case errors.As(errs[i], &ce) && ce.NoDatabase != "":
			missing[server] = append(missing[server], ce.NoDatabase)
			if create == "" {
				create = ce.Create
			}
		case other[server] == "":
			other[server] = errs[i].Error()
			if errors.As(errs[i], &ce) {
				other[server] = ce.Msg
			}
		}
	}
	var texts []string
	on := map[string][]string{}
	for _, server := range servers {
		var parts []string
		if dbs := missing[server]; len(dbs) > 0 {
			parts = append(parts, names(dbs, "database", "databases")+" "+map[bool]string{true: "does", false: "do"}[len(dbs) == 1]+" not exist")
		}
		if m := other[server]; m != "" {
			parts = append(parts, m)
		}
		text := strings.Join(parts, "; ")
		if on[text] == nil {
			texts = append(texts, text)
		}
		on[text] = append(on[text], server)
	}
	var says []string
	for _, text := range texts {
		says = append(says, "on "+strings.Join(on[text], ", ")+": "+text)
	}
	msg := fmt.Sprintf("%d of %d shards cannot be opened: %s", len(failed), len(us), strings.Join(says, "; "))
	if create != "" {
		msg += " (cairn creates tables, not databases: create them first, e.g. " + create + ")"
	}
	return &SetError{Failed: len(failed), Of: len(us), Msg: msg, First: errs[failed[0]]}
}

// names lists database names, the middle ones left out past four: "shard_0, shard_1, …, shard_7".
func names(dbs []string, one, many string) string {
	if len(dbs) == 1 {
		return one + " " + dbs[0]
	}
	if len(dbs) > 4 {
		dbs = []string{dbs[0], dbs[1], "…", dbs[len(dbs)-1]}
	}
	return many + " " + strings.Join(dbs, ", ")
}

// Shards is a shard set opened: a composite target whose members are the shards, in the order of
// the set. What concerns one database (connections, SQL) is its members'; the window's counters
// are summed over them; what concerns a server is done once per server (Servers).
type Shards struct {
	members []Target
	servers []Server

	mu   sync.Mutex
	snap []Conn // one connection per member for the window's readings, opened on first use
	srv  []Conn // one connection per server for its settings, opened on first use
}

// Server is one database server of a shard set and the members it holds.
type Server struct {
	Address string // host:port
	Members []int  // indexes into Members()
}

// openSet opens every member of a set, a few at a time.
func openSet(ctx context.Context, us []URL) (Target, error) {
	s := &Shards{members: make([]Target, len(us))}
	errs := make([]error, len(us))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, u := range us {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s.members[i], errs[i] = lookup(u.Scheme).Open(ctx, u)
		}()
	}
	wg.Wait()
	if err := setError(us, errs); err != nil {
		s.Close()
		return nil, err
	}
	at := map[string]int{}
	for i, m := range s.members {
		j, ok := at[m.Address()]
		if !ok {
			j = len(s.servers)
			at[m.Address()] = j
			s.servers = append(s.servers, Server{Address: m.Address()})
		}
		s.servers[j].Members = append(s.servers[j].Members, i)
	}
	return s, nil
}

// Members are the shards, in the order of the set.
func (s *Shards) Members() []Target { return s.members }

// Servers are the distinct servers (host:port) of the set, in the order they first appear.
func (s *Shards) Servers() []Server { return s.servers }

// ServersOf returns t's servers: a shard set's, or t's own as one server of one member.
func ServersOf(t Target) []Server {
	if s, ok := t.(*Shards); ok {
		return s.servers
	}
	return []Server{{Address: t.Address(), Members: []int{0}}}
}

// MembersOf returns t's members: a composite's, or t itself.
func MembersOf(t Target) []Target {
	if c, ok := t.(Composite); ok {
		return c.Members()
	}
	return []Target{t}
}

func (s *Shards) first() Target         { return s.members[0] }
func (s *Shards) Kind() string          { return s.first().Kind() }
func (s *Shards) Name() string          { return s.first().Name() }
func (s *Shards) Dialect() Dialect      { return s.first().Dialect() }
func (s *Shards) TxnCounterSQL() string { return s.first().TxnCounterSQL() }
func (s *Shards) TxnCounterName() string {
	if n := s.first().TxnCounterName(); n != "" {
		return n + ", summed over " + strconv.Itoa(len(s.members)) + " shards"
	}
	return ""
}
func (s *Shards) UptimeSQL() string           { return s.first().UptimeSQL() }
func (s *Shards) Classify(err error) ErrClass { return s.first().Classify(err) }

// Address lists the servers: h1:3306,h2:3307.
func (s *Shards) Address() string {
	a := make([]string, len(s.servers))
	for i, v := range s.servers {
		a[i] = v.Address
	}
	return strings.Join(a, ",")
}

// Database names the set's databases: each name once, in order, shortened past four.
func (s *Shards) Database() string {
	var names []string
	seen := map[string]bool{}
	for _, m := range s.members {
		if d := m.Database(); !seen[d] {
			seen[d] = true
			names = append(names, d)
		}
	}
	if len(names) > 4 {
		names = []string{names[0], names[1], "…", names[len(names)-1]}
	}
	return strings.Join(names, ",") + " (" + strconv.Itoa(len(s.members)) + " shards)"
}

// Version is the first shard's server version.
func (s *Shards) Version(ctx context.Context) (string, error) { return s.first().Version(ctx) }

// Conn is a connection to the first shard: what the engine's own statements need (a VU of a
// fan-out opens one per shard it serves).
func (s *Shards) Conn(ctx context.Context) (Conn, error) { return s.first().Conn(ctx) }

// Settings are the first shard's server settings.
func (s *Shards) Settings(ctx context.Context, c Conn) (map[string]string, error) {
	return s.first().Settings(ctx, c)
}

// Snapshot reads every member's counters, all at once (a window's edge waits for the slowest
// member, not for their sum), and sums them (the start times too: their sum changes when any
// server restarts, which is what the engine looks for).
func (s *Shards) Snapshot(ctx context.Context, _ Conn, headlineSQL string) (Reading, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil {
		s.snap = make([]Conn, len(s.members))
	}
	rs := make([]Reading, len(s.members))
	errs := make([]error, len(s.members))
	var wg sync.WaitGroup
	for i, m := range s.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.snap[i] == nil {
				c, err := m.Conn(ctx)
				if err != nil {
					errs[i] = fmt.Errorf("shard %d (%s): %w", i, Where(m), err)
					return
				}
				s.snap[i] = c
			}
			r, err := Snapshot(ctx, m, s.snap[i], headlineSQL)
			if err != nil {
				errs[i] = fmt.Errorf("shard %d (%s): %w", i, Where(m), err)
				// The next reading opens a connection again: a shard that was down and came
				// back is read again (the engine retries a window's edge).
				s.snap[i].Close()
				s.snap[i] = nil
			}
			rs[i] = r
		}()
	}
	wg.Wait()
	var sum Reading
	for i, r := range rs {
		if errs[i] != nil {
			return Reading{}, errs[i]
		}
		sum.Headline += r.Headline
		sum.Counter += r.Counter
		sum.Start += r.Start
		sum.NoCounter = sum.NoCounter || r.NoCounter
	}
	return sum, nil
}

// Close closes every member.
func (s *Shards) Close() error {
	s.mu.Lock()
	for _, c := range append(s.snap, s.srv...) {
		if c != nil {
			c.Close()
		}
	}
	s.snap, s.srv = nil, nil
	s.mu.Unlock()
	var errs []error
	for _, m := range s.members {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	return errors.Join(errs...)
}

// DBList is a flag value that takes --db more than once, each one a URL of a shard set.
type DBList struct{ P *string }

func (d DBList) String() string {
	if d.P == nil {
		return ""
	}
	return Redact(*d.P)
}

// Set adds a URL to the set.
func (d DBList) Set(v string) error {
	if *d.P == "" {
		*d.P = v
	} else {
		*d.P += " " + v
	}
	return nil
}

func (d DBList) Type() string { return "string" }

// serverConn is a connection to server j's first member, kept for the set's settings.
func (s *Shards) serverConn(ctx context.Context, j int) (Target, Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		s.srv = make([]Conn, len(s.servers))
	}
	m := s.members[s.servers[j].Members[0]]
	if s.srv[j] == nil {
		c, err := m.Conn(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("server %s: %w", s.servers[j].Address, err)
		}
		s.srv[j] = c
	}
	return m, s.srv[j], nil
}

// eachServer runs f on every server of the set, through its first member, one after another;
// the first failure stops it.
func (s *Shards) eachServer(ctx context.Context, f func(j int, cf Configurer, c Conn) error) error {
	for j := range s.servers {
		if err := s.eachServerAt(ctx, j, func(cf Configurer, c Conn) error { return f(j, cf, c) }); err != nil {
			return err
		}
	}
	return nil
}

// DescribeSetting reads the setting on every server of the set: they must agree, since a study
// changes them together and restores them to the one value found.
func (s *Shards) DescribeSetting(ctx context.Context, _ Conn, name string) (Setting, error) {
	var first Setting
	var differ []string
	err := s.eachServer(ctx, func(j int, cf Configurer, c Conn) error {
		x, err := cf.DescribeSetting(ctx, c, name)
		if err != nil {
			return err
		}
		if j == 0 {
			first = x
		}
		differ = append(differ, x.Value+" on "+s.servers[j].Address)
		if x.Value != first.Value {
			return fmt.Errorf("%s differs between the set's servers (%s): make them agree first", name, strings.Join(differ, ", "))
		}
		return nil
	})
	return first, err
}

// SetSetting changes the setting on every server of the set and returns the value they read back.
func (s *Shards) SetSetting(ctx context.Context, _ Conn, x Setting, value string) (string, error) {
	var rb string
	err := s.eachServer(ctx, func(j int, cf Configurer, c Conn) error {
		v, err := cf.SetSetting(ctx, c, x, value)
		if j == 0 {
			rb = v
		}
		return err
	})
	return rb, err
}

// RestoreSetting puts the setting back on every server, each attempted whatever the others did.
func (s *Shards) RestoreSetting(ctx context.Context, _ Conn, x Setting) error {
	var errs []error
	for j := range s.servers {
		errs = append(errs, s.eachServerAt(ctx, j, func(cf Configurer, c Conn) error { return cf.RestoreSetting(ctx, c, x) }))
	}
	return errors.Join(errs...)
}

func (s *Shards) eachServerAt(ctx context.Context, j int, f func(cf Configurer, c Conn) error) error {
	m, c, err := s.serverConn(ctx, j)
	if err != nil {
		return err
	}
	cf, ok := m.(Configurer)
	if !ok {
		return fmt.Errorf("%s: cairn cannot change its settings", m.Name())
	}
	if err := f(cf, c); err != nil {
		return fmt.Errorf("server %s: %w", s.servers[j].Address, err)
	}
	return nil
}

// LockStudies takes the study lock of every server of the set, each on a session of its own.
func (s *Shards) LockStudies(ctx context.Context, who string) (*StudyLock, string, error) {
	all := &StudyLock{}
	for j := range s.servers {
		l, ok := s.members[s.servers[j].Members[0]].(StudyLocker)
		if !ok {
			continue
		}
		lock, heldBy, err := l.LockStudies(ctx, who)
		if err != nil || heldBy != "" {
			all.Close()
			if err != nil {
				return nil, "", fmt.Errorf("server %s: %w", s.servers[j].Address, err)
			}
			return nil, heldBy + " on " + s.servers[j].Address, nil
		}
		all.Join(lock, "server "+s.servers[j].Address)
	}
	return all, "", nil
}

// OpenWhere opens what a --db value says of the database a record names by where, its key (a
// target's Address for settings, Where for a database's own state): the value itself when its key
// is where, else the one member of its set whose key is where, so that `cairn restore` given a
// shard set (--db repeated, or the compact form) restores each record on its own server. The
// returned close closes everything opened.
func OpenWhere(ctx context.Context, db, where string, key func(Target) string) (Target, func(), error) {
	t, err := Open(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() { t.Close() }
	if key(t) == where {
		return t, closeAll, nil
	}
	var have []string
	for _, m := range MembersOf(t) {
		if key(m) == where {
			return m, closeAll, nil
		}
		if k := key(m); !slices.Contains(have, k) {
			have = append(have, k)
		}
	}
	t.Close()
	if len(have) > 4 {
		have = append(have[:3], "…")
	}
	return nil, nil, fmt.Errorf("--db names %s, not %s: give the database, or the set, the change was made on (--db repeated for several)", strings.Join(have, ", "), where)
}
