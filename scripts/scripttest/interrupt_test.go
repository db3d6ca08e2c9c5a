//go:build unix

package scripttest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C in the middle of the rounds keeps nothing and leaves nothing.
func TestCompareInterrupted(t *testing.T) {
	root := workspace(t)
	cmd := script(root, "compare", "--rounds", "6", "--benchtime", "3x", "--bench", "Slow", "bad")
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
	if err := cmd.Wait(); err == nil || !strings.Contains(output(), "compare: stopped before the last round; no results kept") {
		t.Errorf("interrupted: %v, output:\n%s", err, output())
	}
	if left := leftovers(t, root); len(left) > 0 {
		t.Errorf("interrupted, it left %q:\n%s", left, output())
	}
}
