package main

import (
	"fmt"
	"go/version"
	"html/template"
	"image/color"
	"slices"

	"example.com/userperf/scripts/internal/figures"
)

// drawChart draws the room's chart with internal/figures: a band per exercise, split per Go
// release where the room mixes them, each right answer's speed-up and guess, and the median.
func drawChart(v roomView) template.HTML {
	title := "Speed-up against the start, right answers"
	mixed := len(v.Releases) > 1
	releases := []string{""} // one band per exercise: every hand-in
	if mixed {
		title, releases = title+", per Go release", v.Releases
	}
	var values []float64
	var bands []figures.RoomBand
	for i, ex := range v.Exercises {
		for k, release := range releases {
			b := figures.RoomBand{Label: ex.Name, Colour: rgb(ex.Colour), Median: ex.Median}
			if mixed {
				b.Label += "\n" + trimGo(releaseLabel(release))
				b.Median = ex.ByRelease[k].Median
			}
			for _, h := range v.HandIns {
				if c := h.Cells[i]; c.Passed && c.Ratio > 0 && (!mixed || version.Lang(h.Release) == release) {
					b.Measured = append(b.Measured, figures.RoomPoint{Ratio: c.Ratio, Told: c.Told})
					values = append(values, c.Ratio)
					if c.GuessRatio > 0 {
						b.Guesses = append(b.Guesses, c.GuessRatio)
						values = append(values, c.GuessRatio)
					}
				}
			}
			bands = append(bands, b)
		}
	}
	lo, hi := scale(values)
	svg, err := figures.RoomChart(title, bands, lo, hi)
	if err != nil {
		return template.HTML(template.HTMLEscapeString("the chart: " + err.Error()))
	}
	return template.HTML(svg) // drawn by gonum from numbers and the exercises' names, which it escapes
}

// rgb is an exercise's colour, "#1f77b4", for gonum; grey for what is not one.
func rgb(hex string) color.Color {
	var r, g, b uint8
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return color.Gray{Y: 0x55}
	}
	return color.RGBA{R: r, G: g, B: b, A: 0xff}
}

// outlier is how far from the values' median, either way, a value may lie and still widen the chart's
// scale: one hand-in far from the others would otherwise flatten them all onto one line.
const outlier = 10

// scale is the chart's range for values: at least half as fast to twice as fast, as far as the values
// within outlier of their median reach, with room for a dot's radius at either end.
func scale(values []float64) (lo, hi float64) {
	lo, hi = 0.5, 2.0
	if len(values) > 0 {
		sorted := slices.Sorted(slices.Values(values))
		median := sorted[len(sorted)/2]
		for _, x := range sorted {
			if x >= median/outlier && x <= median*outlier {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	return lo / 1.25, hi * 1.25
}
