// Package api is the HTTP layer that every stage shares: routes, input
// validation, errors, limits, timeouts, graceful shutdown and profiling
// endpoints. A stage plugs in through the small Stage interface, so that the
// stage folders hold only what each optimization step changes.
package api

import "example.com/userperf/common/user"

// Stage is one implementation of the user store. All methods must be safe
// for concurrent use by many readers and writers.
type Stage interface {
	// ListByRole returns the body of GET /users?role=role: the JSON array of
	// every user holding role, in ascending id order, byte for byte what
	// encoding/json.Marshal gives for those users, and "[]" when there are
	// none. The role has already been validated.
	//
	// The caller only reads the body and drops it once it is written. A
	// stage may hand out the same bytes to many callers, so nobody may
	// write into a body after ListByRole returns it; a stage that reuses
	// its buffers implements Recycler to get them back.
	ListByRole(role string) []byte

	// Get returns the user with id.
	Get(id string) (user.User, bool)

	// Add stores u, which has already been validated, and reports false
	// without changing anything when a user with u.ID exists. The stage
	// owns u, including its Roles slice, from then on.
	Add(u user.User) bool

	// Delete removes the user with id and reports whether there was one.
	Delete(id string) bool
}

// NewStage builds a stage holding users, which are in ascending id order.
// The stage may keep the slice but must never change a user in it: like the
// users that Add receives, stored users are replaced, never modified.
type NewStage func(users []user.User) Stage

// Recycler is implemented by a stage that reuses response buffers. The
// handler calls Recycle with the body that ListByRole returned once the
// response is written; from then on the stage owns those bytes again and
// may encode the next response into them. A stage that allocates a new body
// for every request does not implement it.
type Recycler interface {
	Recycle(body []byte)
}

// Recycle hands body back to stage if the stage reuses its buffers, and
// does nothing otherwise.
func Recycle(stage Stage, body []byte) {
	if r, ok := stage.(Recycler); ok {
		r.Recycle(body)
	}
}
