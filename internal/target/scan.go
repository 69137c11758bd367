package target

import "fmt"

// IntScanner is a database/sql Scanner into a nullable integer, for the drivers without Cells and
// as MySQL's NullIntDest: *V, and *Valid false for NULL. A decimal (MySQL's SUM of integers) gives
// its integer part, read without allocating.
type IntScanner struct {
	V     *int64
	Valid *bool
}

// Scan implements sql.Scanner.
func (n *IntScanner) Scan(src any) error {
	*n.V, *n.Valid = 0, src != nil
	switch s := src.(type) {
	case int64:
		*n.V = s
	case float64:
		*n.V = int64(s)
	case []byte:
		*n.V = parseDecimal(s)
	case string:
		*n.V = parseDecimal([]byte(s))
	case nil:
	default:
		return fmt.Errorf("cannot scan %T into an integer", src)
	}
	return nil
}

// parseDecimal reads the integer part of a decimal.
func parseDecimal(b []byte) int64 {
	var v int64
	neg := len(b) > 0 && b[0] == '-'
	for _, c := range b {
		if c == '.' {
			break
		}
		if c >= '0' && c <= '9' {
			v = v*10 + int64(c-'0')
		}
	}
	if neg {
		return -v
	}
	return v
}
