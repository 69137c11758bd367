package observe

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/prometheus/procfs/blockdevice"
	"github.com/prometheus/procfs/sysfs"

	"github.com/cairn-bench/cairn/internal/results"
)

// readSystem adds the system's storage, network, memory speed and platform to h, from sysRoot:
// /sys/block, /sys/class/net, DMI's memory devices (/sys/firmware/dmi/entries/17-*, root only)
// and /sys/class/dmi/id. Nothing here leaves the host: a cloud's instance type is what DMI says,
// never a metadata service's answer.
func readSystem(h *results.Host, unknown func(field, why string) string) {
	if bfs, err := blockdevice.NewFS("/proc", sysRoot); err == nil {
		names, _ := bfs.SysBlockDevices()
		for _, n := range names {
			size, err := bfs.SysBlockDeviceSize(n)
			if err != nil || size == 0 {
				continue
			}
			d := results.HostDisk{Name: n, SizeBytes: size}
			// The queue's files one by one: SysBlockDeviceQueueStats fails whole where one of its
			// many files is missing (a virtio disk's).
			if r, err := bfs.SysBlockDeviceRotational(n); err == nil {
				d.Rotational = r == 1
			}
			if v, err := readSys(filepath.Join("block", n, "queue/scheduler")); err == nil {
				d.Scheduler = bracketed(v)
			}
			for _, f := range []string{"device/model", "device/vendor"} {
				// A virtio disk's vendor is its PCI id ("0x1af4"), no name.
				if v, err := readSys(filepath.Join("block", n, f)); err == nil && v != "" && !strings.HasPrefix(v, "0x") {
					d.Model = v
					break
				}
			}
			h.Storage = append(h.Storage, d)
		}
	}
	if len(h.Storage) == 0 {
		unknown("storage", "no block device with a size in /sys/block")
	}

	if sfs, err := sysfs.NewFS(sysRoot); err == nil {
		if nc, err := sfs.NetClass(); err == nil {
			for name, i := range nc {
				if name == "lo" {
					continue
				}
				n := results.HostNIC{Name: name, State: i.OperState}
				if i.MTU != nil {
					n.MTU = *i.MTU
				}
				if i.Speed != nil && *i.Speed > 0 {
					n.SpeedMbps = *i.Speed
				}
				if l, err := os.Readlink(filepath.Join(sysRoot, "class/net", name, "device/driver")); err == nil {
					n.Driver = filepath.Base(l)
				}
				h.Network = append(h.Network, n)
			}
			sort.Slice(h.Network, func(a, b int) bool { return h.Network[a].Name < h.Network[b].Name })
		}
		if dmi, err := sfs.DMIClass(); err == nil {
			p := &results.Platform{Vendor: str(dmi.SystemVendor), Product: str(dmi.ProductName)}
			p.Cloud, p.InstanceType = cloudOf(p.Vendor, p.Product, str(dmi.BiosVersion), str(dmi.ChassisAssetTag))
			if p.Vendor != "" || p.Product != "" {
				h.Platform = p
			}
		}
	}
	if len(h.Network) == 0 {
		unknown("network", "no interface but the loopback in /sys/class/net")
	}
	if h.Platform == nil {
		unknown("platform", "no DMI in /sys/class/dmi/id (a virtual machine without firmware tables, or not x86/arm64 with SMBIOS)")
	}
	if m, why := memoryModules(); m != nil {
		h.Memory = m
	} else {
		unknown("memory_speed", why)
	}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// cloudOf names the cloud a DMI vendor and product say the machine is on, and the instance type
// where DMI holds it: Amazon EC2 writes it as the product name ("m6i.large"); Google and Azure
// write none there ("Google Compute Engine", "Virtual Machine").
func cloudOf(vendor, product, bios, assetTag string) (cloud, instance string) {
	switch {
	case vendor == "Amazon EC2" || strings.HasPrefix(bios, "amazon"):
		if product != "" && strings.Contains(product, ".") {
			instance = product
		}
		return "aws", instance
	case vendor == "Google" || product == "Google Compute Engine":
		return "gcp", ""
	case vendor == "Microsoft Corporation" && assetTag == "7783-7084-3265-9085-8269-3286-77":
		return "azure", ""
	case vendor == "Alibaba Cloud":
		return "alibaba", ""
	case vendor == "OpenStack Foundation" || product == "OpenStack Nova":
		return "openstack", ""
	}
	return "", ""
}

// memoryModules reads SMBIOS memory devices (type 17), one structure per
// /sys/firmware/dmi/entries/17-N/raw (the kernel splits the table): a module's size at offset
// 0x0C (0: an empty slot), its rated speed at 0x15 and configured speed at 0x20 (SMBIOS 2.3 and
// 2.7), in MT/s, 0xFFFF meaning the extended fields at 0x54 and 0x58 (SMBIOS 3.3).
func memoryModules() (*results.HostDIMMs, string) {
	dirs, _ := filepath.Glob(filepath.Join(sysRoot, "firmware/dmi/entries/17-*"))
	if len(dirs) == 0 {
		return nil, "no SMBIOS memory devices in /sys/firmware/dmi/entries (no DMI on this host)"
	}
	m := &results.HostDIMMs{Source: "SMBIOS type 17"}
	denied := false
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "raw"))
		if err != nil {
			denied = denied || os.IsPermission(err)
			continue
		}
		if len(b) < 0x17 || b[0] != 17 {
			continue
		}
		if size := binary.LittleEndian.Uint16(b[0x0C:]); size == 0 {
			continue // an empty slot
		}
		m.Modules++
		word := func(off, ext int) int {
			if len(b) < off+2 {
				return 0
			}
			v := int(binary.LittleEndian.Uint16(b[off:]))
			if v == 0xFFFF && len(b) >= ext+4 {
				v = int(binary.LittleEndian.Uint32(b[ext:]))
			}
			return v
		}
		if v := word(0x15, 0x54); v > 0 && !slices.Contains(m.SpeedMTs, v) {
			m.SpeedMTs = append(m.SpeedMTs, v)
		}
		if v := word(0x20, 0x58); v > 0 && !slices.Contains(m.ConfiguredMTs, v) {
			m.ConfiguredMTs = append(m.ConfiguredMTs, v)
		}
	}
	if m.Modules == 0 {
		if denied {
			return nil, "SMBIOS memory devices are readable by root only"
		}
		return nil, "SMBIOS lists no memory module with a size"
	}
	sort.Ints(m.SpeedMTs)
	sort.Ints(m.ConfiguredMTs)
	return m, ""
}
