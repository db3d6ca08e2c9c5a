// Package plain is the plainest user store, a map searched in full and
// sorted on every list behind one mutex: the reference that apitest checks
// every answer against, and the slowest obvious common/api Stage. It
// imports only common/user, so that common/api's tests may import it.
package plain

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/user"
)

// Store holds users by id.
type Store struct {
	mu    sync.Mutex
	users map[string]user.User
}

// New returns a Store holding users.
func New(users []user.User) *Store {
	s := &Store{users: make(map[string]user.User, len(users))}
	for _, u := range users {
		s.users[u.ID] = u
	}
	return s
}

// Add stores u unless its id is taken, and reports whether it did.
func (s *Store) Add(u user.User) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.users[u.ID]; taken {
		return false
	}
	s.users[u.ID] = u
	return true
}

// Delete removes the user with id and reports whether there was one.
func (s *Store) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.users[id]
	delete(s.users, id)
	return ok
}

// Get returns the user with id.
func (s *Store) Get(id string) (user.User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[id]
	return u, ok
}

// WithRole returns the users holding role in ascending id order.
func (s *Store) WithRole(role string) []user.User {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := []user.User{} // never nil: Marshal of nil is "null", the API says "[]"
	for _, u := range s.users {
		if u.HasRole(role) {
			found = append(found, u)
		}
	}
	slices.SortFunc(found, func(a, b user.User) int { return strings.Compare(a.ID, b.ID) })
	return found
}

// ListBody is the exact body GET /users?role=role must answer.
func (s *Store) ListBody(role string) []byte {
	body, err := json.Marshal(s.WithRole(role))
	if err != nil {
		panic(err) // a user is strings only: Marshal cannot fail on one
	}
	return body
}

// ListByRole is ListBody, as a Stage lists.
func (s *Store) ListByRole(role string) []byte { return s.ListBody(role) }
