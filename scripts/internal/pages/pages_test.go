package pages

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"example.com/userperf/common/api"
	"example.com/userperf/common/api/guard"
	"example.com/userperf/common/bench"
	"example.com/userperf/scripts/internal/results"
)

// root is the repository's root, from this package's folder.
const root = "../../.."

// quotes are the figures that the pages may quote from each case study (the seeds of the project),
// each only on a line that names that study (its title, its subject, or "case study" for the main one):
// to quote another, add its figure to its study's row, and name the study on the quoting line.
var quotes = []struct {
	names   *regexp.Regexp
	figures []string
}{
	{regexp.MustCompile(`(?i)case stud|C\+\+ REST API|사례`), []string{ // the four steps and their times
		"0.203s", "203ms", "203.5ms", "215.2ms", "223.1ms", "200ms", "50ms", "85.3ms", "42.1ms", "20.3ms", "20ms", "45.2ms",
		"2.4x", "2x", "2.0x", "2.1x", "10x", "10.0x", "65%"}},
	{regexp.MustCompile(`GreptimeDB|CPU를 36%나|eating 36%`), []string{ // dictionary values re-materialized per row
		"36%", "36.2%", "8.9%", "44ms", "3.7ms", "10x"}},
	{regexp.MustCompile(`print를 뺐더니|virtual users|print per character`), []string{ // a print per character in a handler
		"140x", "159x", "3.4x", "1s", "23.4ms", "15.4ms", "3,720ms", "2,160ms"}},
	{regexp.MustCompile(`1\.2초 -> 137ms|thread pool|search index|edge n-gram`), []string{ // a thread pool and an over-fetched search
		"1.2s", "137ms", "986ms", "1202ms", "381ms", "308ms", "14ms", "8.8x", "2.6x"}},
}

// constant is a figure that the code holds (a limit, a default, a level), computed from the Go
// constant so that a changed constant fails, and allowed on a line that holds the word where.
type constant struct{ figure, where string }

func mib(n int64) string   { return fmt.Sprintf("%dMiB", n>>20) }
func kib(n int64) string   { return fmt.Sprintf("%dKiB", n>>10) }
func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
func secs(d time.Duration) string {
	return fmt.Sprintf("%.0fs", d.Seconds())
}

// constants are the code's figures that the pages may state: add one here, computed from its constant.
var constants = func() []constant {
	c := []constant{
		{kib(api.MaxBodyBytes), "body"},
		{kib(api.MaxHeaderBytes), "header"},
		{mib(http.DefaultMaxHeaderBytes), "net/http"},
		{mib(api.DefaultLimits.MaxStoredBytes), "stored"},
		{mib(api.DefaultLimits.MaxInFlightBytes), "flight"},
		{mib(api.DefaultLimits.MaxClientBytes), "client"},
		{pct(results.Reliable), "reliable"},
		{pct(results.Reliable), "noisy"}, // the table of spreads: "noisy | 5% to 20%"
		{pct(results.Noisy), "noisy"},
		{pct(results.Noisy), "unstable"},
		{pct(results.Confidence), "confidence"},
		{pct(results.SmallestStep), "smallest"},
		{"±" + pct(results.SmallestStep), "alike"}, // a verdict's "alike within ±15%"
		{pct(results.Confidence), "ci ["},          // a verdict's "95% CI [1.31x, 1.80x]"
		{"±" + pct(results.BusyBand), "busy"},      // where compare warns of a busy machine
		{"1x", "noise band"},                       // the A/A pair's speed, were there no noise
		{"1x", "leaves out 1x"},                    // the rule: a CI that leaves out 1x
		{"1x", "left out 1x"},
		{"1x", "holds 1x"}, // a verdict's "A/A CI [0.95x, 1.04x] holds 1x"
	}
	c = append(c, // docs/api.md's limits, timeouts and pacing
		constant{kib(api.HeaderReadSlack), "read buffer"},
		constant{kib(api.MaxBodyBytes), "post"},
		constant{kib(guard.SmallReservation), "reservation"},
		constant{mib(guard.SmallOverdraft), "small"},
		constant{kib(guard.MinRate), "minimum rate"},
		constant{kib(guard.SendPiece), "pieces"},
		constant{secs(guard.DefaultPace.Grace), "grace"},
		constant{kib(guard.SendBuffer), "send buffer"},
		constant{mib(guard.ProgramBytes), "program"},
		constant{kib(guard.ConnBytes), "connection"},
		constant{mib(guard.MemoryLimit(api.DefaultLimits)), "soft"},
		constant{secs(api.ReadHeaderTimeout), "timeout"},
		constant{secs(api.ReadTimeout), "timeout"},
		constant{secs(api.IdleTimeout), "timeout"},
		constant{secs(api.WriteTimeout), "timeout"},
		constant{secs(api.DrainTimeout), "finish"},
		constant{secs(guard.DrainQueueTime), "queue drain"},
		constant{secs(guard.RateWindow), "of the"},
		constant{mib(guard.PeakRSS(api.DefaultLimits)), "resident"},
		constant{kib(guard.SendPiece), "kernel hears"},
	)
	for _, w := range bench.MixedWrites {
		c = append(c, constant{fmt.Sprintf("%d%%", w), "write"})
	}
	return c
}()

// flagValue is a flag and its value, in a command or a span of code: "--benchtime 100ms", "-fuzztime=60s".
var flagValue = regexp.MustCompile("(?:^|[\\s`(\\[])--?[a-z][a-z-]*[ =]([^\\s`\\]]+)")

