package main

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func init() {
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont, plotter.DefaultFont = sans, sans
}

// chart is one file under docs/charts and its title, the alt text in the README.
type chart struct{ file, title string }

// matchesOf is the sub-benchmark name at 10,000 users for a result size.
func matchesOf(m int) string { return fmt.Sprintf("ListByRole/users=10000/matches=%d", m) }

// makeCharts draws every chart that the results allow into dir, in format
// (svg, or png to look at them). load may be nil.
func makeCharts(dir, format string, compare, load *resultSet) ([]chart, error) {
	type spec struct {
		chart
		draw    func(rs *resultSet, title string) ([]*plot.Plot, error)
		results *resultSet
	}
	specs := []spec{
		{chart{"time-per-stage", "Time per request, per stage (ListByRole, 10,000 users)"}, timePerStage, compare},
		{chart{"allocs-per-stage", "Allocations per request, per stage (ListByRole, 10,000 users)"}, allocsPerStage, compare},
		{chart{"time-vs-users", "Time against the number of users (ListByRole, 100 matches)"}, timeAgainstUsers, compare},
	}
	if load != nil {
		specs = append(specs, spec{chart{"http-percentiles", "HTTP latency percentiles at a fixed rate, per stage"}, httpPercentiles, load})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var charts []chart
	for _, s := range specs {
		plots, err := s.draw(s.results, s.title)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		s.file += "." + format
		if err := save(filepath.Join(dir, s.file), format, plots); err != nil {
			return nil, err
		}
		charts = append(charts, s.chart)
	}
	return charts, nil
}

// stageNames are the names of the stages in rs, for the x axis.
func stageNames(rs *resultSet) []string {
	var names []string
	for _, s := range rs.stages {
		names = append(names, s.name)
	}
	return names
}

// medians is a series of each stage's median of bench in unit (NaN where
// the stage has none).
func medians(rs *resultSet, label, bench, unit string) series {
	s := series{label: label}
	for _, st := range rs.stages {
		v, ok := st.median(bench, unit)
		if !ok {
			v = math.NaN()
		}
		s.values = append(s.values, v)
	}
	return s
}

// newPlot is a plot with the stages on the x axis.
func newPlot(title, yLabel string, stages []string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.NominalX(stages...)
	p.X.Tick.Label.Font.Size = 9
	p.Legend.TextStyle.Font.Size = 10
	return p
}

// timePerStage draws the median time of ListByRole at 100 and 1,000
// matches per stage, on a log scale: the floor is orders of magnitude below.
func timePerStage(rs *resultSet, title string) ([]*plot.Plot, error) {
	p := newPlot(title, "time per request (median, log scale)", stageNames(rs))
	err := addBars(p, []series{
		medians(rs, "100 matches", matchesOf(100), "sec/op"),
		medians(rs, "1,000 matches", matchesOf(1000), "sec/op"),
	}, true, seconds)
	return []*plot.Plot{p}, err
}

// allocsPerStage draws the allocations per request of ListByRole at 100
// and 1,000 matches per stage, on a linear scale: zero must show.
func allocsPerStage(rs *resultSet, title string) ([]*plot.Plot, error) {
	p := newPlot(title, "allocations per request (median)", stageNames(rs))
	err := addBars(p, []series{
		medians(rs, "100 matches", matchesOf(100), "allocs/op"),
		medians(rs, "1,000 matches", matchesOf(1000), "allocs/op"),
	}, false, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) })
	return []*plot.Plot{p}, err
}

