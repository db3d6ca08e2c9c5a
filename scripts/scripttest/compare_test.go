package scripttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare runs the compare command with six rounds of one iteration and args.
func compare(t *testing.T, root string, args ...string) (int, string) {
	t.Helper()
	return run(t, script(root, "compare", append([]string{"--rounds", "6", "--benchtime", "1x"}, args...)...))
}

func TestCompareFailsLoudly(t *testing.T) {
	root := workspace(t)
	for _, c := range []struct {
		bench string
		says  []string
	}{
		{"NoSuch", []string{"compare: no benchmark matched NoSuch in bad; its benchmarks:", "BenchmarkGood"}},
		{"Fails", []string{"the answer is wrong", "compare: the benchmarks of bad failed"}},
		{"Panics", []string{"panic: boom", "compare: the benchmarks of bad failed"}},
	} {
		code, out := compare(t, root, "--bench", c.bench, "bad")
		if code == 0 {
			t.Errorf("--bench %s: exit 0\n%s", c.bench, out)
		}
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("--bench %s: the output does not say %q:\n%s", c.bench, s, out)
			}
		}
		if left := leftovers(t, root); len(left) > 0 {
			t.Errorf("--bench %s left %q", c.bench, left)
		}
	}
}

func TestCompareChecksStagesFirst(t *testing.T) {
	root := workspace(t)
	code, out := compare(t, root, "bad", "nosuch")
	if code != 2 || !strings.Contains(out, "no stage nosuch (the stages: bad)") || strings.Contains(out, "building") {
		t.Errorf("an unknown stage: exit %d, output:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "results")); err == nil {
		t.Error("an unknown stage: results were made")
	}
}

func TestCompareKeepsACompleteRun(t *testing.T) {
	root := workspace(t)
	code, out := compare(t, root, "--bench", "Good", "bad")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	latest := filepath.Join(root, "results", "compare", "latest")
	result, err := os.ReadFile(filepath.Join(latest, "bad.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(result)
	if !strings.Contains(text, "\ncommit: ") || !strings.Contains(text, "command: go run ./scripts/compare --rounds 6 --benchtime 1x --bench Good bad\n") ||
		strings.Count(text, "\nBenchmarkGood") != 6 {
		t.Errorf("bad.txt:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(latest, "benchstat.txt")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(latest, "bin")); err == nil {
		t.Error("the binaries were left behind")
	}
}

// Every command answers --help with its usage, which shows how to run it.
func TestHelp(t *testing.T) {
	root := workspace(t)
	for _, name := range commands {
		code, out := run(t, script(root, name, "--help"))
		first, _, _ := strings.Cut(out, "\n")
		if code != 0 || !strings.HasPrefix(first, name+": ") || !strings.Contains(out, "go run ./scripts/"+name) {
			t.Errorf("%s --help: exit %d, output:\n%s", name, code, out)
		}
	}
}

// commands are the commands of scripts/ that a learner or an instructor runs.
var commands = []string{"check", "compare", "handin", "load", "new-stage", "profile", "report", "room", "serialize", "test"}
