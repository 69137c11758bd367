package results

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Data is the data a run measured, as its prepare recorded it: when it was prepared, by which
// cairn (the generator's version), and the prepare options that make the same data again (its
// seed, its sizes), by option name as 'prepare' and a spec's prepare section take them.
type Data struct {
	PreparedAt   time.Time         `json:"prepared_at"`
	CairnVersion string            `json:"cairn_version"`
	Prepare      map[string]string `json:"prepare,omitempty"`
}

// FromBundle says that a run ran again from a bundle ('cairn run --bundle'): the file as named,
// its SHA-256, and the id of the result in it that it repeats.
type FromBundle struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Result string `json:"result"`
}

// BundleFormat names a bundle's JSON document (Bundle.Format).
const BundleFormat = "cairn-bundle"

// BundleVersion is the version of a bundle's shape.
const BundleVersion = 1

// Bundle is what 'cairn results bundle' writes: one JSON document holding each run whole (its
// document: spec as config, cairn, database and settings, host, data, figures, series and
// histograms) and the run spec that repeats it, its passwords ${VAR} references.
type Bundle struct {
	Format  string    `json:"format"` // BundleFormat
	Version int       `json:"version"`
	MadeAt  time.Time `json:"made_at"`
	// Cairn is the cairn that wrote the bundle; each run names the cairn that measured it.
	Cairn Cairn           `json:"cairn"`
	Runs  []BundledResult `json:"runs"`
}

// BundledResult is one run of a bundle: its id in the store it came from, its spec as YAML ('cairn
// results show --spec' prints the same), and its document.
type BundledResult struct {
	ID   string    `json:"id"`
	Spec string    `json:"spec"`
	Run  *Document `json:"run"`
}

// WriteBundle writes b as indented JSON.
func WriteBundle(w io.Writer, b *Bundle) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// NotBundleError is a file that is not a bundle cairn can read.
type NotBundleError struct{ Why string }

func (e *NotBundleError) Error() string { return e.Why }

// BadInput marks the error as the user's to fix (exit 2).
func (e *NotBundleError) BadInput() {}

// ReadBundle reads a bundle written by WriteBundle; name names it in errors.
func ReadBundle(text []byte, name string) (*Bundle, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(text, &head); err != nil || head.Format != BundleFormat {
		return nil, &NotBundleError{fmt.Sprintf("%s is not a cairn bundle (make one with 'cairn results bundle ID… -o FILE')", name)}
	}
	if head.Version > BundleVersion {
		return nil, &NotBundleError{fmt.Sprintf("%s is a bundle of version %d; this cairn reads version %d and older: use a newer cairn", name, head.Version, BundleVersion)}
	}
	var b Bundle
	if err := json.Unmarshal(text, &b); err != nil {
		return nil, &NotBundleError{fmt.Sprintf("%s is a damaged cairn bundle: %v", name, err)}
	}
	if len(b.Runs) == 0 {
		return nil, &NotBundleError{fmt.Sprintf("%s is a cairn bundle with no runs in it", name)}
	}
	for i, r := range b.Runs {
		if r.Run == nil || r.Spec == "" {
			return nil, &NotBundleError{fmt.Sprintf("%s: run %d of the bundle has no document or no spec", name, i+1)}
		}
		r.Run.Upgrade()
	}
	return &b, nil
}
