package provenance

import (
	"slices"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	config := map[string]string{"machine-cpu": "AMD EPYC", "machine-cores": "2", "go-version": "go1.26.8",
		"date": "2026-11-30T14:36:53Z", "commit": "8899ddb", "command": "./scripts/compare.sh --thorough"}
	want := "Measured on AMD EPYC (2 cores), go1.26.8, 2026-11-30T14:36Z, commit `8899ddb`, by `./scripts/compare.sh --thorough`."
	if got := Line(config); got != want {
		t.Errorf("Line =\n%s\nwant\n%s", got, want)
	}
	config["commit"] = "8899ddb " + Uncommitted
	if got := Line(config); !strings.Contains(got, "commit `8899ddb` (with uncommitted changes), by") {
		t.Errorf("a measurement of uncommitted code does not say so: %s", got)
	}
	if got := Line(map[string]string{"cpu": "Go's CPU"}); got != "Measured on Go's CPU, unknown, unknown, commit unknown, by `unknown`." {
		t.Errorf("Line of results without a header = %s", got)
	}
}

func TestLineRecordsItsCommit(t *testing.T) {
	for _, commit := range []string{"8899ddb", "8899ddb " + Uncommitted} {
		got := commits("text " + Line(map[string]string{"commit": commit}) + " text")
		want := []recorded{{"8899ddb", commit != "8899ddb"}}
		if !slices.Equal(got, want) {
			t.Errorf("commits of the line for %q = %v, want %v", commit, got, want)
		}
	}
}

func TestBlocks(t *testing.T) {
	doc := "# T\n<!-- BEGIN GENERATED: a -->\none\n<!-- END GENERATED: a -->\nprose\n" +
		"<!-- BEGIN GENERATED: b -->\n<!-- END GENERATED: b -->\n"
	got, err := Blocks(doc)
	if want := []Block{{"a", "\none\n"}, {"b", "\n"}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Blocks = %q, %v; want %q", got, err, want)
	}
}

func TestReplace(t *testing.T) {
	doc := "# T\n\n<!-- BEGIN GENERATED: a -->\nold\n<!-- END GENERATED: a -->\n\nProse.\n"
	got, err := Replace(doc, "a", "new\n")
	if want := strings.Replace(doc, "old\n", "new\n", 1); err != nil || got != want {
		t.Errorf("Replace = %q, %v; want %q", got, err, want)
	}
	for name, d := range map[string]string{
		"missing":  "# Title\n",
		"no end":   "<!-- BEGIN GENERATED: a -->\n",
		"reversed": "<!-- END GENERATED: a -->\n<!-- BEGIN GENERATED: a -->\n",
		"twice":    doc + doc,
		"other":    "<!-- BEGIN GENERATED: b -->\n<!-- END GENERATED: b -->\n",
	} {
		if _, err := Replace(d, "a", "x\n"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
