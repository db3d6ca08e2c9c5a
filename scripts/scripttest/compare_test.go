//go:build unix

package scripttest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// compare runs compare.sh with six rounds of one iteration and args.
func compare(t *testing.T, root string, args ...string) (int, string) {
	t.Helper()
	return run(t, script(root, "compare.sh", append([]string{"--rounds", "6", "--benchtime", "1x"}, args...)...))
}

func TestCompareFailsLoudly(t *testing.T) {
	root := workspace(t)
	for _, c := range []struct {
		bench string
		says  []string
	}{
		{"NoSuch", []string{"compare.sh: no benchmark matched NoSuch in bad; its benchmarks:", "BenchmarkGood"}},
		{"Fails", []string{"the answer is wrong", "compare.sh: the benchmarks of bad failed"}},
		{"Panics", []string{"panic: boom", "compare.sh: the benchmarks of bad failed"}},
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
	if !strings.Contains(text, "\ncommit: ") || !strings.Contains(text, "command: ./scripts/compare.sh --rounds 6 --benchtime 1x --bench Good bad\n") ||
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

func TestCompareInterrupted(t *testing.T) {
	root := workspace(t)
	cmd := script(root, "compare.sh", "--rounds", "6", "--benchtime", "3x", "--bench", "Slow", "bad")
	// Ctrl-C signals the terminal's whole process group: the script and the
	// benchmark it runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A file, not a buffer: the test reads it while the script writes it.
	log, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	output := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }
	for deadline := time.Now().Add(time.Minute); !strings.Contains(output(), "round  2/6"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the second round did not start within a minute:\n%s", output())
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	if err := cmd.Wait(); err == nil || !strings.Contains(output(), "compare.sh: stopped before the last round; no results kept") {
		t.Errorf("interrupted: %v, output:\n%s", err, output())
	}
	if left := leftovers(t, root); len(left) > 0 {
		t.Errorf("interrupted, it left %q:\n%s", left, output())
	}
}

func TestHelpIsTheCommentBlock(t *testing.T) {
	root := workspace(t)
	for _, name := range []string{"check.sh", "compare.sh", "load.sh", "new-stage.sh", "profile.sh", "report.sh", "serialize.sh", "test.sh"} {
		code, out := run(t, script(root, name, "--help"))
		first, _, _ := strings.Cut(out, "\n")
		if code != 0 || !strings.HasPrefix(first, name+": ") || strings.Contains(out, "set -euo") || strings.Contains(out, "\n#") {
			t.Errorf("%s --help: exit %d, output:\n%s", name, code, out)
		}
	}
}

// While other programs hold every core, compare.sh warns before it
// measures. (No test of the quiet case: a shared machine is never sure to be
// idle.)
func TestCompareWarnsOfABusyMachine(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat: compare.sh cannot see the machine's load here")
	}
	root := workspace(t)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	for range runtime.NumCPU() {
		go func() { // a busy loop per core, until the test ends
			for ctx.Err() == nil {
			}
		}()
	}
	code, out := compare(t, root, "--bench", "Good", "bad")
	if code != 0 || !strings.Contains(out, "compare.sh: warning: other programs kept") {
		t.Errorf("exit %d, and no warning of the busy cores:\n%s", code, out)
	}
}
