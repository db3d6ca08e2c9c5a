package figures

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolchainRun writes a run of compare --go into a folder: the CPU times
// of each stage on each release are six samples around cpu microseconds
// at 100 matches, and ten times that at 1,000.
func toolchainRun(t *testing.T, cpu map[string]float64) string {
	t.Helper()
	dir := t.TempDir()
	for name, micros := range cpu {
		text := header + "command: go run ./scripts/compare --go go1.26.8,go1.27.3\n"
		for i := range 6 {
			for _, size := range []float64{1, 10} {
				us := micros * size * (1 + float64(2*i-5)/1000)
				text += fmt.Sprintf("BenchmarkListByRole/users=10000/matches=%.0f-2 1 %.0f ns/op %.0f cpu-ns/op\n", 100*size, 2000*us, 1000*us)
			}
		}
		writeFile(t, filepath.Join(dir, name+".txt"), text)
	}
	writeFile(t, filepath.Join(dir, "machine.txt"), header)
	return dir
}

// Stage 0 takes half again as long on go1.27.3, stage 4 and the floor the
// same; the rows come in the stages' order, the floor last.
func TestToolchainsBlock(t *testing.T) {
	dir := toolchainRun(t, map[string]float64{
		"stage0-linear@go1.26.8": 200, "stage0-linear@go1.26.8.again": 200, "stage0-linear@go1.27.3": 300,
		"floor@go1.26.8": 1, "floor@go1.27.3": 1, "stage4-append@go1.26.8": 20, "stage4-append@go1.27.3": 20,
	})
	block, err := ToolchainsBlock(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(block, "\n")
	for i, want := range []string{
		"| stage | matches=100, go1.26.8 | go1.27.3 | change | matches=1000, go1.26.8 | go1.27.3 | change |",
		"|---|---:|---:|---:|---:|---:|---:|",
		"| stage0-linear | 200.0µs | 300.0µs | +50% | 2.000ms | 3.000ms | +50% |",
		"| stage4-append | 20.00µs | 20.00µs | ~ | 200.0µs | 200.0µs | ~ |",
		"| floor | 1.000µs | 1.000µs | ~ | 10.00µs | 10.00µs | ~ |",
	} {
		if i >= len(rows) || rows[i] != want {
			t.Errorf("row %d:\n%s\nwant\n%s", i, rows[min(i, len(rows)-1)], want)
		}
	}
	for _, want := range []string{"CPU time per operation", "the median of 6 rounds", "over go1.26.8's",
		"\n\nMeasured on Test CPU (2 cores), go1.26.8 and go1.27.3, 2026-01-02T03:04Z, commit `8899ddb`, by `go run ./scripts/compare --go go1.26.8,go1.27.3`.\n"} {
		if !strings.Contains(block, want) {
			t.Errorf("the block lacks %q:\n%s", want, block)
		}
	}
	if _, err := ToolchainsBlock(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a run of compare --go") {
		t.Errorf("a folder without a run: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
