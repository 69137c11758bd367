package textfmt

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 warehouses", 1: "1 warehouse", 4: "4 warehouses"} {
		if got := Plural(n, "warehouse"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	if PluralWord(1, "index", "indexes") != "index" || PluralWord(2, "index", "indexes") != "indexes" {
		t.Error("PluralWord picks the wrong word")
	}
}

func TestMs(t *testing.T) {
	for v, want := range map[float64]string{0: "-", 1.23456: "1.235", 12.3456: "12.35", 123.456: "123.5", 1234.5: "1234"} {
		if got := Ms(v); got != want {
			t.Errorf("Ms(%g) = %q, want %q", v, got, want)
		}
	}
}
