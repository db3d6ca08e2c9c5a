// Package figures draws the report's and the room's charts (gonum's plot, as SVG) and writes the
// generated tables: every figure ends with the provenance line of its results.
package figures

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"example.com/userperf/common/bench"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

func init() {
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont, plotter.DefaultFont = sans, sans
}

// Chart is one SVG file: a title (the page's alt text) and panels of the results in files.
type Chart struct {
	File, Title string
	files       []*results.File
	panels      []panel
}

// The benchmarks of the results page's table and charts besides results.Headline and its larger
// size: the same through Echo (where the floor compares), a write, and the heap per user.
const (
	ThroughEcho = "ServeHTTP/users=10000/matches=100"
	WriteBench  = "Write/users=10000/roles=3" // one Add and one Delete
	BuildBench  = "Build/users=10000"
	HeldUnit    = "held-B/user"
)

// panel is a chart of bars (a group per stage, a bar per series) or of lines (one per stage through the series).
type panel struct {
	title, yLabel string
	logScale      bool // for figures that span orders of magnitude; else from zero, which must show
	format        func(float64) string
	series        []series
	lines         bool
	rings         []crossover // lines: a ring where a step stops paying
}

// series is a bar per stage, or a point of each line: the median of bench in unit.
type series struct{ label, bench, unit string }

// Charts are the results page's charts of a compare run.
func Charts(compare []*results.File) []Chart {
	at10000 := func(unit string) []series {
		return []series{{"100 matches", results.Headline, unit}, {"1,000 matches", results.Matches1000, unit}}
	}
	var users []series // a series without results draws nothing
	for _, n := range []int{1000, 10000, 100000, 1000000} {
		users = append(users, series{fmt.Sprintf("%d users", n), GrowthBench(n), "sec/op"})
	}
	return []Chart{
		{"time-per-stage.svg", "Time per request, per stage (ListByRole, 10,000 users)", compare, []panel{timePanel("", at10000("sec/op")...)}},
		{"allocs-per-stage.svg", "Allocations per request, per stage (ListByRole, 10,000 users)", compare,
			[]panel{{yLabel: "median allocations", format: Count, series: at10000("allocs/op")}}},
		{"time-vs-users.svg", "Time against the number of users (ListByRole, 100 matches)", compare, []panel{timePanel("", users...)}},
		{"writes-and-memory.svg", "Cost of a write and heap held per user, per stage (10,000 users)", compare, []panel{
			timePanel("Time of one Add and one Delete", series{"", WriteBench, "sec/op"}),
			{title: "Heap held per user", yLabel: "median bytes", format: ByteSize, series: []series{{"", BuildBench, HeldUnit}}},
		}},
	}
}

// timePanel is a panel of the median times of series, on a log scale.
func timePanel(title string, s ...series) panel {
	return panel{title: title, yLabel: "median time, log scale", logScale: true, format: results.Duration, series: s}
}

// LoadChart is the latencies at a fixed rate of a load run, a panel per test.
func LoadChart(load []*results.File) Chart {
	var http []panel
	for _, m := range load[0].Measurements() {
		var rate, matches int
		if _, err := fmt.Sscanf(m.Bench, "HTTPFixedRate/rate=%d/matches=%d", &rate, &matches); err == nil && m.Unit == "p50-sec" {
			http = append(http, timePanel(fmt.Sprintf("%d matches at %d requests/s", matches, rate),
				series{"p50", m.Bench, "p50-sec"}, series{"p95", m.Bench, "p95-sec"}, series{"p99", m.Bench, "p99-sec"}))
		}
	}
	return Chart{"http-percentiles.svg", "HTTP latency at a fixed rate, per stage: the median of each round's percentiles", load, http}
}

// MixedChart is time per request against the share of writes, a line per stage and a panel
// per client count, with a ring where a step stops paying (as MixedTable decides it).
func MixedChart(files []*results.File) Chart {
	var panels []panel
	for _, clients := range bench.MixedClients {
		var points []series
		for _, w := range bench.MixedWrites {
			points = append(points, series{fmt.Sprintf("%d%%", w), MixedBench(w, clients), "sec/op"})
		}
		panels = append(panels, panel{clientsName(clients), "median time per request, log scale", true, results.Duration, points, true,
			crossovers(files, clients)})
	}
	return Chart{"mixed.svg", "Time per request against the share of writes, per stage (10,000 users)", files, panels}
}

