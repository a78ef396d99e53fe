package cmd

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

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
	// Wide enough for the title: a one-panel figure would clip it.
	w, h := max(vg.Length(cols)*4.2*vg.Inch, title.Width(fig.Title)+vg.Millimeter*8), vg.Length(len(grid))*3.6*vg.Inch
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
		tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 6, PadTop: vg.Millimeter * 8, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(grid, tiles, dc)
		for i, row := range grid {
			for j, p := range row {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
		dc.FillText(title, vg.Point{X: w / 2, Y: h - vg.Millimeter*6}, fig.Title)
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

func panelPlot(pn experiments.Panel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.X.Label.Text = pn.XLabel
	p.Y.Label.Text = pn.YLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range pn.Series {
		c := palette[s.Color%len(palette)]
		if len(s.Lo) == len(s.X) && len(s.X) > 0 {
			ring := make(plotter.XYs, 0, 2*len(s.X))
			for i := range s.X {
				ring = append(ring, plotter.XY{X: s.X[i], Y: s.Hi[i]})
			}
			for i := len(s.X) - 1; i >= 0; i-- {
				ring = append(ring, plotter.XY{X: s.X[i], Y: s.Lo[i]})
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
		p.Legend.Add(s.Name, line)
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
	}
	if pn.YMax > 0 {
		ymax = math.Min(ymax, pn.YMax)
	}
	if pn.XLog && xmin > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
	}
	if pn.YLog && ymin > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = ymin/2, ymax*30 // headroom for the legend, in decades
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

// intTicks are plot.DefaultTicks without fractional major ticks (no
// "2.50" outer iterations), or unit steps when too few are left.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue // no "2.50" outer iteration, labelled or not
		}
		if t.Label != "" {
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
		}
		out = append(out, t)
	}
	majors := 0
	for _, t := range out {
		if t.Label != "" {
			majors++
		}
	}
	if majors >= 2 {
		return out
	}
	out = out[:0]
	step := math.Max(1, math.Ceil((hi-lo)/5))
	for v := math.Ceil(lo); v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}
