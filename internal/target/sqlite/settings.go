package sqlite

import (
	"context"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// pragmas are the PRAGMAs a study may set: those that belong to a connection, not to the file,
// so that setting them changes nothing that outlives cairn's connections (journal_mode=WAL or
// page_size would). Types from https://www.sqlite.org/pragma.html.
var pragmas = map[string]target.Setting{
	"cache_size":         {Type: "integer"},
	"synchronous":        {Type: "enum", Enum: []string{"0", "1", "2", "3", "off", "normal", "full", "extra"}},
	"temp_store":         {Type: "enum", Enum: []string{"0", "1", "2", "default", "file", "memory"}},
	"mmap_size":          {Type: "integer", Min: "0"},
	"cache_spill":        {Type: "integer", Min: "0"},
	"automatic_index":    {Type: "bool"},
	"busy_timeout":       {Type: "integer", Min: "0"},
	"wal_autocheckpoint": {Type: "integer"},
	"threads":            {Type: "integer", Min: "0", Max: "8"},
}

// DescribeSetting implements target.Configurer for the connection PRAGMAs above: a setting of the
// embedded database is one of cairn's own connections', so "the server" is this process.
func (t *lite) DescribeSetting(ctx context.Context, c target.Conn, name string) (target.Setting, error) {
	p, ok := pragmas[name]
	if !ok {
		all := make([]string, 0, len(pragmas))
		for n := range pragmas {
			all = append(all, n)
		}
		sort.Strings(all)
		return target.Setting{}, &target.UnknownSettingError{Name: name, Server: "SQLite (connection PRAGMAs: " + strings.Join(all, ", ") + ")", Near: target.Near(name, all)}
	}
	// A PRAGMA reaches the connections opened after it, not the VUs' running ones.
	p.Name, p.NewSessions = name, true
	if err := c.QueryRow(ctx, "PRAGMA "+name).Scan(&p.Value); err != nil {
		return p, err
	}
	p.Value = word(name, p.Value)
	return p, nil
}

// SetSetting implements target.Configurer: every connection opened from now on runs the PRAGMA
// (VUs open theirs when a run starts), and so does c, which reads it back.
func (t *lite) SetSetting(ctx context.Context, c target.Conn, s target.Setting, value string) (string, error) {
	if why := target.CheckSettingValue(s, value); why != "" {
		return "", &target.SettingValueError{Name: s.Name, Value: value, Why: why}
	}
	t.mu.Lock()
	if t.pragmas == nil {
		t.pragmas = map[string]string{}
	}
	t.pragmas[s.Name] = value
	t.mu.Unlock()
	// The name is from the allow-list and the value passed CheckSettingValue: a number, or one
	// of the listed words.
	if _, err := c.Exec(ctx, "PRAGMA "+s.Name+" = "+value); err != nil {
		return "", err
	}
	now, err := t.DescribeSetting(ctx, c, s.Name)
	if err == nil && now.Value == word(s.Name, value) {
		return value, nil // "normal" reads back as 1: the same value, as it was given
	}
	return now.Value, err
}

// enumWords are the numbers SQLite reads back for the words of its enumerated PRAGMAs.
var enumWords = map[string][]string{
	"synchronous": {"off", "normal", "full", "extra"},
	"temp_store":  {"default", "file", "memory"},
}

// word is an enumerated PRAGMA's value as a word.
func word(name, v string) string {
	v = strings.ToLower(v)
	if words, ok := enumWords[name]; ok && len(v) == 1 && v[0] >= '0' && int(v[0]-'0') < len(words) {
		return words[v[0]-'0']
	}
	return v
}

// RestoreSetting implements target.Configurer: connections opened from now on keep SQLite's
// value as it was found.
func (t *lite) RestoreSetting(ctx context.Context, c target.Conn, s target.Setting) error {
	t.mu.Lock()
	delete(t.pragmas, s.Name)
	t.mu.Unlock()
	_, err := c.Exec(ctx, "PRAGMA "+s.Name+" = "+s.Value)
	return err
}
