package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
)

// crowd is n hand-ins of stages stage names each, every name its own and
// none naming its origin, with the longest fields a hand-in may carry.
func crowd(t testing.TB, n, stages int) []handIn {
	var handIns []handIn
	for i := range n {
		file := fmt.Sprintf("participant: %s%03d\nid: p%07dxxxx\nmachine-cpu: %s\ngo-version: go1.27.3\n",
			strings.Repeat("<&", 18), i, i, strings.Repeat("M", 500))
		for s := range stages {
			file += fmt.Sprintf("verdict-p%ds%d: passed: 2.0x faster\nspeedup-p%ds%d-origin: 2\npredicted-p%ds%d: %s\n",
				i, s, i, s, i, s, strings.Repeat("guess", 60))
		}
		h, err := parseHandIn([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		handIns = append(handIns, h)
	}
	return handIns
}

// TestPageBounded checks that a room of 200 participants with 30 stage
// names each shows at most maxColumns columns and says which it left out,
// that a machine and a guess are shown cut to their bounds, and that a page
// over its bytes leaves participants out and says so.
func TestPageBounded(t *testing.T) {
	v := view(crowd(t, 200, 30), func(string) bool { return true })
	if len(v.Exercises) != maxColumns || len(v.Unshown) != 200*30-maxColumns {
		t.Errorf("%d columns shown and %d left out, want %d and %d", len(v.Exercises), len(v.Unshown), maxColumns, 200*30-maxColumns)
	}
	page, err := makePage(v, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page) > maxPageBytes || !strings.Contains(string(page), fmt.Sprintf("%d more stage names", len(v.Unshown))) {
		t.Errorf("the page is %d bytes (at most %d) and says %q", len(page), maxPageBytes, between(string(page), `<p class="cut">`, "</p>"))
	}
	few, err := makePage(view(crowd(t, largeRows, 2), func(string) bool { return true }), 5, "") // the large view, which shows a participant's machine and guesses
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(few), strings.Repeat("M", maxFieldRunes+1)) || strings.Contains(string(few), strings.Repeat("guess", maxGuessRunes/5+1)) ||
		!strings.Contains(string(few), "MMMM") || !strings.Contains(string(few), "guess guess") {
		t.Errorf("the page shows a machine or a guess longer than its bound, or none:\n%s", between(string(few), "<tbody>", "</tbody>"))
	}

	defer func(was int) { maxPageBytes = was }(maxPageBytes)
	maxPageBytes = len(page) / 3
	if page, err = makePage(v, 5, ""); err != nil {
		t.Fatal(err)
	}
	if len(page) > maxPageBytes || !strings.Contains(string(page), "more participants not shown") {
		t.Errorf("with a ceiling of %d bytes, the page is %d and says %q", maxPageBytes, len(page), between(string(page), `<p class="cut">`, "</p>"))
	}
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	before, _, _ := strings.Cut(after, to)
	return before
}

// TestCut checks that names of one long start, cut, keep their ends apart.
func TestCut(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Ada Lovelace", "Ada Lovelace"},
		{"Workshop Load Tester 01", "Worksho…ester 01"},
		{"Workshop Load Tester 02", "Worksho…ester 02"},
		{"김영희 워크숍 참가자 번호 일곱", "김영희 워크숍…가자 번호 일곱"},
	} {
		if got := cut(c.name, denseNameRune); got != c.want {
			t.Errorf("cut(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCounted checks that a verdict the allocations decided, as the check
// words it, reads as decided in their unit, and that one the time decided,
// or nothing did, does not.
func TestCounted(t *testing.T) {
	base := results.Comparison{Unit: "cpu-sec/op", UnitName: "CPU time", Ratio: 1.1, Lo: 0.8, Hi: 1.5, AA: true, Noise: results.Interval{Ratio: 1.3, Lo: 1, Hi: 1.6}}
	counts := base
	counts.Counts = []results.Count{{Unit: "allocs/op", Ratio: 1.96, Exact: true, Decided: true}, {Unit: "B/op", Ratio: 1.2, Exact: true, Decided: true}}
	more := base
	more.Counts = []results.Count{{Unit: "allocs/op", Ratio: 1, Exact: true}, {Unit: "B/op", Ratio: 0.8, Exact: true, Decided: true}}
	small := base
	small.Counts = []results.Count{{Unit: "allocs/op", Ratio: 1.005, Exact: true, Decided: true}}
	timed := counts
	timed.Decided, timed.Ratio, timed.Lo, timed.Hi, timed.Noise = true, 2.3, 2.1, 2.5, results.Interval{Ratio: 1.05, Lo: 0.95, Hi: 1.1}
	for _, c := range []struct {
		c    results.Comparison
		want string
	}{
		{counts, "−49% allocs"},
		{more, "+25% B"},
		{small, "−0.5% allocs"}, // a decided count under 1% keeps its decimal
		{timed, ""},             // the time decided: the ratio is the verdict
		{base, ""},              // nothing did
	} {
		verdict := "passed: at ListByRole/users=10000/matches=100: " + results.FirstLine(c.c.Verdict("stage1-index")) + ". 2.0x faster than stage2-noclone in CPU time: decided, ..."
		if got := counted(firstClause(verdict)); got != c.want {
			t.Errorf("counted(%q) = %q, want %q", verdict, got, c.want)
		}
	}
}

// BenchmarkPage renders the page of 200 participants with 30 stage names
// each, and reports its bytes.
func BenchmarkPage(b *testing.B) {
	handIns := crowd(b, 200, 30)
	var page []byte
	for b.Loop() {
		var err error
		if page, err = makePage(view(handIns, func(string) bool { return true }), 5, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(page)), "page-B")
}

// TestMediansPerRelease checks that a room of two Go releases has a median
// per release (patches of one release together), and a room of one has none.
func TestMediansPerRelease(t *testing.T) {
	var handIns []handIn
	for i, c := range []struct {
		version string
		ratio   float64
	}{{"go1.27.3", 4}, {"go1.26.8", 8}, {"go1.27.1", 5}, {"go1.27.3", 6}, {"go1.26.8", 9}} {
		h, err := parseHandIn([]byte(fmt.Sprintf("participant: P%d\nid: p%dxxxxxxx\ngo-version: %s\norigin-ex1: stage0-linear\n"+
			"verdict-ex1: passed: %gx faster\nspeedup-ex1-origin: %g\n", i, i, c.version, c.ratio, c.ratio)))
		if err != nil {
			t.Fatal(err)
		}
		handIns = append(handIns, h)
	}
	v := view(handIns, workshopStarts)
	ex := v.Exercises[0]
	if fmt.Sprint(v.Releases) != "[go1.26 go1.27]" || len(ex.ByRelease) != 2 ||
		ex.ByRelease[0].Median != 8.5 || ex.ByRelease[0].Answers != 2 || ex.ByRelease[1].Median != 5 || ex.ByRelease[1].Answers != 3 {
		t.Errorf("releases %q, medians per release %+v; want go1.26's 8.5x of 2 and go1.27's 5x of 3", v.Releases, ex.ByRelease)
	}
	if one := view(handIns[2:4], workshopStarts); len(one.Releases) != 1 || one.Exercises[0].ByRelease != nil {
		t.Errorf("a room of one release: releases %q, medians per release %+v; want none", one.Releases, one.Exercises[0].ByRelease)
	}
}

// One hand-in far from the others, within the numbers the room takes, does not flatten the chart:
// the scale is the one the others make, and the far value sits at its edge.
func TestScaleIgnoresOneFarValue(t *testing.T) {
	var room []float64
	for i := range 12 {
		room = append(room, 2+0.25*float64(i)) // 2x to 4.75x
	}
	lo, hi := scale(room)
	for _, far := range []float64{maxRatio, 1.0 / maxRatio} {
		if l, h := scale(append(slices.Clone(room), far)); l != lo || h != hi {
			t.Errorf("with %gx among them, the scale is %g to %g, want %g to %g as without it", far, l, h, lo, hi)
		}
	}
	if l, h := scale(nil); l != 0.5/1.25 || h != 2*1.25 {
		t.Errorf("an empty room's scale is %g to %g, want half as fast to twice as fast and a margin", l, h)
	}
}

// Releases are read as go/version reads them: a patch or a release candidate is its release, and
// what names none (a development build, an older hand-in) is one release of its own, first.
func TestReleases(t *testing.T) {
	var handIns []handIn
	for _, v := range []string{"go1.27.3", "go1.26.8", "", "go1.27rc1", "devel go1.28-abc", "go1.9.2"} {
		handIns = append(handIns, handIn{Release: v})
	}
	if got, want := releases(handIns), []string{"", "go1.9", "go1.26", "go1.27"}; !slices.Equal(got, want) {
		t.Errorf("releases = %q, want %q", got, want)
	}
}
