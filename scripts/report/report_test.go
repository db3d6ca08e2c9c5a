package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"example.com/userperf/scripts/internal/results"
)

// header is what compare and load write at the top of every file.
const header = "machine-cpu: Test CPU\nmachine-cores: 2\ngo-version: go1.26.8\ndate: 2026-01-02T03:04:05Z\ncommit: 8899ddb\n"

// line is the provenance line of the fixture's benchmarks, under a block that report writes.
const line = "Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`, by `go run ./scripts/compare`, then `go run ./scripts/report`."

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func block(name string) string {
	return "<!-- BEGIN GENERATED: " + name + " -->\nold\n<!-- END GENERATED: " + name + " -->\n"
}

// repository lays out a workspace of two steps and the floor, with their
// chapters and a run of compare: ListByRole takes stage0-linear 200µs,
// stage1-index 50µs and the floor 100ns (the median of six runs, half
// of it CPU time), only
// the steps have writes, and only stage1-index a saved profile.
func repository(t *testing.T) string {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.work"), "go 1.26.0\n\nuse (\n\t./stage0-linear\n\t./stage1-index\n\t./floor\n)\n")
	for _, s := range []string{"stage0-linear", "stage1-index", "floor"} {
		write(t, filepath.Join(root, s, "go.mod"), "module example.com/"+s+"\n\ngo 1.26.0\n")
		write(t, filepath.Join(root, s, "stage_test.go"), "package main\n")
	}
	write(t, filepath.Join(root, "stage0-linear", "store.go"), "package main\n\nfunc a() {}\n")
	write(t, filepath.Join(root, "stage1-index", "store.go"), "package main\n\nfunc b() {}\nfunc c() {}\n")
	write(t, filepath.Join(root, "stage1-index", "index.go"), "package main\n")
	write(t, filepath.Join(root, "floor", "main.go"), "// Command floor is the limit of the path: more.\npackage main\n")
	write(t, filepath.Join(root, "docs", "results.md"), "# Title\n\n"+block("stages")+"\nProse.\n\n"+block("charts")+block("load"))
	write(t, filepath.Join(root, "docs", "stage0-linear.md"), "# Stage 0: the scan\n\n"+block("benchstat")+block("profile"))
	write(t, filepath.Join(root, "docs", "stage1-index.md"), "# Stage 1: an index\n\n"+block("benchstat")+"\nProse.\n"+block("profile"))
	write(t, filepath.Join(root, "stage1-index", "README.md"), "# Notes: not the chapter\n")
	writeProfile(t, filepath.Join(root, "results", "profile", "stage1-index"))
	compareRun(t, root, "20260102T030405Z", "stage0-linear", "stage1-index", "floor")
	return root
}

// compareRun writes the results of a run of compare of stages at stamp.
func compareRun(t *testing.T, root, stamp string, stages ...string) {
	for _, stage := range stages {
		ns := map[string]float64{"stage0-linear": 200_000, "stage1-index": 50_000, "floor": 100}[stage]
		var b strings.Builder
		b.WriteString(header + "command: go run ./scripts/compare\n")
		for _, factor := range []float64{1.2, 1, 0.9, 1.1, 1, 0.95} { // a median of 1, a noisy spread
			for _, users := range []int{1000, 10000, 100000} {
				t := ns * factor * float64(users) / 10000
				fmt.Fprintf(&b, "BenchmarkListByRole/users=%d/matches=100-2 1 %.0f ns/op %.0f cpu-ns/op 215 allocs/op\n", users, t, t/2)
			}
			fmt.Fprintf(&b, "BenchmarkListByRole/users=10000/matches=1000-2 1 %.0f ns/op 2000 allocs/op\n", 3*ns*factor)
			fmt.Fprintf(&b, "BenchmarkServeHTTP/users=10000/matches=100-2 1 %.0f ns/op\n", 2*ns*factor)
			if stage == "floor" {
				fmt.Fprintf(&b, "BenchmarkBare-2 1 %.0f ns/op\n", 150*factor)
			} else {
				fmt.Fprintf(&b, "BenchmarkWrite/users=10000/roles=3-2 1 3000 ns/op\nBenchmarkBuild/users=10000-2 1 1 ns/op 1500 held-B/user\n")
			}
		}
		write(t, filepath.Join(root, "results", "compare", stamp, stage+".txt"), b.String())
	}
	write(t, filepath.Join(root, "results", "compare", stamp, "machine.txt"), header)
}

