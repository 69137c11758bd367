package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"
)

// Condition is one condition a run was measured under, by name, as text, for people: what the
// report lists among a run's conditions. 'results compare' diffs Document.Conditions, which holds
// these facts too.
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
	for _, c := range filesystems(d) {
		add(c.Name, c.Value)
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

// filesystems are the filesystem under each of the server's directories, by role ("data
// filesystem"), as extra.observations.disk-io recorded them.
func filesystems(d *Document) []Condition {
	io := DiskIOOf(d)
	if io == nil {
		return nil
	}
	var out []Condition
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
		out = append(out, Condition{p.Role + " filesystem", v})
	}
	return out
}

// Conditions are what a run was measured under, flattened to dotted keys and their values: the
// cairn that measured (cairn.*), the database and every setting read (target.*), the host's facts
// (host.*), the data as its prepare recorded it (data.*) and the run spec (config.*). What the
// run measured is not among them (the host's PAUSE latency, a workload's own figures under
// extra), only what was there before it.
func (d *Document) Conditions() map[string]string {
	out := map[string]string{}
	for _, part := range []struct {
		key string
		v   any
	}{{"cairn", d.Cairn}, {"target", d.Target}, {"host", d.Host}, {"data", d.Data}, {"config", d.Config}} {
		b, err := json.Marshal(part.v)
		if err != nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // a seed is a 63-bit integer
		var v any
		if dec.Decode(&v) == nil {
			flatten(out, part.key, v)
		}
	}
	// The filesystems under the server's directories, found by the disk I/O observer before the
	// run, are conditions too.
	for _, c := range filesystems(d) {
		if _, ok := out[c.Name]; !ok {
			out[c.Name] = c.Value
		}
	}
	// The host's PAUSE latency and its calibration are measured at the run's start, not facts of
	// the host (DiffConditions sets calibrations side by side by their own rule); its
	// findings are advice drawn from the facts listed (and from that PAUSE latency). Where the
	// data's record says what data was measured (data.*), the spec's prepare says only what a
	// prepare would have made of a database with none: a run that prepared and one that found the
	// data there measured the same.
	for k := range out {
		if strings.HasPrefix(k, "host.pause.") || strings.HasPrefix(k, "host.findings.") || strings.HasPrefix(k, "host.calibration.") ||
			d.Data != nil && strings.HasPrefix(k, "config.prepare.") {
			delete(out, k)
		}
	}
	return out
}

func flatten(out map[string]string, key string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flatten(out, key+"."+k, x)
		}
	case []any:
		for i, x := range v {
			flatten(out, fmt.Sprintf("%s.%d", key, i), x)
		}
	case nil:
	default:
		out[key] = fmt.Sprint(v)
	}
}

// ConditionDiff is one condition that differs between two runs; a side that lacks it is "".
type ConditionDiff struct{ Key, A, B string }

// DiffConditions lists the conditions of b that differ from a's, by key.
func DiffConditions(a, b *Document) []ConditionDiff {
	ca, cb := a.Conditions(), b.Conditions()
	var out []ConditionDiff
	for k, v := range ca {
		if cb[k] != v {
			out = append(out, ConditionDiff{k, v, cb[k]})
		}
	}
	for k, v := range cb {
		if _, ok := ca[k]; !ok {
			out = append(out, ConditionDiff{k, "", v})
		}
	}
	out = append(out, diffCalibration(a.Host, b.Host)...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// CalibrationBound is how far two calibrations of one host may be apart and still be taken
// for the same speed (docs/host.md#calibration): their measured repeatability.
const CalibrationBound = 0.05

// diffCalibration sets two runs' host calibrations side by side: always when the runs ran on
// two hosts (their names or CPUs differ), so that their results are read with their speeds;
// on one host, where they differ: one has one and the other none, their kernels differ, or a
// figure differs by more than CalibrationBound (a smaller difference is the calibration's own
// noise).
func diffCalibration(a, b *Host) []ConditionDiff {
	var ca, cb *Calibration
	if a != nil {
		ca = a.Calibration
	}
	if b != nil {
		cb = b.Calibration
	}
	if ca == nil && cb == nil {
		return nil
	}
	twoHosts := a == nil || b == nil || a.Hostname != b.Hostname || a.CPUModel != b.CPUModel
	text := func(c *Calibration, v float64) string {
		switch {
		case c == nil:
			return ""
		case c.NA != "":
			return "n/a"
		}
		return fmt.Sprintf("%s units/CPU-s (%s)", humanize.Commaf(v), c.Kernel)
	}
	var out []ConditionDiff
	for _, f := range []struct {
		key string
		of  func(*Calibration) float64
	}{
		{"host.calibration.single_core", func(c *Calibration) float64 { return c.SingleCore }},
		{"host.calibration.all_core", func(c *Calibration) float64 { return c.AllCore }},
	} {
		var va, vb float64
		if ca != nil {
			va = f.of(ca)
		}
		if cb != nil {
			vb = f.of(cb)
		}
		same := !twoHosts && ca != nil && cb != nil && ca.Kernel == cb.Kernel && ca.NA == "" && cb.NA == "" &&
			va > 0 && vb > 0 && abs(vb-va) <= CalibrationBound*va
		if !same {
			d := ConditionDiff{f.key, text(ca, va), text(cb, vb)}
			if va > 0 && vb > 0 && ca.Kernel == cb.Kernel {
				d.B += fmt.Sprintf(", %+.1f%%", 100*(vb-va)/va)
			}
			out = append(out, d)
		}
	}
	return out
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
