package cmd

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fedcon/fedcon/experiments"
)

// palette: blue and brown as in the paper's figures, then more.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {140, 86, 75, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
}

// renderFigure draws fig's panels side by side into base.png and base.svg.
func renderFigure(fig *experiments.Figure, base string) ([]string, error) {
	var plots []*plot.Plot
	for _, pn := range fig.Panels {
		p, err := panelPlot(pn)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("figure %q has no panels", fig.Title)
	}
	cols := len(plots)
	if fig.Cols > 0 && fig.Cols < cols {
		cols = fig.Cols
	}
	var grid [][]*plot.Plot
	for i := 0; i < len(plots); i += cols {
		grid = append(grid, plots[i:min(i+cols, len(plots))])
	}
	for len(grid[len(grid)-1]) < cols {
		grid[len(grid)-1] = append(grid[len(grid)-1], nil) // empty tile
	}
	title := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(13)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	captionStyle := draw.TextStyle{Color: color.Gray{Y: 0x40}, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	// Wide enough for the title: a one-panel figure would clip it.
	w := max(vg.Length(cols)*4.2*vg.Inch, title.Width(fig.Title)+vg.Millimeter*8)
	caption := wrapToWidth(captionStyle, fig.Caption, w-vg.Millimeter*8)
	capH := vg.Length(len(caption)) * captionStyle.Height("Ag") * 1.15
	h := vg.Length(len(grid))*3.6*vg.Inch + capH
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, err
	}
	var paths []string
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
	svg := vgsvg.New(w, h)
	for _, target := range []struct {
		ext    string
		canvas vg.CanvasWriterTo
	}{{"png", png}, {"svg", svg}} {
		dc := draw.New(target.canvas)
		tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 6, PadTop: vg.Millimeter*8 + capH, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(grid, tiles, dc)
		for i, row := range grid {
			for j, p := range row {
				if p != nil {
					drawPanel(p, canvases[i][j])
				}
			}
		}
		dc.FillText(title, vg.Point{X: w / 2, Y: h - vg.Millimeter*6}, fig.Title)
		for i, line := range caption {
			y := h - vg.Millimeter*7.5 - vg.Length(i+1)*captionStyle.Height("Ag")*1.15
			dc.FillText(captionStyle, vg.Point{X: w / 2, Y: y}, line)
		}
		path := base + "." + target.ext
		f, err := os.Create(path)
		if err != nil {
			return paths, err
		}
		if _, err := target.canvas.WriteTo(f); err != nil {
			f.Close()
			return paths, err
		}
		if err := f.Close(); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// drawPanel draws p on c with its title centred just above its data area.
// gonum/plot puts the title at the top of the canvas, and plot.Align gives
// a row's panels canvases of different tops so that their data areas line
// up (a log axis' centred label needs more room), so the titles sat at
// different heights.
func drawPanel(p *plot.Plot, c draw.Canvas) {
	legendAtDataTop(p, c)
	title := p.Title.Text
	if title == "" {
		p.Draw(c)
		return
	}
	p.Title.Text = " " // keeps the title's room in the layout
	p.Draw(c)
	p.Title.Text = title
	data := p.DataCanvas(c)
	style := p.Title.TextStyle
	style.XAlign, style.YAlign = draw.XCenter, draw.YBottom
	// 4 pt more than gonum's padding: a top legend starts at the data
	// area's top edge.
	c.FillText(style, vg.Point{X: (data.Min.X + data.Max.X) / 2, Y: data.Max.Y + p.Title.Padding + vg.Points(4)}, title)
}

// offsetLabels draws point labels pad away from their point, in the
// direction of each label's alignment (right, above or below).
type offsetLabels struct {
	*plotter.Labels
	pad vg.Length
}

func (l *offsetLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, xy := range l.XYs {
		st := l.TextStyle[i]
		pt := vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		pt.X += l.pad
		if st.YAlign == draw.YTop {
			pt.Y -= l.pad
		} else {
			pt.Y += l.pad / 2
		}
		c.FillText(st, pt, l.Labels.Labels[i])
	}
}

// crowded marks the labels of s to draw below their point: those whose
// point lies within 6 % of the panel's ranges (log decades on a log axis)
// of the previous labelled point drawn above.
func crowded(pn experiments.Panel, s experiments.Series, logY bool) []bool {
	ty := func(y float64) float64 {
		if logY {
			return math.Log10(y)
		}
		return y
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, o := range pn.Series {
		for i := range o.X {
			xmin, xmax = math.Min(xmin, o.X[i]), math.Max(xmax, o.X[i])
			ymin, ymax = math.Min(ymin, ty(o.Y[i])), math.Max(ymax, ty(o.Y[i]))
		}
	}
	dx, dy := math.Max(xmax-xmin, 1e-12), math.Max(ymax-ymin, 1e-12)
	below := make([]bool, len(s.X))
	for i := 1; i < len(s.X); i++ {
		near := math.Abs(s.X[i]-s.X[i-1])/dx < 0.06 && math.Abs(ty(s.Y[i])-ty(s.Y[i-1]))/dy < 0.06
		below[i] = near && !below[i-1]
	}
	return below
}

// glyphs are the point markers of experiments.Series.Marker.
var glyphs = map[string]draw.GlyphDrawer{
	"ring": draw.RingGlyph{}, "cross": draw.CrossGlyph{}, "plus": draw.PlusGlyph{}, "triangle": draw.TriangleGlyph{},
}

func panelPlot(pn experiments.Panel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.X.Label.Text = pn.XLabel
	p.Y.Label.Text = pn.YLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	// A log axis keeps its scale when a band's lower edge (mean − std) is
	// ≤ 0 while the curves are positive: the axis spans the positive values
	// and such a band runs to the bottom of the axis (logBandFloor).
	logY := pn.YLog && logPositive(pn)
	floor := 0.0
	labelled := false
	if logY {
		floor = logBandFloor(pn)
	}
	for _, s := range pn.Series {
		c := palette[s.Color%len(palette)]
		if len(s.Lo) == len(s.X) && len(s.X) > 0 {
			ring := make(plotter.XYs, 0, 2*len(s.X))
			for i := range s.X {
				ring = append(ring, plotter.XY{X: s.X[i], Y: s.Hi[i]})
			}
			for i := len(s.X) - 1; i >= 0; i-- {
				lo := s.Lo[i]
				if logY && !(lo > floor) {
					lo = floor
				}
				ring = append(ring, plotter.XY{X: s.X[i], Y: lo})
			}
			band, err := plotter.NewPolygon(ring)
			if err != nil {
				return nil, err
			}
			band.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 60} // NRGBA: alpha is not premultiplied
			band.LineStyle.Width = 0
			p.Add(band)
		}
		pts := make(plotter.XYs, len(s.X))
		for i := range s.X {
			pts[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			lo, hi := s.Y[i], s.Y[i]
			if len(s.Lo) == len(s.X) {
				lo, hi = s.Lo[i], s.Hi[i]
				if logY && !(lo > floor) {
					lo = floor
				}
			}
			ymin, ymax = math.Min(ymin, lo), math.Max(ymax, hi)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		switch s.Dash {
		case "dash":
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		case "dashdot":
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}
		}
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if s.Marker != "" {
			g, ok := glyphs[s.Marker]
			if !ok {
				return nil, fmt.Errorf("series %q: unknown marker %q", s.Name, s.Marker)
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: g}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if len(s.Labels) == len(s.X) && len(s.X) > 0 {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: s.Labels})
			if err != nil {
				return nil, err
			}
			below := crowded(pn, s, logY)
			for i := range lb.TextStyle {
				st := &lb.TextStyle[i]
				st.Font.Size = vg.Points(7)
				st.Color = color.Gray{Y: 0x30}
				// Labels sit above right of their point; one crowding the
				// previous label goes below right.
				st.XAlign, st.YAlign = draw.XLeft, draw.YBottom
				if below[i] {
					st.YAlign = draw.YTop
				}
			}
			// plotter.Labels has one offset for all points.
			p.Add(&offsetLabels{Labels: lb, pad: vg.Points(3.5)})
			labelled = true
		}
		p.Legend.Add(s.Name, thumbs...)
	}
	if labelled && !math.IsInf(xmin, 1) {
		// Room at the right for the last point's label.
		xmax += 0.08 * math.Max(xmax-xmin, 1e-9)
		p.X.Max = math.Max(p.X.Max, xmax)
	}
	for _, h := range pn.HLines {
		if math.IsInf(xmin, 1) {
			xmin, xmax = 0, 1
		}
		ymin, ymax = math.Min(ymin, h.Y), math.Max(ymax, h.Y)
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: h.Y}, {X: xmax, Y: h.Y}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Black
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(h.Name, l)
	}
	if allIntegers(pn) && !pn.XLog {
		p.X.Tick.Marker = intTicks{}
	} else {
		p.X.Tick.Marker = niceTicks{}
	}
	p.Y.Tick.Marker = niceTicks{}
	if pn.YMax > 0 {
		ymax = math.Min(ymax, pn.YMax)
	}
	if pn.XLog && xmin > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks125{}
		p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
	}
	if logY && ymin > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks125{}
		// Headroom for the legend, in decades, grown with its entries.
		// ymin is the smallest positive value (bands clamped to the floor
		// below it reach the axis' bottom).
		// The legend sits at the top right: the headroom is above the
		// right half's data, and a spike further left (τ = 0.1's early
		// overshoot) only needs to fit below the top.
		ymin = floor * 1.5
		right := math.Max(rightHalfMax(pn, xmin, xmax, floor), ymin)
		p.Y.Min, p.Y.Max = ymin/1.5, math.Max(ymax*1.5, right*math.Pow(right/ymin*1.5, legendHeadroom(len(pn.Series)+len(pn.HLines))))
		return p, nil
	}
	if pn.YUnit {
		// A share: the axis is [0, 1]; the legend goes where the curves
		// are not at the right end (accuracy rises, or falls with noise).
		p.Y.Min, p.Y.Max = 0, 1
		p.Legend.Top = rightEndMean(pn) < 0.5
		if xmax == xmin {
			p.X.Min, p.X.Max = xmin-0.5, xmax+0.5
		}
		return p, nil
	}
	if !math.IsInf(ymin, 1) {
		// Headroom above the data for the legend: its entries are about
		// 11 pt each in a data area of about 190 pt, so the legend's share
		// of the height grows with the number of entries.
		span := math.Max(ymax-ymin, 1e-9)
		p.Y.Min = math.Min(0, ymin)
		p.Y.Max = ymax + legendHeadroom(len(pn.Series)+len(pn.HLines))*(ymax-p.Y.Min+1e-9*span)
	}
	if xmax == xmin {
		p.X.Min, p.X.Max = xmin-0.5, xmax+0.5
	}
	return p, nil
}