// writeProfile writes what scripts/profile saves in dir: a CPU profile
// where the scan takes 3 of 4 samples, and a memory profile.
func writeProfile(t *testing.T, dir string) {
	fn := func(id uint64, name string) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: &profile.Function{ID: id, Name: name}}}}
	}
	scan, encode := fn(1, "example.com/stage1-index.findByRole"), fn(2, "example.com/stage1-index.encode")
	for file, p := range map[string]*profile.Profile{
		"cpu.pprof": {SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
			Sample: []*profile.Sample{{Location: []*profile.Location{scan}, Value: []int64{3}}, {Location: []*profile.Location{encode}, Value: []int64{1}}}},
		"mem.pprof": {SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}},
			Sample: []*profile.Sample{{Location: []*profile.Location{encode}, Value: []int64{1}}}},
	} {
		p.Location, p.Function = []*profile.Location{scan, encode}, []*profile.Function{scan.Line[0].Function, encode.Line[0].Function}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, file), b.String())
	}
	write(t, filepath.Join(dir, "bench.txt"), header+"command: go run ./scripts/profile stage1-index\nprofile-bench: BenchmarkListByRole\n"+
		"pkg: example.com/stage1-index\nBenchmarkListByRole-2 100 1000 ns/op\n")
}

// withLoad adds a run of load of rounds rounds and its table, as an older load wrote it: with
// the benchstat command of its files under the tables.
func withLoad(t *testing.T, root string, rounds int) {
	dir := filepath.Join(root, "results", "load", "20260102T030405Z")
	for stage, p50 := range map[string]int{"stage0-linear": 1_500_000, "stage1-index": 1_000_000, "floor": 800_000} {
		text := header + "command: go run ./scripts/load\n"
		for i := range rounds {
			p50 := p50 + i*1000
			text += fmt.Sprintf("BenchmarkHTTPFixedRate/rate=100/matches=100 400 %d p50-ns %d p95-ns %d p99-ns\n", p50, 2*p50, 4*p50) +
				fmt.Sprintf("BenchmarkHTTPFixedRate/rate=100/matches=1000 400 %d p50-ns %d p95-ns %d p99-ns\n", 3*p50, 4*p50, 5*p50)
		}
		write(t, filepath.Join(dir, stage+".txt"), text)
	}
	write(t, filepath.Join(dir, "table.md"), "| stage | p50 |\n|---|---:|\n| floor | 800µs |\n\n"+
		"`go tool benchstat -row .file floor=results/load/20260102T030405Z/floor.txt`\n\nGET /users?role=R over loopback.\n")
}