// timeAgainstUsers draws one line per stage through the users=U/matches=100
// benchmarks, on log-log axes: a linear scan rises with U, an index stays flat.
func timeAgainstUsers(rs *resultSet, title string) ([]*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "users (log scale)"
	p.Y.Label.Text = "time per request (median, log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	p.Y.Tick.Marker = logTicks{tickSeconds}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = 10
	lines := 0
	for k, s := range rs.stages {
		var xys plotter.XYs
		for _, users := range usersAt100(s) {
			if t, ok := s.median(fmt.Sprintf("ListByRole/users=%d/matches=100", users), "sec/op"); ok && t > 0 {
				xys = append(xys, plotter.XY{X: float64(users), Y: t})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color, points.Shape = plotutil.Color(k), plotutil.Color(k), plotutil.Shape(k)
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		lines++
	}
	if lines == 0 {
		return nil, fmt.Errorf("no ListByRole/users=U/matches=100 results")
	}
	p.Y.Max *= 10 // room for the legend
	return []*plot.Plot{p}, nil
}

// usersAt100 are the data set sizes that s has a ListByRole result with
// 100 matches for, in ascending order.
func usersAt100(s *stageResult) []int {
	var users []int
	for m := range s.samples {
		base, keys := nameKeys(m.bench)
		u, err := strconv.Atoi(keys["users"])
		if base == "ListByRole" && keys["matches"] == "100" && err == nil && !slices.Contains(users, u) {
			users = append(users, u)
		}
	}
	slices.Sort(users)
	return users
}

// httpPercentiles draws p50, p95 and p99 of the fixed-rate load test per
// stage, one panel per result size.
func httpPercentiles(rs *resultSet, title string) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	for _, t := range fixedRateTests(rs) {
		p := newPlot(fmt.Sprintf("%d matches at %d requests/s", t.matches, t.rate), "latency (log scale)", stageNames(rs))
		if len(plots) == 0 {
			p.Title.Text = title + "\n" + p.Title.Text
		} else {
			p.Title.Text = "\n" + p.Title.Text // level with the first panel's second line
		}
		err := addBars(p, []series{
			medians(rs, "p50", t.bench, "p50-sec"),
			medians(rs, "p95", t.bench, "p95-sec"),
			medians(rs, "p99", t.bench, "p99-sec"),
		}, true, seconds)
		if err != nil {
			return nil, err
		}
		if len(plots) > 0 {
			p.Legend = plot.NewLegend() // the first panel's says it for both
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("no HTTPFixedRate results with p50 in %s", rs.dir)
	}
	return plots, nil
}

// fixedRateTest is one fixed-rate load test: HTTPFixedRate/rate=R/matches=M.
type fixedRateTest struct {
	bench         string
	rate, matches int
}

// fixedRateTests are the fixed-rate tests of a load result set, by result size.
func fixedRateTests(rs *resultSet) []fixedRateTest {
	var tests []fixedRateTest
	for m := range rs.stages[0].samples {
		base, keys := nameKeys(m.bench)
		rate, errRate := strconv.Atoi(keys["rate"])
		matches, errMatches := strconv.Atoi(keys["matches"])
		if base == "HTTPFixedRate" && m.unit == "p50-sec" && errRate == nil && errMatches == nil {
			tests = append(tests, fixedRateTest{m.bench, rate, matches})
		}
	}
	slices.SortFunc(tests, func(a, b fixedRateTest) int { return cmp.Or(a.matches-b.matches, a.rate-b.rate) })
	return tests
}

// save writes plots side by side into one file.
func save(file, format string, plots []*plot.Plot) error {
	w, h := vg.Length(len(plots))*16*vg.Centimeter+4*vg.Centimeter, 10*vg.Centimeter
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Centimeter, PadTop: 2, PadBottom: 2, PadLeft: 2, PadRight: 4}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, draw.New(c))
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var out bytes.Buffer
	if _, err := c.WriteTo(&out); err != nil {
		return err
	}
	data := out.Bytes()
	if format == "svg" {
		// The SVG names the font it was measured with and does not embed it
		// (that would add 300 KB to each chart). Arial has the same metrics,
		// so a browser without Liberation Sans still lays the text out right.
		data = bytes.ReplaceAll(data, []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	}
	return os.WriteFile(file, data, 0o644)
}
