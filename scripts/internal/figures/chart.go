// Package figures draws the charts of the report and of the workshop's
// room (gonum's plot, as SVG), and makes generated blocks of benchstat's
// tables: every figure ends with the provenance line of its results.
package figures

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
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

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
)

func init() {
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont, plotter.DefaultFont = sans, sans
}

// Chart is one SVG file: a title (the README's alt text) and panels of the results in files.
type Chart struct {
	File, Title string
	files       []*results.File
	panels      []panel
}

// The benchmarks of the README's table and charts: the case study's main
// request, the same through Echo (where the floor compares), a write, and
// the heap per user.
const (
	Headline    = "ListByRole/users=10000/matches=100"
	ThroughEcho = "ServeHTTP/users=10000/matches=100"
	WriteBench  = "Write/users=10000/roles=3" // one Add and one Delete
	BuildBench  = "Build/users=10000"
	HeldUnit    = "held-B/user"
)

// panel is a bar chart: a group of bars per stage, one bar per series.
type panel struct {
	title, yLabel string
	logScale      bool // for figures that span orders of magnitude; else from zero, which must show
	format        func(float64) string
	series        []series
	lines         bool // a line per stage through the series, in order, instead of bars
}

// series is one bar per stage: its median of bench in unit.
type series struct{ label, bench, unit string }

// Charts are the README's charts that the results allow; load may be nil.
func Charts(compare, load []*results.File) []Chart {
	time := func(title string, s ...series) panel {
		return panel{title, "median time, log scale", true, results.Duration, s, false}
	}
	at10000 := func(unit string) []series {
		return []series{{"100 matches", Headline, unit}, {"1,000 matches", "ListByRole/users=10000/matches=1000", unit}}
	}
	var users []series
	for _, m := range compare[0].Measurements() { // in the order of their names: 1000, 10000, 100000
		var n int
		if _, err := fmt.Sscanf(m.Bench, "ListByRole/users=%d/matches=100", &n); err == nil && strings.HasSuffix(m.Bench, "=100") && m.Unit == "sec/op" {
			users = append(users, series{fmt.Sprintf("%d users", n), m.Bench, m.Unit})
		}
	}
	all := []Chart{
		{"time-per-stage.svg", "Time per request, per stage (ListByRole, 10,000 users)", compare, []panel{time("", at10000("sec/op")...)}},
		{"allocs-per-stage.svg", "Allocations per request, per stage (ListByRole, 10,000 users)", compare,
			[]panel{{"", "median allocations", false, Count, at10000("allocs/op"), false}}},
		{"time-vs-users.svg", "Time against the number of users (ListByRole, 100 matches)", compare, []panel{time("", users...)}},
		{"writes-and-memory.svg", "Cost of a write and heap held per user, per stage (10,000 users)", compare, []panel{
			time("Time of one Add and one Delete", series{"", WriteBench, "sec/op"}),
			{"Heap held per user", "median bytes", false, ByteSize, []series{{"", BuildBench, HeldUnit}}, false},
		}},
	}
	if load == nil {
		return all
	}
	var http []panel
	for _, m := range load[0].Measurements() {
		var rate, matches int
		if _, err := fmt.Sscanf(m.Bench, "HTTPFixedRate/rate=%d/matches=%d", &rate, &matches); err == nil && m.Unit == "p50-sec" {
			http = append(http, time(fmt.Sprintf("%d matches at %d requests/s", matches, rate),
				series{"p50", m.Bench, "p50-sec"}, series{"p95", m.Bench, "p95-sec"}, series{"p99", m.Bench, "p99-sec"}))
		}
	}
	return append(all, Chart{"http-percentiles.svg", "HTTP latency at a fixed rate, per stage: the median of each round's percentiles", load, http})
}

// RoomChart is the room's chart: each participant's speed-up (unit x)
// against each exercise's start, from files made by results.NewFile.
func RoomChart(files []*results.File, exercises []string) Chart {
	var perExercise []series
	for _, ex := range exercises {
		perExercise = append(perExercise, series{ex, ex, "x"})
	}
	return Chart{"room.svg", "Speed-up against each exercise's starting stage (" + Headline + "), only right answers", files,
		[]panel{{"", "speed-up, log scale: above 1x is faster", true, Speedup, perExercise, false}}}
}

