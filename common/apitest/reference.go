package apitest

import (
	"sync"

	"example.com/userperf/common/api"
	"example.com/userperf/common/user"
)

// Reference is the slowest obvious stage: the Model behind one mutex, every
// list sorted and marshaled by encoding/json on every request. It is what
// the differential tests compare every stage with, so it is written to be
// easy to believe, not fast; TestReference holds it to the same contract
// that Run holds every stage to.
type Reference struct {
	mu    sync.Mutex
	model *Model
}

// NewReference returns a Reference holding users. It is an api.NewStage.
func NewReference(users []user.User) api.Stage {
	return &Reference{model: NewModel(users)}
}

// ListByRole returns encoding/json.Marshal of the users holding role.
func (r *Reference) ListByRole(role string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model.ListBody(role)
}

// Get returns the user with id.
func (r *Reference) Get(id string) (user.User, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model.Get(id)
}

// Add stores u unless its id is taken.
func (r *Reference) Add(u user.User) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model.Add(u)
}

// Delete removes the user with id.
func (r *Reference) Delete(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model.Delete(id)
}
