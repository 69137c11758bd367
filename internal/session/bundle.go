package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/spec"
)

// Bundle gathers stored runs into one bundle ('cairn results bundle'): each run's document whole
// and the spec that runs it again, as 'results show --spec' prints it. A profile or a study is
// refused: a bundle holds runs (a profile's steps are runs of their own ids).
func Bundle(ctx context.Context, storePath, version string, ids []string) (*results.Bundle, error) {
	ls, err := resultstore.Read(ctx, storePath, ids)
	if err != nil {
		return nil, err
	}
	b := &results.Bundle{Format: results.BundleFormat, Version: results.BundleVersion,
		MadeAt: time.Now().UTC().Truncate(time.Second), Cairn: results.ThisCairn(version)}
	for _, l := range ls {
		if l.Run == nil {
			return nil, inputf("result %s is a %s: a bundle holds runs (bundle a profile's steps by their ids, 'cairn results list --steps')", l.ID, l.Kind())
		}
		_, text, err := StoredSpec(l)
		if err != nil {
			return nil, err
		}
		b.Runs = append(b.Runs, results.BundledResult{ID: l.ID, Spec: string(text), Run: l.Run})
	}
	return b, nil
}

// Rerun is one run of a bundle made to run again ('cairn run --bundle'): its spec on another
// database, preparing the data as the run's prepare recorded it when that database has none, and
// the mark its result carries.
type Rerun struct {
	Spec *spec.Spec
	From results.FromBundle
}

// Reruns reads the bundle at file and makes each of its runs a spec that runs on db; change, when
// not nil, edits each spec before it is checked (--set). The data's prepare options the run
// recorded (its seed, its sizes) are the spec's prepare's, so that a database with no schema is
// prepared with the same data, and one holding another size is refused as a prepare refuses it.
func Reruns(file, db string, change func(*spec.Spec) error) ([]Rerun, error) {
	b, err := readBundle(file)
	if err != nil {
		return nil, err
	}
	sum := b.SHA256
	var out []Rerun
	for _, r := range b.Runs {
		s, err := spec.ReadStored([]byte(r.Spec), func(s *spec.Spec) error {
			s.DB = db
			// A part of a run of several load generators (or a merged run) runs whole, here.
			s.Part, s.StartAt, s.PartRun = "", "", ""
			if d := r.Run.Data; d != nil {
				keys := make([]string, 0, len(d.Prepare))
				for k := range d.Prepare {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if err := s.Set("prepare."+k, d.Prepare[k]); err != nil {
						return fmt.Errorf("the data of run %s: %w", r.ID, err)
					}
				}
			}
			if change != nil {
				return change(s)
			}
			return nil
		})
		if err != nil {
			var se *spec.Error
			if errors.As(err, &se) {
				return nil, inputf("--bundle %s: run %s: %v", file, r.ID, err)
			}
			return nil, err
		}
		out = append(out, Rerun{Spec: s, From: results.FromBundle{File: file, SHA256: sum, Result: r.ID}})
	}
	return out, nil
}

// openedBundle is a bundle read from its file, with the file's SHA-256.
type openedBundle struct {
	*results.Bundle
	SHA256 string
}

// readBundle reads the bundle at file; a file missing or not a bundle is the user's to fix.
func readBundle(file string) (*openedBundle, error) {
	text, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, inputf("%s: no such file (make a bundle with 'cairn results bundle ID… -o FILE')", file)
	}
	if err != nil {
		return nil, inputf("%s: %v", file, err)
	}
	b, err := results.ReadBundle(text, file)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(text)
	return &openedBundle{b, hex.EncodeToString(sum[:])}, nil
}

// ExecuteReruns runs a bundle's reruns in its order, each with the options opts makes for it and
// recording the bundle it came from; the first that fails ends it. With specs not nil it writes
// each rerun's spec there instead of running it.
func ExecuteReruns(ctx context.Context, reruns []Rerun, specs io.Writer, opts func() Options) error {
	if o := opts(); specs == nil && o.JSON != "" && len(reruns) > 1 {
		return inputf("--json writes one document and the bundle holds %d runs: leave --json out and export each result ('cairn results export ID')", len(reruns))
	}
	for _, r := range reruns {
		if specs != nil {
			if _, err := specs.Write(SpecText(r.Spec)); err != nil {
				return err
			}
			continue
		}
		o := opts()
		o.From = &r.From
		if err := Execute(ctx, r.Spec, o); err != nil {
			return err
		}
	}
	return nil
}
