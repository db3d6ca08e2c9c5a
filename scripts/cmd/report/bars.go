package main

import (
	"errors"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one set of bars in a grouped bar chart: one value per group.
// A value of zero or less draws no bar; NaN, a missing value, not even a
// label.
type series struct {
	label  string
	values []float64
}

// bars draws one series. plotter.BarChart starts its bars at zero, which a
// log scale cannot show; these start at the bottom of the axis, which is
// zero on a linear scale and the smallest tick on a log one.
type bars struct {
	values []float64
	offset vg.Length // of this series within its group
	width  vg.Length
	color  color.Color
}

// Plot implements plot.Plotter.
func (b bars) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	for i, v := range b.values {
		if !(v > 0) { // also NaN
			continue
		}
		left := x(float64(i)) + b.offset - b.width/2
		rect := []vg.Point{{X: left, Y: c.Min.Y}, {X: left, Y: y(v)}, {X: left + b.width, Y: y(v)}, {X: left + b.width, Y: c.Min.Y}}
		c.FillPolygon(b.color, c.ClipPolygonY(rect))
	}
}

// DataRange implements plot.DataRanger: the groups and the values above zero.
func (b bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.values {
		if v > 0 {
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	return 0, float64(len(b.values) - 1), ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer, so that the plot leaves room for
// the bars of the first and the last group.
func (b bars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(b.values))
	for i := range b.values {
		boxes[i].X = p.X.Norm(float64(i))
		boxes[i].Rectangle = vg.Rectangle{
			Min: vg.Point{X: b.offset - b.width/2},
			Max: vg.Point{X: b.offset + b.width/2},
		}
	}
	return boxes
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (b bars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}

// addBars adds the series side by side in each group, with each value
// written above its bar by format, and sets the value axis to start at
// zero, or on a log scale just below the smallest value.
func addBars(p *plot.Plot, all []series, logScale bool, format func(float64) string) error {
	drawable := func(v float64) bool { return v > 0 || v == 0 && !logScale }
	if !slices.ContainsFunc(all, func(s series) bool { return slices.ContainsFunc(s.values, drawable) }) {
		return errors.New("no results to draw")
	}
	const width = vg.Length(14)
	for k, s := range all {
		b := bars{values: s.values, width: width, color: plotutil.Color(k),
			offset: (vg.Length(k) - vg.Length(len(all)-1)/2) * width}
		p.Add(b)
		p.Legend.Add(s.label, b)
		var xys plotter.XYs
		var labels []string
		for i, v := range s.values {
			if drawable(v) {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
				labels = append(labels, format(v))
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = 7
			l.TextStyle[i].Rotation = math.Pi / 2 // upright text would overlap the next bar's
			l.TextStyle[i].XAlign = text.XLeft
			l.TextStyle[i].YAlign = text.YCenter
		}
		l.Offset = vg.Point{X: b.offset, Y: 2}
		p.Add(l)
	}
	if logScale {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{format}
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(p.Y.Min)))
		p.Y.Max *= 10 // room for the labels above the tallest bar
	} else {
		p.Y.Min = 0
		p.Y.Max *= 1.25
		p.Y.Tick.Marker = plainTicks{}
	}
	return nil
}
