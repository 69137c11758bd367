package results

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
)

// Condition is one condition a run was measured under, by name, as text: what 'results compare'
// lists where runs differ (docs/results-store.md).
type Condition struct {
	Name, Value string
}

// Conditions are a run's conditions: the filesystem under each of the server's directories
// (extra.observations.disk-io), and the system described in its host facts (kernel, CPU,
// memory, storage, network, platform). A condition a run did not record is absent.
func Conditions(d *Document) []Condition {
	var out []Condition
	add := func(name, value string) {
		if value != "" {
			out = append(out, Condition{name, value})
		}
	}
	if io := DiskIOOf(d); io != nil {
		for _, p := range io.Paths {
			v := p.FSType
			if v == "" {
				v = "unknown filesystem"
			}
			if p.Device != "" {
				v += " on " + p.Device
			} else {
				v += " (no block device)"
			}
			if p.Mount != "" {
				v += " at " + p.Mount
			}
			if p.Options != "" {
				v += " (" + p.Options + ")"
			}
			add(p.Role+" filesystem", v)
		}
	}
	h := d.Host
	if h == nil {
		return out
	}
	add("kernel", h.Kernel)
	add("CPU", fmt.Sprintf("%s, %d threads", h.CPUModel, h.Threads))
	if h.MemoryMiB > 0 {
		add("memory", humanize.Comma(h.MemoryMiB)+" MiB")
	}
	for _, s := range h.Storage {
		kind := "non-rotational"
		if s.Rotational {
			kind = "rotational"
		}
		add("storage "+s.Name, strings.TrimSpace(fmt.Sprintf("%s %s %s scheduler %s", s.Model, humanize.IBytes(s.SizeBytes), kind, s.Scheduler)))
	}
	for _, n := range h.Network {
		add("network "+n.Name, fmt.Sprintf("driver %s, %d Mb/s, MTU %d", n.Driver, n.SpeedMbps, n.MTU))
	}
	if m := h.Memory; m != nil {
		add("memory modules", fmt.Sprintf("%d at %v MT/s, configured %v", m.Modules, m.SpeedMTs, m.ConfiguredMTs))
	}
	if p := h.Platform; p != nil {
		add("platform", strings.TrimSpace(strings.Join([]string{p.Vendor, p.Product, p.Cloud, p.InstanceType}, " ")))
	}
	return out
}

// ConditionsDiffer are the conditions that every run recorded and whose value differs between
// them, by name in the order they first appear, with each run's value. A condition some run did
// not record (one stored before cairn recorded it, a role another server has not) is left out:
// its absence says nothing of the conditions.
func ConditionsDiffer(runs []*Document) (names []string, values [][]string) {
	per := make([]map[string]string, len(runs))
	for i, d := range runs {
		per[i] = map[string]string{}
		for _, c := range Conditions(d) {
			if _, ok := per[i][c.Name]; !ok {
				per[i][c.Name] = c.Value
				if !contains(names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	var keep []string
	for _, n := range names {
		row := make([]string, len(runs))
		differ, all := false, true
		for i := range runs {
			v, ok := per[i][n]
			row[i], all = v, all && ok
			differ = differ || v != row[0]
		}
		if differ && all {
			keep = append(keep, n)
			values = append(values, row)
		}
	}
	return keep, values
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
