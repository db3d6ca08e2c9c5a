package main

import (
	"strings"
	"testing"

	"example.com/userperf/common/user"
)

// writeCounter counts the writes made to it and keeps what they wrote.
type writeCounter struct {
	writes int
	text   strings.Builder
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.text.Write(p)
}

// useLogger makes ListByRole log to a new writeCounter at level for the
// rest of the test.
func useLogger(t *testing.T, level string) *writeCounter {
	w := &writeCounter{}
	saved := logger
	logger = newLogger(w, level)
	t.Cleanup(func() { logger = saved })
	return w
}

func TestListLogsNothingByDefault(t *testing.T) {
	w := useLogger(t, "")
	New(user.MustGenerate(user.MinCount, user.DefaultSeed)).ListByRole(user.RoleAdmin)
	if w.writes != 0 {
		t.Errorf("at the default level a list request made %d writes, want none:\n%.300s", w.writes, w.text.String())
	}
}

func TestListLogsOneWritePerRequestAtDebug(t *testing.T) {
	w := useLogger(t, "debug")
	s := New(user.MustGenerate(user.MinCount, user.DefaultSeed))
	s.ListByRole(user.RoleAdmin)
	s.ListByRole("a role\nwith a newline")
	if w.writes != 2 {
		t.Errorf("at debug level two list requests made %d writes, want 2:\n%s", w.writes, w.text.String())
	}
	if lines := strings.Count(w.text.String(), "\n"); lines != 2 {
		t.Errorf("two list requests logged %d lines, want 2 (a role must not break a line):\n%s", lines, w.text.String())
	}
	if !strings.Contains(w.text.String(), "msg=list role=admin matches=100 took=") {
		t.Errorf("the admin request's record is missing:\n%s", w.text.String())
	}
}

func TestAnUnknownLevelIsReported(t *testing.T) {
	w := useLogger(t, "verbose")
	if !strings.Contains(w.text.String(), "unknown log level") {
		t.Errorf("USERPERF_LOG=verbose was accepted without a word; the log holds:\n%s", w.text.String())
	}
}
