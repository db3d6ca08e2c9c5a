package main

import (
	"regexp"
	"strconv"

	"gonum.org/v1/plot"
)

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

// logTicks labels the powers of ten of a log axis with format, without the
// zeros after the point that a power of ten does not need: 10ms, not
// 10.00ms.
type logTicks struct{ format func(float64) string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = zeroFraction.ReplaceAllString(t.format(ticks[i].Value), "$1$2")
		}
	}
	return ticks
}

// zeroFraction is a decimal point followed by zeros only: 10.00ms, 1.000µs.
var zeroFraction = regexp.MustCompile(`^(\d+)\.0+(\D|$)`)
