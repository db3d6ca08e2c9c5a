package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

func TestDescribe(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "stage1-index", "README.md"), "# Stage 1: a role index\n\ntext\n")
	writeFile(t, filepath.Join(root, "stage1-index", "main.go"), "// Command stage1-index is ignored: the README wins.\npackage main\n")
	writeFile(t, filepath.Join(root, "workshop", "mine", "main.go"), "// Command mine serves from a cache: details.\npackage main\n")
	writeFile(t, filepath.Join(root, "floor", "main.go"), "// Command floor is the limit of the path: more. And more.\npackage main\n")
	writeFile(t, filepath.Join(root, "floor", "stage_test.go"), "// Command floor is not this.\npackage main\n")
	for _, c := range []struct {
		stage stages.Stage
		want  string
	}{
		{stages.Stage{Name: "stage1-index", Dir: "stage1-index"}, "a role index"},
		{stages.Stage{Name: "mine", Dir: "workshop/mine"}, "serves from a cache"},
		{stages.Stage{Name: "floor", Dir: "floor"}, "the limit of the path"},
		{stages.Stage{Name: "stage7-gone", Dir: "stage7-gone"}, ""},
	} {
		if got := describe(root, c.stage); got != c.want {
			t.Errorf("describe(%s) = %q, want %q", c.stage.Name, got, c.want)
		}
	}
}

// fakeBenchstat records its calls and answers like benchstat, with the
// configuration lines that the block leaves out.
type fakeBenchstat struct{ calls [][]string }

func (f *fakeBenchstat) run(args ...string) (string, error) {
	f.calls = append(f.calls, args)
	return "goos: linux\ncpu: Test CPU   \n        │ a │ b │   \nrow  1  2  \n\n", nil
}

func TestBenchstatBlock(t *testing.T) {
	files := readFixture(t, false)
	stage2 := &results.File{Name: "stage2-noclone", Path: "s2.txt", Config: files[0].Config}
	files = append(files[:2], stage2, files[2])
	var f fakeBenchstat
	got, err := benchstatBlock(files, 2, f.run)
	if err != nil {
		t.Fatal(err)
	}
	filter := []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR allocs/op)"}
	wantCalls := [][]string{
		append(slices.Clone(filter), "stage1-index="+files[1].Path, "stage2-noclone=s2.txt"),
		append(slices.Clone(filter), "stage0-linear="+files[0].Path, "stage2-noclone=s2.txt"),
	}
	if !slices.EqualFunc(f.calls, wantCalls, slices.Equal) {
		t.Errorf("benchstat calls\n%q\nwant\n%q", f.calls, wantCalls)
	}
	mustContain(t, got,
		"stage2-noclone against stage1-index:\n\n```\n        │ a │ b │\nrow  1  2\n```\n",
		"stage2-noclone against stage0-linear:",
		"`go tool benchstat -ignore pkg -filter '.unit:(sec/op OR allocs/op)' stage0-linear=",
		"\n"+fixtureLine+"\n")
	if strings.Contains(got, "goos:") {
		t.Errorf("block keeps benchstat's configuration lines:\n%s", got)
	}
}

func TestBenchstatBlockOfTheFirstStages(t *testing.T) {
	files := readFixture(t, false)
	var f fakeBenchstat
	if _, err := benchstatBlock(files, 0, f.run); err != nil || len(f.calls) != 1 || len(f.calls[0]) != 5 {
		t.Errorf("stage0: calls %q, error %v; want one call with stage0 alone", f.calls, err)
	}
	f.calls = nil
	if _, err := benchstatBlock(files, 1, f.run); err != nil || len(f.calls) != 1 {
		t.Errorf("stage1: calls %q, error %v; want one call: its previous stage is stage0", f.calls, err)
	}
}

func TestProvenanceOfFilesMeasuredApart(t *testing.T) {
	a := &results.File{Name: "idle", Config: map[string]string{"commit": "8899ddb", "command": "./a.sh"}}
	b := &results.File{Name: "busy", Config: map[string]string{"commit": "8899ddb", "command": "./b.sh"}}
	if got := provenanceOf(a, a); strings.Count(got, "Measured on") != 1 {
		t.Errorf("one measurement, provenance:\n%s", got)
	}
	got := provenanceOf(a, b)
	if !strings.HasPrefix(got, "idle: Measured on") || !strings.Contains(got, "\n\nbusy: Measured on") || !strings.Contains(got, "`./b.sh`") {
		t.Errorf("two measurements, provenance:\n%s", got)
	}
}

func TestShellQuote(t *testing.T) {
	got := shellQuote([]string{"-filter", ".unit:(sec/op OR allocs/op)", "a=results/x.txt", "it's"})
	if want := `-filter '.unit:(sec/op OR allocs/op)' a=results/x.txt 'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
