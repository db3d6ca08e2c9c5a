package main

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func init() {
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	plot.DefaultFont, plotter.DefaultFont = sans, sans
}

// chart is one file under docs/charts and its title, the alt text in the
// README; fromLoad marks the chart of load.sh's results.
type chart struct {
	file, title string
	fromLoad    bool
}

// matchesOf is the sub-benchmark name at 10,000 users for a result size.
func matchesOf(m int) string { return fmt.Sprintf("ListByRole/users=10000/matches=%d", m) }

// makeCharts draws every chart that the results allow into dir, in format
// (svg, or png to look at them). load may be nil.
func makeCharts(dir, format string, compare, load []*results.File) ([]chart, error) {
	type spec struct {
		chart
		draw  func(files []*results.File, title string) ([]*plot.Plot, error)
		files []*results.File
	}
	specs := []spec{
		{chart{"time-per-stage", "Time per request, per stage (ListByRole, 10,000 users)", false}, timePerStage, compare},
		{chart{"allocs-per-stage", "Allocations per request, per stage (ListByRole, 10,000 users)", false}, allocsPerStage, compare},
		{chart{"time-vs-users", "Time against the number of users (ListByRole, 100 matches)", false}, timeAgainstUsers, compare},
	}
	if has(compare, writeBench, "sec/op") || has(compare, buildBench, heldUnit) {
		specs = append(specs, spec{chart{"writes-and-memory", "Cost of a write and heap held per user, per stage (10,000 users)", false}, writesAndMemory, compare})
	}
	if load != nil {
		specs = append(specs, spec{chart{"http-percentiles", "HTTP latency at a fixed rate, per stage: the median of each round's percentiles", true}, httpPercentiles, load})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var charts []chart
	for _, s := range specs {
		plots, err := s.draw(s.files, s.title)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		s.file += "." + format
		if err := save(filepath.Join(dir, s.file), format, plots, len(s.files), provenance.Line(s.files[0].Config)); err != nil {
			return nil, err
		}
		charts = append(charts, s.chart)
	}
	return charts, nil
}

// stageNames are the names of the stages in files, for the x axis.
func stageNames(files []*results.File) []string {
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	return names
}

// medians is a series of each stage's median of bench in unit (NaN where
// the stage has none).
func medians(files []*results.File, label, bench, unit string) series {
	s := series{label: label}
	for _, f := range files {
		v, ok := f.Median(bench, unit)
		if !ok {
			v = math.NaN()
		}
		s.values = append(s.values, v)
	}
	return s
}

// newPlot is a plot with the stages on the x axis, each name broken at its
// dashes (stage3 over parallel) so that long names do not run into their
// neighbours. The titles say what is measured; yLabel stays short,
// because the plot keeps room above the data for the length of it.
func newPlot(title, yLabel string, stages []string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Y.Label.TextStyle.Font.Size = 10
	var names []string
	for _, s := range stages {
		names = append(names, strings.ReplaceAll(s, "-", "\n"))
	}
	p.NominalX(names...)
	p.X.Tick.Label.Font.Size = 9
	return p
}

// timePerStage draws the median time of ListByRole at 100 and 1,000
// matches per stage, on a log scale: the floor is orders of magnitude below.
func timePerStage(files []*results.File, title string) ([]*plot.Plot, error) {
	p := newPlot(title, "median time, log scale", stageNames(files))
	err := addBars(p, []series{
		medians(files, "100 matches", matchesOf(100), "sec/op"),
		medians(files, "1,000 matches", matchesOf(1000), "sec/op"),
	}, true, results.Duration)
	return []*plot.Plot{p}, err
}

// allocsPerStage draws the allocations per request of ListByRole at 100
// and 1,000 matches per stage, on a linear scale: zero must show.
func allocsPerStage(files []*results.File, title string) ([]*plot.Plot, error) {
	p := newPlot(title, "median allocations", stageNames(files))
	err := addBars(p, []series{
		medians(files, "100 matches", matchesOf(100), "allocs/op"),
		medians(files, "1,000 matches", matchesOf(1000), "allocs/op"),
	}, false, func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) })
	return []*plot.Plot{p}, err
}

