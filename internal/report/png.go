package report

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cairn-bench/cairn/internal/outfile"
)

// PNG size in pixels, and the resolution that maps gonum's points to them.
const (
	PNGWidth  = 1200
	PNGHeight = 700
	pngDPI    = 96
)

// sans is Liberation Sans, which gonum embeds: no font is read from the system.
const sans font.Variant = "Sans"

// maxLegendName is the longest line of a legend entry: longer names are broken over lines, so one
// long name does not squeeze the plot area.
const maxLegendName = 44

// PNG writes one PNG per chart into dir, which it creates, and returns the paths in chart order.
// Files are named after the chart IDs, so a second report into the same directory replaces them.
func PNG(dir string, items []Item) ([]string, error) {
	if err := check(items); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	var paths []string
	for _, c := range Charts(items) {
		path := filepath.Join(dir, c.ID+".png")
		if err := writePNG(path, c); err != nil {
			return paths, fmt.Errorf("chart %s: %w", c.ID, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func writePNG(path string, c Chart) error {
	img, err := drawPNG(c)
	if err != nil {
		return err
	}
	return outfile.Write(path, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
}

// drawPNG renders a chart: the plot on the left, its legend in a column on the right, where it
// cannot cover a line (gonum draws legends inside the plot area).
func drawPNG(c Chart) (*vgimg.Canvas, error) {
	if c.Heat != nil {
		return drawHeat(c)
	}
	if c.Flame != nil {
		return drawFlame(c)
	}
	p := plot.New()
	p.Title.Text = c.Title
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(12), vg.Points(12)
	p.Y.Tick.Marker = numberTicks{}
	// gonum defaults to a serif face; the page uses the system's sans-serif, and so does the image.
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
		f.Variant = sans
	}
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(10.5), vg.Points(10.5)
	p.Add(plotter.NewGrid())

	if c.Area {
		c.Series = stackedAreas(c.Series)
	}
	ymax := 0.0
	if c.Stacked {
		sums := map[float64]float64{}
		for _, s := range c.Series {
			for _, pt := range s.Points {
				sums[pt[0]] += pt[1]
				ymax = math.Max(ymax, sums[pt[0]])
			}
		}
	}
	for _, s := range c.Series {
		for i, pt := range s.Points {
			ymax = math.Max(ymax, pt[1])
			if s.Range != nil {
				ymax = math.Max(ymax, s.Range[i][1])
			}
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	// Headroom for the labels of marks and bands above the highest point, and for the rows the
	// labels of marks stand in.
	rows, lift := markRows(c), 0
	for _, r := range rows {
		for _, x := range r {
			lift = max(lift, x)
		}
	}
	ymax *= 1.12 + 0.035*float64(lift)

	for _, b := range c.Bands {
		if err := addBand(p, b, ymax); err != nil {
			return nil, err
		}
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(11)
	legend.TextStyle.Font.Variant = sans
	legend.Padding = vg.Points(3)
	if len(c.Categories) > 0 {
		if err := addBars(p, &legend, c); err != nil {
			return nil, err
		}
	}
	// Stacked areas are drawn top first, each filled down to the axis, so that each one below
	// covers all but its own band of the one above.
	order := make([]int, len(c.Series))
	for i := range order {
		order[i] = i
	}
	if c.Area {
		slices.Reverse(order)
	}
	for _, i := range order {
		s := c.Series[i]
		if len(c.Categories) > 0 {
			break
		}
		col := hexColor(palette[i%len(palette)])
		xys := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xys[j] = plotter.XY{X: pt[0], Y: pt[1]}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		line.Color, line.Width = col, vg.Points(1.8)
		if c.Area {
			line.FillColor = col
		}
		p.Add(line)
		if c.XAxis != AxisPercentile && len(s.Points) <= 60 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
			p.Add(sc)
		}
		if len(s.Range) == len(s.Points) && len(s.Range) > 0 {
			eb, err := plotter.NewYErrorBars(errorBars{xys, s.Range})
			if err != nil {
				return nil, fmt.Errorf("series %q: %w", s.Name, err)
			}
			eb.Color, eb.Width = col, vg.Points(1.2)
			p.Add(eb)
		}
		if err := addMarks(p, s.Marks, col, rows[i]); err != nil {
			return nil, err
		}
		legend.Add(legendName(s.Name), line)
	}

	for _, m := range c.Lines {
		l, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: 0}, {X: m.X, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = color.Black, vg.Points(1.2), []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		if m.Label != "" {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.X, Y: ymax * 0.95}}, Labels: []string{" " + m.Label}})
			if err != nil {
				return nil, err
			}
			for j := range lb.TextStyle {
				lb.TextStyle[j].Font.Variant, lb.TextStyle[j].Font.Size = sans, vg.Points(10.5)
			}
			p.Add(lb)
		}
	}

	switch {
	case len(c.Categories) > 0:
		ticks := make([]Tick, len(c.Categories))
		for i, n := range c.Categories {
			ticks[i] = Tick{Value: float64(i), Label: n}
		}
		p.X.Tick.Marker = fixedTicks(ticks)
		p.X.Min, p.X.Max = -0.6, float64(len(c.Categories))-0.4
	case c.XAxis == AxisPercentile:
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = fixedTicks(c.Ticks)
		p.X.Min, p.X.Max = c.XMin, c.XMax
	default:
		p.X.Tick.Marker = numberTicks{}
		if c.Ticks != nil {
			p.X.Tick.Marker = fixedTicks(c.Ticks)
		}
		p.X.Min = math.Min(p.X.Min, 0)
	}
	// Throughput and latency start at zero: an axis starting elsewhere exaggerates differences.
	p.Y.Min, p.Y.Max = 0, ymax

	w := vg.Length(PNGWidth) * vg.Inch / pngDPI
	h := vg.Length(PNGHeight) * vg.Inch / pngDPI
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
	dc := draw.New(img)
	gap := vg.Points(10)
	lr := legend.Rectangle(dc)
	lw := lr.Max.X - lr.Min.X
	p.Draw(draw.Crop(dc, 0, -(lw + 2*gap), 0, 0))
	// Start the legend below the title, level with the top of the plot area.
	top := p.Title.TextStyle.Rectangle(p.Title.Text).Max.Y + p.Title.Padding + gap
	legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-lw-gap, -gap, 0, -top))
	return img, nil
}

