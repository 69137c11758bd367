package target_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestSettingsCatalog: every setting the catalog says this server's version has, it describes,
// and every one the catalog says it lacks, it refuses with the error that names the server, its
// version and who has it ("MariaDB 10.11 has no setting …: MySQL 8.0.16 or later has it"). CI
// runs it on each server of its version matrix, which is how the catalog's versions are checked.
func TestSettingsCatalog(t *testing.T) {
	for _, tg := range testutil.Servers() {
		t.Run(tg.Name, func(t *testing.T) {
			db, c := testutil.Open(t, tg.URL(t))
			ctx := context.Background()
			cf, ok := db.(target.Configurer)
			if !ok {
				t.Skipf("%s cannot change settings", db.Name())
			}
			v, err := db.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var checked int
			for name, hs := range target.CatalogSettings() {
				ours := false
				for _, h := range hs {
					ours = ours || h.Server == db.Name()
				}
				servers := map[string]bool{}
				for _, h := range hs {
					servers[h.Server] = true
				}
				if !ours && !(db.Name() == "MySQL" && servers["MariaDB"] || db.Name() == "MariaDB" && servers["MySQL"]) {
					continue // a PostgreSQL setting on MySQL, say: nothing to learn
				}
				checked++
				want, _ := target.CatalogHas(name, db.Name(), v)
				_, err := cf.DescribeSetting(ctx, c, name)
				var ue *target.UnknownSettingError
				switch {
				case want && err != nil:
					t.Errorf("%s %s: the catalog says it has %s, but: %v", db.Name(), v, name, err)
				case !want && err == nil:
					t.Errorf("%s %s: the catalog says it lacks %s, but it describes it", db.Name(), v, name)
				case !want && !errors.As(err, &ue):
					t.Errorf("%s %s: %s: %v, want an unknown setting", db.Name(), v, name, err)
				case !want:
					msg := err.Error()
					if !strings.HasPrefix(msg, db.Name()+" "+target.MajorMinor(db.Name(), v)+" has no setting \""+name+"\": ") || !strings.HasSuffix(msg, " has it") && !strings.HasSuffix(msg, " have it") {
						t.Errorf("unknown %s: %q", name, msg)
					}
				}
			}
			t.Logf("%s %s: %d catalog settings checked", db.Name(), v, checked)
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		have, want string
		ok         bool
	}{
		{"8.0.31", "8.0.16", true}, {"8.0.15", "8.0.16", false}, {"10.11.6-MariaDB-0+deb12u1", "10.6", true},
		{"10.5.9-MariaDB", "10.6", false}, {"17.5 (Debian 17.5-1)", "17", true}, {"12.22", "13", false}, {"8.4.0", "8.0.30", true},
	} {
		if got := target.VersionAtLeast(c.have, c.want); got != c.ok {
			t.Errorf("VersionAtLeast(%q, %q) = %v", c.have, c.want, got)
		}
	}
	if got := target.MajorMinor("MariaDB", "10.11.6-MariaDB-0+deb12u1"); got != "10.11" {
		t.Errorf("MajorMinor = %q", got)
	}
	if got := target.MajorMinor("PostgreSQL", "17.5 (Debian)"); got != "17" {
		t.Errorf("MajorMinor = %q", got)
	}
}