// Save draws c's panels that have results into dir, one above the other, the
// provenance line under the last, and reports whether there was anything to draw.
func (c Chart) Save(dir string) (bool, error) {
	var plots [][]*plot.Plot
	for _, pn := range c.panels {
		plotPanel := bars
		if pn.lines {
			plotPanel = lines
		}
		if p := plotPanel(c.files, pn); p != nil {
			plots = append(plots, []*plot.Plot{p})
		}
	}
	if len(plots) == 0 {
		return false, nil
	}
	first, last := plots[0][0], plots[len(plots)-1][0]
	first.Title.Text = strings.TrimSpace(c.Title + "\n" + first.Title.Text)
	measured, command, _ := strings.Cut(provenance.Line(c.files[0].Config), ", by ")
	last.X.Label.Text, last.X.Label.TextStyle.Font.Size = measured+",\nby "+command, 7
	// As wide as the title and the provenance line, which are centred: a
	// longer line would start off the canvas.
	w := max(18*vg.Centimeter, (6+2*vg.Length(len(c.files)))*vg.Centimeter,
		first.Title.TextStyle.Width(first.Title.Text)+vg.Centimeter, last.X.Label.TextStyle.Width(last.X.Label.Text)+3*vg.Centimeter)
	h := vg.Length(len(plots)) * 9 * vg.Centimeter
	canvas, err := draw.NewFormattedCanvas(w, h, strings.TrimPrefix(filepath.Ext(c.File), "."))
	if err != nil {
		return false, err
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 0.5 * vg.Centimeter, PadTop: 2, PadBottom: 2, PadLeft: 2, PadRight: 4}
	for i, panel := range plot.Align(plots, tiles, draw.New(canvas)) {
		plots[i][0].Draw(panel[0])
	}
	var out strings.Builder
	if _, err := canvas.WriteTo(&out); err != nil {
		return false, err
	}
	// The SVG names the font but does not embed it (300 KB a chart); Arial
	// has the same metrics, for a browser without Liberation Sans.
	svg := strings.ReplaceAll(out.String(), "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	return true, errors.Join(os.MkdirAll(dir, 0o755), os.WriteFile(filepath.Join(dir, c.File), []byte(svg), 0o644))
}

// bars draws a panel, each bar labelled with its value, or nil without
// results. On a log scale a bar is a logarithm, from the power of ten below
// the smallest value: plotter.BarChart starts at zero, which log cannot show.
func bars(files []*results.File, pn panel) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = pn.title, pn.yLabel
	p.Legend.Top, p.Legend.TextStyle.Font.Size = true, 10 // over the floor, last and lowest
	p.Y.Label.TextStyle.Font.Size, p.X.Tick.Label.Font.Size = 10, 9
	var names []string
	base := math.Inf(1)
	for _, f := range files {
		names = append(names, strings.ReplaceAll(f.Name, "-", "\n")) // no long name runs into the next
		for _, s := range pn.series {
			if v, _ := f.Median(s.bench, s.unit); v > 0 {
				base = min(base, math.Floor(math.Log10(v)))
			}
		}
	}
	p.NominalX(names...)
	const width = vg.Length(14)
	shown := 0
	for k, s := range pn.series {
		heights := make(plotter.Values, len(files)) // 0 where a stage has no result
		var labels plotter.XYLabels
		for i, f := range files {
			if v, ok := f.Median(s.bench, s.unit); ok && (v > 0 || !pn.logScale) {
				if heights[i] = v; pn.logScale {
					heights[i] = math.Log10(v) - base
				}
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: heights[i]})
				labels.Labels = append(labels.Labels, pn.format(v))
			}
		}
		b, err := plotter.NewBarChart(heights, width)
		if shown += len(labels.XYs); err != nil || len(labels.XYs) == 0 {
			continue // the series has no results; err cannot be, with a positive width
		}
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
	if shown == 0 {
		return nil
	}
	if pn.logScale { // and room for the labels above the tallest bar
		p.Y.Tick.Marker, p.Y.Max = powersOfTen{base, pn.format}, p.Y.Max+1.5
	} else {
		p.Y.Max *= 1.25
	}
	return p
}

// powersOfTen marks an axis of logarithms (shifted down by base) at the
// powers of ten, formatted without needless zeros: 10ms, not 10.00ms.
type powersOfTen struct {
	base   float64
	format func(float64) string
}

var zeroFraction = regexp.MustCompile(`^(\d+)\.0+(\D|$)`)

func (t powersOfTen) Ticks(min, max float64) (ticks []plot.Tick) {
	for power := math.Ceil(min); power <= max; power++ {
		label := zeroFraction.ReplaceAllString(t.format(math.Pow(10, power+t.base)), "$1$2")
		ticks = append(ticks, plot.Tick{Value: power, Label: label})
	}
	return ticks
}

// Count formats a count: 215.
func Count(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// ByteSize formats a byte count as benchstat does: 812.0B, 1.465KiB.
func ByteSize(b float64) string { return benchunit.Scale(b, benchunit.Binary) + "B" }

// Speedup formats a ratio: 0.25x (four times slower), 4.7x, 16x, 3200x.
func Speedup(r float64) string {
	return strconv.FormatFloat(r, 'f', min(2, max(0, 1-int(math.Floor(math.Log10(r))))), 64) + "x"
}