// legendAtDataTop moves a top legend down to the top of the data area.
// gonum/plot draws the legend from the top of the plot's canvas below the
// title, but shrinks the data area below that by the glyphs it must fit;
// on a log y axis that includes the centred y label, which it places at
// Norm((Min+Max)/2), near the top, so a log panel's legend sat above its
// axis (on the title) by half the label's length.
func legendAtDataTop(p *plot.Plot, c draw.Canvas) {
	if !p.Legend.Top {
		return
	}
	top := c.Max.Y
	if p.Title.Text != "" {
		top -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	p.Legend.YOffs = min(0, p.DataCanvas(c).Max.Y-top)
}

// logPositive reports whether a log panel can be drawn: every curve value
// and reference line is > 0 (band edges may not be).
func logPositive(pn experiments.Panel) bool {
	n := 0
	for _, s := range pn.Series {
		for _, y := range s.Y {
			if !(y > 0) || math.IsInf(y, 1) {
				return false
			}
			n++
		}
	}
	for _, h := range pn.HLines {
		if !(h.Y > 0) {
			return false
		}
	}
	return n > 0
}

// rightHalfMax is the largest curve value or band edge of the panel at
// x ≥ the middle of [xmin, xmax] (reference lines included), band edges
// clamped to floor; -Inf without such points.
func rightHalfMax(pn experiments.Panel, xmin, xmax, floor float64) float64 {
	m, mid := math.Inf(-1), (xmin+xmax)/2
	for _, s := range pn.Series {
		for i, x := range s.X {
			if x < mid {
				continue
			}
			m = math.Max(m, s.Y[i])
			if len(s.Hi) == len(s.X) {
				m = math.Max(m, math.Max(s.Hi[i], floor))
			}
		}
	}
	for _, h := range pn.HLines {
		m = math.Max(m, h.Y)
	}
	return m
}

// logBandFloor is where a log panel's band edges ≤ 0 are drawn: the
// bottom of the axis, a factor 1.5 below the smallest positive curve value,
// band edge or reference line.
func logBandFloor(pn experiments.Panel) float64 {
	m := math.Inf(1)
	for _, s := range pn.Series {
		for i, y := range s.Y {
			m = math.Min(m, y)
			if len(s.Lo) == len(s.Y) && s.Lo[i] > 0 {
				m = math.Min(m, s.Lo[i])
			}
		}
	}
	for _, h := range pn.HLines {
		m = math.Min(m, h.Y)
	}
	return m / 1.5
}

// legendHeadroom is the fraction of the data's height to add above it so
// that a top legend of n entries stays clear of the curves.
func legendHeadroom(n int) float64 {
	share := math.Min(0.8, (11*float64(n)+8)/190)
	return math.Max(0.45, share/(1-share))
}

// allIntegers reports whether every x of the panel's series is a whole
// number (outer iterations, client counts): its axis gets integer ticks.
func allIntegers(pn experiments.Panel) bool {
	n := 0
	for _, s := range pn.Series {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// intTicks are niceTicks with a whole step (no "2.50" outer iterations):
// unit steps when the range is under 5.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi-lo >= 5 {
		return niceTicks{whole: true}.Ticks(lo, hi)
	}
	var out []plot.Tick
	for v := math.Ceil(lo); v <= hi; v++ {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}

// niceTicks label every tick: at most 7 of them (as many as fit), a step
// of 1, 2, 2.5 or 5 times a power of ten, each printed with the decimals
// the step needs.
type niceTicks struct {
	whole bool // whole-number steps only (no 2.5)
}

func (nt niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	// The smallest step of 1, 2, 2.5, 5 times a power of ten that gives at
	// most 7 ticks.
	count := func(step float64) float64 { return math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1 }
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/7)))
	step, mult := 0.0, 0.0
	for step == 0 {
		for _, m := range []float64{1, 2, 2.5, 5} {
			if nt.whole && (m == 2.5 && mag < 10 || m*mag < 1) {
				continue
			}
			if count(m*mag) <= 7 {
				step, mult = m*mag, m
				break
			}
		}
		if step == 0 {
			mag *= 10
		}
	}
	dec := max(0, int(-math.Floor(math.Log10(mag)+1e-9)))
	if mult == 2.5 && mag < 10 {
		dec++
	}
	var out []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
	}
	return out
}

