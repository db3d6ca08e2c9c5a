package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	config := map[string]string{"machine-cpu": "AMD EPYC", "machine-cores": "2", "go-version": "go1.26.8",
		"date": "2026-11-30T14:36:53Z", "commit": "8899ddb", "command": "go run ./scripts/compare --thorough"}
	want := "Measured on AMD EPYC (2 cores), go1.26.8, 2026-11-30T14:36Z, commit `8899ddb`, by `go run ./scripts/compare --thorough`."
	if got := Line(config); got != want {
		t.Errorf("Line =\n%s\nwant\n%s", got, want)
	}
	if got := Line(config, "go run ./scripts/report"); got != strings.TrimSuffix(want, ".")+", then `go run ./scripts/report`." {
		t.Errorf("Line with the command that made the table = %s", got)
	}
	config["commit"] = "8899ddb " + Uncommitted
	if got := Line(config); !strings.Contains(got, "commit `8899ddb` (with uncommitted changes), by") {
		t.Errorf("a measurement of uncommitted code does not say so: %s", got)
	}
	if got := Line(map[string]string{"cpu": "Go's CPU"}); got != "Measured on Go's CPU, unknown, unknown, commit unknown, by `unknown`." {
		t.Errorf("Line of results without a header = %s", got)
	}
}

func TestUpdateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	doc := "# T\n\n<!-- BEGIN GENERATED: a -->\nold\n<!-- END GENERATED: a -->\n\nProse.\n"
	os.WriteFile(path, []byte(doc), 0o644)
	// A missing block is an error, but does not keep the others back.
	err := UpdateFile(path, Block{"a", "new\n"}, Block{"missing", "x\n"})
	if got, _ := os.ReadFile(path); err == nil || string(got) != strings.Replace(doc, "old", "new", 1) {
		t.Errorf("UpdateFile: error %v, file:\n%s", err, got)
	}
	for name, d := range map[string]string{
		"no end":   "<!-- BEGIN GENERATED: a -->\n",
		"reversed": "<!-- END GENERATED: a -->\n<!-- BEGIN GENERATED: a -->\n",
		"twice":    doc + doc,
	} {
		os.WriteFile(path, []byte(d), 0o644)
		if err := UpdateFile(path, Block{"a", "x\n"}); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got, _ := os.ReadFile(path); string(got) != d {
			t.Errorf("%s: changed the file:\n%s", name, got)
		}
	}
}

// TestUpdateFileRefusesInfinite: no page prints an interval that benchstat could not compute.
func TestUpdateFileRefusesInfinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.md")
	doc := "<!-- BEGIN GENERATED: load -->\nold\n<!-- END GENERATED: load -->\n<!-- BEGIN GENERATED: b -->\nold\n<!-- END GENERATED: b -->\n"
	os.WriteFile(path, []byte(doc), 0o644)
	for _, content := range []string{"stage0-linear  1013.0µ ± ∞ ¹\n", "x\nstage0-linear  1013.0µ ±∞ ¹\n"} {
		err := UpdateFile(path, Block{"load", content}, Block{"b", "new\n"})
		got, _ := os.ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), "block load") || strings.Contains(string(got), "∞") {
			t.Errorf("%q: error %v, file:\n%s", content, err, got)
		}
		if !strings.Contains(string(got), "new") {
			t.Errorf("%q: the other block was held back:\n%s", content, got)
		}
	}
	if err := UpdateFile(path, Block{"load", "stage0-linear  1013.0µ ± 3%\n"}); err != nil {
		t.Errorf("a finite interval: %v", err)
	}
}
