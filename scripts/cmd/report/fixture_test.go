package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
)

// header is what compare.sh and load.sh write at the top of every file.
const header = `machine-cpu: Test CPU
machine-cores: 2
go-version: go1.26.8
date: 2026-01-02T03:04:05Z
commit: 8899ddb
command: ./scripts/compare.sh --rounds 3
goos: linux
goarch: amd64
cpu: Test CPU
`

// fixtureLine is the provenance line of the fixture's results.
const fixtureLine = "Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`, by `./scripts/compare.sh --rounds 3`."

// fixtureTimes are the median ns/op of each fixture stage, per benchmark.
var fixtureTimes = map[string]map[string]float64{
	"stage0-linear": {"users=10000/matches=100": 200000, "users=10000/matches=1000": 400000, "users=1000/matches=100": 50000, "users=100000/matches=100": 2000000},
	"stage1-index":  {"users=10000/matches=100": 50000, "users=10000/matches=1000": 300000, "users=1000/matches=100": 50000, "users=100000/matches=100": 50000},
	"floor":         {"users=10000/matches=100": 100, "users=10000/matches=1000": 100, "users=1000/matches=100": 100, "users=100000/matches=100": 100},
}

// fixtureAllocs are the allocs/op of each fixture stage at 100 and 1,000 matches.
var fixtureAllocs = map[string][2]int{"stage0-linear": {222, 2033}, "stage1-index": {215, 2023}, "floor": {0, 0}}

// writeCompare writes compare.sh's results for the fixture stages into dir:
// three runs per benchmark, whose median is the fixture's time.
func writeCompare(t *testing.T, dir string) {
	t.Helper()
	for stage, times := range fixtureTimes {
		var b strings.Builder
		b.WriteString(header + "pkg: example.com/userperf/" + stage + "\n")
		for _, factor := range []float64{1.2, 1, 0.9} {
			for sub, ns := range times {
				allocs := fixtureAllocs[stage][0]
				if strings.HasSuffix(sub, "=1000") {
					allocs = fixtureAllocs[stage][1]
				}
				fmt.Fprintf(&b, "BenchmarkListByRole/%s-2 \t 1000\t %.0f ns/op\t 1000 B/op\t %d allocs/op\n", sub, ns*factor, allocs)
			}
			// Through the handler: twice the time plus 500 ns of HTTP.
			fmt.Fprintf(&b, "BenchmarkServeHTTP/users=10000/matches=100-2 \t 1000\t %.0f ns/op\n", (2*times["users=10000/matches=100"]+500)*factor)
		}
		writeFile(t, filepath.Join(dir, stage+".txt"), b.String())
	}
	writeFile(t, filepath.Join(dir, "machine.txt"), header)
	writeFile(t, filepath.Join(dir, "benchstat.txt"), "not a stage\n")
}

// addWrites adds the write and memory benchmarks to the fixture's stages
// (not the floor, which has no writes): stage0-linear writes in 3µs and
// holds 700 bytes per user, stage1-index in 9µs and 1,500 bytes.
func addWrites(t *testing.T, dir string) {
	t.Helper()
	for stage, v := range map[string][2]float64{"stage0-linear": {3000, 700}, "stage1-index": {9000, 1500}} {
		f, err := os.OpenFile(filepath.Join(dir, stage+".txt"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			fmt.Fprintf(f, "BenchmarkWrite/users=10000/roles=3-2 \t 1000\t %.0f ns/op\t 300 B/op\t 4 allocs/op\n", v[0])
			fmt.Fprintf(f, "BenchmarkBuild/users=10000-2 \t 10\t 5000000 ns/op\t %.0f held-B/user\n", v[1])
		}
		f.Close()
	}
}

// writeLoad writes load.sh's results for stage0-linear and the floor.
func writeLoad(t *testing.T, dir string) {
	t.Helper()
	loadHeader := strings.Replace(header, "compare.sh --rounds 3", "load.sh --quick", 1)
	for stage, p50 := range map[string]int{"stage0-linear": 1_500_000, "floor": 800_000} {
		body := loadHeader + fmt.Sprintf("BenchmarkHTTPFixedRate/rate=100/matches=100 400 %d p50-ns %d p95-ns %d p99-ns 9000000 max-ns 0 errors\n", p50, 2*p50, 4*p50) +
			fmt.Sprintf("BenchmarkHTTPFixedRate/rate=100/matches=1000 400 %d p50-ns %d p95-ns %d p99-ns 9000000 max-ns 0 errors\n", 3*p50, 4*p50, 5*p50) +
			"BenchmarkHTTPSaturated/conns=32/matches=100 10267 5127.5 req/s 2834526 p50-ns 40551672 p99-ns\n"
		writeFile(t, filepath.Join(dir, stage+".txt"), body)
	}
	writeFile(t, filepath.Join(dir, "table.md"), "| stage | p50 |\n|---|---:|\n| stage0-linear | 1.5ms |\n| floor | 800µs |\n")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readDir reads a folder of results, failing the test on an error.
func readDir(t *testing.T, dir string) []*results.File {
	t.Helper()
	files, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readFixture writes and reads the fixture's compare results; with
// writes, the write and memory benchmarks too.
func readFixture(t *testing.T, writes bool) []*results.File {
	t.Helper()
	dir := t.TempDir()
	writeCompare(t, dir)
	if writes {
		addWrites(t, dir)
	}
	return readDir(t, dir)
}

// mustContain fails the test for each of wants that text lacks.
func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
}
