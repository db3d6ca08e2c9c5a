package results

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

const header = "machine-cpu: Test CPU\ncommit: 8899ddb (with uncommitted changes)\ncommand: go run ./scripts/compare --rounds 6 (bench=^Benchmark(A|B)$)\n"

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRead(t *testing.T) {
	path := write(t, t.TempDir(), "stage1-index.txt", header+"pkg: example.com/userperf/stage1-index\n"+
		"BenchmarkListByRole/users=10000/matches=100-2 \t 100\t 4000 ns/op\t 3 allocs/op\n"+
		"BenchmarkListByRole/users=10000/matches=100-2 \t 100\t 1000 ns/op\t 3 allocs/op\n"+
		"BenchmarkListByRole/users=10000/matches=100-8 \t 100\t 3000 ns/op\t 3 allocs/op\n"+
		"BenchmarkListByRole/users=10000/matches=100 \t 100\t 2000 ns/op\t 3 allocs/op\n"+
		"BenchmarkBuild/users=10000-2 \t 1\t 5 ns/op\t 812.5 held-B/user\n")
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"machine-cpu": "Test CPU", "commit": "8899ddb (with uncommitted changes)",
		"command": "go run ./scripts/compare --rounds 6 (bench=^Benchmark(A|B)$)", "pkg": "example.com/userperf/stage1-index"}
	if f.Name != "stage1-index" || !maps.Equal(f.Config, want) {
		t.Errorf("name %q, config %v", f.Name, f.Config)
	}
	// Any GOMAXPROCS suffix is the same benchmark, as on another machine.
	if v := Median(f.Values("ListByRole/users=10000/matches=100", "sec/op")); v != 2.5e-6 || len(f.Values("ListByRole/users=10000/matches=100", "allocs/op")) != 4 {
		t.Errorf("median = %v; want 2.5µs (ns tidied to seconds) of 4 runs", v)
	}
	if v := Median(f.Values("Build/users=10000", "held-B/user")); v != 812.5 {
		t.Errorf("custom metric = %v; want 812.5", v)
	}
	if v := f.Values("ListByRole/users=5/matches=100", "sec/op"); len(v) != 0 || Median(v) != 0 {
		t.Error("a benchmark that did not run has samples, or a median other than 0")
	}
	if got := f.Measurements(); len(got) != 4 || got[0] != (Measurement{"Build/users=10000", "held-B/user"}) {
		t.Errorf("measurements %v, want 4, sorted", got)
	}
	if _, err := Read(write(t, t.TempDir(), "a.txt", "BenchmarkA 10 five ns/op\n")); err == nil {
		t.Error("a malformed result line: no error")
	}
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"floor", "mystage", "stage10-x", "stage2-y"} {
		write(t, dir, name+".txt", header+"BenchmarkA 1 1 ns/op\n")
	}
	write(t, dir, "machine.txt", header)
	write(t, dir, "benchstat.txt", "not results\n")
	files, err := ReadDir(dir)
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if want := []string{"stage2-y", "stage10-x", "mystage", "floor"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("files %q, %v; want %q", names, err, want)
	}
	if _, err := ReadDir(t.TempDir()); err == nil {
		t.Error("a folder without results: no error")
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	dir := t.TempDir()
	config := []byte(header + "date: 2026-01-02T03:04:05Z") // no final newline
	results := []*benchfmt.Result{
		{Name: benchfmt.Name("HTTPFixedRate/rate=100/matches=100"), Iters: 400, Values: []benchfmt.Value{{Value: 1.5e6, Unit: "p50-ns"}}},
		{Name: benchfmt.Name("HTTPSaturated/conns=32/matches=100"), Iters: 9000, Values: []benchfmt.Value{{Value: 5127.5, Unit: "req/s"}}},
	}
	path := filepath.Join(dir, "floor.txt")
	if err := WriteFile(path, config, results); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil || f.Config["date"] != "2026-01-02T03:04:05Z" || f.Config["command"] != "go run ./scripts/compare --rounds 6 (bench=^Benchmark(A|B)$)" {
		t.Fatalf("read back: %v, config %v", err, f.Config)
	}
	if v, _ := Median(f.Values("HTTPFixedRate/rate=100/matches=100", "p50-sec")), 0; v != 1.5e-3 {
		t.Errorf("p50 read back %v, want 1.5ms", v)
	}
	if v, _ := Median(f.Values("HTTPSaturated/conns=32/matches=100", "req/s")), 0; v != 5127.5 {
		t.Errorf("req/s read back %v", v)
	}
}

