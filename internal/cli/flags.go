package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/sink"
)

// bind adds a flag for every option of v; skip leaves some out, shorts adds one-letter forms.
func bind(fs *pflag.FlagSet, v any, skip func(name string) bool, shorts map[string]string, help map[string]string) {
	for _, f := range options.Fields(v) {
		if skip != nil && skip(f.Name) {
			continue
		}
		short := f.Short
		if s, ok := shorts[f.Name]; ok {
			short = s
		}
		text := f.Help
		if h, ok := help[f.Name]; ok {
			text = h
		}
		val := options.Value{F: f, V: v}
		fl := fs.VarPF(val, f.Name, short, text)
		if f.Kind == options.Bool {
			fl.NoOptDefVal = "true"
		}
		if f.Hidden {
			fl.Hidden = true
		}
		if f.Alias != "" {
			a := fs.VarPF(val, f.Alias, "", text)
			a.Hidden = true
			if f.Kind == options.Bool {
				a.NoOptDefVal = "true"
			}
		}
	}
}

// flagged words the typed errors of the layers below as the flags they came from: "--vu 0: need
// at least 1", "write --json: …". A wrapped error keeps its context and its exit code.
func flagged(err error) error {
	if oe, ok := err.(*options.Error); ok && !strings.Contains(oe.Name, ".") {
		return &usageError{"--" + oe.Error()}
	}
	var ce *run.CapacityError
	var re *observe.RemoteError
	var we *sink.WriteError
	switch {
	case errors.As(err, &re):
		why := re.Why
		if re.Inside {
			why += ": use --client-cpus"
		}
		return reword(err, re, fmt.Sprintf("--server-cpus: the server at %s is not a process cairn can bind (%s): cairn binds only a server on this host", re.Where, why))
	case errors.As(err, &ce) && ce.Pooled:
		return reword(err, ce, fmt.Sprintf("--connections %d: %s has room for %d (%s): use --connections %d or fewer",
			ce.VUs, ce.Where, ce.Free, ce.Desc, ce.Fit()))
	case errors.As(err, &ce):
		return reword(err, ce, fmt.Sprintf("--vu %d: %s accepts %d more connections (%s), and cairn needs one per VU and one for the snapshots: use --vu %d or fewer",
			ce.VUs, ce.Where, ce.Free, ce.Desc, ce.Fit()))
	case errors.As(err, &we):
		return reword(err, we, "write --json: "+we.Err.Error())
	}
	return err
}

// reworded is an error whose message the command line words; it unwraps to the error it words.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

func reword(err, part error, as string) error {
	return &reworded{strings.Replace(err.Error(), part.Error(), as, 1), err}
}
