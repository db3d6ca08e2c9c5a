package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const header = "machine-cpu: Test CPU\nmachine-cores: 2\ngo-version: go1.26.8\ndate: 2026-01-02T03:04:05Z\ncommit: 8899ddb\n"

// Files measured apart each say where they were measured, after their
// label, and the command that made the block; the block holds benchstat's
// tables and names no result file, which a clone would not have.
func TestBenchstatBlock(t *testing.T) {
	dir := t.TempDir()
	idle, busy := filepath.Join(dir, "idle.txt"), filepath.Join(dir, "busy.txt")
	for path, content := range map[string]string{idle: "command: ./a\nBenchmarkA 1 1 ns/op\n", busy: "command: ./b\nBenchmarkA 1 2 ns/op\n"} {
		if err := os.WriteFile(path, []byte(header+content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	block, err := BenchstatBlock([]string{"-filter", ".name:A", "-col", ".file", "idle=" + idle, busy}, "go run ./scripts/report block")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(block, dir) || strings.Contains(block, "idle.txt") {
		t.Errorf("the block names a result file:\n%s", block)
	}
	for _, want := range []string{"```\n", "sec/op",
		"\n\nidle: Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`, by `./a`, then `go run ./scripts/report block`.\n\nbusy: Measured on ",
		"by `./b`, then `go run ./scripts/report block`.\n"} {
		if !strings.Contains(block, want) {
			t.Errorf("the block lacks %q:\n%s", want, block)
		}
	}
	if _, err := BenchstatBlock([]string{"-filter", ".name:X"}); err == nil {
		t.Error("a block of no result file: no error")
	}
}
