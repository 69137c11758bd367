package mysql

import "testing"

// A MariaDB replica's applied transactions are the sum of its GTID position's sequence numbers,
// over every domain.
func TestSeqSum(t *testing.T) {
	for pos, want := range map[string]int64{"": 0, "0-1-120": 120, "0-1-120,1-2-7": 127, " 0-1-5, 3-9-10 ": 15} {
		if got, err := seqSum(pos); err != nil || got != want {
			t.Errorf("seqSum(%q) = %d, %v; want %d", pos, got, err, want)
		}
	}
	for _, bad := range []string{"x", "0-1-", "0-1-a"} {
		if _, err := seqSum(bad); err == nil {
			t.Errorf("seqSum(%q) took it", bad)
		}
	}
}