// normal is a figure without its space, in one spelling of each unit: "1.2 s" is "1.2s".
func normal(f string) string {
	return strings.NewReplacer(" ", "", "\u00a0", "", "×", "x", "μs", "µs", "us", "µs", "sec", "s", ",", "").Replace(f)
}

// allowed says whether fig, on its line, is a quote, a constant or a flag's value.
func allowed(fig Figure) bool {
	n := normal(fig.Text)
	// A flag's value, or that value repeated on its line ("--predict 3x ... in place of 3x").
	for _, m := range flagValue.FindAllStringSubmatch(fig.Of, -1) {
		if normal(m[1]) == n {
			return true
		}
	}
	for _, q := range quotes {
		if q.names.MatchString(fig.Of) && slices.ContainsFunc(q.figures, func(f string) bool { return normal(f) == n }) {
			return true
		}
	}
	line := strings.ToLower(fig.Of)
	return slices.ContainsFunc(constants, func(c constant) bool { return normal(c.figure) == n && strings.Contains(line, c.where) })
}

// offenders are the figures typed by hand on the pages under dir, "page:line: figure  | the line".
func offenders(t *testing.T, dir string) []string {
	paths, err := Paths(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range paths {
		page, err := os.ReadFile(filepath.Join(dir, p))
		if os.IsNotExist(err) {
			continue // a page that a checkout lacks
		} else if err != nil {
			t.Fatal(err)
		}
		for _, f := range Figures(string(page)) {
			if !allowed(f) {
				found = append(found, fmt.Sprintf("%s:%d: %s  | %s", filepath.ToSlash(p), f.Line, f.Text, strings.TrimSpace(f.Of)))
			}
		}
	}
	return found
}

// TestNoFigureTypedByHand names every measured figure that a page types outside the blocks that
// report writes: such a figure goes false at the next measurement, and nothing would say so.
// Point at the block's row instead, or have report write the sentence.
func TestNoFigureTypedByHand(t *testing.T) {
	found := offenders(t, root)
	for _, o := range found {
		t.Error(o)
	}
	if len(found) > 0 {
		t.Errorf("%d figures typed by hand: point at a generated block's row instead, or, for a case study's quote "+
			"or a constant of the code, add it to quoted or constants in this file", len(found))
	}
}

// TestAFigureAddedByHandFails adds "Stage 6 answers in 123.4µs." to a copy of each page, and wants it named.
func TestAFigureAddedByHandFails(t *testing.T) {
	paths, err := Paths(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		page, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		lines := strings.Split(string(page), "\n")
		at := prose(lines)
		lines = slices.Insert(lines, at, "Stage 6 answers in 123.4µs.")
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s:%d: 123.4µs  | Stage 6 answers in 123.4µs.", filepath.ToSlash(p), at+1)
		if got := offenders(t, dir); !slices.Contains(got, want) {
			t.Errorf("%s: the added line is not named: want %q among %d offenders", p, want, len(got))
		}
	}
}

// prose is the index of a line in the middle of lines that lies outside every generated block.
func prose(lines []string) int {
	inside := false
	var outside []int
	for i, l := range lines {
		if strings.Contains(l, "<!-- BEGIN GENERATED: ") {
			inside = true
		}
		if !inside {
			outside = append(outside, i)
		}
		if strings.Contains(l, "<!-- END GENERATED: ") {
			inside = false
		}
	}
	if len(outside) == 0 {
		return len(lines)
	}
	return outside[len(outside)/2]
}

func TestFigures(t *testing.T) {
	page := "Stage 6 answers in 123.4µs, 2x faster; 1ms 2 ms.\n" +
		"<!-- BEGIN GENERATED: a -->\n12ms inside\n<!-- END GENERATED: a -->\n" +
		"a span <!-- BEGIN GENERATED: s -->7%<!-- END GENERATED: s --> then 8%\n" +
		"go1.27s, stage0, 3 seconds, p95-sec, 1,000 users, ±24% and -20.19%, 4 KiB, 300 B/op, 12 allocs/op, 5 req/s\n"
	var got []string
	for _, f := range Figures(page) {
		got = append(got, fmt.Sprintf("%d:%d:%s", f.Line, f.Column, f.Text))
		if !strings.HasPrefix(f.Of[f.Column-1:], f.Text) {
			t.Errorf("%+v: the column is not the figure's", f)
		}
	}
	want := []string{"1:20:123.4µs", "1:30:2x", "1:41:1ms", "1:45:2 ms", "5:68:8%",
		"6:51:±24%", "6:61:-20.19%", "6:70:4 KiB", "6:77:300 B/op", "6:87:12 allocs/op", "6:101:5 req/s"}
	if !slices.Equal(got, want) {
		t.Errorf("Figures:\n got %q\nwant %q", got, want)
	}
}

func TestAllowed(t *testing.T) {
	for line, want := range map[string]bool{
		"The case study's first step took 203.5 ms.":               true,
		"The first step took 203.5 ms.":                            false, // a quote that does not say whose
		"go test -fuzztime 60s ./stage1-index":                     true,
		"go run ./scripts/compare --benchtime=100ms":               true,
		"It took 100ms.":                                           false,
		fmt.Sprintf("a body is at most %s", kib(api.MaxBodyBytes)): true,
		"a body is at most 65 KiB":                                 false, // not the constant
		"with 50% writes":                                          true,
		"50% faster":                                               false,
	} {
		figs := Figures(line)
		if len(figs) != 1 {
			t.Fatalf("%q: %d figures, want 1", line, len(figs))
		}
		if got := allowed(figs[0]); got != want {
			t.Errorf("allowed(%q) = %v, want %v", line, got, want)
		}
	}
}