// writesAndMemory draws what the read path costs elsewhere: the time of
// one write (an Add and a Delete) and the heap held per user, per stage,
// one panel each, where the results have them.
func writesAndMemory(files []*results.File, title string) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	if has(files, writeBench, "sec/op") {
		p := newPlot("Time of one Add and one Delete", "median time, log scale", stageNames(files))
		if err := addBars(p, []series{medians(files, "write", writeBench, "sec/op")}, true, results.Duration); err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if has(files, buildBench, heldUnit) {
		p := newPlot("Heap held per user", "median bytes", stageNames(files))
		if err := addBars(p, []series{medians(files, "held per user", buildBench, heldUnit)}, false, bytesPerUser); err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	for _, p := range plots {
		p.Legend = plot.NewLegend() // one series each: the panel's title says it
	}
	plots[0].Title.Text = title + "\n" + plots[0].Title.Text
	return plots, nil
}

// timeAgainstUsers draws one line per stage through the users=U/matches=100
// benchmarks, on log-log axes: a linear scan rises with U, an index stays flat.
func timeAgainstUsers(files []*results.File, title string) ([]*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "users (log scale)"
	p.Y.Label.Text = "median time, log scale"
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = 10, 10
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	p.Y.Tick.Marker = logTicks{results.Duration}
	lines := 0
	for k, f := range files {
		var xys plotter.XYs
		for _, users := range usersAt100(f) {
			if t, ok := f.Median(fmt.Sprintf("ListByRole/users=%d/matches=100", users), "sec/op"); ok && t > 0 {
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
		if f.Name == stages.Floor { // a yardstick, not a stage: grey and dashed
			line.Color, points.Color = color.Gray{Y: 0x80}, color.Gray{Y: 0x80}
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(line, points)
		p.Legend.Add(f.Name, line, points)
		lines++
	}
	if lines == 0 {
		return nil, fmt.Errorf("no ListByRole/users=U/matches=100 results")
	}
	return []*plot.Plot{p}, nil
}

// usersAt100 are the data set sizes that f has a ListByRole result with
// 100 matches for, in ascending order.
func usersAt100(f *results.File) []int {
	var users []int
	for _, m := range f.Measurements() {
		base, keys := results.NameKeys(m.Bench)
		u, err := strconv.Atoi(keys["users"])
		if base == "ListByRole" && keys["matches"] == "100" && err == nil && !slices.Contains(users, u) {
			users = append(users, u)
		}
	}
	slices.Sort(users)
	return users
}

// httpPercentiles draws p50, p95 and p99 of the fixed-rate load test per
// stage, one panel per result size: the median over the rounds of each
// round's percentile, as benchstat summarizes the result files and as
// load.sh's table shows them.
func httpPercentiles(files []*results.File, title string) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	for _, t := range fixedRateTests(files[0]) {
		p := newPlot(fmt.Sprintf("%d matches at %d requests/s", t.matches, t.rate), "latency, log scale", stageNames(files))
		if len(plots) == 0 {
			p.Title.Text = title + "\n" + p.Title.Text
		}
		err := addBars(p, []series{
			medians(files, "p50", t.bench, "p50-sec"),
			medians(files, "p95", t.bench, "p95-sec"),
			medians(files, "p99", t.bench, "p99-sec"),
		}, true, results.Duration)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("no HTTPFixedRate results with p50 in %s", files[0].Path)
	}
	return plots, nil
}

// fixedRateTest is one fixed-rate load test: HTTPFixedRate/rate=R/matches=M.
type fixedRateTest struct {
	bench         string
	rate, matches int
}

// fixedRateTests are the fixed-rate tests of a load result file, by result size.
func fixedRateTests(f *results.File) []fixedRateTest {
	var tests []fixedRateTest
	for _, m := range f.Measurements() {
		base, keys := results.NameKeys(m.Bench)
		rate, errRate := strconv.Atoi(keys["rate"])
		matches, errMatches := strconv.Atoi(keys["matches"])
		if base == "HTTPFixedRate" && m.Unit == "p50-sec" && errRate == nil && errMatches == nil {
			tests = append(tests, fixedRateTest{m.Bench, rate, matches})
		}
	}
	slices.SortFunc(tests, func(a, b fixedRateTest) int { return cmp.Or(a.matches-b.matches, a.rate-b.rate) })
	return tests
}
