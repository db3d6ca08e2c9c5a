package profiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/google/pprof/profile"
)

// pkg is the package under test of the fixtures' stage0-linear.
const pkg = "example.com/userperf/stage0-linear"

// benchStack is where the benchmark calls the stage, root last.
const benchStack = ";" + pkg + ".(*Store).ListByRole;example.com/userperf/common/bench.ListByRole.func1;testing.(*B).runN;runtime.goexit"

// newProfile builds a profile of one sample type with a sample per stack
// ("leaf;caller;...;root"), of the given value.
func newProfile(sampleType string, stacks map[string]int64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: sampleType, Unit: "count"}}}
	locations := map[string]*profile.Location{}
	for stack, value := range stacks {
		s := &profile.Sample{Value: []int64{value}}
		for _, name := range strings.Split(stack, ";") {
			if locations[name] == nil {
				id := uint64(len(locations) + 1)
				fn := &profile.Function{ID: id, Name: name}
				locations[name] = &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
				p.Function, p.Location = append(p.Function, fn), append(p.Location, locations[name])
			}
			s.Location = append(s.Location, locations[name])
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// writeStage writes what scripts/profile leaves in results/profile/<stage>, with
// a CPU profile of the stacks and, in ns, their time.
func writeStage(t *testing.T, stage string, stacks map[string]int64) string {
	dir := filepath.Join(t.TempDir(), stage)
	files := map[string]*profile.Profile{
		"cpu.pprof": newProfile("cpu", stacks),
		"mem.pprof": newProfile("alloc_space", map[string]int64{pkg + ".encodeUsers" + benchStack: 1024}),
	}
	files["mem.pprof"].SampleType = append(files["mem.pprof"].SampleType, &profile.ValueType{Type: "alloc_objects", Unit: "count"})
	files["mem.pprof"].Sample[0].Value = append(files["mem.pprof"].Sample[0].Value, 1)
	bench := "commit: 8899ddb\nprofile-bench: BenchmarkListByRole\npkg: " + strings.ReplaceAll(pkg, "stage0-linear", stage) +
		"\nBenchmarkListByRole-2 100 1000 ns/op\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range files {
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stage0 spends 60 on the scan (10 of it comparing strings), 32 encoding (20
// of it growing the body) and 8 in the collector's background marking.
var stage0 = map[string]int64{
	pkg + ".(*Store).findByRole" + benchStack:                                      50,
	"memeqbody;" + pkg + ".(*Store).findByRole" + benchStack:                       10,
	pkg + ".encodeUsers" + benchStack:                                              12,
	"runtime.mallocgc;runtime.growslice;" + pkg + ".encodeUsers" + benchStack:      20,
	"runtime.scanobject;runtime.systemstack;runtime.gcBgMarkWorker;runtime.goexit": 8,
}

// rows are the lines of pprof's tables in output that name a function:
// flat, flat%, sum%, cum, cum% and the function, one space apart.
func rows(output string) (rows []string) {
	for line := range strings.Lines(output) {
		isRow := !unicode.IsUpper(rune(line[0])) // not a title, pprof's summary, the legend or the provenance
		if isRow && (strings.Contains(line, "main.") || strings.Contains(line, "runtime.")) {
			rows = append(rows, strings.Join(strings.Fields(line), " "))
		}
	}
	return rows
}

func TestTopRanksFunctionsWithTheRuntimeFolded(t *testing.T) {
	var out strings.Builder
	if err := Write(&out, []string{writeStage(t, "stage0-linear", stage0)}, []string{"cpu"}, 12, true); err != nil {
		t.Fatal(err)
	}
	// == counts at the scan, the allocator at the growth of the body, the
	// collector's marking at its entry point.
	want := []string{"60 60.00% 60.00% 60 60.00% main.(*Store).findByRole", "20 20.00% 80.00% 20 20.00% runtime.growslice",
		"12 12.00% 92.00% 32 32.00% main.encodeUsers", "8 8.00% 100% 8 8.00% runtime.gcBgMarkWorker"}
	got := rows(out.String())
	if len(got) < len(want) {
		t.Fatalf("rows = %q, want %q first", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
	if !strings.Contains(out.String(), "in stage0-linear:\n\n```\nShowing nodes") || !strings.Contains(out.String(), "commit `8899ddb`") {
		t.Errorf("no code block of the table, or no provenance line, in\n%s", out.String())
	}
}

func TestDiffLinesUpTheFunctionsOfTwoStages(t *testing.T) {
	stage1 := map[string]int64{}
	for stack, v := range stage0 {
		stage1[strings.ReplaceAll(stack, "stage0-linear", "stage1-index")] = v
	}
	stage1[strings.ReplaceAll(pkg+".(*Store).findByRole"+benchStack, "stage0-linear", "stage1-index")] = 10 // the scan is gone
	a, b := writeStage(t, "stage0-linear", stage0), writeStage(t, "stage1-index", stage1)
	var out strings.Builder
	if err := Write(&out, []string{a, b}, []string{"cpu"}, 12, false); err != nil {
		t.Fatal(err)
	}
	got := rows(out.String())
	if len(got) == 0 || !strings.HasSuffix(got[0], "main.(*Store).findByRole") || !strings.HasPrefix(got[0], "-") {
		t.Errorf("first row = %q, want the scan's share going down", got)
	}
	if strings.Contains(out.String(), "stage0-linear.") || strings.Contains(out.String(), "stage1-index.") {
		t.Errorf("functions not lined up by name:\n%s", out.String())
	}
}