// Save draws c's panels that have results into dir, one above the other, the provenance line
// under the last, and reports whether there was anything to draw.
func (c Chart) Save(dir string) (bool, error) {
	var plots [][]*plot.Plot // rows of one, as plot.Align takes them
	// Each legend goes right of its panel's data, in a margin as wide as the widest: inside,
	// it would cover lines, rings or bars, whatever the figures are.
	legend, gap := vg.Length(0), 0.4*vg.Centimeter
	for _, pn := range c.panels {
		if p := plotPanel(c.files, pn); p != nil {
			plots = append(plots, []*plot.Plot{p})
			r := p.Legend.Rectangle(draw.Canvas{})
			legend = max(legend, r.Max.X-r.Min.X)
		}
	}
	if len(plots) == 0 {
		return false, nil
	}
	first, last := plots[0][0], plots[len(plots)-1][0]
	first.Title.Text = strings.TrimSpace(c.Title + "\n" + first.Title.Text)
	measured, command, _ := strings.Cut(provenance.Line(c.files[0].Config), ", by ")
	last.X.Label.Text, last.X.Label.TextStyle.Font.Size = measured+",\nby "+command, 7
	// As wide as the centred title and provenance line: a longer line would start off the canvas.
	w := max(18*vg.Centimeter, (6+2*vg.Length(len(c.files)))*vg.Centimeter,
		first.Title.TextStyle.Width(first.Title.Text)+vg.Centimeter, last.X.Label.TextStyle.Width(last.X.Label.Text)+3*vg.Centimeter)
	if legend > 0 {
		w += legend + gap
	}
	canvas := vgsvg.New(w, vg.Length(len(plots))*9*vg.Centimeter)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 0.5 * vg.Centimeter, PadTop: 2, PadBottom: 2, PadLeft: 2, PadRight: 4 + legend + gap}
	for i, panel := range plot.Align(plots, tiles, draw.New(canvas)) {
		l := &plots[i][0].Legend
		l.Left, l.Top, l.XOffs, l.Padding = false, true, legend+gap, vg.Points(3)
		plots[i][0].Draw(panel[0])
	}
	svg, err := svgText(canvas)
	if err != nil {
		return false, err
	}
	return true, errors.Join(os.MkdirAll(dir, 0o755), os.WriteFile(filepath.Join(dir, c.File), []byte(svg), 0o644))
}

// svgText is canvas as SVG, which names the font without embedding it (300 KB a chart):
// Arial has the same metrics, for a browser without Liberation Sans.
func svgText(canvas *vgsvg.Canvas) (string, error) {
	var out strings.Builder
	_, err := canvas.WriteTo(&out)
	return strings.ReplaceAll(out.String(), "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"), err
}

// plotPanel draws pn, or nil without results. On a log scale a figure is drawn as its logarithm,
// above the power of ten under the smallest figure: a bar starts at zero, which a log axis cannot show.
func plotPanel(files []*results.File, pn panel) *plot.Plot {
	base, drawn := math.Inf(1), false
	for _, f := range files {
		for _, s := range pn.series {
			if v := f.Values(s.bench, s.unit); len(v) > 0 && (results.Median(v) > 0 || !pn.logScale) {
				base, drawn = min(base, math.Floor(math.Log10(results.Median(v)))), true
			}
		}
	}
	if !drawn {
		return nil
	}
	height := func(f *results.File, s series) (h, median float64, ok bool) {
		v, ok := results.Median(f.Values(s.bench, s.unit)), len(f.Values(s.bench, s.unit)) > 0
		if !pn.logScale {
			return v, v, ok
		}
		return math.Log10(v) - base, v, ok && v > 0
	}
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = pn.title, pn.yLabel
	p.Legend.TextStyle.Font.Size = 9
	p.Y.Label.TextStyle.Font.Size, p.X.Tick.Label.Font.Size = 10, 9
	if pn.lines {
		addLines(p, files, pn, height)
	} else {
		addBars(p, files, pn, height)
	}
	if !pn.logScale {
		p.Y.Max *= 1.25
		return p
	}
	// Ticks at the powers of ten, without needless zeros (10ms, not 10.00ms), and room above for the labels.
	p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) (ticks []plot.Tick) {
		for power := math.Ceil(min); power <= max; power++ {
			label := zeroFraction.ReplaceAllString(pn.format(math.Pow(10, power+base)), "$1$2")
			ticks = append(ticks, plot.Tick{Value: power, Label: label})
		}
		return ticks
	})
	if pn.lines {
		p.Y.Max += 0.2 // lines carry no labels
	} else {
		p.Y.Max += 1.5
	}
	return p
}