// addBars draws a chart of categories as grouped bars: category i at x = i, the series side by
// side within it.
func addBars(p *plot.Plot, legend *plot.Legend, c Chart) error {
	n := len(c.Series)
	if c.Stacked {
		n = 1 // one bar a category, the series on top of each other
	}
	width := vg.Points(math.Max(2, math.Min(14, 520/float64(n*len(c.Categories)))))
	if c.Stacked {
		width = vg.Points(math.Max(8, math.Min(60, 520/float64(len(c.Categories)))))
	}
	var below *plotter.BarChart
	for i, s := range c.Series {
		vals := make(plotter.Values, len(c.Categories))
		for _, pt := range s.Points {
			if j := int(pt[0]); j >= 0 && j < len(vals) {
				vals[j] = pt[1]
			}
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		bc.Color = hexColor(palette[i%len(palette)])
		bc.LineStyle.Width = 0
		if c.Stacked {
			if below != nil {
				bc.StackOn(below)
			}
			below = bc
		} else {
			bc.Offset = vg.Length(float64(i)-float64(n-1)/2) * width
		}
		p.Add(bc)
		legend.Add(legendName(s.Name), bc)
	}
	return nil
}

// legendName breaks a long series name over lines rather than cutting it: the legend column
// stays narrow and every name stays whole.
func legendName(name string) string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(name) {
		if cur != "" && len([]rune(cur))+1+len([]rune(w)) > maxLegendName {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return strings.Join(append(lines, cur), "\n")
}

func addBand(p *plot.Plot, b Band, ymax float64) error {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: b.From, Y: 0}, {X: b.To, Y: 0}, {X: b.To, Y: ymax}, {X: b.From, Y: ymax}})
	if err != nil {
		return err
	}
	poly.Color = color.NRGBA{R: 110, G: 120, B: 130, A: 36}
	poly.LineStyle.Width = 0
	p.Add(poly)
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: (b.From + b.To) / 2, Y: ymax}}, Labels: []string{b.Label}})
	if err != nil {
		return err
	}
	l.TextStyle[0].XAlign, l.TextStyle[0].YAlign = text.XCenter, text.YTop
	l.TextStyle[0].Color = color.NRGBA{R: 68, G: 80, B: 92, A: 255}
	l.TextStyle[0].Font.Variant = sans
	l.Offset = vg.Point{Y: -vg.Points(4)}
	p.Add(l)
	return nil
}