// generated is the content of block name in the markdown file at path.
func generated(t *testing.T, path, name string) string {
	_, after, _ := strings.Cut(read(t, path), "<!-- BEGIN GENERATED: "+name+" -->\n")
	content, _, _ := strings.Cut(after, "<!-- END GENERATED: "+name+" -->")
	return content
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// svgText is the text a chart shows, failing unless it is well-formed XML.
func svgText(t *testing.T, file string) string {
	var text strings.Builder
	d := xml.NewDecoder(strings.NewReader(read(t, file)))
	for tok, err := d.Token(); err == nil || err.Error() != "EOF"; tok, err = d.Token() {
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if c, ok := tok.(xml.CharData); ok {
			text.Write(append(c, '\n'))
		}
	}
	return text.String()
}

func TestGenerate(t *testing.T) {
	root := repository(t)
	withLoad(t, root, 1)
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(root, "docs", "results.md")
	if !strings.HasPrefix(read(t, readme), "# Title\n\n") || !strings.Contains(read(t, readme), "-->\n\nProse.\n\n") {
		t.Errorf("the text outside the blocks changed:\n%s", read(t, readme))
	}
	if strings.Contains(read(t, readme), "results/") {
		t.Errorf("the results page names a result file, which a clone lacks:\n%s", read(t, readme))
	}
	// The rows are checked against the golden file (TestGolden); here, what the caption says.
	mustContain(t, "the stages table", generated(t, readme, "stages"),
		"Median of 6 runs", "CPU time over this one's", "\n"+line+"\n")
	mustContain(t, "the charts block", generated(t, readme, "charts"),
		"(charts/time-per-stage.svg)", "(charts/writes-and-memory.svg)\n\n"+line+"\n")
	mustContain(t, "the load block", generated(t, readme, "load"),
		"medians alone", "| floor | 800.0µs | 2.400ms |\n\n", "\n\nGET /users?role=R over loopback.\n\n![HTTP latency", "(charts/http-percentiles.svg)\n\nMeasured on",
		"`go run ./scripts/load`, then `go run ./scripts/report`.")
	for chart, wants := range map[string][]string{
		"time-per-stage":    {"200.0µs", "50.00µs", "100.0ns", "1,000 matches"},
		"allocs-per-stage":  {"215", "2000"},
		"time-vs-users":     {"1000 users", "100000 users", "2.000ms"},
		"writes-and-memory": {"3.000µs", "1.465KiB"},
		"http-percentiles":  {"1.500ms", "800.0µs", "p99", "1000 matches at 100 requests/s"},
	} {
		mustContain(t, chart, svgText(t, filepath.Join(root, "docs", "charts", chart+".svg")), append(wants, "commit `8899ddb`")...)
	}
	// Each step against the one before, in benchstat's table; its profile's
	// CPU table where one was saved.
	chapter := filepath.Join(root, "docs", "stage1-index.md")
	mustContain(t, "stage 1's benchstat block", generated(t, chapter, "benchstat"),
		"stage1-index against stage0-linear:\n\n```\n", "│ stage0-linear │", "stage1-index   ", "```\n\nVerdicts against the run's noise band",
		"- `ListByRole/users=10000/matches=100`: stage1-index 4.00x faster than stage0-linear", "\n\n"+line+"\n")
	mustContain(t, "stage 1's profile block", generated(t, chapter, "profile"),
		"75.00%  main.findByRole\n", "by `go run ./scripts/profile stage1-index`.")
	mustContain(t, "stage 0's chapter", read(t, filepath.Join(root, "docs", "stage0-linear.md")),
		"stage0-linear on its own:", block("profile"))
	if notes := read(t, filepath.Join(root, "stage1-index", "README.md")); notes != "# Notes: not the chapter\n" {
		t.Errorf("a README in a stage folder, which is no chapter, changed:\n%s", notes)
	}
}

// A chapter compares its step with the stage before it, not with the first:
// that comparison is the results page's.
func TestChapterComparesWithTheStageBefore(t *testing.T) {
	root := repository(t)
	files, err := results.ReadDir(filepath.Join(root, "results", "compare", "20260102T030405Z"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := chapterBlock(files, "floor")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "floor against stage1-index:\n") || strings.Contains(got, "stage0-linear") {
		t.Errorf("the third stage's block:\n%s", got)
	}
}

// A hand-run block reads a file of the latest run by its name there, and
// names the command that makes it again, never the run's folder.
func TestWriteBlock(t *testing.T) {
	root := repository(t)
	compareRun(t, root, "latest", "stage1-index")
	page := filepath.Join("docs", "stage1-index.md")
	write(t, filepath.Join(root, page), block("gc"))
	if err := writeBlock(root, page, "gc", "compare", []string{"-filter", ".unit:(sec/op OR B/op)", "-row", "/users", "stage1-index.txt"}); err != nil {
		t.Fatal(err)
	}
	got := generated(t, filepath.Join(root, page), "gc")
	mustContain(t, "the block", got, "1000      5.000µ", "by `go run ./scripts/compare`, then `go run ./scripts/report block --file docs/stage1-index.md "+
		"--name gc -- -filter '.unit:(sec/op OR B/op)' -row /users stage1-index.txt`.")
	if strings.Contains(got, "results") {
		t.Errorf("the block names the run's folder:\n%s", got)
	}
	// A file of a load run, given by its path, is named in the latest load run.
	withLoad(t, root, 6)
	load := filepath.Join(root, "results", "load", "20260102T030405Z", "floor.txt")
	if err := writeBlock(root, page, "gc", "compare", []string{"-filter", ".unit:p50-sec", load}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the block of a load run", generated(t, filepath.Join(root, page), "gc"),
		"by `go run ./scripts/load`, then `go run ./scripts/report block --file docs/stage1-index.md --name gc --from load -- -filter .unit:p50-sec floor.txt`.")
	// One round: benchstat prints "± ∞", which report refuses to write.
	before := read(t, filepath.Join(root, page))
	withLoad(t, root, 1)
	err := writeBlock(root, page, "gc", "compare", []string{"-filter", ".unit:p50-sec", load})
	if err == nil || !strings.Contains(err.Error(), "± ∞") || read(t, filepath.Join(root, page)) != before {
		t.Errorf("a block of one round: error %v, and the page:\n%s", err, read(t, filepath.Join(root, page)))
	}
}

// A run of fewer stages, newer than the complete one, does not shrink the
// tables: they are written whole from the complete run.
func TestGenerateSkipsAPartialRun(t *testing.T) {
	root := repository(t)
	compareRun(t, root, "20260103T000000Z", "stage0-linear", "stage1-index")
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the stages table", generated(t, filepath.Join(root, "docs", "results.md"), "stages"),
		"| [stage0-linear](", "| [stage1-index](", "| floor |")
	// Without a complete run, the blocks are left as they are.
	if err := os.RemoveAll(filepath.Join(root, "results", "compare", "20260102T030405Z")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "docs", "results.md"), block("stages"))
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	if got := generated(t, filepath.Join(root, "docs", "results.md"), "stages"); got != "old\n" {
		t.Errorf("the stages block from a run of two stages:\n%s", got)
	}
}