var zeroFraction = regexp.MustCompile(`^(\d+)\.0+(\D|$)`)

// addBars adds pn's bars, each labelled with its figure.
func addBars(p *plot.Plot, files []*results.File, pn panel, height func(*results.File, series) (float64, float64, bool)) {
	var names []string
	for _, f := range files {
		names = append(names, strings.ReplaceAll(f.Name, "-", "\n")) // no long name runs into the next
	}
	p.NominalX(names...)
	const width = vg.Length(14)
	for k, s := range pn.series {
		heights := make(plotter.Values, len(files)) // 0 where a stage has no result
		var labels plotter.XYLabels
		for i, f := range files {
			if h, v, ok := height(f, s); ok {
				heights[i] = h
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: h})
				labels.Labels = append(labels.Labels, pn.format(v))
			}
		}
		if len(labels.XYs) == 0 {
			continue
		}
		b, _ := plotter.NewBarChart(heights, width) // no error with a positive width
		b.Color, b.LineStyle.Width = plotutil.Color(k), 0
		b.Offset = (vg.Length(k) - vg.Length(len(pn.series)-1)/2) * width
		l, _ := plotter.NewLabels(labels) // as many labels as points
		for i := range l.TextStyle {      // upright text would overlap the next bar's
			l.TextStyle[i].Font.Size, l.TextStyle[i].Rotation = 7, math.Pi/2
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = text.XLeft, text.YCenter
		}
		l.Offset = vg.Point{X: b.Offset, Y: 2}
		p.Add(b, l)
		if s.label != "" {
			p.Legend.Add(s.label, b)
		}
	}
}

// addLines adds a line per stage through its medians at pn's series, and a ring where a step stops paying.
func addLines(p *plot.Plot, files []*results.File, pn panel, height func(*results.File, series) (float64, float64, bool)) {
	p.X.Label.Text = "share of writes"
	var names []string
	for _, s := range pn.series {
		names = append(names, s.label)
	}
	p.NominalX(names...)
	var named []any // a stage's name and its points, for plotutil to style and name
	var rings plotter.XYs
	for _, f := range files {
		var xys plotter.XYs
		for i, s := range pn.series {
			if h, _, ok := height(f, s); ok {
				xys = append(xys, plotter.XY{X: float64(i), Y: h})
				if slices.ContainsFunc(pn.rings, func(c crossover) bool { return c.step == f.Name && c.at == i }) {
					rings = append(rings, xys[len(xys)-1])
				}
			}
		}
		if len(xys) > 0 {
			named = append(named, f.Name, xys)
		}
	}
	plotutil.AddLinePoints(p, named...)                                       // its error is for NaN or infinite medians, which samples never have
	if ring, err := plotter.NewScatter(rings); err == nil && len(rings) > 0 { // finite, as the lines' points are
		ring.Shape, ring.Radius, ring.Color = draw.RingGlyph{}, vg.Points(7), color.Black
		p.Add(ring)
		p.Legend.Add("where a step stops paying (see the table)", ring)
	}
}

// Count formats a count: 215.
func Count(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// ByteSize formats a byte count as benchstat does: 812.0B, 1.465KiB.
func ByteSize(b float64) string { return benchunit.Scale(b, benchunit.Binary) + "B" }