// logTicks125 label every tick of a log axis: 1, 2 and 5 times the powers
// of ten in range (only the powers when that is more than 8 ticks).
type logTicks125 struct{}

func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	var all, decades []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v, Label: logLabel(m, e)}
			all = append(all, t)
			if m == 1 {
				decades = append(decades, t)
			}
		}
	}
	if len(all) > 8 && len(decades) >= 2 {
		return decades
	}
	return all
}

// logLabel labels m·10^e on a log axis: plainly from 0.001 to 5000
// ("0.5", "2000"), as "1e4", "2e-5" beyond, so an axis never mixes
// "100000" with "1e+06".
func logLabel(m, e float64) string {
	if e >= -3 && e <= 3 {
		return strconv.FormatFloat(m*math.Pow(10, e), 'f', max(0, int(-e)), 64)
	}
	return strconv.FormatFloat(m, 'f', 0, 64) + "e" + strconv.Itoa(int(e))
}

// rightEndMean is the mean of the panel's curves over the right third of
// the x range (NaN-free; 0 without data).
func rightEndMean(pn experiments.Panel) float64 {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range pn.Series {
		for _, x := range s.X {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	sum, n := 0.0, 0
	for _, s := range pn.Series {
		for i, x := range s.X {
			if x >= xmax-(xmax-xmin)/3 && !math.IsNaN(s.Y[i]) {
				sum += s.Y[i]
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// wrapToWidth breaks text at spaces into lines no wider than width in
// style (a longer word keeps its own line); nil for "".
func wrapToWidth(style draw.TextStyle, text string, width vg.Length) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(text) {
		if cur != "" && style.Width(cur+" "+word) > width {
			lines, cur = append(lines, cur), word
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