// addMarks draws annotated points as rings with their label above, each label lifted by its row
// (markRows).
func addMarks(p *plot.Plot, ms []Mark, col color.Color, rows []int) error {
	if len(ms) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(ms))
	for i, m := range ms {
		xys[i] = plotter.XY{X: m.X, Y: m.Y}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = col, draw.RingGlyph{}, vg.Points(6)
	p.Add(sc)
	byRow := map[int]*plotter.XYLabels{}
	var order []int
	for i, m := range ms {
		if m.Label == "" {
			continue
		}
		r := byRow[rows[i]]
		if r == nil {
			r = &plotter.XYLabels{}
			byRow[rows[i]] = r
			order = append(order, rows[i])
		}
		r.XYs = append(r.XYs, xys[i])
		r.Labels = append(r.Labels, m.Label)
	}
	for _, row := range order {
		l, err := plotter.NewLabels(*byRow[row])
		if err != nil {
			return err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = text.XCenter, text.YBottom
			l.TextStyle[i].Font.Size = vg.Points(11)
			l.TextStyle[i].Font.Weight = xfont.WeightBold
			l.TextStyle[i].Font.Variant = sans
		}
		l.Offset = vg.Point{Y: vg.Points(8 + markRowHeight*float64(row))}
		p.Add(l)
	}
	return nil
}

// markRowHeight is how far, in points, each row of mark labels stands above the one below.
const markRowHeight = 17

// markRows lifts the labels of a chart's marks into rows, as the page does, so that labels whose
// text would overlap stand one above the other: rows[series][mark]. The plot's width is taken as
// the image's less the legend's column, about a quarter of it.
func markRows(c Chart) [][]int {
	rows := make([][]int, len(c.Series))
	lo, hi := math.Inf(1), math.Inf(-1)
	type label struct {
		s, m int
		x, w float64
	}
	var ls []label
	for i, s := range c.Series {
		rows[i] = make([]int, len(s.Marks))
		for _, p := range s.Points {
			lo, hi = math.Min(lo, p[0]), math.Max(hi, p[0])
		}
		for j, m := range s.Marks {
			if m.Label != "" {
				ls = append(ls, label{s: i, m: j, x: m.X})
			}
		}
	}
	if len(ls) == 0 || !(hi > lo) {
		return rows
	}
	lo = math.Min(lo, 0)
	fnt := plot.DefaultFont
	fnt.Variant, fnt.Size, fnt.Weight = sans, vg.Points(11), xfont.WeightBold
	sty := text.Style{Font: fnt, Handler: plot.DefaultTextHandler}
	plotWidth := 0.72 * float64(vg.Length(PNGWidth)*vg.Inch/pngDPI)
	for k := range ls {
		ls[k].w = (float64(sty.Width(c.Series[ls[k].s].Marks[ls[k].m].Label)) + 10) / plotWidth * (hi - lo)
	}
	slices.SortStableFunc(ls, func(a, b label) int { return cmp.Compare(a.x, b.x) })
	var ends []float64 // each row's right edge so far
	for _, l := range ls {
		row := 0
		for row < len(ends) && ends[row] > l.x-l.w/2 {
			row++
		}
		if row == len(ends) {
			ends = append(ends, 0)
		}
		ends[row] = l.x + l.w/2
		rows[l.s][l.m] = row
	}
	return rows
}

// errorBars gives gonum the min–max spread as distances below and above each point.
type errorBars struct {
	plotter.XYs
	r [][2]float64
}

func (e errorBars) YError(i int) (float64, float64) {
	y := e.XYs[i].Y
	return y - e.r[i][0], e.r[i][1] - y
}

// fixedTicks puts labels exactly where the chart model says (the percentile axis) and nowhere else.
type fixedTicks []Tick

func (f fixedTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range f {
		if t.Value >= min && t.Value <= max {
			ts = append(ts, plot.Tick{Value: t.Value, Label: t.Label})
		}
	}
	return ts
}

// numberTicks label about six round values (steps of 1, 2, 2.5 or 5 times a power of ten) with
// thousands separators. gonum's default aims at three, which leaves a 700-pixel axis hard to read,
// and prints 120000 or 1.2e+05 where "120,000" reads at a glance.
type numberTicks struct{}

