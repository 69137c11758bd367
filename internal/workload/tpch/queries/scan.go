package queries

import (
	"database/sql/driver"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// ScanStrings reads all rows and returns every value as text, the same way for every driver:
// NULL as "NULL", numbers in plain decimal notation (pgx's numeric, MySQL's DECIMAL bytes,
// SQLite's float64 and int64), dates as YYYY-MM-DD (a time.Time with a clock part keeps it). It
// closes rows. ncols is the number of columns; 0 asks the rows.
func ScanStrings(rows target.Rows, ncols int) ([][]string, error) {
	defer rows.Close()
	if ncols <= 0 {
		ncols = rows.NumColumns()
	}
	vals := make([]any, ncols)
	ptrs := make([]any, ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		for i := range vals {
			vals[i] = nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return out, err
		}
		row := make([]string, ncols)
		for i, v := range vals {
			s, err := Format(v)
			if err != nil {
				return out, fmt.Errorf("column %d: %w", i+1, err)
			}
			row[i] = s
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// Format turns one scanned value into text (see ScanStrings).
func Format(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int16:
		return strconv.FormatInt(int64(x), 10), nil
	case int8:
		return strconv.FormatInt(int64(x), 10), nil
	case int:
		return strconv.Itoa(x), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case uint32:
		return strconv.FormatUint(uint64(x), 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), nil
	case bool:
		return strconv.FormatBool(x), nil
	case time.Time:
		if h, m, s := x.Clock(); h == 0 && m == 0 && s == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02"), nil
		}
		return x.Format("2006-01-02 15:04:05"), nil
	case *big.Rat:
		return x.FloatString(10), nil
	case driver.Valuer: // pgtype.Numeric and other pgx types
		dv, err := x.Value()
		if err != nil {
			return "", err
		}
		if _, again := dv.(driver.Valuer); again {
			return fmt.Sprint(dv), nil
		}
		return Format(dv)
	case fmt.Stringer:
		return x.String(), nil
	}
	return fmt.Sprint(v), nil
}
