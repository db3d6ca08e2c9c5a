package api

import (
	"encoding/json"
	"log"
	"net/http"
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/user"
)

// mapStage is the plainest Stage, for testing the HTTP layer alone (the
// stages and their shared suites cannot be imported here: they import api).
type mapStage struct {
	mu    sync.Mutex
	users map[string]user.User
}

func newMapStage(users []user.User) Stage {
	s := &mapStage{users: map[string]user.User{}}
	for _, u := range users {
		s.users[u.ID] = u
	}
	return s
}

func (s *mapStage) ListByRole(role string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := []user.User{}
	for _, u := range s.users {
		if u.HasRole(role) {
			found = append(found, u)
		}
	}
	slices.SortFunc(found, func(a, b user.User) int { return strings.Compare(a.ID, b.ID) })
	body, _ := json.Marshal(found)
	return body
}

func (s *mapStage) Get(id string) (user.User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[id]
	return u, ok
}

func (s *mapStage) Add(u user.User) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.users[u.ID]; taken {
		return false
	}
	s.users[u.ID] = u
	return true
}

func (s *mapStage) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.users[id]
	delete(s.users, id)
	return ok
}

// syncBuffer is a log destination that the server's goroutines and the
// test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newTestLogger returns a logger whose output the test can read.
func newTestLogger() (*log.Logger, *syncBuffer) {
	var buf syncBuffer
	return log.New(&buf, "", 0), &buf
}

// testConfig is what parseFlags gives with no flags, on any free loopback port.
func testConfig() config {
	return config{name: "test", addr: "127.0.0.1:0", users: user.MinCount, limits: DefaultLimits, seed: user.DefaultSeed}
}

// newTestHandler returns the API over a mapStage holding the smallest data set.
func newTestHandler() http.Handler {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	return NewHandler(newMapStage(users), users)
}