func TestDuration(t *testing.T) {
	for sec, want := range map[float64]string{178.9e-6: "178.9µs", 1.43612e-3: "1.436ms", 20.9e-9: "20.90ns", 1.2: "1.200s"} {
		if got := Duration(sec); got != want {
			t.Errorf("Duration(%v) = %q, want %q", sec, got, want)
		}
	}
}

func TestOnToolchain(t *testing.T) {
	if got := OnToolchain("stage2-noclone", "go1.27.3"); got != "stage2-noclone@go1.27.3" {
		t.Errorf("OnToolchain = %q", got)
	}
	if got := OnToolchain("stage2-noclone", ""); got != "stage2-noclone" {
		t.Errorf("OnToolchain with this machine's go = %q, want the stage's name alone", got)
	}
	if stage, toolchain := SplitToolchain("stage2-noclone@go1.27.3"); stage != "stage2-noclone" || toolchain != "go1.27.3" {
		t.Errorf("SplitToolchain = %q, %q", stage, toolchain)
	}
	config := map[string]string{"go-version": "go1.26.8", "machine-cpu": "Test CPU"}
	if got := AcrossToolchains(config, []string{"go1.26.8", "go1.27.3"}); got["go-version"] != "go1.26.8 and go1.27.3" ||
		got["machine-cpu"] != "Test CPU" || config["go-version"] != "go1.26.8" {
		t.Errorf("AcrossToolchains = %v (and the config it was given became %v)", got, config)
	}
}

// Exercise 1 asks where an index shows; a stage that starts no exercise is asked the headline's row.
func TestQuestion(t *testing.T) {
	if got := Question("stage0-linear"); got != "ListByRole/users=100000/matches=100" {
		t.Errorf("Question(stage0-linear) = %s", got)
	}
	if got := Question("workshop/quest6-cache"); got != "ListByRole/users=10000/matches=100" {
		t.Errorf("Question(workshop/quest6-cache) = %s", got)
	}
}

// A copy of a copy of an exercise's start is asked that exercise's question, however many copies away.
func TestExerciseStart(t *testing.T) {
	root := t.TempDir()
	for dir, origin := range map[string]string{"ex2": "stage1-index", "ex2b": "ex2", "ex2c": "ex2b", "mine": "", "loop": "loop",
		"mycache": "workshop/quest6-cache", "stage1-index": ""} {
		mod := "module example.com/" + dir + "\n"
		if origin != "" {
			mod += "\n// origin: " + origin + " (the stage this module started from)\n"
		}
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "go.mod"), []byte(mod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, from, want string }{
		{"ex2", "", "stage1-index"},
		{"ex2b", "", "stage1-index"},
		{"ex2c", "", "stage1-index"},
		{"ex2c", "stage0-linear", "stage0-linear"}, // --from names the start
		{"mine", "", ""},
		{"loop", "", ""},
		{"mycache", "", ""}, // a side quest has no question of its own
		{"stage1-index", "", ""},
	} {
		if got := ExerciseStart(root, c.dir, c.from); got != c.want {
			t.Errorf("ExerciseStart(%s, from %q) = %q, want %q", c.dir, c.from, got, c.want)
		}
	}
	if got := Question(ExerciseStart(root, "ex2c", "")); got != Matches1000 {
		t.Errorf("a copy of a copy of stage1-index is asked %s, want exercise 2's row %s", got, Matches1000)
	}
}

func TestWall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test", WallFile)
	if err := WriteWall(path, "command: go run ./scripts/test\n", 9*time.Minute+5*time.Second); err != nil {
		t.Fatal(err)
	}
	wall, f, err := ReadWall(path)
	if err != nil || wall != 9*time.Minute+5*time.Second || f.Config["command"] != "go run ./scripts/test" {
		t.Errorf("ReadWall = %v, %v, %v", wall, f, err)
	}
	if _, _, err := ReadWall(filepath.Join(t.TempDir(), "none.txt")); err == nil {
		t.Error("no file: no error")
	}
}
