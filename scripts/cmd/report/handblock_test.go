package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBenchstatInputs(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{[]string{"a.txt", "b.txt"}, []string{"a.txt", "b.txt"}},
		{[]string{"-filter", ".name:Encode", "-col=.file", "x=a.txt"}, []string{"x=a.txt"}},
		{[]string{"-ignore", "pkg", "--", "-odd.txt"}, []string{"-odd.txt"}},
		{[]string{"-table", ".name"}, nil},
	} {
		if got := benchstatInputs(c.args); !slices.Equal(got, c.want) {
			t.Errorf("benchstatInputs(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

func TestHandBlock(t *testing.T) {
	dir := t.TempDir()
	writeCompare(t, dir)
	chapter := filepath.Join(dir, "README.md")
	writeFile(t, chapter, "# Stage 3\n\n<!-- BEGIN GENERATED: decomposition -->\nold\n<!-- END GENERATED: decomposition -->\n\nProse.\n")
	var f fakeBenchstat
	var out bytes.Buffer
	args := []string{"-file", chapter, "-name", "decomposition", "--",
		"-filter", ".name:ListByRole", "before=" + filepath.Join(dir, "stage0-linear.txt"), filepath.Join(dir, "stage1-index.txt")}
	if err := handBlock(&out, args, f.run); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 1 || !slices.Equal(f.calls[0], args[5:]) {
		t.Errorf("benchstat got %q, want the arguments after --: %q", f.calls, args[5:])
	}
	got, _ := os.ReadFile(chapter)
	want := "# Stage 3\n\n<!-- BEGIN GENERATED: decomposition -->\n```\n        │ a │ b │\nrow  1  2\n```\n\n" +
		"`go tool benchstat -filter .name:ListByRole before=" + filepath.Join(dir, "stage0-linear.txt") + " " + filepath.Join(dir, "stage1-index.txt") + "`\n\n" +
		fixtureLine + "\n<!-- END GENERATED: decomposition -->\n\nProse.\n"
	if string(got) != want {
		t.Errorf("chapter:\n%s\nwant:\n%s", got, want)
	}
}

func TestHandBlockRefuses(t *testing.T) {
	dir := t.TempDir()
	writeCompare(t, dir)
	result := filepath.Join(dir, "floor.txt")
	for name, args := range map[string][]string{
		"no benchstat arguments": {"-file", "x.md", "-name", "n"},
		"a file but no name":     {"-file", "x.md", "--", result},
		"no result file":         {"--", "-filter", ".name:X"},
		"an unreadable file":     {"--", filepath.Join(dir, "nosuch.txt")},
		"no markers":             {"-file", filepath.Join(dir, "benchstat.txt"), "-name", "n", "--", result},
	} {
		var f fakeBenchstat
		if err := handBlock(new(bytes.Buffer), args, f.run); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	var out bytes.Buffer
	var f fakeBenchstat
	if err := handBlock(&out, []string{"--", result}, f.run); err != nil || !strings.HasSuffix(out.String(), fixtureLine+"\n") {
		t.Errorf("without -file: error %v, printed:\n%s", err, &out)
	}
}
