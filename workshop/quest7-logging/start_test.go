package main

// This starting point is slow, not wrong: it passes the shared suites, and
// these tests check that it does and that it really writes as much as its
// comment says. They live here rather than in a stage_test.go so that the
// scripts do not list it as a stage of their own, and without the shared
// benchmarks, so that go run ./scripts/test does not print its log.
//
// scripts/new-stage leaves this file out of a learner's copy and puts
// the usual stage_test.go, benchmarks included, in its place.

import (
	"strings"
	"testing"

	"example.com/userperf/common/apitest"
	"example.com/userperf/common/user"
)

func TestAPI(t *testing.T) { apitest.Run(t, New) }

func TestDifferential(t *testing.T) { apitest.Differential(t, New) }

func FuzzDifferential(f *testing.F) { apitest.FuzzDifferential(f, New) }

// writeCounter counts the writes made to it and keeps what they wrote.
type writeCounter struct {
	writes int
	text   strings.Builder
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.text.Write(p)
}

// TestLogWritesPieceByPiece checks that one list request makes a write per
// character of the role and several per user found, which is what the
// exercise asks the learner to measure and then remove.
func TestLogWritesPieceByPiece(t *testing.T) {
	w := &writeCounter{}
	saved := logOut
	logOut = w
	t.Cleanup(func() { logOut = saved })

	s := New(user.MustGenerate(user.MinCount, user.DefaultSeed))
	s.ListByRole(user.RoleAdmin)

	min := len(`"admin"`) + 2*user.AdminCount
	if w.writes < min {
		t.Errorf("one list of %d users made %d writes; the starting point should make at least %d", user.AdminCount, w.writes, min)
	}
	if lines := strings.Count(w.text.String(), "\n"); lines != 1+user.AdminCount {
		t.Errorf("one list of %d users logged %d lines, want %d:\n%.300s", user.AdminCount, lines, 1+user.AdminCount, w.text.String())
	}
	if !strings.Contains(w.text.String(), ` list role="admin" matches=100 took=`) {
		t.Errorf("the request line is missing:\n%.300s", w.text.String())
	}
}
