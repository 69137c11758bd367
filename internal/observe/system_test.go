package observe

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// The host's storage and network are every whole device of /sys/block with a size and every
// interface of /sys/class/net but the loopback, each as its files say, read here apart.
func TestSystemStorageNetwork(t *testing.T) {
	h := ReadHost(false)
	var want []string
	blocks, _ := os.ReadDir("/sys/block")
	for _, b := range blocks {
		s, err := os.ReadFile(filepath.Join("/sys/block", b.Name(), "size"))
		if n, _ := strconv.ParseUint(strings.TrimSpace(string(s)), 10, 64); err == nil && n > 0 {
			want = append(want, b.Name())
		}
	}
	var got []string
	for _, d := range h.Storage {
		got = append(got, d.Name)
		rot, _ := os.ReadFile(filepath.Join("/sys/block", d.Name, "queue/rotational"))
		if d.Rotational != (strings.TrimSpace(string(rot)) == "1") {
			t.Errorf("%s: rotational %v, the kernel says %q", d.Name, d.Rotational, rot)
		}
		sched, _ := os.ReadFile(filepath.Join("/sys/block", d.Name, "queue/scheduler"))
		if !strings.Contains(string(sched), "["+d.Scheduler+"]") && !(d.Scheduler == "none" && strings.TrimSpace(string(sched)) == "none") {
			t.Errorf("%s: scheduler %q, the kernel's list %q", d.Name, d.Scheduler, sched)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("storage %v, /sys/block's devices with a size %v", got, want)
	}
	var nics []string
	ifs, _ := os.ReadDir("/sys/class/net")
	for _, i := range ifs {
		if i.Name() != "lo" {
			nics = append(nics, i.Name())
		}
	}
	got = nil
	for _, n := range h.Network {
		got = append(got, n.Name)
		mtu, _ := os.ReadFile(filepath.Join("/sys/class/net", n.Name, "mtu"))
		if strconv.FormatInt(n.MTU, 10) != strings.TrimSpace(string(mtu)) {
			t.Errorf("%s: MTU %d, the kernel says %q", n.Name, n.MTU, mtu)
		}
	}
	if !slices.Equal(got, nics) {
		t.Errorf("network %v, /sys/class/net's %v", got, nics)
	}
}

// SMBIOS memory devices (type 17) and DMI's platform, in a copy of /sys made here: an empty slot
// is no module, a speed of 0xFFFF is read from the extended field, and Amazon EC2's product name
// is its instance type.
func TestSystemDMI(t *testing.T) {
	root := t.TempDir()
	old := sysRoot
	sysRoot = root
	defer func() { sysRoot = old }()
	module := func(n int, sizeMB, speed, conf uint16, ext uint32) {
		b := make([]byte, 0x5C)
		b[0], b[1] = 17, byte(len(b))
		binary.LittleEndian.PutUint16(b[0x0C:], sizeMB)
		binary.LittleEndian.PutUint16(b[0x15:], speed)
		binary.LittleEndian.PutUint16(b[0x20:], conf)
		binary.LittleEndian.PutUint32(b[0x54:], ext)
		binary.LittleEndian.PutUint32(b[0x58:], ext)
		dir := filepath.Join(root, "firmware/dmi/entries", "17-"+strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "raw"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	module(0, 16384, 3200, 2933, 0)
	module(1, 0, 0, 0, 0) // an empty slot
	module(2, 16384, 0xFFFF, 0xFFFF, 8800)
	id := filepath.Join(root, "class/dmi/id")
	if err := os.MkdirAll(id, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{"sys_vendor": "Amazon EC2", "product_name": "m6i.large", "bios_version": "1.0"} {
		if err := os.WriteFile(filepath.Join(id, f), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := &results.Host{Unknown: map[string]string{}}
	readSystem(h, func(f, why string) string { h.Unknown[f] = why; return "unknown" })
	if m := h.Memory; m == nil || m.Modules != 2 || !slices.Equal(m.SpeedMTs, []int{3200, 8800}) || !slices.Equal(m.ConfiguredMTs, []int{2933, 8800}) {
		t.Errorf("memory %+v (unknown: %v)", h.Memory, h.Unknown["memory_speed"])
	}
	if p := h.Platform; p == nil || p.Cloud != "aws" || p.InstanceType != "m6i.large" || p.Vendor != "Amazon EC2" {
		t.Errorf("platform %+v (unknown: %v)", h.Platform, h.Unknown["platform"])
	}
	if h.Unknown["storage"] == "" || h.Unknown["network"] == "" {
		t.Errorf("a /sys without block devices or interfaces should say so: %v", h.Unknown)
	}
}
