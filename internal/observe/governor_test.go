package observe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/undo"
)

// The governor as a study setting, on a laid-out sysfs: described, set on every CPU, each CPU's
// own put back, and restorable from the journal after a crash.
func TestGovernorSetting(t *testing.T) {
	t.Setenv("CAIRN_STATE", t.TempDir())
	writeSys(t, map[string]string{
		"devices/system/cpu/cpu0/cpufreq/scaling_governor":            "performance",
		"devices/system/cpu/cpu0/cpufreq/scaling_available_governors": "performance powersave",
		"devices/system/cpu/cpu1/cpufreq/scaling_governor":            "powersave",
	})
	ctx := context.Background()
	s, err := Host{}.DescribeSetting(ctx, nil, GovernorSetting)
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != "enum" || strings.Join(s.Enum, " ") != "performance powersave" || s.Origin != "cpu0=performance,cpu1=powersave" {
		t.Fatalf("described as %+v", s)
	}
	gov := func(cpu string) string {
		b, _ := os.ReadFile(filepath.Join(sysRoot, "devices/system/cpu", cpu, "cpufreq/scaling_governor"))
		return strings.TrimSpace(string(b))
	}
	e, err := RecordGovernor(s)
	if err != nil {
		t.Fatal(err)
	}
	if rb, err := (Host{}).SetSetting(ctx, nil, s, "powersave"); err != nil || rb != "powersave" || gov("cpu0") != "powersave" || gov("cpu1") != "powersave" {
		t.Fatalf("set: %q %v, cpu0 %s cpu1 %s", rb, err, gov("cpu0"), gov("cpu1"))
	}
	// A crash: the journal puts each CPU's own back.
	pending, _ := PendingGovernor()
	if len(pending) != 1 || pending[0].ID != e.ID {
		t.Fatalf("pending %v", pending)
	}
	if err := pending[0].Undo(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if gov("cpu0") != "performance" || gov("cpu1") != "powersave" {
		t.Errorf("after the journal's restore: cpu0 %s cpu1 %s", gov("cpu0"), gov("cpu1"))
	}
	if left, _ := undo.Pending(); len(left) != 0 {
		t.Errorf("%d entries left", len(left))
	}

	writeSys(t, map[string]string{"devices/system/cpu/cpu0/topology/core_id": "0"})
	var np *NotPossibleError
	if _, err := (Host{}).DescribeSetting(ctx, nil, GovernorSetting); !errors.As(err, &np) || !strings.Contains(err.Error(), "not possible on this host") {
		t.Errorf("without cpufreq: %v", err)
	}
}
