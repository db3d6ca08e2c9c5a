// Package plain is the plainest user store, a map searched in full and
// sorted on every list: the reference that apitest checks every answer
// against. It imports only common/user, so that common/api's tests may.
package plain

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"example.com/userperf/common/user"
)

// Store holds users by id. It is not safe for concurrent use; Locked is.
type Store struct {
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
	if _, taken := s.users[u.ID]; taken {
		return false
	}
	s.users[u.ID] = u
	return true
}

// Delete removes the user with id and reports whether there was one.
func (s *Store) Delete(id string) bool {
	_, ok := s.users[id]
	delete(s.users, id)
	return ok
}

// Get returns the user with id.
func (s *Store) Get(id string) (user.User, bool) {
	u, ok := s.users[id]
	return u, ok
}

// WithRole returns the users holding role in ascending id order.
func (s *Store) WithRole(role string) []user.User {
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

// Locked is a Store behind one mutex: the slowest obvious common/api Stage.
type Locked struct {
	mu    sync.Mutex
	store *Store
}

// NewLocked returns a Locked holding users.
func NewLocked(users []user.User) *Locked {
	return &Locked{store: New(users)}
}

// ListByRole returns encoding/json.Marshal of the users holding role.
func (l *Locked) ListByRole(role string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.store.ListBody(role)
}

// Get returns the user with id.
func (l *Locked) Get(id string) (user.User, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.store.Get(id)
}

// Add stores u unless its id is taken.
func (l *Locked) Add(u user.User) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.store.Add(u)
}

// Delete removes the user with id.
func (l *Locked) Delete(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.store.Delete(id)
}
