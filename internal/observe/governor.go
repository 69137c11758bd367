package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// GovernorSetting is the name a study gives the host's CPU frequency governor.
const GovernorSetting = "host.cpu_governor"

// governorUndo is the undo journal's kind for the governors cairn changed.
const governorUndo = "cpu-governor"

// NotPossibleError is a host setting this host does not have.
type NotPossibleError struct{ Name, Why string }

func (e *NotPossibleError) Error() string {
	return fmt.Sprintf("%s: not possible on this host: %s", e.Name, e.Why)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *NotPossibleError) BadInput() {}

// Host is the host's own settings as a target.Configurer, for studies: the CPU frequency
// governor, written to every CPU's cpufreq/scaling_governor. Its connections are unused.
type Host struct{}

// DescribeSetting implements target.Configurer for host.cpu_governor.
func (Host) DescribeSetting(_ context.Context, _ target.Conn, name string) (target.Setting, error) {
	if name != GovernorSetting {
		return target.Setting{}, &target.UnknownSettingError{Name: name, Server: "this host", Near: []string{GovernorSetting}}
	}
	dirs := cpuDirs()
	govs := perCPU(dirs, "cpufreq/scaling_governor")
	if len(govs) == 0 {
		why := "it has no cpufreq in /sys (a virtual machine or a container usually has none): the governor is not the host's to set"
		return target.Setting{}, &NotPossibleError{Name: name, Why: why}
	}
	s := target.Setting{Name: name, Type: "enum", Value: summarize(govs)}
	if av := perCPU(dirs[:1], "cpufreq/scaling_available_governors"); len(av) > 0 {
		s.Enum = strings.Fields(av[0])
	}
	// Origin keeps each CPU's own governor: they can differ, and each gets its own back.
	var each []string
	for _, d := range dirs {
		if g := perCPU([]string{d}, "cpufreq/scaling_governor"); len(g) == 1 {
			each = append(each, filepath.Base(d)+"="+g[0])
		}
	}
	s.Origin = strings.Join(each, ",")
	return s, nil
}

// SetSetting implements target.Configurer: every CPU gets the governor; cpu0's is read back.
func (h Host) SetSetting(ctx context.Context, _ target.Conn, s target.Setting, value string) (string, error) {
	var errs []error
	for _, d := range cpuDirs() {
		if err := os.WriteFile(filepath.Join(d, "cpufreq/scaling_governor"), []byte(value), 0o644); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", &target.SettingValueError{Name: s.Name, Value: value, Why: fmt.Sprintf("cannot be written (cairn needs root for it): %v", err)}
	}
	now, err := h.DescribeSetting(ctx, nil, s.Name)
	return now.Value, err
}

// RestoreSetting implements target.Configurer: each CPU gets back its own governor.
func (Host) RestoreSetting(_ context.Context, _ target.Conn, s target.Setting) error {
	return restoreGovernors(s.Origin)
}

func restoreGovernors(origin string) error {
	var errs []error
	for _, kv := range strings.Split(origin, ",") {
		cpu, gov, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		path := filepath.Join(sysRoot, "devices/system/cpu", cpu, "cpufreq/scaling_governor")
		if err := os.WriteFile(path, []byte(gov), 0o644); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RecordGovernor writes the governors as found to the undo journal before they change.
func RecordGovernor(s target.Setting) (*undo.Entry, error) {
	return undo.Record(governorUndo, "CPU governor of this host ("+s.Value+")", "", s.Origin)
}

// PendingGovernor returns the journal's governor changes not yet undone.
func PendingGovernor() ([]*undo.Entry, error) {
	all, err := undo.Pending()
	if err != nil {
		return nil, err
	}
	var out []*undo.Entry
	for _, e := range all {
		if e.Kind == governorUndo {
			out = append(out, e)
		}
	}
	return out, nil
}

func init() {
	undo.Register(governorUndo, func(_ context.Context, e *undo.Entry, _ string) error {
		var origin string
		if err := json.Unmarshal(e.Data, &origin); err != nil {
			return err
		}
		return restoreGovernors(origin)
	})
}
