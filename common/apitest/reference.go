package apitest

import (
	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// Reference is the slowest obvious stage: the Model behind one mutex, every
// list sorted and marshaled by encoding/json on every request. It is what
// the differential tests compare every stage with, so it is written to be
// easy to believe, not fast; TestReference holds it to the same contract
// that Run holds every stage to.
type Reference = plain.Locked

// NewReference returns a Reference holding users. It is an api.NewStage.
func NewReference(users []user.User) api.Stage {
	return plain.NewLocked(users)
}