func (numberTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return nil
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	dec := 0
	for ; dec < 10; dec++ {
		if x := step * math.Pow(10, float64(dec)); math.Abs(x-math.Round(x)) < 1e-6 {
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(min / step); k*step <= max+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not -0, which an axis reaching below 0 (a live chart's rampup) would print
		}
		label := strconv.FormatFloat(v, 'f', dec, 64)
		if math.Abs(v) >= 1000 {
			label = thousands(v)
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
		// An unlabelled minor tick halfway, as gonum draws them.
		if h := v + step/2; h <= max {
			ts = append(ts, plot.Tick{Value: h})
		}
	}
	return ts
}

func hexColor(s string) color.Color {
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.Black
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// drawHeat renders a heat map: one row a CPU, one column a second, blue (idle) to red (busy).
func drawHeat(c Chart) (*vgimg.Canvas, error) {
	h := c.Heat
	p := plot.New()
	p.Title.Text = c.Title + " (" + h.Unit + ", blue 0 to red " + strconv.FormatFloat(h.Max, 'f', -1, 64) + ")"
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
		f.Variant = sans
	}
	hm := plotter.NewHeatMap(heatGrid{h}, moreland.SmoothBlueRed().Palette(64))
	hm.Min, hm.Max = 0, h.Max
	p.Add(hm)
	ticks := make([]Tick, len(h.Rows))
	for i, r := range h.Rows {
		ticks[i] = Tick{Value: float64(i), Label: r}
	}
	p.Y.Tick.Marker = fixedTicks(ticks)
	p.X.Tick.Marker = numberTicks{}
	w := vg.Length(PNGWidth) * vg.Inch / pngDPI
	ht := vg.Length(PNGHeight) * vg.Inch / pngDPI
	img := vgimg.NewWith(vgimg.UseWH(w, ht), vgimg.UseDPI(pngDPI))
	p.Draw(draw.New(img))
	return img, nil
}

// heatGrid is a Heat as gonum's grid: columns are seconds, rows CPUs.
type heatGrid struct{ h *Heat }

func (g heatGrid) Dims() (int, int)   { return len(g.h.X), len(g.h.Rows) }
func (g heatGrid) Z(c, r int) float64 { return g.h.Values[c][r] }
func (g heatGrid) X(c int) float64    { return g.h.X[c] }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// drawFlame renders a flame graph: the boxes and colours of the page, labelled where they are
// wide enough.
func drawFlame(c Chart) (*vgimg.Canvas, error) {
	f := c.Flame
	p := plot.New()
	p.Title.Text = c.Title
	if f.Diff {
		p.Title.Text += "\n" + f.Legend
	}
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.TextStyle.Font.Variant = sans
	p.Title.Padding = vg.Points(8)
	p.HideAxes()
	p.Add(flamePlot{f})
	p.X.Min, p.X.Max = 0, float64(f.Width)
	p.Y.Min, p.Y.Max = 0, float64(f.Depth)
	w := vg.Length(PNGWidth) * vg.Inch / pngDPI
	h := vg.Length(PNGHeight) * vg.Inch / pngDPI
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
	p.Draw(draw.New(img))
	return img, nil
}

// flamePlot draws a Flame's boxes on gonum's canvas: x in samples, y in stack depth.
type flamePlot struct{ f *Flame }

func (fp flamePlot) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	fnt := plot.DefaultFont
	fnt.Variant, fnt.Size = sans, vg.Points(8)
	sty := text.Style{Color: color.Black, Font: fnt, XAlign: text.XLeft, YAlign: text.YCenter, Handler: plot.DefaultTextHandler}
	for _, n := range fp.f.Nodes {
		x0, x1 := trX(float64(n.Start)), trX(float64(n.Start+n.Value))
		y0, y1 := trY(float64(n.Depth)), trY(float64(n.Depth+1))
		right, top := max(x0+0.5, x1-0.5), max(y0+0.5, y1-0.75)
		c.FillPolygon(hexColor(n.Color), []vg.Point{{X: x0, Y: y0}, {X: right, Y: y0}, {X: right, Y: top}, {X: x0, Y: top}})
		if room := x1 - x0 - vg.Points(4); room > vg.Points(24) {
			if l := fitText(sty, n.Name, room); l != "" {
				c.FillText(sty, vg.Point{X: x0 + vg.Points(2), Y: (y0 + top) / 2}, l)
			}
		}
	}
}

// fitText is s, cut short with "…" where it is wider than room; "" when not even a letter fits.
func fitText(sty text.Style, s string, room vg.Length) string {
	if sty.Width(s) <= room {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		if t := string(r[:n]) + "…"; sty.Width(t) <= room {
			return t
		}
	}
	return ""
}

// stackedAreas are the series of a stacked area chart as the lines of their tops: each series'
// points added to those below it, at the same x.
func stackedAreas(ss []Series) []Series {
	out := make([]Series, len(ss))
	below := map[float64]float64{}
	for i, s := range ss {
		out[i] = Series{Name: s.Name, Points: make([][2]float64, len(s.Points))}
		for j, pt := range s.Points {
			below[pt[0]] += pt[1]
			out[i].Points[j] = [2]float64{pt[0], below[pt[0]]}
		}
	}
	return out
}
