package main

import (
	"strconv"

	"gonum.org/v1/plot"
)

// tickSeconds labels a time on an axis: 10ms, 1µs.
func tickSeconds(sec float64) string {
	for _, u := range []struct {
		name  string
		scale float64
	}{{"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}} {
		if sec >= u.scale {
			return strconv.FormatFloat(sec/u.scale, 'g', 3, 64) + u.name
		}
	}
	return strconv.FormatFloat(sec/1e-9, 'g', 3, 64) + "ns"
}

// plainTicks are plot.DefaultTicks labelled without trailing zeros.
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// logTicks labels the powers of ten of a log axis with format.
type logTicks struct{ format func(float64) string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.format(ticks[i].Value)
		}
	}
	return ticks
}
