package report

// ECharts is the chart library the report inlines, for other pages of cairn's (the web UI of
// cairn serve) that draw the same charts: one copy of it in the binary.
func ECharts() string { return echartsJS }

// Palette is the series colours of the report's charts, in order, so other pages draw a series
// in the colour the report gives it.
func Palette() []string { return append([]string(nil), palette...) }
