package scripttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hand-in file holds each stage's verdict and speed-ups and, under each role,
// the stage that was measured; a stage checked since it last changed is not named.
func TestHandin(t *testing.T) {
	root := workspace(t, "common", "stage0-linear")
	if code, out := run(t, script(root, "new-stage", "ex1")); code != 0 {
		t.Fatalf("new-stage ex1: exit %d\n%s", code, out)
	}
	checked := filepath.Join(root, "results", "check", "ex1")
	write(t, filepath.Join(checked, "verdict.txt"), "passed: 2.00x faster than stage0-linear (ListByRole)\n")
	for role, stage := range map[string]string{"origin": "stage0-linear", "mine": "ex1"} {
		write(t, filepath.Join(checked, "speed-"+role+".txt"), "commit: abc\npkg: example.com/userperf/"+stage+"\nBenchmarkListByRole/users=10000/matches=100-2 \t 10 \t 100 ns/op\n")
	}
	write(t, filepath.Join(checked, "speedups.txt"), "speedup-ex1-origin: 2\n")
	later := time.Now().Add(time.Minute) // the check ran after new-stage
	os.Chtimes(filepath.Join(checked, "verdict.txt"), later, later)
	code, out := run(t, script(root, "handin", "Ada Lovelace"))
	if code != 0 || strings.Contains(out, "changed since") || !strings.Contains(out, "  ex1: passed: 2.00x faster") {
		t.Fatalf("handin: exit %d\n%s", code, out)
	}
	file, _ := os.ReadFile(filepath.Join(root, "results", "handin", "ada-lovelace.txt"))
	for _, want := range []string{"participant: Ada Lovelace\n", "\nverdict-ex1: passed: 2.00x faster than stage0-linear (ListByRole)\nspeedup-ex1-origin: 2\n",
		"\nexercise: ex1\nrole: origin\ncommit: abc\npkg: example.com/userperf/stage0-linear\nBenchmarkListByRole/users=10000/matches=100-2 ",
		"\nexercise: ex1\nrole: mine\ncommit: abc\npkg: example.com/userperf/ex1\nBenchmark"} {
		if !strings.Contains(string(file), want) {
			t.Errorf("the hand-in file does not hold %q:\n%s", want, file)
		}
	}
	if code, out := run(t, script(root, "handin", "Ada/Lovelace")); code != 2 {
		t.Errorf("a name with a slash: exit %d\n%s", code, out)
	}
}