func TestGenerateWithoutLoadTests(t *testing.T) {
	root := repository(t)
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(root, "docs", "results.md")
	if charts := generated(t, readme, "charts"); strings.Contains(charts, "http") || !strings.HasSuffix(charts, "\n\n"+line+"\n") {
		t.Errorf("charts block without load tests:\n%s", charts)
	}
	if load := generated(t, readme, "load"); load != "old\n" {
		t.Errorf("load block without load tests:\n%s", load)
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "charts", "http-percentiles.svg")); err == nil {
		t.Error("an HTTP chart without load tests")
	}
}

func TestDiffSize(t *testing.T) {
	root := repository(t)
	if got := diffSize(root, "stage0-linear", "stage1-index"); got != "2 files, 4 lines" {
		t.Errorf("diffSize = %q; want the changed store.go and the new index.go, not the tests or notes", got)
	}
	if got := diffSize(root, "stage0-linear", "stage9-gone"); got != "?" {
		t.Errorf("diffSize against a missing folder = %q, want ?", got)
	}
}

// A run of BenchmarkMixed alone, newer than the complete run, makes the
// mixed block and its chart; the other blocks still come from the complete
// run, and a page without the block's markers is only warned about.
func TestGenerateMixed(t *testing.T) {
	root := repository(t)
	mixedRun(t, root, "20260104T000000Z")
	readme := filepath.Join(root, "docs", "results.md")
	write(t, readme, read(t, readme)+block("mixed"))
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	mixedLine := "commit `8899ddb`, by `go run ./scripts/compare --bench ^BenchmarkMixed$`, then `go run ./scripts/report`."
	mustContain(t, "the mixed block", generated(t, readme, "mixed"),
		"| stage1-index | 50.00µs | 100.0µs | 550.0µs | 2.550ms |",
		"- stage1-index against stage0-linear, one client: pays at every share measured",
		"(charts/mixed.svg)", mixedLine)
	if strings.Contains(generated(t, readme, "mixed"), "floor against") {
		t.Error("the floor, not a step, has a crossover")
	}
	mustContain(t, "the stages table", generated(t, readme, "stages"), "| [stage1-index](", line)
	mustContain(t, "the mixed chart", svgText(t, filepath.Join(root, "docs", "charts", "mixed.svg")), "share of writes", "16 clients", "stage1-index")
}

// mixedRun writes a run of compare of BenchmarkMixed at stamp: each share of writes w costs 1+w
// times the read alone, for every stage.
func mixedRun(t *testing.T, root, stamp string) {
	for stage, ns := range map[string]float64{"stage0-linear": 200_000, "stage1-index": 50_000, "floor": 100} {
		var b strings.Builder
		b.WriteString(header + "command: go run ./scripts/compare --bench ^BenchmarkMixed$\n")
		for _, factor := range []float64{1.02, 1.01, 1.005, 0.995, 0.99, 0.98} { // their median is 1
			for _, clients := range []int{1, 16} {
				for _, writes := range []int{0, 1, 10, 50} {
					fmt.Fprintf(&b, "BenchmarkMixed/users=10000/writes=%d/clients=%d-2 1 %.0f ns/op %.0f read-wait-ns/op\n",
						writes, clients, ns*factor*float64(1+writes), 2*ns*factor)
				}
			}
		}
		write(t, filepath.Join(root, "results", "compare", stamp, stage+".txt"), b.String())
	}
}
