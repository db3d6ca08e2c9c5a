package main

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"example.com/userperf/scripts/internal/results"
)

// The page is made for a projector at 1280x720 read from the back of a
// room: large type, one column per exercise, a few words per cell, and the
// chart under the table. Every field goes through html/template, which
// escapes it for where it stands.
var page = template.Must(template.New("page").Funcs(template.FuncMap{"times": times}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
{{if .Refresh}}<meta http-equiv="refresh" content="{{.Refresh}}">{{end}}
<title>The room: {{len .Rows}} participants</title>
<style>
body { font: 22px/1.25 system-ui, "Segoe UI", Helvetica, Arial, sans-serif; margin: 12px 20px; color: #111; background: #fff; }
h1 { font-size: 28px; margin: 0 0 4px; }
h1 small { font-size: 18px; font-weight: normal; color: #555; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ccc; text-align: left; vertical-align: top; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
th.ex { border-top: 8px solid; }
th small, td small { display: block; font-size: 16px; font-weight: normal; color: #555; }
td.who { font-weight: bold; }
tr.room td { background: #f3f3f3; border-bottom: 3px solid #888; }
.ok { color: #0a7d28; font-weight: bold; }
.wrong { color: #c00; font-weight: bold; }
.none { color: #999; }
.ratio { font-weight: bold; }
.unsure { color: #777; font-weight: normal; }
.mark { display: inline-block; min-width: 1.2em; padding: 0 4px; margin-left: 4px; border-radius: 6px; background: #f5a623; color: #000; font-weight: bold; text-align: center; }
.guess { color: #333; }
p.key { font-size: 16px; color: #444; margin: 6px 0; }
svg { display: block; width: 100%; height: auto; max-height: 300px; }
</style></head>
<body>
<h1>The room <small>{{len .Rows}} participant{{if ne (len .Rows) 1}}s{{end}}{{with .Send}} · hand in: <code>{{.}}</code>{{end}}</small></h1>
{{with .Refused}}<p class="key">{{.}} new participant{{if ne . 1}}s{{end}} refused: too many from one address in a minute</p>{{end}}
{{if not .Rows}}<p>No hand-in yet.</p>{{else}}
<table id="room">
<colgroup><col style="width: {{.NameWidth}}%">{{range .Exercises}}<col>{{end}}</colgroup>
<thead><tr><th>who</th>{{range .Exercises}}<th class="ex" style="border-top-color: {{.Colour}}">{{.Name}}<small>from {{or .Start "?"}}</small></th>{{end}}</tr></thead>
<tbody>
<tr class="room"><td class="who">room median</td>{{range .Exercises}}<td>{{if .Answers}}<span class="ratio">{{times .Median}}</span><small>of {{.Answers}}{{if .Guesses}} · guessed {{times .GuessMedian}}</small><small>guesses off {{times .Off}}{{end}}</small>{{else}}<span class="none">—</span>{{end}}</td>{{end}}</tr>
{{range .Rows}}<tr class="participant"><td class="who">{{.Name}}<small>{{with .Tag}}#{{.}} · {{end}}{{.Machine}}</small></td>{{range .Cells}}<td>{{template "cell" .}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p class="key"><span class="ok">✓</span> passed, with the speed-up against the exercise's start on the participant's machine ·
<span class="mark">?</span> cannot tell: within that machine's noise · <span class="wrong">✗</span> a check failed: its speed does not count ·
off: the median factor between a guess and its measurement</p>
{{template "chart" .Chart}}
{{end}}
</body></html>
{{define "cell"}}{{if .Passed}}<span class="ok">✓</span> {{if .Ratio}}{{if .Told}}<span class="ratio">{{times .Ratio}}</span>{{else}}<span class="ratio unsure">{{times .Ratio}}</span><span class="mark" title="cannot tell">?</span>{{end}}{{end}}{{else if .Failed}}<span class="wrong">✗ wrong</span>{{else if .Handed}}<span class="none">not checked</span>{{else}}<span class="none">—</span>{{end}}{{if .Guess}}<small class="guess">guess {{.Guess}}</small>{{end}}{{end}}
{{define "chart"}}<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.W}} {{.H}}" font-family="system-ui, Helvetica, Arial, sans-serif" role="img" aria-label="{{.Title}}">
<rect width="{{.W}}" height="{{.H}}" fill="#fff"/>
<text x="{{.Left}}" y="24" font-size="20" font-weight="bold">{{.Title}}</text>
<g font-size="15" fill="#333"><circle cx="{{.KeyX 0}}" cy="20" r="7" fill="#555"/><text x="{{.KeyX 12}}" y="25">measured</text>
<circle cx="{{.KeyX 100}}" cy="20" r="7" fill="#fff" stroke="#555" stroke-width="2" stroke-dasharray="3 2"/><text x="{{.KeyX 112}}" y="25">cannot tell</text>
<path d="M{{.KeyX 210}} 13 l7 7 l-7 7 l-7 -7 z" fill="none" stroke="#555" stroke-width="2"/><text x="{{.KeyX 222}}" y="25">guess</text>
<rect x="{{.KeyX 280}}" y="18" width="24" height="5" fill="#555"/><text x="{{.KeyX 310}}" y="25">room median</text></g>
{{range .Ticks}}<line x1="{{$.Left}}" x2="{{$.Right}}" y1="{{.Y}}" y2="{{.Y}}" stroke="{{if .One}}#000{{else}}#ddd{{end}}" stroke-width="{{if .One}}2{{else}}1{{end}}"/>
<text x="{{$.TickX}}" y="{{.Y}}" dy="5" font-size="15" text-anchor="end">{{.Label}}</text>{{end}}
{{range .Groups}}<g><rect x="{{.X}}" y="{{$.Top}}" width="{{.W}}" height="{{$.PlotH}}" fill="{{.Colour}}" fill-opacity="0.06"/>
<text x="{{.Mid}}" y="{{$.LabelY}}" font-size="18" font-weight="bold" text-anchor="middle" fill="{{.Colour}}">{{.Name}}</text>
{{with .Median}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="5" fill="{{.Colour}}"/>{{end}}
{{range .Guesses}}<line x1="{{.X}}" x2="{{.X}}" y1="{{.From}}" y2="{{.Y}}" stroke="#999" stroke-width="1.5" stroke-dasharray="3 3"/><path d="M{{.X}} {{.Y}} m0 -7 l7 7 l-7 7 l-7 -7 z" fill="none" stroke="#555" stroke-width="2"/>{{end}}
{{range .Dots}}{{if .Told}}<circle cx="{{.X}}" cy="{{.Y}}" r="8" fill="{{.Colour}}"/>{{else}}<circle cx="{{.X}}" cy="{{.Y}}" r="8" fill="#fff" stroke="{{.Colour}}" stroke-width="3" stroke-dasharray="4 3"/>{{end}}{{end}}</g>
{{end}}</svg>{{end}}`))

// pageData is what the page template shows.
type pageData struct {
	roomView
	Refresh   int    // seconds between reloads, 0 for a page that stays
	Send      string // the command that hands in to this room, "" offline
	NameWidth int    // the share of the width of the names' column
	Chart     chart
}

func writePage(w io.Writer, v roomView, refresh int, send string) error {
	return page.Execute(w, pageData{v, refresh, send, max(16, 100/(len(v.Exercises)+2)), drawChart(v)})
}

// writeChart writes the chart alone, an SVG file.
func writeChart(w io.Writer, v roomView) error {
	return page.ExecuteTemplate(w, "chart", drawChart(v))
}

func times(r float64) string { return results.Times(r) }

// chart is the room's chart laid out: per exercise, a band in its colour
// with each right answer's speed-up as a dot, hollow when its check could not
// tell, each prediction as a diamond and the room's median as a bar, on a log
// scale that every figure fits in.
type chart struct {
	W, H, Left, Right, Top, PlotH, TickX, LabelY float64
	Title                                        string
	Ticks                                        []tick
	Groups                                       []group
}

type tick struct {
	Y     float64
	Label string
	One   bool
}

type group struct {
	Name, Colour  string
	X, W, Mid     float64
	Median        *bar
	Dots, Guesses []dot
}

type bar struct {
	X, Y, W float64
	Colour  string
}

type dot struct {
	X, Y   float64
	From   float64 // a guess's measurement, which a line joins it to
	Told   bool
	Colour string
}

// KeyX places the legend's items from the right end of the title line.
func (c chart) KeyX(offset float64) float64 { return c.Right - 420 + offset }

func drawChart(v roomView) chart {
	c := chart{W: 1200, H: 300, Left: 70, Right: 1185, Top: 40, PlotH: 226, TickX: 62,
		Title: "Speed-up against the start, right answers, log scale"}
	c.LabelY = c.Top + c.PlotH + 26
	lo, hi := 0.5, 2.0 // the scale shows at least half as fast to twice as fast
	for _, r := range v.Rows {
		for _, cl := range r.Cells {
			for _, x := range []float64{cl.Ratio, cl.GuessRatio} {
				if cl.Passed && cl.Ratio > 0 && x > 0 {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
	}
	lo, hi = lo/1.25, hi*1.25 // room for a dot's radius at either end
	y := func(r float64) float64 {
		return c.Top + c.PlotH*(1-(math.Log(r)-math.Log(lo))/(math.Log(hi)-math.Log(lo)))
	}
	for _, t := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if t >= lo && t <= hi {
			c.Ticks = append(c.Ticks, tick{y(t), fmt.Sprintf("%gx", t), t == 1})
		}
	}
	n := float64(max(1, len(v.Exercises)))
	width := (c.Right - c.Left) / n
	for i, ex := range v.Exercises {
		g := group{Name: ex.Name, Colour: ex.Colour, X: c.Left + float64(i)*width + 6, W: width - 12}
		g.Mid = g.X + g.W/2
		if ex.Answers > 0 {
			g.Median = &bar{g.X + 8, y(ex.Median) - 2.5, g.W - 16, ex.Colour}
		}
		var answers []cell
		for _, r := range v.Rows {
			if cl := r.Cells[i]; cl.Passed && cl.Ratio > 0 {
				answers = append(answers, cl)
			}
		}
		// The dots spread across the band, so that equal answers stay apart.
		step := min(36, (g.W-40)/float64(max(1, len(answers))))
		first := g.Mid - step*float64(len(answers)-1)/2
		for j, cl := range answers {
			x := first + step*float64(j)
			g.Dots = append(g.Dots, dot{x, y(cl.Ratio), 0, cl.Told, ex.Colour})
			if cl.GuessRatio > 0 {
				g.Guesses = append(g.Guesses, dot{x, y(cl.GuessRatio), y(cl.Ratio), true, ex.Colour})
			}
		}
		c.Groups = append(c.Groups, g)
	}
	return c
}
