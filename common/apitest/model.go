// Package apitest is the conformance suite that every stage runs: the API
// contract that the repository's README describes, as executable checks,
// byte for byte against encoding/json.
package apitest

import (
	"encoding/json"
	"slices"
	"strings"

	"example.com/userperf/common/user"
)

// Model is the reference implementation of the store: the obvious code,
// with no concern for speed, that every stage must agree with.
type Model struct {
	users map[string]user.User
}

// NewModel returns a model holding users.
func NewModel(users []user.User) *Model {
	m := &Model{users: make(map[string]user.User, len(users))}
	for _, u := range users {
		m.users[u.ID] = u
	}
	return m
}

// Add stores u unless its id is taken, and reports whether it did.
func (m *Model) Add(u user.User) bool {
	if _, taken := m.users[u.ID]; taken {
		return false
	}
	m.users[u.ID] = u
	return true
}

// Delete removes the user with id and reports whether there was one.
func (m *Model) Delete(id string) bool {
	_, ok := m.users[id]
	delete(m.users, id)
	return ok
}

// Get returns the user with id.
func (m *Model) Get(id string) (user.User, bool) {
	u, ok := m.users[id]
	return u, ok
}

// WithRole returns the users holding role in ascending id order.
func (m *Model) WithRole(role string) []user.User {
	found := []user.User{} // never nil: Marshal of nil is "null", the API says "[]"
	for _, u := range m.users {
		if u.HasRole(role) {
			found = append(found, u)
		}
	}
	slices.SortFunc(found, func(a, b user.User) int { return strings.Compare(a.ID, b.ID) })
	return found
}

// ListBody is the exact body GET /users?role=role must answer.
func (m *Model) ListBody(role string) []byte {
	return mustMarshal(m.WithRole(role))
}

func mustMarshal(v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return body
}
