package main

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"example.com/userperf/scripts/internal/results"
)

// pageHTML is the page, for a projector read from the back of a room: large
// type for a few participants, else the dense view. html/template escapes every field.
//
//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"times": results.Times, "label": releaseLabel, "trimGo": trimGo, "u": px, "inc": func(i int) int { return i + 1 },
}).Parse(pageHTML))

// The page's bounds, so that any room makes a page that a browser shows at
// once: a few characters a field, and at most maxPageBytes, beyond which the
// last participants are left out (a variable, which a test lowers).
const (
	maxFieldRunes = 40
	maxGuessRunes = 12
)

var maxPageBytes = 1 << 20

// pageData is what the page template shows.
type pageData struct {
	roomView
	Refresh    int           // seconds between reloads, 0 for a page that stays
	Send       string        // the command that hands in to this room, "" offline
	NameWidth  int           // the share of the width of the names' column
	Chart      template.HTML // the chart, SVG from internal/figures
	Shown      []handIn      // the hand-ins the page shows, within its bytes
	LeftOut    int           // the hand-ins it leaves out
	Dense      bool          // the dense view, for more participants than the large type holds
	Screens    [][][]handIn  // the dense view's hand-ins: screens of panels side by side
	PerScreen  int           // the panels side by side on a screen
	ChartBelow bool          // the dense view's chart fits under its one screen, else it is a screen of its own
	ChartH     int           // the chart's height, in the plan's pixels
	Font, Line int           // the dense view's type and row, in the plan's pixels
	ScreenW    int           // the plan's screen, which the dense view scales to the real one
	ScreenH    int
	MaxKiB     int
	MaxColumns int
	Marks      struct {
		Counted string // a count that decided, as the key's example, "" if none did
		Changed bool   // a stage changed after its check
	}
}

// The views' sizes. The dense view is planned in pixels of a 1280x720
// projector and scaled to the real screen (the CSS unit --u is one pixel of
// the plan); a room too large for one screen at minFont gets more screens,
// never a scrollbar.
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

// makePage makes the page of v, of as many of its hand-ins as fit in maxPageBytes.
func makePage(v roomView, refresh int, send string) ([]byte, error) {
	var out bytes.Buffer
	for shown := len(v.HandIns); ; shown /= 2 {
		out.Reset()
		if err := page.Execute(&out, layout(v, shown, refresh, send)); err != nil {
			return nil, err
		}
		if out.Len() <= maxPageBytes || shown == 0 {
			return out.Bytes(), nil
		}
	}
}

// layout lays v out with its first shown hand-ins.
func layout(v roomView, shown, refresh int, send string) pageData {
	d := pageData{roomView: v, Refresh: refresh, Send: send, NameWidth: max(16, 100/(len(v.Exercises)+2)),
		LeftOut: len(v.HandIns) - shown, Dense: len(v.HandIns) > largeRows, MaxKiB: maxPageBytes >> 10, MaxColumns: maxColumns}
	v.HandIns = v.HandIns[:shown] // d.HandIns keeps everyone, whom the title counts
	for _, h := range v.HandIns {
		for _, c := range h.Cells {
			d.Marks.Counted = cmp.Or(d.Marks.Counted, c.Counted)
			d.Marks.Changed = d.Marks.Changed || c.Changed
		}
	}
	d.Chart = drawChart(v)
	if !d.Dense {
		d.Shown = shortNames(v.HandIns, largeNameRune)
		return d
	}
	d.ScreenW, d.ScreenH = screenWidth, screenHeight
	perPanel, names := denseGrid(&d, v.HandIns)
	d.Shown = shortNames(v.HandIns, names)
	for screen := range slices.Chunk(d.Shown, perPanel*d.PerScreen) {
		d.Screens = append(d.Screens, slices.Collect(slices.Chunk(screen, perPanel)))
	}
	rows := min(perPanel, len(d.Shown))
	spare := screenHeight - denseFixed(d.Line) - rows*d.Line - 26 // less the key's line
	d.ChartBelow = len(d.Screens) == 1 && spare >= denseChart
	d.ChartH = screenHeight - 80
	if d.ChartBelow {
		d.ChartH = spare
	}
	return d
}

// denseGrid picks the dense view's type, row and panels side by side: the largest type from maxFont
// down at which everyone fits one screen, else the least type and most panels, on more screens. It
// returns the rows of a panel and how many letters of a name it keeps.
func denseGrid(d *pageData, handIns []handIn) (perPanel, names int) {
	cells := ems("1.27.3") + 1 + 0.6 // the release, after the name, and the name's padding
	for j := range d.Exercises {
		widest := ems("ex0") // the heading
		for _, h := range handIns {
			widest = max(widest, ems(denseText(h.Cells[j])))
		}
		cells += widest + 0.6
	}
	for font := maxFont; font >= minFont; font-- {
		line := font * 5 / 4
		perPanel = max(1, (screenHeight-denseFixed(line))/(line+1)) // a row's border may take a pixel more
		for panels := 1; panels <= maxPanels; panels++ {
			room := panelRunes(cells, panels, font)
			if room < denseNameRune {
				break
			}
			d.Font, d.Line, d.PerScreen, names = font, line, panels, room
			if panels*perPanel >= len(handIns) {
				return perPanel, names
			}
		}
	}
	if names > 0 {
		return perPanel, names // the least type, as many panels as fit: more screens
	}
	// Columns too many for one panel at minFont: smaller type, one panel, rather than a scroll across.
	for d.Font = minFont - 1; d.Font > tinyFont && panelRunes(cells, 1, d.Font) < denseNameRune; d.Font-- {
	}
	d.Line, d.PerScreen = d.Font*5/4, 1
	return max(1, (screenHeight-denseFixed(d.Line))/d.Line), denseNameRune
}

// panelRunes is how many letters of a name fit in a row of a panel, one of panels side by side at
// type of font pixels, beside cells ems of the rest of the row.
func panelRunes(cells float64, panels, font int) int {
	width := float64(screenWidth-denseMargins-panelGap*(panels-1))/float64(panels) - float64(font)*cells
	return int(width / (float64(font) * ems("n")))
}

// denseText is about what a dense cell shows, to measure it.
func denseText(c cell) string {
	text := "·"
	switch {
	case c.Passed && c.Counted != "":
		text = c.Counted
	case c.Passed && c.Ratio > 0:
		text = results.Times(c.Ratio) + "?"
	case c.Handed && c.Failed == "" && !c.Passed:
		text = "unchecked"
	}
	if c.Changed {
		text += "!"
	}
	if c.Guess != "" {
		text += " (" + c.Guess + ")"
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

// shortNames cuts the hand-ins' fields to their bounds and their names to
// n runes; a cut name that still matches another's gets the id's tag.
func shortNames(handIns []handIn, n int) []handIn {
	out := slices.Clone(handIns)
	for i := range out {
		h := &out[i]
		h.Machine, h.Release, h.Short = cut(h.Machine, maxFieldRunes), cut(h.Release, maxFieldRunes), cut(h.Name, n)
	}
	tagSame(out, func(h handIn) string { return h.Short })
	return out
}

// cut shortens s to n runes by its middle, where names that share a start
// and an end ("Load Tester 01", "Load Tester 02") differ least.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// releaseLabel names a release for the page: "go1.27", or that the hand-in did not say.
func releaseLabel(release string) string { return cmp.Or(release, "release unknown") }

// trimGo is a go-version without its "go": "1.27.3".
func trimGo(version string) string { return cut(strings.TrimPrefix(version, "go"), 10) }
