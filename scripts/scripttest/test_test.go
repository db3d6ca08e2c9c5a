package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Without a C compiler that works, which the race detector needs, the test
// command says so, and how to get one, in one line, before it starts.
func TestTestNeedsACCompiler(t *testing.T) {
	root := workspace(t)
	goPath, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() // on PATH: go alone
	if err := os.Symlink(goPath, filepath.Join(path, filepath.Base(goPath))); err != nil {
		t.Skip("no symbolic link here:", err)
	}
	cmd := script(root, "test")
	cmd.Env = append(os.Environ(), "PATH="+path, "CC=")
	code, out := run(t, cmd)
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "test: the race detector needs a C compiler, and ") ||
		!strings.Contains(out, " (go env CC) is not on PATH: install ") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// A compiler on PATH that cannot compile, as a gcc without its assembler.
	cmd = script(root, "test")
	cmd.Env = append(os.Environ(), "PATH="+path, "CC=go")
	if code, out := run(t, cmd); code != 1 || !strings.Contains(out, "and go (go env CC) cannot compile C: install ") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// --again, for a second run on another Go toolchain, says first what it
// leaves out; the check of the C compiler still comes before any phase.
func TestTestAgainSaysWhatItLeavesOut(t *testing.T) {
	root := workspace(t)
	cmd := script(root, "test", "--again")
	cmd.Env = append(os.Environ(), "CC=go") // stops at the compiler check, before the phases
	code, out := run(t, cmd)
	if code != 1 || !strings.HasPrefix(out, "== --again leaves out ") ||
		!strings.Contains(out, "for other platforms; 5. the figures") || !strings.Contains(out, "(go env CC) cannot compile C") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}
