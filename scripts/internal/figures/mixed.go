package figures

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"example.com/userperf/scripts/internal/results"
)

// MixedWrites and MixedClients are the shares of writes (percent) and the
// client counts of BenchmarkMixed, as common/bench measures them.
var (
	MixedWrites  = []int{0, 1, 10, 50}
	MixedClients = []int{1, 16}
)

// MixedBench names BenchmarkMixed's result at writes percent and clients.
func MixedBench(writes, clients int) string {
	return fmt.Sprintf("Mixed/users=10000/writes=%d/clients=%d", writes, clients)
}

// MixedChart is time per request against the share of writes, a line per
// stage, in a panel per client count.
func MixedChart(files []*results.File) Chart {
	var panels []panel
	for _, clients := range MixedClients {
		var points []series
		for _, w := range MixedWrites {
			points = append(points, series{fmt.Sprintf("%d%%", w), MixedBench(w, clients), "sec/op"})
		}
		title := fmt.Sprintf("%d client%s", clients, map[bool]string{true: "s"}[clients > 1])
		panels = append(panels, panel{title, "median time per request, log scale", true, results.Duration, points, true})
	}
	return Chart{"mixed.svg", "Time per request against the share of writes, per stage (10,000 users)", files, panels}
}

// lines draws a panel as a line per file through its medians at the
// panel's series, in order, on a log scale; nil without results.
func lines(files []*results.File, pn panel) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.Y.Label.Text, p.X.Label.Text = pn.title, pn.yLabel, "share of writes"
	p.Legend.Top, p.Legend.Left, p.Legend.TextStyle.Font.Size = true, true, 9
	p.Y.Label.TextStyle.Font.Size, p.X.Tick.Label.Font.Size = 10, 9
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{pn.format}
	var names []string
	for _, s := range pn.series {
		names = append(names, s.label)
	}
	p.NominalX(names...)
	shown := 0
	for k, f := range files {
		var xys plotter.XYs
		for i, s := range pn.series {
			if v, ok := f.Median(s.bench, s.unit); ok && v > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue // NaN or infinite medians; a median of samples is neither
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(k), plotutil.Color(k), plotutil.Shape(k)
		l.Dashes, l.Width = plotutil.Dashes(k/len(plotutil.DefaultColors)), vg.Points(1.2)
		p.Add(l, pts)
		p.Legend.Add(f.Name, l, pts)
		shown++
	}
	if shown == 0 {
		return nil
	}
	p.Y.Max *= 3 // room for the legend above the lines
	return p
}

// MixedTable is a markdown table of the medians of BenchmarkMixed: a row
// per stage, a column per share of writes and client count, and for 16
// clients the mean time a read took; under it, where each step stops
// paying against the one before it with one client.
func MixedTable(files []*results.File, isStep func(string) bool) string {
	head, align := "| stage |", "|---|"
	for _, c := range MixedClients {
		for _, w := range MixedWrites {
			head, align = head+fmt.Sprintf(" %d%%, %d |", w, c), align+"---:|"
		}
	}
	head, align = head+" read wait, 50%, 16 |", align+"---:|"
	rows := []string{head, align}
	for _, f := range files {
		row := "| " + f.Name + " |"
		for _, c := range MixedClients {
			for _, w := range MixedWrites {
				row += " " + median(f, MixedBench(w, c), "sec/op") + " |"
			}
		}
		rows = append(rows, row+" "+median(f, MixedBench(50, 16), "read-wait-sec/op")+" |")
	}
	return strings.Join(rows, "\n") + "\n\n" + crossovers(files, isStep)
}

// median is f's median at bench in unit as a duration, or "—".
func median(f *results.File, bench, unit string) string {
	if v, ok := f.Median(bench, unit); ok {
		return results.Duration(v)
	}
	return "—"
}

// crossovers says, for each step after the first, the smallest share of
// writes at which, with one client, it is no longer faster than the step
// before it by benchstat's test and the run's floor (results.Compare).
func crossovers(files []*results.File, isStep func(string) bool) string {
	var lines []string
	var previous *results.File
	unitName := "wall time"
	for _, f := range files {
		if !isStep(f.Name) {
			continue
		}
		if previous != nil {
			at := "pays at every share measured"
			for _, w := range MixedWrites {
				c, err := results.Compare(previous, nil, f, MixedBench(w, 1))
				if err == nil {
					unitName = c.UnitName
				}
				if err == nil && !(c.Decided && c.Ratio > 1) {
					at = fmt.Sprintf("stops paying at %d%% writes", w)
					if w == MixedWrites[0] {
						at = "does not pay even without writes"
					}
					break
				}
			}
			lines = append(lines, fmt.Sprintf("- %s against %s, one client: %s", f.Name, previous.Name, at))
		}
		previous = f
	}
	if len(lines) == 0 {
		return ""
	}
	return "Crossovers (the first share of writes at which a step is not decidedly faster than the one before it, by " +
		unitName + "):\n\n" + strings.Join(lines, "\n") + "\n\n"
}

// logTicks marks a log axis at the powers of ten, in format and without
// needless zeros (10µs, not 1e-05).
type logTicks struct{ format func(float64) string }

func (t logTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = zeroFraction.ReplaceAllString(t.format(ticks[i].Value), "$1$2")
		}
	}
	return ticks
}
