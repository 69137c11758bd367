package textfmt

import (
	"reflect"
	"testing"
)

func TestCPUList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0-1,8,10-11": {0, 1, 8, 10, 11}, " 3,1,1-2 ": {1, 2, 3}} {
		got, err := ParseCPUList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
		if back := FormatCPUList(got); !reflect.DeepEqual(mustList(t, back), want) {
			t.Errorf("%q formats as %q", in, back)
		}
	}
	if got := FormatCPUList([]int{8, 0, 1, 2, 3, 10}); got != "0-3,8,10" {
		t.Errorf("format: %q", got)
	}
	for _, bad := range []string{"", "a", "1-", "-1", "3-1", "0,,1", "0-99999999"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func mustList(t *testing.T, s string) []int {
	t.Helper()
	l, err := ParseCPUList(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
