// Package api is the HTTP layer that every stage shares: routes, input
// validation, errors, limits, timeouts, graceful shutdown and profiling.
// A stage plugs in through Stage, so that its folder holds only what its
// optimization changes.
package api

import "example.com/userperf/common/user"

// Stage is one implementation of the user store, safe for concurrent use.
type Stage interface {
	// ListByRole returns the body of GET /users?role=role: the JSON array
	// of every user holding role, in ascending id order, byte for byte what
	// encoding/json.Marshal gives, and "[]" for none. The role is valid.
	// Nobody writes into the body, which a stage may hand out to many
	// callers; one that reuses its buffers implements Recycler.
	ListByRole(role string) []byte

	Get(id string) (user.User, bool)

	// Add stores u, which is valid and the stage's from then on, or
	// reports false, changing nothing, when a user with u.ID exists.
	Add(u user.User) bool

	// Delete removes the user with id and reports whether there was one.
	Delete(id string) bool
}

// NewStage builds a stage holding users, in ascending id order. The stage
// may keep the slice but never changes a user: users are replaced, never
// modified.
type NewStage func(users []user.User) Stage

// Recycler is a stage that reuses its bodies: the handler gives back each
// body that ListByRole returned once it is written.
type Recycler interface {
	Recycle(body []byte)
}

// Recycle hands body back to stage if it is a Recycler.
func Recycle(stage Stage, body []byte) {
	if r, ok := stage.(Recycler); ok {
		r.Recycle(body)
	}
}
