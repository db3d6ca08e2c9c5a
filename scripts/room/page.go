package main

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"slices"
	"strings"
	"unicode"

	"example.com/userperf/scripts/internal/figures"
	"example.com/userperf/scripts/internal/results"
)

// The page is made for a projector at 1280x720 read from the back of a
// room. A few participants get large type, one column per exercise, a few
// words per cell, and the chart under the table. A larger room gets the
// dense view: the room's medians in one row, the participants in panels
// side by side, each cell the speed-up and the guess, on as few screens as
// hold everyone (one link each), with the chart under them where it fits,
// else on a screen of its own. Every field goes through html/template, which escapes it for where
// it stands.
var page = template.Must(template.New("page").Funcs(template.FuncMap{"times": times, "label": releaseLabel, "trimGo": trimGo, "u": px, "inc": func(i int) int { return i + 1 }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
{{if .Refresh}}<meta http-equiv="refresh" content="{{.Refresh}}">{{end}}
<title>The room: {{len .Rows}} participants</title>
<style>
body { font: 22px/1.25 system-ui, "Segoe UI", Helvetica, Arial, sans-serif; margin: 12px 20px 0; color: #111; background: #fff; }
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
.counted { font-weight: bold; color: #05506e; }
.unsure { color: #777; font-weight: normal; }
.mark { display: inline-block; min-width: 1.2em; padding: 0 4px; margin-left: 4px; border-radius: 6px; background: #f5a623; color: #000; font-weight: bold; text-align: center; }
.changed { display: inline-block; padding: 0 4px; margin-left: 4px; border-radius: 6px; border: 2px solid #c00; color: #c00; font-size: 0.7em; font-weight: bold; vertical-align: middle; }
.rel { font-weight: normal; color: #555; }
.line { display: block; }
td .line small { display: inline; }
.guess { color: #333; }
p.key, p.cut { font-size: 16px; color: #444; margin: 6px 0; }
p.cut { color: #8a3b00; }
svg { display: block; width: 100%; height: auto; max-height: 300px; }
{{if .Dense}}:root { --u: min(calc(100vw / {{.ScreenW}}), calc(100vh / {{.ScreenH}})); }
body { margin: {{u 6}} {{u 12}} 0; font-size: {{u .Font}}; line-height: {{u .Line}}; overflow: hidden; }
h1 { font-size: {{u 24}}; line-height: {{u 32}}; height: {{u 32}}; margin: 0 0 {{u 4}}; white-space: nowrap; overflow: hidden; }
h1 small, h1 nav, p.key, p.cut { font-size: {{u 16}}; }
h1 nav { float: right; position: relative; padding-left: {{u 12}}; background: #fff; font-weight: normal; }
h1 nav a { margin-left: {{u 8}}; }
.screen { display: none; }
.screen:target, body:not(:has(.screen:target)) .screen:first-of-type { display: block; }
#median th, #median td { font-size: {{u .Font}}; line-height: {{u .Line}}; height: {{u .Line}}; padding: 0 {{u 6}}; box-sizing: border-box; }
#median th { border-top: {{u 5}} solid; }
#median small { display: inline; font-size: {{u 16}}; margin-right: {{u 8}}; }
.panels { display: grid; grid-template-columns: repeat({{.PerScreen}}, minmax(0, 1fr)); column-gap: {{u 16}}; margin-top: {{u 6}}; }
.panels table { table-layout: auto; }
.panels th, .panels td { font-size: {{u .Font}}; line-height: {{u .Line}}; height: {{u .Line}}; padding: 0 {{u 4}}; border-bottom: 1px solid #e4e4e4; box-sizing: border-box; }
.panels th { border-bottom: {{u 2}} solid; white-space: nowrap; }
.panels td.who { width: 100%; max-width: 0; overflow: hidden; text-overflow: clip; }
.panels td.who small, .panels th small { display: inline; margin-left: 0.4em; font-size: {{u 16}}; }
.panels .guess { color: #444; font-weight: normal; }
.panels .mark, .panels .changed { min-width: 0; padding: 0 {{u 2}}; margin-left: {{u 2}}; border-radius: {{u 3}}; line-height: 1.1; font-size: 1em; }
.panels .changed { border-width: 1px; }
p.key, p.cut { margin: {{u 2}} 0; }
#chart svg { max-height: {{u .ChartH}}; }
{{end}}</style></head>
<body>
<h1>{{if .Dense}}<nav>{{if gt (len .Screens) 1}}{{range $i, $_ := .Screens}}<a href="#screen-{{inc $i}}">{{if not $i}}participants {{end}}{{inc $i}}</a>{{end}}{{end}}{{if not .ChartBelow}}<a href="#chart">the chart</a>{{end}} · (2x) a guess</nav>{{end}}The room <small>{{len .Rows}} participant{{if ne (len .Rows) 1}}s{{end}}{{with .Send}} · hand in: <code>{{.}}</code>{{end}}</small></h1>
{{with .Refused}}<p class="key">{{.}} new participant{{if ne . 1}}s{{end}} refused: too many from one address in a minute</p>{{end}}
{{if not .Rows}}<p>No hand-in yet.</p>{{else}}
{{template "cut" .}}{{if .Dense}}{{template "dense" .}}{{else}}
<table id="room">
<colgroup><col style="width: {{.NameWidth}}%">{{range .Exercises}}<col>{{end}}</colgroup>
<thead><tr><th>who</th>{{range .Exercises}}<th class="ex" style="border-top-color: {{.Colour}}">{{.Name}}<small>from {{or .Start "?"}}</small></th>{{end}}</tr></thead>
<tbody>
<tr class="room"><td class="who">room median</td>{{range .Exercises}}<td>{{template "median" .}}</td>{{end}}</tr>
{{range .Shown}}<tr class="participant" title="{{.Name}}"><td class="who">{{.Short}}<small>{{with .Tag}}#{{.}} · {{end}}<span class="rel">{{or .Release "release unknown"}}</span> · {{.Machine}}</small></td>{{range .Cells}}<td>{{template "cell" .}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{template "key" .}}
{{template "chart" .Chart}}
{{end}}{{end}}
</body></html>
{{define "median"}}{{if .ByRelease}}{{range .ByRelease}}{{if .Answers}}<span class="line"><span class="ratio">{{times .Median}}</span> <small class="rel">{{label .Name}}, of {{.Answers}}</small></span>{{end}}{{end}}{{if .Guesses}}<small>guessed {{times .GuessMedian}} · off {{times .Off}}</small>{{end}}{{else if .Answers}}<span class="ratio">{{times .Median}}</span><small>of {{.Answers}}{{if .Guesses}} · guessed {{times .GuessMedian}}</small><small>guesses off {{times .Off}}{{end}}</small>{{else}}<span class="none">—</span>{{end}}{{end}}
{{define "cut"}}{{with .LeftOut}}<p class="cut">{{.}} more participant{{if ne . 1}}s{{end}} not shown: the page stops at {{$.MaxKiB}} KiB; the offline table (go run ./scripts/room FILES) lists everyone.</p>{{end}}{{with .Unshown}}<p class="cut">{{len .}} more stage name{{if ne (len .) 1}}s{{end}}, handed in by fewer, not shown (a page shows {{$.MaxColumns}}): {{range $i, $s := .}}{{if lt $i 5}}{{if $i}}, {{end}}{{$s}}{{end}}{{end}}{{if gt (len .) 5}}, …{{end}}</p>{{end}}{{end}}
{{define "key"}}{{if .Dense}}<p class="key"><span class="ok">2.0x</span> passed: the speed-up against the start ·
{{with .Marks.Counted}}<span class="counted">{{.}}</span> an exact count decided ·
{{end}}<span class="mark">?</span> cannot tell · <span class="wrong">✗</span> a check failed ·
{{if .Marks.Changed}}<span class="changed">!</span> changed after its check · {{end}}<span class="guess">(3x)</span> the participant's guess</p>{{else}}<p class="key"><span class="ok">✓</span> passed, with the speed-up against the exercise's start on the participant's machine ·
{{with .Marks.Counted}}<span class="counted">{{.}}</span> an exact count decided ·
{{end}}<span class="mark">?</span> cannot tell: within that machine's noise · <span class="wrong">✗</span> a check failed{{if not .Marks.Counted}}: its speed does not count{{end}} ·
{{if .Marks.Changed}}<span class="changed">changed</span> after its check · {{end}}off: the median factor between a guess and its measurement</p>{{end}}{{end}}
{{define "cell"}}{{if .Passed}}<span class="ok">✓</span> {{if .Counted}}<span class="counted">{{.Counted}}</span>{{else if .Ratio}}{{if .Told}}<span class="ratio">{{times .Ratio}}</span>{{else}}<span class="ratio unsure">{{times .Ratio}}</span><span class="mark" title="cannot tell">?</span>{{end}}{{end}}{{else if .Failed}}<span class="wrong">✗ wrong</span>{{else if .Handed}}<span class="none">not checked</span>{{else}}<span class="none">—</span>{{end}}{{if .Changed}} <span class="changed" title="the stage changed after its check">changed</span>{{end}}{{if .Guess}}<small class="guess">guess {{.Guess}}</small>{{end}}{{end}}
{{define "dense-cell"}}{{if .Passed}}{{if .Counted}}<span class="counted">{{.Counted}}</span>{{else if .Ratio}}{{if .Told}}<span class="ratio ok">{{times .Ratio}}</span>{{else}}<span class="ratio unsure">{{times .Ratio}}</span><span class="mark" title="cannot tell">?</span>{{end}}{{else}}<span class="ok">✓</span>{{end}}{{else if .Failed}}<span class="wrong">✗</span>{{else if .Handed}}<span class="none">unchecked</span>{{else}}<span class="none">·</span>{{end}}{{if .Changed}}<span class="changed" title="the stage changed after its check">!</span>{{end}}{{with .Guess}} <span class="guess">({{.}})</span>{{end}}{{end}}
{{define "dense"}}<table id="median">
<thead><tr><th style="width: 12%"></th>{{range .Exercises}}<th class="ex" style="border-top-color: {{.Colour}}">{{.Name}} <small>from {{or .Start "?"}}</small></th>{{end}}</tr></thead>
<tbody><tr class="room"><td class="who">room median</td>{{range .Exercises}}<td>{{range .ByRelease}}{{if .Answers}}<span class="ratio">{{times .Median}}</span> <small>{{trimGo (label .Name)}}</small> {{end}}{{else}}{{if .Answers}}<span class="ratio">{{times .Median}}</span> <small>of {{.Answers}}</small>{{else}}<span class="none">—</span>{{end}}{{end}}</td>{{end}}</tr></tbody></table>
{{range $i, $screen := .Screens}}<section class="screen" id="screen-{{inc $i}}"><div class="panels">{{range $screen}}<table class="panel"><thead><tr><th>who <small>Go</small></th>{{range $.Exercises}}<th style="border-bottom-color: {{.Colour}}; color: {{.Colour}}">{{.Name}}</th>{{end}}</tr></thead>
<tbody>{{range .}}<tr class="participant" title="{{.Name}}"><td class="who">{{.Short}}<small>{{with .Tag}}#{{.}} · {{end}}<span class="rel">{{or (trimGo .Release) "?"}}</span></small></td>{{range .Cells}}<td>{{template "dense-cell" .}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}</div>{{if and $.ChartBelow (eq $i 0)}}{{template "key" $}}<div id="chart">{{template "chart" $.Chart}}</div>{{end}}</section>
{{end}}{{if not .ChartBelow}}<section class="screen" id="chart">{{template "key" $}}{{template "chart" .Chart}}</section>{{end}}{{end}}
{{define "chart"}}{{.}}{{end}}`))

// pageData is what the page template shows.
type pageData struct {
	roomView
	Refresh    int            // seconds between reloads, 0 for a page that stays
	Send       string         // the command that hands in to this room, "" offline
	NameWidth  int            // the share of the width of the names' column
	Chart      template.HTML  // the chart, SVG from internal/figures
	Shown      []shownRow     // the rows the page shows, within its bytes
	LeftOut    int            // the rows it leaves out
	Dense      bool           // the dense view, for more participants than the large type holds
	Screens    [][][]shownRow // the dense view's participants: screens of panels side by side
	PerScreen  int            // the panels side by side on a screen
	ChartBelow bool           // the dense view's chart fits under its one screen, else it is a screen of its own
	ChartH     int            // the chart's height, in the plan's pixels
	Font, Line int            // the dense view's type and row, in the plan's pixels
	ScreenW    int            // the plan's screen, which the dense view scales to the real one
	ScreenH    int
	MaxKiB     int
	MaxColumns int
	Marks      struct {
		Counted string // a count that decided, as the key's example, "" if none did
		Changed bool   // a stage changed after its check
	}
}

// shownRow is a row as the page shows it: its name cut to fit, the whole
// name kept for the mouse.
type shownRow struct {
	row
	Short string
}

// The views' sizes: the large type holds a few participants above its
// chart. The dense view is planned in pixels of a projector's 1280x720 and
// scaled to the screen it is shown on (the CSS unit --u is one pixel of the
// plan), so a 1920x1080 screen shows it half as large again. It fits panels
// of short rows, as many side by side as their widths allow, at the largest
// type that fits everyone, at least minFont; a room larger still gets more
// screens, one link each, never a scrollbar.
const (
	largeRows     = 3
	screenWidth   = 1280
	screenHeight  = 720
	largeNameRune = 15
	denseNameRune = 16 // the fewest letters of a name that a panel keeps
	minFont       = 16
	tinyFont      = 9 // for a room of more stage names than a row holds at minFont
	maxFont       = 24
	maxPanels     = 4
	panelGap      = 16
	denseMargins  = 24  // left and right
	denseChart    = 200 // the least height of a chart under the panels
)

// px is n pixels of the dense view's plan, in CSS.
func px(n int) template.CSS { return template.CSS(fmt.Sprintf("calc(%d * var(--u))", n)) }

// denseFixed is the height of what the dense view shows beside its panels' rows, at rows of line
// pixels: the margins, the title, the medians' two rows and the panels' heading.
func denseFixed(line int) int { return 6 + 32 + 4 + 2*line + 6 + line + 8 }

func writePage(w io.Writer, v roomView, refresh int, send string) error {
	var out bytes.Buffer
	for shown := len(v.Rows); ; shown /= 2 {
		out.Reset()
		if err := page.Execute(&out, layout(v, shown, refresh, send)); err != nil {
			return err
		}
		if out.Len() <= maxPageBytes || shown == 0 {
			break
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// layout lays v out with its first shown rows.
func layout(v roomView, shown, refresh int, send string) pageData {
	all := v.Rows
	v.Rows = v.Rows[:shown]
	d := pageData{roomView: v, Refresh: refresh, Send: send, NameWidth: max(16, 100/(len(v.Exercises)+2)),
		LeftOut: len(all) - shown, MaxKiB: maxPageBytes >> 10, MaxColumns: maxColumns}
	d.Dense = len(all) > largeRows
	runes := largeNameRune
	if d.Dense {
		runes = denseNameRune
	}
	d.Shown = shortNames(v.Rows, runes)
	for _, r := range d.Shown {
		for _, c := range r.Cells {
			d.Marks.Counted = cmp.Or(d.Marks.Counted, c.Counted)
			d.Marks.Changed = d.Marks.Changed || c.Changed
		}
	}
	d.Chart = drawChart(v)
	d.Rows = all // the title counts everyone
	if !d.Dense {
		return d
	}
	d.ScreenW, d.ScreenH = screenWidth, screenHeight
	perPanel, names := denseGrid(&d, v.Rows)
	d.Shown = shortNames(v.Rows, names)
	for i := 0; i < len(d.Shown); i += perPanel * d.PerScreen {
		var screen [][]shownRow
		for j := i; j < min(i+perPanel*d.PerScreen, len(d.Shown)); j += perPanel {
			screen = append(screen, d.Shown[j:min(j+perPanel, len(d.Shown))])
		}
		d.Screens = append(d.Screens, screen)
	}
	rows := min(perPanel, len(d.Shown))
	spare := screenHeight - denseFixed(d.Line) - rows*d.Line - 26 // less the key's line
	d.ChartBelow = len(d.Screens) == 1 && spare >= denseChart
	d.ChartH = screenHeight - 80
	if d.ChartBelow {
		d.ChartH = spare
	}
	d.Chart = drawChart(v)
	return d
}

// denseGrid picks the dense view's type, row and panels side by side: the largest type from maxFont
// down at which everyone fits one screen, else the least type and most panels, on more screens. It
// returns the rows of a panel and how many letters of a name it keeps.
func denseGrid(d *pageData, rows []row) (perPanel, names int) {
	for font := maxFont; font >= minFont; font-- {
		line := font * 5 / 4
		perPanel = max(1, (screenHeight-denseFixed(line))/(line+1)) // a row's border may take a pixel more
		for panels := 1; panels <= maxPanels; panels++ {
			room := panelRunes(rows, panels, font)
			if room < denseNameRune {
				break
			}
			d.Font, d.Line, d.PerScreen, names = font, line, panels, room
			if panels*perPanel >= len(rows) {
				return perPanel, names
			}
		}
	}
	if names > 0 {
		return perPanel, names // the least type, as many panels as fit: more screens
	}
	// Columns too many for one panel at minFont: smaller type, one panel, rather than a scroll across.
	for d.Font = minFont - 1; d.Font > tinyFont && panelRunes(rows, 1, d.Font) < denseNameRune; d.Font-- {
	}
	d.Line, d.PerScreen = d.Font*5/4, 1
	return max(1, (screenHeight-denseFixed(d.Line))/d.Line), denseNameRune
}

// panelRunes is how many letters of a name fit in a row of a panel, one of panels side by side at
// type of font pixels: what the release and the widest of each exercise's cells leave.
func panelRunes(rows []row, panels, font int) int {
	if len(rows) == 0 {
		return maxFieldRunes
	}
	width := float64(screenWidth-denseMargins-panelGap*(panels-1))/float64(panels) - float64(font)*0.6 // the name's padding
	width -= float64(font) * (ems("1.27.3") + 1)                                                       // the release, after the name
	for j := range rows[0].Cells {
		widest := ems("ex0") // the heading
		for _, r := range rows {
			widest = max(widest, ems(denseText(r.Cells[j])))
		}
		width -= float64(font) * (widest + 0.6)
	}
	return int(width / (float64(font) * ems("n")))
}

// denseText is about what a dense cell shows, to measure it.
func denseText(c cell) string {
	text := "·"
	switch {
	case c.Passed && c.Counted != "":
		text = c.Counted
	case c.Passed && c.Ratio > 0:
		text = times(c.Ratio) + "?"
	case c.Handed && c.Failed == "" && !c.Passed:
		text = "unchecked"
	}
	if c.Changed {
		text += "!"
	}
	if c.Guess != "" {
		text += " (" + cut(c.Guess, maxGuessRunes) + ")"
	}
	return text
}

// ems is about how wide s is in a proportional type, in widths of the type's size: a wide letter
// (Hangul, Han, kana) takes one, another about three fifths.
func ems(s string) float64 {
	w := 0.0
	for _, r := range s {
		if unicode.In(r, unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			w++
		} else {
			w += 0.6
		}
	}
	return w
}

// shortNames cuts the rows' names to n runes by their middles, so that names
// of one start stay apart; a cut name that still matches another's gets the
// id's tag.
func shortNames(rows []row, n int) []shownRow {
	out := make([]shownRow, len(rows))
	seen := map[string]int{}
	for i, r := range rows {
		r.Machine, r.Release = cut(r.Machine, maxFieldRunes), cut(r.Release, maxFieldRunes)
		r.Cells = slices.Clone(r.Cells)
		for j := range r.Cells {
			r.Cells[j].Guess = cut(r.Cells[j].Guess, maxGuessRunes)
		}
		out[i] = shownRow{r, cut(r.Name, n)}
		seen[out[i].Short]++
	}
	same := map[string][]string{} // the ids of each cut name that others share
	for _, r := range out {
		if seen[r.Short] > 1 {
			same[r.Short] = append(same[r.Short], r.ID)
		}
	}
	for i := range out {
		if ids := same[out[i].Short]; ids != nil && out[i].Tag == "" {
			out[i].Tag = tag(out[i].ID, ids) // as long as it takes to tell them apart
		}
	}
	return out
}

// releaseLabel names a release for the page: "go1.27", or that the hand-in did not say.
func releaseLabel(release string) string { return cmp.Or(release, "release unknown") }

// trimGo is a go-version without its "go": "1.27.3".
func trimGo(version string) string { return cut(strings.TrimPrefix(version, "go"), 10) }

// writeChart writes the chart alone, an SVG file.
func writeChart(w io.Writer, v roomView) error {
	_, err := io.WriteString(w, string(drawChart(v)))
	return err
}

func times(r float64) string { return results.Times(r) }

// drawChart draws the room's chart with internal/figures: a band per exercise, split per Go
// release where the room mixes them, each right answer's speed-up and guess, and the median.
func drawChart(v roomView) template.HTML {
	title := "Speed-up against the start, right answers"
	mixed := len(v.Releases) > 1
	releases := v.Releases
	if !mixed {
		releases = []string{""} // one band per exercise: every hand-in
	} else {
		title += ", per Go release"
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
			for _, r := range v.Rows {
				if c := r.Cells[i]; c.Passed && c.Ratio > 0 && (!mixed || releaseOf(r.Release) == release) {
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
