package apitest

import (
	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// NewPlain returns the plain store of package plain behind one mutex, as
// the slowest obvious stage: every list sorted and marshaled by
// encoding/json on every request. The differential tests compare every
// stage with it, so it is written to be easy to believe, not fast;
// ExampleRun holds it to the same contract that Run holds every stage to.
// It is an api.NewStage.
func NewPlain(users []user.User) api.Stage {
	return plain.NewLocked(users)
}
