package main

import (
	"bytes"
	"os"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Sizes of a chart: panels one above the other, a column for the legend on
// their right, and a strip along the bottom for the footer.
const (
	panelHeight = 9 * vg.Centimeter
	margin      = 0.3 * vg.Centimeter
)

// panelWidth is the width of a panel with a group of bars for each of n
// stages: enough for the bars of a group and the words of its label.
func panelWidth(n int) vg.Length {
	return max(15*vg.Centimeter, 3*vg.Centimeter+vg.Length(n)*2*vg.Centimeter)
}

// save writes plots into one file, in format, one above the other, each
// wide enough for the stages it shows. The legend of the first plot goes
// into a column of its own on the right, where it covers neither a title
// nor the data, and footer, the provenance line of the figures, goes along
// the bottom.
func save(file, format string, plots []*plot.Plot, stages int, footer string) error {
	legend := plots[0].Legend
	legend.TextStyle.Font.Size = 10
	legend.Top, legend.Left = true, true
	for _, p := range plots {
		p.Legend = plot.NewLegend() // drawn once, below, outside the panels
	}
	legendWidth := legend.Rectangle(draw.Canvas{}).Size().X
	legendWidth += 2 * margin // without a legend, a margin on the right
	w := panelWidth(stages) + legendWidth
	style := text.Style{Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XLeft, YAlign: draw.YBottom}
	style.Font.Size = 7
	lines := footerLines(footer, func(line string) bool { return style.Width(line) <= w-2*margin })
	lineHeight := style.Height("M")
	footerHeight := 2*margin + vg.Length(len(lines))*lineHeight
	h := vg.Length(len(plots))*panelHeight + footerHeight
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)

	for i, line := range lines {
		dc.FillText(style, vg.Point{X: margin, Y: margin + vg.Length(len(lines)-1-i)*lineHeight}, line)
	}

	area := draw.Crop(dc, 0, -legendWidth, footerHeight, 0)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: 0.5 * vg.Centimeter, PadTop: 2, PadBottom: 2, PadLeft: 2, PadRight: 4}
	column := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		column[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(column, tiles, area)
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	// The legend starts level with the top of the data, below the titles.
	dataTop := plots[0].DataCanvas(canvases[0][0]).Max.Y
	legend.Draw(draw.Crop(dc, w-legendWidth+margin, 0, footerHeight, dataTop-h))

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

// footerLines breaks a provenance line into lines that fit: the machine,
// the date and the commit on the first, and the command, which can be long,
// on as many as it needs, broken at its spaces.
func footerLines(footer string, fits func(line string) bool) []string {
	first, command, ok := strings.Cut(footer, ", by `")
	if !ok {
		return []string{footer}
	}
	lines := []string{first + ","}
	line := ""
	for _, word := range strings.Fields("by `" + command) {
		if line != "" && !fits(line+" "+word) {
			lines, line = append(lines, line), ""
		}
		line = strings.TrimPrefix(line+" "+word, " ")
	}
	return append(lines, line)
}
