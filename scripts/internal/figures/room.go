package figures

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// RoomBand is a column of the room's chart: one exercise's right answers, or one Go release's of them.
type RoomBand struct {
	Label    string // under the column: "ex1", or "ex1\n1.26"
	Colour   color.Color
	Median   float64 // of the speed-ups, 0 for none
	Measured []RoomPoint
	Guesses  []float64 // the predictions that are ratios
}

// RoomPoint is a right answer's speed-up, and whether its check could tell it from its noise.
type RoomPoint struct {
	Ratio float64
	Told  bool
}

// RoomChart draws the room's chart as SVG: per band, each speed-up as a dot (a ring where the check
// could not tell), each guess as a cross, the median as a bar, on a log scale from lo to hi.
func RoomChart(title string, bands []RoomBand, lo, hi float64) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.ConstantTicks(roomTicks(lo, hi))
	p.Y.Min, p.Y.Max = lo, hi
	p.X.Min, p.X.Max = -0.5, float64(len(bands))-0.5
	p.Add(plotter.NewGrid())
	one, _ := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: 1}, {X: p.X.Max, Y: 1}})
	one.Width = vg.Points(1.5)
	p.Add(one)
	var labels []plot.Tick
	for i, b := range bands {
		labels = append(labels, plot.Tick{Value: float64(i), Label: b.Label})
		if b.Median > 0 {
			bar, _ := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.4, Y: b.Median}, {X: float64(i) + 0.4, Y: b.Median}})
			bar.Color, bar.Width = b.Colour, vg.Points(4)
			p.Add(bar)
		}
		// The marks spread across the band, so that equal answers stay apart.
		x := func(j, n int) float64 { return float64(i) - 0.35 + 0.7*(float64(j)+0.5)/float64(max(1, n)) }
		for j, m := range b.Measured {
			dot, _ := plotter.NewScatter(plotter.XYs{{X: x(j, len(b.Measured)), Y: clamp(m.Ratio, lo, hi)}})
			dot.GlyphStyle = draw.GlyphStyle{Color: b.Colour, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			if !m.Told {
				dot.GlyphStyle.Shape = draw.RingGlyph{}
			}
			p.Add(dot)
		}
		for j, g := range b.Guesses {
			cross, _ := plotter.NewScatter(plotter.XYs{{X: x(j, len(b.Guesses)), Y: clamp(g, lo, hi)}})
			cross.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 0x55}, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}
			p.Add(cross)
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(labels)
	p.X.Label.Text = "dot: measured · ring: cannot tell · ×: a guess · bar: the median"
	p.Y.Label.Text = "speed-up, log scale"
	canvas := vgsvg.New(16*vg.Centimeter, 6*vg.Centimeter) // small: scaled to a screen's width, its type reads from afar
	p.Draw(draw.New(canvas))
	return svgText(canvas)
}

// roomTicks are the ticks of a speed-up's log scale between lo and hi, 1x among them.
func roomTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if t >= lo && t <= hi {
			ticks = append(ticks, plot.Tick{Value: t, Label: fmt.Sprintf("%gx", t)})
		}
	}
	return ticks
}

// clamp puts a value beyond the scale at its edge.
func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
