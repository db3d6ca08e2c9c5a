//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeStopsOnSIGTERM runs the command as an instructor does, sends it
// SIGTERM, and requires exit status 0 and the log line of what it kept:
// the command's harness, which exits at a signal, must leave it to the
// server.
func TestServeStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	binary := filepath.Join(t.TempDir(), "room")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// An empty workspace of its own: its results/room/handins/ go there,
	// outside the repository.
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "go.work"), []byte("go 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--serve", "127.0.0.1:0")
	cmd.Dir = work
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.Contains(lines.Text(), "Ctrl-C stops it") {
	}
	go func() {
		for lines.Scan() {
		}
	}()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stderr.String(), "room: stopped: 0 hand-ins kept") {
			t.Errorf("after SIGTERM: %v, want exit status 0 and the log of what it kept; its log:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the room did not stop within 30 s of SIGTERM; its log:\n%s", stderr.String())
	}
}
