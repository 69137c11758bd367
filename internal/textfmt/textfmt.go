// Package textfmt holds the small wording helpers every layer that writes for people shares:
// counted words and milliseconds. It sits on the bottom floor and imports nothing of cairn's, so
// that no layer keeps its own copy.
package textfmt

import "fmt"

// Plural counts a word for messages: "1 warehouse", "4 warehouses".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// PluralWord picks the word for a count: one for 1, many otherwise.
func PluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Ms writes milliseconds with about four significant digits; "-" for none.
func Ms(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	case v < 1000:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
