package scripttest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
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

// --go names two Go releases or more, checked before anything is built.
func TestCompareGoChecksReleases(t *testing.T) {
	root := workspace(t)
	for value, says := range map[string]string{
		"1.27.3,go1.26.8": `compare: --go 1.27.3,go1.26.8: "1.27.3" is not a Go release`,
		"go1.27,go1.26.8": "go1.27 is a language version, not a release",
		"go1.27.3":        "for one, run GOTOOLCHAIN=go1.27.3 go run ./scripts/compare",
	} {
		code, out := compare(t, root, "--go", value, "bad")
		if code != 2 || !strings.Contains(out, says) || strings.Contains(out, "building") {
			t.Errorf("--go %s: exit %d, output:\n%s\nwant exit 2 and %q", value, code, out, says)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "results")); err == nil {
		t.Error("a wrong --go: results were made")
	}
}

// releaseBench reports the minor number of the Go release that built its test binary.
const releaseBench = `package bad

import (
	"fmt"
	"runtime"
	"testing"
)

func BenchmarkRelease(b *testing.B) {
	var minor int
	fmt.Sscanf(runtime.Version(), "go1.%d", &minor)
	for b.Loop() {
	}
	b.ReportMetric(float64(minor), "go1-minor")
}
`

// Each release builds the stage's binary, whose results carry its label
// and version; the first is measured twice. The go command downloads a
// release it lacks (about 76 MB): the two that this repository supports,
// which its tests need anyway.
func TestCompareGoLabelsEachRelease(t *testing.T) {
	root := workspace(t)
	write(t, filepath.Join(root, "bad", "release_test.go"), releaseBench)
	code, out := compare(t, root, "--go", "go1.26.8,go1.27.3", "--bench", "Release", "bad")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"== building 1 test binaries with go1.26.8", "== building 1 test binaries with go1.27.3",
		"== 6 rounds x 1 stages x 2 Go releases and bad@go1.26.8 again", "The floor: bad@go1.26.8 measured twice",
		", go1.26.8 and go1.27.3, ", "results: results/toolchains/"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`│ +go1\.26\.8 +│ +go1\.27\.3 +│\n.*│ go1-minor +│ go1-minor `).MatchString(out) {
		t.Errorf("benchstat's tables have no column per release:\n%s", out)
	}
	latest := filepath.Join(root, "results", "toolchains", "latest")
	for name, minor := range map[string]float64{"bad@go1.26.8": 26, "bad@go1.27.3": 27, "bad@go1.26.8.again": 26} {
		f, err := results.Read(filepath.Join(latest, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		version := "go1." + strings.TrimSuffix(strings.TrimPrefix(name, "bad@go1."), ".again")
		built := f.Values("Release", "go1-minor")
		if f.Config["go-version"] != version || len(built) != 6 || slices.ContainsFunc(built, func(v float64) bool { return v != minor }) {
			t.Errorf("%s: go-version %q, built by go1.x: %v; want %s, six times %v", name, f.Config["go-version"], built, version, minor)
		}
	}
	if left := leftovers(t, root); len(left) > 0 {
		t.Errorf("left %q", left)
	}
}
