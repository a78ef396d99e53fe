package experiments

import "fmt"

// Figure is a figure's data, independent of how it is drawn: cmd renders it
// with gonum/plot, and the JSON file keeps the numbers behind every curve.
type Figure struct {
	Title string `json:"title"`
	// Caption says what the curves and shaded bands are (e.g. "curves: the
	// mean over the 5 clients; shaded band: their minimum to maximum"),
	// drawn under the title and in the report.
	Caption string  `json:"caption,omitempty"`
	Panels  []Panel `json:"panels"`
	// Cols, if > 0, wraps the panels into rows of Cols (default: one row).
	Cols int `json:"cols,omitempty"`
}

// Panel is one set of axes.
type Panel struct {
	Title  string   `json:"title"`
	XLabel string   `json:"x_label"`
	YLabel string   `json:"y_label"`
	Series []Series `json:"series"`
	HLines []HLine  `json:"hlines,omitempty"`
	// YMax, if > 0, caps the y axis (curves are clipped); no figure of
	// fedcon's sets it (a spike is drawn on a log axis instead).
	YMax float64 `json:"y_max,omitempty"`
	// YLog and XLog draw an axis in log scale (positive data only).
	YLog bool `json:"y_log,omitempty"`
	XLog bool `json:"x_log,omitempty"`
	// YUnit marks values that are shares (accuracy): the y axis is [0, 1].
	YUnit bool `json:"y_unit,omitempty"`
}

// Series is a curve with an optional band (Lo, Hi) around it.
type Series struct {
	Name  string    `json:"name"`
	Color int       `json:"color"` // palette index
	Dash  string    `json:"dash"`  // "", "dash" or "dashdot"
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
	Lo    []float64 `json:"lo,omitempty"`
	Hi    []float64 `json:"hi,omitempty"`
	// Marker, when set, draws each point as "ring", "cross", "plus" or
	// "triangle", so that two curves lying on each other both show.
	Marker string `json:"marker,omitempty"`
	// Labels, when as many as the points, are written beside them (the
	// value swept along the curve, e.g. "U = 0.4").
	Labels []string `json:"labels,omitempty"`
}

// HLine is a horizontal reference line (e.g. a threshold).
type HLine struct {
	Name string  `json:"name"`
	Y    float64 `json:"y"`
}

// BandSeries turns per-iteration per-party values into a mean curve with a
// min-max band (BandCaption says so).
func BandSeries(name string, color int, vals [][]float64) Series {
	s := Series{Name: name, Color: color}
	for k, v := range vals {
		if len(v) == 0 {
			continue
		}
		lo, hi := v[0], v[0]
		var sum float64
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
			sum += x
		}
		s.X = append(s.X, float64(k+1))
		s.Y = append(s.Y, sum/float64(len(v)))
		s.Lo = append(s.Lo, lo)
		s.Hi = append(s.Hi, hi)
	}
	return s
}

// BandCaption is the caption of a figure drawn with BandSeries over n
// parties of what (e.g. 5, "clients").
func BandCaption(n int, what string) string {
	return fmt.Sprintf("Curves: the mean over the %d %s at each iteration; shaded band: their minimum to maximum.", n, what)
}
