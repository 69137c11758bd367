package dbgen

// dbgen numbers days from 92001 (1992-01-01, in its yyddd form) and declares 1995-06-17 "today":
// what shipped or was received by then is in the past.
const (
	minGenDate  = 92001
	currentDate = 95168
	totalDates  = 2557 // 1992-01-01 … 1998-12-31
)

var monthStart = [13]int32{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}

var (
	dateText   [totalDates][10]byte // "YYYY-MM-DD" per day index
	julianDate [totalDates]int32    // yyddd per day index
)

func init() {
	for i := int32(0); i < totalDates; i++ {
		julianDate[i] = julian(i + minGenDate)
		y, m, d := toYMD(i + 1)
		t := &dateText[i]
		put := func(at int, v int32, n int) {
			for k := n - 1; k >= 0; k-- {
				t[at+k] = byte('0' + v%10)
				v /= 10
			}
		}
		put(0, 1900+y, 4)
		t[4] = '-'
		put(5, m, 2)
		t[7] = '-'
		put(8, d, 2)
	}
}

func isLeap(y int32) bool { return y%4 == 0 && y%100 != 0 }

// julian turns a day number into dbgen's yyddd form.
func julian(date int32) int32 {
	offset := date - minGenDate
	result := int32(minGenDate)
	for {
		year := result / 1000
		end := year*1000 + 365
		if isLeap(year) {
			end++
		}
		if result+offset <= end {
			return result + offset
		}
		offset -= end - result + 1
		result += 1000
	}
}

func toYMD(index int32) (y, m, d int32) {
	j := julian(index + minGenDate - 1)
	y, dd := j/1000, j%1000
	leapAdj := func(m int32) int32 {
		if isLeap(y) && m >= 2 {
			return 1
		}
		return 0
	}
	for dd > monthStart[m]+leapAdj(m) {
		m++
	}
	d = dd - monthStart[m-1]
	if isLeap(y) && m > 2 {
		d--
	}
	return y, m, d
}

func inPast(date int32) bool { return julianDate[date-minGenDate] <= currentDate }

func appendDate(b []byte, date int32) []byte { return append(b, dateText[date-minGenDate][:]...) }
